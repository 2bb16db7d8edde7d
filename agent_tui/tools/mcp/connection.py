"""One MCP server connection: started in the background, restarted with backoff after a failure.

The SDK's client is an anyio context manager, so one task (``_run``) enters
it, holds it while the server is ready and leaves it on stop or failure;
calls come from the runner's tool tasks and only send requests through it.
Leaving the context ends a stdio server's whole process group (the SDK
starts it in a new session and terminates the tree).

Every wait on a server is bounded (start-up, listing, each call). A server
that misses one is failed with the reason and retried in the background
after its backoff; only a first start (or the immediate restart after a
crash) is waited for, never a server already known to fail.

The client's side of the protocol: it declares roots (``roots``) and answers
``roots/list`` with the folders it was given, keeps what the server logs
(``server_log``) and passes a call's progress to the caller (``progress``).
Resources: the listing is kept (``resources``, listed again when the server says
it changed), reads go through ``read_resource``, and a mentioned resource is
watched for changes where the server offers it (``resource_watch``).
It lists the server's prompts and expands one on request (``prompts``), and
hands a question the server asks during a call (elicitation) to that call's
``elicit``; with no call to ask for, the question is declined. Sampling is
declared only to a server configured with ``sampling = true``; its requests go
to the call's ``sample`` (the session asks the user, then runs its model) and
are declined likewise.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import tempfile
from collections.abc import Awaitable, Callable, Iterable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, Final, TypeVar

from agent_tui import __version__
from agent_tui.tools.errors import ToolError
from agent_tui.tools.mcp.confined import SandboxUnavailable, server_argv
from agent_tui.tools.mcp.end_watch import watched
from agent_tui.tools.mcp.listing import McpToolInfo, list_all, offered
from agent_tui.tools.mcp.oauth import AuthUnavailable, connection_auth
from agent_tui.tools.mcp.progress import progress_callback
from agent_tui.tools.mcp.prompts import McpPromptInfo, expansion, list_prompts, prompt_infos
from agent_tui.tools.mcp.resource_watch import ResourceWatch
from agent_tui.tools.mcp.resources import McpResourceInfo
from agent_tui.tools.mcp.resources import list_all as list_resources
from agent_tui.tools.mcp.roots import announce_change, distinct, listed
from agent_tui.tools.mcp.sampling import sampling_request
from agent_tui.tools.mcp.sdk_log import route_sdk_logs
from agent_tui.tools.mcp.server_env import server_environment
from agent_tui.tools.mcp.server_log import McpLogEntry, ServerLog
from agent_tui.tools.mcp.token_store import TokenStore
from agent_tui.tools.sandbox import SandboxPolicy
from agent_tui.vocab.clock import Clock, SystemClock
from agent_tui.vocab.elicitation import ElicitationAnswer, ElicitationRequest
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig
from agent_tui.vocab.sampling import DECLINED, SamplingAnswer, SamplingRequest

Elicit = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]
"""Asks the user a server's question for one tool call (core records it and waits for the answer)."""
Sample = Callable[[SamplingRequest], Awaitable[SamplingAnswer]]
"""Runs a server's sampling request for one tool call once the user approves it (core records both)."""

SAMPLING_REFUSED: Final = -1
"""The error code a declined sampling request gets (the protocol's example of a user's refusal)."""
_T = TypeVar("_T")

STDERR_TAIL_CHARS = 1500
BACKOFF_BASE_MS = 1_000
BACKOFF_CAP_MS = 60_000
CLIENT_NAME = "agent-tui"
LOG_LEVEL: Final = "info"
"""The least a server is asked to log (a 2026-era server sends nothing without this opt-in)."""


def backoff_ms(failures: int, crashed: bool = False) -> int:
    """Wait before the next start after ``failures`` failures in a row: 1 s, 2 s, 4 s … 60 s. A server
    that died after it was ready restarts at once the first time (``crashed``): the next call needs it."""
    steps = failures - 1 if crashed else failures
    if steps <= 0:
        return 0
    return min(BACKOFF_BASE_MS * (1 << (steps - 1)), BACKOFF_CAP_MS)


