#!/usr/bin/env python3
"""Make the foreign session fixtures: run the real Claude Code, Codex, Gemini CLI and opencode against a scripted fake model.

    python3 tests/data/foreign/generate.py --agent claude --bin PATH/claude --out tests/data/foreign/claude_code
    python3 tests/data/foreign/generate.py --agent codex --bin PATH/codex --out tests/data/foreign/codex
    python3 tests/data/foreign/generate.py --agent gemini --bin PATH/gemini --out tests/data/foreign/gemini
    python3 tests/data/foreign/generate.py --agent opencode --bin PATH/opencode --out tests/data/foreign/opencode

Each agent runs headless (``claude -p``, ``codex exec``, ``gemini -p``, ``opencode run``) under a private HOME
(``/tmp/foreign-fixture-<agent>``, its project at ``HOME/proj``) against the fake
below, which speaks the Anthropic Messages, OpenAI Responses and Chat Completions wire formats
(and the Gemini API's, in ``gemini_wire``), streamed, with tool calls: the script makes the agent answer with text and
reasoning, run ``ls``, edit ``main.py``, look at ``pic.png``, then answers; a
second run resumes the session and compacts it (``--scenario base``; the other
scenarios and every turn of the fake model are in ``turns.py``). The session files
the agent wrote are copied to ``--out``. Stdlib only; nothing of the agents is kept here.
The fake key (``sk-fake-0000``) is the only credential any agent sees.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import gemini_wire  # type: ignore[import-not-found]  # beside this script
from turns import SCENARIOS

FAKE_KEY = "sk-fake-0000"
# a 1x1 PNG: what the agent is asked to look at
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def flat(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def last_item_key(body: dict[str, Any]) -> str:
    """What the model is answering: the id of the last tool result, or the last user text."""
    if "contents" in body:  # Gemini
        return str(gemini_wire.last_key(body))
    if "messages" in body:  # Anthropic, or Chat Completions (a ``tool`` message answers a call)
        last = body["messages"][-1]
        if last.get("role") == "tool":
            return "result:" + str(last.get("tool_call_id"))
        content = last.get("content")
        if isinstance(content, list):
            for block in reversed(content):
                if block.get("type") == "tool_result":
                    return "result:" + block["tool_use_id"]
        return "text:" + flat(content)
    items = body.get("input") or []
    for item in reversed(items):
        if item.get("type") in ("function_call_output", "custom_tool_call_output"):
            return "result:" + item["call_id"]
        if item.get("type") == "message" and item.get("role") == "user":
            return "text:" + flat(item.get("content"))
    return ""


def tool_name(tool: dict[str, Any]) -> str | None:
    """A declared tool's name: Anthropic's and Responses' ``name`` (or a built-in's ``type``), Chat Completions'
    ``function.name``; None for the Gemini API's groups (``gemini_wire.tool_names`` names theirs)."""
    name = tool.get("name") or (tool.get("function") or {}).get("name") or tool.get("type")
    return str(name) if name else None


