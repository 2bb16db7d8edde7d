"""``agent-tui run``'s exit codes: one per way a run can end, so a script can tell them apart.

The user guide's table and ``agent-tui run --help`` list the same codes (:data:`HELP`).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from agent_tui.vocab.kinds import ErrorType


class RunExit(IntEnum):
    DONE = 0
    """The run ended well (with ``--output-schema``: a matching answer is on stdout)."""
    FAILED = 1
    """The model or provider failed, or the run could not go on (its error type on stderr)."""
    USAGE = 2
    """Nothing ran: bad flags or prompt, a bad ``@path``, an unknown session, an invalid config, a
    missing key, ``--agent`` naming no primary agent, an unusable ``--output-schema`` file."""
    NO_ANSWER = 3
    """``--output-schema``: no matching answer, even after one repair prompt."""
    REFUSED = 4
    """The run stopped at a refusal: a permission ask refused without a word (``--permission
    stop``), or a ``user_prompt`` hook that blocked the prompt."""
    BUSY = 5
    """Another live process runs the session: the prompt is admitted there and runs there."""
    UNREACHABLE = 6
    """Nothing ran: the configured database server (``storage.url``) cannot be reached, or the
    PostgreSQL driver is not installed (``DatabaseUnreachable.exit_code``, which every command
    exits with; spelled out here so this module does not import the core)."""
    INTERRUPTED = 130
    """Interrupted: Ctrl+C (SIGINT), or from another client (the TUI, ``serve``). SIGTERM and
    SIGHUP exit ``128 + signal`` (143, 129)."""


def for_error(error: Any) -> RunExit:
    """The code of a run that ended with ``error`` (the drain's ``ErrorInfo``; None: it did not fail)."""
    match getattr(error, "type", None):
        case None:
            return RunExit.DONE
        case ErrorType.PERMISSION_REJECTED:
            return RunExit.REFUSED
        case ErrorType.ABORTED:
            return RunExit.INTERRUPTED
        case _:
            return RunExit.FAILED


def for_store_error(error: Exception) -> RunExit:
    """The code of a run the store stopped: the configured server out of reach, or another failure."""
    from agent_tui.core.api import DatabaseUnreachable

    return RunExit.UNREACHABLE if isinstance(error, DatabaseUnreachable) else RunExit.FAILED


HELP = (
    "exit codes: 0 done; 1 the model or provider failed (error on stderr); 2 usage or config error, "
    "nothing ran; 3 no answer matching --output-schema; 4 refused: a permission ask (--permission stop) "
    "or a user_prompt hook stopped the run; 5 the session runs in another process (the prompt is "
    "admitted there); 6 the configured database server cannot be reached (or its driver is missing); 130 interrupted (Ctrl+C, or by another client); 143 SIGTERM; 129 SIGHUP"
)
