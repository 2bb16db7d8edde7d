"""Every failure becomes ``{"error": {"type", "message"}}`` with the right status.

Core raises typed store errors; this middleware is the one place that maps
them to HTTP, so handlers just call the facade and let errors fly.
"""

from __future__ import annotations

import logging

from aiohttp import web
from aiohttp.typedefs import Handler

from agent_tui.core.api import (
    AdmissionConflict,
    ConfigError,
    DatabaseLocked,
    EventRejected,
    InvalidRequest,
    RewindRefused,
    SessionBusy,
    SessionExists,
    SessionOwnedElsewhere,
    SnapshotError,
    StoreError,
    UnknownElicitation,
    UnknownInput,
    UnknownMessage,
    UnknownPermission,
    UnknownSession,
)
from agent_tui.server.bodies import ErrorBody, ErrorResponse

log = logging.getLogger(__name__)

_HTTP_TYPES = {
    400: "invalid-request",
    401: "unauthorized",
    404: "not-found",
    405: "method-not-allowed",
    409: "conflict",
    413: "too-large",
    415: "unsupported-media-type",
    421: "misdirected",
    422: "invalid-content",
    503: "unavailable",
}


class ApiError(Exception):
    """A refusal the server decides itself (bad body, bad token, bad location)."""

    def __init__(self, status: int, message: str, type: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.type = type or _HTTP_TYPES.get(status, "error")


def bad_request(message: str) -> ApiError:
    return ApiError(400, message)


def http_status_and_type(error: BaseException) -> tuple[int, str]:
    """``(status, type)`` for a facade error."""
    match error:
        case ApiError():
            return error.status, error.type
        case InvalidRequest(problems=problems) if problems:
            return 422, "invalid-content"
        case InvalidRequest():
            return 400, "invalid-request"
        case UnknownSession() | UnknownPermission() | UnknownInput() | UnknownMessage() | UnknownElicitation():
            return 404, "not-found"
        case SnapshotError():
            return 409, "snapshot"
        case AdmissionConflict() | EventRejected() | SessionExists() | RewindRefused() | SessionBusy():
            return 409, "conflict"
        case SessionOwnedElsewhere():
            return 409, "owned-elsewhere"
        case DatabaseLocked():
            return 503, "unavailable"
        case ConfigError():
            return 500, "config"
        case StoreError():
            return 500, "store"
    return 500, "internal"


def error_response(
    status: int, type: str, message: str, headers: dict[str, str] | None = None, problems: tuple[str, ...] = ()
) -> web.Response:
    body = ErrorResponse(error=ErrorBody(type=type, message=message, problems=list(problems) or None))
    return web.json_response(body.model_dump(exclude_none=True), status=status, headers=headers)


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException as error:
        if error.status < 400:
            raise
        if error.status == 404:
            message = f"no such endpoint: {request.method} {request.path}"
        elif error.status == 405:
            message = f"{request.method} is not allowed on {request.path}"
        else:
            message = error.reason
        allow = {"Allow": error.headers["Allow"]} if "Allow" in error.headers else None  # required on a 405
        return error_response(error.status, _HTTP_TYPES.get(error.status, "error"), message, allow)
    except (ApiError, StoreError, SessionOwnedElsewhere, ConfigError, UnknownElicitation) as error:
        status, type_ = http_status_and_type(error)
        if status >= 500:
            log.error("%s %s failed: %s", request.method, request.path, error)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return error_response(status, type_, str(error), headers, getattr(error, "problems", ()))
    except Exception as error:  # a bug: answer 500 and keep serving
        log.exception("%s %s failed", request.method, request.path)
        return error_response(500, "internal", f"{type(error).__name__}: {error}")
