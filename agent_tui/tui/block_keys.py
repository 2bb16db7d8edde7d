"""A transcript block's identity: what it is (``kind``), what it belongs to (``id``) and which part (``part``).

The fold finds a block again by its key when a later event or delta is about
it (a tool's result, a fragment's next delta), and the view keeps a widget
while its block's key stays. Keys are built here only, one constructor per
kind, so the fold and the views cannot spell one differently.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class BlockKind(StrEnum):
    USER = "user"  # a promoted prompt; id: its input id
    INSTRUCTION = "instruction"  # id: the message id
    COMPACTION = "compaction"  # id: the input id, else the message id (part: the seq when it has neither)
    TEXT = "text"  # id: the assistant message id; part: the fragment's ordinal
    REASONING = "reasoning"  # as TEXT
    DRAFT = "input"  # a call the model is still writing; id: the assistant message id; part: its index
    TOOL = "tool"  # id: the assistant message id (a ``!command``'s input id); part: the call id
    ERROR = "error"  # a failed step; id: the assistant message id
    EXECUTION_ERROR = "exec"  # a failed busy period; part: its seq
    RETRY = "retry"  # id: the assistant message id
    HOOK = "hook"  # a hook's run; part: its seq


class BlockKey(NamedTuple):
    kind: BlockKind
    id: str
    part: str | int = ""

    def __str__(self) -> str:  # for messages and debugging: ``msg_a:tool:call_1``
        return ":".join(str(x) for x in (self.id, self.kind.value, self.part) if x != "")

    @classmethod
    def user(cls, input_id: str) -> BlockKey:
        return cls(BlockKind.USER, input_id)

    @classmethod
    def instruction(cls, message_id: str) -> BlockKey:
        return cls(BlockKind.INSTRUCTION, message_id)

    @classmethod
    def compaction(cls, id: str | None, seq: int = 0) -> BlockKey:
        return cls(BlockKind.COMPACTION, id) if id else cls(BlockKind.COMPACTION, "", seq)

    @classmethod
    def fragment(cls, amid: str, ordinal: int, reasoning: bool = False) -> BlockKey:
        return cls(BlockKind.REASONING if reasoning else BlockKind.TEXT, amid, ordinal)

    @classmethod
    def draft(cls, amid: str, index: int) -> BlockKey:
        return cls(BlockKind.DRAFT, amid, index)

    @classmethod
    def tool(cls, amid: str, call_id: str) -> BlockKey:
        return cls(BlockKind.TOOL, amid, call_id)

    @classmethod
    def error(cls, amid: str) -> BlockKey:
        return cls(BlockKind.ERROR, amid)

    @classmethod
    def execution_error(cls, seq: int) -> BlockKey:
        return cls(BlockKind.EXECUTION_ERROR, "", seq)

    @classmethod
    def retry(cls, amid: str) -> BlockKey:
        return cls(BlockKind.RETRY, amid)

    @classmethod
    def hook(cls, seq: int) -> BlockKey:
        return cls(BlockKind.HOOK, "", seq)
