"""Permission rules and the gate every tool passes before it acts.

Rules are ``{action, pattern, effect}``; the last matching rule wins, after
the defaults (``ask`` for everything, ``allow`` for ``read`` inside the
location and for loading a ``skill``). ``deny`` is final: saved approvals never override it. ``ask``
consults saved approvals ("always" replies, project-wide) and this gate's own
"always" replies, then asks the injected :data:`~.asks.Asker` once for
everything still uncovered.

A ``bash`` resource is a whole command line: every simple command in it must
be allowed or approved on its own (see :mod:`.shell_parse`). A rule or an
approval names commands, so it only allows a line that is plain words
(:mod:`.shell_grammar`) run by programs from outside the project
(:mod:`.command_origin`); any other line is asked whole, unless a bare ``*``
allows it. Deny rules still apply to every simple command found in it.

An agent's own rules are also a :class:`Guard`: what the last matching one
denies is denied before the rules are read, so no global rule, saved approval
or answer to an ask lifts it (the plan agent's read-only policy).

Use one gate per session run: an "always" reply then releases the other
pending asks it covers, and a plain reject rejects them all.

The session's approval mode (:class:`~agent_tui.vocab.kinds.ApprovalMode`) turns an ask into an
allow when it covers the action (:func:`approval_covers`), after the deny rules and the guard
have had their say: nothing lifts a deny in any mode. Short of ``full-auto`` it changes only the
default ask: what an ``ask`` rule names is still asked.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from agent_tui.tools.asks import ApprovalStore, Asker, CallOrigin, PermissionDecision, PermissionRequest
from agent_tui.tools.command_origin import project_command
from agent_tui.tools.errors import AgentDenied, PermissionDenied, PermissionRejected
from agent_tui.tools.shell_grammar import read_line
from agent_tui.tools.shell_parse import parse_command, suggest_pattern
from agent_tui.tools.wildcard import wildcard_match
from agent_tui.vocab.kinds import ApprovalMode, Effect, PermissionReply
from agent_tui.vocab.permission_rule import PermissionRule
from agent_tui.vocab.skill import SKILL_TOOL

DEFAULT_RULES: tuple[PermissionRule, ...] = (
    PermissionRule(action="*", pattern="*", effect=Effect.ASK),
    PermissionRule(action="read", pattern="*", effect=Effect.ALLOW),
    PermissionRule(action=SKILL_TOOL, pattern="*", effect=Effect.ALLOW),
)


@dataclass(frozen=True)
class Verdict:
    effect: Effect
    rule: PermissionRule


def _matches(pattern: str, action: str, resource: str, *, plain: bool = True) -> bool:
    if not plain:
        return pattern == "*"
    if wildcard_match(pattern, resource):
        return True
    # "/tmp/*" also covers the directory "/tmp" itself.
    return action == "external_directory" and wildcard_match(pattern, resource.rstrip("/") + "/")


def evaluate(rules: Sequence[PermissionRule], action: str, resource: str, *, plain: bool = True) -> Verdict:
    """The effect for one resource: last matching rule wins, defaults first.

    A resource that is not ``plain`` (a bash line outside the plain grammar) is
    allowed only by a bare ``*``; any matching rule may still deny it."""
    verdict = Verdict(Effect.ASK, DEFAULT_RULES[0])
    for rule in (*DEFAULT_RULES, *rules):
        if wildcard_match(rule.action, action) and _matches(rule.pattern, action, resource):
            verdict = Verdict(rule.effect, rule)
    if verdict.effect is Effect.ALLOW and not plain and verdict.rule.pattern != "*":
        return Verdict(Effect.ASK, verdict.rule)
    return verdict


@dataclass(frozen=True)
class Guard:
    """An agent's own rules: a resource the last matching one denies is denied, whatever else says.

    For a resource that is not plain, only a bare ``*`` allow (or any deny) matches, as in :func:`evaluate`."""

    agent: str
    rules: tuple[PermissionRule, ...] = ()

    def denial(self, action: str, resource: str, *, plain: bool = True) -> PermissionRule | None:
        found = None
        for rule in self.rules:
            if not wildcard_match(rule.action, action):
                continue
            if not plain and rule.effect is not Effect.DENY and rule.pattern != "*":
                continue
            if _matches(rule.pattern, action, resource):
                found = rule
        return found if found is not None and found.effect is Effect.DENY else None


@dataclass(frozen=True)
class Piece:
    """One resource to judge: a simple command of a plain line, or a whole line that is not plain."""

    resource: str
    not_plain: str | None = None
    """Why the line is not plain (shown in the ask's ``detail``); ``None`` for a plain resource."""
    parts: tuple[str, ...] = ()
    """The simple commands of a line that is not plain, for deny rules."""

    @property
    def plain(self) -> bool:
        return self.not_plain is None


def expand(action: str, resources: Sequence[str], roots: Sequence[Path] = ()) -> list[Piece]:
    """Resources to judge one by one: a plain bash line becomes its simple commands.

    Blocking (it looks up command names in PATH): call it off the event loop."""
    if action != "bash":
        return [Piece(r) for r in resources]
    out: list[Piece] = []
    for command in resources:
        parts = parse_command(command).commands
        line = read_line(command)
        why = line.not_plain or project_command(line.command_names, os.environ, roots)
        if why is None:
            out.extend(Piece(part) for part in parts)
        else:
            out.append(Piece(" ".join(command.split()), not_plain=why, parts=tuple(parts)))
    return out


def suggest_save(action: str, resources: Sequence[str]) -> list[str]:
    """What an "always" reply would save for these resources."""
    match action:
        case "bash":
            patterns = [suggest_pattern(r) for r in resources]
        case "external_directory":
            patterns = [r.rstrip("/") + "/*" for r in resources]
        case "edit" | "read":
            patterns = [f"{PurePosixPath(r).parent}/*" if PurePosixPath(r).parent.name else "*" for r in resources]
        case _:
            patterns = list(resources)
    return list(dict.fromkeys(patterns))


AutoReply = Callable[[PermissionRequest, PermissionDecision], None]

KEPT_FROM_AUTO_EDITS = (".git", ".agent-tui")
"""Folders whose files are never edited without asking, in any mode but ``full-auto``: git runs
what ``.git`` holds (hooks, config), and ``.agent-tui`` is the agent's own project config."""


def _project_edit(resource: str) -> bool:
    """A path the ``edit`` action names that lies in the project, outside :data:`KEPT_FROM_AUTO_EDITS`."""
    path = PurePosixPath(resource)
    return not path.is_absolute() and ".." not in path.parts and not set(path.parts) & set(KEPT_FROM_AUTO_EDITS)


def approval_covers(
    mode: ApprovalMode, action: str, resources: Sequence[str], detail: dict[str, Any] | None, *, sandboxed: bool
) -> bool:
    """Whether ``mode`` lets this ask through without asking (deny rules are judged before).

    - ``ask``: nothing.
    - ``auto-edit``: edits to files in the project (the ``edit`` action of ``apply_patch``) and reads.
    - ``auto``: those, loading a skill, and what runs inside the sandbox: ``bash`` (and the
      directories outside the location it names, which the sandbox keeps it from writing) when
      ``sandboxed``. Leaving the sandbox (``outside_sandbox``), a command where no sandbox
      confines it, edits outside the project and MCP tools still ask.
    - ``full-auto``: everything.

    ``sandboxed``: bash commands here run confined (a sandbox policy that confines, and a
    mechanism for it); a call that asks to leave it asks ``outside_sandbox`` on its own.
    """
    match mode:
        case ApprovalMode.FULL_AUTO:
            return True
        case ApprovalMode.AUTO_EDIT | ApprovalMode.AUTO if action == "read":
            return True
        case ApprovalMode.AUTO_EDIT | ApprovalMode.AUTO if action == "edit":
            return all(_project_edit(resource) for resource in resources)
        case ApprovalMode.AUTO if action == SKILL_TOOL:
            return True
        case ApprovalMode.AUTO if action == "bash":
            return sandboxed
        case ApprovalMode.AUTO if action == "external_directory":
            return sandboxed and "command" in (detail or {})  # a bash call's, not an edit's
    return False


class PermissionGate:
    """Decides allow / deny / ask for each tool action of one session run.

    ``on_auto_reply(request, decision)`` is called when a pending ask is
    settled by another reply (covered by "always", or rejected along with a
    plain reject), so the caller can record ``permission.replied`` for it;
    the asker call for that request is cancelled.
    """

    def __init__(
        self,
        rules: Sequence[PermissionRule],
        approvals: ApprovalStore,
        asker: Asker,
        location: Path,
        project_root: Path,
        on_auto_reply: AutoReply | None = None,
        guard: Guard | None = None,
        approval: Callable[[], ApprovalMode] | None = None,
        sandboxed: bool = False,
    ) -> None:
        self.rules = list(rules)
        self.guard = guard
        self.approval: Callable[[], ApprovalMode] = approval or (lambda: ApprovalMode.ASK)
        """The session's approval mode, read at each check (the user may change it mid-run)."""
        self.sandboxed = sandboxed
        """Whether bash commands here run inside a sandbox (for the ``auto`` mode)."""
        self.approvals = approvals
        self.asker = asker
        self.location = Path(location)
        self.project_root = Path(project_root)
        self.on_auto_reply = on_auto_reply
        self._granted: list[tuple[str, str]] = []
        self._pending: dict[str, tuple[PermissionRequest, list[Piece], asyncio.Future[PermissionDecision]]] = {}

    def pending(self) -> list[PermissionRequest]:
        return [request for request, _, _ in self._pending.values()]

    async def check(
        self,
        action: str,
        resources: list[str],
        *,
        detail: dict[str, Any] | None = None,
        save_patterns: list[str] | None = None,
        origin: CallOrigin | None = None,
        approval: ApprovalMode | None = None,
    ) -> None:
        """Return when allowed; raise ``PermissionDenied`` or ``PermissionRejected``.

        ``approval``: this check's mode instead of the session's (``full-auto`` for the user's own
        ``!`` command: its deny rules still apply, nothing is asked)."""
        roots = (self.project_root, self.location)
        pieces = (
            await asyncio.to_thread(expand, action, resources, roots) if action == "bash" else expand(action, resources)
        )
        undecided: dict[str, Piece] = {}
        for piece in pieces:
            for part in piece.parts:  # deny rules see inside lines that are not plain too
                self._raise_if_guarded(action, part, plain=True)
                self._raise_if_denied(action, part, evaluate(self.rules, action, part))
            self._raise_if_guarded(action, piece.resource, plain=piece.plain)
            verdict = evaluate(self.rules, action, piece.resource, plain=piece.plain)
            self._raise_if_denied(action, piece.resource, verdict)
            if verdict.effect is Effect.ASK:
                undecided.setdefault(piece.resource, piece)
        if not undecided:
            return
        if self._mode_covers(approval or self.approval(), action, list(undecided.values()), detail):
            return
        approvals = [*await self.approvals.approved(str(self.project_root)), *self._granted]
        undecided = {r: p for r, p in undecided.items() if not self._covered(action, [p], approvals)}
        if not undecided:
            return
        reasons = [p.not_plain for p in undecided.values() if p.not_plain]
        if reasons:
            detail = {**(detail or {}), "not_plain": "; ".join(dict.fromkeys(reasons))}
        origin = origin or CallOrigin()
        request = PermissionRequest(
            session_id=origin.session_id,
            assistant_message_id=origin.assistant_message_id,
            call_id=origin.call_id,
            action=action,
            resources=list(undecided),
            save_patterns=save_patterns
            or suggest_save(action, [r for p in undecided.values() for r in p.parts or (p.resource,)]),
            detail=detail or {},
        )
        decision = await self._ask(request, list(undecided.values()))
        match decision.reply:
            case PermissionReply.ONCE:
                return
            case PermissionReply.ALWAYS:
                self._granted.extend((action, p) for p in request.save_patterns)
                self._release_covered()
                return
            case _:
                if decision.message is None:
                    self._reject_pending()
                summary = _summary(request)
                raise PermissionRejected(decision.message, action=action, detail=summary)

    def _raise_if_guarded(self, action: str, resource: str, *, plain: bool) -> None:
        rule = None if self.guard is None else self.guard.denial(action, resource, plain=plain)
        if rule is not None and self.guard is not None:
            raise AgentDenied(self.guard.agent, action, resource, rule.pattern)

    @staticmethod
    def _raise_if_denied(action: str, resource: str, verdict: Verdict) -> None:
        if verdict.effect is Effect.DENY:
            raise PermissionDenied(action, resource, verdict.rule.pattern)

    @staticmethod
    def _covered(action: str, pieces: Sequence[Piece], approvals: Sequence[tuple[str, str]]) -> bool:
        relevant = [p for a, p in approvals if wildcard_match(a, action)]
        return all(any(_matches(p, action, piece.resource, plain=piece.plain) for p in relevant) for piece in pieces)

    async def _ask(self, request: PermissionRequest, pieces: list[Piece]) -> PermissionDecision:
        settled: asyncio.Future[PermissionDecision] = asyncio.get_running_loop().create_future()
        self._pending[request.id] = (request, pieces, settled)
        asking = asyncio.ensure_future(self.asker(request))
        try:
            await asyncio.wait({asking, settled}, return_when=asyncio.FIRST_COMPLETED)
            if settled.done():
                return settled.result()
            return asking.result()
        finally:
            self._pending.pop(request.id, None)
            if not asking.done():
                asking.cancel()

    def _settle_others(self, decide: Callable[[PermissionRequest, list[Piece]], PermissionDecision | None]) -> None:
        for request, pieces, future in list(self._pending.values()):
            if future.done():
                continue
            decision = decide(request, pieces)
            if decision is None:
                continue
            future.set_result(decision)
            if self.on_auto_reply is not None:
                self.on_auto_reply(request, decision)

    def _release_covered(self) -> None:
        once = PermissionDecision(reply=PermissionReply.ONCE)
        self._settle_others(lambda r, pieces: once if self._covered(r.action, pieces, self._granted) else None)

    def _mode_covers(
        self, mode: ApprovalMode, action: str, pieces: Sequence[Piece], detail: dict[str, Any] | None
    ) -> bool:
        """Whether ``mode`` lets these undecided pieces through. Short of ``full-auto``, a mode
        changes only the default ask: a piece an ``ask`` rule names is still asked."""
        if mode is not ApprovalMode.FULL_AUTO and any(self._asked_by_rule(action, piece) for piece in pieces):
            return False
        return approval_covers(mode, action, [piece.resource for piece in pieces], detail, sandboxed=self.sandboxed)

    def _asked_by_rule(self, action: str, piece: Piece) -> bool:
        rule = evaluate(self.rules, action, piece.resource, plain=piece.plain).rule
        return rule.effect is Effect.ASK and rule is not DEFAULT_RULES[0]

    def approval_changed(self) -> None:
        """The session's mode changed: the pending asks it now covers are settled "once"."""
        once = PermissionDecision(reply=PermissionReply.ONCE)
        mode = self.approval()
        self._settle_others(lambda r, pieces: once if self._mode_covers(mode, r.action, pieces, r.detail) else None)

    def _reject_pending(self) -> None:
        reject = PermissionDecision(reply=PermissionReply.REJECT)
        self._settle_others(lambda r, pieces: reject)


def _summary(request: PermissionRequest) -> str:
    command = request.detail.get("command")
    if isinstance(command, str):
        return f"`{command}`"
    return ", ".join(request.resources)


class OwnCommandGate:
    """The gate a command the user typed with ``!`` passes: it is theirs, so nothing is asked
    (whatever the approval mode), but deny rules and the agent's own rules still apply."""

    def __init__(self, gate: PermissionGate) -> None:
        self.gate = gate

    async def check(self, action: str, resources: list[str], **options: Any) -> None:
        await self.gate.check(action, resources, **options, approval=ApprovalMode.FULL_AUTO)


class AllowAll:
    """A gate that allows everything (benchmarks and tool-level tests only)."""

    async def check(self, action: str, resources: list[str], **_: Any) -> None:
        return None
