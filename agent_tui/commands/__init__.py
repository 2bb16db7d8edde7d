"""Implementations of CLI subcommands, imported lazily by ``agent_tui.cli``."""
