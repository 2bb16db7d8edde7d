"""The client's side of the protocol for one server: what the MCP client answers the server.

The SDK's ``Client`` takes these as callbacks (``connection`` passes them when
it connects): ``roots/list`` is answered with the folders it was given, what
the server logs is kept (``server_log``), a list-change or resource-update
notification reaches the connection, a question the server asks during a
call (elicitation) goes to that call's ``elicit`` and a sampling request to
its ``sample``. With no call in flight to ask for, both are declined. The
call's time limit is paused while the user is being asked (``asking``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, TypeVar

from agent_tui.tools.mcp.failure_reasons import reason_of
from agent_tui.tools.mcp.resources import resource_capability
from agent_tui.tools.mcp.roots import distinct, listed
from agent_tui.tools.mcp.sampling import sampling_request
from agent_tui.tools.mcp.server_log import ServerLog
from agent_tui.vocab.elicitation import ElicitationAnswer, ElicitationRequest
from agent_tui.vocab.mcp_server import McpServerConfig
from agent_tui.vocab.sampling import DECLINED, SamplingAnswer, SamplingRequest

Elicit = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]
"""Asks the user a server's question for one tool call (core records it and waits for the answer)."""
Sample = Callable[[SamplingRequest], Awaitable[SamplingAnswer]]
"""Runs a server's sampling request for one tool call once the user approves it (core records both)."""

SAMPLING_REFUSED: Final = -1
"""The error code a declined sampling request gets (the protocol's example of a user's refusal)."""
CLIENT_NAME: Final = "agent-tui"
_T = TypeVar("_T")


class _Asker:
    """A call that can ask the user: its ``elicit`` and ``sample``, its time limit (paused while asking),
    its open questions."""

    def __init__(self, elicit: Elicit | None, sample: Sample | None, deadline: asyncio.Timeout) -> None:
        self.elicit = elicit
        self.sample = sample
        self.deadline = deadline
        self.asking: set[asyncio.Future[Any]] = set()


