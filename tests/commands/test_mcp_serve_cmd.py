"""``agent-tui mcp serve`` end to end: the installed command as a real stdio process, driven by
the SDK's own client, against the fake provider over HTTP; its log read back with ``agent-tui log``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from agent_tui.testing.fake_provider import FakeProvider


def _server(fake: FakeProvider, workdir: Path, home: Path, *flags: str) -> Any:
    from mcp.client.stdio import StdioServerParameters

    env = {
        "PATH": os.environ.get("PATH", ""),
        "AGENT_TUI_HOME": str(home),
        "LITELLM_OFFLINE_MODE": "true",
        "AGENT_TUI_API_KEY": "test-key",
    }
    model = ["--model", "openai/fake-model", "--api-base", fake.openai_base]
    return StdioServerParameters(
        command=sys.executable, args=["-m", "agent_tui", "mcp", "serve", *model, *flags], env=env, cwd=workdir
    )


async def test_another_agent_drives_a_session_through_mcp_serve(
    fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    fake.add(
        {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "echo made > made.txt"}}]},
        {"text": "I could not run it."},
    )
    # errlog named: the SDK's default is whatever sys.stderr was when it was imported (a capture's).
    with (agent_home / "serve.err").open("w") as errlog:
        async with (
            stdio_client(_server(fake, workdir, agent_home), errlog=errlog) as (read, write),
            ClientSession(read, write) as client,
        ):
            info = await client.initialize()
            assert info.server_info.name == "agent-tui"
            log = await _drive(client)
    failed = [e for e in log["events"] if e["type"] == "session.tool.failed.1"]
    assert failed and "--permission deny" in failed[0]["data"]["error"]["message"], "asks are denied by default"
    assert not (workdir / "made.txt").exists()
    assert log["events"][0]["data"]["location"] == str(workdir.resolve())


async def _drive(client: Any) -> dict[str, Any]:
    """Start a session, check its answer, and return its log, all as another agent would."""
    result = await client.call_tool("start_session", {"prompt": "make a file"})
    assert not result.is_error, result.content
    reply = json.loads(result.content[0].text)
    assert reply["answer"] == "I could not run it." and reply["running"] is False
    log = await client.call_tool("read_log", {"session_id": reply["session_id"]})
    return json.loads(log.content[0].text)  # type: ignore[no-any-return]


async def test_permission_stop_ends_the_run_at_the_first_ask_as_run_does(
    fake: FakeProvider, workdir: Path, agent_home: Path
) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    fake.add(
        {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "echo made > made.txt"}}]},
        {"text": "I could not run it."},  # what deny would have let the model say: never asked for
    )
    with (agent_home / "serve.err").open("w") as errlog:
        async with (
            stdio_client(_server(fake, workdir, agent_home, "--permission", "stop"), errlog=errlog) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            result = await client.call_tool("start_session", {"prompt": "make a file"})
            assert not result.is_error, result.content
            reply = json.loads(result.content[0].text)
            log = json.loads((await client.call_tool("read_log", {"session_id": reply["session_id"]})).content[0].text)
    assert reply["running"] is False and reply["answer"] == ""
    assert len(fake.accepted) == 1  # the run ended at the ask: the model was not called again
    by_type = {e["type"]: e["data"] for e in log["events"]}
    assert by_type["session.permission.replied.1"]["reply"] == "reject"
    assert by_type["session.tool.failed.1"]["error"]["type"] == "permission.rejected"
    assert by_type["session.execution.failed.1"]["error"]["type"] == "permission.rejected"  # run's exit 4
    assert not (workdir / "made.txt").exists()
