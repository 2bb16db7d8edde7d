"""``agent-tui`` as installed: the console script next to the interpreter, in a subprocess, against the
fake provider (one launch mode: started in-process; the warm launcher's pass-through of exit codes
has its own tests in ``tests/warm``)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_tui.testing.fake_provider import FakeProvider
from tests.commands.test_run_cmd import Cli
from tests.warmth import LaunchMode

AGENT_TUI = Path(sys.executable).parent / "agent-tui"
SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "run-events.schema.json"


class InstalledCli(Cli):
    async def start(self, *args: str, ignoring: tuple[int, ...] = ()) -> asyncio.subprocess.Process:
        assert not ignoring
        proc = await asyncio.create_subprocess_exec(
            str(AGENT_TUI),
            *args,
            cwd=self.workdir,
            env=self.env(),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        self.started.append(proc)
        return proc


@pytest.fixture
async def installed(fake: FakeProvider, workdir: Path, agent_home: Path, runtime_dir: Path) -> AsyncIterator[Cli]:
    cli = InstalledCli(fake, workdir, agent_home, LaunchMode("in-process", runtime_dir))
    yield cli
    await cli.close()


def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))


def checked_lines(out: str) -> list[dict[str, Any]]:
    """Every stdout line, parsed, after checking each against the published schema (all errors listed)."""
    check = validator()
    lines = []
    for number, text in enumerate(out.splitlines(), start=1):
        line = json.loads(text)
        error = jsonschema.exceptions.best_match(check.iter_errors(line))
        assert error is None, (number, text[:300], "/".join(map(str, error.absolute_path)), error.message)
        lines.append(line)
    assert lines, "no line printed"
    return lines
