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
    "start_telemetry": "runtime",
    "McpPromptError": "runtime",
    "peek_sessions": "store.peek",
    # Moving sessions between databases (``agent-tui db copy``).
    "copy_log": "store.copy",
    "CopyReport": "store.copy",
    "SessionCopy": "store.copy",
    # Its records.
    "SessionRecord": "log.records",
    "SessionSummary": "log.records",
    "MessageRecord": "log.records",
    "InboxRecord": "log.records",
    "PermissionRecord": "log.records",
    "ApprovalRecord": "log.records",
    "PlanRecord": "log.records",
    "SessionUsage": "log.usage_records",
    "UsageRow": "log.usage_records",
    "USAGE_GROUPINGS": "log.usage_records",
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
    "DatabaseUnreachable": "errors",
    "UnknownSession": "errors",
    "UnknownInput": "errors",
    "SessionExists": "errors",
    "EventRejected": "errors",
    "DatabaseLocked": "errors",
    "InvalidRequest": "errors",
    "UnknownPermission": "host.permission_asks",
    "UnknownElicitation": "host.elicitations",
    "OpenQuestion": "host.elicitations",
    "UnknownSampling": "host.samplings",
    "McpAsks": "host.mcp_asks",
    "AdmissionConflict": "inbox.admission",
    "SessionOwnedElsewhere": "run.lease",
    "UnknownMessage": "history.rewind",
    "RewindRefused": "history.rewind",
    "SnapshotError": "workspace.snapshots",
    "NotAnExport": "transfer.import_jsonl",
    "UnreadableSession": "transfer.foreign.draft",
    # Other agents' sessions: where they are, what importing one did.
    "ImportOutcome": "transfer.foreign.write",
    "foreign_sessions": "transfer.foreign.locate:sessions",
    "foreign_session_by_id": "transfer.foreign.locate:by_id",
    "describe_foreign_session": "transfer.foreign.locate:describe",
    "load_foreign_session": "transfer.foreign.locate:load",
    "ForeignFile": "transfer.foreign.locate",
    "FOREIGN_FORMATS": "transfer.foreign.formats:LABELS",
    "SessionBusy": "errors",
    "ConfigError": "settings.config_layers",
    # Prompts: @mentions and --file paths as durable parts.
    "build_prompt": "inbox.attachments",
    "mentions": "inbox.attachments",
    "attach_policy": "inbox.attachments",
    "vision_check": "inbox.attachments",
    "AttachmentError": "inbox.attachments",
    "NeedsApproval": "inbox.attachments",
    "callable_subagents": "inbox.agent_mentions",
    # What the next request would hold (``agent-tui context``, ``/context``).
    "ContextBreakdown": "request.breakdown",
    # What the agent is asked to do for /init.
    "init_prompt": "request.init_prompt",
    # Structured output: the caller's JSON Schema checked, the accepted answer read back.
    "FinalAnswer": "request.structured",
    "checked_schema": "agent_tui.tools.final_answer:checked_schema",
    "InvalidSchema": "agent_tui.tools.final_answer:InvalidSchema",
    # The environment minus agent-tui's and the providers' secrets (the TUI's $PAGER gets it).
    "shell_environment": "agent_tui.tools.shell_env:shell_environment",
    # The skills here, for /skills and `agent-tui skills`.
    "skill_listing": "request.skills",
    "sandboxed_command": "host.sandbox_check",
    # Configuration.
    "Settings": "settings.config",
    "load_settings": "settings.config_validation",
    "validate": "settings.config_validation",
    "read_layers": "settings.config_layers",
    "DEFAULT_AGENT": "settings.config_layers",
    "PLAN_AGENT": "settings.agents",
    "agent_listing": "settings.agents",
    "UntrustedProject": "settings.config_layers",
    "find_project_config": "settings.config_layers",
    # MCP servers: where each is configured, adding and removing them, starting them to check.
    "mcp_listing": "settings.mcp_scopes",
    "mcp_add": "settings.mcp_scopes",
    "mcp_remove": "settings.mcp_scopes",
    "McpServerRow": "settings.mcp_scopes",
    "ServerNotFound": "settings.mcp_scopes",
    "ServerExists": "settings.mcp_edit",
    "remember_choice": "settings.remembered",
    "probe_mcp_servers": "host.mcp_probe",
    "mcp_login": "host.mcp_auth",
    "mcp_logout": "host.mcp_auth",
    "mcp_with_auth": "host.mcp_auth",
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


