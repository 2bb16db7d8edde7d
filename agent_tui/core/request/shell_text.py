"""How the model is shown a ``!command`` the user ran: the ``shell`` message's text.

Here rather than beside the runner of ``!`` commands (``host/shell.py``) because
building a request must not import the tool host.
"""

from __future__ import annotations

from typing import Any

SHELL_CALL_ID = "shell"
"""The call id of a ``!`` command's live output (its input id names the command)."""


def shell_text(data: dict[str, Any]) -> str:
    """The model's view of a ``shell`` message."""
    output = (data.get("output") or {}).get("text") or ""
    error = (data.get("error") or {}).get("message")
    body = output if error is None else (f"{output}\n{error}" if output else error)
    return f"The user ran this shell command themselves (not a tool call of yours):\n$ {data.get('command', '')}\n{body or '(no output)'}"
