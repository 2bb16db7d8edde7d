"""One scripted session, replayed from every commit point (issue 13: the crash sweep).

The session: a prompt; a 429 answered once, then retried; a step with reasoning,
text and two parallel tool calls — ``bash`` appending its call id to ``ran.txt``
and admitting a steer from another process while it runs, ``apply_patch``
adding ``hello.txt``; an automatic compaction before the next step (the first
step reports nearly the whole context window used); a final answer.

The model side is a responder, not an ordered script: after a crash at commit
N the continuation asks different things depending on N, so each request is
answered from what it contains. Each point has its own home, project and API
key (``point-N``), so one fake provider serves points running in parallel.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import textwrap
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.request.compaction_text import SUMMARY_SYSTEM
from agent_tui.testing.fake_provider import RecordedRequest
from agent_tui.vocab.kinds import TOOL_INTERRUPTED

MODEL = "openai/fake-crash"
PROMPT = "Set up the project: log the run and add hello.txt."
STEER = "Also mention the steer in your answer."
SUMMARY_MARK = "crash-sweep-summary"
SUMMARY = f"## Objective\nLog the run and add hello.txt ({SUMMARY_MARK}).\n## Next Move\nAnswer."
FINAL = "All done."
BASH_CALL, PATCH_CALL = "call_bash", "call_patch"
PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"

CONFIG = """\
[retry]
base_delay_ms = 1

[compaction]
buffer = 50
keep_tokens = 100

# short on purpose: a family base prompt would fill most of this 4000-token window by itself
[agents.build]
prompt = "You are a coding agent in the user's project."

[[permission]]
action = "bash"
pattern = "*"
effect = "allow"

[[permission]]
action = "edit"
pattern = "*"
effect = "allow"

[models."openai/fake-crash"]
context_window = 4000
max_output_tokens = 40
supports_vision = false
"""

STEER_SCRIPT = f"""\
import asyncio
from pathlib import Path


async def main() -> None:
    from agent_tui.core.api import Settings, open_sessions, paths

    sessions = await open_sessions(Settings(), path=paths.database_path())
    try:
        session = await sessions.latest(Path.cwd())
        await sessions.prompt(session.id, {STEER!r}, delivery="steer", resume=False)
    finally:
        await sessions.close()


asyncio.run(main())
"""


def bash_command() -> str:
    """Log this call's one run, admit the steer from another process while the call runs, print
    enough to make the step large."""
    return f"echo {BASH_CALL} >> ran.txt && {sys.executable} steer.py && seq 1 600"


def prepare_point(root: Path, index: int) -> Point:
    home, project = root / f"home-{index}", root / f"project-{index}"
    home.mkdir(parents=True)
    (project / ".git").mkdir(parents=True)
    (home / "config.toml").write_text(CONFIG)  # the user's own: a project's allow rules wait for trust
    (project / "steer.py").write_text(STEER_SCRIPT)
    return Point(index, home, project)


@dataclass
class Point:
    """One commit point's world: its home (data dir), project and API key."""

    index: int
    home: Path
    project: Path

    @property
    def key(self) -> str:
        return f"point-{self.index}"

    @property
    def database(self) -> Path:
        return self.home / "agent-tui.db"


def _texts(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def is_summary_request(body: dict[str, Any]) -> bool:
    return bool(body.get("messages")) and _texts(body["messages"][0]) == SUMMARY_SYSTEM


@dataclass
class Responder:
    """Answers by what each request holds; remembers, per point, whether the 429 was given."""

    rate_limited: set[str] = field(default_factory=set)
    requests: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))

    def __call__(self, request: RecordedRequest) -> dict[str, Any]:
        key = request.headers.get("Authorization", "").removeprefix("Bearer ")
        body = request.body
        self.requests[key].append(body)
        if is_summary_request(body):
            return {"text": SUMMARY}
        messages = body.get("messages", [])
        # the tools were called (results, even interrupted ones, are in the context) or compacted away
        started = any(m.get("role") == "tool" or SUMMARY_MARK in _texts(m) for m in messages)
        if started:
            return {"text": FINAL, "chunks": 2, "usage": {"input": 300, "output": 5}}
        if key not in self.rate_limited:
            self.rate_limited.add(key)
            return {"error": {"status": 429, "kind": "rate_limit", "message": "slow down"}}
        return {
            "reasoning": "Log first, then add the file.",
            "reasoning_chunks": 2,
            "text": "Running both.",
            "chunks": 2,
            "tool_calls": [
                {"id": BASH_CALL, "name": "bash", "arguments": {"command": bash_command()}},
                {"id": PATCH_CALL, "name": "apply_patch", "arguments": {"patch": PATCH}},
            ],
            "usage": {"input": 3_990, "output": 5},
        }


# -- what must hold after a crash and a continuation ----------------------------------------------


def stored_log(database: Path) -> list[dict[str, Any]]:
    conn = sqlite3.connect(database)
    try:
        rows = conn.execute("SELECT seq, type, data_json FROM event ORDER BY session_id, seq").fetchall()
    finally:
        conn.close()
    return [
        {"seq": seq, "type": type_.removeprefix("session.").removesuffix(".1"), "data": json.loads(data)}
        for seq, type_, data in rows
    ]


