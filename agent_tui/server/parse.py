"""Turn a request's JSON body or query string into a validated model, or one clear 400."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

from agent_tui.server.errors import ApiError, bad_request

M = TypeVar("M", bound=BaseModel)


def _describe(error: ValidationError, where: str) -> str:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or where
    if first["type"] == "extra_forbidden":
        return f"unknown {where} field {field}"
    return f"{where} field {field}: {first['msg']}"


MAX_DEPTH = 64
"""Deeper JSON is refused: no body of this API nests more than a few levels, and a value
nested thousands deep would exhaust the recursion of whatever walks it next."""


def _check_content_type(request: web.Request) -> None:
    """JSON, or no ``Content-Type`` at all; a form or text body is a 415, not a guess."""
    given = request.headers.get("Content-Type")
    if given is None:
        return
    kind = request.content_type
    if kind != "application/json" and not kind.endswith("+json"):
        raise ApiError(415, f"the request body must be application/json, not {given[:80]!r}")


async def json_value(request: web.Request) -> Any:
    """The body as JSON (any value); an empty, malformed or too deeply nested body is a 400."""
    _check_content_type(request)
    raw = await request.read()
    if not raw.strip():
        raise bad_request("the request body is empty; send JSON")
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as error:
        raise bad_request(f"the request body is not valid JSON: {error}") from None
    except RecursionError:
        raise bad_request(f"the request body nests deeper than {MAX_DEPTH} levels") from None
    if _depth(value) > MAX_DEPTH:
        raise bad_request(f"the request body nests deeper than {MAX_DEPTH} levels")
    _check_text(value)
    return value


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest (a scalar is 0), without recursing."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if level <= MAX_DEPTH:
            stack.extend((child, level + 1) for child in children)
    return deepest


def _check_text(value: Any) -> None:
    """JSON may escape a lone surrogate (``"\\ud800"``); no UTF-8 text holds one, so neither
    SQLite nor a response could: refuse it here rather than store what cannot be read back."""
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except UnicodeEncodeError as error:
        raise bad_request(f"the request body is not valid JSON: {error.reason} in a string") from None


async def body(request: web.Request, model: type[M], *, optional: bool = False) -> M:
    """The body validated as ``model``; with ``optional`` an empty body means all defaults."""
    if optional and not (await request.read()).strip():
        return model()
    value = await json_value(request)
    if not isinstance(value, dict):
        raise bad_request("the request body must be a JSON object")
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise bad_request(_describe(error, "body")) from None


def query(request: web.Request, model: type[M]) -> M:
    values: dict[str, str] = {}
    for key, value in request.query.items():
        if key in values:
            raise bad_request(f"query parameter {key} is given twice")
        values[key] = value
    try:
        return model.model_validate(values)
    except ValidationError as error:
        raise bad_request(_describe(error, "query")) from None
