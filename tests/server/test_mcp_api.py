"""``GET /api/mcp``: the runtime's MCP servers over real HTTP, with the fake MCP server as a process."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from agent_tui.server.app import build_app

from .conftest import TOKEN, Api, short

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


async def test_a_servers_resources_and_templates_are_listed_beside_its_tools(open_runtime: Any, workdir: Path) -> None:
    notes = Path(__file__).resolve().parents[1] / "fakes" / "mcp_resources.py"
    servers = {
        "notes": {"command": [sys.executable, str(notes)], "startup_timeout_s": 60},
        "plain": {"command": [sys.executable, str(SERVER), "stdio"], "startup_timeout_s": 60},
    }
    async with await open_runtime(cli={"mcp": {"servers": servers}}, policy="allow") as runtime:
        await runtime.warm_mcp(workdir)
        await asyncio.gather(*runtime._mcp._warming)  # noqa: SLF001 - the start this test waits for
        for connection in runtime._mcp.hub.connections(workdir):  # noqa: SLF001
            await connection.settled()
        app = build_app(runtime.sessions, TOKEN, settings_for=runtime.settings_for, mcp_status=runtime.mcp_status)
        async with TestClient(TestServer(app)) as client:
            status, listed = await Api(client).call("GET", "/api/mcp")
    assert status == 200, listed
    here = {s["name"]: s for s in listed["data"] if Path(s["location"]) == workdir}
    assert here["notes"]["state"] == "ready" and here["notes"]["tools"] == ["edit", "add"]
    assert {(r["uri"], r["template"]) for r in here["notes"]["resources"]} == {
        ("notes://readme", False),
        ("notes://logo", False),
        ("notes://day/{n}", True),
    }
    readme = next(r for r in here["notes"]["resources"] if r["uri"] == "notes://readme")
    assert readme == {
        "uri": "notes://readme",
        "name": "readme",
        "description": "The team's notes",
        "mime": "text/markdown",
        "template": False,
    }
    assert here["plain"]["resources"] == []


async def test_serve_declines_a_sampling_request_and_the_exchange_is_in_the_history(
    open_runtime: Any, fake: Any, workdir: Path
) -> None:
    """``serve`` has no one to approve: even a server with ``sampling = true`` is declined, the model unasked."""
    sampling = Path(__file__).resolve().parents[1] / "fakes" / "mcp_sampling.py"
    server = {"command": [sys.executable, str(sampling)], "startup_timeout_s": 60, "sampling": True}
    layer = {
        "mcp": {"servers": {"sampler": server}},
        "permission": [{"action": "mcp", "pattern": "*", "effect": "allow"}],
    }
    call = {"id": "call_1", "name": "mcp__sampler__ask_model", "arguments": {"question": "Capital?"}}
    fake.add({"tool_calls": [call]}, {"text": "No answer."})
    async with await open_runtime(cli=layer, policy=None) as runtime:
        app = build_app(runtime.sessions, TOKEN, settings_for=runtime.settings_for, mcp_status=runtime.mcp_status)
        async with TestClient(TestServer(app)) as client:
            api = Api(client)
            sid = await api.create(workdir)
            await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": "ask it"})
            await api.wait_event(sid, "execution.succeeded", timeout=90)
            history = await api.history(sid)
    by_type = {short(e["type"]): e["data"] for e in history}
    assert by_type["sampling.asked"]["server"] == "sampler" and by_type["sampling.asked"]["max_tokens"] == 64
    assert by_type["sampling.answered"]["action"] == "decline"
    assert by_type["sampling.answered"]["reason"] == "no one to answer: agent-tui runs headless"
    assert len(fake.requests) == 2  # the step that called the tool and the one after: the model never sampled
