"""Real-terminal smoke tests: the installed ``agent-tui`` in tmux against the fake provider
(``tmux_pane`` drives the terminal)."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from agent_tui.testing.fake_provider import FakeProvider, Script, Turn
from tests.tui.tmux_pane import agent_tui_in_tmux, ask_and_quit, fake_flags, tmux, tmux_session
from tests.warmth import LaunchMode


async def test_installed_agent_tui_streams_an_answer_and_quits(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    script = Script(turns=[Turn(text="The smoke test **passed**: hello from the fake model.", chunks=12, delay_ms=20)])
    async with FakeProvider(script) as fake:
        async with agent_tui_in_tmux("smoke", workdir, agent_home, *fake_flags(fake), mode=launch_mode) as pane:
            screen = await ask_and_quit(pane, "say hello", "hello from the fake model.")
            assert "say hello" in screen
    assert len(fake.requests) == 1


async def test_a_prompt_on_the_command_line_is_answered_on_screen(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    """``agent-tui "PROMPT"`` as with the peers: the app opens and sends it."""
    script = Script(turns=[Turn(text="Launched with a prompt: answered.", chunks=4)])
    async with FakeProvider(script) as fake:
        flags = [*fake_flags(fake), "explain this repo"]
        async with agent_tui_in_tmux("argprompt", workdir, agent_home, *flags, mode=launch_mode) as pane:
            screen = await pane.shows("Launched with a prompt: answered.")
            assert "explain this repo" in screen
    assert len(fake.requests) == 1
    assert "explain this repo" in json.dumps(fake.requests[0].body)


async def test_alt_keys_run_their_bindings_in_a_real_terminal_and_type_nothing(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    """tmux sends Alt+S as ESC S, as terminals do: its binding answers (no task block yet: a
    notice says so) and no letter lands in the prompt."""
    flags = ["--model", "openai/fake", "--api-key", "sk-test"]
    async with agent_tui_in_tmux("altkeys", workdir, agent_home, *flags, mode=launch_mode) as pane:
        await pane.shows("Ask anything")
        await pane.keys("M-s")  # one: Textual misreads ESC x ESC y sent at once
        await pane.shows("no subagent task here")
        # The notice covers the prompt for 3 s; then its placeholder shows again only if nothing was typed.
        await pane.shows("Ask anything · Enter send")
        await pane.quit()


async def test_an_invalid_config_is_reported_after_the_app_closes(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    """Settings are validated once the first frame is up; an invalid value still ends the app with
    the file and key named, and exit code 1."""
    (agent_home / "config.toml").write_text("[retry]\nmax_retries = -1\n")
    flags = ["--model", "openai/fake", "--api-key", "sk-test"]
    async with agent_tui_in_tmux("badconfig", workdir, agent_home, *flags, mode=launch_mode, width=120) as pane:
        screen = await pane.shows("AGENT_TUI_EXIT=1")
    flat = "".join(screen.split())  # the line wraps wherever the path makes it
    assert "config.toml:retry.max_retries:" in flat and "greaterthanorequalto0" in flat


def _agent_pid(shell_pid: int) -> int:
    """The agent-tui process: the pane's shell's child."""
    children = Path(f"/proc/{shell_pid}/task/{shell_pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


async def _gone(pid: int, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while Path(f"/proc/{pid}").exists() and Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z":
        assert asyncio.get_running_loop().time() < deadline, f"process {pid} is still running"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("how", ["SIGTERM", "terminal closed"])
async def test_a_stopped_or_hung_up_app_stops_its_running_tool_first(
    how: str, workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    """The default action of SIGTERM / SIGHUP would end agent-tui and leave the tool's processes
    running (they have their own process group); the app interrupts the run first."""
    import signal

    from agent_tui.core.api import events as ev
    from agent_tui.core.api import open_sessions

    (agent_home / "config.toml").write_text('[[permission]]\naction = "bash"\npattern = "*"\neffect = "allow"\n')
    pid_file = workdir / "tool.pid"
    script = Script(
        turns=[
            Turn(
                tool_calls=[
                    {
                        "id": "c1",
                        "name": "bash",
                        "arguments": {"command": f"echo $$ > {pid_file}; sleep 300 & sleep 301"},
                    }
                ]
            ),
            Turn(text="never"),
        ]
    )
    async with FakeProvider(script) as fake:
        stop = f"stop-{how[:4]}"
        async with agent_tui_in_tmux(stop, workdir, agent_home, *fake_flags(fake), mode=launch_mode) as pane:
            await pane.shows("Ask anything")
            shell = int((await tmux("list-panes", "-t", pane.session, "-F", "#{pane_pid}")).split()[0])
            agent = _agent_pid(shell)
            await pane.keys("run the tool", "Enter")
            await pane.shows("bash  echo")
            for _ in range(400):
                if pid_file.exists() and pid_file.read_text().strip():
                    break
                await asyncio.sleep(0.05)
            group = int(pid_file.read_text())
            if how == "SIGTERM":
                os.kill(agent, signal.SIGTERM)
                await pane.shows("AGENT_TUI_EXIT=143")
            else:
                await pane.close()
                await _gone(agent)
    with pytest.raises(ProcessLookupError):
        os.killpg(group, 0)
    sessions = await open_sessions()
    try:
        (record,) = await sessions.list(location=str(workdir), limit=5)
        log = await sessions._store.events(record.id, limit=None)
    finally:
        await sessions.close()
    assert log[-1].event == ev.ExecutionInterrupted(reason="shutdown")


async def test_typing_at_picks_a_file_and_sends_its_text(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    """``@`` in a real terminal: the list shows the project's file, Tab picks it, Enter sends it."""
    (workdir / "docs").mkdir()
    (workdir / "docs" / "smoke_notes.md").write_text("The secret word is marmalade.\n")
    script = Script(turns=[Turn(text="The word is marmalade.")])
    async with FakeProvider(script) as fake:
        async with agent_tui_in_tmux("mention", workdir, agent_home, *fake_flags(fake), mode=launch_mode) as pane:
            await pane.shows("Ask anything")
            await pane.keys("-l", "what is in @smknot")
            await pane.shows("docs/smoke_notes.md")
            await pane.keys("Tab")
            await pane.shows("what is in @docs/smoke_notes.md")
            await pane.keys("Enter")
            await pane.shows("The word is marmalade.")
            await pane.shows("idle")
    sent = [m for m in fake.requests[0].body["messages"] if m["role"] == "user"][-1]["content"]
    assert any("The secret word is marmalade." in part.get("text", "") for part in sent)


