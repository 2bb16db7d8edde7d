"""The one door into core: everything ``tui/``, ``server/``, ``commands/`` and ``warm/`` may use.

Callers outside core import from here and nothing else, the event types too
(``from agent_tui.core.api import events``); the types every layer shares, such
as ``Delivery`` or ``ErrorInfo``, come from ``agent_tui.vocab``. The ``door``
contract in ``pyproject.toml`` and ``tests/test_layering.py`` enforce it. Names load lazily (PEP 562): ``from agent_tui.core.api import
read_layers`` costs only the config-layer module, so the TUI's first frame
and ``--version`` never pay for pydantic, the store or the runner before
they need them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    # The facade and how to open it.
    "Sessions": "sessions",
    "History": "sessions",
    "HISTORY_MAX": "sessions",
    "open_sessions": "sessions",
    "Runtime": "runtime",
    "peek_sessions": "store.peek",
    # Its records.
    "SessionRecord": "log.records",
    "SessionSummary": "log.records",
    "MessageRecord": "log.records",
    "InboxRecord": "log.records",
    "PermissionRecord": "log.records",
    "SessionRow": "log.session_row",
    "Receipt": "inbox.admission",
    "RewindPoint": "history.rewind",
    "FilesPreview": "history.rewind",
    "RewindState": "history.rewind",
    "RewindResult": "history.rewind",
    # The log: one marker after replay, the live subscription.
    "Synced": "store.tail",
    "Subscription": "store.bus",
    # Errors, each one line for the user.
    "StoreError": "errors",
    "UnknownSession": "errors",
    "UnknownInput": "errors",
    "SessionExists": "errors",
    "EventRejected": "errors",
    "DatabaseLocked": "errors",
    "InvalidRequest": "sessions",
    "UnknownPermission": "sessions",
    "AdmissionConflict": "inbox.admission",
    "SessionOwnedElsewhere": "run.lease",
    "UnknownMessage": "history.rewind",
    "RewindRefused": "history.rewind",
    "SnapshotError": "workspace.snapshots",
    "NotAnExport": "transfer.import_jsonl",
    "SessionBusy": "errors",
    "ConfigError": "settings.config_layers",
    # Prompts: @mentions and --file paths as durable parts.
    "build_prompt": "inbox.attachments",
    "mentions": "inbox.attachments",
    "attach_policy": "inbox.attachments",
    "vision_check": "inbox.attachments",
    "AttachmentError": "inbox.attachments",
    "NeedsApproval": "inbox.attachments",
    # Configuration.
    "Settings": "settings.config",
    "load_settings": "settings.config",
    "validate": "settings.config",
    "read_layers": "settings.config_layers",
    "DEFAULT_AGENT": "settings.config_layers",
    "UntrustedProject": "settings.config_layers",
    "find_project_config": "settings.config_layers",
    # What is known about a model before a step runs (from the layer below core).
    "model_info": "agent_tui.llm.models:model_info",
    "load_llm": "agent_tui.llm.lazy:load",
    "preload_llm": "agent_tui.llm.lazy:preload",
    "resolve_credentials": "agent_tui.llm.credentials:resolve_credentials",
    "CredentialsError": "agent_tui.llm.credentials:CredentialsError",
}
_MODULES = {"paths": "settings.paths", "events": "log.events", "trust": "settings.trust"}
"""Whole modules on the surface: where files live, the event types, and project trust."""

__all__ = sorted([*_EXPORTS, *_MODULES])


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f"agent_tui.core.{_MODULES[name]}")
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, _, attr = where.partition(":")
    path = module if module.startswith("agent_tui.") else f"agent_tui.core.{module}"
    value = getattr(importlib.import_module(path), attr or name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # what the names are, for type checkers and readers
    from agent_tui.core.log import events
    from agent_tui.core.settings import paths
    from agent_tui.core.settings import trust
    from agent_tui.core.inbox.admission import AdmissionConflict, Receipt
    from agent_tui.core.inbox.attachments import (
        AttachmentError, NeedsApproval, attach_policy, build_prompt, mentions, vision_check,
    )  # fmt: skip
    from agent_tui.core.store.bus import Subscription
    from agent_tui.core.settings.config import Settings, load_settings, validate
    from agent_tui.core.settings.config_layers import (
        DEFAULT_AGENT, ConfigError, UntrustedProject, find_project_config, read_layers,
    )  # fmt: skip
    from agent_tui.core.errors import (
        DatabaseLocked, EventRejected, SessionBusy, SessionExists, StoreError, UnknownInput, UnknownSession,
    )  # fmt: skip
    from agent_tui.core.transfer.import_jsonl import NotAnExport
    from agent_tui.core.run.lease import SessionOwnedElsewhere
    from agent_tui.core.store.peek import peek_sessions
    from agent_tui.core.log.records import (
        InboxRecord, MessageRecord, PermissionRecord, SessionRecord, SessionSummary,
    )  # fmt: skip
    from agent_tui.core.history.rewind import FilesPreview, RewindPoint, RewindRefused, RewindResult, RewindState, UnknownMessage
    from agent_tui.core.runtime import Runtime
    from agent_tui.core.workspace.snapshots import SnapshotError
    from agent_tui.core.log.session_row import SessionRow
    from agent_tui.core.sessions import HISTORY_MAX, History, InvalidRequest, Sessions, UnknownPermission, open_sessions
    from agent_tui.core.store.tail import Synced
    from agent_tui.llm.credentials import CredentialsError, resolve_credentials
    from agent_tui.llm.lazy import load as load_llm
    from agent_tui.llm.lazy import preload as preload_llm
    from agent_tui.llm.models import model_info
