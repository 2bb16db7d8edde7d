"""The shared vocabulary: the types ``core``, ``llm`` and ``tools`` all speak.

Dependencies point one way (tui/server/cli -> core -> llm, tools), yet both
sides of that arrow need the same words: an error's type, a tool's output, a
permission rule and its reply, token usage, a clock. They live here, in a leaf
that imports nothing from ``agent_tui`` but itself (only the stdlib and
pydantic), so no lower layer has to reach up into ``core`` for them.

Import each name from its module. The enums in :mod:`agent_tui.vocab.kinds`
and the clock in :mod:`agent_tui.vocab.clock` never import pydantic (the
TUI's first frame needs them, not pydantic's ~60 ms import), so this package
re-exports nothing.
"""
