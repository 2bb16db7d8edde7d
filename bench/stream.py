"""Streaming throughput: bare LiteLLM vs ``agent_tui.llm.stream``, plus import and first-call costs.

    .venv/bin/python bench/stream.py [--chunks 20000] [--runs 5]

The fake provider runs in its own process (the shell entry) so the server does
not compete with the measured client for the event loop. Budget (DESIGN §13):
``llm.stream`` keeps >= 75 % of LiteLLM's own chunk rate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")

RESULTS = Path(__file__).resolve().parent / "results"
WIRES = {"openai": ("openai/bench-model", "/v1"), "anthropic": ("anthropic/bench-model", "")}


def _script(chunks: int, turns: int) -> Path:
    path = Path(tempfile.mkdtemp()) / "bench-script.json"
    turn = {"text": "x" * chunks, "chunks": chunks, "usage": {"input": 10, "output": chunks}}
    small = {"text": "ok", "chunks": 1}
    path.write_text(json.dumps({"turns": [small, small] + [turn] * turns}))  # warm-up pair, then big turns
    return path


async def _start_server(script: Path) -> tuple[asyncio.subprocess.Process, str]:
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


async def _bare(litellm, base: str, wire: str) -> tuple[int, float]:
    model, suffix = WIRES[wire]
    start = time.perf_counter()
    response = await litellm.acompletion(
        model=model,
        api_base=f"{base}{suffix}",
        api_key="bench",
        messages=[{"role": "user", "content": "go"}],
        stream=True,
        stream_options={"include_usage": True},
        num_retries=0,
        max_retries=0,
        max_tokens=100,
    )
    count = 0
    async for chunk in response:
        if chunk.choices and chunk.choices[0].delta.content:
            count += 1
    return count, time.perf_counter() - start


async def _ours(base: str, wire: str) -> tuple[int, float]:
    from agent_tui import llm
    from agent_tui.llm.types import Request, RequestText, TextDelta, UserTurn

    model, suffix = WIRES[wire]
    request = Request(
        model=model,
        api_base=f"{base}{suffix}",
        api_key="bench",
        max_tokens=100,
        messages=[UserTurn(parts=[RequestText(text="go")])],
    )
    start = time.perf_counter()
    count = 0
    async for event in llm.stream(request):
        if isinstance(event, TextDelta):
            count += 1
    return count, time.perf_counter() - start


def _import_time(runs: int) -> tuple[float, bool]:
    code = (
        "import time, sys; t = time.perf_counter(); import agent_tui.llm; "
        "print(time.perf_counter() - t, 'litellm' in sys.modules)"
    )
    samples, leaked = [], False
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
        samples.append(float(out[0]))
        leaked |= out[1] == "True"
    return statistics.median(samples), leaked


async def _first_call(base: str) -> dict[str, float]:
    """In this (fresh) process: warm() then one short stream."""
    from agent_tui import llm
    from agent_tui.llm.types import Request, RequestText, UserTurn

    start = time.perf_counter()
    await llm.warm()
    warm_s = time.perf_counter() - start
    model, suffix = WIRES["openai"]
    request = Request(
        model=model, api_base=f"{base}{suffix}", api_key="bench", messages=[UserTurn(parts=[RequestText(text="hi")])]
    )
    start = time.perf_counter()
    first = None
    async for _ in llm.stream(request):
        if first is None:
            first = time.perf_counter() - start
    total = time.perf_counter() - start
    start = time.perf_counter()
    async for _ in llm.stream(request):
        pass
    second = time.perf_counter() - start
    return {
        "warm_s": warm_s,
        "first_call_first_event_s": first or total,
        "first_call_total_s": total,
        "second_call_total_s": second,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--wire", choices=[*WIRES, "both"], default="both")
    args = parser.parse_args()

    wires = list(WIRES) if args.wire == "both" else [args.wire]
    process, base = await _start_server(_script(args.chunks, len(wires) * (2 * args.runs + 2)))
    rates: dict[str, dict[str, float]] = {}
    try:
        first = await _first_call(base)  # the two small turns
        from agent_tui.llm import lazy

        litellm = lazy.load()
        for wire in wires:
            bare, ours = [], []
            # One warm-up of each, then alternate so drift hits both alike.
            await _bare(litellm, base, wire)
            await _ours(base, wire)
            for run in range(args.runs):
                # Alternate which goes first so order effects (GC, server warm-up) cancel out.
                if run % 2 == 0:
                    n, bare_s = await _bare(litellm, base, wire)
                    m, ours_s = await _ours(base, wire)
                else:
                    m, ours_s = await _ours(base, wire)
                    n, bare_s = await _bare(litellm, base, wire)
                assert n == m == args.chunks, (n, m)
                bare.append(n / bare_s)
                ours.append(m / ours_s)
            a, b = statistics.median(bare), statistics.median(ours)
            rates[wire] = {"bare_litellm_chunks_per_s": a, "llm_stream_chunks_per_s": b, "ratio": b / a}
    finally:
        process.terminate()
        await process.wait()

    import_s, leaked = _import_time(5)
    result = {
        "chunks": args.chunks,
        "runs": args.runs,
        "budget_ratio": 0.75,
        "wires": rates,
        "import_agent_tui_llm_s": import_s,
        "import_pulls_litellm": leaked,
        **first,
    }
    for wire, r in rates.items():
        print(
            f"[{wire}] bare litellm.acompletion : {r['bare_litellm_chunks_per_s']:>8.0f} chunks/s (median of {args.runs})"
        )
        print(f"[{wire}] through llm.stream       : {r['llm_stream_chunks_per_s']:>8.0f} chunks/s")
        print(f"[{wire}] ratio                    : {r['ratio']:.1%} (budget >= 75%)")
    print(f"import agent_tui.llm     : {import_s * 1000:.1f} ms (imports litellm: {leaked})")
    print(f"warm() (litellm import)  : {first['warm_s'] * 1000:.0f} ms")
    print(
        f"first call after warm    : first event {first['first_call_first_event_s'] * 1000:.1f} ms, "
        f"done {first['first_call_total_s'] * 1000:.1f} ms (second call {first['second_call_total_s'] * 1000:.1f} ms)"
    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "stream.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
