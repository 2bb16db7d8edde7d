"""A window started against a database server that cannot be reached ends at once with exit code
6 and one line saying why, as every other command does (``DatabaseUnreachable.exit_code``), rather
than staying open with nothing that can work."""

from __future__ import annotations

from pathlib import Path

from tests.tui.tmux_pane import agent_tui_in_tmux
from tests.warmth import LaunchMode


async def test_an_unreachable_database_server_ends_the_window_with_exit_6_and_one_line(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    nowhere = "postgresql://nobody@127.0.0.1:1/agent_tui?connect_timeout=2"  # nothing listens on port 1
    (agent_home / "config.toml").write_text(f'[storage]\nurl = "{nowhere}"\n')
    async with agent_tui_in_tmux("unreachable", workdir, agent_home, mode=launch_mode, width=200) as pane:
        screen = await pane.shows("AGENT_TUI_EXIT=", timeout=60)
    said = [line for line in screen.splitlines() if line.startswith("agent-tui:")]
    assert "AGENT_TUI_EXIT=6" in screen, screen
    assert len(said) == 1 and said[0].startswith(f"agent-tui: cannot open database {nowhere}"), screen
    assert not (agent_home / "agent-tui.db").exists()  # no fallback to the SQLite file
