"""What one tool call may touch and whom it asks: the scope a tool runs in.

The runner builds one per tool call. Cancellation is plain asyncio task
cancellation: tools clean up (bash kills its process group) on
``CancelledError``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.tools.asks import CallOrigin, PermissionChecker
from agent_tui.tools.sandbox import SandboxPolicy
from agent_tui.vocab.elicitation import ElicitationAnswer, ElicitationRequest
from agent_tui.vocab.sampling import SamplingAnswer, SamplingRequest
from agent_tui.vocab.skill import Skill


def _ignore(_: str) -> None:
    return None


@dataclass
class ToolScope:
    location: Path
    """The session's working directory; relative tool paths resolve against it."""
    project_root: Path
    gate: PermissionChecker
    spill_dir: Path
    """Where bash spills full output (the runner passes ``core.paths.spill_dir()``)."""
    session_id: str = ""
    assistant_message_id: str = ""
    call_id: str = ""
    on_output: Callable[[str], None] = _ignore
    """Live output (bash); the runner publishes it as ``tool.output.delta``."""
    supports_vision: bool = False
    kill_grace_s: float = 3.0
    """Seconds between SIGTERM and SIGKILL of a bash process group."""
    shell_env_include: tuple[str, ...] = ()
    """Secret-looking variables bash still gets (``[shell] env.include``; see ``shell_env``)."""
    references: Mapping[str, Path] = field(default_factory=dict)
    """Reference folders by name (``[references.NAME]``): ``read`` opens ``NAME:path`` in them."""
    sandbox: SandboxPolicy | None = None
    """Where shell commands may write and connect; None: no sandbox (full access)."""
    skills: Mapping[str, Skill] = field(default_factory=dict)
    """The skills found for this location, by name (core discovers them; the ``skill`` tool loads one)."""
    elicit: Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]] | None = None
    """Asks the user an MCP server's question during this call (core records it); None: declined."""
    sample: Callable[[SamplingRequest], Awaitable[SamplingAnswer]] | None = None
    """Runs an MCP server's sampling request on the session's model once the user approves it; None: declined."""

    def __post_init__(self) -> None:
        self.location = Path(self.location).resolve()
        self.project_root = Path(self.project_root).resolve()

    async def ask(
        self,
        action: str,
        resources: list[str],
        *,
        detail: dict[str, Any] | None = None,
        save_patterns: list[str] | None = None,
    ) -> None:
        """Pass the permission gate or raise ``PermissionRejected``/``PermissionDenied``."""
        origin = CallOrigin(
            session_id=self.session_id,
            assistant_message_id=self.assistant_message_id or None,
            call_id=self.call_id or None,
        )
        await self.gate.check(action, resources, detail=detail, save_patterns=save_patterns, origin=origin)
