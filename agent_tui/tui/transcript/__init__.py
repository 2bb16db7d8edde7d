"""The transcript: a session's log and live deltas folded into blocks (``model.Transcript``), one module per event family."""
