"""The session core: events, store, projections, inbox, coordinator, runner.

Pure asyncio; never imports Textual. Callers outside core enter through
``agent_tui.core.api`` (and the event types in ``agent_tui.core.events``)
only; every other module here is internal.
"""
