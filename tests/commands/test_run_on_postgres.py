"""The whole app on PostgreSQL: ``AGENT_TUI_DATABASE_URL`` selects a real server (``pg_url``) for
``agent-tui run`` (the fake provider over real HTTP, a tool call) and the store commands that read
the session back; no SQLite file is made. An unreachable server is one line and exit code 6."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import psycopg

from agent_tui.core.settings import paths
from agent_tui.testing.fake_provider import FakeProvider
from tests.warmth import UNDER_LOAD_S

UNREACHABLE = 6


async def agent_tui(*args: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent_tui",
        *args,
        cwd=cwd,
        env={**os.environ, "AGENT_TUI_NO_WARM": "1", "LITELLM_OFFLINE_MODE": "true", **env},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), UNDER_LOAD_S)
    return proc.returncode or 0, out.decode(), err.decode()


def model_flags(fake: FakeProvider) -> list[str]:
    return ["--model", "openai/fake-model", "--api-base", fake.openai_base, "--api-key", "test-key"]


async def test_a_run_with_a_tool_call_is_stored_in_postgresql_and_read_back(
    fake: FakeProvider, workdir: Path, pg_url: str
) -> None:
    env = {"AGENT_TUI_DATABASE_URL": pg_url, "AGENT_TUI_TEST_TOOLS": "agent_tui.testing.test_tools:register"}
    fake.add(
        {"tool_calls": [{"id": "call_1", "name": "echo", "arguments": {"text": "from the tool"}}]},
        {"text": "The tool said hello."},
    )
    code, out, err = await agent_tui(
        "run", *model_flags(fake), "--permission", "allow", "say hello", cwd=workdir, env=env
    )
    assert code == 0, err
    assert out.strip() == "The tool said hello."
    session_id = next(line.split()[1] for line in err.splitlines() if line.startswith("session "))

    with psycopg.connect(pg_url) as conn:
        call = conn.execute("SELECT name, state, output_json FROM tool_call WHERE session_id = %s", (session_id,))
        assert [(name, state, "from the tool" in output) for name, state, output in call.fetchall()] == [
            ("echo", "success", True)
        ]
        (last,) = conn.execute(
            "SELECT type FROM event WHERE session_id = %s ORDER BY seq DESC LIMIT 1", (session_id,)
        ).fetchone()
        assert last == "session.execution.succeeded.1"
        fences = conn.execute(
            "SELECT type, fence FROM event WHERE session_id = %s ORDER BY seq", (session_id,)
        ).fetchall()
        started = [type_ for type_, _ in fences].index("session.execution.started.1")
        drained = {token for _, token in fences[started:]}
        assert len(drained) == 1 and None not in drained, fences  # the run's events carry its lease's token
        assert conn.execute("SELECT owner FROM session_lease WHERE session_id = %s", (session_id,)).fetchone() in (
            None,
            (None,),
        )  # released when the run ended

    code, out, err = await agent_tui("sessions", "list", "--json", cwd=workdir, env=env)
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(row["id"], row["location"]) for row in rows] == [(session_id, str(workdir.resolve()))]
    assert rows[0]["message_count"] == 3  # the prompt, the step with its tool call, the answer

    code, out, err = await agent_tui("export", session_id, "--format", "markdown", cwd=workdir, env=env)
    assert code == 0, err
    assert "say hello" in out and "The tool said hello." in out and "from the tool" in out

    assert not paths.database_path().exists()  # nothing went to the SQLite file


async def test_an_unreachable_server_is_one_line_and_exit_6_with_nothing_written(
    fake: FakeProvider, workdir: Path, tmp_path: Path
) -> None:
    nowhere = f"postgresql://nobody@/agent_tui?host={tmp_path}&port=1&connect_timeout=2"
    env = {"AGENT_TUI_DATABASE_URL": nowhere, "AGENT_TUI_API_KEY": "test-key"}
    model = ["--model", "openai/fake-model", "--api-base", fake.openai_base]
    for args in (["run", *model, "hello"], ["sessions", "list"], ["serve", "--port", "0"]):
        code, out, err = await agent_tui(*args, cwd=workdir, env=env)
        assert code == UNREACHABLE, (args, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("agent-tui: cannot open database postgresql://"), err
        assert out == ""
    assert fake.requests == []
    assert not paths.database_path().exists()


async def test_a_missing_driver_is_one_line_and_exit_6(workdir: Path, tmp_path: Path, pg_url: str) -> None:
    """Without the ``postgres`` extra (psycopg cannot be imported), a configured URL names the fix."""
    shadow = tmp_path / "shadow" / "psycopg"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('psycopg is not installed here')\n")
    path = os.pathsep.join(filter(None, [str(shadow.parent), os.environ.get("PYTHONPATH")]))
    code, out, err = await agent_tui(
        "sessions", "list", cwd=workdir, env={"AGENT_TUI_DATABASE_URL": pg_url, "PYTHONPATH": path}
    )
    assert code == UNREACHABLE, err
    assert err.strip().splitlines() == [
        f"agent-tui: cannot open database {pg_url}: the PostgreSQL driver is not installed"
        " (pip install 'agent-tui[postgres]')"
    ]
    assert out == "" and not paths.database_path().exists()
