"""The runner's door to the tools layer: catalogue, invocation, permission asks.

Asks become durable ``permission.asked`` events so the TUI, a background
session's marker and HTTP clients all find them; the answer is the durable
``permission.replied`` — typed by a person (interactive) or by the headless
``--permission`` policy, recorded the same way.
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agent_tui.core.host.elicitations import Elicit
from agent_tui.core.host.port import ToolInvocation
from agent_tui.core.host.samplings import Sample
from agent_tui.core.host.tool_hooks import ToolHooks
from agent_tui.core.log import events as ev
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.request.skills import SkillCatalog, discover_skills
from agent_tui.core.settings import paths
from agent_tui.core.settings.config import Settings
from agent_tui.llm import types as llm
from agent_tui.tools.asks import Asker, PermissionDecision, PermissionRequest
from agent_tui.tools.builtin import default_registry
from agent_tui.tools.errors import PERMISSION_DENIED
from agent_tui.tools.final_answer import FINAL_ANSWER_TOOL, OutputSchema
from agent_tui.tools.permissions import Guard, OwnCommandGate, PermissionGate
from agent_tui.tools.registry import ToolRegistry, denied_outright
from agent_tui.tools.sandbox import confines_here
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import ToolOutcome
from agent_tui.vocab.kinds import TOOL_INTERRUPTED, ApprovalMode, PermissionReply
from agent_tui.vocab.permission_rule import PermissionRule
from agent_tui.vocab.skill import SKILL_TOOL

TEST_TOOLS_ENV = "AGENT_TUI_TEST_TOOLS"
WaitReply = Callable[[str], Awaitable[Any]]


def build_registry(location: Path) -> ToolRegistry:
    """The built-in tools, plus ``AGENT_TUI_TEST_TOOLS=module:function`` extras for tests."""
    registry = default_registry(location)
    spec = os.environ.get(TEST_TOOLS_ENV)
    if spec:
        module_name, _, function = spec.partition(":")
        getattr(importlib.import_module(module_name), function or "register")(registry)
    return registry


class StoreApprovals:
    def __init__(self, store: Any) -> None:
        self._store = store

    async def approved(self, project_root: str) -> list[tuple[str, str]]:
        return [(row.action, row.pattern) for row in await self._store.approvals(project_root)]


def recording_asker(
    publish: SessionPublisher,
    decide: Callable[[PermissionRequest], Awaitable[PermissionDecision]] | None,
    wait_reply: WaitReply,
) -> Asker:
    """Publish the ask; then either wait for someone's durable reply or decide and record it."""

    async def ask(request: PermissionRequest) -> PermissionDecision:
        await publish(
            ev.PermissionAsked(
                request_id=request.id,
                assistant_message_id=request.assistant_message_id,
                call_id=request.call_id,
                action=request.action,
                resources=request.resources,
                save=request.save_patterns,
                detail=request.detail,
            )
        )
        if decide is not None:
            decision = await decide(request)
            await publish(ev.PermissionReplied(request_id=request.id, reply=decision.reply, message=decision.message))
            return decision
        try:
            record = await wait_reply(request.id)
        except asyncio.CancelledError:
            # Abandoned (interrupt, or settled by another reply): close the ask in the
            # log unless a reply landed meanwhile, so no client keeps offering it.
            await publish_if_unanswered(publish, request.id, TOOL_INTERRUPTED)
            raise
        return PermissionDecision(reply=PermissionReply(record.reply), message=record.message)

    return ask


async def publish_if_unanswered(publish: SessionPublisher, request_id: str, message: str) -> None:
    from agent_tui.core.errors import EventRejected

    try:
        await publish(ev.PermissionReplied(request_id=request_id, reply=PermissionReply.REJECT, message=message))
    except EventRejected:
        pass  # already answered


def permission_rules(settings: Settings, agent: str) -> list[PermissionRule]:
    """Global rules, then the agent's (the last match wins), under the user's denies."""
    return settings.permission_rules(agent)


def tool_definitions(registry: ToolRegistry, settings: Settings, agent: str) -> list[llm.ToolSpec]:
    """What the agent is offered of ``registry``: the tools it has, less those its rules (or its
    own rules, which nothing lifts) deny outright."""
    has = settings.agent_settings(agent)
    guard = settings.agent_guard(agent)

    def action(name: str) -> str:
        tool = registry.get(name)
        return tool.action if tool is not None else name

    return [
        llm.ToolSpec(**spec)
        for spec in registry.definitions(permission_rules(settings, agent))
        if has.offers(spec["name"]) and not denied_outright(action(spec["name"]), guard)
    ]


def sandboxed(settings: Settings, project_root: Path, agent: str) -> bool:
    """Whether the agent's bash commands run confined here (for the ``auto`` approval mode)."""
    return confines_here(settings.command_sandbox(project_root, agent))


def agent_guard(settings: Settings, agent: str) -> Guard:
    """The agent's own rules, whose denies nothing lifts (``tools.permissions.Guard``)."""
    return Guard(agent, tuple(settings.agent_guard(agent)))


