import subprocess
import sys

from agent_tui import __version__


def test_version_prints_fast_path() -> None:
    out = subprocess.run([sys.executable, "-m", "agent_tui", "--version"], capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout.strip() == f"agent-tui {__version__}"


def test_version_answers_before_argparse_or_typing_is_imported() -> None:
    probe = "import sys; from agent_tui.cli import main; main(['--version']); print(sorted({'argparse', 'typing'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [f"agent-tui {__version__}", "[]"]


def test_version_among_other_arguments_still_goes_through_argparse() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "agent_tui", "--version", "--model", "x"], capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.strip() == f"agent-tui {__version__}"


import pytest  # noqa: E402

from agent_tui import cli  # noqa: E402


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["-c"],
        ["--continue", "-r"],
        ["--model", "openai/x", "-c"],
        ["--model=openai/x"],
        ["--api-key", "sk", "--api-base", "http://h"],
        ["run", "hi"],
        ["run", "--bogus"],
        ["serve", "--port", "0"],
    ],
)
def test_the_common_launches_go_warm_without_argparse(argv: list[str]) -> None:
    assert cli._surely_warm(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["-r", "SESSION"],
        ["--resume=SESSION"],
        ["--help"],
        ["-h"],
        ["--mod", "x"],
        ["--model"],
        ["--model", "-c"],
        ["sessions", "list"],
        ["warm", "status"],
        ["-c", "run"],
        ["--version", "-c"],
        ["bogus"],
    ],
)
def test_anything_else_is_read_by_argparse_first(argv: list[str]) -> None:
    assert not cli._surely_warm(argv)


def _launched(argv: list[str]) -> str:
    """What ``agent-tui ARGV`` hands the warm launcher, whether it is the app (which takes the terminal),
    and whether argparse was imported by then (the launcher answering "no warm process here", so the
    launch goes on in-process)."""
    probe = (
        "import sys\nfrom agent_tui import cli\nfrom agent_tui.warm import client\ncalls = []\n"
        "client.launch = lambda argv, tui: calls.append((argv[1:], tui, 'argparse' in sys.modules))\n"
        "cli._COMMANDS = dict.fromkeys(cli._COMMANDS, 'agent_tui.humanize')  # no command runs\n"
        "try:\n    cli.main()\nexcept (SystemExit, AttributeError):\n    pass\n"
        "print(calls)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], "[([], True, False)]"),
        (["-c", "--model", "m"], "[(['-c', '--model', 'm'], True, False)]"),
        (["run", "hi"], "[(['run', 'hi'], False, False)]"),  # once: no second try after "no warm process"
        (["serve", "--port", "0"], "[(['serve', '--port', '0'], False, False)]"),
        (["-r", "SESSION"], "[(['-r', 'SESSION'], True, True)]"),
        (["--model", "m", "run", "hi"], "[(['--model', 'm', 'run', 'hi'], False, True)]"),
        (["sessions", "list"], "[]"),
    ],
)
def test_main_hands_warm_launches_over_before_argparse_only_when_sure(argv: list[str], expected: str) -> None:
    assert _launched(argv) == expected


@pytest.mark.parametrize(
    ("argv", "approval"),
    [
        (["run", "hi"], None),
        (["run", "--approval", "auto", "hi"], "auto"),
        (["run", "--full-auto", "hi"], "full-auto"),
        (["--approval", "auto-edit", "run", "hi"], "auto-edit"),
        (["--full-auto"], "full-auto"),
        ([], None),
    ],
)
def test_approval_flags_set_the_mode(argv: list[str], approval: str | None) -> None:
    assert getattr(cli.build_parser().parse_args(argv), "approval", None) == approval


def test_approval_and_full_auto_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["run", "--approval", "ask", "--full-auto", "hi"])
    assert "not allowed with argument" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--full-auto"], ["--approval", "auto", "-c"]])
def test_the_approval_flags_go_warm_with_the_app(argv: list[str]) -> None:
    assert cli._surely_warm(argv)


@pytest.mark.parametrize(
    ("argv", "rest", "prompt"),
    [
        (["fix the flaky test"], [], "fix the flaky test"),
        (["fix", "the", "test"], [], "fix the test"),
        (["--model", "openai/x", "explain this"], ["--model", "openai/x"], "explain this"),
        (["-c", "go on", "--full-auto"], ["-c", "--full-auto"], "go on"),
        (["-r", "ses_1"], ["-r", "ses_1"], None),  # -r's value is a session id, not a prompt
        (["run", "hi"], ["run", "hi"], None),  # a subcommand
        (["sessions", "list"], ["sessions", "list"], None),
        (["--agent", "plan"], ["--agent", "plan"], None),
        ([], [], None),
    ],
)
def test_a_word_that_is_no_subcommand_starts_the_tui_with_that_prompt(
    argv: list[str], rest: list[str], prompt: str | None
) -> None:
    assert cli._initial_prompt(argv) == (rest, prompt)


def test_the_tui_gets_the_initial_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []

    class FakeTui:
        @staticmethod
        def main(args: object) -> int:
            seen.append(args)
            return 0

    monkeypatch.setattr(cli.importlib, "import_module", lambda name: FakeTui)
    assert cli.main(["--model", "openai/x", "what does this repo do?"], warm=False) == 0
    assert getattr(seen[0], "prompt", None) == "what does this repo do?"
    assert getattr(seen[0], "model", None) == "openai/x"
