"""Tool latencies: read pages of a 100 MB file, a 200-hunk apply_patch, bash spawn.

- ``read`` page 1 of a generated 100 MB text file (budget < 50 ms, DESIGN.md §13);
- ``read`` a middle page (line 500 000), cold (no cached line index: it must
  count newlines up to the page) and warm (the page after a cached one);
- ``apply_patch`` with 200 hunks on a 50 000-line file (budget < 300 ms);
- ``bash`` spawn overhead for ``true``.

Each goes through ``ToolRegistry.invoke`` as the runner calls it. Usage:
``python bench/tools.py [--rounds R]``; prints medians, writes
``bench/results/tools.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from agent_tui.tools import text_pages
from agent_tui.tools.builtin import default_registry
from agent_tui.tools.permissions import AllowAll
from agent_tui.tools.scope import ToolScope

RESULTS = Path(__file__).resolve().parent / "results" / "tools.json"
BUDGETS_MS = {"read_page_1": 50.0, "apply_patch_200_hunks": 300.0}


def make_big_file(path: Path, size: int = 100 * 1024 * 1024) -> int:
    line = b"%08d the quick brown fox jumps over the lazy dog, again and again and again and again!\n"
    block = b"".join(line % i for i in range(10_000))
    lines = 0
    with open(path, "wb") as handle:
        while handle.tell() < size:
            handle.write(block)
            lines += 10_000
    return lines


def make_patch_case(root: Path) -> tuple[str, str]:
    original = "".join(f"line {i}: value = {i * 7}\n" for i in range(50_000))
    body = ["*** Begin Patch", "*** Update File: big.py"]
    for k in range(200):
        i = 100 + k * 249
        body += [
            "@@",
            f" line {i - 1}: value = {(i - 1) * 7}",
            f"-line {i}: value = {i * 7}",
            f"+line {i}: value = {i * 7}  # changed",
            f" line {i + 1}: value = {(i + 1) * 7}",
        ]
    body.append("*** End Patch")
    return original, "\n".join(body) + "\n"


async def timed(coro_factory, rounds: int, before=None) -> list[float]:
    samples = []
    for _ in range(rounds):
        if before is not None:
            before()
        start = time.perf_counter()
        outcome = await coro_factory()
        samples.append((time.perf_counter() - start) * 1000)
        assert outcome.error is None, outcome.error
    return samples


async def main(rounds: int) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="agent-bench-tools-"))
    try:
        registry = default_registry(root)
        scope = ToolScope(location=root, project_root=root, gate=AllowAll(), spill_dir=root / ".spill")
        total_lines = make_big_file(root / "big.txt")
        middle = total_lines // 2
        invoke = registry.invoke
        read1 = await timed(lambda: invoke("read", {"path": "big.txt"}, scope), rounds, text_pages._CHECKPOINTS.clear)
        cold = await timed(
            lambda: invoke("read", {"path": "big.txt", "offset": middle}, scope), rounds, text_pages._CHECKPOINTS.clear
        )
        await invoke("read", {"path": "big.txt", "offset": middle}, scope)
        warm = await timed(lambda: invoke("read", {"path": "big.txt", "offset": middle + 2000}, scope), rounds)

        original, patch = make_patch_case(root)
        target = root / "big.py"
        patched = await timed(
            lambda: invoke("apply_patch", {"patch": patch}, scope), rounds, lambda: target.write_text(original)
        )
        assert target.read_text().count("# changed") == 200

        await invoke("bash", {"command": "true"}, scope)
        spawn = await timed(lambda: invoke("bash", {"command": "true"}, scope), max(rounds, 20))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {
        "read_page_1": statistics.median(read1),
        "read_middle_page_cold": statistics.median(cold),
        "read_middle_page_warm": statistics.median(warm),
        "apply_patch_200_hunks": statistics.median(patched),
        "bash_true_spawn": statistics.median(spawn),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    figures = asyncio.run(main(args.rounds))
    for name, value in figures.items():
        budget = BUDGETS_MS.get(name)
        verdict = f"  (budget < {budget:.0f} ms: {'ok' if value < budget else 'OVER'})" if budget else ""
        print(f"{name:24} median {value:8.2f} ms{verdict}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"median_ms": figures, "budget_ms": BUDGETS_MS, "rounds": args.rounds}, indent=2))
