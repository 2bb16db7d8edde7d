"""``run --output-schema FILE``: read the caller's JSON Schema, and print the accepted answer.

The file is checked before anything runs, so a typo costs no model call and creates no
session; the answer is printed as one compact JSON line, so a script can read stdout as is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.vocab.terminal_text import inert_json

REPAIR_PROMPT = (
    "Your turn ended without an accepted final answer. Call final_answer now with your final answer,"
    " as arguments that match its schema; do not answer in plain text. (Without a final_answer tool,"
    " reply with the JSON alone, matching the response format.)"
)


class SchemaFileError(Exception):
    """The schema file cannot be used: one line saying which file and why."""


def read_schema(path: str) -> dict[str, Any]:
    """The JSON Schema in ``path``, checked against its metaschema; raises SchemaFileError."""
    from agent_tui.core.api import InvalidSchema, checked_schema

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        why = getattr(error, "strerror", None) or error
        raise SchemaFileError(f"cannot read the output schema {path}: {why}") from None
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as error:
        raise SchemaFileError(f"the output schema {path} is not JSON: {error}") from None
    try:
        return checked_schema(schema)
    except InvalidSchema as error:
        raise SchemaFileError(f"the output schema {path} is not a valid JSON Schema: {error}") from None


def answer_line(value: Any) -> str:
    """The value as compact one-line JSON, with no control character a terminal would act on."""
    return inert_json(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
