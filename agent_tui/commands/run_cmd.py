"""``agent-tui run``: one prompt, headless, through the same runner as the TUI.

Exit codes: :class:`~agent_tui.commands.run_exit.RunExit`, one per way a run ends (143 after SIGTERM
and 129 after SIGHUP, both interrupted with reason ``shutdown``). The session id goes to stderr so
the user can continue it.
Without a prompt, ``--session``/``--continue`` resumes: an explicit run of what the session left.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.commands import trust_cmd
from agent_tui.commands.errors import fail
from agent_tui.commands.output_schema import REPAIR_PROMPT, SchemaFileError, answer_line, read_schema
from agent_tui.commands.run_events import durable_line, live_line
from agent_tui.commands.run_exit import RunExit, for_error, for_store_error
from agent_tui.vocab.terminal_text import inert

if TYPE_CHECKING:
    from agent_tui.core.api import SessionRecord, Sessions

_APPROVAL_NOTES = {
    "auto-edit": "edits in the project run without asking",
    "auto": "what stays in the sandbox runs without asking",
    "full-auto": "nothing is asked",
}


def main(args: argparse.Namespace) -> int:
    return int(asyncio.run(_main(args)))


def _read_prompt(value: str | None) -> str | None:
    return sys.stdin.read() if value == "-" else value


def _emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def _main(args: argparse.Namespace) -> int:
    from agent_tui.core.api import ConfigError, CredentialsError, StoreError, load_settings

    prompt = await asyncio.to_thread(_read_prompt, args.prompt)
    if prompt is None and not (args.session or args.continue_):
        return fail("give a prompt, or --session ID / --continue to resume a session", RunExit.USAGE)
    if prompt is not None and not prompt.strip():
        return fail("the prompt is empty", RunExit.USAGE)
    schema = None
    if getattr(args, "output_schema", None) is not None:
        try:
            schema = await asyncio.to_thread(read_schema, args.output_schema)
        except SchemaFileError as error:
            return fail(inert(str(error)), RunExit.USAGE)
    cwd = Path.cwd()
    cli = {
        "model": args.model,
        "api_base": args.api_base,
        "api_key": args.api_key,
        "agent": args.agent,
        "approval": getattr(args, "approval", None),
    }
    trust_cmd.apply(args)
    try:
        settings = await asyncio.to_thread(load_settings, cwd, cli)
    except ConfigError as error:
        return fail(str(error), RunExit.USAGE)
    if settings.untrusted_project is not None:
        print(f"agent-tui: {trust_cmd.ignored_line(settings.untrusted_project)}", file=sys.stderr, flush=True)
    for line in settings.problems:
        print(inert(f"agent-tui: {line}"), file=sys.stderr, flush=True)
    if (unconfined := settings.sandbox.notice()) is not None:
        print(f"agent-tui: {unconfined}", file=sys.stderr, flush=True)
    if settings.approval != "ask":
        note = f"approval mode {settings.approval}: {_APPROVAL_NOTES.get(settings.approval, '')}"
        print(f"agent-tui: {note} (deny rules still apply)", file=sys.stderr, flush=True)
    if args.agent is not None and (refused := settings.agent_choice_error(args.agent)) is not None:
        return fail(refused, RunExit.USAGE)
    try:
        return await _run(args, prompt, cwd, cli, settings, schema)
    except CredentialsError as error:
        return fail(str(error), RunExit.USAGE)
    except StoreError as error:
        return fail(str(error), for_store_error(error))


def _mcp_notice(server: Any, told: set[str] | None = None) -> None:
    """One line on stderr when an MCP server fails to start or dies (not for each retry), one for
    each listed tool it does not offer and one for each message it logs at error level (each once,
    in ``told``); the run goes on."""
    if server.fresh_failure:
        print(inert(f"agent-tui: MCP server {server.name} {server.error}"), file=sys.stderr, flush=True)
    for line in (f"agent-tui: MCP server {server.name}: {skipped}" for skipped in getattr(server, "skipped", ())):
        if told is not None and line not in told:
            told.add(line)
            print(inert(line), file=sys.stderr, flush=True)
    for entry in getattr(server, "logs", ()):  # what it logged at error level, once each; the rest is in mcp.log
        key = f"log {entry.number}"
        if entry.is_error and told is not None and key not in told:
            told.add(key)
            print(
                inert(f"agent-tui: MCP server {server.name} logged {entry.level}: {entry.text}"),
                file=sys.stderr,
                flush=True,
            )


async def _parts(
    args: argparse.Namespace, prompt: str, cwd: Path, settings: Any, model: str | None, runtime: Any = None
) -> Any:
    """The prompt with its ``@path`` mentions and ``--file`` paths attached, ``@server:uri`` read through
    ``runtime``'s MCP servers; raises AttachmentError."""
    from agent_tui.core.api import attach_policy, build_prompt, vision_check

    agent = args.agent or settings.agent
    policy = attach_policy(settings, agent, external=args.permission, location=cwd)
    return await build_prompt(
        prompt,
        cwd,
        files=args.file or (),
        policy=policy,
        vision=vision_check(settings, model),
        resources=runtime.mcp_reader(cwd, agent) if runtime is not None else None,
    )