if TYPE_CHECKING:  # what the names are, for type checkers and readers ("X as X": a re-export)
    from agent_tui.core.errors import DatabaseLocked as DatabaseLocked
    from agent_tui.core.errors import DatabaseUnreachable as DatabaseUnreachable
    from agent_tui.core.errors import EventRejected as EventRejected
    from agent_tui.core.errors import InvalidRequest as InvalidRequest
    from agent_tui.core.errors import SessionBusy as SessionBusy
    from agent_tui.core.errors import SessionExists as SessionExists
    from agent_tui.core.errors import StoreError as StoreError
    from agent_tui.core.errors import UnknownInput as UnknownInput
    from agent_tui.core.errors import UnknownSession as UnknownSession
    from agent_tui.core.history.rewind import FilesPreview as FilesPreview
    from agent_tui.core.history.rewind import RewindPoint as RewindPoint
    from agent_tui.core.history.rewind import RewindRefused as RewindRefused
    from agent_tui.core.history.rewind import RewindResult as RewindResult
    from agent_tui.core.history.rewind import RewindState as RewindState
    from agent_tui.core.history.rewind import UnknownMessage as UnknownMessage
    from agent_tui.core.host.elicitations import OpenQuestion as OpenQuestion
    from agent_tui.core.host.elicitations import UnknownElicitation as UnknownElicitation
    from agent_tui.core.host.mcp_asks import McpAsks as McpAsks
    from agent_tui.core.host.mcp_auth import mcp_login as mcp_login
    from agent_tui.core.host.mcp_auth import mcp_logout as mcp_logout
    from agent_tui.core.host.mcp_auth import mcp_with_auth as mcp_with_auth
    from agent_tui.core.host.permission_asks import UnknownPermission as UnknownPermission
    from agent_tui.core.host.samplings import UnknownSampling as UnknownSampling
    from agent_tui.core.inbox.admission import AdmissionConflict as AdmissionConflict
    from agent_tui.core.inbox.admission import Receipt as Receipt
    from agent_tui.core.inbox.agent_mentions import callable_subagents as callable_subagents
    from agent_tui.core.inbox.attachments import AttachmentError as AttachmentError
    from agent_tui.core.inbox.attachments import NeedsApproval as NeedsApproval
    from agent_tui.core.inbox.attachments import attach_policy as attach_policy
    from agent_tui.core.inbox.attachments import build_prompt as build_prompt
    from agent_tui.core.inbox.attachments import mentions as mentions
    from agent_tui.core.inbox.attachments import vision_check as vision_check
    from agent_tui.core.log import events as events
    from agent_tui.core.log.records import ApprovalRecord as ApprovalRecord
    from agent_tui.core.log.records import InboxRecord as InboxRecord
    from agent_tui.core.log.records import MessageRecord as MessageRecord
    from agent_tui.core.log.records import PermissionRecord as PermissionRecord
    from agent_tui.core.log.records import PlanRecord as PlanRecord
    from agent_tui.core.log.records import SessionRecord as SessionRecord
    from agent_tui.core.log.records import SessionSummary as SessionSummary
    from agent_tui.core.log.session_row import SessionRow as SessionRow
    from agent_tui.core.log.usage_records import USAGE_GROUPINGS as USAGE_GROUPINGS
    from agent_tui.core.log.usage_records import SessionUsage as SessionUsage
    from agent_tui.core.log.usage_records import UsageRow as UsageRow
    from agent_tui.core.request.breakdown import ContextBreakdown as ContextBreakdown
    from agent_tui.core.request.skills import skill_listing as skill_listing
    from agent_tui.core.request.structured import FinalAnswer as FinalAnswer
    from agent_tui.core.run.lease import SessionOwnedElsewhere as SessionOwnedElsewhere
    from agent_tui.core.runtime import McpPromptError as McpPromptError
    from agent_tui.core.runtime import Runtime as Runtime
    from agent_tui.core.runtime import start_telemetry as start_telemetry
    from agent_tui.core.sessions import HISTORY_MAX as HISTORY_MAX
    from agent_tui.core.sessions import History as History
    from agent_tui.core.sessions import Sessions as Sessions
    from agent_tui.core.sessions import open_sessions as open_sessions
    from agent_tui.core.settings import paths as paths
    from agent_tui.core.settings import trust as trust
    from agent_tui.core.settings.agents import PLAN_AGENT as PLAN_AGENT
    from agent_tui.core.settings.agents import agent_listing as agent_listing
    from agent_tui.core.settings.config import Settings as Settings
    from agent_tui.core.settings.config_layers import DEFAULT_AGENT as DEFAULT_AGENT
    from agent_tui.core.settings.config_layers import ConfigError as ConfigError
    from agent_tui.core.settings.config_layers import UntrustedProject as UntrustedProject
    from agent_tui.core.settings.config_layers import find_project_config as find_project_config
    from agent_tui.core.settings.config_layers import read_layers as read_layers
    from agent_tui.core.settings.config_validation import load_settings as load_settings
    from agent_tui.core.settings.config_validation import validate as validate
    from agent_tui.core.settings.mcp_edit import ServerExists as ServerExists
    from agent_tui.core.settings.mcp_scopes import McpServerRow as McpServerRow
    from agent_tui.core.settings.mcp_scopes import ServerNotFound as ServerNotFound
    from agent_tui.core.settings.remembered import remember_choice as remember_choice
    from agent_tui.core.store.bus import Subscription as Subscription
    from agent_tui.core.store.copy import CopyReport as CopyReport
    from agent_tui.core.store.copy import SessionCopy as SessionCopy
    from agent_tui.core.store.copy import copy_log as copy_log
    from agent_tui.core.store.peek import peek_sessions as peek_sessions
    from agent_tui.core.store.tail import Synced as Synced
    from agent_tui.core.transfer.foreign.draft import UnreadableSession as UnreadableSession
    from agent_tui.core.transfer.foreign.write import ImportOutcome as ImportOutcome
    from agent_tui.core.transfer.import_jsonl import NotAnExport as NotAnExport
    from agent_tui.core.workspace.snapshots import SnapshotError as SnapshotError
    from agent_tui.llm import lazy as _lazy
    from agent_tui.llm.credentials import CredentialsError as CredentialsError
    from agent_tui.llm.credentials import resolve_credentials as resolve_credentials
    from agent_tui.llm.models import model_info as model_info
    from agent_tui.tools.final_answer import InvalidSchema as InvalidSchema
    from agent_tui.tools.final_answer import checked_schema as checked_schema
    from agent_tui.tools.shell_env import shell_environment as shell_environment

    load_llm = _lazy.load
    preload_llm = _lazy.preload
