"""The fake as a server: recording, script control, holding turns, admin API and the shell entry."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.testing.fake_provider import FakeProvider, Turn, load_script
from agent_tui.testing.fake_provider.script import split
from tests.testing.conftest import post, sse_events

BODY = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


async def test_records_every_body_and_plays_turns_in_order(fake: FakeProvider, http) -> None:
    fake.add(Turn(text="one"), Turn(text="two"))
    for n in (1, 2):
        await post(
            http, f"{fake.openai_base}/chat/completions", {**BODY, "messages": [{"role": "user", "content": f"q{n}"}]}
        )
    assert [r.body["messages"][0]["content"] for r in fake.requests] == ["q1", "q2"]
    assert [r.wire for r in fake.requests] == ["openai", "openai"]
    status, _, text = await post(http, f"{fake.openai_base}/chat/completions", BODY)
    assert status == 500 and "script exhausted at request 3" in text


async def test_turns_can_be_added_while_running(fake: FakeProvider, http) -> None:
    fake.add(Turn(text="first"))
    await post(http, f"{fake.openai_base}/chat/completions", BODY)
    fake.add({"text": "added later"})
    _, _, text = await post(http, f"{fake.openai_base}/chat/completions", BODY)
    assert "added later" in text


async def test_hold_until_released(fake: FakeProvider, http) -> None:
    fake.add(Turn(text="held", hold=True))
    request = asyncio.create_task(post(http, f"{fake.openai_base}/chat/completions", BODY))
    await fake.wait_for("held")
    await asyncio.sleep(0.05)
    assert not request.done()
    fake.release()
    status, _, text = await asyncio.wait_for(request, 5)
    assert status == 200 and "held" in text


async def test_delay_per_chunk(fake: FakeProvider, http) -> None:
    fake.add(Turn(text="abcd", chunks=4, delay_ms=30))
    loop = asyncio.get_running_loop()
    start = loop.time()
    await post(http, f"{fake.openai_base}/chat/completions", BODY)
    assert loop.time() - start >= 0.1


async def test_admin_api(fake: FakeProvider, http) -> None:
    async with http.post(f"{fake.base_url}/_fake/turns", json=[{"text": "via admin"}]) as response:
        assert (await response.json()) == {"remaining": 1}
    await post(http, f"{fake.openai_base}/chat/completions", BODY)
    async with http.get(f"{fake.base_url}/_fake/requests") as response:
        recorded = await response.json()
    assert recorded[0]["body"]["messages"] == BODY["messages"]
    async with http.post(f"{fake.base_url}/_fake/turns", json={"turns": [{"chunks": 0}]}) as response:
        assert response.status == 400


def test_split_and_script_files(tmp_path: Path) -> None:
    assert split("abcdefg", 3) == ["abc", "de", "fg"]
    assert split("ab", 5) == ["a", "b"]
    assert split("", 3) == [""]
    path = tmp_path / "s.json"
    path.write_text(json.dumps([{"text": "a"}, {"error": {"status": 429, "retry_after": 1}}]))
    assert [t.text for t in load_script(path).turns] == ["a", None]
    path.write_text(json.dumps({"turns": [{"tool_calls": [{"id": "x", "name": "a"}, {"id": "x", "name": "b"}]}]}))
    with pytest.raises(ValueError, match="unique"):
        load_script(path)


async def test_shell_entry_serves_a_script(tmp_path: Path, http) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"text": "from the shell", "chunks": 3}]}))
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent_tui.testing.fake_provider",
        "--port",
        "0",
        "--script",
        str(script),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        line = (await asyncio.wait_for(process.stdout.readline(), 20)).decode()
        assert line.startswith("fake provider listening on http://127.0.0.1:")
        base = line.split()[4]
        _, _, text = await post(http, f"{base}/v1/chat/completions", BODY)
        pieces = [d["choices"][0]["delta"].get("content") for _, d in sse_events(text)[:-1] if d["choices"]]
        assert "".join(p for p in pieces if p) == "from the shell"
    finally:
        process.terminate()
        assert await asyncio.wait_for(process.wait(), 10) == 0


def test_shell_entry_rejects_a_bad_script(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text(json.dumps({"turns": [{"finish": "maybe"}]}))
    out = subprocess.run(
        [sys.executable, "-m", "agent_tui.testing.fake_provider", "--script", str(script)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 2
    assert out.stderr.startswith(f"fake provider: invalid script {script}: turns.0.finish:")
    assert len(out.stderr.strip().splitlines()) == 1
