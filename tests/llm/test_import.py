"""``import agent_tui.llm`` stays cheap; warm() loads a quiet LiteLLM."""

from __future__ import annotations

import logging
import subprocess
import sys

from agent_tui.llm import lazy


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(out.stdout.split())


def test_import_does_not_load_litellm_or_pydantic() -> None:
    modules = _modules_after("import agent_tui.llm")
    assert not {m for m in modules if m.split(".")[0] in {"litellm", "pydantic", "openai", "httpx"}}


def test_types_import_without_litellm() -> None:
    modules = _modules_after("from agent_tui.llm import Request, LLMError, stream")
    assert "litellm" not in modules and "agent_tui.llm.streaming" in modules


async def test_warm_loads_litellm_quietly() -> None:
    await lazy.warm()
    assert lazy.loaded()
    litellm = lazy.load()
    assert litellm.suppress_debug_info is True
    logger = logging.getLogger("LiteLLM")
    assert not [h for h in logger.handlers if type(h) is logging.StreamHandler]
    await lazy.warm()  # idempotent


def test_warm_preloads_what_the_first_call_would_import() -> None:
    # Measured: without this the first stream stalls the event loop ~240 ms (tokenizer + lazy imports).
    code = "import asyncio, sys\nfrom agent_tui.llm import lazy\nasyncio.run(lazy.warm())\nprint(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = set(out.stdout.split())
    assert {"agent_tui.llm.streaming", "tiktoken_ext.openai_public", "litellm.llms.anthropic.chat.handler"} <= modules


def test_warm_prints_nothing() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import asyncio, logging\nfrom agent_tui.llm import lazy\nasyncio.run(lazy.warm())\n"
            "logging.getLogger('LiteLLM').warning('should not reach the terminal')",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == "" and out.stderr == ""
