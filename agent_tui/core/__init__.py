"""The session core: events, store, projections, inbox, coordinator, runner.

Pure asyncio; never imports Textual.
"""
