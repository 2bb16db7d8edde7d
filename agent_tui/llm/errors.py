"""Provider failures as one exception whose type is one of the ``provider.*`` error types.

LiteLLM raises its own exception classes at the call, and wraps failures that
happen mid-stream (``MidStreamFallbackError`` and friends keep the real cause
in ``original_exception``). :func:`classify` walks that chain, picks the most
telling cause, and reads ``retry-after`` from whichever layer kept the headers.
Class names are matched along the MRO so this module never imports LiteLLM.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Iterator, Mapping
from email.utils import parsedate_to_datetime
from typing import Any

from agent_tui.vocab.kinds import RETRYABLE, ErrorType


class LLMError(Exception):
    """A classified provider failure; ``output_started`` says whether events were yielded."""

    def __init__(
        self,
        type: ErrorType | str,
        message: str,
        *,
        retry_after_ms: int | None = None,
        output_started: bool = False,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.type = ErrorType(type)
        self.message = message
        self.retry_after_ms = retry_after_ms
        self.output_started = output_started
        self.status = status

    @property
    def retryable(self) -> bool:
        return self.type in RETRYABLE

    def info(self) -> dict[str, Any]:
        """``{type, message, retry_after_ms, status}`` as the event schema stores errors."""
        return {
            "type": str(self.type),
            "message": self.message,
            "retry_after_ms": self.retry_after_ms,
            "status": self.status,
        }

    def __repr__(self) -> str:
        return f"LLMError({self.type!s}, {self.message!r}, status={self.status}, output_started={self.output_started})"


# Ordered: the first class name found in an exception's MRO decides. Specific
# classes first; generic status classes only after the message had its say,
# because LiteLLM reports e.g. an Anthropic mid-stream rate-limit event as a 500.
_SPECIFIC: tuple[tuple[str, ErrorType], ...] = (
    ("ContextWindowExceededError", ErrorType.CONTEXT_OVERFLOW),
    ("ContentPolicyViolationError", ErrorType.CONTENT_FILTER),
    ("RateLimitError", ErrorType.RATE_LIMIT),
    ("AuthenticationError", ErrorType.AUTH),
    ("PermissionDeniedError", ErrorType.AUTH),
    ("Timeout", ErrorType.TRANSPORT),
    ("APITimeoutError", ErrorType.TRANSPORT),
    ("APIConnectionError", ErrorType.TRANSPORT),
    ("TransportError", ErrorType.TRANSPORT),  # httpx
    ("ClientError", ErrorType.TRANSPORT),  # aiohttp
    ("RemoteProtocolError", ErrorType.TRANSPORT),
    ("IncompleteRead", ErrorType.TRANSPORT),
)
_GENERIC: tuple[tuple[str, ErrorType], ...] = (
    ("InternalServerError", ErrorType.INTERNAL),
    ("BadGatewayError", ErrorType.INTERNAL),
    ("BadRequestError", ErrorType.INVALID_REQUEST),
    ("NotFoundError", ErrorType.INVALID_REQUEST),
    ("UnprocessableEntityError", ErrorType.INVALID_REQUEST),
)
# Wrappers whose own class says little once a cause is known (exact class names).
_WRAPPERS = frozenset({"MidStreamFallbackError", "ServiceUnavailableError", "APIError", "OpenAIError"})

_OVERFLOW = re.compile(
    r"context[_ ]length|context window|prompt is too long|maximum context|too many tokens"
    r"|input is too long|exceeds the (?:model's )?context|reduce the length",
    re.IGNORECASE,
)
_FILTER = re.compile(r"content[_ ](?:filter|management|policy)|blocked by content|safety system", re.IGNORECASE)
_OVERLOADED = re.compile(r"overloaded|server error|internal error|service unavailable", re.IGNORECASE)
_RATE = re.compile(r"rate[ _-]?limit|too many requests", re.IGNORECASE)
_TRANSPORT = re.compile(
    r"connection (?:reset|closed|error|aborted|refused)|incomplete chunked|peer closed|server disconnected"
    r"|remoteprotocolerror|readerror|timed? ?out|payload is not completed",
    re.IGNORECASE,
)
_PREFIX = re.compile(r"^(?:litellm\.)?\w+(?:Error|Exception)\s*[:\-]\s*")
_JSON = re.compile(r"\{.*\}", re.DOTALL)


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen and len(seen) < 10:
        seen.add(id(current))
        yield current
        nxt = getattr(current, "original_exception", None)
        if not isinstance(nxt, BaseException):
            nxt = current.__cause__ or current.__context__
        current = nxt


def _names(error: BaseException) -> list[str]:
    return [cls.__name__ for cls in type(error).__mro__]


def _status(error: BaseException) -> int | None:
    for owner, attr in ((error, "status_code"), (error, "status"), (getattr(error, "response", None), "status_code")):
        value = getattr(owner, attr, None)
        if isinstance(value, int) and 100 <= value < 600:
            return value
        if isinstance(value, str) and value.isdigit():
            return int(value)
    return None


def _kind_of(error: BaseException) -> ErrorType:
    names = _names(error)
    text = str(error)
    if _OVERFLOW.search(text):
        return ErrorType.CONTEXT_OVERFLOW
    if _FILTER.search(text):
        return ErrorType.CONTENT_FILTER
    for name, kind in _SPECIFIC:
        if name in names:
            return kind
    if isinstance(error, (ConnectionError, asyncio.TimeoutError, TimeoutError, EOFError)):
        return ErrorType.TRANSPORT
    if _RATE.search(text):
        return ErrorType.RATE_LIMIT
    for name, kind in _GENERIC:
        if name in names:
            return kind
    status = _status(error)
    if status is not None and type(error).__name__ not in _WRAPPERS:
        return _kind_of_status(status)
    if _TRANSPORT.search(text):
        return ErrorType.TRANSPORT
    if _OVERLOADED.search(text):
        return ErrorType.INTERNAL
    if status is not None:
        return _kind_of_status(status)
    return ErrorType.UNKNOWN


_BODY_TYPES = {
    "rate_limit_exceeded": ErrorType.RATE_LIMIT,
    "rate_limit_error": ErrorType.RATE_LIMIT,
    "server_error": ErrorType.INTERNAL,
    "api_error": ErrorType.INTERNAL,
    "overloaded_error": ErrorType.INTERNAL,
    "context_length_exceeded": ErrorType.CONTEXT_OVERFLOW,
    "content_filter": ErrorType.CONTENT_FILTER,
    "content_policy_violation": ErrorType.CONTENT_FILTER,
    "authentication_error": ErrorType.AUTH,
    "invalid_api_key": ErrorType.AUTH,
    "permission_error": ErrorType.AUTH,
    "invalid_request_error": ErrorType.INVALID_REQUEST,
    "not_found_error": ErrorType.INVALID_REQUEST,
}


def _kind_of_body(body: Any) -> ErrorType | None:
    """An error body's own ``code``/``type`` (the most specific signal there is)."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    inner: dict[Any, Any] = error if isinstance(error, dict) else body
    message = str(inner.get("message") or "")
    if _OVERFLOW.search(message):
        return ErrorType.CONTEXT_OVERFLOW
    if _FILTER.search(message):
        return ErrorType.CONTENT_FILTER
    for key in ("code", "type"):
        kind = _BODY_TYPES.get(str(inner.get(key)))
        if kind is not None:
            return kind
    return None


