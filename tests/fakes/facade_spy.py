"""FacadeSpy: passes every call through to a real facade and records which methods were reached."""

from __future__ import annotations

from typing import Any


class FacadeSpy:
    """Wraps a ``Sessions`` facade; ``reached`` lists each facade method looked up, in order."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.reached: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.reached.append(name)
        return getattr(self._inner, name)
