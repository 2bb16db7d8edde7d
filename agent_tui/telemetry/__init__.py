"""Opt-in OpenTelemetry export of what sessions do (``[telemetry]``): the core's ``RunObserver``.

The core imports this package only when ``otlp_endpoint`` is set, and the SDK (the
``agent-tui[telemetry]`` extra) is imported only here, by ``start``: with telemetry off nothing
of it is loaded.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping

from agent_tui.vocab.observation import RunObserver


def stderr(line: str) -> None:
    print(f"agent-tui: {line}", file=sys.stderr, flush=True)


def start(
    endpoint: str,
    headers: Mapping[str, str],
    service_name: str,
    log_prompts: bool,
    warn: Callable[[str], None] = stderr,
) -> RunObserver | None:
    """The OpenTelemetry observer exporting to ``endpoint``; None, after one warning, when the
    telemetry extra is not installed (the agent then runs without it)."""
    try:
        from agent_tui.telemetry.otel import OtelObserver
    except ImportError as error:
        warn(
            f"telemetry is configured but the OpenTelemetry SDK is missing ({error.name}); "
            "install agent-tui[telemetry]. Running without telemetry."
        )
        return None
    return OtelObserver(endpoint, dict(headers), service_name, log_prompts, warn)
