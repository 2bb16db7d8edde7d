"""The Textual app. Talks to core only through ``agent_tui.core.api``: the Sessions facade, its log and subscriptions.

Frames at 120 per second, not Textual's 60 (``TEXTUAL_FPS``; the user's own value wins). Textual's
screen timer pauses when nothing is dirty, and the first tick after a pause schedules the next one
one to two periods ahead: a key pressed just after a streamed frame waited up to 33 ms for its
frame at 60 (issue 32). A finer grid halves that wait; frames are still drawn only when something
changed. The variable is set only while ``textual.constants`` reads it, so no tool process sees it.
"""

import os

if "TEXTUAL_FPS" not in os.environ:
    os.environ["TEXTUAL_FPS"] = "120"
    try:
        import textual.constants  # noqa: F401 - reads TEXTUAL_FPS once, now
    finally:
        del os.environ["TEXTUAL_FPS"]