class Script:
    """Turns keyed by what they answer: ``after`` a tool result's call id or a substring of the user's text."""

    def __init__(self, turns: list[dict[str, Any]], record: Path) -> None:
        self.turns, self.record, self.lock = turns, record, threading.Lock()

    def take(self, body: dict[str, Any]) -> dict[str, Any]:
        key = last_item_key(body)
        with self.lock:
            with self.record.open("a", encoding="utf-8") as f:
                tools = [tool_name(t) for t in body.get("tools") or []] + gemini_wire.tool_names(body)
                f.write(flat({"key": key[:200], "tools": tools}) + "\n")
            for turn in self.turns:
                after = turn["after"]
                if turn.get("used"):
                    continue
                if turn.get("summary") and "summar" in key.lower():
                    turn["used"] = True
                    return turn
                if turn.get("summary"):
                    continue
                if turn.get("title"):  # the title the agent asks its small model for, without tools
                    if after in key and not body.get("tools"):
                        turn["used"] = True
                        return turn
                    continue
                hit = key == "result:" + after if after.startswith("call") else after in key
                if hit and body.get("tools"):
                    turn["used"] = True
                    return turn
        return {"text": "ok"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt: str, *args: Any) -> None:
        pass

    def _json(self, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _event(self, name: str, obj: dict[str, Any]) -> None:
        self._chunk(f"event: {name}\ndata: {json.dumps({'type': name, **obj})}\n\n".encode())

    def do_GET(self) -> None:
        self._json({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        path = self.path.split("?")[0].rstrip("/")
        if ":" in path.rsplit("/", 1)[-1]:  # Gemini: models/<model>:<method>
            gemini_wire.answer(self, path, body)
            return
        if path.endswith("/count_tokens"):
            self._json({"input_tokens": 100})
            return
        if not path.endswith(("/messages", "/responses", "/chat/completions")):
            self._json({})
            return
        turn = self.server.script.take(body)  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if path.endswith("/chat/completions"):
            self._chat(turn, body)
        elif path.endswith("/messages"):
            self._anthropic(turn, body)
        else:
            self._responses(turn, body)
        self._chunk(b"")

    def _anthropic(self, turn: dict[str, Any], body: dict[str, Any]) -> None:
        usage = {
            "input_tokens": 1200,
            "output_tokens": 40,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 300,
        }
        msg = {
            "id": "msg_" + uuid.uuid4().hex[:20],
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {**usage, "output_tokens": 1},
        }
        self._event("message_start", {"message": msg})
        index = 0
        if turn.get("thinking"):
            self._event("content_block_start", {"index": index, "content_block": {"type": "thinking", "thinking": ""}})
            self._event(
                "content_block_delta",
                {"index": index, "delta": {"type": "thinking_delta", "thinking": turn["thinking"]}},
            )
            self._event(
                "content_block_delta",
                {"index": index, "delta": {"type": "signature_delta", "signature": "c2lnbmF0dXJl"}},
            )
            self._event("content_block_stop", {"index": index})
            index += 1
        if turn.get("text"):
            self._event("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}})
            self._event("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": turn["text"]}})
            self._event("content_block_stop", {"index": index})
            index += 1
        tool = turn.get("tool")
        if tool:
            block = {"type": "tool_use", "id": turn["id"], "name": tool["name"], "input": {}}
            self._event("content_block_start", {"index": index, "content_block": block})
            self._event(
                "content_block_delta",
                {"index": index, "delta": {"type": "input_json_delta", "partial_json": json.dumps(tool["input"])}},
            )
            self._event("content_block_stop", {"index": index})
        stop = "tool_use" if tool else "end_turn"
        self._event(
            "message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 40}}
        )
        self._event("message_stop", {})

    def _chat(self, turn: dict[str, Any], body: dict[str, Any]) -> None:
        """Chat Completions chunks: reasoning as ``reasoning_content``, then text, then one tool call."""
        cid = "chatcmpl-" + uuid.uuid4().hex[:16]

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> None:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            obj = {"id": cid, "object": "chat.completion.chunk", "created": 0, "model": body.get("model")}
            self._chunk(f"data: {json.dumps({**obj, 'choices': [choice], **extra})}\n\n".encode())

        chunk({"role": "assistant", "content": ""})
        if turn.get("thinking"):
            chunk({"reasoning_content": turn["thinking"]})
        if turn.get("text"):
            chunk({"content": turn["text"]})
        tool = turn.get("tool")
        if tool:
            call = {"index": 0, "id": turn["id"], "type": "function"}
            chunk(
                {"tool_calls": [{**call, "function": {"name": tool["name"], "arguments": json.dumps(tool["input"])}}]}
            )
        usage = {
            "prompt_tokens": turn.get("input_tokens", 1200),
            "completion_tokens": 40,
            "total_tokens": turn.get("input_tokens", 1200) + 40,
            "prompt_tokens_details": {"cached_tokens": 300},
            "completion_tokens_details": {"reasoning_tokens": 8},
        }
        chunk({}, "tool_calls" if tool else "stop", usage=usage)
        self._chunk(b"data: [DONE]\n\n")

    def _responses(self, turn: dict[str, Any], body: dict[str, Any]) -> None:
        rid = "resp_" + uuid.uuid4().hex[:16]
        usage = {
            "input_tokens": turn.get("input_tokens", 1200),
            "input_tokens_details": {"cached_tokens": 300},
            "output_tokens": 40,
            "output_tokens_details": {"reasoning_tokens": 8},
        }
        usage["total_tokens"] = usage["input_tokens"] + 40
        resp = {
            "id": rid,
            "object": "response",
            "created_at": 0,
            "model": body.get("model"),
            "status": "in_progress",
            "output": [],
        }
        seq = [0]

        def ev(name: str, obj: dict[str, Any]) -> None:
            self._event(name, {"sequence_number": seq[0], **obj})
            seq[0] += 1

        ev("response.created", {"response": resp})
        items: list[dict[str, Any]] = []
        if turn.get("thinking"):
            items.append(
                {
                    "id": "rs_" + uuid.uuid4().hex[:12],
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": turn["thinking"]}],
                }
            )
        if turn.get("text"):
            items.append(
                {
                    "id": "msg_" + uuid.uuid4().hex[:12],
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": turn["text"], "annotations": []}],
                }
            )
        tool = turn.get("tool")
        if tool and tool.get("custom"):
            items.append(
                {
                    "id": "ctc_" + uuid.uuid4().hex[:12],
                    "type": "custom_tool_call",
                    "status": "completed",
                    "call_id": turn["id"],
                    "name": tool["name"],
                    "input": tool["input"],
                }
            )
        elif tool:
            items.append(
                {
                    "id": "fc_" + uuid.uuid4().hex[:12],
                    "type": "function_call",
                    "status": "completed",
                    "call_id": turn["id"],
                    "name": tool["name"],
                    "arguments": json.dumps(tool["input"]),
                }
            )
        for i, item in enumerate(items):
            ev("response.output_item.added", {"output_index": i, "item": item})
            if item["type"] == "message":
                text = item["content"][0]["text"]
                ev(
                    "response.output_text.delta",
                    {"item_id": item["id"], "output_index": i, "content_index": 0, "delta": text},
                )
            ev("response.output_item.done", {"output_index": i, "item": item})
        ev("response.completed", {"response": {**resp, "status": "completed", "output": items, "usage": usage}})


def make_home(agent: str, base: str) -> tuple[Path, Path, dict[str, str]]:
    home = Path(f"/tmp/foreign-fixture-{agent}")
    shutil.rmtree(home, ignore_errors=True)
    proj = home / "proj"
    proj.mkdir(parents=True)
    (proj / "main.py").write_text("def main():\n    print('hello')\n")
    (proj / "pic.png").write_bytes(PNG)
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "TERM": "dumb"}
    if agent == "claude":
        (home / ".claude").mkdir()
        (home / ".claude.json").write_text(
            json.dumps(
                {
                    "hasCompletedOnboarding": True,
                    "autoUpdates": False,
                    "projects": {str(proj): {"hasTrustDialogAccepted": True}},
                }
            )
        )
        env |= {
            "ANTHROPIC_BASE_URL": base,
            "ANTHROPIC_API_KEY": FAKE_KEY,
            "ANTHROPIC_MODEL": "claude-sonnet-4-5",
            "ANTHROPIC_SMALL_FAST_MODEL": "claude-haiku-4-5",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "IS_SANDBOX": "1",
        }
    elif agent == "gemini":
        gm = home / ".gemini"
        gm.mkdir()
        (gm / "settings.json").write_text(
            json.dumps(
                {
                    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
                    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                    "privacy": {"usageStatisticsEnabled": False},
                    "telemetry": {"enabled": False},
                }
            )
        )
        env |= {"GEMINI_API_KEY": FAKE_KEY, "GOOGLE_GEMINI_BASE_URL": base, "GEMINI_CLI_NO_RELAUNCH": "true"}
    elif agent == "opencode":
        config = home / ".config" / "opencode"
        config.mkdir(parents=True)
        model = {
            "name": "Fake",
            "reasoning": True,
            "tool_call": True,
            "attachment": True,
            "modalities": {"input": ["text", "image"], "output": ["text"]},
            "limit": {"context": 10000, "output": 1000},
        }
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Fake",
            "options": {"baseURL": f"{base}/v1", "apiKey": "{env:FAKE_API_KEY}"},
            "models": {"fake-model": model},
        }
        settings = {"provider": {"fake": provider}, "model": "fake/fake-model", "small_model": "fake/fake-model"}
        (config / "opencode.json").write_text(json.dumps({**settings, "autoupdate": False, "share": "disabled"}))
        env |= {
            "FAKE_API_KEY": FAKE_KEY,
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_CLAUDE_CODE": "1",
        }
    else:
        cx = home / ".codex"
        cx.mkdir()
        (cx / "config.toml").write_text(
            f'model = "fake-model"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n'
            f"model_auto_compact_token_limit = 5000\n\n"
            f'[model_providers.fake]\nname = "fake"\nbase_url = "{base}/v1"\nenv_key = "FAKE_API_KEY"\nwire_api = "responses"\n\n'
            f'[projects."{proj}"]\ntrust_level = "trusted"\n'
        )
        env |= {"CODEX_HOME": str(cx), "FAKE_API_KEY": FAKE_KEY}
    return home, proj, env


