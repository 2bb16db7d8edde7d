"""Telemetry from a real session (issue 30, "telemetry, opt-in"): the runtime against the fake provider
exports GenAI spans and metrics over OTLP/HTTP to a collector started here, which decodes them with
opentelemetry-proto's classes."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from agent_tui.testing.fake_provider import FakeProvider
from tests.fakes.otlp_receiver import OtlpReceiver, attributes_of

PROMPT = "please echo the secret word marmalade"
ANSWER = "echoed it: marmalade"


def _telemetry(endpoint: str, **more: Any) -> dict[str, Any]:
    return {"telemetry": {"otlp_endpoint": endpoint, "service_name": "agent-tui-test", **more}}


async def _session_with_a_tool_call(open_runtime: Any, fake: FakeProvider, workdir: Path, cli: dict[str, Any]) -> str:
    fake.add(
        {
            "tool_calls": [{"id": "call_echo", "name": "echo", "arguments": {"text": "marmalade"}}],
            "usage": {"input": 40, "output": 7},
        },
        {"text": ANSWER, "usage": {"input": 60, "output": 5}},
    )
    async with await open_runtime(cli=cli, policy="allow") as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, PROMPT, resume=False)
        assert await runtime.sessions.run(sid) is None
    return sid


async def test_a_session_exports_a_turn_span_with_its_model_and_tool_spans_as_children(
    open_runtime: Any, fake: FakeProvider, workdir: Path, collector: OtlpReceiver
) -> None:
    sid = await _session_with_a_tool_call(open_runtime, fake, workdir, _telemetry(collector.endpoint))
    # closing the runtime flushed: everything is here without waiting for an export interval
    (turn,) = collector.named("invoke_agent ")
    chats = collector.named("chat ")
    (tool,) = collector.named("execute_tool ")
    assert [chat.name for chat in chats] == ["chat openai/fake-model"] * 2
    assert tool.name == "execute_tool echo"
    assert {span.parent_span_id for span in [*chats, tool]} == {turn.span_id}
    assert {span.trace_id for span in [*chats, tool]} == {turn.trace_id}
    assert turn.service_name == "agent-tui-test"
    assert tool.attributes["gen_ai.tool.name"] == "echo" and tool.attributes["gen_ai.tool.call.id"] == "call_echo"
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    first, second = sorted(chats, key=lambda span: span.attributes["gen_ai.usage.input_tokens"])
    assert first.attributes["gen_ai.usage.input_tokens"] == 40 and first.attributes["gen_ai.usage.output_tokens"] == 7
    assert first.attributes["gen_ai.response.finish_reasons"] == ["tool_calls"]
    assert second.attributes["gen_ai.response.finish_reasons"] == ["stop"]
    assert first.attributes["gen_ai.operation.name"] == "chat" and first.attributes["gen_ai.provider.name"] == "openai"
    assert first.attributes["gen_ai.request.model"] == "openai/fake-model"
    assert first.attributes["gen_ai.response.model"]  # what the response named
    for span in [turn, *chats, tool]:
        assert span.attributes["gen_ai.conversation.id"] == sid and span.attributes["session.id"] == sid
    everything = json.dumps([span.attributes for span in collector.spans])
    assert "marmalade" not in everything  # no prompt, answer or tool text without log_prompts


async def test_metrics_count_tokens_durations_tools_and_instruction_looks(
    open_runtime: Any, fake: FakeProvider, workdir: Path, collector: OtlpReceiver
) -> None:
    await _session_with_a_tool_call(open_runtime, fake, workdir, _telemetry(collector.endpoint))
    tokens = {
        attributes_of(point)["gen_ai.token.type"]: point.sum for point in collector.points("gen_ai.client.token.usage")
    }
    assert tokens == {"input": 100, "output": 12}
    (duration,) = collector.points("gen_ai.client.operation.duration")
    assert duration.count == 2 and attributes_of(duration)["gen_ai.request.model"] == "openai/fake-model"
    (calls,) = collector.points("agent_tui.tool.calls")
    assert calls.as_int == 1 and attributes_of(calls) == {"gen_ai.tool.name": "echo"}
    assert collector.points("agent_tui.tool.duration")[0].count == 1
    (looks,) = collector.points("agent_tui.instructions.observation.duration")
    assert looks.count >= 2  # before each step
    assert collector.points("agent_tui.instructions.baseline.size")[0].count == 1


async def test_a_priced_step_counts_its_cost_with_the_source(
    open_runtime: Any, fake: FakeProvider, workdir: Path, collector: OtlpReceiver
) -> None:
    prices = {"models": {"openai/fake-model": {"input_cost_per_million": 2.0, "output_cost_per_million": 10.0}}}
    await _session_with_a_tool_call(open_runtime, fake, workdir, {**prices, **_telemetry(collector.endpoint)})
    (cost,) = collector.points("agent_tui.cost")
    assert cost.as_double == pytest.approx((100 * 2.0 + 12 * 10.0) / 1e6)
    assert attributes_of(cost)["agent_tui.cost.source"] == "config"


async def test_a_retried_call_is_a_failed_span_and_counted(
    open_runtime: Any, fake: FakeProvider, workdir: Path, collector: OtlpReceiver
) -> None:
    fake.add({"error": {"status": 429, "message": "slow down"}}, {"text": "done"})
    async with await open_runtime(cli={**_telemetry(collector.endpoint), "retry": {"base_delay_ms": 0}}) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "go", resume=False)
        assert await runtime.sessions.run(sid) is None
    failed, succeeded = sorted(collector.named("chat "), key=lambda span: span.attributes["agent_tui.step.attempt"])
    assert failed.attributes["error.type"] == "provider.rate-limit" and failed.status_code == 2  # STATUS_CODE_ERROR
    assert "error.type" not in succeeded.attributes
    (retries,) = collector.points("agent_tui.retries")
    assert retries.as_int == 1 and attributes_of(retries)["error.type"] == "provider.rate-limit"


async def test_log_prompts_puts_the_prompt_the_answer_and_the_tool_text_on_the_spans(
    open_runtime: Any, fake: FakeProvider, workdir: Path, collector: OtlpReceiver
) -> None:
    await _session_with_a_tool_call(open_runtime, fake, workdir, _telemetry(collector.endpoint, log_prompts=True))
    chats = sorted(collector.named("chat "), key=lambda span: span.attributes["gen_ai.usage.input_tokens"])
    assert PROMPT in chats[0].attributes["gen_ai.input.messages"]
    assert ANSWER in json.loads(chats[1].attributes["gen_ai.output.messages"])[0]["parts"][0]["content"]
    (tool,) = collector.named("execute_tool ")
    assert json.loads(tool.attributes["gen_ai.tool.call.arguments"]) == {"text": "marmalade"}
    assert "marmalade" in tool.attributes["gen_ai.tool.call.result"]


async def test_headers_are_sent_with_every_export(
    open_runtime: Any, fake: FakeProvider, workdir: Path, collector: OtlpReceiver
) -> None:
    await _session_with_a_tool_call(
        open_runtime, fake, workdir, _telemetry(collector.endpoint, headers={"x-api-key": "collector-key"})
    )
    assert collector.headers and all(h.get("x-api-key") == "collector-key" for h in collector.headers)


async def test_a_collector_that_is_down_costs_one_warning_and_the_session_succeeds(
    open_runtime: Any, fake: FakeProvider, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    await _session_with_a_tool_call(open_runtime, fake, workdir, _telemetry(f"http://127.0.0.1:{port}"))
    assert [request.body["messages"][-1]["role"] for request in fake.accepted] == ["user", "tool"]
    warnings = [line for line in capsys.readouterr().err.splitlines() if "telemetry export" in line]
    assert len(warnings) == 1 and f"127.0.0.1:{port}" in warnings[0]


async def test_an_instruction_source_that_cannot_be_read_is_counted_by_its_key(
    open_runtime: Any, fake: FakeProvider, workdir: Path, collector: OtlpReceiver
) -> None:
    (workdir / "rules.md").write_bytes(b"\xff\xfe not utf-8")
    cli = {**_telemetry(collector.endpoint), "instructions": ["rules.md"]}
    async with await open_runtime(cli=cli, policy="allow") as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "go", resume=False)
        failure = await runtime.sessions.run(sid)
    assert failure is not None and failure.type == "instructions.unavailable"
    (unavailable,) = collector.points("agent_tui.instructions.unavailable")
    assert unavailable.as_int == 1 and attributes_of(unavailable) == {
        "agent_tui.instructions.source": "core/configured"
    }
    assert collector.points("agent_tui.instructions.observation.duration")[0].count == 1
    assert collector.spans == []  # no step ran: no turn
