"""The user guide tells the truth about the surface: every long flag of every subcommand, and every
HTTP endpoint (method and path) of the server's route table, is in docs/user-guide.md."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

from agent_tui.cli import build_parser
from agent_tui.server import routes

GUIDE = (Path(__file__).resolve().parents[1] / "docs" / "user-guide.md").read_text()
HTTP_SECTION = GUIDE[GUIDE.index("## HTTP API") :]


def long_flags(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[str, str]]:
    """``("sessions list", "--limit")`` for every long option of every (sub)command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from long_flags(sub, (*path, name))
        else:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help":
                    yield " ".join(path) or "agent-tui", option


def endpoint_pattern(method: str, template: str) -> re.Pattern[str]:
    """``POST /api/session/{id}/model`` as written in the guide: any placeholder (``$SID``,
    ``NAME``, ``api/NAME``) where the template has a parameter."""
    parts = re.split(r"\{[^}]+\}", template)
    return re.compile(re.escape(f"{method} ") + r"[^\s`]+".join(re.escape(p) for p in parts) + r"(?![\w/])")


def test_every_flag_of_every_subcommand_is_in_the_guide() -> None:
    missing = sorted({f"{command} {flag}" for command, flag in long_flags(build_parser()) if flag not in GUIDE})
    assert missing == []


def test_every_http_endpoint_is_in_the_guides_http_section() -> None:
    missing = [
        f"{route.method} {route.template}"
        for route in routes.table()
        if not endpoint_pattern(route.method, route.template).search(HTTP_SECTION)
    ]
    assert missing == []


def test_the_checks_can_fail() -> None:
    parser = argparse.ArgumentParser()
    parser.add_subparsers().add_parser("thing").add_argument("--not-in-any-guide-yet")
    assert [flag for _, flag in long_flags(parser) if flag not in GUIDE] == ["--not-in-any-guide-yet"]
    pattern = endpoint_pattern("POST", "/api/session/{id}/model")
    assert pattern.search("`POST /api/session/$SID/model {…}`")
    assert not pattern.search("`POST /api/session/$SID/models`") and not pattern.search("GET /api/session/$SID/model")
