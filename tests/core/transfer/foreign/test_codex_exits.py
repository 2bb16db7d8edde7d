"""A Codex shell call imports as failed when Codex recorded a nonzero exit code (tests/data/foreign/codex_failing)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agent_tui.core.log import events as ev
from agent_tui.core.transfer.foreign import codex, codex_exits
from agent_tui.core.transfer.foreign.draft import Imported
from tests.fakes.foreign_homes import CODEX, DATA

FAILING = next((DATA / "codex_failing").glob("rollout-*.jsonl"))


def _results(imported: Imported) -> dict[str, ev.DurableEvent]:
    return {
        event.call_id: event for event, _ in imported.events if isinstance(event, (ev.ToolSucceeded, ev.ToolFailed))
    }


def _rows(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _text(rows: list[dict]) -> str:  # type: ignore[type-arg]
    return "".join(json.dumps(row) + "\n" for row in rows)


def test_the_failed_command_is_failed_and_the_next_one_succeeded() -> None:
    imported = codex.read(FAILING.read_text(encoding="utf-8"), str(FAILING))
    results = _results(imported)
    failed, ok = results["call_fail01"], results["call_ok01"]
    assert isinstance(failed, ev.ToolFailed) and isinstance(ok, ev.ToolSucceeded)
    assert "Process exited with code 2" in failed.error.message
    assert "No such file or directory" in failed.error.message
    assert ok.output.text.endswith("Output:\nmain.py\n")
    assert imported.mapped["tool results"] == 2 and imported.mapped["tool calls (bash)"] == 2


def test_every_call_of_the_base_rollout_stays_succeeded() -> None:
    results = _results(codex.read(CODEX.read_text(encoding="utf-8"), str(CODEX)))
    assert sorted(results) == ["call_edit01", "call_img01", "call_ls01"]
    assert all(isinstance(result, ev.ToolSucceeded) for result in results.values())


def test_the_output_text_tells_the_exit_code_when_no_event_does() -> None:
    """Rollouts without ``item_completed`` events (older Codex): the output's own header decides."""
    rows = [r for r in _rows(FAILING) if (r.get("payload") or {}).get("type") != "item_completed"]
    results = _results(codex.read(_text(rows), "r.jsonl"))
    assert isinstance(results["call_fail01"], ev.ToolFailed)
    assert isinstance(results["call_ok01"], ev.ToolSucceeded)


def test_the_event_decides_over_the_text_and_a_failed_file_change_fails() -> None:
    rows = _rows(CODEX)
    edit = next(r for r in rows if (r.get("payload") or {}).get("item", {}).get("id") == "call_edit01")
    edit["payload"]["item"]["status"] = "failed"  # the FileChange Codex could not apply
    results = _results(codex.read(_text(rows), "r.jsonl"))
    assert isinstance(results["call_edit01"], ev.ToolFailed)
    assert isinstance(results["call_ls01"], ev.ToolSucceeded)


def test_older_json_wrapped_shell_output_is_unwrapped_with_its_exit_code() -> None:
    rows = _rows(FAILING)
    rows = [r for r in rows if (r.get("payload") or {}).get("type") != "item_completed"]
    for row in rows:
        payload = row.get("payload") or {}
        if payload.get("type") == "function_call_output":
            code = 2 if payload["call_id"] == "call_fail01" else 0
            payload["output"] = json.dumps({"output": f"out of {payload['call_id']}", "metadata": {"exit_code": code}})
    results = _results(codex.read(_text(rows), "r.jsonl"))
    failed, ok = results["call_fail01"], results["call_ok01"]
    assert isinstance(failed, ev.ToolFailed) and failed.error.message == "out of call_fail01"
    assert isinstance(ok, ev.ToolSucceeded) and ok.output.text == "out of call_ok01"


def test_a_foreign_tool_whose_output_reads_like_an_exit_code_is_not_judged_by_it() -> None:
    rows = _rows(FAILING)
    rows = [r for r in rows if (r.get("payload") or {}).get("type") != "item_completed"]
    call = next(r for r in rows if (r.get("payload") or {}).get("call_id") == "call_fail01")
    call["payload"]["name"] = "web_search"
    results = _results(codex.read(_text(rows), "r.jsonl"))
    assert isinstance(results["call_fail01"], ev.ToolSucceeded)


@given(st.integers(-255, 255), st.text(max_size=40).filter(lambda t: "Output:" not in t))
def test_the_header_exit_code_decides_whatever_the_output_says(code: int, said: str) -> None:
    text = f"Chunk ID: x\nWall time: 0.1 seconds\nProcess exited with code {code}\nOutput:\n{said}\nExit code: 0\n"
    assert codex_exits.shell_output(text) == (text, code == 0)


def test_a_command_still_running_names_no_exit_code() -> None:
    text = "Chunk ID: x\nWall time: 10 seconds\nProcess running with session ID 3\nOutput:\nstill going\n"
    assert codex_exits.shell_output(text) == (text, None)
    assert codex_exits.settled({"id": "c", "type": "ImageView"}) is None
    assert codex_exits.settled({"id": "c", "exit_code": 1, "status": "completed"}) == ("c", False)
