"""The Textual app. Talks to core only through ``agent_tui.core.api``: the Sessions facade, its log and subscriptions.

Frames at up to 120 per second, not Textual's 60 (``TEXTUAL_FPS``; the user's own value wins): a
typed key's frame waits at most one period after the last frame (``frame_pacer``), and other frames
two, so output still paints at most 60 times a second. Frames are drawn only when something
changed. The variable is set only while ``textual.constants`` reads it, so no tool process sees it.
"""

import os

if "TEXTUAL_FPS" not in os.environ:
    os.environ["TEXTUAL_FPS"] = "120"
    try:
        import textual.constants  # noqa: F401 - reads TEXTUAL_FPS once, now
    finally:
        del os.environ["TEXTUAL_FPS"]
