"""The one door into core: everything ``tui/``, ``server/`` and ``commands/`` may use.

Callers outside core import from here (and the event types from
``agent_tui.core.events``; the types every layer shares, such as ``Delivery``
or ``ErrorInfo``, come from ``agent_tui.vocab``) and nothing else;
``tests/test_layering.py`` enforces it. Names load lazily (PEP 562): ``from agent_tui.core.api import
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
    "peek_sessions": "peek",
    # Its records.
    "SessionRecord": "records",
    "SessionSummary": "records",
    "MessageRecord": "records",
    "InboxRecord": "records",
    "PermissionRecord": "records",
    "SessionRow": "session_list",
    "Receipt": "admission",
    "RewindPoint": "rewind",
    "FilesPreview": "rewind",
    "RewindState": "rewind",
    "RewindResult": "rewind",
    # The log: one marker after replay, the live subscription.
    "Synced": "tail",
    "Subscription": "bus",
    # Errors, each one line for the user.
    "StoreError": "db",
    "UnknownSession": "db",
    "UnknownInput": "db",
    "SessionExists": "db",
    "EventRejected": "db",
    "DatabaseLocked": "db",
    "InvalidRequest": "sessions",
    "UnknownPermission": "sessions",
    "AdmissionConflict": "admission",
    "SessionOwnedElsewhere": "lease",
    "UnknownMessage": "rewind",
    "RewindRefused": "rewind",
    "SnapshotError": "snapshots",
    "NotAnExport": "import_jsonl",
    "SessionBusy": "delete",
    "ConfigError": "config_layers",
    # Prompts: @mentions and --file paths as durable parts.
    "build_prompt": "attachments",
    "mentions": "attachments",
    "attach_policy": "attachments",
    "vision_check": "attachments",
    "AttachmentError": "attachments",
    "NeedsApproval": "attachments",
    # Configuration.
    "Settings": "config",
    "load_settings": "config",
    "validate": "config",
    "read_layers": "config_layers",
    "DEFAULT_AGENT": "config_layers",
    "UntrustedProject": "config_layers",
    "find_project_config": "config_layers",
    # What is known about a model before a step runs (from the layer below core).
    "model_info": "agent_tui.llm.models:model_info",
    "load_llm": "agent_tui.llm.lazy:load",
    "preload_llm": "agent_tui.llm.lazy:preload",
    "resolve_credentials": "agent_tui.llm.credentials:resolve_credentials",
    "CredentialsError": "agent_tui.llm.credentials:CredentialsError",
}
_MODULES = {"paths", "events", "trust"}
"""Whole modules on the surface: where files live, the event types, and project trust."""

__all__ = sorted([*_EXPORTS, *_MODULES])


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f"agent_tui.core.{name}")
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, _, attr = where.partition(":")
    path = module if "." in module else f"agent_tui.core.{module}"
    value = getattr(importlib.import_module(path), attr or name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # what the names are, for type checkers and readers
    from agent_tui.core import events, paths, trust
    from agent_tui.core.admission import AdmissionConflict, Receipt
    from agent_tui.core.attachments import (
        AttachmentError, NeedsApproval, attach_policy, build_prompt, mentions, vision_check,
    )  # fmt: skip
    from agent_tui.core.bus import Subscription
    from agent_tui.core.config import Settings, load_settings, validate
    from agent_tui.core.config_layers import (
        DEFAULT_AGENT, ConfigError, UntrustedProject, find_project_config, read_layers,
    )  # fmt: skip
    from agent_tui.core.db import (
        DatabaseLocked, EventRejected, SessionExists, StoreError, UnknownInput, UnknownSession,
    )  # fmt: skip
    from agent_tui.core.delete import SessionBusy
    from agent_tui.core.import_jsonl import NotAnExport
    from agent_tui.core.lease import SessionOwnedElsewhere
    from agent_tui.core.peek import peek_sessions
    from agent_tui.core.records import (
        InboxRecord, MessageRecord, PermissionRecord, SessionRecord, SessionSummary,
    )  # fmt: skip
    from agent_tui.core.rewind import FilesPreview, RewindPoint, RewindRefused, RewindResult, RewindState, UnknownMessage
    from agent_tui.core.runtime import Runtime
    from agent_tui.core.snapshots import SnapshotError
    from agent_tui.core.session_list import SessionRow
    from agent_tui.core.sessions import HISTORY_MAX, History, InvalidRequest, Sessions, UnknownPermission, open_sessions
    from agent_tui.core.tail import Synced
    from agent_tui.llm.credentials import CredentialsError, resolve_credentials
    from agent_tui.llm.lazy import load as load_llm
    from agent_tui.llm.lazy import preload as preload_llm
    from agent_tui.llm.models import model_info
