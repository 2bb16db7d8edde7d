"""TUI benchmarks (DESIGN.md §13), headless ``run_test`` over the real store.

1. event-loop lag while 20 000 text chunks stream through the bus into the transcript;
2. first paint of a 10 000-message session (app start -> newest block on screen);
3. picker over 10 000 sessions: open (Ctrl+R -> rows) and search keystroke -> rows;
4. ``agent-tui --version`` and time to the first frame in a pseudo-terminal, plus
   keystroke echo while LiteLLM is still warming in the background.

Usage: ``python bench/tui.py [--quick]``; prints medians and writes ``bench/results/tui.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import fcntl
import json
import os
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "tui.json"
BINARY = Path(sys.executable).with_name("agent-tui")
BUDGETS = {
    "stream_loop_lag_max_ms": 100,
    "keystroke_streaming_p99_ms": 50,
    "first_paint_10k_ms": 300,
    "picker_open_ms": 150,
    "picker_search_ms": 50,
    "version_ms": 50,
    "first_frame_ms": 400,
    "keystroke_echo_p99_ms": 100,
    "idle_rss_mib": 300,
    "resume_picker_rows_ms": 300,
}


class Running:
    """An executor stand-in: marks sessions active so the UI treats them as live."""

    def __init__(self) -> None:
        self.running: set[str] = set()

    async def run(self, session_id: str) -> None: ...
    async def wake(self, session_id: str) -> None: ...
    async def resume(self, session_id: str) -> bool:
        return False

    async def interrupt(self, session_id: str, reason: str = "user") -> None: ...
    async def shutdown(self) -> None: ...

    async def hold(self, session_id: str) -> Any:
        from agent_tui.core.run import lease

        return await lease.acquire(session_id)

    def active(self) -> dict[str, dict[str, Any]]:
        return {sid: {"type": "running"} for sid in self.running}


def turn_events(n: int, text: str, tag: str) -> list:
    from agent_tui.core.log import events as ev
    from agent_tui.vocab.usage import Usage

    amid, uid = f"msg_{tag}a{n:07d}", f"msg_{tag}u{n:07d}"
    return [
        ev.ExecutionStarted(),
        ev.PromptAdmitted(input_id=uid, prompt=ev.text_prompt(f"question {n}: {text}")),
        ev.PromptPromoted(input_id=uid),
        ev.StepStarted(assistant_message_id=amid, agent="build", model="openai/fake"),
        ev.TextStarted(assistant_message_id=amid, ordinal=0),
        ev.TextEnded(assistant_message_id=amid, ordinal=0, text=f"answer {n}: some **markdown** text."),
        ev.StepEnded(assistant_message_id=amid, finish="stop", usage=Usage(input_tokens=100, output_tokens=20)),
        ev.ExecutionSucceeded(),
    ]


SENTENCES = [
    "The transcript folds durable events and live deltas into blocks.",
    "Each block repaints only when its version moves, so a burst costs one frame.",
    "Tool output streams under the call while it runs and folds away when it settles.",
    "A long answer becomes finished parts and one live tail, so frames stay cheap.",
    "We measure the loop lag with a ticker that sleeps five milliseconds at a time.",
]


def answer_chunks(count: int) -> list[str]:
    """An answer shaped like model output, cut into ~4-character token-like chunks.

    Paragraphs of three to six sentences, a bullet list every fifth paragraph and
    a fenced code block every seventh, with **bold** and `code` spans.
    """
    parts: list[str] = []
    n = 0
    while sum(map(len, parts)) < count * 4:
        body = " ".join(SENTENCES[(n + i) % len(SENTENCES)] for i in range(3 + n % 4))
        parts.append(body.replace("blocks", "**blocks**").replace("frame", "`frame`") + "\n\n")
        if n % 5 == 4:
            parts.append("- first point\n- second point\n- third point\n\n")
        if n % 7 == 6:
            parts.append(f"```python\ndef step_{n}(x):\n    return x + {n}\n```\n\n")
        n += 1
    text = "".join(parts)
    size = max(1, len(text) // count)
    return [text[i : i + size] for i in range(0, size * count, size)]


def make_app(sessions, location: str):
    from agent_tui.tui.app import AgentApp, StartMode
    from agent_tui.tui.services import TuiServices
    from agent_tui.tui.timings import Timings

    def build(start: StartMode | None = None, debounce: float = 0.0) -> AgentApp:
        services = TuiServices(
            sessions=sessions, location=location, model="openai/fake", timings=Timings(search_debounce_s=debounce)
        )
        return AgentApp(services, start=start if start is not None else StartMode(), watch_themes=False)

    return build


async def until(pilot, condition, timeout: float = 60.0) -> None:
    """Wait for ``condition`` and then for the frame that shows it.

    Polls with plain short sleeps: Pilot's ``pause``/``press`` wait until the
    process looks idle (CPU vs wall time), which inflates latencies by tens of ms.
    """
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.0005)
    painted = asyncio.get_running_loop().create_future()

    def paint_done() -> None:
        if not painted.done():
            painted.set_result(None)

    pilot.app.call_after_refresh(paint_done)
    await painted


def key(app, name: str) -> None:
    """Deliver one key as the terminal driver would (no idle waits)."""
    from textual import events

    app.post_message(events.Key(name, name if len(name) == 1 else None))


async def bench_streaming(sessions, executor: Running, location: str, chunks: int) -> dict:
    from agent_tui.core.log import events as ev
    from agent_tui.tui.app import StartMode
    from agent_tui.tui.widgets.block_widgets import AssistantText
    from agent_tui.tui.widgets.prompt import PromptInput

    sid = (await sessions.create(location=location)).id
    await sessions._store.publish_many(sid, turn_events(0, "warm up", "w"))
    executor.running.add(sid)
    app = make_app(sessions, location)(StartMode(session_id=sid))
    lags: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.view.synced)
        await sessions._store.publish_many(
            sid,
            [
                ev.ExecutionStarted(),
                ev.StepStarted(assistant_message_id="msg_stream", agent="build", model="m"),
                ev.TextStarted(assistant_message_id="msg_stream", ordinal=0),
            ],
        )
        await until(pilot, lambda: len(app.query(AssistantText)) == 2)
        widget = app.query(AssistantText).last()
        stop = asyncio.Event()
        prompt = app.query_one(PromptInput)
        prompt.focus()
        idle_keys: list[float] = []
        stream_keys: list[float] = []

        async def typist(into: list[float], count: int | None = None) -> None:
            """Key -> the frame that shows it in the prompt is painted, every ~30 ms (a fast typist).

            The app forwards the key to the prompt's queue; a callback queued behind it there
            asks for the frame after the prompt has taken the key: that frame shows it. (Polling
            the prompt's text and then waiting for a frame counted one frame too many whenever
            the key's frame ran before the poll saw the text.)
            """
            n = 0
            while (count is None and not stop.is_set()) or (count is not None and n < count):
                before = len(prompt.text)
                painted = asyncio.get_running_loop().create_future()
                pressed = time.perf_counter()
                key(app, "abcdefghij"[n % 10])
                app.call_later(
                    prompt.call_after_refresh, lambda painted=painted: painted.done() or painted.set_result(None)
                )
                await asyncio.wait_for(painted, 60)
                into.append((time.perf_counter() - pressed) * 1000)
                assert len(prompt.text) > before, "the frame came before the prompt took the key"
                n += 1
                await asyncio.sleep(0.03)

        await typist(idle_keys, 40)  # the baseline: the same keys with nothing streaming
        prompt.clear()

        async def ticker() -> None:
            while not stop.is_set():
                start = time.perf_counter()
                await asyncio.sleep(0.005)
                lags.append((time.perf_counter() - start - 0.005) * 1000)

        tick = asyncio.create_task(ticker())
        typing = asyncio.create_task(typist(stream_keys))
        pieces = answer_chunks(chunks)
        started = time.perf_counter()
        for n, piece in enumerate(pieces):
            sessions._bus.publish(
                ev.TextDelta(session_id=sid, assistant_message_id="msg_stream", ordinal=0, delta=piece)
            )
            if n % 20 == 19:  # a provider delivers chunks in network reads, not all at once
                await asyncio.sleep(0.001)
        published = time.perf_counter() - started
        full = "".join(pieces)
        from agent_tui.tui.block_keys import BlockKey

        fragment = BlockKey.fragment("msg_stream", 0)
        await until(pilot, lambda: len(widget._written) >= len(full) or app.view.transcript.get(fragment).text == full)
        caught_up = time.perf_counter() - started
        stop.set()
        await tick
        await typing
        await sessions._store.publish(sid, ev.TextEnded(assistant_message_id="msg_stream", ordinal=0, text=full))
        await until(pilot, lambda: not widget.block.open and widget.painted == widget.block.version)
    lags.sort()
    idle_keys.sort()
    stream_keys.sort()

    def percentile(values: list[float], q: float) -> float:
        return round(values[min(len(values) - 1, int(len(values) * q))], 1)

    def p99(values: list[float]) -> float:
        return percentile(values, 0.99)

    return {
        "chunks": chunks,
        "keystroke_idle_median_ms": round(statistics.median(idle_keys), 1),
        "keystroke_idle_p99_ms": p99(idle_keys),
        "keystroke_streaming_median_ms": round(statistics.median(stream_keys), 1),
        "keystroke_streaming_p99_ms": p99(stream_keys),
        "keystroke_streaming_p95_ms": percentile(stream_keys, 0.95),
        "keystroke_streaming_max_ms": round(stream_keys[-1], 1),
        "keystroke_streaming_keys": len(stream_keys),
        "keystroke_streaming_vs_idle_p99": round(p99(stream_keys) / max(p99(idle_keys), 0.1), 2),
        "answer_kb": round(len(full) / 1024, 1),
        "stream_loop_lag_max_ms": round(lags[-1], 1),
        "stream_loop_lag_p99_ms": round(lags[int(len(lags) * 0.99)], 1),
        "stream_loop_lag_median_ms": round(statistics.median(lags), 2),
        "stream_publish_s": round(published, 3),
        "stream_caught_up_s": round(caught_up, 3),
    }


def newest_shown(app, view, key) -> bool:  # noqa: ANN001 - a tui.block_keys.BlockKey
    """The block for ``key`` is mounted, laid out with its text, and on screen."""
    for widget in view.query_children():
        if widget.block.key == key:
            parts = list(widget.walk_children())
            return (
                widget.is_mounted
                and widget.region.height > 0
                and widget in app.screen._compositor.visible_widgets
                and bool(parts)
                and all(part.is_mounted for part in parts)
            )
    return False


async def bench_first_paint(sessions, location: str, messages: int, rounds: int) -> dict:
    from agent_tui.tui.app import StartMode
    from agent_tui.tui.widgets.transcript import TranscriptView

    sid = (await sessions.create(location=location)).id
    batch: list = []
    for n in range(messages // 2):
        batch.extend(turn_events(n, "history", "h"))
        if len(batch) >= 4000:
            await sessions._store.publish_many(sid, batch)
            batch = []
    if batch:
        await sessions._store.publish_many(sid, batch)
    from agent_tui.tui.block_keys import BlockKey

    last_key = BlockKey.fragment(f"msg_ha{messages // 2 - 1:07d}", 0)
    times, opens = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        app = make_app(sessions, location)(StartMode(session_id=sid))
        async with app.run_test(size=(120, 40)) as pilot:
            view = app.query_one(TranscriptView)
            await until(pilot, lambda app=app, view=view: newest_shown(app, view, last_key))
            times.append((time.perf_counter() - started) * 1000)
            await pilot.pause()  # settle before timing the reopen
            mounted = len(view.children)
            started = time.perf_counter()
            await app.open_session(sid)  # reopen inside a running app: the session part alone
            view = app.query_one(TranscriptView)
            await until(pilot, lambda app=app, view=view: newest_shown(app, view, last_key))
            opens.append((time.perf_counter() - started) * 1000)
    record = await sessions.get(sid)
    return {
        "messages": record.message_count,
        "first_paint_10k_ms": round(statistics.median(times), 1),
        "reopen_in_running_app_ms": round(statistics.median(opens), 1),
        "mounted_blocks": mounted,
    }


async def bench_picker(sessions, location: str, count: int, rounds: int) -> dict:
    from agent_tui.core.log import events as ev
    from agent_tui.core.store.writer import Tx
    from agent_tui.tui.screens.picker import SessionPicker

    topics = ["parser", "flaky test", "docs", "release", "refactor", "benchmark", "theme", "picker"]

    def job(start: int, stop: int):
        def run(tx: Tx) -> None:
            for n in range(start, stop):
                sid = f"ses_bench{n:07d}"
                tx.append(sid, ev.SessionCreated(location=location, project_root=location))
                for event in turn_events(n, topics[n % len(topics)], "p"):
                    tx.append(sid, event)

        return run

    for start in range(0, count, 500):
        await sessions._store.transact(job(start, min(count, start + 500)))
    opens, searches = [], []
    for _ in range(rounds):
        app = make_app(sessions, location)()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            started = time.perf_counter()
            key(app, "ctrl+r")
            await until(
                pilot, lambda app=app: isinstance(app.screen, SessionPicker) and app.screen.loaded_generation >= 1
            )
            opens.append((time.perf_counter() - started) * 1000)
            picker = app.screen
            for char in "pars":
                generation = picker.loaded_generation
                started = time.perf_counter()
                key(app, char)
                await until(pilot, lambda picker=picker, generation=generation: picker.loaded_generation > generation)
                searches.append((time.perf_counter() - started) * 1000)
            assert picker.rows and all("pars" in (r.title or "") for r in picker.rows), "search found nothing"
            key(app, "escape")
            await until(pilot, lambda app=app: not isinstance(app.screen, SessionPicker))
    searches.sort()
    return {
        "sessions": count,
        "picker_open_ms": round(statistics.median(opens), 1),
        "picker_search_ms": round(statistics.median(searches), 1),
        "picker_search_p90_ms": round(searches[int(len(searches) * 0.9)], 1),
    }


def bench_version(rounds: int) -> dict:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run([str(BINARY), "--version"], check=True, capture_output=True)
        times.append((time.perf_counter() - started) * 1000)
    bare = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append((time.perf_counter() - started) * 1000)
    return {"version_ms": round(statistics.median(times), 1), "bare_python_ms": round(statistics.median(bare), 1)}


def _read_until(fd: int, needle: bytes | re.Pattern[bytes], timeout: float, seen: bytearray) -> float | None:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.01)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                return None
            if needle.search(seen) if isinstance(needle, re.Pattern) else needle in seen:
                return time.perf_counter()
    return None


def _spawn(home: str, cwd: str, *args: str) -> tuple[subprocess.Popen, int, float]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, "AGENT_TUI_HOME": home, "TERM": "xterm-256color", "LITELLM_OFFLINE_MODE": "true"}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [str(BINARY), "--model", "openai/fake", "--api-key", "sk-bench", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    return proc, master, started


def _quit(proc: subprocess.Popen, master: int) -> None:
    os.write(master, b"\x03")
    os.write(master, b"\x03")
    deadline = time.perf_counter() + 15
    while proc.poll() is None and time.perf_counter() < deadline:  # drain: a full pty blocks its exit
        _read_until(master, b"\x00never", 0.05, bytearray())
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    os.close(master)


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def _wait_shown(proc: subprocess.Popen, master: int, needle: bytes | re.Pattern[bytes], what: str) -> float:
    seen = bytearray()
    shown = _read_until(master, needle, 30, seen)
    if shown is None:
        proc.kill()
        raise RuntimeError(f"no {what}; output: {bytes(seen[-400:])!r}")
    return shown


ROW_DRAWN = re.compile(rb"\d+ messages?")


def bench_resume_picker(home: str, cwd: str, rounds: int) -> dict:
    """``agent-tui --resume`` in a directory with the picker's 10 000 sessions: launch -> rows drawn."""
    times = []
    for _ in range(rounds):
        proc, master, started = _spawn(home, cwd, "--resume")
        # A drawn row reads "<when> · <n> message(s)"; the search field's placeholder also says
        # "messages", so wait for the count itself.
        times.append((_wait_shown(proc, master, ROW_DRAWN, "picker rows") - started) * 1000)
        _quit(proc, master)
    return {"resume_picker_rows_ms": round(statistics.median(times), 1)}


def bench_idle_memory(home: str, workdir: str) -> dict:
    """Whole-process RSS once LiteLLM has warmed in the background (10 s after the first frame)."""
    proc, master, _ = _spawn(home, workdir)
    _wait_shown(proc, master, b"build", "first frame")
    _read_until(master, b"\x00never", 10, bytearray())  # keep draining output while LiteLLM imports
    rss = _rss_mib(proc.pid)
    _quit(proc, master)
    return {"idle_rss_mib": rss}


def bench_first_frame(home: str, workdir: str, rounds: int) -> dict:
    frames, echoes = [], []
    for _ in range(rounds):
        proc, master, started = _spawn(home, workdir)
        frames.append((_wait_shown(proc, master, b"build", "first frame") - started) * 1000)  # status bar drawn
        seen = bytearray()
        # Type like a fast typist (every 30 ms) while LiteLLM imports in the background. The
        # prompt line is redrawn with every key, so key n has echoed once "Q" * n is on screen.
        for n in range(1, 31):
            seen.clear()
            sent = time.perf_counter()
            os.write(master, b"Q")
            echoed = _read_until(master, b"Q" * n, 5, seen)
            if echoed is not None:
                echoes.append((echoed - sent) * 1000)
            time.sleep(max(0.0, 0.03 - (time.perf_counter() - sent)))
        _quit(proc, master)
    echoes.sort()
    return {
        "first_frame_ms": round(statistics.median(frames), 1),
        "keystroke_echo_median_ms": round(statistics.median(echoes), 1) if echoes else None,
        "keystroke_echo_p99_ms": round(echoes[min(len(echoes) - 1, int(len(echoes) * 0.99))], 1) if echoes else None,
    }


async def run_headless(args: argparse.Namespace, home: str, workdir: str) -> dict:
    os.environ["AGENT_TUI_HOME"] = home
    from agent_tui.core.sessions import open_sessions
    from agent_tui.tui import app as _preload  # noqa: F401 - imports are measured by the pty first frame

    executor = Running()
    result: dict[str, Any] = {}
    sessions = await open_sessions(executor=executor)
    try:
        if args.only in (None, "stream"):
            result.update(await bench_streaming(sessions, executor, workdir, args.chunks))
        if args.only in (None, "paint"):
            result.update(await bench_first_paint(sessions, workdir + "/big", args.messages, args.rounds))
        if args.only in (None, "picker"):
            result.update(await bench_picker(sessions, workdir + "/many", args.sessions, args.rounds))
    finally:
        await sessions.close()
    return result


def report(result: dict[str, Any]) -> None:
    for key, value in result.items():
        budget = BUDGETS.get(key)
        verdict = (
            ""
            if budget is None or not isinstance(value, (int, float))
            else ("  ok" if value <= budget else f"  OVER budget {budget}")
        )
        print(f"{key:<28}  {value}{verdict}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller sizes, one round")
    parser.add_argument("--only", choices=["stream", "paint", "picker", "process"], help="run one part")
    args = parser.parse_args()
    quick = (int(os.environ.get("BENCH_CHUNKS", 2_000)), 1_000, 1_000, 1)
    args.chunks, args.messages, args.sessions, args.rounds = (
        quick if args.quick else (20_000, 10_000, 10_000, 5)
    )  # 5 rounds: this VM is noisy
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as workdir:
        os.makedirs(workdir + "/big")
        os.makedirs(workdir + "/many")
        result = asyncio.run(run_headless(args, home, workdir)) if args.only != "process" else {}
        report(result)
        if args.only in (None, "process"):
            # An installed agent-tui runs from bytecode (pip compiles it; a first run writes it
            # unless PYTHONDONTWRITEBYTECODE is set, as in this sandbox): time launches that way.
            compileall.compile_dir(str(ROOT / "agent_tui"), quiet=1)
            parts = [
                lambda: bench_version(10 if not args.quick else 3),
                lambda: bench_first_frame(home, workdir, args.rounds),
                lambda: bench_idle_memory(home, workdir),
            ]
            if args.only is None:  # needs the picker's sessions
                parts.append(lambda: bench_resume_picker(home, workdir + "/many", args.rounds))
            for part in parts:
                try:
                    figures = part()
                except RuntimeError as error:  # one failed measurement must not lose the others
                    figures = {"error": str(error)[:200]}
                report(figures)
                result.update(figures)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    if args.only is None and not args.quick:  # only a full run replaces the recorded figures
        RESULTS.write_text(json.dumps({"result": result, "budgets": BUDGETS}, indent=2) + "\n")


if __name__ == "__main__":
    main()
