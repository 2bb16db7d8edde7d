"""The PostgreSQL engine of the store (``pip install agent-tui[postgres]``): psycopg 3, imported lazily.

So far the event log with ownership fencing and advisory tails (``event_log``, ``lease``, ``tail``);
projections and the ``Store`` facade come next (docs/scaling.md).
"""
