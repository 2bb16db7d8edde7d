"""Provider failures as one exception with a closed set of kinds.

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
from email.utils import parsedate_to_datetime
from enum import StrEnum
from typing import Any, Iterator, Mapping


class ErrorKind(StrEnum):
    RATE_LIMIT = "provider.rate-limit"
    INTERNAL = "provider.internal"
    TRANSPORT = "provider.transport"
    CONTEXT_OVERFLOW = "provider.context-overflow"
    CONTENT_FILTER = "provider.content-filter"
    AUTH = "provider.auth"
    INVALID_REQUEST = "provider.invalid-request"
    UNKNOWN = "provider.unknown"


RETRYABLE = frozenset({ErrorKind.RATE_LIMIT, ErrorKind.INTERNAL, ErrorKind.TRANSPORT})


class LLMError(Exception):
    """A classified provider failure; ``output_started`` says whether events were yielded."""

    def __init__(
        self,
        type: ErrorKind | str,
        message: str,
        *,
        retry_after_ms: int | None = None,
        output_started: bool = False,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.type = ErrorKind(type)
        self.message = message
        self.retry_after_ms = retry_after_ms
        self.output_started = output_started
        self.status = status

    @property
    def retryable(self) -> bool:
        return self.type in RETRYABLE

    def info(self) -> dict[str, Any]:
        """``{type, message, retry_after_ms}`` as the event schema stores errors."""
        return {"type": str(self.type), "message": self.message, "retry_after_ms": self.retry_after_ms}

    def __repr__(self) -> str:
        return f"LLMError({self.type!s}, {self.message!r}, status={self.status}, output_started={self.output_started})"


# Ordered: the first class name found in an exception's MRO decides. Specific
# classes first; generic status classes only after the message had its say,
# because LiteLLM reports e.g. an Anthropic mid-stream rate-limit event as a 500.
_SPECIFIC: tuple[tuple[str, ErrorKind], ...] = (
    ("ContextWindowExceededError", ErrorKind.CONTEXT_OVERFLOW),
    ("ContentPolicyViolationError", ErrorKind.CONTENT_FILTER),
    ("RateLimitError", ErrorKind.RATE_LIMIT),
    ("AuthenticationError", ErrorKind.AUTH),
    ("PermissionDeniedError", ErrorKind.AUTH),
    ("Timeout", ErrorKind.TRANSPORT),
    ("APITimeoutError", ErrorKind.TRANSPORT),
    ("APIConnectionError", ErrorKind.TRANSPORT),
    ("TransportError", ErrorKind.TRANSPORT),  # httpx
    ("ClientError", ErrorKind.TRANSPORT),  # aiohttp
    ("RemoteProtocolError", ErrorKind.TRANSPORT),
    ("IncompleteRead", ErrorKind.TRANSPORT),
)
_GENERIC: tuple[tuple[str, ErrorKind], ...] = (
    ("InternalServerError", ErrorKind.INTERNAL),
    ("BadGatewayError", ErrorKind.INTERNAL),
    ("BadRequestError", ErrorKind.INVALID_REQUEST),
    ("NotFoundError", ErrorKind.INVALID_REQUEST),
    ("UnprocessableEntityError", ErrorKind.INVALID_REQUEST),
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


def _kind_of(error: BaseException) -> ErrorKind:
    names = _names(error)
    text = str(error)
    if _OVERFLOW.search(text):
        return ErrorKind.CONTEXT_OVERFLOW
    if _FILTER.search(text):
        return ErrorKind.CONTENT_FILTER
    for name, kind in _SPECIFIC:
        if name in names:
            return kind
    if isinstance(error, (ConnectionError, asyncio.TimeoutError, TimeoutError, EOFError)):
        return ErrorKind.TRANSPORT
    if _RATE.search(text):
        return ErrorKind.RATE_LIMIT
    for name, kind in _GENERIC:
        if name in names:
            return kind
    status = _status(error)
    if status is not None and type(error).__name__ not in _WRAPPERS:
        return _kind_of_status(status)
    if _TRANSPORT.search(text):
        return ErrorKind.TRANSPORT
    if _OVERLOADED.search(text):
        return ErrorKind.INTERNAL
    if status is not None:
        return _kind_of_status(status)
    return ErrorKind.UNKNOWN


_BODY_TYPES = {
    "rate_limit_exceeded": ErrorKind.RATE_LIMIT,
    "rate_limit_error": ErrorKind.RATE_LIMIT,
    "server_error": ErrorKind.INTERNAL,
    "api_error": ErrorKind.INTERNAL,
    "overloaded_error": ErrorKind.INTERNAL,
    "context_length_exceeded": ErrorKind.CONTEXT_OVERFLOW,
    "content_filter": ErrorKind.CONTENT_FILTER,
    "content_policy_violation": ErrorKind.CONTENT_FILTER,
    "authentication_error": ErrorKind.AUTH,
    "invalid_api_key": ErrorKind.AUTH,
    "permission_error": ErrorKind.AUTH,
    "invalid_request_error": ErrorKind.INVALID_REQUEST,
    "not_found_error": ErrorKind.INVALID_REQUEST,
}


def _kind_of_body(body: Any) -> ErrorKind | None:
    """An error body's own ``code``/``type`` (the most specific signal there is)."""
    if not isinstance(body, dict):
        return None
    inner = body.get("error") if isinstance(body.get("error"), dict) else body
    message = str(inner.get("message") or "")
    if _OVERFLOW.search(message):
        return ErrorKind.CONTEXT_OVERFLOW
    if _FILTER.search(message):
        return ErrorKind.CONTENT_FILTER
    for key in ("code", "type"):
        kind = _BODY_TYPES.get(str(inner.get(key)))
        if kind is not None:
            return kind
    return None


def _kind_of_status(status: int) -> ErrorKind:
    if status == 429:
        return ErrorKind.RATE_LIMIT
    if status in (401, 403):
        return ErrorKind.AUTH
    if status == 413:
        return ErrorKind.CONTEXT_OVERFLOW
    if 400 <= status < 500:
        return ErrorKind.INVALID_REQUEST
    if status >= 500:
        return ErrorKind.INTERNAL
    return ErrorKind.UNKNOWN


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
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
        if isinstance(body.get("message"), str):
            return body["message"]
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


_STRONG = ("ContextWindowExceededError", "ContentPolicyViolationError", "RateLimitError",
           "AuthenticationError", "PermissionDeniedError")


def _choose(chain: list[BaseException]) -> tuple[ErrorKind, BaseException]:
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
        if kind is not ErrorKind.UNKNOWN:
            return kind, error
    return ErrorKind.UNKNOWN, chain[0]


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
        status=None if kind is ErrorKind.TRANSPORT else status,
    )
