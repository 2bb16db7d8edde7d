"""One SQLite file: connections, the schema, the writer thread, the reader pool, commit notifications, tails (DESIGN §2).

Knows events and projections, never the runner, the tools, the request or a session's history operations.
"""
