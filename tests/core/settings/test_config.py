from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.settings import config_layers, config_validation
from agent_tui.vocab.kinds import Effect


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults(workdir: Path) -> None:
    settings = config_validation.load_settings(workdir, environ={})
    assert settings.agent == "build"
    assert settings.agent_settings().steps == 50
    assert settings.retry.base_delay_ms == 2000
    assert settings.compaction.buffer == 20_000
    assert (settings.context.prune, settings.context.prune_protect_tokens) == (True, 40_000)
    assert settings.context.prune_minimum_tokens == 20_000


def test_layers_in_precedence_order(workdir: Path, agent_home: Path) -> None:
    _write(agent_home / "config.toml", 'model = "user/m"\ntheme = "light"\n[retry]\nbase_delay_ms = 10\n')
    _write(workdir / ".agent-tui" / "config.toml", 'model = "project/m"\n[agents.build]\nsteps = 7\n')
    settings = config_validation.load_settings(workdir, environ={})
    assert (settings.model, settings.theme, settings.retry.base_delay_ms) == ("project/m", "light", 10)
    assert settings.agent_settings().steps == 7

    env = {"AGENT_TUI_MODEL": "env/m", "AGENT_TUI_RETRY__BASE_DELAY_MS": "3"}
    settings = config_validation.load_settings(workdir, environ=env)
    assert (settings.model, settings.retry.base_delay_ms) == ("env/m", 3)

    settings = config_validation.load_settings(workdir, cli={"model": "cli/m", "api_base": None}, environ=env)
    assert settings.model == "cli/m"


def test_project_config_found_from_a_subdirectory(workdir: Path) -> None:
    _write(workdir / ".agent-tui" / "config.toml", 'small_model = "s"\n')
    sub = workdir / "a" / "b"
    sub.mkdir(parents=True)
    assert config_validation.load_settings(sub, environ={}).small_model == "s"


def test_permission_rules_and_model_overrides(workdir: Path, agent_home: Path) -> None:
    _write(
        agent_home / "config.toml",
        '[[permission]]\naction = "bash"\npattern = "git status*"\neffect = "allow"\n'
        '[models."openai/fake"]\ncontext_window = 8000\nmax_output_tokens = 1000\n',
    )
    settings = config_validation.load_settings(workdir, environ={})
    assert settings.permission[0].effect is Effect.ALLOW
    assert settings.model_settings("openai/fake").context_window == 8000


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[retry]\nbase_delay = 1\n", "retry.base_delay"),
        ("[agents.build]\nsteps = 0\n", "agents.build.steps"),
        ("theme = [1\n", "invalid TOML"),
        ('[[permission]]\naction = "bash"\neffect = "maybe"\n', "permission.0.effect"),
        (
            '[mcp.servers.docs]\ncommand = ["x"]\nurl = "http://h/mcp"\n',
            "mcp.servers.docs: Value error, set exactly one",
        ),
        ('[mcp.servers.docs]\ncommand = "docs-server"\n', "mcp.servers.docs.command"),
        ('[mcp.servers."my docs"]\nurl = "http://h/mcp"\n', "mcp.servers: Value error, server name 'my docs'"),
        ('[mcp.servers.docs]\nurl = "http://h/mcp"\ntimeout = 5\n', "mcp.servers.docs.timeout"),
        ('[agents.build]\nmcp = "docs"\n', "agents.build.mcp"),
        ('[agents.review]\nmode = "sometimes"\n', "agents.review.mode: Value error, 'sometimes' is not one of"),
        ("[agents.review]\ntemperature = 3\n", "agents.review.temperature"),
        ('[agents.review]\ntools = "read"\n', "agents.review.tools"),
        ("[context]\nprune_minimum_tokens = 0\n", "context.prune_minimum_tokens"),
        ("[context]\nprune_after = 3\n", "context.prune_after"),
    ],
)
def test_bad_file_names_file_and_key(workdir: Path, text: str, needle: str) -> None:
    bad = _write(workdir / ".agent-tui" / "config.toml", text)
    with pytest.raises(config_layers.ConfigError) as caught:
        config_validation.load_settings(workdir, environ={})
    assert str(bad) in str(caught.value)
    assert needle in str(caught.value)


