"""Sessions in and out as files: JSONL export and import, Markdown export (DESIGN §14)."""
