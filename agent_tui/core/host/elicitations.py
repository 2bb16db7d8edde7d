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
from dataclasses import dataclass, field

from agent_tui.core.log import events as ev
from agent_tui.core.log.ids import new_id
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.vocab.elicitation import ACTIONS, ElicitationAnswer, ElicitationRequest, form_fields, validate

HEADLESS = "no one to answer: agent-tui runs headless"
CALL_ENDED = "the tool call ended before an answer"

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


@dataclass(frozen=True)
class OpenQuestion:
    """What a watcher is shown: which session asks, the question's id, the question; ``ended`` is set
    once it is answered or its call ended (a dialog still open for it then closes)."""

    session_id: str
    request_id: str
    request: ElicitationRequest
    ended: asyncio.Event = field(default_factory=asyncio.Event, compare=False, repr=False)


Watcher = Callable[[OpenQuestion], None]


class Elicitations:
    """The open questions of this process, and who is watching for them."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[OpenQuestion, asyncio.Future[ElicitationAnswer]]] = {}
        self._watchers: list[Watcher] = []

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Show ``watcher`` each new question (and those open now); returns the function that stops it."""
        self._watchers.append(watcher)
        for question, _ in list(self._open.values()):
            watcher(question)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def open(self, session_id: str | None = None) -> list[OpenQuestion]:
        return [q for q, _ in self._open.values() if session_id is None or q.session_id == session_id]

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
                answer = await self._wait(OpenQuestion(publish.session_id, request_id, request))
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

    async def _wait(self, question: OpenQuestion) -> ElicitationAnswer:
        if not self._watchers:
            return ElicitationAnswer("decline", reason=HEADLESS)
        future: asyncio.Future[ElicitationAnswer] = asyncio.get_running_loop().create_future()
        self._open[question.request_id] = (question, future)
        try:
            for watcher in list(self._watchers):
                watcher(question)
            return await future
        finally:
            self._open.pop(question.request_id, None)
            question.ended.set()

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
