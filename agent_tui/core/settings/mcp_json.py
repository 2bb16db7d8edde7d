"""A project's ``.mcp.json`` (the file Claude Code and other agents share) as ``[mcp.servers]`` data.

``{"mcpServers": {"NAME": {"command": "npx", "args": [...], "env": {...}}, "REMOTE": {"type":
"http", "url": "...", "headers": {...}}}}``: each server becomes the table agent-tui's own config
would give it (``command`` and ``args`` one list). It joins the project's config layer, so its
servers are a trust power like the project's own ``[mcp.servers]`` (``trust.split_powers``) and
start only once the project is trusted.

``${VAR}`` and ``${VAR:-default}`` in command, args, env, url and headers are expanded as Claude
Code expands them, but only after trust is decided (:func:`expand`): the digest pins what the
file says, not the secrets the environment fills in, and the trust prompt never shows them.

A file that is not JSON fails the config (naming it, as a bad ``.claude/settings.json`` does); a
server entry agent-tui cannot use is left out with one problem line naming it.

Stdlib only: ``config_layers`` reads it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.vocab.mcp_names import SERVER_NAME

FILE_NAME = ".mcp.json"
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_TRANSPORTS = {"stdio": "stdio", "http": "http", "streamable-http": "http", "sse": "sse"}


class McpJsonError(ValueError):
    """``.mcp.json`` cannot be read or is not JSON; the message names it."""


def mcp_json_file(project_root: Path) -> Path:
    return project_root / FILE_NAME


@dataclass(frozen=True)
class McpJson:
    """The usable servers (``${VAR}`` still as written) and one line per entry left out."""

    servers: dict[str, dict[str, Any]]
    problems: tuple[str, ...] = ()


def read_mcp_json(project_root: Path) -> McpJson:
    """The project's ``.mcp.json`` servers as ``[mcp.servers]`` data; a missing file has none."""
    path = mcp_json_file(project_root)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return McpJson({})
    except (OSError, UnicodeDecodeError) as error:
        raise McpJsonError(f"{path}: cannot read: {error}") from None
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise McpJsonError(f"{path}: invalid JSON: {error}") from None
    listed = data.get("mcpServers") if isinstance(data, Mapping) else None
    if not isinstance(listed, Mapping):
        return McpJson({}, (f'{path}: no "mcpServers" object',) if listed is not None else ())
    servers: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for name, entry in listed.items():
        converted = _server(name, entry)
        if isinstance(converted, str):
            problems.append(f"{path}: MCP server {name}: {converted}")
        else:
            servers[name] = converted
    return McpJson(servers, tuple(problems))


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _table(value: Any) -> bool:
    return isinstance(value, Mapping) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def _server(name: str, entry: Any) -> dict[str, Any] | str:
    """One entry as agent-tui's server table, or why it cannot be used."""
    if not SERVER_NAME.match(name) or "__" in name:
        return "the name may only have letters, digits, '-' and single '_' (it is part of tool names)"
    if not isinstance(entry, Mapping):
        return "not an object"
    kind = _TRANSPORTS.get(entry.get("type") or ("http" if "url" in entry else "stdio"))
    if kind is None:
        return f"unknown type {entry.get('type')!r} (stdio, http or sse)"
    if kind == "stdio":
        command, args, env = entry.get("command"), entry.get("args", []), entry.get("env", {})
        if not isinstance(command, str) or not command:
            return 'a stdio server needs "command" (a string)'
        if not _strings(args) or not _table(env):
            return '"args" must be a list of strings and "env" an object of strings'
        return {"command": [command, *args], **({"env": dict(env)} if env else {})}
    url, headers = entry.get("url"), entry.get("headers", {})
    if not isinstance(url, str) or not url:
        return f'an {kind} server needs "url" (a string)'
    if not _table(headers):
        return '"headers" must be an object of strings'
    bearer = entry.get("bearer_token_env_var")
    if bearer is not None and not isinstance(bearer, str):
        return '"bearer_token_env_var" must be a variable name (a string)'
    extra = {"bearer_token_env_var": bearer} if bearer else {}
    return {"url": url, "type": kind, **({"headers": dict(headers)} if headers else {}), **extra}


class UnsetVariable(ValueError):
    """A ``${VAR}`` without a default names a variable the environment does not set."""


def _expand_text(text: str, environ: Mapping[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if default is None:
            raise UnsetVariable(f"${{{name}}} is not set (give it a value, or a default: ${{{name}:-…}})")
        return default

    return _REFERENCE.sub(value, text)


def expand(server: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """The server with ``${VAR}`` / ``${VAR:-default}`` filled in from ``environ`` (command, args,
    env values, url, header values); raises :class:`UnsetVariable` for an unset one without default."""
    out = dict(server)
    if "command" in out:
        out["command"] = [_expand_text(word, environ) for word in out["command"]]
    if "url" in out:
        out["url"] = _expand_text(out["url"], environ)
    for key in ("env", "headers"):
        if key in out:
            out[key] = {name: _expand_text(text, environ) for name, text in out[key].items()}
    return out
