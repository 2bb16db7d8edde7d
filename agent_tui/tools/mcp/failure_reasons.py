"""What a failure of the SDK says in one line: the SDK's anyio task groups wrap it in exception groups."""

from __future__ import annotations


def innermost(error: BaseException) -> BaseException:
    """The SDK's anyio task groups wrap a failure in exception groups: the first leaf says what happened."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def is_closed(error: BaseException) -> bool:
    """The server's transport closed (its process exited, its stream ended): a crash, not a refusal."""
    inner = innermost(error)
    return "closed" in str(inner).lower() or type(inner).__name__ in {
        "ClosedResourceError",
        "BrokenResourceError",
        "EndOfStream",
    }


def reason_of(error: BaseException) -> str:
    """The innermost failure's type and words, as a notice shows them."""
    inner = innermost(error)
    text = str(inner).strip()
    return f"{type(inner).__name__}: {text}" if text else type(inner).__name__
