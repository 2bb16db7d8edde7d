"""A fake-provider responder that answers each session from its own script.

A parent and its subagents send interleaved requests; each session is told apart
by the text of its first prompt (``needle``), and answered by the turn at the index
of the number of assistant turns its request already holds, so the order in which
the sessions' requests arrive does not matter.
"""

from __future__ import annotations

from typing import Any


def _text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def first_prompt(body: dict[str, Any]) -> str:
    for message in body.get("messages", []):
        text = _text(message)
        if message.get("role") == "user" and not text.startswith("<system-reminder>"):
            return text
    return ""


class Routes:
    """``FakeProvider(responder=routes)``; ``routes.add(needle, turn, turn, ...)``."""

    def __init__(self) -> None:
        self._routes: list[tuple[str, list[dict[str, Any]]]] = []
        self.seen: list[str] = []  # the needle each request was routed by, in arrival order

    def add(self, needle: str, *turns: dict[str, Any]) -> None:
        self._routes.append((needle, list(turns)))

    def __call__(self, record: Any) -> dict[str, Any]:
        body = record.body
        prompt = first_prompt(body)
        for needle, turns in self._routes:
            if needle in prompt:
                self.seen.append(needle)
                done = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
                return turns[min(done, len(turns) - 1)]
        return {"error": {"status": 400, "kind": "invalid_request", "message": f"no route for {prompt[:80]!r}"}}


def task_call(
    call_id: str, prompt: str, agent: str = "general", description: str = "look something up"
) -> dict[str, Any]:
    """A scripted ``task`` tool call (the model hands ``prompt`` to the subagent ``agent``)."""
    arguments = {"agent": agent, "description": description, "prompt": prompt}
    return {"id": call_id, "name": "task", "arguments": arguments}
