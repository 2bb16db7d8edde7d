"""What MCP servers ask the user during tool calls, in this process: one object for the front ends.

The facade holds one ``McpAsks`` (``Sessions.asks``): a front end that can
answer (the TUI, ``serve``'s HTTP routes) watches for the questions
(elicitation) and the sampling requests and answers them by id; the runtime
hands each tool call its askers (``elicitations.asker``, ``samplings.asker``).
Neither kind is stored as state: a question lives while its call does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_tui.core.errors import InvalidRequest
from agent_tui.core.host.elicitations import Elicitations, InvalidAnswer, OpenQuestion
from agent_tui.core.host.samplings import Samplings
from agent_tui.vocab.elicitation import ElicitationAnswer


class McpAsks:
    """MCP servers' open questions (``elicitations``) and sampling requests (``samplings``)."""

    def __init__(self) -> None:
        self.elicitations = Elicitations()
        self.samplings = Samplings()

    def watch_elicitations(self, watcher: Callable[[OpenQuestion[Any]], None]) -> Callable[[], None]:
        """Show ``watcher`` each question an MCP server asks during a tool call, from now (and those
        open now); while anyone watches, questions wait for :meth:`answer_elicitation`, else they are
        declined at once. Returns the function that stops watching."""
        return self.elicitations.watch(watcher)

    def open_elicitations(self, session_id: str | None = None) -> list[OpenQuestion[Any]]:
        return self.elicitations.open(session_id)

    def answer_elicitation(
        self, request_id: str, action: str, content: dict[str, Any] | None = None, reason: str | None = None
    ) -> ElicitationAnswer:
        """Answer a question: accept (a form's values, checked against its schema), decline or cancel;
        returns what the server is sent. Raises ``UnknownElicitation`` for one not open,
        ``InvalidRequest`` (with its ``problems``) for an answer that does not fit."""
        try:
            return self.elicitations.answer(request_id, action, content, reason)
        except InvalidAnswer as error:
            raise InvalidRequest(str(error), error.problems) from None

    def watch_samplings(self, watcher: Callable[[OpenQuestion[Any]], None]) -> Callable[[], None]:
        """Like :meth:`watch_elicitations`, for MCP servers' sampling requests (approved or declined by
        :meth:`answer_sampling`; unwatched, declined at once)."""
        return self.samplings.watch(watcher)

    def answer_sampling(self, request_id: str, approve: bool) -> None:
        """Approve (the session's model answers the server) or decline; ``UnknownSampling`` for one not open."""
        self.samplings.answer(request_id, approve)
