"""Runner overhead: per streamed delta and per step, against the bare adapter stream.

    .venv/bin/python bench/runner.py [--chunks 20000] [--steps 50] [--runs 3]

The fake provider runs in its own process. (a) ``llm.stream`` alone consumes a
turn of N chunks; (b) the runner drains a session whose step streams the same
turn (durable fragment events, live deltas on the bus, projections). The
difference per chunk is the runner's overhead per delta. Per step: S prompts
answered with one short text each, through the runner vs the adapter alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RESULTS = Path(__file__).resolve().parent / "results"


async def _server(turns: list[dict]) -> tuple[asyncio.subprocess.Process, str]:
    script = Path(tempfile.mkdtemp()) / "script.json"
    script.write_text(json.dumps({"turns": turns}))
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent_tui.testing.fake_provider",
        "--port",
        "0",
        "--script",
        str(script),
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    line = (await process.stdout.readline()).decode()
    return process, line.split()[4]


def _request(base: str, text: str = "go"):
    from agent_tui.llm.types import Request, RequestText, UserTurn

    return Request(
        model="openai/bench",
        api_base=f"{base}/v1",
        api_key="bench",
        messages=[UserTurn(parts=[RequestText(text=text)])],
    )


async def _adapter(base: str) -> float:
    from agent_tui import llm

    start = time.perf_counter()
    async for _ in llm.stream(_request(base)):
        pass
    return time.perf_counter() - start


async def _runner_turns(base: str, prompts: int, home: Path) -> float:
    from agent_tui.core.runtime import Runtime
    from agent_tui.core.settings.config_validation import load_settings
    from agent_tui.tools.registry import ToolRegistry

    workdir = home / "project"
    workdir.mkdir(exist_ok=True)
    cli = {"model": "openai/bench", "api_base": f"{base}/v1", "api_key": "bench"}
    async with await Runtime.open(
        lambda loc: load_settings(loc, cli=cli),
        registry_factory=ToolRegistry,
        db_path=home / f"bench-{time.monotonic_ns()}.db",
    ) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        with runtime.sessions.subscribe(sid) as sub:  # a live subscriber, like the TUI
            drained = 0

            async def consume() -> None:
                nonlocal drained
                async for _ in sub:
                    drained += 1

            consumer = asyncio.create_task(consume())
            start = time.perf_counter()
            for n in range(prompts):
                await runtime.sessions.prompt(sid, f"prompt {n}", resume=False)
                error = await runtime.sessions.run(sid)
                assert error is None, error
            elapsed = time.perf_counter() - start
            consumer.cancel()
        return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp())
    os.environ["AGENT_TUI_HOME"] = str(home)
    from agent_tui.llm import lazy

    await asyncio.to_thread(lazy.load)

    big = {"text": "x" * args.chunks, "chunks": args.chunks}
    small = {"text": "ok"}
    per_run = [small, big, big]  # warm-up, adapter, runner
    process, base = await _server(per_run * args.runs + [small] * (args.steps * 2 * args.runs))
    try:
        adapter_s, runner_s, step_adapter, step_runner = [], [], [], []
        for _ in range(args.runs):
            await _adapter(base)
            adapter_s.append(await _adapter(base))
            runner_s.append(await _runner_turns(base, 1, home))
        for _ in range(args.runs):
            start = time.perf_counter()
            for _ in range(args.steps):
                await _adapter(base)
            step_adapter.append((time.perf_counter() - start) / args.steps)
            step_runner.append(await _runner_turns(base, args.steps, home) / args.steps)
    finally:
        process.terminate()
        await process.wait()

    a, r = statistics.median(adapter_s), statistics.median(runner_s)
    sa, sr = statistics.median(step_adapter), statistics.median(step_runner)
    result = {
        "chunks": args.chunks,
        "adapter_us_per_delta": a / args.chunks * 1e6,
        "runner_us_per_delta": r / args.chunks * 1e6,
        "overhead_us_per_delta": (r - a) / args.chunks * 1e6,
        "delta_rate_ratio": a / r,
        "adapter_ms_per_request": sa * 1e3,
        "runner_ms_per_step": sr * 1e3,
        "overhead_ms_per_step": (sr - sa) * 1e3,
    }
    for key, value in result.items():
        print(f"{key:>26}: {value:,.3f}" if isinstance(value, float) else f"{key:>26}: {value}")
    print(
        f"{'budget':>26}: runner keeps >= 75 % of the adapter's chunk rate -> "
        f"{'met' if result['delta_rate_ratio'] >= 0.75 else 'MISSED'}"
    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "runner.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
