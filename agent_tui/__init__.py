"""agent-tui: a terminal coding agent over a durable SQLite event log."""

__version__ = "0.1.0"
