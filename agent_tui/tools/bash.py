"""The ``bash`` tool: one command line, its own process group, bounded output."""

from __future__ import annotations

import asyncio
import codecs
import glob
import logging
import os
import time
import uuid
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.tools.descriptions import tool_description
from agent_tui.tools.errors import ToolError
from agent_tui.tools.output_keeper import OutputKeeper
from agent_tui.tools.paths import is_inside
from agent_tui.tools.process_group import (
    TOOL_MARK_ENV,
    become_subreaper,
    shell_exited,
    stop_group,
    sweep,
    tool_mark,
    track,
)
from agent_tui.tools.sandbox import SandboxMode, SandboxPolicy, bwrap_path, confines_here, sandboxed_argv
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.shell_env import command_environment
from agent_tui.tools.shell_grammar import write_targets
from agent_tui.tools.shell_parse import HARMLESS_PATHS, absolute_arguments
from agent_tui.tools.tool import Tool, ToolResult
from agent_tui.vocab.tool_output import ToolOutput

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
READ_SIZE = 64 * 1024
LIVE_MAX_BYTES = 1024 * 1024
"""Live output sent to the UI per call; the rest is summarised (it stays in the spill file)."""
EXIT_DRAIN_S = 0.5
"""After the shell exits, how long background children may keep the output pipe open."""

DESCRIPTION = tool_description("agent_tui.tools", "bash.md")


class BashInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(min_length=1, description="The bash command line to run.")
    workdir: str | None = Field(
        default=None,
        description="Directory to run in; relative to the working directory. Default: the working directory.",
    )
    timeout_ms: int | None = Field(
        default=None, ge=1, le=MAX_TIMEOUT_MS, description="Timeout in milliseconds (default 120000, max 600000)."
    )
    description: str | None = Field(
        default=None, description="Five to ten words saying what the command does, shown to the user."
    )
    outside_sandbox: bool = Field(
        default=False,
        description=(
            "Run outside the sandbox. Only to re-run a command the sandbox stopped (a write outside the "
            "workspace, the network); the user is asked first. Say why in `justification`."
        ),
    )
    justification: str | None = Field(
        default=None, description="With outside_sandbox: one sentence telling the user why it is needed."
    )


def _resolve_workdir(location: Path, workdir: str | None) -> Path:
    if not workdir:
        return location
    path = Path(os.path.realpath(location / Path(workdir).expanduser()))
    if not path.is_dir():
        raise ToolError(f"workdir {workdir!r} is not an existing directory.")
    return path


def _deliver(scope: ToolScope, text: str) -> None:
    """Live output is best effort: a failing listener must not break the command."""
    try:
        scope.on_output(text)
    except Exception:  # noqa: BLE001
        logging.getLogger(__name__).exception("live output listener failed")


async def _pump(stream: asyncio.StreamReader, keeper: OutputKeeper, scope: ToolScope) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    live = 0
    while chunk := await stream.read(READ_SIZE):
        await keeper.feed(chunk)
        if live < LIVE_MAX_BYTES:
            live += len(chunk)
            text = decoder.decode(chunk)
            if live >= LIVE_MAX_BYTES:
                text += "\n… [live output paused; the result shows the head and tail] …\n"
            if text:
                _deliver(scope, text)


async def run_bash(scope: ToolScope, params: BashInput) -> ToolResult:
    workdir = await asyncio.to_thread(_resolve_workdir, scope.location, params.workdir)
    if not is_inside(workdir, scope.location):
        await scope.ask(
            "external_directory", [workdir.as_posix()], detail={"path": workdir.as_posix(), "command": params.command}
        )
    outside = await asyncio.to_thread(_outside_writes, params.command, workdir, scope.location)
    if outside:
        await scope.ask("external_directory", outside, detail={"path": outside[0], "command": params.command})
    detail = {"command": params.command, "workdir": workdir.as_posix()}
    if params.description:  # the model's own words for it: the panel shows them above the command
        detail["description"] = params.description
    await scope.ask("bash", [params.command], detail=detail)
    confined = await _confinement(scope, params)
    timeout_s = (params.timeout_ms or DEFAULT_TIMEOUT_MS) / 1000
    spill = scope.spill_dir / f"bash-{scope.call_id or 'call'}-{uuid.uuid4().hex[:8]}.log"
    keeper = OutputKeeper(spill)
    env = command_environment(scope.shell_env_include)
    if scope.session_id and scope.call_id:  # found again by the crash sweep if this process dies
        env[TOOL_MARK_ENV] = tool_mark(scope.session_id, scope.call_id)
    become_subreaper()
    await asyncio.to_thread(sweep)
    started = time.monotonic()
    proc = await _start_shell(shell_argv(params.command, workdir, confined), workdir, env, scope.kill_grace_s)
    assert proc.stdout is not None
    track(proc.pid, proc.pid)
    pump = asyncio.ensure_future(_pump(proc.stdout, keeper, scope))
    stopped_by: str | None = None
    try:
        try:
            async with asyncio.timeout(timeout_s):
                await shell_exited(proc)
                drained, _ = await asyncio.wait({pump}, timeout=EXIT_DRAIN_S)
                if not drained:
                    stopped_by = "background"
        except TimeoutError:
            stopped_by = "timeout"
        if stopped_by is not None:
            signal_used = await stop_group(proc.pid, proc.pid, scope.kill_grace_s)
        await proc.wait()
        done, _ = await asyncio.wait({pump}, timeout=5.0)
        if not done:  # something that left the group still holds the pipe
            pump.cancel()
    except BaseException:
        pump.cancel()
        await asyncio.shield(_stop_after_cancel(proc, scope.kill_grace_s))
        await keeper.close()
        raise
    await asyncio.to_thread(sweep)
    await keeper.close()
    duration = time.monotonic() - started
    notes = []
    if stopped_by == "timeout":
        notes.append(f"Command timed out after {timeout_s:g} s; its process group was stopped with {signal_used}.")
    elif stopped_by == "background":
        notes.append(
            f"Background processes still writing output after the shell exited were stopped with {signal_used}."
        )
    code = proc.returncode
    if code and confined is not None:
        notes.append(_SANDBOX_NOTE[confined.mode].format(net="" if confined.network else " and the network"))
    status = f"Exit code {code}" if code is not None and code >= 0 else f"Killed by signal {-(code or 0)}"
    output = keeper.text()
    text = "\n".join([output.rstrip("\n") if output else "(no output)", *notes, f"{status} · {duration:.2f} s"])
    data = {
        "command": params.command,
        "warnings": _outside_warnings(params.command, scope.location),
        "workdir": workdir.as_posix(),
        "exit_code": code,
        "duration_ms": round(duration * 1000),
        "timed_out": stopped_by == "timeout",
        "truncated": keeper.overflowed,
        "spill_path": str(spill) if keeper.overflowed else None,
        "total_bytes": keeper.total_bytes,
        "total_lines": keeper.total_lines,
        "sandbox": confined.mode.value if confined is not None else "none",
    }
    return ToolResult(ToolOutput(text=text, data=data))


