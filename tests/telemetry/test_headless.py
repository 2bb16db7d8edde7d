"""Telemetry from the installed ``agent-tui run``: a headless run exports before it exits; a
configured collector without the SDK installed is one warning; telemetry off imports nothing of it."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from agent_tui.core.api import paths
from agent_tui.testing.fake_provider import FakeProvider
from tests.fakes.otlp_receiver import OtlpReceiver
from tests.warmth import UNDER_LOAD_S

AGENT_TUI = str(Path(sys.executable).parent / "agent-tui")


def _configure(endpoint: str | None) -> None:
    config = paths.user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[telemetry]\notlp_endpoint = "{endpoint}"\n' if endpoint else "")


async def _run(fake: FakeProvider, workdir: Path, *command: str) -> tuple[int, str, str]:
    env = {**os.environ, "AGENT_TUI_TEST_TOOLS": "agent_tui.testing.test_tools:register"}
    model = ["--model", "openai/fake-model", "--api-base", fake.openai_base, "--api-key", "test-key"]
    proc = await asyncio.create_subprocess_exec(
        *command,
        "run",
        *model,
        "--permission",
        "allow",
        "echo it",
        cwd=workdir,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), UNDER_LOAD_S)
    return proc.returncode or 0, out.decode(), err.decode()


def _script(fake: FakeProvider) -> None:
    fake.add({"tool_calls": [{"id": "call_1", "name": "echo", "arguments": {"text": "x"}}]}, {"text": "all done"})


async def test_a_headless_run_exports_its_spans_and_metrics_before_it_exits(
    fake: FakeProvider, workdir: Path, collector: OtlpReceiver
) -> None:
    _configure(collector.endpoint)
    _script(fake)
    code, out, err = await _run(fake, workdir, AGENT_TUI)
    assert code == 0, err
    assert out.strip() == "all done"
    # no waiting: the process has exited, so whatever it exported is already here
    assert sorted(span.name.split()[0] for span in collector.spans) == [
        "chat",
        "chat",
        "execute_tool",
        "invoke_agent",
    ]
    assert collector.points("gen_ai.client.token.usage")


_WITHOUT_SDK = """
import sys
class NoSdk:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry.sdk" or name.startswith("opentelemetry.sdk."):
            raise ImportError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, NoSdk())
from agent_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


async def test_telemetry_configured_without_the_sdk_is_one_warning_and_the_run_goes_on(
    fake: FakeProvider, workdir: Path, collector: OtlpReceiver
) -> None:
    _configure(collector.endpoint)
    _script(fake)
    code, out, err = await _run(fake, workdir, sys.executable, "-c", _WITHOUT_SDK)
    assert code == 0, err
    assert out.strip() == "all done"
    (warning,) = [line for line in err.splitlines() if "telemetry" in line]
    assert "agent-tui[telemetry]" in warning and "opentelemetry.sdk" in warning
    assert collector.spans == []


_IMPORTED = """
import sys
from agent_tui.cli import main
code = main(sys.argv[1:])
loaded = sorted(m for m in sys.modules if m.startswith(("opentelemetry.sdk", "opentelemetry.exporter", "agent_tui.telemetry")))
print("LOADED", loaded, file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.parametrize("endpoint", [None, "on"])
async def test_telemetry_off_imports_neither_the_sdk_nor_the_telemetry_package(
    fake: FakeProvider, workdir: Path, collector: OtlpReceiver, endpoint: str | None
) -> None:
    _configure(collector.endpoint if endpoint else None)
    _script(fake)
    code, _, err = await _run(fake, workdir, sys.executable, "-c", _IMPORTED)
    assert code == 0, err
    (loaded,) = [line for line in err.splitlines() if line.startswith("LOADED")]
    if endpoint is None:
        assert loaded == "LOADED []"
    else:  # the same probe sees them when telemetry is on
        assert "agent_tui.telemetry.otel" in loaded and "opentelemetry.sdk" in loaded
