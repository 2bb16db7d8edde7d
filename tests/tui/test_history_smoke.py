"""Real-terminal smoke tests (tmux, the installed agent-tui, the fake provider): the prompt history
across two launches, and a long tool output read full screen from the keyboard."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from agent_tui.testing.fake_provider import FakeProvider, Script, Turn
from tests.tui.test_terminal_smoke import fake_flags, screen_shows, start_agent_tui, tmux
from tests.warmth import LaunchMode


async def quit_app(session: str) -> None:
    await tmux("send-keys", "-t", session, "C-c")
    await tmux("send-keys", "-t", session, "C-c")
    await screen_shows(session, "AGENT_TUI_EXIT=0")


async def test_up_recalls_a_prompt_sent_in_the_previous_launch(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    script = Script(turns=[Turn(text="noted, first launch")])
    async with FakeProvider(script) as fake:
        for launch in (1, 2):
            session = f"agent-tui-history-{os.getpid()}-{launch_mode.name}-{launch}"
            await start_agent_tui(session, workdir, agent_home, *fake_flags(fake), mode=launch_mode)
            try:
                await screen_shows(session, "Ask anything")
                if launch == 1:
                    await tmux("send-keys", "-t", session, "remember the blue door", "Enter")
                    await screen_shows(session, "noted, first launch")
                    await screen_shows(session, "idle")
                else:  # a new session: the transcript is empty, so the text is the prompt's
                    await tmux("send-keys", "-t", session, "Up")
                    screen = await screen_shows(session, "remember the blue door")
                    assert "noted, first launch" not in screen
                    await tmux("send-keys", "-t", session, "C-c")  # clears the prompt (then two quit)
                    await screen_shows(session, "Ask anything")
                await quit_app(session)
            finally:
                await tmux("kill-session", "-t", session)
    assert len(fake.requests) == 1
    assert not [p for p in workdir.rglob("*") if "history" in p.name]  # nothing written into the project


async def test_a_long_output_opens_full_screen_and_pages(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode, tmp_path: Path, monkeypatch
) -> None:
    paged, pager_env = tmp_path / "paged.txt", tmp_path / "pager-env.txt"
    # a pager that keeps what it was handed, and its environment
    monkeypatch.setenv("PAGER", f"sh -c 'env > {pager_env}; cp \"$0\" {paged}'")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-smoke-not-for-the-pager")
    (agent_home / "config.toml").write_text('[[permission]]\naction = "bash"\npattern = "*"\neffect = "allow"\n')
    script = Script(
        turns=[
            Turn(tool_calls=[{"id": "c1", "name": "bash", "arguments": {"command": "seq -f 'row %g' 1 400"}}]),
            Turn(text="printed them"),
        ]
    )
    session = f"agent-tui-output-{os.getpid()}-{launch_mode.name}"
    async with FakeProvider(script) as fake:
        await start_agent_tui(session, workdir, agent_home, *fake_flags(fake), mode=launch_mode)
        try:
            await screen_shows(session, "Ask anything")
            await tmux("send-keys", "-t", session, "print rows", "Enter")
            await screen_shows(session, "printed them")
            await screen_shows(session, "row 400")  # the folded output's preview: its last lines
            await tmux("send-keys", "-t", session, "M-o")
            await screen_shows(session, "esc/q close")
            screen = await screen_shows(session, "row 1\n")  # the body is drawn a frame later
            assert "401 lines" in screen  # and bash's "Exit code 0 · …" line
            assert "row 1\n" in screen and "row 400" not in screen
            await tmux("send-keys", "-t", session, "PageDown")
            screen = await screen_shows(session, "row 40\n")
            assert "row 1\n" not in screen
            await tmux("send-keys", "-t", session, "End")
            screen = await screen_shows(session, "Exit code 0")
            assert "row 400" in screen
            await tmux("send-keys", "-t", session, "p")  # the app suspends, the pager runs, the app comes back
            deadline = asyncio.get_running_loop().time() + 20
            while not (paged.exists() and "Exit code 0" in paged.read_text()):  # cp has written it all
                assert asyncio.get_running_loop().time() < deadline, await tmux("capture-pane", "-p", "-t", session)
                await asyncio.sleep(0.05)
            await screen_shows(session, "esc/q close")
            assert paged.read_text().splitlines()[:2] == ["row 1", "row 2"] and "row 400" in paged.read_text()
            assert "sk-smoke" not in pager_env.read_text() and "PATH=" in pager_env.read_text()  # no secret
            await tmux("send-keys", "-t", session, "q")
            await screen_shows(session, "Ask anything")
            await quit_app(session)
        finally:
            await tmux("kill-session", "-t", session)
