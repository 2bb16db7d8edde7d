"""A double for whoever answers permission asks (the TUI's panel, a headless policy)."""

from __future__ import annotations

from agent_tui.tools.asks import PermissionDecision, PermissionRequest


class RecordingAsker:
    """Answers every ask with a fixed decision and keeps the requests."""

    def __init__(self, decision: PermissionDecision) -> None:
        self.decision = decision
        self.requests: list[PermissionRequest] = []

    async def __call__(self, request: PermissionRequest) -> PermissionDecision:
        self.requests.append(request)
        return self.decision
