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
    from mcp.client.client import Client

    fake.add(
        {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "echo made > made.txt"}}]},
        {"text": "I could not run it."},
    )
    async with Client(_server(fake, workdir, agent_home)) as client:
        assert client.server_info is not None and client.server_info.name == "agent-tui"
        result = await client.call_tool("start_session", {"prompt": "make a file"})
        assert not result.is_error, result.content
        reply = json.loads(result.content[0].text)
        assert reply["answer"] == "I could not run it." and reply["running"] is False
        log = json.loads((await client.call_tool("read_log", {"session_id": reply["session_id"]})).content[0].text)
    failed = [e for e in log["events"] if e["type"] == "session.tool.failed.1"]
    assert failed and "--permission deny" in failed[0]["data"]["error"]["message"], "asks are denied by default"
    assert not (workdir / "made.txt").exists()
    assert log["events"][0]["data"]["location"] == str(workdir.resolve())
