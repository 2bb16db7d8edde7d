"""Configured instruction sources (local, glob, remote URL) and CLAUDE.md, through the checkpoint:
each one's baseline, update and removal, in the requests the fake provider records."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from agent_tui.core.host.tool_host import build_registry
from agent_tui.core.log.records import ToolCallRecord
from agent_tui.core.request.nested import touched_paths
from agent_tui.core.settings.trust import split_powers
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock

from .conftest import reminders, settle, system_text


async def _turns(open_runtime: Any, workdir: Path, cli: dict[str, Any], between: list[Any], **opts: Any) -> None:
    """One prompt, then one more after each callable in ``between`` has changed the world."""
    async with await open_runtime(cli=cli, policy="allow", clock=ManualClock(), **opts) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        for index, change in enumerate([None, *between]):
            if change is not None:
                await change()
            await runtime.sessions.prompt(sid, f"prompt {index}")
            await settle(runtime, sid)


async def test_configured_files_and_globs_are_baselined_in_order_then_updated_and_removed(
    open_runtime: Any, fake: FakeProvider, workdir: Path
) -> None:
    docs = workdir / "docs"
    docs.mkdir()
    (workdir / "RULES.md").write_text("Rule zero: run the linters.")
    (docs / "b.md").write_text("Doc b: tabs.")
    (docs / "a.md").write_text("Doc a: small commits.")
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"})

    async def edit() -> None:
        (docs / "a.md").write_text("Doc a: squash commits.")

    async def remove() -> None:
        for path in (workdir / "RULES.md", docs / "a.md", docs / "b.md"):
            path.unlink()

    await _turns(open_runtime, workdir, {"instructions": ["RULES.md", "docs/*.md", "missing.md"]}, [edit, remove])
    system = system_text(fake.accepted[0].body)
    assert system.index("Rule zero") < system.index("Doc a: small") < system.index("Doc b")
    assert system_text(fake.accepted[1].body) == system  # the baseline never changes
    (update,) = reminders(fake.accepted[1].body)
    assert "Doc a: squash commits." in update and "Doc b: tabs." in update and "replace" in update
    removal = reminders(fake.accepted[2].body)[-1]
    assert "All configured instructions were removed" in removal


async def test_a_remote_source_is_fetched_and_its_last_belief_kept_when_the_server_goes_away(
    open_runtime: Any, fake: FakeProvider, workdir: Path, served: dict[str, Any], agent_home: Path
) -> None:
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"})
    served["text"] = "Remote rule: write changelogs."

    async def change_text() -> None:
        served["text"] = "Remote rule: no changelogs."

    async def go_away() -> None:
        await served["stop"]()

    cli = {"instructions": [served["url"]], "instructions_refresh_s": 0}
    await _turns(open_runtime, workdir, cli, [change_text, go_away])
    assert "Remote rule: write changelogs." in system_text(fake.accepted[0].body)
    assert any("no changelogs" in text for text in reminders(fake.accepted[1].body))
    # The server is gone: no removal, no repeat; the model keeps believing the last text.
    assert reminders(fake.accepted[2].body) == reminders(fake.accepted[1].body)
    (kept,) = (agent_home / "instructions").glob("*.md")  # the last good copy, the user's only
    assert kept.read_text() == "Remote rule: no changelogs." and kept.stat().st_mode & 0o777 == 0o600


async def test_claude_md_is_read_where_there_is_no_agents_md_unless_turned_off(
    open_runtime: Any, fake: FakeProvider, workdir: Path
) -> None:
    (workdir / "CLAUDE.md").write_text("Claude rule: prefer pytest.")
    fake.add({"text": "one"}, {"text": "two"})
    await _turns(open_runtime, workdir, {}, [])
    assert "Claude rule: prefer pytest." in system_text(fake.accepted[0].body)
    (workdir / "AGENTS.md").write_text("Agents rule: prefer unittest.")
    await _turns(open_runtime, workdir, {"claude_md": False}, [])
    second = system_text(fake.accepted[1].body)
    assert "Agents rule" in second and "Claude rule" not in second


async def test_a_remote_source_fetched_recently_is_not_fetched_again_until_its_copy_is_stale(
    open_runtime: Any, fake: FakeProvider, workdir: Path, served: dict[str, Any], agent_home: Path
) -> None:
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"})
    served["text"] = "Remote rule: v1."

    async def change_text() -> None:
        served["text"] = "Remote rule: v2."

    async def age_the_copy() -> None:
        (kept,) = (agent_home / "instructions").glob("*.md")
        old = time.time() - 61
        os.utime(kept, (old, old))

    await _turns(open_runtime, workdir, {"instructions": [served["url"]]}, [change_text, age_the_copy])
    assert served["hits"] == 2  # the first prompt, then the third once the copy was a minute old
    assert not reminders(fake.accepted[1].body)  # within the minute: the kept copy, v1
    assert any("Remote rule: v2." in text for text in reminders(fake.accepted[2].body))


def test_a_project_config_reaches_beyond_the_project_only_when_trusted() -> None:
    entries = ["docs/*.md", "https://example.com/rules.md", "/etc/hostname", "~/.ssh/id_rsa", "../other/x.md"]
    kept, powers = split_powers({"instructions": entries})
    assert kept["instructions"] == ["docs/*.md"]
    assert powers.wanted["instructions"] == entries[1:]
    assert "give the model the instructions at https://example.com/rules.md" in powers.lines


@pytest.fixture
async def served() -> AsyncIterator[dict[str, Any]]:
    """A local HTTP server for one text file; ``stop()`` takes it away."""
    state: dict[str, Any] = {"text": "", "hits": 0}

    async def rules(request: web.Request) -> web.Response:
        state["hits"] += 1
        return web.Response(text=state["text"])

    app = web.Application()
    app.router.add_get("/rules.md", rules)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    state["url"] = f"http://127.0.0.1:{port}/rules.md"
    state["stop"] = runner.cleanup
    yield state
    await runner.cleanup()


async def test_an_agents_md_below_the_working_directory_is_told_once_a_read_goes_there(
    open_runtime: Any, fake: FakeProvider, workdir: Path
) -> None:
    package = workdir / "services" / "api"
    package.mkdir(parents=True)
    (package / "AGENTS.md").write_text("API rule: every handler is async.")
    (package / "handlers.py").write_text("async def ok(): ...\n")
    (workdir / "elsewhere").mkdir()
    (workdir / "elsewhere" / "AGENTS.md").write_text("Elsewhere rule: never seen.")
    read = {"tool_calls": [{"id": "call_1", "name": "read", "arguments": {"path": "services/api/handlers.py"}}]}
    fake.add(read, {"text": "read it"})
    await _turns(open_runtime, workdir, {}, [], tools=build_registry)  # the built-in tools: a real read
    first, second = (request.body for request in fake.accepted)
    assert "API rule" not in system_text(first) and not reminders(first)
    (told,) = reminders(second)
    assert "API rule: every handler is async." in told and str(package) in told
    assert "Elsewhere rule" not in told and system_text(second) == system_text(first)


def test_the_paths_an_edit_named_count_as_touched() -> None:
    patch = "*** Begin Patch\n*** Update File: a/b.py\n@@\n-x\n+y\n*** Add File: c/d.py\n+z\n*** End Patch"
    calls = [_call("apply_patch", {"patch": patch}, "success"), _call("read", {"path": "failed/x.py"}, "failed")]
    assert touched_paths(calls) == ["a/b.py", "c/d.py"]


def _call(name: str, input: dict[str, Any], state: Any) -> ToolCallRecord:
    return ToolCallRecord(
        session_id="s",
        assistant_message_id="m",
        call_id=name,
        seq=1,
        name=name,
        input=input,
        state=state,
        output=None,
        error=None,
        call_meta={},
        result_meta=None,
        hosted=False,
    )
