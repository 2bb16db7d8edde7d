"""The ``RunObserver`` over the OpenTelemetry SDK: GenAI spans and metrics, exported over OTLP/HTTP.

Spans follow the GenAI semantic conventions: ``invoke_agent {agent}`` for a turn (one drain),
``chat {model}`` for each model call (each attempt of a step) and ``execute_tool {name}`` for each
tool call, both children of the turn. Every call here only records in memory; the batch span
processor and the periodic metric reader export from their own threads, so the event loop never
waits on the network. An export that fails is said once (``warn``) and the session goes on.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from agent_tui import __version__
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.observation import InstructionLook, ModelCall, ModelCallEnd, ToolRun

EXPORT_TIMEOUT_S = 3.0
"""The most one export waits on the collector: bounds the flush on exit when it is down."""
METRIC_INTERVAL_MS = 30_000


@dataclass
class _Open:
    span: Span
    started: float
    attributes: dict[str, Any]


class _FirstFailure(logging.Handler):
    """The SDK logs each failed export; the user hears about the first one only."""

    def __init__(self, warn: Callable[[str], None], endpoint: str) -> None:
        super().__init__(logging.WARNING)
        self._warn, self._endpoint, self._said = warn, endpoint, False

    def emit(self, record: logging.LogRecord) -> None:
        if not self._said:
            self._said = True
            self._warn(
                f"telemetry export to {self._endpoint} failed; the session goes on ({record.getMessage()[:200]})"
            )


class OtelObserver:
    def __init__(
        self, endpoint: str, headers: dict[str, str], service_name: str, log_prompts: bool, warn: Callable[[str], None]
    ) -> None:
        self.wants_prompts = log_prompts
        sdk_log = logging.getLogger("opentelemetry")
        self._failures = _FirstFailure(warn, endpoint)
        sdk_log.addHandler(self._failures)
        self._propagated = sdk_log.propagate
        sdk_log.propagate = False  # its records would reach stderr (and the TUI's screen) one per failure
        resource = Resource.create({"service.name": service_name, "service.version": __version__})
        self._traces = TracerProvider(resource=resource)
        spans = OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces", headers=headers, timeout=EXPORT_TIMEOUT_S)
        self._traces.add_span_processor(BatchSpanProcessor(spans))
        metrics = OTLPMetricExporter(endpoint=f"{endpoint}/v1/metrics", headers=headers, timeout=EXPORT_TIMEOUT_S)
        reader = PeriodicExportingMetricReader(metrics, export_interval_millis=METRIC_INTERVAL_MS)
        self._meters = MeterProvider(resource=resource, metric_readers=[reader])
        self._tracer = self._traces.get_tracer("agent_tui", __version__)
        meter = self._meters.get_meter("agent_tui", __version__)
        self._tokens = meter.create_histogram("gen_ai.client.token.usage", "{token}", "Tokens per model call")
        self._duration = meter.create_histogram("gen_ai.client.operation.duration", "s", "Model call duration")
        self._cost = meter.create_counter(
            "agent_tui.cost", "USD", "What model calls cost, by where the figure came from"
        )
        self._retries = meter.create_counter("agent_tui.retries", "{retry}", "Model calls retried")
        self._errors = meter.create_counter("agent_tui.errors", "{error}", "Failed model calls, tool calls and turns")
        self._tool_calls = meter.create_counter("agent_tui.tool.calls", "{call}", "Tool calls")
        self._tool_duration = meter.create_histogram("agent_tui.tool.duration", "s", "Tool call duration")
        self._look_duration = meter.create_histogram(
            "agent_tui.instructions.observation.duration", "s", "Observing every instruction source before a step"
        )
        self._unavailable = meter.create_counter(
            "agent_tui.instructions.unavailable", "{source}", "Instruction sources that could not be observed"
        )
        self._baseline = meter.create_histogram(
            "agent_tui.instructions.baseline.size", "{char}", "Instruction baselines written"
        )
        self._update = meter.create_histogram(
            "agent_tui.instructions.update.size", "{char}", "Chronological instruction updates written"
        )
        self._contention = meter.create_histogram(
            "agent_tui.instructions.contention",
            "s",
            "What an instruction observation queued for behind other sessions (store connections, threads)",
        )
        self._growth = meter.create_histogram(
            "agent_tui.instructions.updates.since_baseline",
            "{update}",
            "Chronological instruction updates the model carries on top of its baseline, at each look",
        )
        self._growth_size = meter.create_histogram(
            "agent_tui.instructions.updates.since_baseline.size",
            "{char}",
            "The size of the chronological instruction updates since the baseline, at each look",
        )
        self._lock = threading.Lock()  # runs from several event loops' threads (the TUI's, a server's)
        self._turns: dict[str, _Open] = {}
        self._calls: dict[tuple[str, str], _Open] = {}
        self._tools: dict[tuple[str, str], _Open] = {}

    # -- turns -----------------------------------------------------------------

    def turn_started(self, session_id: str, agent: str, spawned_by: tuple[str, str] | None = None) -> None:
        attributes = {**_session(session_id), "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent}
        with self._lock:  # a subagent's turn runs inside its parent's task call: one trace for both
            task = self._tools.get(spawned_by) if spawned_by is not None else None
        context = trace.set_span_in_context(task.span) if task is not None else None
        span = self._tracer.start_span(
            f"invoke_agent {agent}", context=context, kind=SpanKind.INTERNAL, attributes=attributes
        )
        with self._lock:
            self._turns[session_id] = _Open(span, time.perf_counter(), attributes)

    def turn_ended(self, session_id: str, error: ErrorInfo | None) -> None:
        with self._lock:
            turn = self._turns.pop(session_id, None)
        if turn is None:
            return
        if error is not None:
            _failed(turn.span, error)
            self._errors.add(1, {"error.type": error.type, "agent_tui.error.origin": "turn"})
        turn.span.end()

    def _parent(self, session_id: str) -> Any:
        with self._lock:
            turn = self._turns.get(session_id)
        return trace.set_span_in_context(turn.span) if turn is not None else None

    # -- model calls -----------------------------------------------------------

    def model_call_started(self, call: ModelCall) -> None:
        attributes: dict[str, Any] = {
            **_session(call.session_id),
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": call.model,
            **_provider(call.model),
            "gen_ai.agent.name": call.agent,
            "agent_tui.step.attempt": call.attempt,
        }
        span = self._tracer.start_span(
            f"chat {call.model}", context=self._parent(call.session_id), kind=SpanKind.CLIENT, attributes=attributes
        )
        if call.input_messages is not None:
            span.set_attribute("gen_ai.input.messages", json.dumps(call.input_messages))
        with self._lock:
            self._calls[(call.session_id, call.step_id)] = _Open(span, time.perf_counter(), attributes)

    def model_call_ended(self, session_id: str, step_id: str, end: ModelCallEnd) -> None:
        with self._lock:
            call = self._calls.pop((session_id, step_id), None)
        if call is None:
            return
        span, model = call.span, call.attributes["gen_ai.request.model"]
        metric = {"gen_ai.operation.name": "chat", "gen_ai.request.model": model, **_provider(model)}
        if end.response_model:
            span.set_attribute("gen_ai.response.model", end.response_model)
            metric["gen_ai.response.model"] = end.response_model
        if end.finish_reason:
            span.set_attribute("gen_ai.response.finish_reasons", [end.finish_reason])
        if end.usage is not None:
            span.set_attribute("gen_ai.usage.input_tokens", end.usage.input_tokens)
            span.set_attribute("gen_ai.usage.output_tokens", end.usage.output_tokens)
            self._tokens.record(end.usage.input_tokens, {**metric, "gen_ai.token.type": "input"})
            self._tokens.record(end.usage.output_tokens, {**metric, "gen_ai.token.type": "output"})
        if end.cost is not None:
            span.set_attribute("agent_tui.cost", end.cost)
            self._cost.add(end.cost, {"gen_ai.request.model": model, "agent_tui.cost.source": end.cost_source or ""})
        if end.answer is not None:
            output = [{"role": "assistant", "parts": [{"type": "text", "content": end.answer}]}]
            span.set_attribute("gen_ai.output.messages", json.dumps(output))
        if end.error is not None:
            _failed(span, end.error)
            metric["error.type"] = end.error.type
            if end.retried:
                self._retries.add(1, {"gen_ai.request.model": model, "error.type": end.error.type})
            else:
                self._errors.add(1, {"error.type": end.error.type, "agent_tui.error.origin": "model"})
        self._duration.record(time.perf_counter() - call.started, metric)
        span.end()

    # -- tool calls ------------------------------------------------------------

    def tool_started(self, run: ToolRun) -> None:
        attributes = {
            **_session(run.session_id),
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": run.name,
            "gen_ai.tool.call.id": run.call_id,
        }
        span = self._tracer.start_span(
            f"execute_tool {run.name}",
            context=self._parent(run.session_id),
            kind=SpanKind.INTERNAL,
            attributes=attributes,
        )
        if run.arguments is not None:
            span.set_attribute("gen_ai.tool.call.arguments", json.dumps(run.arguments, default=str))
        with self._lock:
            self._tools[(run.session_id, run.call_id)] = _Open(span, time.perf_counter(), attributes)

    def tool_ended(self, session_id: str, call_id: str, error: ErrorInfo | None, output: str | None) -> None:
        with self._lock:
            tool = self._tools.pop((session_id, call_id), None)
        if tool is None:
            return
        metric = {"gen_ai.tool.name": tool.attributes["gen_ai.tool.name"]}
        if output is not None:
            tool.span.set_attribute("gen_ai.tool.call.result", output)
        if error is not None:
            _failed(tool.span, error)
            metric["error.type"] = error.type
            self._errors.add(1, {"error.type": error.type, "agent_tui.error.origin": "tool"})
        self._tool_calls.add(1, metric)
        self._tool_duration.record(time.perf_counter() - tool.started, metric)
        tool.span.end()

    # -- instruction observation ----------------------------------------------

    def instructions_looked(self, look: InstructionLook) -> None:
        self._look_duration.record(look.seconds, {"agent_tui.instructions.sources": look.sources})
        for key in look.unavailable:
            self._unavailable.add(1, {"agent_tui.instructions.source": key})
        if look.baseline_chars is not None:
            self._baseline.record(look.baseline_chars)
        if look.update_chars is not None:
            self._update.record(look.update_chars)
        for resource, seconds in look.waited.items():
            self._contention.record(seconds, {"agent_tui.instructions.waited_for": resource})
        if look.updates_since_baseline is not None:
            self._growth.record(look.updates_since_baseline)
        if look.update_chars_since_baseline is not None:
            self._growth_size.record(look.update_chars_since_baseline)

    def close(self) -> None:
        """End what is still open, export everything, stop (each export bounded by ``EXPORT_TIMEOUT_S``)."""
        with self._lock:
            open_spans = [*self._tools.values(), *self._calls.values(), *self._turns.values()]
            self._tools.clear()
            self._calls.clear()
            self._turns.clear()
        for item in open_spans:
            item.span.end()
        try:
            self._traces.shutdown()
            self._meters.shutdown(timeout_millis=EXPORT_TIMEOUT_S * 2000)
        finally:
            sdk_log = logging.getLogger("opentelemetry")
            sdk_log.removeHandler(self._failures)
            sdk_log.propagate = self._propagated


def _provider(model: str) -> dict[str, str]:
    """``gen_ai.provider.name`` from LiteLLM's ``provider/model`` name (``openai``, ``anthropic``, …)."""
    provider, slash, _ = model.partition("/")
    return {"gen_ai.provider.name": provider} if slash and provider else {}


def _session(session_id: str) -> dict[str, Any]:
    return {"gen_ai.conversation.id": session_id, "session.id": session_id}


def _failed(span: Span, error: ErrorInfo) -> None:
    span.set_attribute("error.type", error.type)
    span.set_status(Status(StatusCode.ERROR, error.message[:500]))
