"""Busy periods, drains, steps, retries and compaction runs: the coordinator, the lease, the runner (DESIGN §5).

Never imports history or transfer.
"""
