"""What a session answered its caller, for headless callers: one object, the facade's ``answers``.

``run``, ``mcp serve`` and the HTTP API hand back a turn's answer: the newest
assistant text (``text``), or, when the caller asked for a JSON Schema
(``require``), the structured answer that matched it (``structured``). The
schema is process state, like the approval mode: it is the caller's contract
for its run, while what the run produced is in the log. The room sits below the
store, so what of the store it reads is a Protocol (``AnswerReads``) the store
meets, and a session it names is read with the facade's ``get``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from agent_tui.core.errors import InvalidRequest
from agent_tui.core.log.records import MessageRecord, SessionRecord, ToolCallRecord
from agent_tui.core.request.structured import FinalAnswer, final_answer, text_answer
from agent_tui.tools.final_answer import InvalidSchema, OutputSchema, checked_schema


class AnswerReads(Protocol):
    """What of the store an answer is read from."""

    async def messages(self, session_id: str) -> list[MessageRecord]: ...

    async def tool_calls(self, session_id: str, states: Sequence[str] | None = None) -> list[ToolCallRecord]: ...


class Answers:
    """The output schema each session must answer to here, and its answers read back from the log."""

    def __init__(self, store: AnswerReads, get: Callable[[str], Awaitable[SessionRecord]]) -> None:
        self._store = store
        self._session = get  # the facade's ``get``: the session's row, or ``UnknownSession``
        self._outputs: dict[str, OutputSchema] = {}

    def require(self, session_id: str, schema: dict[str, Any] | None, *, forced: bool = False) -> None:
        """From the session's next step its final answer must match the JSON Schema ``schema``: the
        steps offer a ``final_answer`` tool whose accepted call ends the turn (:meth:`structured`
        reads it); ``forced``: every step must call it (the repair); None: no longer required.
        Raises InvalidRequest when ``schema`` is not a valid JSON Schema."""
        if schema is None:
            self._outputs.pop(session_id, None)
            return
        try:
            self._outputs[session_id] = OutputSchema(checked_schema(schema), forced=forced)
        except InvalidSchema as error:
            raise InvalidRequest(f"invalid output schema: {error}") from None

    def required(self, session_id: str) -> OutputSchema | None:
        """What :meth:`require` asks of the session here; None: a free-form answer."""
        return self._outputs.get(session_id)

    async def structured(self, session_id: str, after: int = 0) -> FinalAnswer | None:
        """The newest accepted ``final_answer`` recorded after log position ``after``, or in JSON mode
        (a model without function calling) the newest assistant text there if it is JSON matching the
        schema :meth:`require` set; None if neither."""
        await self._session(session_id)
        called = final_answer(await self._store.tool_calls(session_id, ["success"]), after)
        output = self._outputs.get(session_id)
        written = None if output is None else text_answer(await self._store.messages(session_id), output, after)
        answers = [answer for answer in (called, written) if answer is not None]
        return max(answers, key=lambda answer: answer.seq, default=None)

    async def text(self, session_id: str, input_id: str | None = None) -> str:
        """The text of the newest assistant message after the prompt ``input_id`` (None: the last
        prompt): what a headless caller (``run``, ``mcp serve``) hands back as the answer; "" if none."""
        await self._session(session_id)
        messages = await self._store.messages(session_id)
        if input_id is None:
            input_id = next((m.id for m in reversed(messages) if m.kind == "user"), None)
        start = next((i for i, m in enumerate(messages) if m.id == input_id), None)
        if start is None:
            return ""
        for message in reversed(messages[start + 1 :]):
            if message.kind == "assistant":
                parts = message.data.get("parts", [])
                texts = [p["text"] for p in parts if p.get("type") == "text" and p.get("text")]
                if texts:
                    return "\n\n".join(texts)
        return ""
