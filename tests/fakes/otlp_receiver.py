"""An OTLP/HTTP collector for tests: a real HTTP server on 127.0.0.1 that decodes what it is sent
with opentelemetry-proto's own classes (``/v1/traces``, ``/v1/metrics``)."""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass
class ReceivedSpan:
    name: str
    span_id: bytes
    parent_span_id: bytes
    trace_id: bytes
    attributes: dict[str, Any]
    status_code: int
    service_name: str


@dataclass
class OtlpReceiver:
    spans: list[ReceivedSpan] = field(default_factory=list)
    metrics: dict[str, list[Any]] = field(default_factory=dict)
    """Each metric's data points as received (every export's), by name."""
    headers: list[dict[str, str]] = field(default_factory=list)
    endpoint: str = ""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _runner: web.AppRunner | None = None

    async def start(self) -> OtlpReceiver:
        app = web.Application()
        app.router.add_post("/v1/traces", self._traces)
        app.router.add_post("/v1/metrics", self._metrics)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]  # noqa: SLF001
        self.endpoint = f"http://127.0.0.1:{port}"
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def wait_for(self, ready: Callable[[OtlpReceiver], bool], timeout: float = 20.0) -> None:
        async def until() -> None:
            while not ready(self):
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(until(), timeout)

    def named(self, prefix: str) -> list[ReceivedSpan]:
        return [span for span in self.spans if span.name.startswith(prefix)]

    def points(self, name: str) -> list[Any]:
        return self.metrics.get(name, [])

    async def _body(self, request: web.Request) -> bytes:
        self.headers.append(dict(request.headers))
        body = await request.read()
        return gzip.decompress(body) if request.headers.get("Content-Encoding") == "gzip" else body

    async def _traces(self, request: web.Request) -> web.Response:
        message = ExportTraceServiceRequest()
        message.ParseFromString(await self._body(request))
        for resource_spans in message.resource_spans:
            service = _attributes(resource_spans.resource.attributes).get("service.name", "")
            for scope in resource_spans.scope_spans:
                for span in scope.spans:
                    self.spans.append(
                        ReceivedSpan(
                            span.name,
                            span.span_id,
                            span.parent_span_id,
                            span.trace_id,
                            _attributes(span.attributes),
                            span.status.code,
                            service,
                        )
                    )
        self._changed.set()
        return web.Response(
            body=ExportTraceServiceResponse().SerializeToString(), content_type="application/x-protobuf"
        )

    async def _metrics(self, request: web.Request) -> web.Response:
        message = ExportMetricsServiceRequest()
        message.ParseFromString(await self._body(request))
        for resource_metrics in message.resource_metrics:
            for scope in resource_metrics.scope_metrics:
                for metric in scope.metrics:
                    data = getattr(metric, metric.WhichOneof("data"))
                    self.metrics.setdefault(metric.name, []).extend(data.data_points)
        self._changed.set()
        return web.Response(
            body=ExportMetricsServiceResponse().SerializeToString(), content_type="application/x-protobuf"
        )


def attributes_of(point: Any) -> dict[str, Any]:
    """A metric data point's attributes as a dict."""
    return _attributes(point.attributes)


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind) if kind else None