async def load_sdk(log_file: Path | None = None) -> None:
    """Import the SDK in a thread, so the event loop (the TUI) keeps running meanwhile; its log
    records go to ``log_file`` (or nowhere), never to the terminal the TUI draws on."""
    await asyncio.to_thread(route_sdk_logs, log_file)
    await asyncio.to_thread(importlib.import_module, "mcp.client.stdio")
    await asyncio.to_thread(importlib.import_module, "mcp.client.streamable_http")
    await asyncio.to_thread(importlib.import_module, "mcp.client.sse")


def _stderr_tail(path: Path | None) -> str:
    if path is None:
        return ""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-STDERR_TAIL_CHARS:].strip()


class McpConnection:
    """A server by name at one location; ``state``, ``tools`` and ``instructions`` describe it now."""

    def __init__(
        self,
        name: str,
        config: McpServerConfig,
        location: Path,
        clock: Clock | None = None,
        on_change: Callable[[McpConnection], None] | None = None,
        sandbox: SandboxPolicy | None = None,
        roots: Iterable[Path] = (),
        tokens: TokenStore | None = None,
    ) -> None:
        self.name = name
        self.tokens = tokens
        """Where a remote server's login is kept (``oauth``); None: no stored logins are sent."""
        self.config = config
        self.location = location
        self.sandbox = sandbox
        """The policy a stdio server's process runs under (``tools.mcp.confined``); None: unconfined."""
        self.state = McpState.STOPPED
        self.tools: list[McpToolInfo] = []
        self.skipped: tuple[str, ...] = ()
        """Why listed tools are not offered (each one a notice): no tool is dropped silently."""
        self.prompts: list[McpPromptInfo] = []
        """Its prompts (``prompts/list``), each a slash command; empty for a server that offers none."""
        self.instructions: str | None = None
        self.error: str | None = None
        self.last_error: str | None = None
        """The latest failure's reason, kept while a restart is under way (``error`` is then None)."""
        self.roots = distinct(roots)
        """The folders ``roots/list`` answers with (``set_roots`` changes them while it runs)."""
        self.log = ServerLog(name, clock)
        """What the server logged lately (``notifications/message``); also in ``mcp.log``."""
        self.offers_resources = False
        """The server declared the ``resources`` capability: the resource tools and ``@server:uri`` reach it."""
        self.resources: list[McpResourceInfo] = []
        """Its resources and templates as last listed (completion and ``list_mcp_resources`` read them)."""
        self.watch = ResourceWatch(name, lambda: self._on_change(self))
        """The mentioned resources it reports changes of (``subscribe``), each change counted (``version``)."""
        self._resources_listing: asyncio.Task[None] | None = None
        self._announcing: asyncio.Task[None] | None = None
        self._askers: list[_Asker] = []
        """One per call in flight that can ask the user, latest last: who a server's question goes to."""
        self._clock = clock or SystemClock()
        self._on_change = on_change or (lambda _: None)
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._settled = asyncio.Event()
        self._stop = asyncio.Event()
        self.failures = 0
        """Failures in a row; a notice is shown for the first (``fresh_failure``), not for each retry."""
        self._crashed = False
        self._retry_at_ms = 0
        self._retry: asyncio.Task[None] | None = None
        self._relisting: asyncio.Task[None] | None = None
        self._stale = False
        self._stderr: Path | None = None
        self._kept_tail: dict[Path | None, str] = {}  # the last ended attempt's stderr tail, by its file

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> None:
        """Start unless running, starting, or waiting out its backoff after a failure."""
        previous = self._task
        if previous is not None and not previous.done() and not self._stop.is_set():
            return
        if self.state is McpState.FAILED and self._clock.now_ms() < self._retry_at_ms:
            return
        self._settled = asyncio.Event()
        self._stop = asyncio.Event()
        self._set(McpState.STARTING, None)
        self._task = asyncio.get_running_loop().create_task(self._run(previous), name=f"mcp:{self.name}")

    @property
    def worth_waiting(self) -> bool:
        """Starting for the first time, or restarting at once after a crash: a step or call waits for
        it. A server known to fail is retried in the background and never waited for again."""
        return self.state is McpState.STARTING and (self.failures == 0 or (self.failures == 1 and self._crashed))

    async def settled(self) -> None:
        """Wait until the current start attempt is ready or failed (it is bounded by its timeouts)."""
        if self.state is McpState.STARTING:
            await self._settled.wait()

    async def relisted(self) -> None:
        """Wait for a relisting the server asked for (bounded by ``list_timeout_s``), so the next step
        offers the tools (and lists the resources) it lists now, and watches the mentioned resources again."""
        helpers = (self._relisting, self._resources_listing, self.watch.rewatching)
        pending: list[asyncio.Task[Any]] = [t for t in helpers if t is not None and not t.done()]
        if pending:
            await asyncio.wait(pending)

    async def stop(self) -> None:
        self._stop.set()
        self.watch.stop()
        for helper in (self._retry, self._relisting, self._announcing, self._resources_listing):
            if helper is not None and not helper.done():
                helper.cancel()
        task = self._task
        if task is not None and not task.done() and self.state is McpState.STARTING:
            task.cancel()  # nothing to close politely yet; the SDK's context still ends the process
        if task is not None and not task.done():
            _, pending = await asyncio.wait([task], timeout=self.config.startup_timeout_s)
            for late in pending:  # a server that will not close: cancel its context (the SDK kills the tree)
                late.cancel()
        if self.state is not McpState.FAILED:
            self._set(McpState.STOPPED, None)

    def _set(self, state: McpState, error: str | None) -> None:
        self.state, self.error = state, error
        self._on_change(self)

    async def _run(self, previous: asyncio.Task[None] | None) -> None:
        settled, stop = self._settled, self._stop  # this attempt's: a restart makes new ones
        ended = asyncio.Event()
        if previous is not None:  # a failed run still closing its server: let it finish first
            await asyncio.wait([previous])
        client = None
        try:
            async with AsyncExitStack() as stack:
                try:
                    async with asyncio.timeout(self.config.startup_timeout_s):
                        client = await self._connect(stack, ended.set)
                except TimeoutError:
                    await self._failed(f"did not start within {self.config.startup_timeout_s:g} s", stop)
                    return
                except SandboxUnavailable as error:  # nothing ran: no earlier attempt's stderr belongs to it
                    self._stderr = None
                    await self._failed(f"failed to start: {error}", stop)
                    return
                except Exception as error:  # noqa: BLE001 - any start failure is one notice
                    if isinstance(_innermost(error), AuthUnavailable):  # its own words: they say what to do
                        await self._failed(f"failed to start: {_innermost(error)}", stop)
                        return
                    exited = self.config.command is not None and _is_closed(error)
                    await self._failed(
                        "failed to start: " + ("the process exited before the handshake" if exited else _reason(error)),
                        stop,
                    )
                    return
                if not await self._list(client, stop):
                    return
                self._client = client
                self.instructions = (client.instructions or "").strip() or None
                await self._list_resources(client)
                self.watch.connected(client, _resource_capability(client, "subscribe"))
                self._set(McpState.READY, None)
                settled.set()
                listening = asyncio.get_running_loop().create_task(self._listen(client))
                try:
                    await _first_of(stop.wait(), ended.wait())
                finally:
                    listening.cancel()
                    await asyncio.gather(listening, return_exceptions=True)
                if not stop.is_set():  # its output ended while nobody was calling it: the process is gone
                    await self._failed("exited", stop, crashed=True)
        except Exception as error:  # noqa: BLE001 - a failure while closing the SDK's context
            if self.state is not McpState.FAILED and self._stop is stop:
                await self._failed(f"stopped with an error: {_reason(error)}", stop)
        finally:
            if self._client is client:
                self._client = None
            settled.set()

    async def _keep_stderr_tail(self, path: Path) -> None:
        """What a dying server last said outlives its stderr file: the attempt's clean-up may
        remove the file before the call that saw the death reads it (a race a loaded machine won)."""
        self._kept_tail = {path: await asyncio.to_thread(_stderr_tail, path)}

    async def _connect(self, stack: AsyncExitStack, on_end: Callable[[], None]) -> Any:
        from mcp import Client
        from mcp.types import Implementation

        if self.config.command is not None:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            cwd = self.location / (Path(self.config.cwd).expanduser() if self.config.cwd else self.location)
            command, *args = server_argv(self.config.command, cwd, self.sandbox)
            errlog = await asyncio.to_thread(_open_stderr_file, self.name)
            stack.callback(errlog.close)
            self._stderr = Path(errlog.name)
            stack.callback(_unlink, self._stderr)
            stack.push_async_callback(self._keep_stderr_tail, self._stderr)  # before the unlink (LIFO)
            params = StdioServerParameters(
                command=command, args=args, cwd=str(cwd), env=server_environment(self.config)
            )
            transport = watched(stdio_client(params, errlog=errlog), on_end)
        elif self.config.transport == "sse":
            from mcp.client.sse import sse_client

            auth = await asyncio.to_thread(connection_auth, self.name, self.config, self.tokens)
            transport = sse_client(
                self.config.url or "", headers=self.config.headers, timeout=self.config.timeout_s, auth=auth
            )
        else:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            auth = await asyncio.to_thread(connection_auth, self.name, self.config, self.tokens)
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=self.config.headers, timeout=self.config.timeout_s, auth=auth)
            )
            transport = streamable_http_client(self.config.url or "", http_client=http)
        client = Client(
            transport,
            client_info=Implementation(name=CLIENT_NAME, version=__version__),
            message_handler=self._on_message,
            list_roots_callback=self._list_roots,
            logging_callback=self._on_log,
            elicitation_callback=self._elicit,
            sampling_callback=self._sample if self.config.sampling else None,  # None: not declared
            log_level=LOG_LEVEL,
            cache=None,
        )
        return await stack.enter_async_context(client)

    # -- tools ---------------------------------------------------------------------

    async def _list(self, client: Any, stop: asyncio.Event) -> bool:
        """List the tools (bounded by ``list_timeout_s``); False when that failed the server."""
        try:
            async with asyncio.timeout(self.config.list_timeout_s):
                listed = await list_all(client)
        except TimeoutError:
            await self._failed(f"did not list its tools within {self.config.list_timeout_s:g} s", stop)
            return False
        except Exception as error:  # noqa: BLE001 - the SDK raises MCPError or transport errors
            exited = _is_closed(error)
            await self._failed(
                "exited while listing its tools" if exited else f"failed to list its tools: {_reason(error)}",
                stop,
                crashed=exited,
            )
            return False
        if stop.is_set():
            return False
        self.tools, self.skipped = offered(self.name, listed)
        self.prompts = await self._prompts(client)
        return True

    async def _prompts(self, client: Any) -> list[McpPromptInfo]:
        """Its prompts, when it offers any; a failure to list them costs the prompts, not the server."""
        if getattr(client.server_capabilities, "prompts", None) is None:
            return []
        try:
            async with asyncio.timeout(self.config.list_timeout_s):
                return prompt_infos(self.name, await list_prompts(client))
        except Exception as error:  # noqa: BLE001 - its tools still work
            logging.getLogger(__name__).warning("MCP server %s: prompts not listed: %s", self.name, _reason(error))
            return []

    async def _on_message(self, message: Any) -> None:
        from mcp.types import (
            PromptListChangedNotification,
            ResourceListChangedNotification,
            ResourceUpdatedNotification,
            ToolListChangedNotification,
        )

        if isinstance(message, ToolListChangedNotification | PromptListChangedNotification):
            self.tools_changed()  # the relisting lists the prompts too
        elif isinstance(message, ResourceListChangedNotification):
            self.resources_changed()
        elif isinstance(message, ResourceUpdatedNotification):
            self.watch.updated(str(message.params.uri))

    # -- resources -----------------------------------------------------------------

    async def _list_resources(self, client: Any) -> None:
        """List the resources of a server that offers them (bounded by ``list_timeout_s``); a failed
        listing leaves none listed (reads by URI still work) and is logged, never a failure."""
        self.offers_resources = client.server_capabilities.resources is not None
        if not self.offers_resources:
            self.resources = []
            return
        try:
            async with asyncio.timeout(self.config.list_timeout_s):
                self.resources = await list_resources(client)
        except Exception as error:  # noqa: BLE001 - MCPError, a timeout or a transport error
            logging.getLogger("mcp.servers").info("MCP server %s: resources not listed: %s", self.name, _reason(error))
            self.resources = []

    @property
    def has_resources(self) -> bool:
        """It declared resources and listed some (an SDK server declares the capability with none)."""
        return self.offers_resources and bool(self.resources)

    def resources_changed(self) -> None:
        """The server says its resource list changed: list it again in the background."""
        client = self._client
        if client is None or (self._resources_listing is not None and not self._resources_listing.done()):
            return

        async def relist() -> None:
            await self._list_resources(client)
            self._on_change(self)

        self._resources_listing = asyncio.get_running_loop().create_task(relist(), name=f"mcp-resources:{self.name}")

    async def read_resource(self, uri: str) -> Any:
        """The server's ``ReadResourceResult`` for ``uri``; a server that is down, fails or times out
        raises ``ToolError`` (a read is no reason to restart it)."""
        client = await self._ready_client()
        return await self._asked(
            client.read_resource(uri), f"reading {uri} did not answer within", f"cannot read {uri}"
        )

    # -- the client's side: roots and log messages -----------------------------------

    async def _list_roots(self, context: Any) -> Any:  # noqa: ARG002 - the SDK's ListRootsFnT signature
        from mcp.types import ListRootsResult, Root

        return ListRootsResult(roots=[Root(uri=uri, name=name) for uri, name in listed(self.roots)])  # type: ignore[arg-type]

    def set_roots(self, roots: Iterable[Path]) -> None:
        """New roots (the settings changed); a running server is told, and asks again when it cares."""
        fresh = distinct(roots)
        if fresh == self.roots:
            return
        self.roots = fresh
        client = self._client
        if self.state is McpState.READY and client is not None:
            self._announcing = asyncio.get_running_loop().create_task(
                announce_change(client, self.name), name=f"mcp-roots:{self.name}"
            )

    async def _on_log(self, params: Any) -> None:
        entry = self.log.record(str(params.level), params.data, params.logger)
        if entry.is_error:  # one notice: listeners find it in ``logs`` (each shown once)
            self._on_change(self)

    async def _elicit(self, context: Any, params: Any) -> Any:  # noqa: ARG002 - the SDK's ElicitationFnT
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

    async def _sample(self, context: Any, params: Any) -> Any:  # noqa: ARG002 - the SDK's SamplingFnT
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

    @property
    def logs(self) -> tuple[McpLogEntry, ...]:
        return self.log.entries

    async def _listen(self, client: Any) -> None:
        """A 2026-era server announces a changed tool or resource list only on a ``subscriptions/listen``
        stream (an older one sends the notification unasked); either reaches the same relisting."""
        from mcp.shared.subscriptions import ResourcesListChanged

        tools = getattr(getattr(client.server_capabilities, "tools", None), "list_changed", False)
        resources = _resource_capability(client, "list_changed")
        if not (tools or resources):
            return
        try:
            async with client.listen(tools_list_changed=bool(tools), resources_list_changed=resources) as events:
                async for event in events:
                    if isinstance(event, ResourcesListChanged):
                        self.resources_changed()
                    else:
                        self.tools_changed()
        except Exception as error:  # noqa: BLE001 - an older protocol, or the server went away
            logging.getLogger(__name__).debug("MCP server %s: no list-change stream: %s", self.name, _reason(error))

    def tools_changed(self) -> None:
        """The server says its tools changed: list them again now, so the next step offers them."""
        self._stale = True
        if self._relisting is None or self._relisting.done():
            self._relisting = asyncio.get_running_loop().create_task(self._relist(), name=f"mcp-list:{self.name}")

    async def _relist(self) -> None:
        while self._stale and self.state is McpState.READY and self._client is not None:
            self._stale = False
            if not await self._list(self._client, self._stop):
                return
            self._on_change(self)

    @property
    def fresh_failure(self) -> bool:
        return self.state is McpState.FAILED and self.failures == 1

    async def _failed(self, reason: str, stop: asyncio.Event, crashed: bool = False) -> bool:
        """Fail the attempt ``stop`` belongs to, once (a call and the watch may both see one death);
        stop it and retry in the background after the backoff. False when it had already ended."""
        if stop.is_set():
            return False
        stop.set()
        self.failures += 1
        self._crashed = crashed
        delay_ms = backoff_ms(self.failures, crashed)
        self._retry_at_ms = self._clock.now_ms() + delay_ms
        tail = await asyncio.to_thread(_stderr_tail, self._stderr) or self._kept_tail.get(self._stderr, "")
        self.tools, self.skipped, self._client = [], (), None
        self.offers_resources, self.resources = False, []
        self.watch.disconnected()
        self.last_error = reason + (f"\n{tail}" if tail else "")
        self._set(McpState.FAILED, self.last_error)
        self._settled.set()
        if self._retry is None or self._retry.done():
            self._retry = asyncio.get_running_loop().create_task(self._retry_after(delay_ms / 1000))
        return True

    async def _retry_after(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        if self.state is McpState.FAILED:
            self.start()

    # -- calls ---------------------------------------------------------------------

    async def _ready_client(self) -> Any:
        """The client of a ready server, starting it (and waiting, when worth it) if it is not."""
        if self.state is not McpState.READY:
            self.start()
            if self.worth_waiting:
                await self.settled()
        client = self._client
        if self.state is not McpState.READY or client is None:
            why = self.error or (
                f"{self.state.value} again after: {self.last_error}" if self.last_error else self.state.value
            )
            raise ToolError(f"MCP server {self.name} is not running: {why}.")
        return client

    async def _asked(self, request: Awaitable[Any], late: str, failed: str) -> Any:
        """A request the user waits on (a read, a prompt), within the call timeout; a server that is
        slow or fails raises ``ToolError`` with ``late``/``failed`` and the reason (no restart: one
        request is no reason to restart a server)."""
        try:
            async with asyncio.timeout(self.config.timeout_s):
                return await request
        except TimeoutError:
            raise ToolError(f"MCP server {self.name}: {late} {self.config.timeout_s:g} s.") from None
        except Exception as error:  # noqa: BLE001 - the SDK raises MCPError or transport errors
            raise ToolError(f"MCP server {self.name}: {failed}: {_reason(error)}") from None

    async def prompt(self, name: str, arguments: dict[str, str]) -> str:
        """The prompt's expansion (``prompts/get``) as text; raises ``ToolError`` with the server's reason."""
        client = await self._ready_client()
        result = await self._asked(
            client.get_prompt(name, arguments), f"prompt {name} did not come within", f"prompt {name} failed"
        )
        return expansion(result)

    async def complete(
        self, prompt: str, argument: str, value: str, context: dict[str, str] | None = None
    ) -> list[str]:
        """The server's completions of a prompt argument's value (``completion/complete``); none when it offers none."""
        from mcp.types import PromptReference

        client = self._client
        if client is None or getattr(client.server_capabilities, "completions", None) is None:
            return []
        try:
            async with asyncio.timeout(self.config.list_timeout_s):
                result = await client.complete(
                    PromptReference(name=prompt), {"name": argument, "value": value}, context
                )
        except Exception as error:  # noqa: BLE001 - completion is a convenience: no values
            logging.getLogger(__name__).debug("MCP server %s: no completion: %s", self.name, _reason(error))
            return []
        return [str(v) for v in result.completion.values]

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        on_progress: Callable[[str], None] | None = None,
        elicit: Elicit | None = None,
        sample: Sample | None = None,
    ) -> Any:
        """The server's ``CallToolResult``; a server that is down, dies or times out raises ``ToolError``.
        Each progress notification of the call reaches ``on_progress`` as one line; a question the
        server asks meanwhile goes to ``elicit``, a sampling request to ``sample`` (None: declined).
        The call's time limit does not run while the user is being asked."""
        client = await self._ready_client()
        stop = self._stop
        limit = self.config.timeout_s
        deadline = asyncio.timeout(limit)
        asker = _Asker(elicit, sample, deadline) if elicit is not None or sample is not None else None
        if asker is not None:
            self._askers.append(asker)
        try:
            async with deadline:
                result = await client.call_tool(
                    tool, arguments, progress_callback=progress_callback(on_progress) if on_progress else None
                )
        except TimeoutError:
            await self._failed(f"did not answer {tool} within {limit:g} s", stop)
            raise ToolError(
                f"MCP server {self.name}: {tool} did not answer within {limit:g} s; the server is restarted."
            ) from None
        except Exception as error:  # noqa: BLE001 - the SDK raises MCPError or transport errors
            if stop.is_set() or _is_closed(error):
                await self._failed(f"exited during {tool}", stop, crashed=True)
                raise ToolError(
                    f"MCP server {self.name} exited during {tool}: {self.last_error or 'stopped'}"
                ) from None
            raise ToolError(f"MCP server {self.name}: {tool} failed: {_reason(error)}") from None
        finally:
            if asker is not None:
                self._askers.remove(asker)
                for asking in asker.asking:  # its questions end with it
                    asking.cancel()
        self.failures = 0
        return result


