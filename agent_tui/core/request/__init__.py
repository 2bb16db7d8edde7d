"""What the model is told: instructions, prompts, the token budget, compaction's text, and the request built from the log (DESIGN §5, §7).

Named ``request`` rather than ``context``: in this code base "context" already means the model's window, API context entries, ``TuiContext`` and ``ToolContext``.
Never imports the run or host rooms.
"""