async def _run(
    args: argparse.Namespace,
    prompt: str | None,
    cwd: Path,
    cli: dict[str, Any],
    settings: Any,
    schema: dict[str, Any] | None = None,
) -> int:
    from agent_tui.core.api import AttachmentError, Runtime, UnknownSession, resolve_credentials

    async with await Runtime.open(cli=cli, permission_policy=args.permission) as runtime:
        told: set[str] = set()
        runtime.watch_mcp(lambda server: _mcp_notice(server, told))
        sessions = runtime.sessions
        session: SessionRecord | None = None
        if args.session:
            try:
                session = await sessions.get(args.session)
            except UnknownSession:
                return fail(f"unknown session {args.session}", RunExit.USAGE)
        elif args.continue_:
            session = await sessions.latest(cwd)
            if session is None:
                return fail(f"no session to continue in {cwd}", RunExit.USAGE)
        agent = args.agent or (session.agent if session else None) or settings.agent
        model = args.model or settings.agent_settings(agent).model or (session.model if session else None)
        model = model or settings.model
        await asyncio.to_thread(resolve_credentials, model, api_key=settings.api_key)
        try:
            parts = None if prompt is None else await _parts(args, prompt, cwd, settings, model, runtime)
        except AttachmentError as error:
            return fail(str(error), RunExit.USAGE)
        if session is None:
            session = await sessions.create(location=cwd, model=args.model or settings.model, agent=agent)
        else:
            if args.model and args.model != session.model:
                await sessions.select_model(session.id, args.model)
            if args.agent and args.agent != session.agent:
                await sessions.select_agent(session.id, args.agent)
        sid = session.id
        print(f"session {sid}", file=sys.stderr, flush=True)
        return await _follow_run(args, sessions, sid, prompt, parts, schema)


