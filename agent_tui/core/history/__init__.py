"""A session's past: rewind, fork, delete, lineage, and the plan that restores files (DESIGN §14).

From the run room it uses only the executor port and the lease: a history operation is refused while a session runs.
"""
