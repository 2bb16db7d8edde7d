"""``@`` completion: one keystroke's answer over a 100 000-file tree (target: under 50 ms).

    .venv/bin/python bench/mentions.py [--files 100000] [--runs 5]

Builds a real tree of empty files in a temporary git work tree (with a
``.gitignore`` hiding a tenth of it), lists it the way the TUI does
(``list_project``, once, off the loop in the app), then types a few queries
one character at a time, as a user would, through :class:`PathMatcher`.
Prints the listing time and the median and worst time per keystroke.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
RESULTS = Path(__file__).resolve().parent / "results" / "mentions.json"

from agent_tui.tui.file_index import list_project  # noqa: E402
from agent_tui.tui.fuzzy import PathMatcher  # noqa: E402

WORDS = [
    "src",
    "lib",
    "core",
    "tui",
    "widgets",
    "agent",
    "tests",
    "utils",
    "models",
    "views",
    "api",
    "server",
    "client",
    "data",
    "config",
    "docs",
    "build",
    "pkg",
    "internal",
    "cmd",
]
QUERIES = ["widgets/prompt", "srccoremodels", "file_4242", "apiclientviews", "cfg", "zzz"]


def make_tree(root: Path, count: int) -> None:
    rng = random.Random(7)
    for i in range(count):
        depth = rng.randint(1, 5)
        folder = root.joinpath(*(rng.choice(WORDS) for _ in range(depth)))
        folder.mkdir(parents=True, exist_ok=True)
        ignored = i % 10 == 0
        (folder / (f"file_{i}.log" if ignored else f"file_{i}_{rng.choice(WORDS)}.py")).touch()
    (root / ".gitignore").write_text("*.log\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", type=Path, help="build the tree here once and reuse it on later runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.tree or Path(tmp) / "tree"
        if not (root / ".gitignore").exists():
            root.mkdir(parents=True, exist_ok=True)
            make_tree(root, args.files)
        started = time.perf_counter()
        paths = list_project(root)
        listed_ms = (time.perf_counter() - started) * 1000
        files = sum(1 for p in paths if not p.endswith("/"))
        print(f"listed {files} files and {len(paths) - files} folders in {listed_ms:.0f} ms (git ls-files)")
        keystrokes: list[float] = []
        for _ in range(args.runs):
            matcher = PathMatcher(paths)
            for query in QUERIES:
                for end in range(1, len(query) + 1):
                    started = time.perf_counter()
                    matcher.search(query[:end])
                    keystrokes.append((time.perf_counter() - started) * 1000)
        slow = sorted(
            zip(
                keystrokes,
                [q[:e] for _ in range(args.runs) for q in QUERIES for e in range(1, len(q) + 1)],
                strict=True,
            )
        )[-5:]
        print("slowest:", ", ".join(f"{q!r} {t:.0f} ms" for t, q in slow))
        keystrokes.sort()
        print(
            f"keystroke over {len(paths)} paths: median {statistics.median(keystrokes):.1f} ms, "
            f"p90 {keystrokes[int(len(keystrokes) * 0.9)]:.1f} ms, worst {keystrokes[-1]:.1f} ms "
            f"({len(keystrokes)} keystrokes; target < 50 ms)"
        )
        cold: dict[str, float] = {}
        for query in QUERIES:
            times = []
            for _ in range(args.runs):
                matcher = PathMatcher(paths)
                started = time.perf_counter()
                matcher.search(query)
                times.append((time.perf_counter() - started) * 1000)
            cold[query] = statistics.median(times)
            print(f"  cold {query!r:18} median {cold[query]:.1f} ms")
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(
            json.dumps(
                {
                    "paths": len(paths),
                    "files": files,
                    "list_ms": listed_ms,
                    "keystroke_median_ms": statistics.median(keystrokes),
                    "keystroke_p90_ms": keystrokes[int(len(keystrokes) * 0.9)],
                    "keystroke_worst_ms": keystrokes[-1],
                    "cold_query_median_ms": cold,
                    "budget_ms": 50,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    main()
