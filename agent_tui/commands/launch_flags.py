"""The flags a launch shares: the app (no subcommand), ``run`` and ``mcp serve`` take the model's,
the agent's, trust, approval and permission flags, spelled and explained the same way wherever they
appear.

Only argparse is imported here: the parsers are built on every launch argparse reads.
"""

from __future__ import annotations

import argparse

APPROVAL_MODES = ("ask", "auto-edit", "auto", "full-auto")  # vocab.kinds.ApprovalMode, without importing it


def add_model_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="model name as LiteLLM knows it, e.g. openai/gpt-4o")
    parser.add_argument("--api-base", help="provider base URL")
    parser.add_argument(
        "--api-key", help="provider API key (visible to other users in ps: prefer AGENT_TUI_API_KEY or --api-key-file)"
    )
    parser.add_argument("--api-key-file", metavar="PATH", help="read the provider API key from this file")


def add_agent_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agent", metavar="NAME", help="the primary agent to use (build, plan, or one you defined)")


def add_trust_flags(parser: argparse.ArgumentParser, default: object = None) -> None:
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument(
        "--trust",
        dest="trust",
        action="store_const",
        const=True,
        default=default,
        help="apply this project's own config in full for this launch (MCP servers, allow rules, "
        "endpoints), without asking",
    )
    choice.add_argument(
        "--no-trust",
        dest="trust",
        action="store_const",
        const=False,
        default=default,
        help="leave out what this project's config may only do once trusted, for this launch",
    )


def add_approval_flags(parser: argparse.ArgumentParser, default: object = None) -> None:
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument(
        "--approval",
        choices=APPROVAL_MODES,
        default=default,
        help="what runs without asking: ask (default), auto-edit (edits in the project), auto (everything "
        "inside the sandbox), full-auto (nothing is asked); deny rules always apply",
    )
    choice.add_argument(
        "--full-auto",
        dest="approval",
        action="store_const",
        const="full-auto",
        default=default,
        help="the same as --approval full-auto: no permission asks at all (deny rules still apply)",
    )


def add_permission_flag(parser: argparse.ArgumentParser, stop: str) -> None:
    """``--permission`` for a launch no one is there to ask (``run``, ``mcp serve``); ``stop`` says
    what ``stop`` ends there."""
    parser.add_argument(
        "--permission",
        choices=["allow", "deny", "stop"],
        default="deny",
        help="how to answer the permission asks the approval mode leaves: allow, deny (the model is told "
        f"and goes on; the default) or stop ({stop})",
    )
