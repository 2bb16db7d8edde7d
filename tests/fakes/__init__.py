"""Test doubles, one folder, each named apart from what it stands in for.

- ``sessions.FakeSessions``: the Sessions facade over hand-built logs (``logs.LogBuilder``);
  ``test_sessions_contract`` runs one script against it and the real facade so the
  double cannot drift from what it stands in for.
- ``executors``: ``RecordingExecutor`` (the facade's executor), ``ScriptedDrainer`` and
  ``PublishRecorder`` (the coordinator's drainer and publish).
- ``asks.RecordingAsker``: answers permission asks with a fixed decision.
- ``views.RecordingFeedView``: the screen side of the TUI's session feed.
- ``collector.FakeCollector``: the garbage collector as the TUI's quiet-collection policy sees it.

The fake model provider is product code (``agent_tui.testing.fake_provider``): benches and
manual checks run it too.
"""
