"""MCP resources in real runs (issue 29, "Resources"): a real SDK server with resources and a template;
the model lists and reads them with ``list_mcp_resources`` / ``read_mcp_resource``, ``@notes:uri`` in a
prompt is the resource's text in the request (durable), and a change the server reports after the
mention reaches the model at the next step."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.inbox.attachments import AttachmentError, attach_policy, build_prompt
from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock

from .conftest import of_type, settle, stored

FAKES = Path(__file__).resolve().parents[3] / "fakes"
README = "# Notes\nThe launch is on Tuesday."


def _server(name: str) -> dict[str, Any]:
    return {"command": [sys.executable, str(FAKES / name)], "startup_timeout_s": 60}


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict:
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def _tool_results(body: dict) -> dict[str, Any]:
    return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}


def _tool_names(body: dict) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


@pytest.fixture
async def notes_runtime(open_runtime: Any, clock: ManualClock) -> AsyncIterator[Runtime]:
    cli = {"mcp": {"servers": {"notes": _server("mcp_resources.py")}}}
    async with await open_runtime(cli=cli, policy="allow", clock=clock) as opened:
        yield opened


async def _prompt(runtime: Runtime, workdir: Path, text: str) -> str:
    """Build the prompt as the TUI and ``run`` do (the runtime reads ``@server:uri``), admit it, run it."""
    settings = await runtime.settings_for(str(workdir))
    sid = (await runtime.sessions.create(location=workdir)).id
    policy = attach_policy(settings, settings.agent, location=workdir)
    parts = await build_prompt(text, workdir, policy=policy, resources=runtime.mcp_reader(workdir))
    await runtime.sessions.prompt(sid, parts)
    await settle(runtime, sid, timeout=60)
    return sid


async def test_the_model_lists_and_reads_resources_text_as_text_and_a_blob_described(
    notes_runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add(
        _call("call_1", "list_mcp_resources", {}),
        _call("call_2", "read_mcp_resource", {"server": "notes", "uri": "notes://readme"}),
        _call("call_3", "read_mcp_resource", {"server": "notes", "uri": "notes://logo"}),
        _call("call_4", "read_mcp_resource", {"server": "notes", "uri": "notes://day/7"}),
        _call("call_5", "read_mcp_resource", {"server": "elsewhere", "uri": "x://y"}),
        {"text": "done"},
    )
    sid = (await notes_runtime.sessions.create(location=workdir)).id
    await notes_runtime.sessions.prompt(sid, "what do the notes say?")
    await settle(notes_runtime, sid, timeout=60)
    assert {"list_mcp_resources", "read_mcp_resource"} <= _tool_names(fake.accepted[0].body)
    results = _tool_results(fake.accepted[-1].body)
    listing = results["call_1"].splitlines()
    assert listing == [
        "notes notes://readme (readme, text/markdown) - The team's notes",
        "notes notes://logo (logo, image/png) - The logo",
        "notes notes://day/{n} (day, template) - The notes of day n",
    ]
    assert results["call_2"] == README
    assert results["call_3"].startswith("[binary resource notes://logo (image/png, 70 bytes)")
    assert results["call_4"] == "notes of day 7"
    assert "No MCP server 'elsewhere' with resources" in results["call_5"]
    log = await stored(notes_runtime, sid)
    assert {e.name for e in of_type(log, ev.ToolCalled)} == {"list_mcp_resources", "read_mcp_resource"}


async def test_reading_a_resource_asks_like_a_tool_call_for_server_and_uri(
    open_runtime: Any, clock: ManualClock, fake: FakeProvider, workdir: Path
) -> None:
    cli = {"mcp": {"servers": {"notes": _server("mcp_resources.py")}}}
    async with await open_runtime(cli=cli, clock=clock) as runtime:
        fake.add(_call("call_1", "read_mcp_resource", {"server": "notes", "uri": "notes://readme"}), {"text": "ok"})
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "read it")

        async def asked() -> list:
            while not (asks := await runtime.sessions.permissions.pending(sid)):
                await asyncio.sleep(0.02)
            return asks

        (ask,) = await asyncio.wait_for(asked(), 60)
        assert (
            ask.action == "mcp" and ask.resources == ["notes/notes://readme"] and ask.save == ["notes/notes://readme"]
        )
        assert ask.detail == {"server": "notes", "tool": "read_mcp_resource", "arguments": {"uri": "notes://readme"}}
        await runtime.sessions.permissions.reply(ask.request_id, "once")
        await settle(runtime, sid, timeout=60)
        assert of_type(await stored(runtime, sid), ev.ToolSucceeded)[0].output.text == README


async def test_the_resource_tools_are_offered_only_over_servers_that_list_resources(
    open_runtime: Any, clock: ManualClock, fake: FakeProvider, workdir: Path
) -> None:
    proto = _server("mcp_protocol.py")  # tools only (the SDK still declares the capability: it lists none)
    async with await open_runtime(cli={"mcp": {"servers": {"proto": proto}}}, policy="allow", clock=clock) as runtime:
        fake.add({"text": "hi"})
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "hello")
        await settle(runtime, sid, timeout=60)
        names = _tool_names(fake.accepted[0].body)
        assert "mcp__proto__count" in names and not names & {"list_mcp_resources", "read_mcp_resource"}
    servers = {"proto": proto, "notes": _server("mcp_resources.py")}
    async with await open_runtime(cli={"mcp": {"servers": servers}}, policy="allow", clock=clock) as runtime:
        fake.add(_call("call_1", "read_mcp_resource", {"server": "proto", "uri": "x://y"}), {"text": "ok"})
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "read")
        await settle(runtime, sid, timeout=60)
        tools = {t["function"]["name"]: t["function"] for t in fake.accepted[1].body["tools"]}
        assert tools["list_mcp_resources"]["description"].endswith("Servers with resources: notes.")
        assert _tool_results(fake.accepted[2].body)["call_1"].startswith(
            "Error: No MCP server 'proto' with resources here; the servers with resources: notes."
        )


async def test_a_mentioned_resource_is_its_text_in_the_request_and_stays_as_sent(
    notes_runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add({"text": "Tuesday"})
    sid = await _prompt(notes_runtime, workdir, "when is the launch? @notes:notes://readme")
    user = [m for m in fake.accepted[0].body["messages"] if m["role"] == "user"][0]["content"]
    texts = [c["text"] for c in user if c["type"] == "text"]
    assert texts == [
        "when is the launch? @notes:notes://readme",
        f'<file path="notes:notes://readme">\n{README}\n</file>',
    ]
    (admitted,) = of_type(await stored(notes_runtime, sid), ev.PromptAdmitted)
    assert admitted.prompt[1] == ev.ResourcePart(
        server="notes", uri="notes://readme", mime="text/markdown", text=README
    )
    assert ev.prompt_text(admitted.prompt) == "when is the launch? @notes:notes://readme"
    copy = await notes_runtime.sessions.transfer.import_session(
        await notes_runtime.sessions.transfer.export(sid), location=workdir
    )
    assert of_type(await stored(notes_runtime, copy.id), ev.PromptAdmitted)[0].prompt == admitted.prompt


async def test_a_template_resource_mention_and_an_unknown_uri(
    notes_runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add({"text": "ok"})
    sid = await _prompt(notes_runtime, workdir, "@notes:notes://day/3 summarise")
    (admitted,) = of_type(await stored(notes_runtime, sid), ev.PromptAdmitted)
    assert admitted.prompt[1].text == "notes of day 3"
    settings = await notes_runtime.settings_for(str(workdir))
    policy = attach_policy(settings, settings.agent, location=workdir)
    with pytest.raises(AttachmentError, match=r"@notes:notes://nothing: MCP server notes: cannot read notes://nothing"):
        await build_prompt(
            "@notes:notes://nothing", workdir, policy=policy, resources=notes_runtime.mcp_reader(workdir)
        )
    # not a server here, or no URI: a path as before
    with pytest.raises(AttachmentError, match="no such file"):
        await build_prompt("@other:x://y", workdir, policy=policy, resources=notes_runtime.mcp_reader(workdir))
    with pytest.raises(AttachmentError, match="no such file"):
        await build_prompt("@notes:readme", workdir, policy=policy, resources=notes_runtime.mcp_reader(workdir))


async def test_a_change_the_server_reports_after_the_mention_reaches_the_model_at_the_next_step(
    notes_runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add(_call("call_1", "mcp__notes__edit", {"text": "The launch moved to Friday."}), {"text": "Friday"})
    sid = await _prompt(notes_runtime, workdir, "@notes:notes://readme keep an eye on it")
    first, second = fake.accepted[0].body, fake.accepted[1].body
    assert "moved to Friday" not in str(first["messages"])
    last = second["messages"][-1]  # after the tool result: the reminder of the change
    assert last["role"] == "user" and last["content"][0]["text"] == (
        "<system-reminder>\nThese MCP resources mentioned earlier changed (their server said so); their text now:"
        '\n\n<resource mention="@notes:notes://readme">\nThe launch moved to Friday.\n</resource>\n</system-reminder>'
    )
    log = await stored(notes_runtime, sid)
    (updated,) = of_type(log, ev.InstructionsUpdated)
    assert "changed (their server said so)" in updated.text
    assert updated.applied["core/mcp_resources"] == {"notes:notes://readme": "The launch moved to Friday."}


@pytest.mark.parametrize("era", ["2026", "legacy"])
async def test_a_resource_the_server_adds_is_listed_at_the_next_step(
    open_runtime: Any, clock: ManualClock, fake: FakeProvider, workdir: Path, era: str
) -> None:
    server = _server("mcp_resources.py")
    server["command"] += ["legacy"] if era == "legacy" else []
    async with await open_runtime(cli={"mcp": {"servers": {"notes": server}}}, policy="allow", clock=clock) as runtime:
        fake.add(
            _call("call_1", "mcp__notes__add", {"name": "todo", "text": "buy milk"}),
            _call("call_2", "list_mcp_resources", {"server": "notes"}),
            _call("call_3", "read_mcp_resource", {"server": "notes", "uri": "notes://todo"}),
            {"text": "done"},
        )
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "add a note")
        await settle(runtime, sid, timeout=60)
        results = _tool_results(fake.accepted[-1].body)
        assert "notes notes://todo (todo, text/plain)" in results["call_2"].splitlines()
        assert results["call_3"] == "buy milk"


async def test_a_2025_era_server_reports_a_mentioned_resources_change_through_resources_subscribe(
    open_runtime: Any, clock: ManualClock, fake: FakeProvider, workdir: Path
) -> None:
    server = _server("mcp_resources.py")
    server["command"] += ["legacy"]
    async with await open_runtime(cli={"mcp": {"servers": {"notes": server}}}, policy="allow", clock=clock) as runtime:
        fake.add(_call("call_1", "mcp__notes__edit", {"text": "Friday now."}), {"text": "Friday"})
        await _prompt(runtime, workdir, "@notes:notes://readme watch it")
        last = fake.accepted[1].body["messages"][-1]
        assert '<resource mention="@notes:notes://readme">\nFriday now.\n</resource>' in last["content"][0]["text"]