class ClientCallbacks:
    """The answers one connection gives its server (``roots``, ``log``, questions, sampling) and the
    notifications it passes on: ``on_tools_changed`` (prompts too), ``on_resources_changed``,
    ``on_resource_updated`` (a watched URI), ``on_error_logged`` (an error the server logged)."""

    def __init__(
        self,
        name: str,
        config: McpServerConfig,
        log: ServerLog,
        roots: Iterable[Path],
        *,
        on_tools_changed: Callable[[], None],
        on_resources_changed: Callable[[], None],
        on_resource_updated: Callable[[str], None],
        on_error_logged: Callable[[], None],
    ) -> None:
        self.name = name
        self.config = config
        self.log = log
        self.roots = distinct(roots)
        """The folders ``roots/list`` answers with (the connection's ``set_roots`` changes them)."""
        self._on_tools_changed = on_tools_changed
        self._on_resources_changed = on_resources_changed
        self._on_resource_updated = on_resource_updated
        self._on_error_logged = on_error_logged
        self._askers: list[_Asker] = []
        """One per call in flight that can ask the user, latest last: who a server's question goes to."""

    def sdk_callbacks(self) -> dict[str, Any]:
        """The SDK ``Client``'s keyword arguments for these callbacks; sampling is declared only to a
        server configured with ``sampling = true`` (None: not declared)."""
        return {
            "message_handler": self.on_message,
            "list_roots_callback": self.list_roots,
            "logging_callback": self.on_log,
            "elicitation_callback": self.elicit,
            "sampling_callback": self.sample if self.config.sampling else None,
        }

    # -- notifications ---------------------------------------------------------------

    async def on_message(self, message: Any) -> None:
        from mcp.types import (
            PromptListChangedNotification,
            ResourceListChangedNotification,
            ResourceUpdatedNotification,
            ToolListChangedNotification,
        )

        if isinstance(message, ToolListChangedNotification | PromptListChangedNotification):
            self._on_tools_changed()  # the relisting lists the prompts too
        elif isinstance(message, ResourceListChangedNotification):
            self._on_resources_changed()
        elif isinstance(message, ResourceUpdatedNotification):
            self._on_resource_updated(str(message.params.uri))

    async def on_log(self, params: Any) -> None:
        entry = self.log.record(str(params.level), params.data, params.logger)
        if entry.is_error:  # one notice: listeners find it in ``logs`` (each shown once)
            self._on_error_logged()

    async def listen(self, client: Any) -> None:
        """A 2026-era server announces a changed tool or resource list only on a ``subscriptions/listen``
        stream (an older one sends the notification unasked, ``on_message``); either reaches the same relisting."""
        from mcp.shared.subscriptions import ResourcesListChanged

        tools = getattr(getattr(client.server_capabilities, "tools", None), "list_changed", False)
        resources = resource_capability(client, "list_changed")
        if not (tools or resources):
            return
        try:
            async with client.listen(tools_list_changed=bool(tools), resources_list_changed=resources) as events:
                async for event in events:
                    if isinstance(event, ResourcesListChanged):
                        self._on_resources_changed()
                    else:
                        self._on_tools_changed()
        except Exception as error:  # noqa: BLE001 - an older protocol, or the server went away
            logging.getLogger(__name__).debug("MCP server %s: no list-change stream: %s", self.name, reason_of(error))

    # -- requests ----------------------------------------------------------------------

    async def list_roots(self, context: Any) -> Any:  # noqa: ARG002 - the SDK's ListRootsFnT signature
        from mcp.types import ListRootsResult, Root

        return ListRootsResult(roots=[Root(uri=uri, name=name) for uri, name in listed(self.roots)])  # type: ignore[arg-type]

    async def elicit(self, context: Any, params: Any) -> Any:  # noqa: ARG002 - the SDK's ElicitationFnT
        """A server's question: to the latest call in flight (its session asks the user), else declined."""
        from mcp.types import ElicitResult

        url = getattr(params, "url", None)
        request = ElicitationRequest(
            server=self.name,
            message=str(params.message),
            mode="url" if url is not None else "form",
            schema=dict(getattr(params, "requested_schema", None) or {}),
            url=url,
            answer_within_s=self.config.timeout_s,
        )
        asker = next((a for a in reversed(self._askers) if a.elicit is not None), None)
        if asker is None or asker.elicit is None:
            return ElicitResult(action="decline")
        answer = await self._while_asking(asker, asker.elicit(request))
        if answer is None:
            return ElicitResult(action="cancel")  # the call ended while the user was asked
        content = answer.content if answer.action == "accept" and request.mode == "form" else None
        return ElicitResult(action=answer.action, content=content)

    async def sample(self, context: Any, params: Any) -> Any:  # noqa: ARG002 - the SDK's SamplingFnT
        """A server's request for the model: to the latest call in flight (its session asks the user and
        runs the session's model), else declined; a declined request is an error the server sees."""
        from mcp.types import CreateMessageResult, ErrorData, TextContent

        asker = next((a for a in reversed(self._askers) if a.sample is not None), None)
        if asker is None or asker.sample is None:
            return ErrorData(
                code=SAMPLING_REFUSED, message=f"{CLIENT_NAME} declined to sample: no tool call to ask for"
            )
        answer = await self._while_asking(asker, asker.sample(sampling_request(self.name, params)))
        if answer is None or not answer.approved:
            why = "the tool call ended" if answer is None else answer.reason or DECLINED
            return ErrorData(code=SAMPLING_REFUSED, message=f"{CLIENT_NAME} declined to sample: {why}")
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=answer.text),
            model=answer.model,
            stop_reason=answer.stop_reason,
        )

    # -- the calls that can ask --------------------------------------------------------

    @contextmanager
    def asking(self, elicit: Elicit | None, sample: Sample | None, deadline: asyncio.Timeout) -> Iterator[None]:
        """While a call runs, a server's question goes to its ``elicit``, a sampling request to its
        ``sample`` (None: not to this call); ``deadline`` is paused while the user is asked. Its open
        questions end with it."""
        if elicit is None and sample is None:
            yield
            return
        asker = _Asker(elicit, sample, deadline)
        self._askers.append(asker)
        try:
            yield
        finally:
            self._askers.remove(asker)
            for asking in asker.asking:
                asking.cancel()

    async def _while_asking(self, asker: _Asker, asking: Awaitable[_T]) -> _T | None:
        """``asking`` (the user, maybe a model) with the call's time limit paused; None when the call ended first."""
        future = asyncio.ensure_future(asking)
        asker.asking.add(future)
        asker.deadline.reschedule(None)  # the user may take their time
        try:
            return await future
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # this task itself is being cancelled (a 2026 call)
                raise
            return None
        finally:
            asker.asking.discard(future)
            asker.deadline.reschedule(asyncio.get_running_loop().time() + self.config.timeout_s)