class RegistryToolHost:
    """One session's tools at one location, behind one permission gate, for the selected agent."""

    def __init__(
        self,
        settings: Settings,
        registry: ToolRegistry,
        location: Path,
        project_root: Path,
        gate: PermissionGate,
        agent: str,
    ) -> None:
        self.settings = settings
        self.agent = agent
        """The agent of the step under way (``use_settings`` at each step's start)."""
        self._registry = registry
        self.location = location
        self._project_root = project_root
        self.gate = gate
        self.before_change: Callable[[ToolInvocation, bool], Awaitable[None]] | None = None
        """Runs before every call (the workspace snapshot), told whether snapshots are on: when they
        are off it records that, so a later rewind can say why it cannot restore the files."""
        self.hooks: ToolHooks | None = None
        """Runs the ``pre_tool`` / ``post_tool`` hooks around every call (the runtime sets it)."""
        self.elicit: Callable[[str | None, str | None], Elicit] | None = None
        """A call's way to ask the user an MCP server's question, by (assistant message, call) id
        (``Elicitations.asker``; the runtime sets it); None: questions are declined."""
        self.sample: Callable[[str | None, str | None], Sample] | None = None
        """A call's way to have an MCP server's sampling request approved and run, by (assistant message,
        call) id (``Samplings.asker``; the runtime sets it); None: sampling requests are declined."""
        self.skills = SkillCatalog()
        """The skills found here at the last ``refresh_skills`` (the runtime calls it before each step)."""
        self.output: OutputSchema | None = None
        """The final answer the session must give (the runtime sets it before each step): a
        ``final_answer`` call is checked against it here, whatever tools the agent has."""

    async def refresh_skills(self) -> None:
        self.skills = await asyncio.to_thread(discover_skills, self._project_root)

    def definitions(self, agent: str, final_step: bool) -> list[llm.ToolSpec]:
        """The tools the agent has and its rules do not deny outright (nor its own rules)."""
        if final_step:
            return []
        specs = tool_definitions(self._registry, self.settings, agent)
        no_skills = not self.skills.available(permission_rules(self.settings, agent))
        return [spec for spec in specs if not (no_skills and spec.name == SKILL_TOOL)]  # only with a skill to load

    def use_settings(self, settings: Settings, agent: str) -> None:
        """Edited config or another agent: its rules apply from now on; pending asks and this run's grants stay."""
        self.settings = settings
        self.agent = agent
        self.gate.rules = permission_rules(settings, agent)
        self.gate.guard = agent_guard(settings, agent)
        self.gate.sandboxed = sandboxed(settings, self._project_root, agent)

    async def execute(self, call: ToolInvocation, on_output: Callable[[str], None]) -> ToolOutcome:
        if call.name == FINAL_ANSWER_TOOL and self.output is not None and not call.by_user:
            return self.output.settle(call.input)  # changes nothing: no permission, snapshot or hook
        if not self.settings.agent_settings(self.agent).offers(call.name):
            offered = ", ".join(spec.name for spec in self.definitions(self.agent, final_step=False)) or "none"
            return ToolOutcome.failure(
                PERMISSION_DENIED,
                f"The {self.agent} agent has no tool {call.name!r}: it may call only {offered}.",
            )
        scope = ToolScope(
            location=self.location,
            project_root=self._project_root,
            gate=OwnCommandGate(self.gate) if call.by_user else self.gate,
            spill_dir=paths.spill_dir(),
            session_id=call.session_id,
            assistant_message_id=call.assistant_message_id,
            call_id=call.call_id,
            on_output=on_output,
            supports_vision=call.supports_vision,
            shell_env_include=tuple(self.settings.shell.env.include),
            references=self.settings.reference_roots(self._project_root),
            sandbox=self.settings.command_sandbox(self._project_root, self.agent),
            skills=self.skills.named(),
            elicit=None
            if self.elicit is None
            else self.elicit(call.assistant_message_id or None, call.call_id or None),
            sample=None
            if self.sample is None
            else self.sample(call.assistant_message_id or None, call.call_id or None),
        )
        hooks = self.hooks
        if hooks is not None and (refused := await hooks.before(self.settings, call)) is not None:
            return refused  # a pre_tool hook blocked it: the tool does not run
        if self.before_change is not None:
            await self.before_change(call, self.settings.snapshots.enabled)
        outcome = await self._registry.invoke(call.name, call.input, scope)
        return outcome if hooks is None else await hooks.after(self.settings, call, outcome)


def make_gate(
    settings: Settings,
    agent: str,
    store: Any,
    publish: SessionPublisher,
    location: Path,
    project_root: Path,
    policy: str | None,
    wait_reply: WaitReply,
    approval: Callable[[], ApprovalMode] | None = None,
) -> PermissionGate:
    """``approval``: the session's approval mode, read at each check (default: the settings')."""
    decide = None
    if policy is not None:
        from agent_tui.tools.asks import policy_asker

        decide = policy_asker(policy)
    rules = permission_rules(settings, agent)

    def on_auto_reply(request: PermissionRequest, decision: PermissionDecision) -> None:
        asyncio.get_running_loop().create_task(
            publish(ev.PermissionReplied(request_id=request.id, reply=decision.reply, message=decision.message))
        )

    return PermissionGate(
        rules,
        StoreApprovals(store),
        recording_asker(publish, decide, wait_reply),
        location,
        project_root,
        on_auto_reply=on_auto_reply,
        guard=agent_guard(settings, agent),
        approval=approval or (lambda: settings.approval),
        sandboxed=sandboxed(settings, project_root, agent),
    )
