import subprocess
import sys

from agent_tui import __version__


def test_version_prints_fast_path() -> None:
    out = subprocess.run([sys.executable, "-m", "agent_tui", "--version"], capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout.strip() == f"agent-tui {__version__}"
