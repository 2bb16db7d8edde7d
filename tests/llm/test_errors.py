"""Every provider error kind, at the call and mid-stream, on both wire formats."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from agent_tui.llm.errors import LLMError, classify, parse_retry_after
from agent_tui.llm.types import Finish, FinishReason, TextDelta
from agent_tui.testing.fake_provider import FakeProvider, Turn
from agent_tui.vocab.kinds import ErrorType
from tests.llm.conftest import collect

AT_CALL = [
    ({"status": 429, "retry_after": 7}, ErrorType.RATE_LIMIT, 7000),
    ({"status": 429, "retry_after_ms": 1500}, ErrorType.RATE_LIMIT, 1500),
    ({"status": 500}, ErrorType.INTERNAL, None),
    ({"status": 503, "kind": "overloaded", "retry_after": 2}, ErrorType.INTERNAL, 2000),
    ({"status": 529, "kind": "overloaded"}, ErrorType.INTERNAL, None),
    ({"status": 401}, ErrorType.AUTH, None),
    ({"status": 403, "kind": "auth"}, ErrorType.AUTH, None),
    ({"status": 400, "kind": "context_overflow"}, ErrorType.CONTEXT_OVERFLOW, None),
    ({"status": 400, "kind": "content_filter"}, ErrorType.CONTENT_FILTER, None),
    ({"status": 400, "message": "tools.0: unknown field"}, ErrorType.INVALID_REQUEST, None),
    ({"status": 404, "kind": "invalid_request", "message": "model not found"}, ErrorType.INVALID_REQUEST, None),
]


@pytest.mark.parametrize(("error", "kind", "retry_after_ms"), AT_CALL, ids=lambda v: str(v))
async def test_http_errors_are_classified(fake: FakeProvider, make_request, error, kind, retry_after_ms) -> None:
    fake.add(Turn(error=error))
    with pytest.raises(LLMError) as caught:
        await collect(make_request())
    assert caught.value.type is kind
    assert caught.value.retry_after_ms == retry_after_ms
    assert caught.value.output_started is False
    assert caught.value.status == error["status"] or error["status"] == 529
    assert "\n" not in caught.value.message and len(caught.value.message) < 300
    if "message" in error:
        assert error["message"] in caught.value.message


@pytest.mark.parametrize(
    ("failure", "kind"),
    [
        ({"mode": "error_event", "kind": "overloaded"}, ErrorType.INTERNAL),
        ({"mode": "error_event", "kind": "internal"}, ErrorType.INTERNAL),
        ({"mode": "error_event", "kind": "rate_limit"}, ErrorType.RATE_LIMIT),
        ({"mode": "drop"}, ErrorType.TRANSPORT),
    ],
    ids=["overloaded-event", "internal-event", "rate-limit-event", "dropped"],
)
async def test_mid_stream_failures_say_output_started(fake: FakeProvider, make_request, failure, kind) -> None:
    fake.add(Turn(text="partial answer here", chunks=6, fail={"after": 3, **failure}))
    seen: list[str] = []
    with pytest.raises(LLMError) as caught:
        async for event in _stream(make_request()):
            if isinstance(event, TextDelta):
                seen.append(event.text)
    assert caught.value.type is kind
    assert caught.value.output_started is True
    assert seen  # the partial text was delivered before the failure


async def test_dropped_before_any_output_is_retryable_transport(fake: FakeProvider, make_request) -> None:
    fake.add(Turn(text="never seen", fail={"after": 0, "mode": "drop"}))
    with pytest.raises(LLMError) as caught:
        await collect(make_request())
    assert caught.value.type is ErrorType.TRANSPORT
    assert caught.value.output_started is False and caught.value.retryable


async def test_content_filter_is_a_finish_reason(fake: FakeProvider, make_request) -> None:
    fake.add(Turn(text="I started to", finish="content_filter"))
    events = await collect(make_request())
    assert isinstance(events[-1], Finish) and events[-1].reason is FinishReason.CONTENT_FILTER
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "I started to"


async def test_length_finish(fake: FakeProvider, make_request) -> None:
    fake.add(Turn(text="cut off", finish="length"))
    assert (await collect(make_request()))[-1].reason is FinishReason.LENGTH


async def test_unreachable_server_is_transport(make_request) -> None:
    request = make_request(
        api_base="http://127.0.0.1:9/v1" if "openai" in make_request().model else "http://127.0.0.1:9"
    )
    with pytest.raises(LLMError) as caught:
        await collect(request)
    assert caught.value.type is ErrorType.TRANSPORT and caught.value.output_started is False


async def test_a_request_the_api_rejects_is_invalid_request(fake: FakeProvider, make_request, wire) -> None:
    from agent_tui.llm.types import AssistantTurn, RequestText, ToolUse, ToolUseResult, UserTurn

    # Two steps that reuse one call id: both real APIs refuse that history.
    def step() -> AssistantTurn:
        return AssistantTurn(
            model=wire.model,
            parts=[ToolUse(call_id="call_1", name="read", input={}, result=ToolUseResult(ok=True, text="x"))],
        )

    fake.add(Turn(text="unused"))
    with pytest.raises(LLMError) as caught:
        await collect(make_request(UserTurn(parts=[RequestText(text="go")]), step(), step()))
    assert caught.value.type is ErrorType.INVALID_REQUEST and caught.value.status == 400
    assert "call_1" in caught.value.message
    assert fake.requests[-1].rejected is not None and fake.remaining == 1  # the turn was not consumed


async def _stream(request):
    from agent_tui import llm

    async for event in llm.stream(request):
        yield event


# ---------------------------------------------------------------------- unit level


def test_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3000
    assert parse_retry_after({"retry-after": "0.5"}) == 500
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 250
    assert parse_retry_after({"Retry-After": "2"}) == 2000
    now = datetime(2026, 1, 1, tzinfo=UTC)
    date = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now.timestamp()) == 30000
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_wrapped_causes_are_unwrapped() -> None:
    class MidStreamFallbackError(Exception):
        def __init__(self, message: str, original: Exception) -> None:
            super().__init__(message)
            self.original_exception = original
            self.status_code = 503

    class RateLimitError(Exception):
        status_code = 429
        headers = {"retry-after": "4"}

    error = classify(MidStreamFallbackError("fallback", RateLimitError("slow down")), output_started=True)
    assert (error.type, error.retry_after_ms, error.output_started, error.status) == (
        ErrorType.RATE_LIMIT,
        4000,
        True,
        429,
    )


def test_plain_exceptions() -> None:
    assert classify(ConnectionResetError("reset")).type is ErrorType.TRANSPORT
    assert classify(RuntimeError("something odd")).type is ErrorType.UNKNOWN
    assert classify(ValueError("prompt is too long: 300000 tokens > 200000 maximum")).type is ErrorType.CONTEXT_OVERFLOW
    same = LLMError(ErrorType.AUTH, "no")
    assert classify(same) is same
    assert same.info() == {"type": "provider.auth", "message": "no", "retry_after_ms": None, "status": None}
