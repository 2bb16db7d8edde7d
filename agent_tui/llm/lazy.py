"""Import LiteLLM once, late, and quietly.

LiteLLM costs seconds and ~200 MB to import, so nothing imports it at module
level: :func:`load` does it on first use and :func:`warm` does it in a thread
so a UI can paint first. Before the import we force the bundled cost map
(no network), and after it we silence its debug banner and move its loggers
off the terminal (they still propagate to whatever logging the app set up).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from types import ModuleType

_LOCK = threading.Lock()
_MODULE: ModuleType | None = None
_LOGGERS = ("LiteLLM", "LiteLLM Proxy", "LiteLLM Router")


def _quiet_loggers() -> None:
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler):
                logger.removeHandler(handler)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())
        logger.setLevel(logging.WARNING)


def load() -> ModuleType:
    """Return the configured ``litellm`` module, importing it on first call."""
    global _MODULE
    if _MODULE is not None:
        return _MODULE
    with _LOCK:
        if _MODULE is None:
            os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "true")
            import litellm

            litellm.suppress_debug_info = True
            litellm.set_verbose = False
            _quiet_loggers()
            _MODULE = litellm
    return _MODULE


def loaded() -> bool:
    return _MODULE is not None


async def warm() -> None:
    """Import LiteLLM in a worker thread; safe to call many times."""
    if _MODULE is None:
        await asyncio.to_thread(load)
