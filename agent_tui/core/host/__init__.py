"""The runner's doors to ``tools/``: the tool host and its port, MCP servers, the ``!`` shell, the snapshot hook, the crash sweep.

Implements ``host.port``; never imports the run room that drives it.
"""
