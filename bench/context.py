"""Lean context: request tokens per step over a scripted 40-step session, with and without pruning.

    .venv/bin/python bench/context.py [--steps 40] [--protect 40000] [--minimum 20000]

The fake provider (in process, real HTTP) scripts a session in which the model reads a
large file (or runs a command with long output) at every step and answers at the last;
the real runner runs the real ``read`` and ``bash`` tools and sends each request. The
same session runs three ways: ``[context] prune = false``; pruning as configured; and
pruning whose cut moves on every step (``prune_minimum_tokens = 1``), to show what the
blocks buy for the prompt cache. Tokens are the project's estimate, ~4 characters of the
request's JSON (system, messages, tools) per token. "Cacheable" is the prefix each
request shares with the one before it: what a provider's prefix cache can serve;
"billed equivalent" prices those at a tenth of a fresh token.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RESULTS = Path(__file__).resolve().parent / "results"
CACHE_READ_PRICE = 0.1  # a cached input token costs about a tenth of a fresh one (Anthropic, OpenAI ~0.1-0.5)
SIZES = [6_000, 20_000, 45_000, 12_000, 30_000]  # characters of each file read, in turn


def _script(steps: int) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    for n in range(steps - 1):
        if n % 5 == 4:
            call = {"name": "bash", "arguments": {"command": f"seq 1 {2_000 + 100 * n}"}}
        else:
            call = {"name": "read", "arguments": {"path": f"src/file{n}.py"}}
        turns.append({"text": f"step {n}", "tool_calls": [{"id": f"call_{n}", **call}]})
    turns.append({"text": "done"})
    return turns


def _project(home: Path, steps: int) -> Path:
    workdir = home / "project"
    (workdir / "src").mkdir(parents=True)
    (workdir / ".git").mkdir()
    for n in range(steps):
        size = SIZES[n % len(SIZES)]
        line = f"value_{n} = compute({n}, 'some argument text')  # a comment to make the line long\n"
        (workdir / "src" / f"file{n}.py").write_text((line * (size // len(line) + 1))[:size])
    return workdir


def _pieces(body: dict[str, Any]) -> list[str]:
    """The request as the serialised pieces a provider caches a prefix of, in order."""
    head = [json.dumps(body.get("tools") or [], sort_keys=True)]
    return head + [json.dumps(m, sort_keys=True, ensure_ascii=False) for m in body["messages"]]


def _tokens(chars: int) -> int:
    return -(-chars // 4)


def _shared_prefix_chars(before: list[str], after: list[str]) -> int:
    shared = 0
    for old, new in zip(before, after, strict=False):
        if old != new:
            break
        shared += len(new)
    return shared


async def _session(steps: int, context: dict[str, Any], home: Path) -> list[dict[str, Any]]:
    from agent_tui.core.host.tool_host import build_registry
    from agent_tui.core.runtime import Runtime
    from agent_tui.core.settings.config_validation import load_settings
    from agent_tui.testing.fake_provider import FakeProvider

    workdir = _project(home, steps)
    async with FakeProvider() as fake:
        fake.add(*_script(steps))
        cli = {"model": "openai/bench", "api_base": fake.openai_base, "api_key": "bench", "context": context}
        async with await Runtime.open(
            lambda loc: load_settings(loc, cli=cli),
            registry_factory=build_registry,
            permission_policy="allow",
            db_path=home / "bench.db",
        ) as runtime:
            sid = (await runtime.sessions.create(location=workdir)).id
            await runtime.sessions.prompt(sid, "read the sources one by one", resume=False)
            error = await runtime.sessions.run(sid)
            assert error is None, error
            stored = sum(
                len(call.output.get("text", "")) for call in await runtime._store.tool_calls(sid) if call.output
            )
        bodies = [request.body for request in fake.accepted]
    assert len(bodies) == steps, f"{len(bodies)} requests for {steps} steps"
    rows: list[dict[str, int]] = []
    previous: list[str] = []
    for body in bodies:
        pieces = _pieces(body)
        total = sum(len(p) for p in pieces)
        shared = _shared_prefix_chars(previous, pieces)
        stubs = sum(1 for m in body["messages"] if m.get("role") == "tool" and m["content"].startswith("[pruned"))
        rows.append(
            {"tokens": _tokens(total), "cacheable": _tokens(shared), "stubs": stubs, "stored_output_chars": stored}
        )
        previous = pieces
    return rows


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    tokens = [row["tokens"] for row in rows]
    cacheable = [row["cacheable"] for row in rows]
    breaks = sum(1 for i in range(1, len(rows)) if rows[i]["cacheable"] < rows[i - 1]["tokens"])
    return {
        "median_tokens": statistics.median(tokens),
        "max_tokens": max(tokens),
        "last_tokens": tokens[-1],
        "total_tokens": sum(tokens),
        "uncached_tokens": sum(tokens) - sum(cacheable),
        "billed_equivalent": round(sum(tokens) - sum(cacheable) + CACHE_READ_PRICE * sum(cacheable)),
        "prefix_breaks": breaks,
        "stubs_in_last_request": rows[-1]["stubs"],
        "stored_output_chars": rows[-1]["stored_output_chars"],
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description="Request tokens per step with and without pruning.")
    parser.add_argument("--steps", type=int, default=40, help="requests in the session (the last one answers)")
    parser.add_argument("--protect", type=int, default=40_000, help="[context] prune_protect_tokens")
    parser.add_argument("--minimum", type=int, default=20_000, help="[context] prune_minimum_tokens")
    args = parser.parse_args()
    os.environ["AGENT_TUI_HOME"] = str(Path(tempfile.mkdtemp()))
    from agent_tui.llm import lazy

    await asyncio.to_thread(lazy.load)
    modes = {
        "off": {"prune": False},
        "pruned": {"prune_protect_tokens": args.protect, "prune_minimum_tokens": args.minimum},
        "every_step": {"prune_protect_tokens": args.protect, "prune_minimum_tokens": 1},
    }
    per_step: dict[str, list[dict[str, Any]]] = {}
    for name, context in modes.items():
        per_step[name] = await _session(args.steps, context, Path(tempfile.mkdtemp()))
    result: dict[str, Any] = {"steps": args.steps, "protect": args.protect, "minimum": args.minimum}
    for name, rows in per_step.items():
        result[name] = _summary(rows)
    off, pruned, every = result["off"], result["pruned"], result["every_step"]
    result["ratio_total_pruned_vs_off"] = pruned["total_tokens"] / off["total_tokens"]
    result["ratio_median_pruned_vs_off"] = pruned["median_tokens"] / off["median_tokens"]
    result["ratio_uncached_pruned_vs_every_step"] = pruned["uncached_tokens"] / every["uncached_tokens"]
    result["ratio_billed_pruned_vs_off"] = pruned["billed_equivalent"] / off["billed_equivalent"]

    print(f"{args.steps} steps, protect {args.protect:,} tokens, minimum {args.minimum:,} tokens")
    print(f"{'':>24}{'off':>14}{'pruned':>14}{'every step':>14}")
    for key in off:
        cells = "".join(f"{result[m][key]:>14,.0f}" for m in modes)
        print(f"{key:>24}{cells}")
    for key in [k for k in result if k.startswith("ratio_")]:
        print(f"{key:>36}: {result[key]:.3f}")
    print("tokens per step (off / pruned):")
    print(
        "  "
        + " ".join(
            f"{a['tokens'] // 1000}k/{b['tokens'] // 1000}k"
            for a, b in zip(per_step["off"], per_step["pruned"], strict=True)
        )
    )
    result["per_step"] = {name: [row["tokens"] for row in rows] for name, rows in per_step.items()}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "context.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