async def _follow_run(
    args: argparse.Namespace,
    sessions: Sessions,
    sid: str,
    prompt: str | None,
    parts: Any,
    schema: dict[str, Any] | None = None,
) -> int:
    """Admits the prompt (none on a resume), runs the session while following it, and says how it ended.
    With ``schema``: a run that ends without an accepted answer gets one repair prompt, forcing the tool."""
    from agent_tui.core.api import SessionOwnedElsewhere

    head = (await sessions.get(sid)).head_seq
    printer = _Follower(sessions, sid, head, json_lines=args.format == "json", now_ms=_now_ms)
    answering = None  # resume: what the session left is the work, the answer follows its last prompt
    if parts is not None:
        answering = (await sessions.prompt(sid, parts, delivery=args.delivery, resume=False)).input_id
    stopped_by = _install_signals(sessions, sid)
    if schema is not None:
        sessions.answers.require(sid, schema)
    try:
        error = await sessions.run(sid)
        if schema is not None and error is None and not stopped_by and not await sessions.answers.structured(sid, head):
            await sessions.prompt(sid, REPAIR_PROMPT, delivery="steer", resume=False)
            sessions.answers.require(sid, schema, forced=True)
            error = await sessions.run(sid)
    except SessionOwnedElsewhere as owned:
        if prompt is None:
            return fail(str(owned), RunExit.BUSY)
        how = "queued: it runs after that turn" if args.delivery == "queue" else "a steer: it is read at the next step"
        return fail(f"{owned}; your prompt {answering} is admitted there as {how}", RunExit.BUSY)
    finally:
        await printer.close()
    if stopped_by:
        return 128 + stopped_by[0]  # 130 SIGINT, 143 SIGTERM, 129 SIGHUP
    if schema is not None and not printer.prompt_blocked:  # a blocked prompt is refused, as without a schema
        return await _structured_end(args, sessions, sid, head, error)
    if args.format == "text":
        text = await sessions.answers.text(sid, answering)
        if text:
            _emit(inert(text))  # the model's words, never its control sequences
    if error is not None:
        return fail(inert(f"{error.type}: {error.message}"), for_error(error))
    return RunExit.REFUSED if printer.prompt_blocked else RunExit.DONE  # the hook's reason is already out


async def _structured_end(args: argparse.Namespace, sessions: Sessions, sid: str, head: int, error: Any) -> int:
    """The accepted answer alone on stdout (text format; the json events already carry it), else why not."""
    found = await sessions.answers.structured(sid, head)
    if found is not None:
        if args.format == "text":
            _emit(answer_line(found.value))
        return RunExit.DONE
    if error is not None:
        return fail(inert(f"{error.type}: {error.message}"), for_error(error))
    return fail(
        f"the model gave no final answer matching the output schema, even after a repair prompt (session {sid})",
        RunExit.NO_ANSWER,
    )


def _install_signals(sessions: Any, sid: str) -> list[int]:
    """Interrupt the run on SIGINT (``user``), SIGTERM or SIGHUP (``shutdown``); the list gets the
    first signal. The default actions would end the process and orphan a running tool's processes.
    A signal the caller ignores (``nohup``, a script's background job) stays ignored: the run goes on.
    A clean-up that wedges does not keep the process alive (:mod:`agent_tui.exit_grace`)."""
    from agent_tui import exit_grace
    from agent_tui.vocab.kinds import InterruptReason

    stopped_by: list[int] = []
    interrupting: set[asyncio.Task[Any]] = set()  # held until done: the loop keeps only a weak reference
    loop = asyncio.get_running_loop()

    def on_signal(signum: int, reason: Any) -> None:
        if not stopped_by:
            stopped_by.append(signum)
            exit_grace.arm(signum)
            task = loop.create_task(sessions.interrupt(sid, reason))
            interrupting.add(task)
            task.add_done_callback(interrupting.discard)

    for signum, reason in (
        (signal.SIGINT, InterruptReason.USER),
        (signal.SIGTERM, InterruptReason.SHUTDOWN),
        (signal.SIGHUP, InterruptReason.SHUTDOWN),
    ):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            loop.add_signal_handler(signum, on_signal, signum, reason)
    return stopped_by


def _now_ms() -> int:
    import time

    return int(time.time() * 1000)


def _declined(asked: Any, action: str, why: str) -> str:
    """``MCP server NAME asked "…": declined, no one to answer…``: a question no one saw."""
    said = " ".join(asked.message.split())
    said = said if len(said) <= 120 else said[:119] + "…"
    done = {"accept": "accepted", "decline": "declined", "cancel": "cancelled"}.get(action, action)
    return f'MCP server {asked.server} asked "{said}": {done} ({why})'


