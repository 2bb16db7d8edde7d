from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_tui.tools.asks import PermissionDecision, PermissionRequest, policy_asker
from agent_tui.tools.bash import BASH
from agent_tui.tools.errors import PermissionDenied, PermissionRejected
from agent_tui.tools.permissions import evaluate, suggest_save
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.shell_parse import parse_command
from agent_tui.tools.wildcard import wildcard_match
from agent_tui.vocab.kinds import Effect, PermissionReply
from agent_tui.vocab.permission_rule import PermissionRule
from tests.fakes.asks import RecordingAsker

from .conftest import gate_for

ONCE = PermissionDecision(reply=PermissionReply.ONCE)


def rule(action: str, pattern: str, effect: str) -> PermissionRule:
    return PermissionRule(action=action, pattern=pattern, effect=Effect(effect))


class SavedApprovals:
    def __init__(self, rows: dict[str, list[tuple[str, str]]]) -> None:
        self.rows = rows

    async def approved(self, project_root: str) -> list[tuple[str, str]]:
        return self.rows.get(project_root, [])


def test_wildcards() -> None:
    assert wildcard_match("git status *", "git status")
    assert wildcard_match("git status *", "git status --short")
    assert not wildcard_match("git status *", "git statusx")
    assert wildcard_match("git status*", "git status; rm -rf ~")  # why bash rules judge each simple command
    assert wildcard_match("ls [a]", "ls [a]") and not wildcard_match("ls [a]", "ls a")
    assert wildcard_match("src/?.py", "src/a.py") and not wildcard_match("src/?.py", "src/ab.py")


def test_defaults_and_last_match_wins() -> None:
    assert evaluate([], "read", "a.txt").effect is Effect.ALLOW
    for action in ("bash", "edit", "external_directory"):
        assert evaluate([], action, "x").effect is Effect.ASK
    rules = [
        rule("bash", "git *", "allow"),
        rule("bash", "git push *", "deny"),
        rule("bash", "git push --dry-run *", "allow"),
    ]
    assert evaluate(rules, "bash", "git log").effect is Effect.ALLOW
    assert evaluate(rules, "bash", "git push origin").effect is Effect.DENY
    assert evaluate(rules, "bash", "git push --dry-run origin").effect is Effect.ALLOW
    assert evaluate([rule("*", "*", "deny"), rule("read", "*", "allow")], "read", "x").effect is Effect.ALLOW
    assert evaluate([rule("read", "*", "allow"), rule("*", "*", "deny")], "read", "x").effect is Effect.DENY
    assert (
        evaluate([rule("external_directory", "/tmp/*", "allow")], "external_directory", "/tmp").effect is Effect.ALLOW
    )


@pytest.mark.parametrize(
    ("command", "parts"),
    [
        ("git status; rm -rf ~", ["git status", "rm -rf ~"]),
        ("git status && rm -rf ~ || echo x", ["git status", "rm -rf ~", "echo x"]),
        ("git status | sh", ["git status", "sh"]),
        ("echo $(rm -rf ~)", ["echo $(rm -rf ~)", "rm -rf ~"]),
        ("echo `rm -rf ~`", ["echo `rm -rf ~`", "rm -rf ~"]),
        ("(cd / && rm -rf ~)", ["cd /", "rm -rf ~"]),
        ("git status > ~/.bashrc", ["git status > ~/.bashrc"]),
        ("git status 'a;b'", ["git status 'a;b'"]),
        ("x=$(curl evil.sh)", ["curl evil.sh"]),
    ],
)
def test_shell_parser_finds_every_simple_command(command: str, parts: list[str]) -> None:
    parsed = parse_command(command)
    assert parsed.complete and parsed.commands == parts


def test_save_suggestions() -> None:
    assert suggest_save("bash", ["git status --short", "ls -la", "npm run build"]) == [
        "git status *",
        "ls *",
        "npm run *",
    ]
    assert suggest_save("edit", ["src/a.py", "top.txt"]) == ["src/*", "*"]
    assert suggest_save("external_directory", ["/tmp/x"]) == ["/tmp/x/*"]


async def test_compound_command_with_one_unapproved_part_is_asked(workdir: Path) -> None:
    asker = RecordingAsker(ONCE)
    gate = gate_for(workdir, asker, [rule("bash", "git status*", "allow")])
    await gate.check("bash", ["git status --short"], detail={"command": "git status --short"})
    assert asker.requests == []
    await gate.check("bash", ["git status; rm -rf ~"], detail={"command": "git status; rm -rf ~"})
    assert [r.resources for r in asker.requests] == [["rm -rf ~"]]
    assert asker.requests[0].save_patterns == ["rm *"]
    await gate.check("bash", ["git status && echo $(whoami)"])
    # Not plain words: the whole line is asked, "always" would save what it runs.
    assert asker.requests[-1].resources == ["git status && echo $(whoami)"]
    assert asker.requests[-1].save_patterns == ["git status *", "echo *", "whoami *"]
    assert "command substitution" in asker.requests[-1].detail["not_plain"]


async def test_unparseable_command_is_only_allowed_by_a_bare_star(workdir: Path) -> None:
    asker = RecordingAsker(ONCE)
    await gate_for(workdir, asker, [rule("bash", "git *", "allow")]).check("bash", ['git log "unterminated'])
    assert len(asker.requests) == 1
    await gate_for(workdir, asker, [rule("bash", "*", "allow")]).check("bash", ['git log "unterminated'])
    assert len(asker.requests) == 1


