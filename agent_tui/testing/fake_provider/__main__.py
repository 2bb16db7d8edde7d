"""``python -m agent_tui.testing.fake_provider --port PORT --script FILE.json``."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path

from pydantic import ValidationError

from agent_tui.testing.fake_provider.script import Script, load_script
from agent_tui.testing.fake_provider.server import FakeProvider


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m agent_tui.testing.fake_provider",
        description="Serve a scripted fake LLM provider (OpenAI and Anthropic SSE).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (printed on start)")
    parser.add_argument("--script", type=Path, help='JSON script: {"turns": [...]} (see docs/fake-provider.md)')
    parser.add_argument("--no-validate", action="store_true", help="accept requests a real API would reject")
    return parser.parse_args(argv)


async def _serve(args: argparse.Namespace, script: Script) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with FakeProvider(script, host=args.host, port=args.port, validate=not args.no_validate) as fake:
        print(
            f"fake provider listening on {fake.base_url} ({len(script.turns)} turns; "
            f"OpenAI api_base {fake.openai_base}, Anthropic api_base {fake.base_url})",
            flush=True,
        )
        await stop.wait()


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    try:
        script = load_script(args.script) if args.script else Script()
    except OSError as error:
        print(f"fake provider: cannot read {args.script}: {error.strerror}", file=sys.stderr)
        return 2
    except ValueError as error:  # JSON and pydantic errors
        detail = error.errors()[0] if isinstance(error, ValidationError) else None
        where = ".".join(str(p) for p in detail["loc"]) + ": " + detail["msg"] if detail else str(error)
        print(f"fake provider: invalid script {args.script}: {where}", file=sys.stderr)
        return 2
    asyncio.run(_serve(args, script))
    return 0


if __name__ == "__main__":
    sys.exit(main())