class _Follower:
    """Follows the run as it happens, through the facade's log tail and live subscription.

    json: every durable event (as ``agent-tui log`` prints it, with the session id) plus live
    deltas marked ``"live": true`` on stdout (:mod:`agent_tui.commands.run_events`). text: progress a waiting user needs on
    stderr (retries with their delay), keeping stdout for the answer.
    """

    def __init__(self, sessions: Any, sid: str, after: int, json_lines: bool, now_ms: Any) -> None:
        self._sessions = sessions
        self._sid = sid
        self._seen = after
        self._json = json_lines
        self._now_ms = now_ms
        self._moved = asyncio.Event()
        self.prompt_blocked = False
        """A ``user_prompt`` hook kept a prompt from the model (``run`` then fails)."""
        self._questions: dict[str, Any] = {}  # MCP servers' questions by request id, until answered
        self._deltas = sessions.subscribe(sid, deltas=True) if json_lines else None
        self._tasks = [asyncio.create_task(self._follow_log(after))]
        if self._deltas is not None:
            self._tasks.append(asyncio.create_task(self._follow_deltas(self._deltas)))

    async def _follow_log(self, after: int) -> None:
        from agent_tui.core.api import Synced
        from agent_tui.core.api import events as ev

        try:
            async for item in self._sessions.log(self._sid, after=after, follow=True):
                if isinstance(item, Synced):
                    continue
                self._seen = item.seq
                match item.event:
                    case ev.HookRan(hook_event="user_prompt", outcome="blocked"):
                        self.prompt_blocked = True
                if self._json:
                    _emit(durable_line(item))
                else:
                    self._progress(item.event)
                self._moved.set()
        finally:
            self._moved.set()  # close() stops waiting for a tail that ended

    async def _follow_deltas(self, deltas: Any) -> None:
        async for item in deltas:
            if (line := live_line(item)) is not None:
                _emit(line)

    def _progress(self, event: Any) -> None:
        from agent_tui.core.api import events as ev

        match event:
            case ev.RetryScheduled(error=error, attempt=attempt, at_ms=at_ms):
                wait_s = max(0, at_ms - self._now_ms()) / 1000
                note = f"{error.type}: {error.message} — retrying in {wait_s:.0f}s (attempt {attempt})"
            case ev.CompactionStarted(reason=reason):
                note = f"compacting the conversation ({reason})…"
            case ev.CompactionFailed(error=error):
                note = f"compaction: {error.message}"
            case ev.WorkspaceSnapshotted(call_id=call_id, error=str() as why):
                note = f"no snapshot before call {call_id} ({why}): a rewind cannot undo it"
            case ev.HookRan(outcome=outcome, hook_event=hook, message=str() as said) if outcome != "ok":
                note = f"{hook} hook {outcome}: {said}"
            case ev.ElicitationAsked(request_id=request_id):
                self._questions[request_id] = event
                return
            case ev.ElicitationAnswered(request_id=request_id, reason=str() as why) if request_id in self._questions:
                note = _declined(self._questions.pop(request_id), event.action, why)
            case ev.SamplingAsked(request_id=request_id):
                self._questions[request_id] = event
                return
            case ev.SamplingAnswered(request_id=request_id, reason=str() as why) if request_id in self._questions:
                server = self._questions.pop(request_id).server
                note = f"MCP server {server} asked to sample: {'cancelled' if event.action == 'cancel' else 'declined'} ({why})"
            case _:
                return
        print(inert(f"agent-tui: {note}"), file=sys.stderr, flush=True)

    async def close(self) -> None:
        """Print everything committed up to now, then stop following."""
        head = (await self._sessions.get(self._sid)).head_seq
        while self._seen < head and not self._tasks[0].done():
            self._moved.clear()
            await self._moved.wait()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except asyncio.CancelledError:
                pass
        if self._deltas is not None:
            self._deltas.close()
