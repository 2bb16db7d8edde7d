"""One title per session: the fold names it as the store does, and both screens show it alike."""

from __future__ import annotations

import pytest

from agent_tui.core.api import events as ev
from agent_tui.core.projections.inbox import title_from
from agent_tui.tui import session_title
from agent_tui.tui.screens.picker import row_text
from agent_tui.tui.transcript.model import fold
from agent_tui.tui.widgets.status import StatusBar, StatusInputs
from agent_tui.vocab import titles
from agent_tui.vocab.clock import ManualClock
from tests.fakes.logs import LogBuilder


@pytest.mark.parametrize(
    "text", ["fix it", "  padded  \n\nsecond line", "x" * 59, "x" * 60, "y" * 61, "word " * 30, "   ", ""]
)
def test_the_fold_titles_a_session_by_the_stores_rule(text: str) -> None:
    """One rule (``vocab.titles``) now; the store's prompt-part wrapper must still agree with it."""
    assert titles.prompt_title(text) == title_from(ev.text_prompt(text))


def test_a_session_is_titled_when_its_first_prompt_is_admitted_as_in_the_store() -> None:
    log = LogBuilder().created()
    log.prompt("first question\nwith detail", promote=False)
    log.prompt("second question", promote=False)
    assert fold(log.events).facts.title == "first question"


def test_the_status_bar_and_the_picker_show_the_same_title() -> None:
    class Row:
        id, title, last_message, message_count, updated, location = "ses_1", "a   long\ttitle", None, 1, 0, "/p"

    log = LogBuilder().created()
    log.turn("a   long\ttitle", "ok")
    bar = StatusBar(ManualClock())
    bar.transcript, bar.inputs = fold(log.events), StatusInputs(location="/p")
    shown = session_title.session_title(Row.title)
    assert shown == "a long title"
    assert bar.line().plain.endswith(f" · {shown}")
    assert f"  {shown}  " in row_text(Row, 0, running=False, asking=False, show_location=False).plain
