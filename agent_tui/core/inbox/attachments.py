"""``@path`` mentions and ``--file`` attachments -> durable prompt parts (``@subagent``: ``agent_mentions``,
``@server:uri``: ``resource_mentions``).

Each file is read when the prompt is sent, through the ``read`` tool's own
reader (the same page limits, the same footer saying where it was cut), and the
text is stored in the :class:`~agent_tui.core.log.events.FilePart`, so a replay of
the log shows what the model saw even after the file changed. A folder becomes
its listing, an image an :class:`~agent_tui.core.log.events.ImagePart` (refused when
the model cannot view images). A path outside the session location follows the
``external_directory`` permission rules: ``deny`` refuses, ``ask`` raises
:class:`NeedsApproval` unless the caller approved that folder.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.inbox.agent_mentions import agent_part, callable_subagents
from agent_tui.core.inbox.resource_mentions import ResourceReader, split_mentions
from agent_tui.core.log import events as ev
from agent_tui.tools.errors import ToolError
from agent_tui.tools.paths import Resolved, is_inside
from agent_tui.tools.permissions import evaluate
from agent_tui.tools.read import ReadInput, read_resolved
from agent_tui.tools.references import resolve_reference
from agent_tui.vocab.kinds import Effect
from agent_tui.vocab.permission_rule import PermissionRule

if TYPE_CHECKING:  # the settings model imports pydantic: only its name is needed here
    from agent_tui.core.settings.config import Settings

_MENTION = re.compile(r'(?<![\w\\@])@(?:"([^"\n]+)"|([^\s"]+))')
_TRAILING = ".,;:!?)]}'"
_LITERAL_AT = re.compile(r"\\@")


class AttachmentError(ValueError):
    """A mention that cannot be attached: one line naming the path and why."""


class NeedsApproval(AttachmentError):
    """A path outside the location whose ``external_directory`` rule says ``ask``."""

    def __init__(self, raw: str, directory: str) -> None:
        super().__init__(
            f"@{raw} is outside the session location ({directory}): the external_directory permission asks first"
        )
        self.raw = raw
        self.directory = directory


def mentions(text: str) -> list[str]:
    """The ``@path`` (or ``@"path with spaces"``) mentions in ``text``, in order, once each.

    ``\\@`` is a literal ``@``; an address such as ``a@b.c`` is no mention."""
    found: list[str] = []
    for match in _MENTION.finditer(text):
        raw = match.group(1) or match.group(2).rstrip(_TRAILING)
        if raw and raw not in found:
            found.append(raw)
    return found


@dataclass(frozen=True)
class AttachPolicy:
    """What decides an attachment: the permission rules, and the folders the user approved."""

    rules: Sequence[PermissionRule] = ()
    approved: frozenset[str] = frozenset()
    external: str | None = None
    """``allow``/``deny`` answers every ``ask`` at once (``agent-tui run --permission``)."""
    references: Mapping[str, Path] = field(default_factory=dict)
    """The configured reference folders: ``@NAME:path`` attaches from them (the user named them)."""
    subagents: frozenset[str] = frozenset()
    """The subagents the selected agent may start with ``task``: ``@NAME`` adds the guidance to
    hand it the work (``agent_mentions``), unless a file, folder or reference is named so."""
    agents: frozenset[str] = frozenset()
    """Every configured agent: ``@NAME`` of one it may not start stays plain text (no guidance,
    and not "no such file" either: the name is no typo)."""
    mcp_servers: frozenset[str] = frozenset()
    """The MCP servers the selected agent uses: ``@NAME:scheme:…`` of one is its resource
    (``resource_mentions``), read through the ``resources`` reader ``build_prompt`` is given."""


def _target(location: Path, raw: str) -> tuple[Path, str]:
    """The real path and the name the model is shown (location-relative inside it)."""
    expanded = os.path.expanduser(raw)
    candidate = Path(expanded) if os.path.isabs(expanded) else location / expanded
    if not os.path.lexists(candidate):
        raise AttachmentError(f"@{raw}: no such file or folder")
    real = Path(os.path.realpath(candidate))
    if not real.exists():
        raise AttachmentError(f"@{raw}: a dangling symlink")
    root = location.resolve()
    if is_inside(real, root):
        return real, real.relative_to(root).as_posix() if real != root else "."
    return real, real.as_posix()


def _check_external(raw: str, real: Path, policy: AttachPolicy) -> None:
    directory = (real if real.is_dir() else real.parent).as_posix()
    verdict = evaluate(policy.rules, "external_directory", directory)
    if verdict.effect is Effect.DENY:
        raise AttachmentError(f"@{raw}: the external_directory rule {verdict.rule.pattern!r} denies {directory}")
    if verdict.effect is Effect.ALLOW or directory in policy.approved or policy.external == "allow":
        return
    if policy.external == "deny":
        raise AttachmentError(
            f"@{raw} is outside the session location ({directory}) and the permission policy denies it"
        )
    raise NeedsApproval(raw, directory)


def _resolve_mention(location: Path, raw: str, policy: AttachPolicy) -> Resolved:
    """``NAME:path`` in a reference folder, else a path from the location (outside it: the rules decide)."""
    try:
        in_reference = resolve_reference(policy.references, raw)
    except ToolError as error:
        raise AttachmentError(f"@{raw}: {error.message}") from None
    if in_reference is not None:
        return in_reference
    real, shown = _target(location, raw)
    if shown == real.as_posix():
        _check_external(raw, real, policy)
    return Resolved(path=real, rel=shown)


def attach_one(location: Path, raw: str, policy: AttachPolicy, vision: Callable[[], bool]) -> ev.PromptPart:
    """Blocking: one path as the part the model will see."""
    resolved = _resolve_mention(location, raw, policy)
    real, shown = resolved.path, resolved.rel
    is_image = not real.is_dir() and _looks_like_image(real)
    try:
        result = read_resolved(ReadInput(path=shown), vision() if is_image else False, resolved)
    except ToolError as error:
        raise AttachmentError(f"@{raw}: {_reason(error.message, shown)}") from None
    output = result.output
    if output.images:
        image = output.images[0]
        size = real.stat().st_size
        width, height = dimensions(real)
        return ev.ImagePart(path=shown, mime=image["mime"], data=image["data"], size=size, width=width, height=height)
    mime = "inode/directory" if output.data.get("kind") == "directory" else "text/plain"
    return ev.FilePart(path=shown, mime=mime, text=output.text)


def dimensions(path: Path) -> tuple[int | None, int | None]:
    """Width and height from the image's header (``imagesize`` reads only that)."""
    import imagesize

    try:
        width, height = imagesize.get(path)
    except (OSError, ValueError):
        return None, None
    return (width, height) if width > 0 and height > 0 else (None, None)


