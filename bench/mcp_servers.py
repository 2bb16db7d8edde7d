"""MCP servers must cost nothing before the first frame: ``--version`` and the first frame with two
servers configured against the same without, in alternating rounds (this VM is noisy).

The servers are the tests' fake MCP server (``tests/fakes/mcp_server.py``, a real process over
stdio), configured twice in the project's ``.agent-tui/config.toml``. Also timed: launch -> the
status bar's ``mcp 2`` (both servers started in the background and ready).

Usage: ``python bench/mcp_servers.py [--rounds N]``; prints medians.
"""

from __future__ import annotations

import argparse
import compileall
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tui as tui_bench  # noqa: E402 - the pty helpers of the TUI bench

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "fakes" / "mcp_server.py"


def configure(workdir: Path) -> None:
    config = workdir / ".agent-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    command = json.dumps([sys.executable, str(SERVER), "stdio"])
    config.write_text("".join(f"[mcp.servers.{name}]\ncommand = {command}\n" for name in ("notes", "docs")))


def version_ms(cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run([str(tui_bench.BINARY), "--version"], check=True, capture_output=True, cwd=cwd)
    return (time.perf_counter() - started) * 1000


def first_frame(home: str, cwd: Path, wait_ready: bool) -> tuple[float, float | None]:
    proc, master, started = tui_bench._spawn(home, str(cwd))
    frame = (tui_bench._wait_shown(proc, master, b"build", "first frame") - started) * 1000
    ready = None
    if wait_ready:
        ready = (tui_bench._wait_shown(proc, master, b"mcp 2", "both servers ready") - started) * 1000
    tui_bench._quit(proc, master)
    return frame, ready


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "agent_tui"), quiet=1)
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as tmp:
        plain, servers = Path(tmp) / "plain", Path(tmp) / "servers"
        for where in (plain, servers):
            where.mkdir()
            (where / ".git").mkdir()
        configure(servers)
        figures: dict[str, list[float]] = {k: [] for k in ("version", "version_mcp", "frame", "frame_mcp", "ready")}
        first_frame(home, plain, False)  # warm the page cache and the store once, unmeasured
        for _ in range(args.rounds):
            figures["version"].append(version_ms(plain))
            figures["version_mcp"].append(version_ms(servers))
            figures["frame"].append(first_frame(home, plain, False)[0])
            frame, ready = first_frame(home, servers, True)
            figures["frame_mcp"].append(frame)
            figures["ready"].append(ready or float("nan"))
    med = {k: round(statistics.median(v), 1) for k, v in figures.items()}
    print(f"rounds: {args.rounds} (medians, ms)")
    print(f"--version        no servers {med['version']:7.1f}   two servers {med['version_mcp']:7.1f}")
    print(f"first frame      no servers {med['frame']:7.1f}   two servers {med['frame_mcp']:7.1f}")
    print(f"launch -> 'mcp 2' (both servers ready, in the background): {med['ready']:.1f}")


if __name__ == "__main__":
    main()
