"""``agent-tui`` start-up: the first-frame path stays light, and ``--resume`` reads its rows early."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import threading

import pytest


def test_tui_start_path_does_not_import_litellm() -> None:
    code = "import sys\nimport agent_tui.commands.tui_cmd, agent_tui.tui.app\nprint('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_first_frame_path_does_without_pydantic(workdir) -> None:
    """Everything the first frame runs (config layers, setup hint, app modules, the picker's peek):
    pydantic and the event models import in a thread once it is up (~60 ms saved)."""
    from agent_tui.core.api import open_sessions

    sessions = await open_sessions()
    await sessions.create(location=str(workdir))
    await sessions.close()
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from agent_tui.tui.bootstrap import peek_sessions, setup_hint\n"
        "from agent_tui.core.api import read_layers\nimport agent_tui.tui.app\n"
        f"layers = read_layers(Path({str(workdir)!r}))\n"
        "setup_hint(layers.text('model'), None, None)\n"
        f"rows = peek_sessions({str(workdir)!r}, 5)\n"
        "print(len(rows), rows[0].message_count, sorted(m for m in ('pydantic', 'agent_tui.core.log.events') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1 0 []"


async def test_early_peek_hands_its_rows_to_the_first_call_then_reads_again(workdir, monkeypatch) -> None:
    from agent_tui.core.api import open_sessions
    from agent_tui.tui import bootstrap

    sessions = await open_sessions()
    first = await sessions.create(location=str(workdir))
    calls: list[tuple[str | None, int]] = []
    real = bootstrap.peek_sessions

    def counting(location: str | None, limit: int) -> list:
        calls.append((location, limit))
        return real(location, limit)

    monkeypatch.setattr(bootstrap, "peek_sessions", counting)
    early = bootstrap.EarlyPeek(str(workdir))  # reads in its thread at once
    second = await sessions.create(location=str(workdir / "elsewhere"))
    await sessions.close()
    assert [row.id for row in early(str(workdir), 51)] == [first.id]
    assert calls == [(str(workdir), bootstrap.EarlyPeek.ROWS)]  # one read, made before it was asked
    assert {row.id for row in early(None, 51)} == {first.id, second.id}  # any later call reads afresh
    assert calls[-1] == (None, 51)


def test_early_peek_raises_what_the_read_raised(monkeypatch) -> None:
    from agent_tui.tui import bootstrap

    def broken(location: str | None, limit: int) -> list:
        raise OSError("unable to open database file")

    monkeypatch.setattr(bootstrap, "peek_sessions", broken)
    with pytest.raises(OSError, match="unable to open"):
        bootstrap.EarlyPeek("/nowhere")("/nowhere", 51)


def test_the_tui_warms_litellm_as_far_as_the_headless_path(workdir) -> None:
    """The first Enter must not pay LiteLLM's first-call imports (measured: ~2.5 s of them) on top
    of what later ones cost: the TUI's background warm-up runs the same preload as ``run``."""
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from agent_tui.tui.bootstrap import CoreOpener, Launch, ModelFacts\n"
        "from agent_tui.core.api import read_layers\nfrom agent_tui.tui.services import TuiServices\n"
        f"where = Path({str(workdir)!r})\n"
        "services = TuiServices(sessions=None, location=str(where), model='openai/fake')\n"
        "opener = CoreOpener(Launch(model='openai/fake'), read_layers(where), services, ModelFacts())\n"
        "opener._warm()\n"
        "print(sorted(m for m in ('tiktoken_ext.openai_public', 'litellm.llms.anthropic.chat.handler') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['litellm.llms.anthropic.chat.handler', 'tiktoken_ext.openai_public']"


async def test_work_in_a_daemon_thread_hands_back_its_error() -> None:
    from agent_tui.tui.bootstrap import _in_daemon_thread

    ran: list[str] = []
    await _in_daemon_thread(lambda: ran.append(threading.current_thread().name))
    assert ran == ["llm-warm-up"]

    def fails() -> None:
        raise ValueError("no model map")

    with pytest.raises(ValueError, match="no model map"):
        await _in_daemon_thread(fails)


def test_a_quit_does_not_wait_for_the_warm_up_thread() -> None:
    """``asyncio.run`` joins ``to_thread``'s workers: a quit during LiteLLM's warm-up (seconds, cold)
    kept the shell prompt away until it finished. The warm-up's thread is left to the exit."""
    from agent_tui.tui.bootstrap import _in_daemon_thread

    release = threading.Event()

    async def app_quits_during_the_warm_up() -> None:
        task = asyncio.create_task(_in_daemon_thread(release.wait))
        await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    try:
        done = threading.Thread(target=asyncio.run, args=(app_quits_during_the_warm_up(),))
        done.start()
        done.join(timeout=10)
        assert not done.is_alive(), "asyncio.run waited for the warm-up thread"
    finally:
        release.set()
