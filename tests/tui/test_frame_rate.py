"""The TUI draws at up to 120 frames a second unless the user set ``TEXTUAL_FPS`` (see ``agent_tui.tui``)."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = "import os, agent_tui.tui, textual.constants as c; print(c.MAX_FPS, 'TEXTUAL_FPS' in os.environ)"


def _probe(environ: dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-c", PROBE], env=environ, capture_output=True, text=True, check=True
    ).stdout.strip()


def test_frames_at_120_without_leaking_the_variable_to_child_processes() -> None:
    environ = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    assert _probe(environ) == "120 False"


def test_the_users_own_frame_rate_wins() -> None:
    assert _probe({**os.environ, "TEXTUAL_FPS": "30"}) == "30 True"
