"""A fake LLM provider speaking the OpenAI and Anthropic streaming wire formats.

``python -m agent_tui.testing.fake_provider --port PORT --script FILE.json``
serves a script from the shell; tests use :class:`FakeProvider` directly.
"""

from agent_tui.testing.fake_provider.script import (
    Script,
    ScriptError,
    ScriptFailure,
    ScriptToolCall,
    ScriptUsage,
    Turn,
    load_script,
)
from agent_tui.testing.fake_provider.server import FakeProvider, RecordedRequest

__all__ = [
    "FakeProvider",
    "RecordedRequest",
    "Script",
    "ScriptError",
    "ScriptFailure",
    "ScriptToolCall",
    "ScriptUsage",
    "Turn",
    "load_script",
]
