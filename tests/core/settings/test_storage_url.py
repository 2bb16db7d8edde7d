"""``storage.url``: where the sessions live, set in a config file or by ``AGENT_TUI_DATABASE_URL``."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.settings import paths
from agent_tui.core.settings.config_layers import ConfigError
from agent_tui.core.settings.config_validation import load_settings
from agent_tui.core.settings.trust import split_powers

URL = "postgresql://agent@db.internal:5432/sessions"


def test_sqlite_is_the_default(workdir: Path) -> None:
    assert load_settings(workdir, environ={}).storage.url is None


def test_the_config_file_or_the_environment_names_the_database(workdir: Path) -> None:
    paths.user_config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.user_config_file().write_text(f'[storage]\nurl = "{URL}"\n')
    assert load_settings(workdir, environ={}).storage.url == URL
    other = "postgresql://ci@localhost/runs"
    assert load_settings(workdir, environ={"AGENT_TUI_DATABASE_URL": other}).storage.url == other


def test_anything_but_a_postgresql_url_is_refused_naming_the_setting(workdir: Path) -> None:
    with pytest.raises(ConfigError, match=r"storage\.url.*must be a postgresql:// URL"):
        load_settings(workdir, environ={"AGENT_TUI_DATABASE_URL": "mysql://x@y/z"})


def test_a_project_config_choosing_the_database_needs_trust() -> None:
    kept, powers = split_powers({"storage": {"url": URL, "busy_timeout_ms": 100}})
    assert kept == {"storage": {"busy_timeout_ms": 100}}
    assert powers.wanted == {"storage.url": URL}
    assert powers.lines == ("store sessions in a PostgreSQL database (storage.url)",)


def test_a_project_config_timing_the_shared_databases_leases_needs_trust() -> None:
    """A shorter lease makes other hosts take over sessions that still run: the user's choice."""
    kept, powers = split_powers({"storage": {"lease_ttl_ms": 1_000, "synchronous": "full"}})
    assert kept == {"storage": {"synchronous": "full"}}
    assert powers.wanted == {"storage.lease_ttl_ms": 1_000}
    assert powers.lines == ("set how long this host's leases on a shared database live: 1000 ms",)


def test_an_untrusted_projects_lease_timing_is_not_applied(workdir: Path) -> None:
    project = workdir / ".agent-tui"
    project.mkdir(parents=True, exist_ok=True)
    (project / "config.toml").write_text("[storage]\nlease_ttl_ms = 2000\n")
    assert load_settings(workdir, environ={}).storage.lease_ttl_ms == 15_000
