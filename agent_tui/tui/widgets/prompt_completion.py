"""What the completion list offers for the ``@`` or ``/`` token under the prompt's cursor.

``/`` lists the commands at once; ``@`` lists the subagents, the MCP servers
and the project's files (or, for ``@server:``, that server's resources), which
takes a listing: the ``SessionView`` runs :meth:`PromptCompletion.list_mentions`
as its exclusive ``complete`` worker, so a newer keystroke cancels an older
listing. The list only ever shows the answer to what the prompt still asks.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.tui.choices import Choice
from agent_tui.tui.command_registry import slash_choices
from agent_tui.tui.file_index import mention
from agent_tui.tui.mention_index import MentionIndex
from agent_tui.tui.resource_choices import resource_choices, server_choices
from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets.completion import CompletionList


class PromptCompletion:
    def __init__(self, services: TuiServices) -> None:
        self.services = services
        self._files: MentionIndex | None = None  # the paths for @ completion, made on the first @
        self._wanted: tuple[str, str] | None = None  # what the completion list answers

    def follow(self, wanted: tuple[str, str] | None, completion: CompletionList) -> str | None:
        """Bring the list in step with the token the prompt completes (``wanted``, from
        ``PromptInput.completing``); returns the ``@`` query still to list, if any."""
        if wanted is None:
            self._wanted = None
            completion.close()
            return None
        if wanted == self._wanted:
            return None
        self._wanted = wanted
        kind, query = wanted
        if kind == "/":
            choices = slash_choices(query, self.services.command_specs())
            completion.show_choices(choices, None if choices else f"no command /{query}")
            return None
        return query

    async def list_mentions(self, query: str, completion: CompletionList) -> None:
        """What ``@query`` may mention, shown unless the prompt moved on meanwhile."""
        resources = await self._mcp_resources()
        linked = resource_choices(query, resources)
        if linked is not None:  # ``@server:…``: that server's resources, not files
            if self._wanted == ("@", query):
                completion.show_choices(linked, f"no resource of {query.partition(':')[0]} matches")
            return
        if self._files is None:
            self._files = MentionIndex(self.services.location, self._reference_roots(), clock=self.services.clock)
            completion.show_choices([], "listing the project's files…")
        try:
            paths = await self._files.search(query)
        except Exception as error:  # an unreadable tree: say so in the list, the prompt still works
            completion.show_choices([], f"cannot list files: {error}")
            return
        if self._wanted == ("@", query):
            choices = [
                *self._subagent_choices(query, paths),
                *server_choices(query, resources),
                *(Choice(mention(p), p) for p in paths),
            ]
            completion.show_choices(choices, f"no file matches {query!r}")

    async def _mcp_resources(self) -> dict[str, list]:
        """What each ready MCP server the agent uses listed (the connections keep it, listed again when
        a server says it changed); none before the runtime is up."""
        mcp = self.services.mcp
        if mcp is None or not hasattr(mcp, "mcp_resources"):
            return {}
        try:
            found: dict[str, list] = await mcp.mcp_resources(self.services.location, self.services.agent)
        except Exception:  # noqa: BLE001 - an invalid config: the files are still offered
            return {}
        return found

    def _subagent_choices(self, query: str, paths: list[str]) -> list[Choice]:
        """The subagents the selected agent may hand work to whose name starts with ``query``: a group
        above the files (they are few), each but one a file or folder of that name would win on send."""
        settings = self.services.settings
        if settings is None:
            return []
        from agent_tui.core.api import callable_subagents

        taken = {p.rstrip("/") for p in paths}
        return [
            Choice(mention(name), name, f"subagent · {settings.agent_settings(name).description}".rstrip(" ·"))
            for name in callable_subagents(settings, self.services.agent)
            if name.lower().startswith(query.lower()) and name not in taken
        ]

    def _reference_roots(self) -> dict[str, Path]:
        """The configured reference folders (``[references.NAME]``), once the settings are known."""
        settings = self.services.settings
        if settings is None or not settings.references:
            return {}
        from agent_tui.core.api import paths

        return settings.reference_roots(paths.project_root(Path(self.services.location)))