def _looks_like_image(path: Path) -> bool:
    from agent_tui.tools.sniff import image_mime

    try:
        with open(path, "rb") as handle:
            return image_mime(handle.read(16)) is not None
    except OSError:
        return False


def _reason(message: str, shown: str) -> str:
    """The read tool's sentence without its ``Cannot read 'x':`` lead (the mention names it)."""
    for lead in (f"Cannot read {shown!r}: ", "Cannot read "):
        if message.startswith(lead):
            return message[len(lead) :]
    return message


def attach_all(
    location: Path,
    paths: Iterable[str],
    policy: AttachPolicy,
    vision: Callable[[], bool],
    files: Sequence[str] = (),
) -> list[ev.PromptPart]:
    """Blocking: every path, in order; the first one that fails raises. A mention of an agent that
    names no file, folder or reference is that agent's guidance when it is in ``policy.subagents``,
    else nothing but the typed text (a ``files`` path is always a path)."""
    parts: list[ev.PromptPart] = []
    for raw in dict.fromkeys(paths):
        if raw in policy.agents | policy.subagents and raw not in files and not _names_a_path(location, raw, policy):
            if raw in policy.subagents:
                parts.append(agent_part(raw))
        else:
            parts.append(attach_one(location, raw, policy, vision))
    return parts


