"""Custom slash commands from prompt files: parsing, substitution, precedence, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tui.command_registry import BY_NAME, Command, palette, parse_command, resolve, slash_choices
from agent_tui.tui.custom_commands import CommandFileError, load_commands, parse_file


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def test_front_matter_and_body() -> None:
    command = parse_file(
        Path("/x/review.md"),
        "---\ndescription: Review a file\nmodel: openai/big\nagent: plan\n---\nReview $1 for $2.\n",
    )
    assert (command.name, command.description, command.model, command.agent) == (
        "review",
        "Review a file",
        "openai/big",
        "plan",
    )
    assert command.body == "Review $1 for $2."


def test_arguments_and_positions_are_substituted() -> None:
    command = parse_file(Path("fix.md"), "Fix $1 (then $3): $ARGUMENTS; unused $9")
    assert command.expand('a.py "the bug" last') == 'Fix a.py (then last): a.py "the bug" last; unused '
    assert command.expand("") == "Fix  (then ): ; unused "


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("---\ndescription: x\n", "never closed"),
        ("---\ncolour: red\n---\nbody", "line 2: expected 'key: value'"),
        ("---\ndescription: only meta\n---\n", "the prompt is empty"),
    ],
)
def test_broken_files_name_themselves(text: str, says: str) -> None:
    with pytest.raises(CommandFileError) as caught:
        parse_file(Path("/cmds/bad.md"), text)
    assert str(caught.value).startswith("/cmds/bad.md: ") and says in str(caught.value)


def test_the_project_wins_a_clash_and_a_bad_file_spares_the_others(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "project"
    write(user, "review.md", "user review")
    write(user, "only-user.md", "mine")
    write(project, "review.md", "project review")
    bad = write(project, "broken.md", "---\nnope\n---\nx")
    write(project, "compact.md", "shadowing a built-in")
    commands, errors = load_commands([user, project], BY_NAME)
    assert commands["review"].body == "project review" and commands["only-user"].body == "mine"
    assert "broken" not in commands and "compact" not in commands
    assert any(e.startswith(f"{bad}: line 2") for e in errors)
    assert any("/compact is a built-in command" in e for e in errors)


class Host:
    def model_names(self) -> list[str]:
        return ["m"]

    def theme_names(self) -> list[str]:
        return ["t"]

    def agent_names(self) -> list[str]:
        return ["a"]


def test_the_registry_parses_completes_and_resolves_custom_commands(tmp_path: Path) -> None:
    from agent_tui.tui.command_registry import custom_spec

    extra = (custom_spec("review", "Review a file"),)
    assert parse_command("/review a.py b.py", extra) == Command("review", "a.py b.py")
    assert parse_command("/review\nwith lines", extra) == Command("review", "with lines")
    assert resolve(Command("review", "a.py"), extra) == ("run_custom", ("review", "a.py"))
    assert [c.label for c in slash_choices("re", extra)] == [
        "/resume",
        "/rewind",
        "/rename TITLE",
        "/review [ARGUMENTS]",
    ]
    assert slash_choices("rev", extra)[0].help == "Review a file"
    entries = [(title, what, command) for title, what, command in palette(Host(), extra) if command.name == "review"]
    assert entries == [("/review", "Review a file", Command("review"))]
    with pytest.raises(ValueError, match="unknown command /nope"):
        parse_command("/nope", extra)
