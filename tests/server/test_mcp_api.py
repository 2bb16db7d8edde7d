"""``GET /api/mcp``: the runtime's MCP servers over real HTTP, with the fake MCP server as a process."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from agent_tui.server.app import build_app

from .conftest import TOKEN, Api

SERVER = Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py"


async def test_the_servers_are_listed_with_state_and_tools(open_runtime: Any, workdir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nprint('no token', file=sys.stderr)\nsys.exit(1)\n")
    servers = {
        "notes": {"command": [sys.executable, str(SERVER), "stdio"], "startup_timeout_s": 60},
        "tracker": {"command": [sys.executable, str(broken)]},
    }
    async with await open_runtime(cli={"mcp": {"servers": servers}}, policy="allow") as runtime:
        await runtime.warm_mcp(workdir)
        app = build_app(runtime.sessions, TOKEN, settings_for=runtime.settings_for, mcp_status=runtime.mcp_status)
        async with TestClient(TestServer(app)) as client:
            api = Api(client)

            async def settled() -> dict[str, Any]:
                while True:
                    status, listed = await api.call("GET", "/api/mcp")
                    assert status == 200, listed
                    here = {s["name"]: s for s in listed["data"] if Path(s["location"]) == workdir}
                    if len(here) == 2 and all(s["state"] != "starting" for s in here.values()):
                        return here
                    await asyncio.sleep(0.05)

            here = await asyncio.wait_for(settled(), 60)
            assert here["notes"]["state"] == "ready" and here["notes"]["transport"] == "stdio"
            assert here["notes"]["tools"] == ["echo", "pid", "fail", "die", "wait"] and here["notes"]["error"] is None
            assert here["tracker"]["state"] == "failed" and "no token" in here["tracker"]["error"]
            async with client.get("/api/mcp") as unauthorised:
                assert unauthorised.status == 401


async def test_a_servers_recent_log_messages_are_listed(open_runtime: Any, workdir: Path) -> None:
    protocol = Path(__file__).resolve().parents[1] / "fakes" / "mcp_protocol.py"
    servers = {"proto": {"command": [sys.executable, str(protocol)], "startup_timeout_s": 60}}
    async with await open_runtime(cli={"mcp": {"servers": servers}}, policy="allow") as runtime:
        await runtime.warm_mcp(workdir)
        await asyncio.gather(*runtime._mcp._warming)  # noqa: SLF001 - the start this test waits for
        (connection,) = runtime._mcp.hub.connections(workdir)  # noqa: SLF001
        await connection.settled()
        await connection.call("chatter", {"levels": ["notice", "error"]})
        app = build_app(runtime.sessions, TOKEN, settings_for=runtime.settings_for, mcp_status=runtime.mcp_status)
        async with TestClient(TestServer(app)) as client:
            status, listed = await Api(client).call("GET", "/api/mcp")
    assert status == 200, listed
    (proto,) = [s for s in listed["data"] if Path(s["location"]) == workdir]
    assert [(m["level"], m["logger"], m["text"]) for m in proto["logs"]] == [
        ("notice", "proto", "notice message from chatter"),
        ("error", "proto", "error message from chatter"),
    ]
    assert all(isinstance(m["at"], int) for m in proto["logs"])
