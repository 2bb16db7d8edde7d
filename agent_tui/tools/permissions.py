"""Permission rules and the gate every tool passes before it acts.

Rules are ``{action, pattern, effect}``; the last matching rule wins, after
the defaults (``ask`` for everything, ``allow`` for ``read`` inside the
location). ``deny`` is final: saved approvals never override it. ``ask``
consults saved approvals ("always" replies, project-wide) and this gate's own
"always" replies, then asks the injected :data:`~.asks.Asker` once for
everything still uncovered.

A ``bash`` resource is a whole command line: every simple command in it must
be allowed or approved on its own (see :mod:`.shell_parse`). Commands the
parser could not read completely are only allowed by a bare ``*`` rule.

Use one gate per session run: an "always" reply then releases the other
pending asks it covers, and a plain reject rejects them all.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Sequence

from agent_tui.tools.asks import ApprovalStore, Asker, CallOrigin, PermissionDecision, PermissionRequest
from agent_tui.tools.errors import PermissionDenied, PermissionRejected
from agent_tui.tools.shell_parse import parse_command, suggest_pattern
from agent_tui.tools.wildcard import wildcard_match
from agent_tui.vocab.kinds import Effect, PermissionReply
from agent_tui.vocab.permission_rule import PermissionRule

DEFAULT_RULES: tuple[PermissionRule, ...] = (
    PermissionRule(action="*", pattern="*", effect=Effect.ASK),
    PermissionRule(action="read", pattern="*", effect=Effect.ALLOW),
)


@dataclass(frozen=True)
class Verdict:
    effect: Effect
    rule: PermissionRule


def _matches(pattern: str, action: str, resource: str) -> bool:
    if wildcard_match(pattern, resource):
        return True
    # "/tmp/*" also covers the directory "/tmp" itself.
    return action == "external_directory" and wildcard_match(pattern, resource.rstrip("/") + "/")


def evaluate(rules: Sequence[PermissionRule], action: str, resource: str, *, complete: bool = True) -> Verdict:
    """The effect for one resource: last matching rule wins, defaults first."""
    verdict = Verdict(Effect.ASK, DEFAULT_RULES[0])
    for rule in (*DEFAULT_RULES, *rules):
        if wildcard_match(rule.action, action) and _matches(rule.pattern, action, resource):
            verdict = Verdict(rule.effect, rule)
    if verdict.effect is Effect.ALLOW and not complete and verdict.rule.pattern != "*":
        return Verdict(Effect.ASK, verdict.rule)
    return verdict


def expand(action: str, resources: Sequence[str]) -> list[tuple[str, bool]]:
    """Resources to judge one by one: a bash command line becomes its simple commands."""
    if action != "bash":
        return [(r, True) for r in resources]
    out: list[tuple[str, bool]] = []
    for command in resources:
        parsed = parse_command(command)
        if parsed.complete:
            out.extend((part, True) for part in parsed.commands)
        else:
            out.append((" ".join(command.split()), False))
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
    ) -> None:
        self.rules = list(rules)
        self.approvals = approvals
        self.asker = asker
        self.location = Path(location)
        self.project_root = Path(project_root)
        self.on_auto_reply = on_auto_reply
        self._granted: list[tuple[str, str]] = []
        self._pending: dict[str, tuple[PermissionRequest, asyncio.Future[PermissionDecision]]] = {}

    def pending(self) -> list[PermissionRequest]:
        return [request for request, _ in self._pending.values()]

    async def check(
        self,
        action: str,
        resources: list[str],
        *,
        detail: dict[str, Any] | None = None,
        save_patterns: list[str] | None = None,
        origin: CallOrigin | None = None,
    ) -> None:
        """Return when allowed; raise ``PermissionDenied`` or ``PermissionRejected``."""
        undecided: list[str] = []
        for resource, complete in expand(action, resources):
            verdict = evaluate(self.rules, action, resource, complete=complete)
            if verdict.effect is Effect.DENY:
                raise PermissionDenied(action, resource, verdict.rule.pattern)
            if verdict.effect is Effect.ASK:
                undecided.append(resource)
        undecided = list(dict.fromkeys(undecided))
        if not undecided:
            return
        approvals = [*await self.approvals.approved(str(self.project_root)), *self._granted]
        undecided = [r for r in undecided if not self._covered(action, [r], approvals)]
        if not undecided:
            return
        origin = origin or CallOrigin()
        request = PermissionRequest(
            session_id=origin.session_id,
            assistant_message_id=origin.assistant_message_id,
            call_id=origin.call_id,
            action=action,
            resources=undecided,
            save_patterns=save_patterns or suggest_save(action, undecided),
            detail=detail or {},
        )
        decision = await self._ask(request)
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

    @staticmethod
    def _covered(action: str, resources: Sequence[str], approvals: Sequence[tuple[str, str]]) -> bool:
        relevant = [p for a, p in approvals if wildcard_match(a, action)]
        return all(any(_matches(p, action, r) for p in relevant) for r in resources)

    async def _ask(self, request: PermissionRequest) -> PermissionDecision:
        settled: asyncio.Future[PermissionDecision] = asyncio.get_running_loop().create_future()
        self._pending[request.id] = (request, settled)
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

    def _settle_others(self, decide: Callable[[PermissionRequest], PermissionDecision | None]) -> None:
        for request, future in list(self._pending.values()):
            if future.done():
                continue
            decision = decide(request)
            if decision is None:
                continue
            future.set_result(decision)
            if self.on_auto_reply is not None:
                self.on_auto_reply(request, decision)

    def _release_covered(self) -> None:
        once = PermissionDecision(reply=PermissionReply.ONCE)
        self._settle_others(lambda r: once if self._covered(r.action, r.resources, self._granted) else None)

    def _reject_pending(self) -> None:
        reject = PermissionDecision(reply=PermissionReply.REJECT)
        self._settle_others(lambda r: reject)


def _summary(request: PermissionRequest) -> str:
    command = request.detail.get("command")
    if isinstance(command, str):
        return f"`{command}`"
    return ", ".join(request.resources)


class AllowAll:
    """A gate that allows everything (benchmarks and tool-level tests only)."""

    async def check(self, action: str, resources: list[str], **_: Any) -> None:
        return None