def test_bad_environment_value_is_named(workdir: Path) -> None:
    with pytest.raises(config_layers.ConfigError, match="environment.*retry.base_delay_ms"):
        config_validation.load_settings(workdir, environ={"AGENT_TUI_RETRY__BASE_DELAY_MS": "soon"})


def test_mcp_servers_and_the_agents_selection(workdir: Path, trusted_projects: None) -> None:
    _write(
        workdir / ".agent-tui" / "config.toml",
        (
            '[mcp.servers.docs]\nurl = "http://h/mcp"\nheaders = { Authorization = "Bearer t" }\n'
            '[mcp.servers.notes]\ncommand = ["notes-server", "--stdio"]\nenv = { TOKEN = "x" }\ntimeout_s = 5\n'
            '[mcp.servers.off]\ncommand = ["off"]\nenabled = false\n'
            '[agents.plan]\nmcp = ["docs"]\n'
        ),
    )
    settings = config_validation.load_settings(workdir, environ={})
    assert settings.mcp.servers["notes"].command == ["notes-server", "--stdio"]
    assert settings.mcp.servers["notes"].timeout_s == 5 and settings.mcp.servers["docs"].transport == "http"
    assert list(settings.mcp_servers("build")) == ["docs", "notes"]  # every enabled server by default
    assert list(settings.mcp_servers("plan")) == ["docs"]


def test_reference_names_must_be_able_to_stand_before_a_colon(tmp_path: Path) -> None:
    from pydantic import ValidationError

    from agent_tui.core.settings.config import Settings

    with pytest.raises(ValidationError, match="reference name 'my docs'"):
        Settings.model_validate({"references": {"my docs": {"path": "x"}}})
    settings = Settings.model_validate({"references": {"docs": {"path": "../docs"}, "home": {"path": "/abs"}}})
    project = tmp_path / "repo"
    assert settings.reference_roots(project) == {"docs": (tmp_path / "docs").resolve(), "home": Path("/abs")}


def test_a_variable_for_a_table_only_config_files_set_is_named_not_silently_ignored(workdir: Path) -> None:
    env = {"AGENT_TUI_AGENTS__BUILD__STEPS": "3", "AGENT_TUI_RETRY__MAX_RETRIES": "2", "AGENT_TUI_MCP__X": "y"}
    settings = config_validation.load_settings(workdir, environ=env)
    assert settings.retry.max_retries == 2 and settings.agent_settings("build").steps != 3
    assert settings.problems == [
        "environment (AGENT_TUI_*): AGENT_TUI_AGENTS__… is ignored: [agents] is set in config files only",
        "environment (AGENT_TUI_*): AGENT_TUI_MCP__… is ignored: [mcp] is set in config files only",
    ]
    assert config_validation.load_settings(workdir, environ={"AGENT_TUI_MODEL": "m"}).problems == []


def test_telemetry_is_off_by_default_and_a_bad_endpoint_is_named(workdir: Path, agent_home: Path) -> None:
    telemetry = config_validation.load_settings(workdir, environ={}).telemetry
    assert telemetry.otlp_endpoint is None and telemetry.log_prompts is False
    bad = _write(agent_home / "config.toml", '[telemetry]\notlp_endpoint = "collector:4318"\n')
    with pytest.raises(
        config_layers.ConfigError, match=r"telemetry.otlp_endpoint: Value error, 'collector:4318' is not an http"
    ):
        config_validation.load_settings(workdir, environ={})
    _write(bad, '[telemetry]\notlp_endpoint = "http://127.0.0.1:4318/"\nheaders = { x-key = "k" }\n')
    telemetry = config_validation.load_settings(workdir, environ={}).telemetry
    assert telemetry.otlp_endpoint == "http://127.0.0.1:4318" and telemetry.headers == {"x-key": "k"}
