"""The sampling panel's text: whatever a server writes, no control sequence or bidi override reaches the
terminal, and every part of the request is shown (property-tested over arbitrary server text)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from agent_tui.tui.screens.sampling import request_lines
from agent_tui.vocab.sampling import SamplingMessage, SamplingRequest

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
HOSTILE = st.text(alphabet=st.sampled_from(["a", " ", "\x1b", "[", "]", "0", ";", "m", "\x07", "\u202e", "\x9b", "\r"]))


@given(
    server=st.text(max_size=20) | HOSTILE,
    system=st.none() | st.text() | HOSTILE,
    texts=st.lists(st.text() | HOSTILE, min_size=1, max_size=4),
    stops=st.lists(st.text(max_size=8) | HOSTILE, max_size=3),
    max_tokens=st.integers(min_value=1, max_value=100_000),
)
def test_no_server_text_reaches_the_terminal_raw_and_each_part_is_shown(
    server: str, system: str | None, texts: list[str], stops: list[str], max_tokens: int
) -> None:
    request = SamplingRequest(
        server=server,
        messages=tuple(SamplingMessage("user" if n % 2 == 0 else "assistant", t) for n, t in enumerate(texts)),
        max_tokens=max_tokens,
        system_prompt=system,
        stop_sequences=tuple(stops),
    )
    lines = [line.plain for line in request_lines(request)]
    assert not any(CONTROL.search(line) for line in lines)
    assert lines[0].startswith("MCP server ") and lines[0].endswith(" asks to use the model")
    assert len(lines) == 2 + len(texts) + (1 if system else 0)
    assert [line.split(":")[0] for line in lines[1 + bool(system) : -1]] == [
        "User" if n % 2 == 0 else "Assistant" for n in range(len(texts))
    ]
    assert lines[-1].startswith(f"At most {max_tokens} tokens")
