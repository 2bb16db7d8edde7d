"""Event → rows, inside the writer's transaction (DESIGN §2).

Pure functions of an event and a transaction: they import only the log and core's errors, never the store or the runner.
"""
