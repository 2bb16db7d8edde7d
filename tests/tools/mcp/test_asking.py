"""Prompts and elicitation against a real SDK server (``tests/fakes/mcp_asking.py``), in both protocol eras."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_tui.tools.mcp.connection import McpConnection
from agent_tui.vocab.elicitation import ElicitationAnswer, ElicitationRequest, form_fields
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig

ASKING = Path(__file__).resolve().parents[2] / "fakes" / "mcp_asking.py"
ERAS = pytest.mark.parametrize("legacy", [False, True], ids=["2026", "2025-handshake"])


def asking_config(legacy: bool = False) -> McpServerConfig:
    return McpServerConfig(command=[sys.executable, str(ASKING), *(["legacy"] if legacy else [])], startup_timeout_s=60)


async def _started(workdir: Path, legacy: bool) -> McpConnection:
    connection = McpConnection("asking", asking_config(legacy), workdir)
    connection.start()
    await connection.settled()
    assert connection.state is McpState.READY, connection.error
    return connection


@ERAS
async def test_prompts_are_listed_with_their_arguments_expanded_and_completed(workdir: Path, legacy: bool) -> None:
    connection = await _started(workdir, legacy)
    try:
        (review,) = connection.prompts
        assert review.command == "mcp__asking__review"
        assert [(a.name, a.required) for a in review.arguments] == [("path", True), ("focus", False)]
        assert review.fill("focus=style") == ({"focus": "style"}, [review.arguments[0]])
        given, missing = review.fill("src/app.py speed")
        assert (given, missing) == ({"path": "src/app.py", "focus": "speed"}, [])
        assert await connection.prompt("review", given) == "Please review src/app.py, looking for speed."
        assert await connection.complete("review", "focus", "s") == ["style", "speed"]
    finally:
        await connection.stop()


@ERAS
@pytest.mark.parametrize("action", ["accept", "decline", "cancel"])
async def test_a_form_question_reaches_the_calls_elicit_and_its_answer_the_server(
    workdir: Path, legacy: bool, action: str
) -> None:
    asked: list[ElicitationRequest] = []

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        content = {"date": "friday", "guests": 3, "vegan": True, "seat": "aisle"} if action == "accept" else None
        return ElicitationAnswer(action, content)  # type: ignore[arg-type]

    connection = await _started(workdir, legacy)
    try:
        result = await connection.call("book", {}, elicit=elicit)
        (request,) = asked
        assert request.mode == "form" and request.server == "asking"
        assert [(f.name, f.kind, f.required) for f in form_fields(request.schema)] == [
            ("date", "string", True),
            ("guests", "integer", True),
            ("vegan", "boolean", False),
            ("seat", "enum", False),
        ]
        expected = {
            "accept": "booked friday for 3, vegan=True, seat=aisle",
            "decline": "booking declined",
            "cancel": "booking cancelled",
        }[action]
        assert result.content[0].text == expected
    finally:
        await connection.stop()


@ERAS
async def test_a_question_without_anyone_to_ask_is_declined(workdir: Path, legacy: bool) -> None:
    connection = await _started(workdir, legacy)
    try:
        assert (await connection.call("book", {})).content[0].text == "booking declined"
    finally:
        await connection.stop()


async def test_a_url_question_carries_its_link(workdir: Path) -> None:
    connection = await _started(workdir, legacy=True)
    asked: list[ElicitationRequest] = []

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer("accept")

    try:
        assert (await connection.call("visit", {}, elicit=elicit)).content[0].text == "visit accept"
        assert [(r.mode, r.url, r.message) for r in asked] == [
            ("url", "https://example.com/login", "Sign in to continue")
        ]
    finally:
        await connection.stop()
