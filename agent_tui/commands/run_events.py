"""The lines ``agent-tui run --format json`` prints, and the JSON Schema that describes every one.

Two kinds of line, one JSON object each: a durable event as ``agent-tui log`` prints it, with the
session id first (``{session_id, seq, type, created, data}``), and a live delta marked
``"live": true`` (``{live, session_id, kind, …}``). The schema is generated from the event models,
so it cannot drift from what is printed; ``docs/run-events.schema.json`` is its published copy
(``python -m agent_tui.commands.run_events`` writes it; a test keeps the copy equal).
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.vocab.terminal_text import inert_json

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SKIPPED_LIVE = frozenset({"head"})
"""Live kinds ``run`` never prints: a store notification, not an event of the run."""


def durable_line(stored: Any) -> str:
    """One stored event as its line: control characters as ``\\u`` escapes, the value unchanged."""
    return inert_json(stored.to_json_line(with_session=True))


def live_line(event: Any) -> str | None:
    """One live event as its line; None for a kind ``run`` does not print."""
    if event.kind in SKIPPED_LIVE:
        return None
    return inert_json(json.dumps({"live": True, **event.model_dump(mode="json")}, ensure_ascii=False))


def run_events_schema() -> dict[str, Any]:
    """A draft 2020-12 schema every printed line validates against: the envelope is closed, the
    event type or live kind is one this build prints, and ``data`` (or the live fields) follows
    that event's model. Every field is required: a line carries each field, null when unset."""
    from pydantic.json_schema import models_json_schema

    from agent_tui.core.api import events as ev

    durable = list(ev.DURABLE_EVENTS)
    live = [cls for cls in ev.LIVE_EVENTS if cls.model_fields["kind"].default not in SKIPPED_LIVE]
    _, top = models_json_schema([(cls, "serialization") for cls in [*durable, *live]], ref_template="#/$defs/{model}")
    defs: dict[str, Any] = top["$defs"]
    for model in defs.values():
        if "properties" in model:
            model["required"] = sorted(model["properties"])
    by_type = {cls.TYPE: cls.__name__ for cls in durable}
    by_kind = {cls.model_fields["kind"].default: cls.__name__ for cls in live}
    defs["durable"] = {
        "description": "A stored event, as `agent-tui log` prints it, with its session id.",
        "type": "object",
        "properties": {
            "session_id": {"type": "string"},
            "seq": {"type": "integer", "minimum": 1},
            "type": {"enum": sorted(by_type)},
            "created": {"type": "integer", "description": "milliseconds since the epoch"},
            "data": {"type": "object"},
        },
        "required": ["session_id", "seq", "type", "created", "data"],
        "additionalProperties": False,
        "allOf": [_when("type", name, {"data": {"$ref": f"#/$defs/{model}"}}) for name, model in by_type.items()],
    }
    defs["live"] = {
        "description": "A live delta: not stored, printed as it streams.",
        "type": "object",
        "properties": {"live": {"const": True}, "session_id": {"type": "string"}, "kind": {"enum": sorted(by_kind)}},
        "required": ["live", "session_id", "kind"],
        "allOf": [_when("kind", kind, {}, ref=f"#/$defs/{model}") for kind, model in by_kind.items()],
    }
    return {
        "$schema": DRAFT,
        "title": "agent-tui run --format json: one line",
        "description": "Each line `agent-tui run --format json` writes to stdout is one JSON object: "
        "a durable event or a live delta.",
        "oneOf": [{"$ref": "#/$defs/durable"}, {"$ref": "#/$defs/live"}],
        "$defs": dict(sorted(defs.items())),
    }


def _when(key: str, value: str, then: dict[str, Any], ref: str | None = None) -> dict[str, Any]:
    """``if key == value then …``: the event's own schema once its type (or kind) is known."""
    rule: dict[str, Any] = {"properties": then} if then else {}
    if ref is not None:
        rule["$ref"] = ref
    return {"if": {"properties": {key: {"const": value}}, "required": [key]}, "then": rule}


def schema_text() -> str:
    """The schema as the published file holds it."""
    return json.dumps(run_events_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(schema_text())
