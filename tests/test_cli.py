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
    out = subprocess.run([sys.executable, "-m", "agent_tui", "--version", "--model", "x"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"agent-tui {__version__}"
