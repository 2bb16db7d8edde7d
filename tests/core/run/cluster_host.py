"""A host in a process of its own, for the kill -9 and SIGSTOP tests (``test_cluster_takeover.py``).

``python cluster_host.py URL TTL_MS``: runs ``ses_1`` under a cluster lease as ``host-child``; prints
``running`` once its tool call is recorded, settles the tool when a line arrives on stdin, and at
the end prints the run's outcome as JSON (``error``, and ``lost_by`` if the lease was lost).
"""

from __future__ import annotations

import asyncio
import json
import sys

from tests.core.run.cluster_helpers import Host


async def main(url: str, ttl_ms: int) -> None:
    host = await Host.open(url, "host-child", ttl_ms, call_tool=True)
    try:
        running = asyncio.create_task(host.coordinator.run("ses_1"))
        await host.drainer.tool_running.wait()
        tenure = host.leases.held["ses_1"]
        print("running", flush=True)
        stdin = asyncio.StreamReader()
        await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
        finishing = asyncio.create_task(stdin.readline())
        finishing.add_done_callback(lambda _: host.drainer.finish.set())
        error = await running
        print(json.dumps({"error": error and error.model_dump(), "lost_by": tenure.lost_by}), flush=True)
        finishing.cancel()
    finally:
        await host.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
