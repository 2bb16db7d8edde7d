"""MCP servers as tools, through the official ``mcp`` SDK (no protocol code of our own).

``connection`` runs one server (a process over stdio, or a streamable HTTP
endpoint), ``hub`` shares the connections of one process per location,
``lowering`` turns a tool result into what the model reads, ``tools`` makes
registry entries of a server's tools. The SDK is imported only inside
``connection``, lazily and in a thread: it costs ~0.6 s, so neither the first
frame nor ``--version`` ever pays for it.
"""
