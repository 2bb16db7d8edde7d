"""One-line error reporting shared by the CLI subcommands."""

from __future__ import annotations

import sys


def fail(message: str, code: int = 1) -> int:
    print(f"agent-tui: {message}", file=sys.stderr)
    return code
