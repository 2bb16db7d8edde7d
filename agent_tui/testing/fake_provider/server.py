"""The fake provider: a real aiohttp server that plays a script, one turn per request.

Tests use it as an async context manager and reach it through LiteLLM exactly
as production does (``openai/<name>`` + ``<base_url>/v1``, ``anthropic/<name>``
+ ``<base_url>``). Every request body is recorded; requests a real API would
reject are answered 400 in that API's error shape and never consume a turn.
A small admin API (``/_fake/...``) lets a shell-started server be steered too.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from agent_tui.testing.fake_provider import anthropic_wire, nonstream, openai_wire
from agent_tui.testing.fake_provider.frames import HttpError, Rendered
from agent_tui.testing.fake_provider.script import Script, Turn
from agent_tui.testing.fake_provider.validate import validate_anthropic, validate_openai

Wire = Literal["openai", "anthropic"]
_BATCH = 256  # frames per write when there is no per-chunk delay


@dataclass
class RecordedRequest:
    wire: Wire
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    rejected: str | None = None  # the validation message when answered 400
    at: float = field(default_factory=time.monotonic)
    """Arrival on CLOCK_MONOTONIC, which every process on the machine shares: benchmarks compare
    it with the moment another process sent the request."""


@dataclass
class _Stats:
    served: int = 0
    aborted: int = 0  # streams the client closed before the end
    completed: int = 0
    events: list[str] = field(default_factory=list)


class FakeProvider:
    """``async with FakeProvider([Turn(text="hi")]) as fake: ... fake.base_url``."""

    def __init__(
        self,
        turns: Iterable[Turn | dict[str, Any]] | Script = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        validate: bool = True,
        responder: Callable[[RecordedRequest], Turn | dict[str, Any]] | None = None,
    ) -> None:
        """``responder``, when given, answers each request from its content instead of the script:
        a session replayed from many crash points asks different things each time."""
        self._responder = responder
        items = turns.turns if isinstance(turns, Script) else turns
        self._turns: list[Turn] = [t if isinstance(t, Turn) else Turn.model_validate(t) for t in items]
        self._next = 0
        self._host, self._port = host, port
        self.validate = validate
        self.requests: list[RecordedRequest] = []
        self.stats = _Stats()
        self._release = asyncio.Semaphore(0)
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeProvider:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._openai)
        app.router.add_post("/v1/messages", self._anthropic)
        app.router.add_post("/_fake/turns", self._admin_add)
        app.router.add_post("/_fake/release", self._admin_release)
        app.router.add_get("/_fake/requests", self._admin_requests)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        self._port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def close(self) -> None:
        if self._runner is not None:
            self._release.release()  # let any held handler finish
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeProvider:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ script control

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        """Anthropic api_base; the OpenAI one is :attr:`openai_base`."""
        return f"http://{self._host}:{self._port}"

    @property
    def openai_base(self) -> str:
        return f"{self.base_url}/v1"

    def add(self, *turns: Turn | dict[str, Any]) -> None:
        """Append turns; safe while requests are being served."""
        self._turns.extend(t if isinstance(t, Turn) else Turn.model_validate(t) for t in turns)

    def release(self, count: int = 1) -> None:
        """Let ``count`` held (``hold: true``) turns start streaming."""
        for _ in range(count):
            self._release.release()

    @property
    def remaining(self) -> int:
        return len(self._turns) - self._next

    @property
    def accepted(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.rejected is None]

    async def wait_for(self, what: str, count: int = 1, timeout: float = 10.0) -> None:
        """Wait until ``count`` events named ``what`` happened (``request``, ``stream``, ``aborted``, ``completed``, ``held``)."""

        async def reached() -> None:
            async with self._changed:
                await self._changed.wait_for(lambda: self.stats.events.count(what) >= count)

        await asyncio.wait_for(reached(), timeout)

    async def _note(self, what: str) -> None:
        async with self._changed:
            self.stats.events.append(what)
            self._changed.notify_all()

    # ------------------------------------------------------------------ handlers

    async def _openai(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request, "openai")

    async def _anthropic(self, request: web.Request) -> web.StreamResponse:
        return await self._serve(request, "anthropic")

    async def _serve(self, request: web.Request, wire: Wire) -> web.StreamResponse:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _json_error(HttpError(400, _error_body(wire, "We could not parse the JSON body of your request.")))
        record = RecordedRequest(wire, request.path, body, dict(request.headers))
        self.requests.append(record)
        await self._note("request")
        if self._responder is not None:
            answer = self._responder(record)
            turn = answer if isinstance(answer, Turn) else Turn.model_validate(answer)
        elif self._next >= len(self._turns):
            return _json_error(
                HttpError(
                    500,
                    _error_body(wire, f"fake provider: script exhausted at request {len(self.requests)}", "api_error"),
                )
            )
        else:
            turn = self._turns[self._next]
        if self.validate and turn.validate_request:
            problem = validate_openai(body) if wire == "openai" else validate_anthropic(body)
            if problem is not None:
                record.rejected = problem.body["error"]["message"]
                await self._note("rejected")
                return _json_error(problem)
        if self._responder is None:
            self._next += 1
        self.stats.served += 1
        if turn.hold:
            await self._note("held")
            if not await self._wait_release(request):
                self.stats.aborted += 1
                await self._note("aborted")
                return web.Response(status=499)
        if turn.error is not None:
            wire_mod = openai_wire if wire == "openai" else anthropic_wire
            return _json_error(wire_mod.http_error(turn.error))
        model = str(body.get("model", "fake"))
        if not body.get("stream"):
            return web.json_response(nonstream.render(turn, model, wire))
        if wire == "openai":
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            rendered, failure = openai_wire.render(turn, model, include_usage), openai_wire.failure_frame
        else:
            rendered, failure = anthropic_wire.render(turn, model), anthropic_wire.failure_frame
        return await self._stream(request, turn, rendered, failure(turn.fail) if turn.fail else None)

    async def _wait_release(self, request: web.Request) -> bool:
        acquire = asyncio.ensure_future(self._release.acquire())
        try:
            while not acquire.done():
                if request.transport is None or request.transport.is_closing():
                    return False
                await asyncio.wait({acquire}, timeout=0.01)
            return True
        finally:
            if not acquire.done():
                acquire.cancel()

    async def _stream(
        self, request: web.Request, turn: Turn, rendered: Rendered, fail_frame: bytes | None
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        await self._note("stream")
        frames = list(rendered.prelude)
        content = rendered.content
        if turn.fail is not None:
            frames += content[: turn.fail.after]
        else:
            frames += content + rendered.epilogue
        delay = turn.delay_ms / 1000
        try:
            if delay:
                for frame in frames:
                    await response.write(frame)
                    await asyncio.sleep(delay)
            else:
                for start in range(0, len(frames), _BATCH):
                    await response.write(b"".join(frames[start : start + _BATCH]))
            if turn.fail is not None:
                if turn.fail.mode == "error_event" and fail_frame is not None:
                    await response.write(fail_frame)
                    await response.write_eof()
                else:
                    # Drop the connection without finishing the chunked body.
                    if request.transport is not None:
                        request.transport.abort()
                await self._note("failed")
                return response
            await response.write_eof()
        except (ConnectionResetError, ConnectionError, asyncio.CancelledError) as error:
            self.stats.aborted += 1
            await self._note("aborted")
            if isinstance(error, asyncio.CancelledError):
                raise
            return response
        self.stats.completed += 1
        await self._note("completed")
        return response

    # ------------------------------------------------------------------ admin API (shell use)

    async def _admin_add(self, request: web.Request) -> web.Response:
        data = await request.json()
        turns = data if isinstance(data, list) else data.get("turns", [data])
        try:
            self.add(*turns)
        except ValueError as error:
            return web.json_response({"error": str(error)}, status=400)
        return web.json_response({"remaining": self.remaining})

    async def _admin_release(self, request: web.Request) -> web.Response:
        self.release(int(request.query.get("count", "1")))
        return web.json_response({"ok": True})

    async def _admin_requests(self, request: web.Request) -> web.Response:
        return web.json_response(
            [
                {"wire": r.wire, "path": r.path, "body": r.body, "rejected": r.rejected, "at": r.at}
                for r in self.requests
            ]
        )


def _error_body(wire: Wire, message: str, type_: str = "invalid_request_error") -> dict[str, Any]:
    if wire == "openai":
        return openai_wire.error_body(message, type_)
    return anthropic_wire.error_body(message, type_)


def _json_error(error: HttpError) -> web.Response:
    return web.json_response(error.body, status=error.status, headers=error.headers)
