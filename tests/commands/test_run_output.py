"""``agent-tui run`` never writes a control sequence a model, a file or a provider sent: the real
entry point in a subprocess, the fake provider over HTTP, assertions on the captured bytes."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.testing.fake_provider import FakeProvider, ScriptToolCall, Turn

from .test_run_cmd import Cli, cli  # noqa: F401 (fixture)

HOSTILE = (
    "\x1b]0;PWNED\x07\x1b]52;c;cm0gLXJmIH4K\x07\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\"
    "\x1b[2J\x1b[H\x1bP1$qm\x1b\\\x1b_apc\x1b\\\x08\x07\x9b5A\x9d0;t\x9c"
)
RAW_CONTROLS = (
    {bytes([c]) for c in range(0x20) if c not in (0x09, 0x0A)}
    | {b"\x7f"}
    | {chr(c).encode() for c in range(0x80, 0xA0)}
)  # C1 as UTF-8


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in strings(item)]
    return []


def assert_no_controls(captured: str) -> None:
    raw = captured.encode()
    found = [c for c in RAW_CONTROLS if c in raw]
    assert not found, (found, captured)


async def test_text_output_holds_no_control_sequence(cli: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add({"text": f"The answer {HOSTILE} is 42.", "chunks": 9})
    code, out, err = await cli.run("what is it?")
    assert code == 0, err
    assert_no_controls(out)
    assert_no_controls(err)
    assert out.strip() == "The answer link5A0;t is 42."  # 8-bit introducers gone, what followed them inert


async def test_json_output_keeps_the_values_but_no_raw_control(cli: Cli, fake: FakeProvider, workdir: Path) -> None:  # noqa: F811
    (workdir / "evil.txt").write_text(f"file {HOSTILE} end\n")
    fake.add(
        Turn(
            text=f"Reading {HOSTILE}",
            tool_calls=[ScriptToolCall(id="call_1", name="read", arguments={"path": "evil.txt"})],
        ),
        Turn(text=f"Done {HOSTILE}", chunks=5),
    )
    code, out, err = await cli.run("--format", "json", "--permission", "allow", "read it")
    assert code == 0, err
    assert_no_controls(out)
    lines = [json.loads(line) for line in out.splitlines()]
    assert any(f"file {HOSTILE} end" in text for line in lines for text in strings(line))  # the file, as read
    live = "".join(d["delta"] for d in lines if d.get("live") and d["kind"] == "text.delta")
    assert live == f"Reading {HOSTILE}Done {HOSTILE}"  # JSON carries exactly what the model said


async def test_a_provider_error_message_is_printed_inert(cli: Cli, fake: FakeProvider) -> None:  # noqa: F811
    fake.add({"error": {"status": 400, "kind": "invalid_request", "message": f"bad {HOSTILE} request"}})
    code, out, err = await cli.run("go")
    assert code == 1
    assert "bad" in err and "request" in err, err
    assert_no_controls(err)
    assert_no_controls(out)
