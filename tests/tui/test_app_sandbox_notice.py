"""Where commands cannot be confined, the app says so once at open; never a silent fallback."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.settings.config_validation import load_settings
from agent_tui.tools import sandbox
from tests.fakes.sessions import FakeSessions


def _sandbox_notices(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(n.message) for n in app._notifications if "no command sandbox" in str(n.message)]


@pytest.mark.parametrize(("mode", "told"), [("workspace-write", 1), ("full-access", 0)])
async def test_no_bwrap_is_told_once_unless_commands_run_with_full_access_anyway(
    fake_sessions: FakeSessions,
    make_app,  # noqa: ANN001
    workdir: Path,
    agent_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    told: int,
) -> None:
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    monkeypatch.setattr(sandbox.sys, "platform", "linux")
    (agent_home / "config.toml").write_text(f'[sandbox]\nmode = "{mode}"\n')
    app = make_app(settings=load_settings(workdir, environ={}))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert len(_sandbox_notices(app)) == told
        if told:
            assert "bubblewrap (bwrap) is not installed" in _sandbox_notices(app)[0]
