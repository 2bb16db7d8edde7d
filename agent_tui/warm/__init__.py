"""Warm start: a pre-imported agent-tui process forks each launch.

``import litellm`` costs seconds; a warm process pays it once and then forks a
child per launch that takes over the caller's terminal, working directory,
environment, umask and argv and runs exactly what a fresh process runs.

- :mod:`.place` — which warm process fits this launch (the key) and where its socket is;
- :mod:`.wire` — the messages on the socket (length-prefixed JSON, stdio passed with ``SCM_RIGHTS``);
- :mod:`.client` — the launcher side: tiny, stdlib only, never slower than starting in-process;
- :mod:`.server` — the warm process: warm-up, the socket, the spare child, reaping, idle exit;
- :mod:`.child` — how a forked child becomes the launch.

Everything here but :mod:`.server` and :mod:`.child` must stay cheap to import:
the client runs on every launch before anything else.
"""
