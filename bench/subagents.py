"""Keystroke to screen in the parent's TUI while three subagents stream (issue 25).

The TUI headless (``run_test``) over the real runtime and store, against the fake
provider served from a thread with its own event loop (in the app's loop its handler
would wait on the busy TUI and slow the streams down). The parent's first step calls
``task`` three times; the three children run at once, each streaming a long
model-shaped answer slowly (``--chunks`` chunks, ``--delay-ms`` apart), while the
parent's screen follows them onto their ``task`` blocks (``tui/child_progress.py``).

Each keystroke goes to the prompt as the terminal driver would deliver it
(``tui.key``); the figure is key -> the prompt holds the character -> the next
frame drawn (``tui.until``). The baseline is the same app in the same run, with the
session open and nothing running; then the same keystrokes while all three children
stream (only those typed while all three still ran count). Budget: p95 < 50 ms.

Usage: ``python bench/subagents.py [--keys N] [--chunks N] [--delay-ms MS]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from tui import answer_chunks, key, until  # noqa: E402 - the TUI bench's harness and model-shaped answer

from tests.routed_fake import Routes, task_call  # noqa: E402 - per-session scripts for parent and children

BUDGET_P95_MS = 50.0
CHILDREN = 3
MODEL = "openai/fake-model"


class ProviderThread:
    """The fake provider answering from ``routes``, on an event loop of its own in a thread."""

    def __init__(self, routes: Routes) -> None:
        self.routes = routes
        self.base = ""
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self) -> None:
        from agent_tui.testing.fake_provider import FakeProvider

        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        async with FakeProvider(responder=self.routes) as fake:
            self.base = fake.openai_base
            self._ready.set()
            await self._stop.wait()

    def __enter__(self) -> ProviderThread:
        self._thread.start()
        self._ready.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


async def keystrokes(pilot: Any, app: Any, count: int, still: Callable[[], bool]) -> list[float]:
    """Key -> character in the prompt -> a frame drawn, ``count`` times, a few ms apart; only
    those typed while ``still()`` holds."""
    from agent_tui.tui.widgets.prompt import PromptInput

    prompt = app.view.query_one(PromptInput)
    figures: list[float] = []
    for n in range(count):
        before = len(prompt.text)
        started = time.perf_counter()
        key(app, "abcdefghij"[n % 10])
        await until(pilot, lambda before=before: len(prompt.text) > before)
        took = (time.perf_counter() - started) * 1000
        if still():
            figures.append(took)
        await asyncio.sleep(0.01)  # a fast typist's gap
    return figures


async def measure(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    from agent_tui.core.api import Runtime, load_settings
    from agent_tui.tui.app import AgentApp, StartMode
    from agent_tui.tui.services import TuiServices
    from agent_tui.tui.widgets.prompt import PromptInput
    from agent_tui.tui.widgets.tool_block import ToolCallView

    answer = "".join(answer_chunks(args.chunks))
    routes = Routes()
    calls = [task_call(f"call_{n}", f"CHILD-{n}: write it up", description=f"write part {n}") for n in range(CHILDREN)]
    routes.add("PARENT", {"tool_calls": calls}, {"text": "all three are done"})
    for n in range(CHILDREN):
        routes.add(f"CHILD-{n}", {"text": answer, "chunks": args.chunks, "delay_ms": args.delay_ms})
    with ProviderThread(routes) as provider:
        cli = {"model": MODEL, "api_base": provider.base, "api_key": "bench"}
        async with await Runtime.open(lambda location: load_settings(location, cli=cli), permission_policy=None) as rt:
            services = TuiServices(sessions=rt.sessions, location=str(workdir), model=MODEL)
            app = AgentApp(services, start=StartMode(), watch_themes=False)
            async with app.run_test(size=(120, 40)) as pilot:
                await until(pilot, lambda: app.view.synced)
                await keystrokes(pilot, app, 20, lambda: True)  # warm-up: first paints, imports
                baseline = await keystrokes(pilot, app, args.keys, lambda: True)

                prompt = app.view.query_one(PromptInput)
                prompt.load_text("PARENT: hand three parts to subagents")
                await pilot.press("enter")

                def followed() -> int:
                    blocks = [w.block for w in app.view.query(ToolCallView) if w.block.name == "task"]
                    return sum(1 for b in blocks if b.subagent is not None and b.subagent.action == "writing")

                def children_running() -> int:
                    parent = app.view.session_id
                    return sum(1 for about in rt.sessions.active().values() if about.get("parent") == parent)

                await until(pilot, lambda: followed() == CHILDREN, timeout=60)
                started = time.perf_counter()
                busy = await keystrokes(pilot, app, args.keys, lambda: children_running() == CHILDREN)
                typed_s = time.perf_counter() - started
                await until(pilot, lambda: children_running() == 0, timeout=300)
                await until(pilot, lambda: not app.view.is_active, timeout=60)
    if not busy:
        raise SystemExit("the children ended before any keystroke: raise --chunks or --delay-ms")
    result = {
        "keys": args.keys,
        "children": CHILDREN,
        "child_chunks": args.chunks,
        "child_delay_ms": args.delay_ms,
        "baseline_median_ms": statistics.median(baseline),
        "baseline_p95_ms": percentile(baseline, 0.95),
        "children_keys": len(busy),
        "children_typing_s": typed_s,
        "children_median_ms": statistics.median(busy),
        "children_p95_ms": percentile(busy, 0.95),
        "children_max_ms": max(busy),
    }
    result["median_ratio"] = result["children_median_ms"] / result["baseline_median_ms"]
    result["p95_ratio"] = result["children_p95_ms"] / result["baseline_p95_ms"]
    return result


def report(result: dict[str, Any]) -> None:
    print(
        f"baseline (no children)        median {result['baseline_median_ms']:6.1f} ms   "
        f"p95 {result['baseline_p95_ms']:6.1f} ms   ({result['keys']} keys)"
    )
    verdict = "ok" if result["children_p95_ms"] < BUDGET_P95_MS else f"OVER budget {BUDGET_P95_MS:.0f} ms"
    print(
        f"{result['children']} children streaming        median {result['children_median_ms']:6.1f} ms   "
        f"p95 {result['children_p95_ms']:6.1f} ms   max {result['children_max_ms']:6.1f} ms   "
        f"({result['children_keys']} keys in {result['children_typing_s']:.1f} s)   {verdict}"
    )
    print(f"ratio children / baseline      median {result['median_ratio']:5.2f}x   p95 {result['p95_ratio']:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=200, help="keystrokes per phase")
    parser.add_argument("--chunks", type=int, default=3_000, help="chunks each child streams")
    parser.add_argument("--delay-ms", type=float, default=4.0, help="between a child's chunks")
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as work:
        os.environ["AGENT_TUI_HOME"] = home
        workdir = Path(work)
        (workdir / ".git").mkdir()
        report(asyncio.run(measure(args, workdir)))


if __name__ == "__main__":
    main()
