"""``@server:uri`` against ``@NAME:path``: which mention is an MCP resource, and what the prompt holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.inbox.attachments import AttachmentError, AttachPolicy, build_prompt
from agent_tui.core.inbox.resource_mentions import resource_mention, split_mentions
from agent_tui.core.log import events as ev
from agent_tui.tools.errors import ToolError


def test_a_resource_is_a_used_servers_name_then_a_uri_with_a_scheme() -> None:
    servers = {"notes", "docs"}
    assert resource_mention("notes:notes://readme", servers) == ("notes", "notes://readme")
    assert resource_mention("docs:file:///tmp/a.md", servers) == ("docs", "file:///tmp/a.md")
    assert resource_mention("notes:urn:isbn:1", servers) == ("notes", "urn:isbn:1")
    assert resource_mention("docs:src/a.py", servers) is None  # a reference folder's path
    assert resource_mention("notes:readme", servers) is None  # no scheme: no URI
    assert resource_mention("other:x://y", servers) is None  # not a server the agent uses
    assert resource_mention("notes:", servers) is None
    assert split_mentions(["a.py", "notes:n://1", "docs:b.md", "notes:n://1"], servers) == (
        ["a.py", "docs:b.md"],
        [("notes", "n://1")],
    )


async def test_a_server_and_a_reference_of_one_name_the_uri_decides(tmp_path: Path) -> None:
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "guide.md").write_text("the guide\n")
    policy = AttachPolicy(references={"docs": folder}, mcp_servers=frozenset({"docs"}))
    read: list[tuple[str, str]] = []

    async def reader(server: str, uri: str) -> ev.ResourcePart:
        read.append((server, uri))
        return ev.ResourcePart(server=server, uri=uri, text=f"text of {uri}")

    parts = await build_prompt("@docs:guide.md and @docs:docs://intro", tmp_path, policy=policy, resources=reader)
    assert read == [("docs", "docs://intro")]
    file_part, resource_part = parts[1], parts[2]
    assert isinstance(file_part, ev.FilePart) and "the guide" in (file_part.text or "")
    assert resource_part == ev.ResourcePart(server="docs", uri="docs://intro", text="text of docs://intro")
    assert ev.prompt_text(parts) == "@docs:guide.md and @docs:docs://intro"


async def test_without_a_reader_or_when_the_server_refuses_the_mention_fails_with_one_line(tmp_path: Path) -> None:
    policy = AttachPolicy(mcp_servers=frozenset({"notes"}))
    with pytest.raises(AttachmentError, match=r"^@notes:n://1: MCP resources cannot be read here$"):
        await build_prompt("see @notes:n://1", tmp_path, policy=policy)

    async def refusing(server: str, uri: str) -> ev.ResourcePart:
        raise ToolError(f"MCP server {server} is not running: failed.")

    with pytest.raises(AttachmentError, match=r"^@notes:n://1: MCP server notes is not running: failed.$"):
        await build_prompt("see @notes:n://1", tmp_path, policy=policy, resources=refusing)


def test_a_resource_part_reads_as_its_mention_and_stored_json_alike() -> None:
    part = ev.ResourcePart(server="notes", uri="notes://a b", text="x")
    assert ev.prompt_text([part]) == '@"notes:notes://a b"'
    assert ev.prompt_text([ev.TextPart(text="look"), part.model_dump()]) == 'look\n@"notes:notes://a b"'
    assert ev.prompt_text(
        [ev.TextPart(text="@notes:n://1"), ev.ResourcePart(server="notes", uri="n://1", text="")]
    ) == ("@notes:n://1")
