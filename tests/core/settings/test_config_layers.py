"""Config sources read as data (no pydantic): what the TUI's first frame shows before validation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.core.settings import config_validation
from agent_tui.core.settings.config_layers import COMMAND_LINE, ENVIRONMENT, ConfigError, env_layer, read_layers


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_text_follows_the_same_precedence_as_settings(workdir: Path, agent_home: Path) -> None:
    _write(agent_home / "config.toml", 'model = "user/m"\ntheme = "agent-light"\nagent = "plan"\n')
    _write(workdir / ".agent-tui" / "config.toml", 'model = "project/m"\n')
    environ = {"AGENT_TUI_AGENT": "review"}
    layers = read_layers(workdir, cli={"model": "cli/m", "api_key": None}, environ=environ)
    assert [source for source, _ in layers.sources][-2:] == [ENVIRONMENT, COMMAND_LINE]
    assert (layers.text("model"), layers.text("theme"), layers.text("agent")) == ("cli/m", "agent-light", "review")
    settings = config_validation.validate(layers)
    assert (settings.model, settings.theme, settings.agent) == ("cli/m", "agent-light", "review")


def test_text_is_none_for_a_value_that_is_not_a_string(workdir: Path, agent_home: Path) -> None:
    _write(agent_home / "config.toml", "model = 5\n")
    layers = read_layers(workdir, environ={})
    assert layers.text("model") is None and layers.text("theme") is None
    with pytest.raises(ConfigError, match="config.toml: model"):  # validation still names the file
        config_validation.validate(layers)


def test_an_unreadable_file_fails_while_reading(workdir: Path) -> None:
    bad = _write(workdir / ".agent-tui" / "config.toml", "theme = [1\n")
    with pytest.raises(ConfigError, match="invalid TOML") as caught:
        read_layers(workdir, environ={})
    assert str(bad) in str(caught.value)


def test_environment_names_that_are_not_settings_are_ignored(workdir: Path) -> None:
    environ = {
        "AGENT_TUI_TEST_MARKS": "/tmp/x",
        "AGENT_TUI_MODELS": "x",
        "AGENT_TUI_HOME": "/h",
        "AGENT_TUI_RETRY": "x",
        "AGENT_TUI_RETRY__MAX_RETRIES": "2",
        "PATH": "/bin",
    }
    assert env_layer(environ) == {"test_marks": "/tmp/x", "models": "x", "retry": {"max_retries": "2"}}
    assert config_validation.validate(read_layers(workdir, environ=environ)).retry.max_retries == 2


def test_reading_layers_imports_no_pydantic(workdir: Path) -> None:
    code = (
        "import sys\nfrom pathlib import Path\nfrom agent_tui.core.settings.config_layers import read_layers\n"
        f"read_layers(Path({str(workdir)!r})).text('model')\nprint('pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
