"""The first Enter of a process against later ones (issue 11, item 2).

Each round is a fresh process (LiteLLM's first-call state is per process): the
TUI headless (``run_test``) over the real runtime and store, started the way
``agent-tui`` starts it (``CoreOpener``), against the fake provider in a process
of its own (in the same process its handler would wait on the TUI's busy event
loop and hide when the request really left). Once the background warm-up has
finished, three prompts are sent one after another; each figure is Enter -> the
request's arrival at the provider, both on CLOCK_MONOTONIC. Budget: the first
costs what later ones do. Also printed: the same with the TUI's warm-up
reduced to what it was before (LiteLLM imported, its first-call work not).

Then one answer of ``--chunks`` streamed chunks (2 000 by default, markdown shaped
like model output): Enter -> its last chunk on screen, against the adapter alone
(``llm.stream``) consuming the same stream in the same process. Budget: <= 1.5x.

Usage: ``python bench/first_send.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

SENDS = 3
sys.path.insert(0, str(Path(__file__).resolve().parent))
from tui import answer_chunks  # noqa: E402 - the TUI bench's model-shaped answer


async def adapter_alone(base: str, turn: dict) -> float:
    """The floor: ``llm.stream`` consuming the same answer, request to last event."""
    import aiohttp

    from agent_tui import llm
    from agent_tui.llm import types as t

    async with aiohttp.ClientSession(base) as admin:
        async with admin.post("/_fake/turns", json=[turn]):
            pass
    request = t.Request(
        model="openai/fake",
        system=["bench"],
        messages=[t.UserTurn(parts=[t.RequestText(text="go")])],
        tools=[],
        api_base=f"{base}/v1",
        api_key="x",
    )
    started = time.monotonic()
    async for _ in llm.stream(request):
        pass
    return time.monotonic() - started


async def child(import_only: bool, base: str, chunks: int) -> dict[str, object]:
    os.environ["AGENT_TUI_HOME"] = tempfile.mkdtemp()
    os.environ["LITELLM_OFFLINE_MODE"] = "true"
    work = Path(tempfile.mkdtemp())
    (work / ".git").mkdir()
    os.chdir(work)
    import aiohttp

    from agent_tui.core.api import DEFAULT_AGENT, read_layers
    from agent_tui.tui.app import AgentApp, StartMode
    from agent_tui.tui.bootstrap import CoreOpener, Launch, ModelFacts
    from agent_tui.tui.services import TuiServices
    from agent_tui.tui.widgets.prompt import PromptInput

    if import_only:  # the warm-up as it was: LiteLLM imported, its first call's work left to the first send
        CoreOpener._warm = lambda self: self.facts.learn(self.services.model)  # type: ignore[method-assign]
    async with aiohttp.ClientSession(base) as admin:

        async def requests() -> list[dict]:
            async with admin.get("/_fake/requests") as resp:
                return await resp.json()

        answer = "".join(answer_chunks(chunks))
        stream_turn = {"text": answer, "chunks": chunks}
        async with admin.post("/_fake/turns", json=[*({"text": f"answer {n}"} for n in range(SENDS)), stream_turn]):
            pass
        seen = len(await requests())
        launch = Launch(model="openai/fake", api_base=f"{base}/v1", api_key="x")
        facts = ModelFacts()
        services = TuiServices(
            sessions=None,
            location=str(work),
            model="openai/fake",
            agent=DEFAULT_AGENT,
            context_window=facts.window,
            learn_model=facts.learn,
        )
        core = CoreOpener(launch, read_layers(work, cli=launch.cli), services, facts)
        app = AgentApp(services, start=StartMode(), connect=core.connect)
        figures: list[float] = []
        async with app.run_test(size=(120, 40)) as pilot:
            while core._task is None or not core._task.done():  # noqa: SLF001 - the warm-up's end
                await asyncio.sleep(0.01)
            for n in range(SENDS):
                while not (app.services.sessions and not app.services.sessions.active()):  # the previous answer is done
                    await asyncio.sleep(0.01)
                await pilot.pause()
                app.query_one(PromptInput).text = f"prompt {n}"
                sent = time.monotonic()
                await pilot.press("enter")
                while len(got := await requests()) == seen + n:
                    await asyncio.sleep(0.005)
                figures.append(got[seen + n]["at"] - sent)
            sessions = app.services.sessions
            assert sessions is not None  # connected: the sends above went through it
            while sessions.active():
                await asyncio.sleep(0.01)
            await pilot.pause()
            app.query_one(PromptInput).text = "stream"
            sent = time.monotonic()
            await pilot.press("enter")
            await shown(app, answer)
            on_screen = time.monotonic() - sent
            while sessions.active():
                await asyncio.sleep(0.01)
        await core.close()
    return {"sends": figures, "stream_screen_s": on_screen, "stream_adapter_s": await adapter_alone(base, stream_turn)}


async def shown(app: App[Any], text: str) -> None:
    """The newest answer block has written all of ``text``, and a frame has been drawn since."""
    from agent_tui.tui.widgets.block_widgets import AssistantText

    while True:
        blocks = app.query(AssistantText)
        if blocks and blocks.last()._written == text:  # noqa: SLF001 - what the widget has shown
            break
        await asyncio.sleep(0.0005)
    painted = asyncio.get_running_loop().create_future()

    def paint_done() -> None:
        if not painted.done():
            painted.set_result(None)

    app.call_after_refresh(paint_done)
    await painted


def rounds(n: int, import_only: bool, base: str, chunks: int) -> list[dict]:
    out = []
    for _ in range(n):
        args = [sys.executable, __file__, "--child", base, "--chunks", str(chunks)] + (
            ["--import-only"] if import_only else []
        )
        proc = subprocess.run(args, capture_output=True, text=True, check=True)
        out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", metavar="BASE_URL")
    parser.add_argument("--import-only", action="store_true")
    parser.add_argument("--chunks", type=int, default=2_000)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(child(args.import_only, args.child, args.chunks))))
        return
    env = {**os.environ, "LITELLM_OFFLINE_MODE": "true"}
    fake = subprocess.Popen(
        [sys.executable, "-m", "agent_tui.testing.fake_provider", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert fake.stdout is not None
    listening = re.search(r"(http://127\.0\.0\.1:\d+)", fake.stdout.readline())
    assert listening is not None
    base = listening.group(1)
    try:
        report(args.rounds, base, args.chunks)
    finally:
        fake.terminate()
        fake.wait()


def report(n: int, base: str, chunks: int) -> None:
    for label, import_only in (("warm-up as built", False), ("baseline: import only", True)):
        runs = rounds(n, import_only, base, chunks)
        first = statistics.median(r["sends"][0] for r in runs) * 1000
        later = statistics.median(x for r in runs for x in r["sends"][1:]) * 1000
        print(
            f"{label:24} Enter->request: first {first:7.0f} ms   later {later:5.0f} ms   first/later {first / later:5.1f}x"
        )
        if not import_only:
            screen = statistics.median(r["stream_screen_s"] for r in runs)
            adapter = statistics.median(r["stream_adapter_s"] for r in runs)
            print(
                f"{chunks} chunks: Enter->last chunk on screen {screen:.3f} s   adapter alone {adapter:.3f} s   "
                f"ratio {screen / adapter:.2f}x (budget <= 1.5x)"
            )


if __name__ == "__main__":
    main()