def _names_a_path(location: Path, raw: str, policy: AttachPolicy) -> bool:
    """Whether ``@raw`` names a reference folder's ``NAME:`` or something on disk: that wins over an agent."""
    name, colon, _ = raw.partition(":")
    if colon and name in policy.references:
        return True
    expanded = os.path.expanduser(raw)
    return os.path.lexists(expanded if os.path.isabs(expanded) else location / expanded)


async def build_prompt(
    text: str,
    location: str | Path,
    *,
    files: Sequence[str] = (),
    policy: AttachPolicy = AttachPolicy(),
    vision: Callable[[], bool] = lambda: False,
    resources: ResourceReader | None = None,
) -> list[ev.PromptPart]:
    """The prompt's parts: the text as typed, then each mentioned and each ``--file`` path (off the loop),
    a mentioned subagent as its guidance (:mod:`agent_mentions`), then each mentioned MCP resource
    read through ``resources`` (:mod:`resource_mentions`; without a reader such a mention fails).

    ``vision`` is asked (in the worker thread) only when an image is attached."""
    paths, linked = split_mentions(mentions(text), policy.mcp_servers)
    wanted = [*paths, *files]
    plain = _LITERAL_AT.sub("@", text)  # ``\@`` was a literal ``@``
    parts: list[ev.PromptPart] = [ev.TextPart(text=plain)] if plain.strip() else []
    if wanted:
        parts.extend(await asyncio.to_thread(attach_all, Path(location), wanted, policy, vision, files))
    for server, uri in linked:
        if resources is None:
            raise AttachmentError(f"@{server}:{uri}: MCP resources cannot be read here")
        try:
            parts.append(await resources(server, uri))
        except Exception as error:  # noqa: BLE001 - ToolError, or a server gone: one line naming the mention
            raise AttachmentError(f"@{server}:{uri}: {getattr(error, 'message', None) or error}") from None
    return parts


def attach_policy(
    settings: Settings | None,
    agent: str | None,
    *,
    approved: Iterable[str] = (),
    external: str | None = None,
    location: str | Path | None = None,
    spawned: bool = False,
) -> AttachPolicy:
    """The policy the session's tools would follow: global rules, then the agent's; the reference
    folders configured for ``location``'s project; the subagents ``agent`` may start (``spawned``:
    the session is a subagent's own, see :func:`callable_subagents`); the MCP servers it uses."""
    from agent_tui.core.host.tool_host import permission_rules
    from agent_tui.core.settings.paths import project_root

    rules = permission_rules(settings, agent or settings.agent) if settings is not None else []
    references = (
        settings.reference_roots(project_root(Path(location)))
        if settings is not None and settings.references and location is not None
        else {}
    )
    subagents = frozenset(callable_subagents(settings, agent, spawned=spawned)) if settings is not None else frozenset()
    return AttachPolicy(
        rules=tuple(rules),
        approved=frozenset(approved),
        external=external,
        references=references,
        subagents=subagents,
        agents=frozenset(settings.agents) if settings is not None else frozenset(),
        mcp_servers=frozenset(settings.mcp_servers(agent or settings.agent)) if settings is not None else frozenset(),
    )


def vision_check(settings: Settings | None, model: str | None) -> Callable[[], bool]:
    """Blocking when called (LiteLLM's model map): does ``model`` take images?"""

    def check() -> bool:
        from agent_tui.llm.models import model_info

        if not model:
            return False
        overrides = settings.model_settings(model) if settings is not None else None
        return model_info(model, overrides).supports_vision

    return check