async def test_a_hang_up_after_the_app_ends_restarts_nothing(workdir: Path, agent_home: Path) -> None:
    """A terminal that hangs up sends SIGHUP and SIGCONT. Textual's driver answers SIGCONT by
    restarting its input and output threads, and leaves that handler set after the app ends: a
    hang-up while the store closed started them on the dead terminal, where the input thread spun
    at full CPU and kept the process from ever exiting. After the app, SIGCONT starts nothing."""
    probe = (
        "import os, signal, threading\nfrom agent_tui.tui import bootstrap\n"
        "code = bootstrap.run(bootstrap.Launch())\n"
        "os.kill(os.getpid(), signal.SIGCONT)\n"
        "textual = sorted(t.name for t in threading.enumerate() if t.name.startswith('textual'))\n"
        "print('AFTER', code, textual, signal.getsignal(signal.SIGCONT) == signal.SIG_DFL, flush=True)\n"
        "os._exit(0)  # a spinning input thread would otherwise keep the pane busy\n"
    )
    env = {
        "AGENT_TUI_HOME": str(agent_home),
        "AGENT_TUI_NO_WARM": "1",
        "LITELLM_OFFLINE_MODE": "true",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    command = " ".join(
        [
            "env",
            "-i",
            'TERM="$TERM"',
            *(f"{k}={shlex.quote(v)}" for k, v in env.items()),
            shlex.quote(sys.executable),
            "-c",
            shlex.quote(probe),
            "; sleep 60",
        ]
    )
    async with tmux_session(f"agent-tui-sigcont-{os.getpid()}", workdir, command) as pane:
        await pane.shows("Ask anything")
        await pane.keys("C-c")
        await pane.keys("C-c")
        screen = await pane.shows("AFTER")
    assert "AFTER 0 [] True" in screen, screen


async def test_the_app_exports_its_telemetry_before_it_quits(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    """``[telemetry]`` in the user's config: the TUI's session is traced, flushed when the app quits."""
    from tests.fakes.otlp_receiver import OtlpReceiver

    collector = await OtlpReceiver().start()
    (agent_home / "config.toml").write_text(f'[telemetry]\notlp_endpoint = "{collector.endpoint}"\n')
    try:
        async with FakeProvider(Script(turns=[Turn(text="traced answer")])) as fake:
            async with agent_tui_in_tmux("otel", workdir, agent_home, *fake_flags(fake), mode=launch_mode) as pane:
                await ask_and_quit(pane, "trace me", "traced answer")
        assert sorted(span.name for span in collector.spans) == ["chat openai/fake", "invoke_agent build"]
    finally:
        await collector.stop()


async def test_a_collector_that_is_down_is_one_warning_on_the_screen_and_the_session_goes_on(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (agent_home / "config.toml").write_text(f'[telemetry]\notlp_endpoint = "http://127.0.0.1:{port}"\n')
    async with FakeProvider(Script(turns=[Turn(text="answered anyway")])) as fake:
        flags = fake_flags(fake)
        async with agent_tui_in_tmux("otel-down", workdir, agent_home, *flags, mode=launch_mode, width=160) as pane:
            await pane.shows("Ask anything")
            await pane.keys("go", "Enter")
            await pane.shows("answered anyway")
            await pane.shows("telemetry export to", timeout=30)  # the first batch: ~5 s, then the failure
            await pane.quit()
