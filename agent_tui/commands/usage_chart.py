"""``agent-tui usage --chart``: tokens and cost per period as two bar charts drawn by plotext.

Imported only for ``--chart``: plotext is the one caller of it, and ``usage`` without a chart (or
any other command) never pays for its import.
"""

from __future__ import annotations

import shutil

from agent_tui.core.api import UsageRow


def chart(rows: list[UsageRow], *, colour: bool = False, width: int | None = None) -> str:
    """Tokens (input + output) above, the known cost below, one bar per period, oldest first."""
    import plotext

    columns = width or min(shutil.get_terminal_size((100, 24)).columns, 160)
    keys = [r.key for r in rows]
    figure = plotext.figure
    figure.clear()
    figure.plot_size(columns, 30)
    figure.subplots(2, 1)
    tokens = figure.subplot(1, 1)
    tokens.draw(tokens.bar(keys, [r.tokens for r in rows]))
    tokens.title("tokens (input + output)")
    cost = figure.subplot(2, 1)
    cost.draw(cost.bar(keys, [r.cost or 0.0 for r in rows]))
    unknown = any(r.unpriced_steps for r in rows)
    cost.title("cost ($, known prices only)" if unknown else "cost ($)")
    text = str(figure.build())
    return text if colour else str(plotext.uncolorize(text))
