"""An MCP server's question (elicitation) in a TUI launched through the warm process, in a real
terminal (tmux): the dialog opens and the answer reaches the server, as in a fresh process."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from agent_tui.testing.fake_provider import FakeProvider
from tests.warmth import UNDER_LOAD_S

from .helpers import PYTHON, Warm, agent, apoll, model_flags
from .test_suspend import Tmux, shell  # noqa: F401 - the fixture

ASKING = Path(__file__).resolve().parents[1] / "fakes" / "mcp_asking.py"


@pytest.mark.parametrize("legacy", [False, True], ids=["2026", "2025-handshake"])
@pytest.mark.parametrize("prompt", ["typed", "argv", "project"])
async def test_a_warm_tuis_mcp_question_opens_its_dialog_and_the_answer_reaches_the_server(
    shell: Tmux,  # noqa: F811
    warm: Warm,
    fake: FakeProvider,
    agent_home: Path,
    workdir: Path,
    legacy: bool,
    prompt: str,
) -> None:
    server = {"command": [sys.executable, str(ASKING), *(["legacy"] if legacy else [])], "startup_timeout_s": 60}
    config = {
        "mcp": {"servers": {"asking": server}},
        "permission": [{"action": "mcp", "pattern": "*", "effect": "allow"}],
    }
    if prompt == "project":  # the project's own server, the project trusted for this launch
        (workdir / ".agent-tui").mkdir()
        (workdir / ".agent-tui" / "config.toml").write_text(_toml(config))
    else:
        (agent_home / "config.toml").write_text(_toml(config))
    fake.add({"tool_calls": [{"id": "c1", "name": "mcp__asking__book", "arguments": {}}]}, {"text": "All done."})
    launches = warm.status()["launches"]
    argv = [PYTHON, "-m", "agent_tui", *model_flags(fake), *(["book a table"] if prompt == "argv" else [])]
    argv += ["--trust"] if prompt == "project" else []
    await shell.type(shlex.join(argv))
    if prompt != "argv":
        await shell.shows("Ask anything", timeout=UNDER_LOAD_S)
        await shell.type("book a table")
    await apoll(lambda: warm.status()["launches"] == launches + 1, "a warm launch, not the fallback")
    await shell.shows("Book a table", timeout=UNDER_LOAD_S)
    await shell.key("Escape")  # cancel: the server says so
    await shell.shows("All done.", timeout=UNDER_LOAD_S)
    request = await apoll(lambda: len(fake.requests) >= 2 and fake.requests[1], "the second model request")
    assert "booking cancelled" in json.dumps(request.body), json.dumps(request.body)[-600:]
    await shell.key("C-c")
    await shell.key("C-c")


def _toml(config: dict[str, object]) -> str:
    server = config["mcp"]["servers"]["asking"]  # type: ignore[index]
    command = ", ".join(json.dumps(part) for part in server["command"])
    return (
        '[[permission]]\naction = "mcp"\npattern = "*"\neffect = "allow"\n\n'
        f"[mcp.servers.asking]\ncommand = [{command}]\nstartup_timeout_s = 60\n"
    )


async def test_a_warm_runs_mcp_question_is_declined_with_its_line_on_the_callers_stderr(
    warm: Warm, fake: FakeProvider, agent_home: Path, workdir: Path
) -> None:
    """Headless ``run`` through the warm process declines as a fresh process does, and says so."""
    (agent_home / "config.toml").write_text(
        _toml({"mcp": {"servers": {"asking": {"command": [sys.executable, str(ASKING)]}}}})
    )
    fake.add({"tool_calls": [{"id": "c1", "name": "mcp__asking__book", "arguments": {}}]}, {"text": "No table."})
    launches = warm.status()["launches"]
    ran = await agent(warm.launch_env(agent_home), "run", *model_flags(fake), "book a table", cwd=workdir)
    assert ran.code == 0, ran.err
    assert warm.status()["launches"] == launches + 1
    assert 'MCP server asking asked "Book a table: which day, for how many?": declined' in ran.err
    assert "booking declined" in json.dumps(fake.requests[1].body)
