"""The OpenAPI 3.1 document, generated from the route table and its pydantic models.

Nothing here is written by hand per route: paths, parameters, bodies and
responses come from each ``Route`` and the JSON Schemas pydantic derives from
its models, so a changed model or a new route shows up in the document.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import JsonSchemaMode

from agent_tui import __version__
from agent_tui.server.bodies import ID_PATTERN, ErrorResponse
from agent_tui.server.guards import ID_PARAMS
from agent_tui.server.table import ANY_JSON, Route

REF = "#/components/schemas/{model}"
_ERROR_REF = {"$ref": REF.format(model=ErrorResponse.__name__)}
_DESCRIPTIONS = {200: "OK", 201: "Created", 202: "Accepted", 204: "No Content"}
_SSE_EVENT = {
    "description": "One Server-Sent Event (OpenAPI 3.1: the schema describes each event). Durable events carry "
    "`id: <seq>` and their type as `event`; then one `log.synced`; with `deltas=1`, `delta` events "
    "without an id. `data` is JSON: a durable event as `agent-tui log` prints it.",
    "type": "object",
    "required": ["data"],
    "properties": {
        "event": {"type": "string"},
        "data": {"type": "string", "contentMediaType": "application/json"},
        "id": {"type": "string", "pattern": "^[0-9]+$"},
    },
}
_ERRORS = {
    400: "invalid-request",
    401: "unauthorized (missing or wrong token)",
    404: "not-found",
    409: "conflict or owned-elsewhere",
    413: "too-large",
    415: "unsupported-media-type (a body that is not JSON)",
    421: "misdirected (a Host that is not this loopback server)",
    422: "invalid-content (well-formed, but the values do not fit: `problems` lists each)",
    500: "internal, store or config",
    503: "unavailable (the database is locked)",
}


@functools.lru_cache(maxsize=8)
def document(routes: tuple[Route, ...]) -> dict[str, Any]:
    """The whole document for ``routes`` (cached: the table never changes while serving)."""
    refs, schemas = _schemas(routes)
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        paths.setdefault(route.template, {})[route.method.lower()] = _operation(route, refs)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "agent-tui",
            "version": __version__,
            "description": 'The local HTTP API of `agent-tui serve`. Every error is `{"error": {"type", "message"}}` (a 422 adds `problems`).',
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The token `agent-tui serve` prints and writes to "
                    "server.json (or AGENT_TUI_SERVER_TOKEN).",
                }
            },
        },
        "security": [{"bearer": []}],
    }


def _schemas(routes: Iterable[Route]) -> tuple[dict[tuple[Any, str], Any], dict[str, Any]]:
    """One pydantic pass over every body and response type: ``(refs by (type, mode), components)``."""
    inputs: dict[tuple[Any, JsonSchemaMode], TypeAdapter[Any]] = {}

    def add(kind: Any, mode: JsonSchemaMode) -> None:
        if kind is not None and kind is not ANY_JSON and (kind, mode) not in inputs:
            inputs[kind, mode] = TypeAdapter(kind)

    add(ErrorResponse, "serialization")
    for route in routes:
        add(route.body, "validation")
        add(route.response, "serialization")
    refs, definitions = TypeAdapter.json_schemas(
        [(kind, mode, adapter) for (kind, mode), adapter in inputs.items()], ref_template=REF
    )
    return dict(refs), dict(definitions.get("$defs", {}))


def _operation(route: Route, refs: dict[tuple[Any, str], Any]) -> dict[str, Any]:
    doc = inspect.getdoc(route.handler) or ""
    op: dict[str, Any] = {
        "operationId": f"{route.handler.__module__.rsplit('.', 1)[-1]}.{route.handler.__name__}",
        "summary": doc.split("\n\n", 1)[0].replace("\n", " ") or route.handler.__name__,
        "tags": [route.handler.__module__.rsplit(".", 1)[-1]],
        "parameters": _path_params(route) + _query_params(route.query),
        "responses": _responses(route, refs),
    }
    if route.public:
        op["security"] = []
    if route.body is not None:
        schema = {} if route.body is ANY_JSON else refs[route.body, "validation"]
        op["requestBody"] = {"required": not route.body_optional, "content": {"application/json": {"schema": schema}}}
    if not op["parameters"]:
        del op["parameters"]
    return op


def _path_params(route: Route) -> list[dict[str, Any]]:
    return [{"name": name, "in": "path", "required": True, "schema": _path_schema(name)} for name in route.params]


def _path_schema(name: str) -> dict[str, Any]:
    """An id parameter is described by the rule ``guards`` enforces; other parameters are any text."""
    if name in ID_PARAMS:
        return {"type": "string", "pattern": ID_PATTERN}
    return {"type": "string", "minLength": 1}


def _query_params(model: type[BaseModel] | None) -> list[dict[str, Any]]:
    """Each field of the query model; an optional field is simply left out, never sent as null."""
    if model is None:
        return []
    schema = model.model_json_schema(ref_template=REF)
    required = set(schema.get("required", ()))
    params = []
    for name, prop in schema.get("properties", {}).items():
        prop = {key: value for key, value in prop.items() if key != "title" and (key, value) != ("default", None)}
        variants = [v for v in prop.pop("anyOf", ()) if v.get("type") != "null"]
        if len(variants) == 1:
            prop = {**variants[0], **prop}
        params.append({"name": name, "in": "query", "required": name in required, "schema": prop})
    return params


def _responses(route: Route, refs: dict[tuple[Any, str], Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for status in route.statuses:
        entry: dict[str, Any] = {"description": _DESCRIPTIONS.get(status, "Success")}
        if route.stream:
            entry["content"] = {"text/event-stream": {"schema": _SSE_EVENT}}
        elif route.response is not None:
            entry["content"] = {"application/json": {"schema": refs[route.response, "serialization"]}}
        out[str(status)] = entry
    for status in _error_statuses(route):
        out[str(status)] = {
            "description": f"error: {_ERRORS[status]}",
            "content": {"application/json": {"schema": _ERROR_REF}},
        }
    return out


def _error_statuses(route: Route) -> list[int]:
    """The refusals ``errors.py`` can produce for this route."""
    if route.public:
        return [421, 500]
    statuses = [400, 401, 421]
    if route.params:
        statuses.append(404)
    if route.conflicts:
        statuses.append(409)
    if route.body is not None:
        statuses += [413, 415]
    if route.unprocessable:
        statuses.append(422)
    return statuses + [500, 503]
