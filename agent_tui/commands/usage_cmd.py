"""``agent-tui usage``: what every session spent, grouped by day, week, month, model, agent, project
or session; a table (inert text), JSON lines (``--json``) or a terminal chart (``--chart``).

The sums are one SQL ``GROUP BY`` over the ``step_usage`` projection (``Sessions.usage_report``),
so the report is as fast on ten thousand sessions as on ten. A cost the price was unknown for is
printed as "unknown", never as $0.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date, datetime, timedelta

from agent_tui.commands.errors import fail
from agent_tui.commands.store_access import run_with_sessions
from agent_tui.core.api import Sessions, UsageRow
from agent_tui.vocab.terminal_text import inert, inert_json

_TIME_GROUPS = ("day", "week", "month")


def day_start_ms(text: str, *, next_day: bool = False) -> int:
    """Local midnight of ``YYYY-MM-DD`` in ms (of the day after with ``next_day``: ``--until`` includes its day)."""
    day = date.fromisoformat(text)
    if next_day:
        day += timedelta(days=1)
    return int(datetime(day.year, day.month, day.day).timestamp() * 1000)


def total(rows: list[UsageRow]) -> UsageRow:
    known = [r.cost for r in rows if r.cost is not None]
    return UsageRow(
        key="total",
        sessions=sum(r.sessions for r in rows),
        steps=sum(r.steps for r in rows),
        input_tokens=sum(r.input_tokens for r in rows),
        output_tokens=sum(r.output_tokens for r in rows),
        reasoning_tokens=sum(r.reasoning_tokens for r in rows),
        cache_read_tokens=sum(r.cache_read_tokens for r in rows),
        cache_write_tokens=sum(r.cache_write_tokens for r in rows),
        cost=sum(known) if known else None,
        unpriced_steps=sum(r.unpriced_steps for r in rows),
    )


def table(rows: list[UsageRow], by: str) -> str:
    """Aligned columns, then a total line (whose sessions count a session once per group it spent in)."""
    header = (by.upper(), "SESSIONS", "STEPS", "INPUT", "OUTPUT", "CACHE READ", "REASONING", "COST")
    body = [
        (
            f"{r.key}  {r.label}" if r.label else r.key or "(none)",
            f"{r.sessions:,}",
            f"{r.steps:,}",
            f"{r.input_tokens:,}",
            f"{r.output_tokens:,}",
            f"{r.cache_read_tokens:,}",
            f"{r.reasoning_tokens:,}",
            r.cost_text(),
        )
        for r in [*rows, total(rows)]
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    rule = "-" * len(line(header))
    return "\n".join([line(header), *(line(c) for c in body[:-1]), rule, line(body[-1])])


def main(args: argparse.Namespace) -> int:
    try:
        since = day_start_ms(args.since) if args.since else None
        until = day_start_ms(args.until, next_day=True) if args.until else None
    except ValueError as error:
        return fail(f"--since and --until take a date as YYYY-MM-DD ({error})", 2)

    async def command(sessions: Sessions) -> int:
        rows = await sessions.usage_report(args.by, since, until)
        if args.json:
            for r in rows:
                record = {"by": args.by, **r.model_dump(mode="json")}
                sys.stdout.write(inert_json(json.dumps(record, ensure_ascii=False)) + "\n")
            return 0
        if not rows:
            sys.stdout.write("no usage recorded" + (" in that period" if since or until else "") + "\n")
            return 0
        if args.chart:
            over_time = rows if args.by in _TIME_GROUPS else await sessions.usage_report("day", since, until)
            from agent_tui.commands.usage_chart import chart

            sys.stdout.write(chart(over_time, colour=sys.stdout.isatty()) + "\n")
            if args.by in _TIME_GROUPS:
                return 0
        sys.stdout.write(inert(table(rows, args.by)) + "\n")
        return 0

    return run_with_sessions(command)
