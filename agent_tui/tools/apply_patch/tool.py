"""The ``apply_patch`` tool: parse, resolve, ask once, verify, apply in order."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.tools.apply_patch.applier import Plan, Step, apply, resolve, verify
from agent_tui.tools.apply_patch.parser import PatchError, UpdateFile, parse_patch
from agent_tui.tools.descriptions import tool_description
from agent_tui.tools.errors import ToolError
from agent_tui.tools.references import refuse_reference_edit
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import Tool, ToolResult
from agent_tui.vocab.tool_output import ToolOutput

DESCRIPTION = tool_description("agent_tui.tools.apply_patch", "description.md")


class ApplyPatchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    patch: str = Field(description="The full patch text, from '*** Begin Patch' to '*** End Patch'.")


def _report(applied: list[Step]) -> str:
    return "\n".join(f"{s.letter} {s.shown}" for s in applied)


def _what_changed(plan: Plan, applied: list[Step]) -> str:
    """After a failure: exactly which operations were written and which were left as they were."""
    if plan.failure is not None:
        return "No files were changed."
    done = (
        f"These operations were already applied and were NOT rolled back:\n{_report(applied)}"
        if applied
        else "No earlier operation had been applied."
    )
    not_attempted = plan.not_attempted(len(applied))
    rest = "\nNot attempted, left as they were:\n" + "\n".join(not_attempted) if not_attempted else ""
    return done + rest


def _prepare(scope: ToolScope, patch: str) -> Plan:
    try:
        operations = parse_patch(patch)
    except PatchError as error:
        raise ToolError(f"Invalid patch: {error}") from None
    for operation in operations:
        refuse_reference_edit(operation.path, scope.references)
        if isinstance(operation, UpdateFile) and operation.move_to:
            refuse_reference_edit(operation.move_to, scope.references)
    return resolve(scope.location, operations)


async def run_apply_patch(scope: ToolScope, params: ApplyPatchInput) -> ToolResult:
    plan = await asyncio.to_thread(_prepare, scope, params.patch)
    for directory in plan.outside_directories():
        await scope.ask("external_directory", [directory], detail={"path": directory, "diff": params.patch})
    await scope.ask("edit", plan.edit_resources(), detail={"diff": params.patch})
    plan = await asyncio.to_thread(verify, plan)
    applied, failure = await asyncio.to_thread(apply, plan)
    files = [{"op": s.letter, "path": s.shown, "added": s.added, "removed": s.removed} for s in applied]
    if failure is not None:
        raise ToolError(f"apply_patch failed: {failure}\n{_what_changed(plan, applied)}")
    text = "Success. Updated the following files:\n" + _report(applied)
    return ToolResult(ToolOutput(text=text, data={"files": files}))


APPLY_PATCH = Tool(
    name="apply_patch", description=DESCRIPTION, input_model=ApplyPatchInput, run=run_apply_patch, action="edit"
)
