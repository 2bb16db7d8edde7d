"""The session's structured answer: the newest accepted ``final_answer`` (a prompt's ``output_schema``)."""

from __future__ import annotations

from aiohttp import web

from agent_tui.server.bodies import AnswerQuery, StructuredAnswer
from agent_tui.server.parse import query
from agent_tui.server.respond import reply
from agent_tui.server.state import sessions
from agent_tui.server.table import RouteTable

routes = RouteTable()


@routes.get("/api/session/{id}/answer", query=AnswerQuery, response=StructuredAnswer)
async def answer(request: web.Request) -> web.Response:
    """The newest answer accepted after log position ``after`` (default 0): ``{session_id, seq, call_id,
    value}``; none yet is ``seq`` 0. It is also the ``tool.success`` of ``final_answer`` in ``/log``."""
    sid = request.match_info["id"]
    found = await sessions(request).answers.structured(sid, query(request, AnswerQuery).after)
    if found is None:
        return reply(StructuredAnswer(session_id=sid, seq=0))
    return reply(StructuredAnswer(session_id=sid, seq=found.seq, call_id=found.call_id, value=found.value))
