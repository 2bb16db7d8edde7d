"""The OpenAPI document: generated from the route table, public, and complete."""

from __future__ import annotations

from typing import Any

from agent_tui.server import routes
from agent_tui.server.bodies import ID_PATTERN, PromptBody
from agent_tui.server.openapi import REF

from .conftest import Api


async def _document(api: Api) -> dict[str, Any]:
    async with api.client.get("/api/openapi.json") as resp:  # no Authorization header
        assert resp.status == 200
        assert resp.content_type == "application/json"
        return await resp.json()


async def test_the_document_needs_no_token_but_everything_it_describes_does(api: Api) -> None:
    doc = await _document(api)
    assert doc["openapi"] == "3.1.0"
    assert doc["components"]["securitySchemes"]["bearer"] == {
        **doc["components"]["securitySchemes"]["bearer"],
        "type": "http",
        "scheme": "bearer",
    }
    assert doc["security"] == [{"bearer": []}]
    public = [(path, method) for path, ops in doc["paths"].items() for method, op in ops.items() if "security" in op]
    assert public == [("/api/openapi.json", "get")]
    assert doc["paths"]["/api/openapi.json"]["get"]["security"] == []
    async with api.client.get("/api/session/active") as resp:
        assert resp.status == 401


async def test_every_registered_route_is_described_and_nothing_else(api: Api) -> None:
    doc = await _document(api)
    described = {(method.upper(), path) for path, ops in doc["paths"].items() for method in ops}
    registered = {(r.method, r.template) for r in routes.table()}
    router = api.client.app.router  # type: ignore[union-attr]
    served = {(route.method, route.resource.canonical) for route in router.routes()}
    assert described == registered
    assert {(m, p.replace("{key:.+}", "{key}")) for m, p in served} == registered
    assert len(described) == 38  # 37 API routes and this document


async def test_bodies_queries_and_responses_come_from_the_models(api: Api) -> None:
    doc = await _document(api)
    prompt = doc["paths"]["/api/session/{id}/prompt"]["post"]
    assert prompt["requestBody"]["content"]["application/json"]["schema"] == {"$ref": REF.format(model="PromptBody")}
    assert doc["components"]["schemas"]["PromptBody"] == PromptBody.model_json_schema(ref_template=REF)
    assert prompt["responses"]["202"]["content"]["application/json"]["schema"] == {"$ref": REF.format(model="Receipt")}
    assert [p["name"] for p in prompt["parameters"]] == ["id"]
    history = doc["paths"]["/api/session/{id}/history"]["get"]
    assert {p["name"]: p["schema"] for p in history["parameters"] if p["in"] == "query"} == {
        "after": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 50},
    }
    assert list(doc["paths"]["/api/session/{id}/log"]["get"]["responses"]["200"]["content"]) == ["text/event-stream"]
    assert "content" not in doc["paths"]["/api/session/{id}/context/{key}"]["delete"]["responses"]["204"]
    error = {"$ref": REF.format(model="ErrorResponse")}
    for status in ("400", "401", "404", "409", "413", "415", "421", "500", "503"):
        assert prompt["responses"][status]["content"]["application/json"]["schema"] == error
    assert prompt["parameters"][0]["schema"] == {"type": "string", "pattern": ID_PATTERN}
    assert doc["components"]["schemas"]["ErrorBody"]["required"] == ["type", "message"]
