"""Reader connections: a small thread pool, one connection per thread.

WAL lets readers run while the writer commits, so reads never queue behind
the writer thread. Each read job runs inside its own deferred transaction, so
a multi-query read sees one snapshot.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from agent_tui.core.config import StorageSettings
from agent_tui.core.db import StoreError, connect, translate

T = TypeVar("T")
READERS = 2


class ReaderPool:
    def __init__(self, path: Path, settings: StorageSettings, size: int = READERS) -> None:
        self._path = path
        self._settings = settings
        self._pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="agent-tui-read")
        self._local = threading.local()
        self._conns: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self._path, self._settings, reader=True)
            self._local.conn = conn
            with self._lock:
                self._conns.append(conn)
        return conn

    def _run(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        conn = self._conn()
        try:
            conn.execute("BEGIN")
            try:
                return fn(conn, *args)
            finally:
                conn.execute("COMMIT")
        except sqlite3.Error as error:
            raise translate(error, self._path, self._settings) from None

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(conn, *args)`` on a reader thread."""
        if self._closed:
            raise StoreError(f"database {self._path} is closed")
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._run, fn, args)

    def close(self) -> None:
        self._closed = True
        self._pool.shutdown(wait=True)
        with self._lock:
            for conn in self._conns:
                conn.close()
            self._conns.clear()