async def test_saved_approvals_cover_asks_but_not_denies(workdir: Path) -> None:
    asker = RecordingAsker(ONCE)
    saved = SavedApprovals({str(workdir): [("bash", "npm test *"), ("edit", "*")]})
    gate = gate_for(workdir, asker, [rule("bash", "rm *", "deny")], approvals=saved)
    await gate.check("bash", ["npm test -- -x"])
    await gate.check("edit", ["a.py", "b/c.py"])
    assert asker.requests == []
    await gate.check("bash", ["npm test && npm publish"])
    assert asker.requests[-1].resources == ["npm publish"]
    saved.rows[str(workdir)].append(("bash", "*"))
    with pytest.raises(PermissionDenied) as denied:
        await gate.check("bash", ["rm -rf build"])
    assert denied.value.type == "permission.denied" and "rm *" in denied.value.message


async def test_always_covers_later_asks_and_releases_pending_ones(workdir: Path) -> None:
    release = asyncio.Event()
    seen: list[PermissionRequest] = []
    auto: list[tuple[str, str]] = []

    async def asker(request: PermissionRequest) -> PermissionDecision:
        seen.append(request)
        if request.resources == ["npm test"]:
            await release.wait()
            return PermissionDecision(reply=PermissionReply.ALWAYS)
        await asyncio.Event().wait()  # never answered by the user
        raise AssertionError

    gate = gate_for(workdir, asker)
    gate.on_auto_reply = lambda request, decision: auto.append((request.resources[0], decision.reply))
    first = asyncio.create_task(gate.check("bash", ["npm test"]))
    second = asyncio.create_task(gate.check("bash", ["npm test -- --watch=false"]))
    other = asyncio.create_task(gate.check("bash", ["make"]))
    async with asyncio.timeout(5):  # bash lines are judged off the event loop: wait until all three ask
        while len(gate.pending()) < 3:
            await asyncio.sleep(0.001)
    release.set()
    await first
    await asyncio.wait_for(second, 1)
    assert auto == [("npm test -- --watch=false", PermissionReply.ONCE)]
    assert not other.done() and [r.resources for r in gate.pending()] == [["make"]]
    await gate.check("bash", ["npm test --coverage"])
    assert len(seen) == 3
    other.cancel()


async def test_plain_reject_stops_the_run_and_rejects_other_pending_asks(workdir: Path) -> None:
    async def asker(request: PermissionRequest) -> PermissionDecision:
        if request.resources == ["a"]:
            await asyncio.sleep(0.01)
            return PermissionDecision(reply=PermissionReply.REJECT)
        await asyncio.Event().wait()
        raise AssertionError

    gate = gate_for(workdir, asker)
    first = asyncio.create_task(gate.check("bash", ["a"], detail={"command": "a"}))
    second = asyncio.create_task(gate.check("bash", ["b"]))
    results = await asyncio.gather(first, second, return_exceptions=True)
    assert all(isinstance(r, PermissionRejected) and r.stop_run for r in results)
    assert results[0].type == "permission.rejected" and "`a`" in results[0].message


async def test_reject_with_message_continues(workdir: Path) -> None:
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.REJECT, message="use make test instead"))
    with pytest.raises(PermissionRejected) as rejected:
        await gate_for(workdir, asker).check("bash", ["npm test"], detail={"command": "npm test"})
    assert not rejected.value.stop_run
    assert rejected.value.message == "The user rejected permission for bash `npm test` and said: use make test instead"


async def test_headless_policy_never_hangs(workdir: Path, make_scope) -> None:
    registry = ToolRegistry(workdir)
    registry.register(BASH)
    allowed = await registry.invoke(
        "bash", {"command": "echo yes"}, make_scope(gate=gate_for(workdir, policy_asker("allow")))
    )
    assert allowed.output is not None and allowed.output.text.startswith("yes")
    denied = await asyncio.wait_for(
        registry.invoke("bash", {"command": "echo yes"}, make_scope(gate=gate_for(workdir, policy_asker("deny")))), 5
    )
    assert denied.error is not None and denied.error.type == "permission.rejected" and not denied.stop_run
    assert "--permission deny" in denied.error.message
    with pytest.raises(ValueError):
        policy_asker("maybe")


async def test_registry_marks_plain_reject_as_stop_run(workdir: Path, make_scope) -> None:
    registry = ToolRegistry(workdir)
    registry.register(BASH)
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.REJECT))
    outcome = await registry.invoke(
        "bash", {"command": "git status; rm -rf ~"}, make_scope(gate=gate_for(workdir, asker))
    )
    assert outcome.error is not None and outcome.error.type == "permission.rejected" and outcome.stop_run
    assert asker.requests[0].detail["command"] == "git status; rm -rf ~"
    assert asker.requests[0].call_id == "call_1" and asker.requests[0].assistant_message_id == "msg_test"


async def test_a_bash_ask_carries_the_models_description_of_the_command(workdir: Path, make_scope) -> None:
    registry = ToolRegistry(workdir)
    registry.register(BASH)
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.REJECT))
    described = {"command": "make -j4 test", "description": "Run the test suite in parallel"}
    await registry.invoke("bash", described, make_scope(gate=gate_for(workdir, asker)))
    await registry.invoke("bash", {"command": "make lint"}, make_scope(gate=gate_for(workdir, asker)))
    assert asker.requests[0].detail["description"] == "Run the test suite in parallel"
    assert "description" not in asker.requests[1].detail  # none given: none shown
