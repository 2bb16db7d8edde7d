"""Import LiteLLM once, late, and quietly.

LiteLLM costs seconds and ~200 MB to import, so nothing imports it at module
level: :func:`load` does it on first use and :func:`warm` does it in a thread
so a UI can paint first. Before the import we force the bundled cost map
(no network), and after it we silence its debug banner and move its loggers
off the terminal (they still propagate to whatever logging the app set up).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import os
import threading
from collections.abc import Iterator
from types import ModuleType

_LOCK = threading.Lock()
_MODULE: ModuleType | None = None
_LOGGERS = ("LiteLLM", "LiteLLM Proxy", "LiteLLM Router")
# What LiteLLM 1.110 imports lazily on the first OpenAI / Anthropic call (measured with
# bench/stream.py: ~240 ms of event-loop stall without this). Missing names are skipped,
# so another LiteLLM version only loses the head start, never breaks.
_FIRST_CALL_MODULES = (
    "agent_tui.llm.streaming",
    "anyio._backends._asyncio",
    "tiktoken_ext.openai_public",
    "litellm.litellm_core_utils.default_encoding",
    "litellm.litellm_core_utils.logging_callback_manager",
    "litellm._service_logger",
    "litellm.proxy._types",
    "litellm.proxy.spend_tracking.savings",
    "litellm.integrations.generic_api.generic_api_callback",
    "litellm.types.litellm_core_utils.streaming_chunk_builder_utils",
    "litellm.llms.litellm_proxy.chat.transformation",
    "litellm.llms.github_copilot.authenticator",
    "litellm.llms.github_copilot.per_user_auth",
    "litellm.proxy.openai_files_endpoints.common_utils",
    "litellm.llms.openai_like.dynamic_config",
    "litellm.llms.openai.chat.gpt_audio_transformation",
    "litellm.llms.bedrock.chat.invoke_transformations.amazon_ai21_transformation",
    "litellm.llms.anthropic.chat.handler",
    "litellm.llms.anthropic.completion.transformation",
    "litellm.llms.edenai.chat.transformation",
    "litellm.llms.fal_ai.chat.transformation",
)


def _quiet_loggers() -> None:
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler):
                logger.removeHandler(handler)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())
        logger.setLevel(logging.WARNING)


@contextlib.contextmanager
def _collection_paused() -> Iterator[None]:
    """Garbage collection off while LiteLLM imports, then what exists is frozen.

    The import allocates millions of long-lived objects; collections during it
    took ~0.9 s of a ~2.4 s import here, and collecting them again at exit
    cost another second (``python -c "import litellm"``: 3.5 s; paused and
    frozen: 1.6 s). Frozen objects are skipped by every later collection too.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def load() -> ModuleType:
    """Return the configured ``litellm`` module, importing it on first call."""
    global _MODULE
    if _MODULE is not None:
        return _MODULE
    with _LOCK:
        if _MODULE is None:
            os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "true")
            with _collection_paused():
                import litellm

            litellm.suppress_debug_info = True
            litellm.set_verbose = False
            _quiet_loggers()
            _MODULE = litellm
    return _MODULE


def loaded() -> bool:
    return _MODULE is not None


def preload(tokenizer: bool = True) -> None:
    """Import LiteLLM and what its first call would otherwise import or build on the event loop.

    Blocking: run it in a thread; safe to call many times. Without it the first call of a
    process paid ~2.5 s of imports plus ~55 ms of pydantic models LiteLLM builds on first
    use; with it the first call costs what later ones do (``bench/first_send.py``).
    ``tokenizer`` also loads the encoding LiteLLM's cost logging uses once a stream has
    ended (~73 MiB, a few hundred ms): an idle TUI leaves it to the first answer, when
    LiteLLM loads it in its logging thread, after the request has left.
    """
    global _PRELOADED, _TOKENIZER
    litellm = load()
    if not _PRELOADED:
        with _collection_paused():
            for name in _FIRST_CALL_MODULES:
                try:
                    importlib.import_module(name)
                except Exception:  # noqa: BLE001 - a head start only; the call imports what it needs
                    continue
        try:  # one mocked streamed completion (no network) builds the models a first call builds
            for _ in litellm.completion(
                model="openai/warm-up",
                messages=[{"role": "user", "content": "warm"}],
                mock_response="warm",
                stream=True,
                api_key="warm-up",
            ):
                pass
        except Exception:  # noqa: BLE001 - another LiteLLM version: only the head start is lost
            pass
        _PRELOADED = True
    if tokenizer and not _TOKENIZER:
        try:
            litellm.token_counter(model="gpt-4o", text="warm")
        except Exception:  # noqa: BLE001
            pass
        _TOKENIZER = True


_PRELOADED = False
_TOKENIZER = False


async def warm(tokenizer: bool = True) -> None:
    """:func:`preload` in a worker thread; a no-op once done."""
    if not _PRELOADED or (tokenizer and not _TOKENIZER):
        await asyncio.to_thread(preload, tokenizer)
