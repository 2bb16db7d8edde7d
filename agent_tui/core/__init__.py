"""The session core: the log, the store, projections, the inbox, runs, history.

Pure asyncio; never imports Textual. Callers outside core enter through
``agent_tui.core.api`` only (the event types too: ``from agent_tui.core.api
import events``); every other module here is internal. Each sub-package is a
room named after one idea of the design; ``pyproject.toml``'s import-linter
contracts say which rooms may never import which.
"""
