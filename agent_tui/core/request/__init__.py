"""What the model is told: instructions, prompts, the token budget, compaction's text, and the request built from the log (DESIGN §5, §7).

Named ``request`` rather than ``context``: "context" means the model's window and the API's context entries.
Never imports the run or host rooms.
"""
