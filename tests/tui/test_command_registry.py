"""The command registry: one declaration drives the slash parser, the palette and the app's dispatch."""

from __future__ import annotations

import pytest

from agent_tui.tui.app import AgentApp
from agent_tui.tui.command_registry import COMMANDS, Command, CommandError, palette, parse_command, resolve


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("/model gpt-4o", Command("model", "gpt-4o")),
        ("/model", Command("model")),  # a name to pick from a list: the app opens it
        ("/theme ", Command("theme")),  # a trailing space changes nothing
        ("/theme  agent-light ", Command("theme", "agent-light")),
        ("  /new ", Command("new")),
        ("hello", None),
        ("//not a command", None),
        ("/help\nmore", None),
    ],
)
def test_slash_commands_parse(text: str, parsed: Command | None) -> None:
    assert parse_command(text) == parsed


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            "/frobnicate",
            "unknown command /frobnicate (known: /new /resume /compact /context /usage /init /rewind /fork /export /rename "
            "/model /agent /image /theme /mcp /agents /skills /permissions /help)",
        ),
        ("/quit", "unknown command /quit"),
        ("/image", "/image needs PATH: /image PATH"),
        ("/new now", "/new takes no argument"),
    ],
)
def test_a_slash_command_that_cannot_run_says_how_to_write_it(text: str, error: str) -> None:
    with pytest.raises(CommandError, match=error.replace("(", r"\(").replace(")", r"\)")):
        parse_command(text)


def test_every_command_runs_an_app_action_and_lists_its_choices() -> None:
    for spec in COMMANDS:
        action, args = resolve(Command(spec.name, "x" if spec.arg else ""))
        assert callable(getattr(AgentApp, f"action_{action}")), spec
        assert len(args) == (1 if spec.arg else 0)
        assert spec.free or (spec.choices is None) == (spec.arg is None or not spec.in_palette)
        assert spec.choices is None or hasattr(AgentApp, spec.choices)


def test_the_palette_offers_each_command_and_each_choice() -> None:
    class Host:
        def theme_names(self) -> list[str]:
            return ["dark", "light"]

        def model_names(self) -> list[str]:
            return ["openai/fake"]

        def agent_names(self) -> list[str]:
            return ["build", "plan"]

    entries = [(title, command) for title, _, command in palette(Host())]
    assert entries == [
        ("New session", Command("new")),
        ("Resume session", Command("resume")),
        ("Compact", Command("compact")),
        ("Context size", Command("context")),
        ("Usage", Command("usage")),
        ("Init AGENTS.md", Command("init")),
        ("Rewind", Command("rewind")),
        ("Fork session", Command("fork")),
        ("Export session", Command("export")),
        ("Rename session", Command("rename")),
        ("Model: openai/fake", Command("model", "openai/fake")),
        ("Agent: build", Command("agent", "build")),
        ("Agent: plan", Command("agent", "plan")),
        ("Theme: dark", Command("theme", "dark")),
        ("Theme: light", Command("theme", "light")),
        ("MCP servers", Command("mcp")),
        ("Agents", Command("agents")),
        ("Skills", Command("skills")),
        ("Permissions", Command("permissions")),
        ("Help", Command("help")),
        ("Quit", Command("quit")),
    ]
