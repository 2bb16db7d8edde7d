"""``agent-tui context`` as a person runs it: a real process, a real store in ``AGENT_TUI_HOME``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.core.api import events as ev
from agent_tui.core.api import open_sessions

CONFIG = '[models."openai/fake-model"]\ncontext_window = 100000\nmax_output_tokens = 4000\n'


def agent_tui(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENT_TUI_MODEL": "openai/fake-model"}
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )


@pytest.fixture
async def session_here(workdir: Path, agent_home: Path) -> str:
    """One session in ``workdir`` with a prompt in its history; the model's window set in the config."""
    (agent_home / "config.toml").write_text(CONFIG)
    sessions = await open_sessions()
    try:
        sid = (await sessions.create("ses_here", location=workdir)).id
        receipt = await sessions.prompt(sid, "explain the parser " * 200, resume=False)
        await sessions._store.publish(sid, ev.PromptPromoted(input_id=receipt.input_id))
    finally:
        await sessions.close()
    return sid


async def test_the_latest_session_here_as_a_table(session_here: str, workdir: Path) -> None:
    out = agent_tui("context", cwd=workdir)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "Next request of ses_here: openai/fake-model · agent build"
    rows = {line[:36].strip(): line[36:].split() for line in lines[2:] if line.strip() and line[0] != "T"}
    for label in ("system prompt", "instructions", "tool definitions", "history", "total (sent)", "free"):
        assert label in rows, out.stdout
    assert "core/environment" in rows
    history = int(rows["history"][0].replace(",", ""))
    assert 900 < history < 1_100  # the 3,800-character prompt
    assert rows["context window"] == ["100,000", "100.0%"]
    parts = ("system prompt", "instructions", "tool definitions", "history")
    assert int(rows["total (sent)"][0].replace(",", "")) == sum(int(rows[p][0].replace(",", "")) for p in parts)
    assert lines[-1].startswith("Tokens are estimated")
    # The columns line up: every row with a share ends in the same column.
    assert len({len(line) for line in lines if line.endswith("%")}) == 1


async def test_json_by_id_and_the_sum_of_its_parts(session_here: str, tmp_path: Path) -> None:
    out = agent_tui("context", session_here, "--json", cwd=tmp_path)  # the id works from anywhere
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["session_id"] == "ses_here" and data["model"] == "openai/fake-model"
    assert [part["name"] for part in data["parts"]] == ["system", "instructions", "tools", "history"]
    assert sum(part["tokens"] for part in data["parts"]) == data["total"]
    assert data["window"] == 100_000 and data["reserve"] == 20_000
    assert data["free"] == 100_000 - data["total"] - 20_000
    assert data["pruned"] == 0 and "estimate" in data


async def test_no_session_here_shows_a_first_request(agent_home: Path, workdir: Path) -> None:
    out = agent_tui("context", "--json", cwd=workdir)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["session_id"] is None
    assert data["parts"][3] == {"name": "history", "tokens": 0, "sources": []}
    assert any(source["key"] == "core/environment" for source in data["parts"][1]["sources"])
    # Nothing was written: still no session here.
    listed = agent_tui("sessions", "list", "--json", cwd=workdir)
    assert listed.returncode == 0 and listed.stdout == ""


async def test_an_unknown_session_is_one_line_and_exit_code_1(agent_home: Path, workdir: Path) -> None:
    out = agent_tui("context", "ses_missing", cwd=workdir)
    assert out.returncode == 1
    assert out.stderr == "agent-tui: unknown session: ses_missing\n" and out.stdout == ""
