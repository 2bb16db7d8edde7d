"""An MCP server's question to the user (elicitation): what is asked, the form's fields, checking the answers.

Shared by every layer: the MCP connection (tools) turns the SDK's request
into an ``ElicitationRequest``, core records it (``session.elicitation.asked``)
and waits for an ``ElicitationAnswer``, the TUI's dialog renders ``form_fields``
and checks what was typed with ``validate``. Only the schema's primitive fields
(string, number, integer, boolean, enum) exist in the protocol; anything else
is shown as a string. No pydantic, no Textual.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

Action = Literal["accept", "decline", "cancel"]
ACTIONS: tuple[Action, ...] = ("accept", "decline", "cancel")


@dataclass(frozen=True)
class ElicitationRequest:
    """What a server asks: a form (``schema``) or a page to open (``url``)."""

    server: str
    message: str
    mode: Literal["form", "url"] = "form"
    schema: dict[str, Any] = field(default_factory=dict)
    url: str | None = None
    answer_within_s: float | None = None
    """How long a front end that may have no one at it (``agent-tui serve``) waits for an answer
    before declining: the asking server's ``timeout_s``. The TUI's user takes their time."""


@dataclass(frozen=True)
class ElicitationAnswer:
    """The user's answer: ``content`` only with ``accept`` of a form."""

    action: Action
    content: dict[str, Any] | None = None
    reason: str | None = None
    """Why it was declined without asking anyone (a headless run), for the log and the line on stderr."""


@dataclass(frozen=True)
class FormField:
    """One field of a form: ``kind`` is string, number, integer, boolean or enum."""

    name: str
    kind: str
    title: str
    description: str = ""
    required: bool = False
    options: tuple[str, ...] = ()
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None


def form_fields(schema: dict[str, Any]) -> list[FormField]:
    """The schema's properties in order, each as a primitive field."""
    required = set(schema.get("required") or ())
    out = []
    for name, spec in (schema.get("properties") or {}).items():
        spec = spec if isinstance(spec, dict) else {}
        options = tuple(str(v) for v in spec.get("enum") or ()) or tuple(
            str(o.get("const")) for o in spec.get("oneOf") or () if isinstance(o, dict) and "const" in o
        )
        kind = "enum" if options else str(spec.get("type") or "string")
        if kind not in ("string", "number", "integer", "boolean", "enum"):
            kind = "string"
        out.append(
            FormField(
                name=name,
                kind=kind,
                title=str(spec.get("title") or name),
                description=str(spec.get("description") or ""),
                required=name in required,
                options=options,
                default=spec.get("default"),
                minimum=spec.get("minimum"),
                maximum=spec.get("maximum"),
                min_length=spec.get("minLength"),
                max_length=spec.get("maxLength"),
            )
        )
    return out


def _number(f: FormField, text: str) -> tuple[Any, str | None]:
    try:
        value: float | int = int(text) if f.kind == "integer" else float(text)
    except ValueError:
        return None, f"{f.title}: {'a whole number' if f.kind == 'integer' else 'a number'} is needed"
    if isinstance(value, float) and not math.isfinite(value):
        return None, f"{f.title}: a finite number is needed"
    if f.minimum is not None and value < f.minimum:
        return None, f"{f.title}: at least {f.minimum:g}"
    if f.maximum is not None and value > f.maximum:
        return None, f"{f.title}: at most {f.maximum:g}"
    return value, None


def _check(f: FormField, raw: Any) -> tuple[Any, str | None]:
    """(the value to send, None) or (None, why not); an empty optional field is left out (value None)."""
    if f.kind == "boolean":
        return bool(raw), None
    text = "" if raw is None else str(raw).strip()
    if not text:
        return None, (f"{f.title} is required" if f.required else None)
    if f.kind == "enum":
        return (text, None) if text in f.options else (None, f"{f.title}: one of {', '.join(f.options)}")
    if f.kind in ("number", "integer"):
        return _number(f, text)
    if f.min_length is not None and len(text) < f.min_length:
        return None, f"{f.title}: at least {f.min_length} characters"
    if f.max_length is not None and len(text) > f.max_length:
        return None, f"{f.title}: at most {f.max_length} characters"
    return text, None


def validate(fields: list[FormField], raw: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The typed values (text, or a bool for a checkbox) as the content to send, and one line per problem."""
    content: dict[str, Any] = {}
    problems: list[str] = []
    for f in fields:
        value, problem = _check(f, raw.get(f.name))
        if problem is not None:
            problems.append(problem)
        elif value is not None:
            content[f.name] = value
    return content, problems