def _resource_capability(client: Any, flag: str) -> bool:
    resources = getattr(client.server_capabilities, "resources", None)
    return bool(getattr(resources, flag, False))


class _Asker:
    """A call that can ask the user: its ``elicit`` and ``sample``, its time limit (paused while asking),
    its open questions."""

    def __init__(self, elicit: Elicit | None, sample: Sample | None, deadline: asyncio.Timeout) -> None:
        self.elicit = elicit
        self.sample = sample
        self.deadline = deadline
        self.asking: set[asyncio.Future[Any]] = set()


async def _first_of(*waits: Any) -> None:
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


def _open_stderr_file(name: str) -> Any:
    return tempfile.NamedTemporaryFile("w+", prefix=f"agent-tui-mcp-{name}-", suffix=".log", delete=False)


def _unlink(path: Path) -> None:
    path.unlink(missing_ok=True)


def _innermost(error: BaseException) -> BaseException:
    """The SDK's anyio task groups wrap a failure in exception groups: the first leaf says what happened."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _is_closed(error: BaseException) -> bool:
    inner = _innermost(error)
    return "closed" in str(inner).lower() or type(inner).__name__ in {
        "ClosedResourceError",
        "BrokenResourceError",
        "EndOfStream",
    }


def _reason(error: BaseException) -> str:
    inner = _innermost(error)
    text = str(inner).strip()
    return f"{type(inner).__name__}: {text}" if text else type(inner).__name__
