"""``!command``: the user's own shell command, run through the session's bash tool.

The same path as the model's calls (the sandbox, the deny rules, the process group,
live output as ``tool.output.delta`` keyed by the input id and call id
``shell``), but no model step and no permission ask (it is the user's own
command, whatever the approval mode): the result is one ``shell.ended`` event, whose
``shell`` message the next request shows the model as a user-visible block.
An interrupt ends it with an ``aborted`` error, so it never runs twice.
"""

from __future__ import annotations

import asyncio

from agent_tui.core.host.port import ToolHost, ToolInvocation
from agent_tui.core.log import events as ev
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.log.records import InboxRecord
from agent_tui.core.request.shell_text import SHELL_CALL_ID
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import ErrorType


def shell_command(row: InboxRecord) -> str:
    return str((row.prompt or [{}])[0].get("text", ""))


async def run_shell(session_id: str, row: InboxRecord, tools: ToolHost, publish: SessionPublisher) -> None:
    command = shell_command(row)
    call = ToolInvocation(
        session_id=session_id,
        assistant_message_id=row.id,
        call_id=SHELL_CALL_ID,
        name="bash",
        input={"command": command},
        by_user=True,
    )

    def on_output(delta: str) -> None:
        publish.live(
            ev.ToolOutputDelta(session_id=session_id, assistant_message_id=row.id, call_id=SHELL_CALL_ID, delta=delta)
        )

    try:
        settled = await tools.execute(call, on_output)
    except asyncio.CancelledError:
        stopped = ErrorInfo(type=ErrorType.ABORTED, message="Interrupted by the user.")
        await publish(ev.ShellEnded(input_id=row.id, command=command, error=stopped))
        raise
    await publish(ev.ShellEnded(input_id=row.id, command=command, output=settled.output, error=settled.error))
