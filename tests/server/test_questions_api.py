"""``GET /api/session/{id}/questions`` and ``POST …/questions/{request_id}/answer``: an MCP server's
question (elicitation) asked in a served session and answered over real HTTP. The asking server is
a real SDK process (``tests/fakes/mcp_asking.py``), the model the fake provider over HTTP."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from agent_tui.server.app import build_app

from .conftest import TOKEN, Api, short

ASKING = Path(__file__).resolve().parents[1] / "fakes" / "mcp_asking.py"


@asynccontextmanager
async def served(open_runtime: Any, fake: Any, timeout_s: float = 120) -> AsyncIterator[Api]:
    """A served runtime whose model calls ``book`` (which asks for a form) once, then ends its turn."""
    server = {"command": [sys.executable, str(ASKING)], "startup_timeout_s": 60, "timeout_s": timeout_s}
    layer = {
        "mcp": {"servers": {"asking": server}},
        "permission": [{"action": "mcp", "pattern": "*", "effect": "allow"}],
    }
    fake.add({"tool_calls": [{"id": "call_1", "name": "mcp__asking__book", "arguments": {}}]}, {"text": "Done."})
    async with await open_runtime(cli=layer, policy=None) as runtime:
        app = build_app(runtime.sessions, TOKEN, settings_for=runtime.settings_for, mcp_status=runtime.mcp_status)
        async with TestClient(TestServer(app)) as client:
            yield Api(client)


async def asked(api: Api, workdir: Path) -> tuple[str, dict[str, Any]]:
    """A session whose tool call is waiting on the server's question: (its id, the question)."""
    sid = await api.create(workdir)
    status, _ = await api.call("POST", f"/api/session/{sid}/prompt", {"prompt": "book a table"})
    assert status in (200, 201, 202)

    async def listed() -> dict[str, Any]:
        while True:
            status, questions = await api.call("GET", f"/api/session/{sid}/questions")
            assert status == 200, questions
            if questions["data"]:
                return questions["data"][0]
            await asyncio.sleep(0.02)

    return sid, await asyncio.wait_for(listed(), 90)


async def outcome(api: Api, sid: str) -> dict[str, dict[str, Any]]:
    await api.wait_event(sid, "execution.succeeded", timeout=90)
    return {short(e["type"]): e["data"] for e in await api.history(sid)}


async def test_a_question_is_listed_with_its_form_and_answered_over_http(
    open_runtime: Any, fake: Any, workdir: Path
) -> None:
    async with served(open_runtime, fake) as api:
        sid, question = await asked(api, workdir)
        assert question["session_id"] == sid and question["server"] == "asking" and question["mode"] == "form"
        assert question["message"] == "Book a table: which day, for how many?"
        schema = question["requested_schema"]
        assert set(schema["properties"]) == {"date", "guests", "vegan", "seat"}
        assert set(schema["required"]) == {"date", "guests"} and question["answer_within_s"] == 120
        rid = question["request_id"]
        status, sent = await api.call(
            "POST",
            f"/api/session/{sid}/questions/{rid}/answer",
            {"action": "accept", "content": {"date": "friday", "guests": "4", "seat": "aisle"}},
        )
        assert status == 200, sent
        assert sent == {
            "request_id": rid,
            "action": "accept",
            "content": {"date": "friday", "guests": 4, "vegan": False, "seat": "aisle"},
        }
        events = await outcome(api, sid)
        status, after = await api.call("GET", f"/api/session/{sid}/questions")
        log = await api.open_log(sid, follow="0")
        streamed = await log.text()
    assert events["tool.success"]["output"]["text"] == "booked friday for 4, vegan=False, seat=aisle"
    assert events["elicitation.answered"]["action"] == "accept" and events["elicitation.answered"]["reason"] is None
    assert status == 200 and after["data"] == []  # closed once answered
    assert "event: session.elicitation.asked" in streamed and "event: session.elicitation.answered" in streamed


async def test_invalid_content_is_a_422_listing_each_problem_and_the_question_stays_open(
    open_runtime: Any, fake: Any, workdir: Path
) -> None:
    async with served(open_runtime, fake) as api:
        sid, question = await asked(api, workdir)
        answer = f"/api/session/{sid}/questions/{question['request_id']}/answer"
        status, refused = await api.call("POST", answer, {"action": "accept", "content": {"guests": "0"}})
        assert status == 422, refused
        assert refused["error"]["type"] == "invalid-content"
        assert refused["error"]["problems"] == ["Date is required", "Guests: at least 1"]
        status, bad_action = await api.call("POST", answer, {"action": "maybe"})
        assert status == 400 and "action" in bad_action["error"]["message"]
        status, still = await api.call("GET", f"/api/session/{sid}/questions")
        assert [q["request_id"] for q in still["data"]] == [question["request_id"]]
        status, declined = await api.call("POST", answer, {"action": "decline"})
        assert status == 200 and declined["action"] == "decline" and declined["content"] is None
        events = await outcome(api, sid)
        status, gone = await api.call("POST", answer, {"action": "decline"})
    assert events["tool.success"]["output"]["text"] == "booking declined"
    assert status == 404 and gone["error"]["type"] == "not-found"


async def test_unknown_sessions_and_questions_are_404(api: Api, workdir: Path) -> None:
    status, missing = await api.call("GET", "/api/session/ses_nope/questions")
    assert status == 404, missing
    sid = await api.create(workdir)
    status, listed = await api.call("GET", f"/api/session/{sid}/questions")
    assert status == 200 and listed == {"data": [], "has_more": False}
    status, unknown = await api.call("POST", f"/api/session/{sid}/questions/ask_nope/answer", {"action": "cancel"})
    assert status == 404 and unknown["error"]["message"] == "no open MCP question ask_nope"


async def test_a_question_nobody_answers_is_declined_after_the_servers_timeout(
    open_runtime: Any, fake: Any, workdir: Path
) -> None:
    async with served(open_runtime, fake, timeout_s=1) as api:
        sid, question = await asked(api, workdir)
        assert question["answer_within_s"] == 1
        events = await outcome(api, sid)
    assert events["elicitation.answered"]["action"] == "decline"
    assert events["elicitation.answered"]["reason"] == "no answer over HTTP within 1 s"
    assert events["tool.success"]["output"]["text"] == "booking declined"


async def test_the_document_describes_the_answers_422_and_its_problems(api: Api) -> None:
    status, doc = await api.call("GET", "/api/openapi.json")
    assert status == 200
    answer = doc["paths"]["/api/session/{id}/questions/{request_id}/answer"]["post"]
    assert "422" in answer["responses"] and "422" not in doc["paths"]["/api/session/{id}/questions"]["get"]["responses"]
    assert doc["components"]["schemas"]["ErrorBody"]["properties"]["problems"]["anyOf"][0]["type"] == "array"
    body = doc["components"]["schemas"]["QuestionAnswerBody"]
    assert body["properties"]["action"]["enum"] == ["accept", "decline", "cancel"] and body["required"] == ["action"]
