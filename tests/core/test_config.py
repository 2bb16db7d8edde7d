from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core import config
from agent_tui.vocab.kinds import Effect


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults(workdir: Path) -> None:
    settings = config.load_settings(workdir, environ={})
    assert settings.agent == "build"
    assert settings.agent_settings().steps == 50
    assert settings.retry.base_delay_ms == 2000
    assert settings.compaction.buffer == 20_000


def test_layers_in_precedence_order(workdir: Path, agent_home: Path) -> None:
    _write(agent_home / "config.toml", 'model = "user/m"\ntheme = "light"\n[retry]\nbase_delay_ms = 10\n')
    _write(workdir / ".agent-tui" / "config.toml", 'model = "project/m"\n[agents.build]\nsteps = 7\n')
    settings = config.load_settings(workdir, environ={})
    assert (settings.model, settings.theme, settings.retry.base_delay_ms) == ("project/m", "light", 10)
    assert settings.agent_settings().steps == 7

    env = {"AGENT_TUI_MODEL": "env/m", "AGENT_TUI_RETRY__BASE_DELAY_MS": "3"}
    settings = config.load_settings(workdir, environ=env)
    assert (settings.model, settings.retry.base_delay_ms) == ("env/m", 3)

    settings = config.load_settings(workdir, cli={"model": "cli/m", "api_base": None}, environ=env)
    assert settings.model == "cli/m"


def test_project_config_found_from_a_subdirectory(workdir: Path) -> None:
    _write(workdir / ".agent-tui" / "config.toml", 'small_model = "s"\n')
    sub = workdir / "a" / "b"
    sub.mkdir(parents=True)
    assert config.load_settings(sub, environ={}).small_model == "s"


def test_permission_rules_and_model_overrides(workdir: Path, agent_home: Path) -> None:
    _write(
        agent_home / "config.toml",
        '[[permission]]\naction = "bash"\npattern = "git status*"\neffect = "allow"\n'
        '[models."openai/fake"]\ncontext_window = 8000\nmax_output_tokens = 1000\n',
    )
    settings = config.load_settings(workdir, environ={})
    assert settings.permission[0].effect is Effect.ALLOW
    assert settings.model_settings("openai/fake").context_window == 8000


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[retry]\nbase_delay = 1\n", "retry.base_delay"),
        ("[agents.build]\nsteps = 0\n", "agents.build.steps"),
        ("theme = [1\n", "invalid TOML"),
        ('[[permission]]\naction = "bash"\neffect = "maybe"\n', "permission.0.effect"),
    ],
)
def test_bad_file_names_file_and_key(workdir: Path, text: str, needle: str) -> None:
    bad = _write(workdir / ".agent-tui" / "config.toml", text)
    with pytest.raises(config.ConfigError) as caught:
        config.load_settings(workdir, environ={})
    assert str(bad) in str(caught.value)
    assert needle in str(caught.value)


def test_bad_environment_value_is_named(workdir: Path) -> None:
    with pytest.raises(config.ConfigError, match="environment.*retry.base_delay_ms"):
        config.load_settings(workdir, environ={"AGENT_TUI_RETRY__BASE_DELAY_MS": "soon"})
