"""``agent-tui`` with no subcommand: the command line goes to the TUI's bootstrap as it is."""

from __future__ import annotations

import argparse

import pytest

from agent_tui.commands import tui_cmd
from agent_tui.tui import bootstrap


def args(**given: object) -> argparse.Namespace:
    values = {"model": None, "api_base": None, "api_key": None, "continue_": False, "resume": None, **given}
    return argparse.Namespace(**values)


def test_the_command_line_becomes_one_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    launches: list[bootstrap.Launch] = []
    monkeypatch.setattr(bootstrap, "run", lambda launch: launches.append(launch) or 7)
    assert tui_cmd.main(args(model="openai/x", api_key="sk", continue_=True, resume="")) == 7
    assert launches == [bootstrap.Launch(model="openai/x", api_key="sk", continue_latest=True, resume="")]


def test_a_failed_launch_is_one_line_and_exit_1(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    def broken(launch: bootstrap.Launch) -> int:
        raise bootstrap.LaunchFailed("/p/config.toml: model: Input should be a valid string")

    monkeypatch.setattr(bootstrap, "run", broken)
    assert tui_cmd.main(args()) == 1
    assert capsys.readouterr().err == "agent-tui: /p/config.toml: model: Input should be a valid string\n"
