"""The Textual app. Talks to core only through ``agent_tui.core.api``: the Sessions facade, its log and subscriptions."""
