"""One entry of a completion list (no Textual: the command registry makes them too)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Choice:
    value: str  # what accepting inserts
    label: str
    help: str = ""
    complete: bool = False  # Enter accepts and sends (a command without an argument)
