"""Test doubles, one folder: stand-ins for core that the TUI's tests drive the real widgets over.

``sessions.FakeSessions`` is the Sessions facade over hand-built logs
(``logs.LogBuilder``); ``test_sessions_contract`` runs one script against it and
the real facade so the double cannot drift from what it stands in for.
"""