def _kind_of_status(status: int) -> ErrorType:
    if status == 429:
        return ErrorType.RATE_LIMIT
    if status in (401, 403):
        return ErrorType.AUTH
    if status == 413:
        return ErrorType.CONTEXT_OVERFLOW
    if 400 <= status < 500:
        return ErrorType.INVALID_REQUEST
    if status >= 500:
        return ErrorType.INTERNAL
    return ErrorType.UNKNOWN


def _header_maps(error: BaseException) -> Iterator[Mapping[str, Any]]:
    for attr in ("litellm_response_headers", "headers"):
        value = getattr(error, attr, None)
        if value is not None and hasattr(value, "get"):
            yield value
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if headers is not None and hasattr(headers, "get"):
        yield headers


def _get(headers: Mapping[str, Any], name: str) -> Any:
    value = headers.get(name)
    if value is None:
        value = headers.get(name.title())
    return value


def parse_retry_after(headers: Mapping[str, Any], now: float | None = None) -> int | None:
    """Milliseconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    raw_ms = _get(headers, "retry-after-ms")
    if raw_ms is not None:
        try:
            return max(0, int(float(raw_ms)))
        except ValueError:
            pass
    raw = _get(headers, "retry-after")
    if raw is None:
        return None
    try:
        return max(0, int(float(raw) * 1000))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(str(raw))
    except (TypeError, ValueError):
        return None
    return max(0, int((when.timestamp() - (time.time() if now is None else now)) * 1000))


def _retry_after(chain: list[BaseException]) -> int | None:
    for error in chain:
        for headers in _header_maps(error):
            value = parse_retry_after(headers)
            if value is not None:
                return value
    return None


def _clean(message: str) -> str:
    text = " ".join(message.split())
    for _ in range(4):
        stripped = _PREFIX.sub("", text, count=1)
        if stripped == text:
            break
        text = stripped
    text = re.sub(r"\.?\s*Handle with `litellm\.\w+`\.?", ".", text)
    text = re.sub(r"\.\.+$", ".", text)
    text = re.sub(r"\s*ssl:<[^>]*>", "", text)
    text = re.sub(r"\s*(?:LiteLLM Retried|Received Model Group|Available Model Group).*$", "", text)
    return (text[:497] + "...") if len(text) > 500 else text or "provider error"


def _body_message(body: Any) -> str | None:
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and isinstance(message := inner.get("message"), str):
            return message
        if isinstance(message := body.get("message"), str):
            return message
    return None


def _bodies(error: BaseException) -> Iterator[Any]:
    """The error body: the SDK's parsed ``body``, or JSON embedded in the message
    (LiteLLM's Anthropic errors carry the raw response bytes as text)."""
    body = getattr(error, "body", None)
    if body is not None:
        yield body
    match = _JSON.search(str(error))
    if match:
        try:
            yield json.loads(match.group(0))
        except ValueError:
            pass


def _message(chain: list[BaseException], chosen: BaseException) -> str:
    """The provider's own words when a body carries them, else the cleaned exception text."""
    for error in chain:
        for body in _bodies(error):
            found = _body_message(body)
            if found:
                return _clean(found)
    return _clean(str(chosen) or type(chosen).__name__)


_STRONG = (
    "ContextWindowExceededError",
    "ContentPolicyViolationError",
    "RateLimitError",
    "AuthenticationError",
    "PermissionDeniedError",
)


def _choose(chain: list[BaseException]) -> tuple[ErrorType, BaseException]:
    """Most specific signal first: an error body's own type, then LiteLLM's deliberate
    mappings, then the deepest cause (LiteLLM's outer class is often a fallback,
    e.g. a refused connection surfaces as ``InternalServerError``)."""
    for error in chain:
        for body in _bodies(error):
            kind = _kind_of_body(body)
            if kind is not None:
                return kind, error
    for error in chain:
        names = _names(error)
        for name in _STRONG:
            if name in names:
                return _kind_of(error), error
    for error in reversed(chain):
        kind = _kind_of(error)
        if kind is not ErrorType.UNKNOWN:
            return kind, error
    return ErrorType.UNKNOWN, chain[0]


def classify(error: BaseException, *, output_started: bool = False) -> LLMError:
    """Turn anything LiteLLM (or the transport below it) raised into an :class:`LLMError`."""
    if isinstance(error, LLMError):
        return error
    chain = list(_chain(error))
    kind, chosen = _choose(chain)
    status = next((s for s in (_status(e) for e in reversed(chain)) if s is not None), None)
    return LLMError(
        kind,
        _message(chain, chosen),
        retry_after_ms=_retry_after(chain),
        output_started=output_started,
        status=None if kind is ErrorType.TRANSPORT else status,
    )
