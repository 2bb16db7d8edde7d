"""What is written and read back: the event schema, ids, the read records, and the publish port (DESIGN §3).

Imports nothing else in core: every other room builds on these names.
"""