def run(argv: list[str], env: dict[str, str], cwd: Path) -> None:
    done = subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180)
    print(f"$ {' '.join(argv)} -> {done.returncode}\n{done.stdout[-800:]}\n{done.stderr[-800:]}", file=sys.stderr)


def opencode_captured(binary: str, env: dict[str, str], home: Path, proj: Path) -> list[Path]:
    """What opencode keeps is its SQLite database; captured are a copy of it (its WAL folded in,
    vacuumed) and ``opencode export`` of the session (the JSON that ``import --from opencode FILE`` reads)."""
    captured = home / "captured"
    captured.mkdir()
    database = home / ".local" / "share" / "opencode" / "opencode.db"
    with sqlite3.connect(database) as source:
        (session_id,) = source.execute("SELECT id FROM session").fetchone()
        source.execute("VACUUM INTO ?", (str(captured / "opencode.db"),))
    with sqlite3.connect(captured / "opencode.db") as copy:
        copy.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
    exported = subprocess.run(
        [binary, "export", session_id], env=env, cwd=proj, capture_output=True, text=True, timeout=60, check=True
    )
    (captured / f"{session_id}.json").write_text(exported.stdout, encoding="utf-8")
    return sorted(captured.iterdir())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agent", choices=["claude", "codex", "gemini", "opencode"], required=True)
    ap.add_argument("--scenario", choices=sorted({s for _, s in SCENARIOS}), default="base")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    turns = gemini_wire.turns if (a.agent, a.scenario) == ("gemini", "base") else SCENARIOS.get((a.agent, a.scenario))
    if turns is None:
        ap.error(f"no {a.scenario!r} scenario for {a.agent}")
    record = Path(f"/tmp/foreign-fixture-{a.agent}.requests.jsonl")
    record.unlink(missing_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    home, proj, env = make_home(a.agent, base)
    server.script = Script(turns(proj), record)  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    task = "FIXTURE-TASK: list the files, change main.py to print hello, world, and describe pic.png"
    match a.agent, a.scenario:
        case "claude", "base":
            run([a.bin, "-p", "--dangerously-skip-permissions", task], env, proj)
            run(
                [a.bin, "-p", "--continue", "--dangerously-skip-permissions", "ANOTHER-TASK: anything else?"], env, proj
            )
            run([a.bin, "-p", "--continue", "/compact"], env, proj)
        case "claude", "subagent":
            run(
                [a.bin, "-p", "--dangerously-skip-permissions", "SUBAGENT-TASK: have a subagent list the files"],
                env,
                proj,
            )
        case "codex", "base":
            run([a.bin, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", task], env, proj)
            resume = ["exec", "--dangerously-bypass-approvals-and-sandbox", "resume", "--last"]
            run([a.bin, *resume, "ANOTHER-TASK: anything else?"], env, proj)
        case "gemini", "base":
            model = ["-m", "gemini-2.5-pro", "--yolo", "-o", "text"]
            run([a.bin, *model, "-p", task], env, proj)
            run([a.bin, *model, "--resume", "latest", "-p", "ANOTHER-TASK: anything else?"], env, proj)
        case "opencode", "base":  # two runs of one session, the second ``--continue``s it
            # the words one by one: ``opencode run`` quotes a message argument that holds a space
            run([a.bin, "run", "--auto", *task.split()], env, proj)
            run([a.bin, "run", "--auto", "--continue", *"ANOTHER-TASK: anything else?".split()], env, proj)
        case "codex", "failing":
            bypass = ["--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"]
            run([a.bin, "exec", *bypass, "FAILING-TASK: list a missing file, then main.py"], env, proj)
    # Claude Code: projects/<slug>/<session>.jsonl, and a subagent's <session>/subagents/agent-<id>.jsonl
    # with its .meta.json, kept with their paths under the slug; Codex, Gemini CLI: the session files, by name;
    # opencode: a copy of its database and the session's export
    if a.agent == "claude":
        projects = home / ".claude" / "projects"
        found = [(p, Path(*p.relative_to(projects).parts[1:])) for p in sorted(projects.rglob("*")) if p.is_file()]
    elif a.agent == "gemini":
        found = [(p, Path(p.name)) for p in sorted((home / ".gemini" / "tmp").rglob("session-*.json*"))]
    elif a.agent == "opencode":
        found = [(p, Path(p.name)) for p in opencode_captured(a.bin, env, home, proj)]
    else:
        found = [(p, Path(p.name)) for p in sorted((home / ".codex" / "sessions").rglob("*.jsonl"))]
    out = Path(a.out)
    for path, kept in found:
        (out / kept).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, out / kept)
        print(f"captured {path}", file=sys.stderr)
    server.shutdown()
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
