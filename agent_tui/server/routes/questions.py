"""MCP servers' questions to the user (elicitation) in a session, and their answers over HTTP."""

from __future__ import annotations

from aiohttp import web

from agent_tui.core.api import OpenQuestion, UnknownElicitation
from agent_tui.server.bodies import Question, QuestionAnswer, QuestionAnswerBody, QuestionList
from agent_tui.server.parse import body
from agent_tui.server.respond import reply
from agent_tui.server.state import sessions
from agent_tui.server.table import RouteTable
from agent_tui.vocab.elicitation import ElicitationRequest

routes = RouteTable()


def _shown(question: OpenQuestion[ElicitationRequest]) -> Question:
    asked = question.request
    return Question(
        request_id=question.request_id,
        session_id=question.session_id,
        server=asked.server,
        mode=asked.mode,
        message=asked.message,
        requested_schema=asked.schema,
        url=asked.url,
        answer_within_s=asked.answer_within_s,
    )


@routes.get("/api/session/{id}/questions", response=QuestionList)
async def open_questions(request: web.Request) -> web.Response:
    """The questions MCP servers are asking in this session's running tool calls, with their forms.

    Each waits for an answer (``POST …/questions/{request_id}/answer``) until its
    ``answer_within_s``, then is declined; ``session.elicitation.asked`` / ``.answered`` in the log
    say when one opens and closes."""
    sid = request.match_info["id"]
    facade = sessions(request)
    await facade.get(sid)  # an unknown session is a 404, not an empty list
    return reply(QuestionList(data=[_shown(question) for question in facade.asks.open_elicitations(sid)]))


@routes.post(
    "/api/session/{id}/questions/{request_id}/answer",
    body=QuestionAnswerBody,
    response=QuestionAnswer,
    unprocessable=True,
)
async def answer_question(request: web.Request) -> web.Response:
    """Answer a question: accept (with a form's values, checked like the TUI's dialog: a 422 lists
    each that does not fit, and the question stays open), decline or cancel."""
    sid, request_id = request.match_info["id"], request.match_info["request_id"]
    spec = await body(request, QuestionAnswerBody)
    facade = sessions(request)
    await facade.get(sid)
    if not any(question.request_id == request_id for question in facade.asks.open_elicitations(sid)):
        raise UnknownElicitation(request_id)
    sent = facade.asks.answer_elicitation(request_id, spec.action, spec.content)
    return reply(QuestionAnswer(request_id=request_id, action=sent.action, content=sent.content))
