"""A server's progress during a tool call (``notifications/progress``) as a live output line of its block.

Progress is live-only, like bash's output while it runs: the line goes through
``ToolScope.on_output`` (published as ``tool.output.delta``) and nothing of it
is stored; the tool's result is what the log keeps.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable


def progress_line(progress: float, total: float | None, message: str | None) -> str:
    """``progress 3/10: message`` (``progress 3`` without a total, no ``: …`` without a message)."""
    done = f"{progress:g}/{total:g}" if total is not None else f"{progress:g}"
    text = " ".join((message or "").split())  # one line, whatever the server sent
    return f"progress {done}: {text}\n" if text else f"progress {done}\n"


def progress_callback(on_output: Callable[[str], None]) -> Callable[[float, float | None, str | None], Awaitable[None]]:
    """The SDK's ``progress_callback`` for ``call_tool``: each notification becomes one live line."""

    async def report(progress: float, total: float | None, message: str | None) -> None:
        on_output(progress_line(progress, total, message))

    return report
