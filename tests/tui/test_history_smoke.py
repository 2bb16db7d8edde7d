"""Real-terminal smoke tests (tmux, the installed agent-tui, the fake provider): the prompt history
across two launches, and a long tool output read full screen from the keyboard."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_tui.testing.fake_provider import FakeProvider, Script, Turn
from tests.tui.tmux_pane import agent_tui_in_tmux, fake_flags
from tests.warmth import LaunchMode


async def test_up_recalls_a_prompt_sent_in_the_previous_launch(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    script = Script(turns=[Turn(text="noted, first launch")])
    async with FakeProvider(script) as fake:
        for launch in (1, 2):
            name = f"history-{launch}"
            async with agent_tui_in_tmux(name, workdir, agent_home, *fake_flags(fake), mode=launch_mode) as pane:
                await pane.shows("Ask anything")
                if launch == 1:
                    await pane.keys("remember the blue door", "Enter")
                    await pane.shows("noted, first launch")
                    await pane.shows("idle")
                else:  # a new session: the transcript is empty, so the text is the prompt's
                    await pane.keys("Up")
                    screen = await pane.shows("remember the blue door")
                    assert "noted, first launch" not in screen
                    await pane.keys("C-c")  # clears the prompt (then two quit)
                    await pane.shows("Ask anything")
                await pane.quit()
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
    async with FakeProvider(script) as fake:
        async with agent_tui_in_tmux("output", workdir, agent_home, *fake_flags(fake), mode=launch_mode) as pane:
            await pane.shows("Ask anything")
            await pane.keys("print rows", "Enter")
            await pane.shows("printed them")
            await pane.shows("row 400")  # the folded output's preview: its last lines
            await pane.keys("M-o")
            await pane.shows("esc/q close")
            screen = await pane.shows("row 1\n")  # the body is drawn a frame later
            assert "401 lines" in screen  # and bash's "Exit code 0 · …" line
            assert "row 1\n" in screen and "row 400" not in screen
            await pane.keys("PageDown")
            screen = await pane.shows("row 40\n")
            assert "row 1\n" not in screen
            await pane.keys("End")
            screen = await pane.shows("Exit code 0")
            assert "row 400" in screen
            await pane.keys("p")  # the app suspends, the pager runs, the app comes back
            deadline = asyncio.get_running_loop().time() + 20
            while not (paged.exists() and "Exit code 0" in paged.read_text()):  # cp has written it all
                assert asyncio.get_running_loop().time() < deadline, await pane.screen()
                await asyncio.sleep(0.05)
            await pane.shows("esc/q close")
            assert paged.read_text().splitlines()[:2] == ["row 1", "row 2"] and "row 400" in paged.read_text()
            assert "sk-smoke" not in pager_env.read_text() and "PATH=" in pager_env.read_text()  # no secret
            await pane.keys("q")
            await pane.shows("Ask anything")
            await pane.quit()
