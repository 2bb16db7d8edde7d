"""Permission patterns: ``*`` any run of characters, ``?`` one; all else literal.

Unlike fnmatch, ``[`` is literal (shell commands are full of brackets). A
pattern ending in `` *`` also matches the bare prefix, so ``git status *``
covers ``git status`` itself.
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    out = []
    for char in pattern:
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        else:
            out.append(re.escape(char))
    body = "".join(out)
    if pattern.endswith(" *"):
        body = body[: -len(re.escape(" ") + ".*")] + "(?: .*)?"
    return re.compile(body, re.DOTALL)


def wildcard_match(pattern: str, text: str) -> bool:
    return _compile(pattern).fullmatch(text) is not None
