"""MCP servers' questions to the user (elicitation), asked mid tool call and answered by a front end.

Like a permission ask, a question is recorded (``session.elicitation.asked``)
and so is its answer (``session.elicitation.answered``); the tool call waits
meanwhile. Unlike one, a question lives only while its call does, in this
process: a front end that can answer (the TUI, the HTTP server of ``serve``)
``watch``es for them and calls ``answer``; with no one watching (``run``) the
question is declined at once, the reason in the log (``run`` prints it on stderr). A call that ends
first (interrupted) cancels its open questions, recorded the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from agent_tui.core.host.open_asks import CALL_ENDED, HEADLESS, OpenAsks
from agent_tui.core.host.open_asks import OpenQuestion as OpenQuestion
from agent_tui.core.log import events as ev
from agent_tui.core.log.ids import new_id
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.vocab.elicitation import ACTIONS, ElicitationAnswer, ElicitationRequest, form_fields, validate

__all__ = ["CALL_ENDED", "HEADLESS", "Elicit", "Elicitations", "InvalidAnswer", "OpenQuestion", "UnknownElicitation"]

Elicit = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]


class UnknownElicitation(LookupError):
    def __init__(self, request_id: str) -> None:
        super().__init__(f"no open MCP question {request_id}")


class InvalidAnswer(ValueError):
    """An answer that does not fit the question: a bad action, or a form's values that fail its
    schema (``problems``: one line per field that does not fit)."""

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems


class Elicitations(OpenAsks[ElicitationRequest, ElicitationAnswer]):
    """The open questions of this process, and who is watching for them."""

    def asker(self, publish: SessionPublisher, assistant_message_id: str | None, call_id: str | None) -> Elicit:
        """The ``elicit`` of one tool call: records each question and its answer."""

        async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
            request_id = new_id("ask")
            await publish(
                ev.ElicitationAsked(
                    request_id=request_id,
                    assistant_message_id=assistant_message_id,
                    call_id=call_id,
                    server=request.server,
                    mode=request.mode,
                    message=request.message,
                    requested_schema=request.schema,
                    url=request.url,
                )
            )
            try:
                answer = await self._wait(
                    OpenQuestion(publish.session_id, request_id, request), ElicitationAnswer("decline", reason=HEADLESS)
                )
            except asyncio.CancelledError:  # the call ended first: the log says so, the cancellation goes on
                await publish(ev.ElicitationAnswered(request_id=request_id, action="cancel", reason=CALL_ENDED))
                raise
            await publish(
                ev.ElicitationAnswered(
                    request_id=request_id, action=answer.action, content=answer.content, reason=answer.reason
                )
            )
            return answer

        return elicit

    def answer(
        self, request_id: str, action: str, content: dict[str, object] | None = None, reason: str | None = None
    ) -> ElicitationAnswer:
        """The user's answer (what is sent back: a form's accepted values checked against its
        schema first); ``reason``: why it was answered for the user (in the log)."""
        found = self._open.get(request_id)
        if found is None:
            raise UnknownElicitation(request_id)
        question, future = found
        if action not in ACTIONS:
            raise InvalidAnswer(f"an answer is accept, decline or cancel, not {action!r}")
        checked = None
        if action == "accept" and question.request.mode == "form":
            checked, problems = validate(form_fields(question.request.schema), dict(content or {}))
            if problems:
                raise InvalidAnswer("; ".join(problems), tuple(problems))
        answer = ElicitationAnswer(action, checked, reason)
        if not future.done():
            future.set_result(answer)
        return answer