def check_log(log: list[dict[str, Any]], point: Point, sent_to_model: list[dict[str, Any]]) -> list[str]:
    """Every violation, as one line each (empty: the point recovered)."""
    problems: list[str] = []
    problems += _check_steps(log)
    problems += _check_executions(log)
    problems += _check_tools_ran_once(log, point)
    problems += _check_steer(log, sent_to_model)
    answers = [e["data"]["text"] for e in log if e["type"] == "text.ended"]
    if not answers or answers[-1] != FINAL:
        problems.append(f"the last text is {answers[-1:]}, not the final answer")
    if not log or log[-1]["type"] != "execution.succeeded":
        problems.append(f"the log ends in {log[-1]['type'] if log else 'nothing'}, not execution.succeeded")
    return problems


_FRAGMENTS = {"text.started", "text.ended", "reasoning.started", "reasoning.ended"}
_TOOL = {"tool.called", "tool.success", "tool.failed"}
_TERMINAL = {"step.ended", "step.failed"}


def _check_steps(log: list[dict[str, Any]]) -> list[str]:  # noqa: C901 - one check per step rule, read top to bottom
    problems: list[str] = []
    by_message: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in log:
        mid = event["data"].get("assistant_message_id")
        if mid and (event["type"] in _FRAGMENTS | _TOOL | _TERMINAL | {"step.started", "retry.scheduled"}):
            by_message[mid].append(event)
    for mid, events in by_message.items():
        kinds = [e["type"] for e in events]
        if kinds[0] != "step.started":
            problems.append(f"{mid}: {kinds[0]} before step.started")
        terminals = [i for i, k in enumerate(kinds) if k in _TERMINAL]
        if len(terminals) != 1 or terminals[0] != len(kinds) - 1:
            problems.append(f"{mid}: not exactly one terminal step event, last: {kinds}")
        called = Counter(e["data"]["call_id"] for e in events if e["type"] == "tool.called")
        settled = Counter(e["data"]["call_id"] for e in events if e["type"] in ("tool.success", "tool.failed"))
        if called != settled or any(n != 1 for n in called.values()):
            problems.append(f"{mid}: calls {dict(called)} settled {dict(settled)}")
        for i, kind in enumerate(kinds):
            if kind == "retry.scheduled" and i + 1 < len(kinds) and kinds[i + 1] not in ("step.started", "step.failed"):
                problems.append(f"{mid}: retry.scheduled followed by {kinds[i + 1]}")
            if kind in ("tool.success", "tool.failed"):
                call = events[i]["data"]["call_id"]
                if not any(e["type"] == "tool.called" and e["data"]["call_id"] == call for e in events[:i]):
                    problems.append(f"{mid}: {call} settled before it was called")
        open_parts: dict[str, int] = {}
        for event in events:
            kind = event["type"]
            if kind in ("text.started", "reasoning.started"):
                part = kind.split(".")[0]
                if part in open_parts:
                    problems.append(f"{mid}: two open {part} fragments")
                open_parts[part] = event["data"]["ordinal"]
            elif kind in ("text.ended", "reasoning.ended"):
                open_parts.pop(kind.split(".")[0], None)
            elif kind == "step.started":
                open_parts.clear()  # a retried attempt begins again
    return problems


def _check_executions(log: list[dict[str, Any]]) -> list[str]:
    """Each busy period starts once and ends once; a crash may leave one start unmatched."""
    kinds = [e["type"] for e in log if e["type"].startswith("execution.")]
    unmatched, open_ = 0, False
    for kind in kinds:
        if kind == "execution.started":
            if open_:
                unmatched += 1
            open_ = True
        else:
            if not open_:
                return [f"{kind} without execution.started: {kinds}"]
            open_ = False
    return [] if unmatched <= 1 and not open_ else [f"execution events out of order: {kinds}"]


def _check_tools_ran_once(log: list[dict[str, Any]], point: Point) -> list[str]:
    problems: list[str] = []
    ran = (point.project / "ran.txt").read_text().split() if (point.project / "ran.txt").exists() else []
    if ran not in ([], [BASH_CALL]):
        problems.append(f"bash ran {ran.count(BASH_CALL)} times: {ran}")
    for event in log:
        data = event["data"]
        if event["type"] == "tool.success" and data["call_id"] == BASH_CALL and not ran:
            problems.append("bash succeeded but never ran")
        if event["type"] == "tool.success" and data["call_id"] == PATCH_CALL:
            if (point.project / "hello.txt").read_text() != "hello\n":
                problems.append("apply_patch succeeded but hello.txt is not as patched")
        if event["type"] == "tool.failed" and data["error"]["message"] != TOOL_INTERRUPTED:
            problems.append(f"{data['call_id']} failed: {data['error']}")
    interrupted = [e for e in log if e["type"] == "tool.failed"]
    if any(e["data"]["error"]["type"] != "tool.stale" for e in interrupted):
        problems.append(f"a tool failed other than as interrupted: {interrupted}")
    return problems


def _check_steer(log: list[dict[str, Any]], sent_to_model: list[dict[str, Any]]) -> list[str]:
    steers = [e["data"]["input_id"] for e in log if e["type"] == "prompt.admitted" and _prompt_text(e["data"]) == STEER]
    promoted = {e["data"]["input_id"] for e in log if e["type"] == "prompt.promoted"}
    problems = [f"steer {sid} admitted, never promoted" for sid in steers if sid not in promoted]
    if steers and not any(STEER in json.dumps(body) for body in sent_to_model):
        problems.append("the steer never reached the model")
    return problems


def _prompt_text(data: dict[str, Any]) -> str:
    prompt = data.get("prompt")
    if isinstance(prompt, str):
        return prompt
    return "".join(part.get("text", "") for part in prompt or [] if isinstance(part, dict))


def describe(log: list[dict[str, Any]]) -> str:
    return textwrap.shorten(" ".join(e["type"] for e in log), 2_000)
