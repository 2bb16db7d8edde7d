"""What the bash sandbox adds to a command: ``true`` run plain and inside bubblewrap, alternately.

    .venv/bin/python bench/sandbox.py [--runs 100]

Both run as the ``bash`` tool starts them (``bash --noprofile --norc -c``); the sandboxed one
under the default ``workspace-write`` policy (``tools.sandbox.sandboxed_argv``). Prints the
medians, the added milliseconds and the ratio (issue 26's target: under 15 ms added).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent_tui.tools.sandbox import SandboxPolicy, bwrap_path, sandboxed_argv


def _timed_ms(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True)
    return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    bwrap = bwrap_path()
    if bwrap is None:
        print("no bubblewrap here: nothing to measure", file=sys.stderr)
        return 1
    project = Path(tempfile.mkdtemp(prefix="bench-sandbox-"))
    plain_argv = ["bash", "--noprofile", "--norc", "-c", "true"]
    sandboxed = sandboxed_argv(SandboxPolicy(writable_roots=(project,)), plain_argv, project, bwrap)
    plain, boxed = [], []
    for _ in range(args.runs):  # alternate, so both see the same machine
        plain.append(_timed_ms(plain_argv))
        boxed.append(_timed_ms(sandboxed))
    p, b = statistics.median(plain), statistics.median(boxed)
    print(f"runs {args.runs}: plain median {p:.1f} ms, sandboxed {b:.1f} ms, added {b - p:.1f} ms, ratio {b / p:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
