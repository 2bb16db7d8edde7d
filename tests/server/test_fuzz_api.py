"""Fuzz the running server from its own OpenAPI document with schemathesis.

Every operation gets a few positive and negative cases (derandomized, no
example database: the same requests every run), once with arbitrary ids and
once against a real session. Each response must be no 5xx, documented, match
its schema, and every error must be ``{"error": {"type", "message"}}``; the
same request without the token must be a 401. The log is fuzzed without
``follow`` (a live tail never ends).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.transport import Response
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .conftest import TOKEN, Api

EXAMPLES = 6
"""Per operation, per generation mode, per id kind: keeps the whole run to a few seconds."""
SESSION = "fuzz-session"
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def header(response: Response, name: str) -> str | None:
    return (response.headers.get(name.lower()) or [None])[0]


def error_shape(response: Response) -> None:
    """An error body is exactly ``{"error": {"type": str, "message": str}}``."""
    if response.status_code < 400:
        return
    assert (header(response, "Content-Type") or "").startswith("application/json"), response.headers
    body = response.json()
    assert list(body) == ["error"], body
    assert sorted(body["error"]) == ["message", "type"], body
    assert all(isinstance(body["error"][key], str) and body["error"][key] for key in ("type", "message")), body


class Fuzz:
    def __init__(self, doc: dict[str, Any], base_url: str) -> None:
        self.schema = schemathesis.openapi.from_dict(doc)
        self.base_url = base_url
        self.http = requests.Session()
        self.requests = 0

    def run(self) -> None:
        for result in self.schema.get_all_operations():
            operation = result.ok()
            fixed: dict[str, Any] = {}
            if operation.path.endswith("/log"):
                fixed["query"] = {"follow": "false", "deltas": "false"}
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                self.operation(operation, mode, **fixed)
                if "{id}" in operation.path:
                    self.operation(operation, mode, path_parameters={"id": SESSION}, **fixed)

    def send(self, case: Any, authorization: str | None) -> Response:
        """``None``: no Authorization header at all."""
        self.requests += 1
        headers = {"Authorization": authorization} if authorization else {"Authorization": None}
        return case.call(base_url=self.base_url, session=self.http, headers=headers, timeout=30)

    def operation(self, operation: Any, mode: GenerationMode, **fixed: Any) -> None:
        public = operation.definition.raw.get("security") == []

        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(operation.as_strategy(generation_mode=mode, **fixed))
        def case_passes(case: Any) -> None:
            response = self.send(case, f"Bearer {TOKEN}")
            case.validate_response(response, checks=CHECKS)
            error_shape(response)
            if not public:
                bare = self.send(case, None)
                assert bare.status_code == 401, (case.as_curl_command(), bare.text)
                assert header(bare, "WWW-Authenticate") == "Bearer"
                assert bare.json()["error"]["message"].startswith("missing bearer token"), bare.text
                error_shape(bare)

        try:
            case_passes()
        except Unsatisfiable:
            assert mode is GenerationMode.NEGATIVE, operation.label  # e.g. no parameters, nothing to make invalid


@pytest.mark.timeout(120)
async def test_the_api_survives_fuzzing_from_its_own_document(api: Api, tmp_path: Path) -> None:
    await api.create(tmp_path, id=SESSION)
    async with api.client.get("/api/openapi.json") as resp:
        doc = await resp.json()
    fuzz = Fuzz(doc, str(api.client.make_url("")).rstrip("/"))
    started = time.monotonic()
    await asyncio.to_thread(fuzz.run)
    print(f"schemathesis: {fuzz.requests} requests in {time.monotonic() - started:.1f}s")
    assert fuzz.requests > 200
