"""What the warm process imports ahead of the launches: the telemetry package and the OpenTelemetry
SDK only when the user's config names a collector (telemetry off costs nothing, warm or not)."""

from __future__ import annotations

from pathlib import Path

from agent_tui.warm import server


def test_the_warm_up_leaves_telemetry_out_unless_a_collector_is_configured(agent_home: Path) -> None:
    modules = set(server._agent_tui_modules())
    assert "agent_tui.core.runtime" in modules
    assert not {name for name in modules if name.startswith("agent_tui.telemetry")}
    (agent_home / "config.toml").write_text('[telemetry]\notlp_endpoint = "http://127.0.0.1:4318"\n')
    assert {"agent_tui.telemetry", "agent_tui.telemetry.otel"} <= set(server._agent_tui_modules())
