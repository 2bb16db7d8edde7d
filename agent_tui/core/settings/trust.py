"""Project trust: a cloned repository's own config cannot grant itself power.

A project's ``.agent-tui/config.toml`` is shared, committed text: whoever wrote
the repository wrote it. The parts of it that widen authority - permission
rules that allow, MCP servers (processes started the moment agent-tui opens,
or URLs that receive prompts), where model requests go and with which key, the
keys passed to ``bash``, loosening the sandbox, an approval mode other than ``ask``,
hooks (its ``[[hooks]]`` and its ``.claude/settings.json`` hooks: commands run
at once), where sessions are stored and how long their leases live there - apply
only once the user has trusted that project; everything else in it (theme,
retry, compaction, agent prompts, asks and denies, which narrow) applies at once.

Trust is personal state: it lives in the user's data dir (``trust.json``,
0600), never in the project, and is pinned to a digest of the project's
powers, so a new MCP command or allow rule asks again. A launch can override
it for its own process (``--trust`` / ``--no-trust``: :func:`assume`).

Stdlib only: ``config_layers`` (and with it the TUI's first frame) reads it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.settings import paths

_ENDPOINT_KEYS = ("api_base", "api_key")
_assumed: bool | None = None


def assume(trusted: bool | None) -> None:
    """``--trust`` (True) / ``--no-trust`` (False) for this process; None: the stored trust."""
    global _assumed
    _assumed = trusted


def assumed() -> bool | None:
    return _assumed


@dataclass(frozen=True)
class Powers:
    """What a project config asks for beyond what it may take untrusted."""

    wanted: dict[str, Any]
    """The widening parts, as data: what the digest pins."""
    lines: tuple[str, ...]
    """The same, one human-readable line each (``allow bash "*"``, ``start MCP server x: cmd``)."""

    def __bool__(self) -> bool:
        return bool(self.lines)

    def digest(self) -> str:
        import hashlib

        canonical = json.dumps(self.wanted, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(canonical.encode()).hexdigest()


def _split_rules(rules: Any, where: str, wanted: dict[str, Any], lines: list[str]) -> Any:
    """Take out the allows; keep the rules that narrow (ask, deny) and anything malformed
    (validation names it against the file)."""
    if not isinstance(rules, list):
        return rules
    kept = []
    for rule in rules:
        effect = rule.get("effect") if isinstance(rule, Mapping) else None
        if effect == "allow":
            wanted.setdefault(where, []).append(dict(rule))
            lines.append(
                f"allow {rule.get('action', '?')} {json.dumps(rule.get('pattern', '*'))}"
                + (f" (agent {where.split('.')[1]})" if where != "permission" else "")
            )
        else:
            kept.append(rule)
    return kept


def split_powers(data: Mapping[str, Any], mcp_json: frozenset[str] = frozenset()) -> tuple[dict[str, Any], Powers]:
    """The project layer without its powers, and the powers it asked for (``mcp_json``: the servers
    that came from the project's ``.mcp.json``, so the lines say where they are written)."""
    kept: dict[str, Any] = dict(data)
    wanted: dict[str, Any] = {}
    lines: list[str] = []
    if "permission" in kept:
        kept["permission"] = _split_rules(kept["permission"], "permission", wanted, lines)
    agents = kept.get("agents")
    if isinstance(agents, Mapping):
        kept["agents"] = {}
        for name, agent in agents.items():
            if isinstance(agent, Mapping) and "permission" in agent:
                agent = {
                    **agent,
                    "permission": _split_rules(agent["permission"], f"agents.{name}.permission", wanted, lines),
                }
            kept["agents"][name] = agent
    _split_mcp(kept, wanted, lines, mcp_json)
    for key in _ENDPOINT_KEYS:
        if key in kept:
            wanted[key] = kept.pop(key)
            lines.append(f"send model requests to {wanted[key]}" if key == "api_base" else "set the provider API key")
    _split_models(kept, wanted, lines)
    _split_instructions(kept, wanted, lines)
    _split_references(kept, wanted, lines)
    _split_sandbox(kept, wanted, lines)
    if "approval" in kept and kept["approval"] != "ask":  # only "ask" narrows; any other mode asks less
        wanted["approval"] = kept.pop("approval")
        lines.append(f"set the approval mode to {json.dumps(wanted['approval'])} (fewer permission asks)")
    _split_hooks(kept, wanted, lines)
    if "telemetry" in kept:  # where telemetry goes is the user's choice: a project could aim it anywhere
        wanted["telemetry"] = kept.pop("telemetry")
        endpoint = wanted["telemetry"].get("otlp_endpoint") if isinstance(wanted["telemetry"], Mapping) else None
        lines.append(f"send telemetry to {endpoint or 'a collector'}")
    _split_storage(kept, wanted, lines)
    shell = kept.get("shell")
    if isinstance(shell, Mapping) and "env" in shell:
        wanted["shell.env"] = shell["env"]
        lines.append(f"pass environment variables to bash: {json.dumps(shell['env'])}")
        kept["shell"] = {key: value for key, value in shell.items() if key != "env"}
    return kept, Powers(wanted, tuple(lines))


def _split_storage(kept: dict[str, Any], wanted: dict[str, Any], lines: list[str]) -> None:
    """Take out where transcripts go (``storage.url``: a project could aim them at any server) and
    how long this host's leases on a shared database live (``storage.lease_ttl_ms``: a project could
    shorten them until other hosts take over sessions that are still running)."""
    storage = kept.get("storage")
    if not isinstance(storage, Mapping):
        return
    taken = []
    if storage.get("url"):
        taken.append("url")
        lines.append("store sessions in a PostgreSQL database (storage.url)")
    if "lease_ttl_ms" in storage:
        taken.append("lease_ttl_ms")
        lines.append(f"set how long this host's leases on a shared database live: {storage['lease_ttl_ms']} ms")
    wanted.update({f"storage.{key}": storage[key] for key in taken})
    kept["storage"] = {key: value for key, value in storage.items() if key not in taken}


def _reaches_out(entry: str) -> bool:
    """An instruction entry that is a URL (a request to a server) or a path that may lead out of
    the project (absolute, ``~``, ``..``): what it reads would go to the model provider."""
    return entry.startswith(("http://", "https://", "/", "~")) or ".." in Path(entry).parts


def _split_instructions(kept: dict[str, Any], wanted: dict[str, Any], lines: list[str]) -> None:
    """Take out the instruction entries that reach beyond the project; paths inside it stay."""
    entries = kept.get("instructions")
    if not isinstance(entries, list):
        return
    reaching = [entry for entry in entries if isinstance(entry, str) and _reaches_out(entry)]
    if reaching:
        wanted["instructions"] = reaching
        kept["instructions"] = [entry for entry in entries if entry not in reaching]
        lines.extend(f"give the model the instructions at {entry}" for entry in reaching)


def _split_references(kept: dict[str, Any], wanted: dict[str, Any], lines: list[str]) -> None:
    """Take out the reference folders that may lie outside the project: the agent reads them
    without asking. Folders inside it, and anything malformed (validation names it), stay."""
    references = kept.get("references")
    if not isinstance(references, Mapping):
        return
    reaching = {
        name: dict(reference)
        for name, reference in references.items()
        if isinstance(reference, Mapping) and isinstance(reference.get("path"), str) and _reaches_out(reference["path"])
    }
    if reaching:
        wanted["references"] = reaching
        kept["references"] = {name: value for name, value in references.items() if name not in reaching}
        lines.extend(f"let the agent read {reference['path']} as {name}:" for name, reference in reaching.items())


def _split_sandbox(kept: dict[str, Any], wanted: dict[str, Any], lines: list[str]) -> None:
    """Take out what loosens the sandbox (another mode than read-only, the network, more writable
    folders, MCP servers let out of it); a project may only narrow it until trusted
    (``mcp_servers = true`` narrows: it confines every stdio server)."""
    sandbox = kept.get("sandbox")
    if not isinstance(sandbox, Mapping):
        return
    loosening = {
        key: value
        for key, value in sandbox.items()
        if (key == "mode" and value != "read-only")
        or (key == "network" and value)
        or (key == "writable_roots" and value)
        or (key == "mcp_servers" and value is not True)
    }
    if loosening:
        wanted["sandbox"] = loosening
        kept["sandbox"] = {key: value for key, value in sandbox.items() if key not in loosening}
        lines.extend(f"set the command sandbox's {key} to {json.dumps(value)}" for key, value in loosening.items())


def _split_hooks(kept: dict[str, Any], wanted: dict[str, Any], lines: list[str]) -> None:
    """Take out every hook: each one a command run on the project's say-so."""
    hooks = kept.get("hooks")
    if not isinstance(hooks, list) or not hooks:
        return
    wanted["hooks"] = hooks
    kept.pop("hooks")
    for hook in hooks:
        if isinstance(hook, Mapping):
            matcher = f" ({hook['matcher']})" if hook.get("matcher") else ""
            lines.append(f"run a {hook.get('event', '?')}{matcher} hook: {hook.get('command', '?')}")


def _split_mcp(kept: dict[str, Any], wanted: dict[str, Any], lines: list[str], mcp_json: frozenset[str]) -> None:
    """Take out the MCP servers (each one a program started or a server connected to)."""
    mcp = kept.get("mcp")
    if isinstance(mcp, Mapping) and isinstance(mcp.get("servers"), Mapping) and mcp["servers"]:
        wanted["mcp.servers"] = {name: server for name, server in mcp["servers"].items()}
        for name, server in mcp["servers"].items():
            shown = f"{name} (.mcp.json)" if name in mcp_json else name
            if isinstance(server, Mapping) and server.get("url") is not None:
                lines.append(f"connect MCP server {shown} at {server.get('url')}")
            else:
                command = server.get("command") if isinstance(server, Mapping) else None
                command_line = " ".join(map(str, command)) if isinstance(command, list) else str(command)
                confined = isinstance(server, Mapping) and server.get("sandbox") is True
                lines.append(f"start MCP server {shown}{' (sandboxed)' if confined else ''}: {command_line}")
        kept["mcp"] = {key: value for key, value in mcp.items() if key != "servers"}


def _split_models(kept: dict[str, Any], wanted: dict[str, Any], lines: list[str]) -> None:
    """Take out each model's endpoint and key."""
    models = kept.get("models")
    if isinstance(models, Mapping):
        kept["models"] = {}
        for name, model in models.items():
            if isinstance(model, Mapping):
                for key in _ENDPOINT_KEYS:
                    if key in model:
                        wanted[f"models.{name}.{key}"] = model[key]
                        lines.append(
                            f"send {name} requests to {model[key]}"
                            if key == "api_base"
                            else f"set the API key for {name}"
                        )
                model = {key: value for key, value in model.items() if key not in _ENDPOINT_KEYS}
            kept["models"][name] = model


def store_file() -> Path:
    return paths.data_dir() / "trust.json"


@dataclass(frozen=True)
class TrustEntry:
    config: str
    """The project config file's resolved path."""
    digest: str
    trusted_at_ms: int
    powers: tuple[str, ...] = field(default_factory=tuple)


def _load() -> dict[str, TrustEntry]:
    try:
        raw = json.loads(store_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # missing or unreadable: nothing is trusted (fail closed)
    entries = raw.get("projects") if isinstance(raw, dict) else None
    if not isinstance(entries, dict):
        return {}
    result = {}
    for config, entry in entries.items():
        try:
            result[config] = TrustEntry(
                config, str(entry["digest"]), int(entry["trusted_at_ms"]), tuple(map(str, entry.get("powers", ())))
            )
        except (KeyError, TypeError, ValueError):
            continue
    return result


def _save(entries: Mapping[str, TrustEntry]) -> None:
    """Write atomically, readable by the user only."""
    target = store_file()
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    payload = {
        "projects": {
            e.config: {"digest": e.digest, "trusted_at_ms": e.trusted_at_ms, "powers": list(e.powers)}
            for e in entries.values()
        }
    }
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(payload, out, indent=1, sort_keys=True)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, target)


def stamp() -> tuple[int, int] | None:
    """The store's mtime and size: part of the config stamp, so trusting reloads settings."""
    try:
        stat = store_file().stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def is_trusted(config: Path, powers: Powers) -> bool:
    if not powers:
        return True
    if _assumed is not None:
        return _assumed
    entry = _load().get(str(config.resolve()))
    return entry is not None and entry.digest == powers.digest()


def trust(config: Path, powers: Powers) -> TrustEntry:
    entries = _load()
    key = str(config.resolve())
    entries[key] = TrustEntry(key, powers.digest(), int(time.time() * 1000), powers.lines)
    _save(entries)
    return entries[key]


def revoke(config: Path) -> bool:
    entries = _load()
    removed = entries.pop(str(config.resolve()), None)
    if removed is not None:
        _save(entries)
    return removed is not None


def trusted_projects() -> list[TrustEntry]:
    return sorted(_load().values(), key=lambda e: e.config)


def previously_trusted(config: Path) -> TrustEntry | None:
    """The stored entry for this config, whatever its digest (to show what changed)."""
    return _load().get(str(config.resolve()))