_SANDBOX_NOTE = {
    SandboxMode.WORKSPACE_WRITE: (
        "(Ran in the workspace-write sandbox: writes outside the project and the temp dir{net} are blocked.)"
    ),
    SandboxMode.READ_ONLY: "(Ran in the read-only sandbox: writes{net} are blocked.)",
}


async def _confinement(scope: ToolScope, params: BashInput) -> SandboxPolicy | None:
    """The policy the command runs under; None: not confined (full access, no mechanism here, or
    the user let this one command out)."""
    policy = scope.sandbox
    if policy is None or not confines_here(policy):
        return None
    if params.outside_sandbox:
        why = params.justification or params.description or "no reason given"
        await scope.ask(
            "outside_sandbox",
            [params.command],
            detail={"command": params.command, "justification": why, "sandbox": policy.mode.value},
        )
        return None
    return policy


def shell_argv(command: str, workdir: Path, policy: SandboxPolicy | None) -> list[str]:
    """``bash -c command``, wrapped in bubblewrap under ``policy`` when there is one and bwrap is here."""
    argv = ["bash", "--noprofile", "--norc", "-c", command]
    bwrap = bwrap_path()
    return argv if policy is None or bwrap is None else sandboxed_argv(policy, argv, workdir, bwrap)


def _outside_writes(command: str, workdir: Path, location: Path) -> list[str]:
    """Directories outside the location that the line's redirections write into (``> /x``,
    ``2>> ~/log``, ``&> ../y``), symlinks followed: each is an ``external_directory`` ask."""
    directories = []
    for target in write_targets(command):
        if target in HARMLESS_PATHS:
            continue
        expanded = _expand_tilde(target, workdir)
        matches = glob.glob(expanded, root_dir=workdir) if any(c in expanded for c in "*?[") else []
        for candidate in (expanded, *matches):  # bash writes to the one file a glob matches
            path = Path(os.path.realpath(workdir / candidate))
            if not is_inside(path, location):
                directories.append(path.parent.as_posix())
    return list(dict.fromkeys(directories))


def _expand_tilde(target: str, workdir: Path) -> str:
    """``~``, ``~user``, and bash's ``~+`` (the working directory) and ``~-`` (``$OLDPWD``)."""
    head, _, rest = target.partition("/")
    match head:
        case "~+":
            return os.path.join(workdir, rest)
        case "~-" if os.environ.get("OLDPWD"):
            return os.path.join(os.environ["OLDPWD"], rest)
        case _:
            return os.path.expanduser(target)


def _outside_warnings(command: str, location: Path) -> list[str]:
    """Advisory only (not a boundary, nothing is asked): absolute paths outside the location."""
    warnings = []
    for arg in absolute_arguments(command):
        path = Path(os.path.expanduser(arg))
        if not is_inside(Path(os.path.normpath(path)), location):
            warnings.append(f"{arg} is outside the working directory")
    return warnings


async def _start_shell(
    argv: list[str], workdir: Path, env: dict[str, str], grace_s: float
) -> asyncio.subprocess.Process:
    """Start ``bash -c`` (or bubblewrap around it) as leader of its own group.

    The shell runs as soon as it is forked, while asyncio still wires its pipes.
    A cancel arriving in that window would make asyncio kill the shell alone and
    orphan what it had started, so the start is shielded: a cancel waits for it
    to finish, stops the whole group, then propagates."""
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            cwd=workdir,
            env=env,
            start_new_session=True,
        )
    )
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        try:
            proc = await starting
        except Exception:  # noqa: BLE001 - it never started: nothing to stop, the cancel goes on
            pass
        else:
            await asyncio.shield(_stop_after_cancel(proc, grace_s))
        raise


async def _stop_after_cancel(proc: asyncio.subprocess.Process, grace_s: float) -> None:
    await stop_group(proc.pid, proc.pid, grace_s)
    await proc.wait()


BASH = Tool(name="bash", description=DESCRIPTION, input_model=BashInput, run=run_bash, action="bash")
