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

The client's side of the protocol (``client_callbacks``): it answers
``roots/list`` with the folders it was given (``set_roots`` changes them),
keeps what the server logs, and hands a server's question or sampling request
during a call to that call's ``elicit`` or ``sample``. A call's progress goes
to the caller (``progress``).
Resources: the listing is kept (``resources``, listed again when the server says
it changed), reads go through ``read_resource``, and a mentioned resource is
watched for changes where the server offers it (``resource_watch``).
It lists the server's prompts and expands one on request (``prompts``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, Final

from agent_tui import __version__
from agent_tui.tools.errors import ToolError
from agent_tui.tools.mcp.client_callbacks import CLIENT_NAME, ClientCallbacks, Elicit, Sample
from agent_tui.tools.mcp.confined import SandboxUnavailable
from agent_tui.tools.mcp.failure_reasons import innermost, is_closed, reason_of
from agent_tui.tools.mcp.listing import McpToolInfo, list_all, offered
from agent_tui.tools.mcp.oauth import AuthUnavailable
from agent_tui.tools.mcp.progress import progress_callback
from agent_tui.tools.mcp.prompts import McpPromptInfo, expansion, offered_prompts
from agent_tui.tools.mcp.resource_watch import ResourceWatch
from agent_tui.tools.mcp.resources import McpResourceInfo, listed_within, resource_capability
from agent_tui.tools.mcp.roots import announce_change, distinct
from agent_tui.tools.mcp.server_log import McpLogEntry, ServerLog
from agent_tui.tools.mcp.token_store import TokenStore
from agent_tui.tools.mcp.transport import ServerStderr, open_transport
from agent_tui.tools.sandbox import SandboxPolicy
from agent_tui.vocab.clock import Clock, SystemClock
from agent_tui.vocab.kinds import McpState
from agent_tui.vocab.mcp_server import McpServerConfig

BACKOFF_BASE_MS = 1_000
BACKOFF_CAP_MS = 60_000
LOG_LEVEL: Final = "info"
"""The least a server is asked to log (a 2026-era server sends nothing without this opt-in)."""


def backoff_ms(failures: int, crashed: bool = False) -> int:
    """Wait before the next start after ``failures`` failures in a row: 1 s, 2 s, 4 s … 60 s. A server
    that died after it was ready restarts at once the first time (``crashed``): the next call needs it."""
    steps = failures - 1 if crashed else failures
    if steps <= 0:
        return 0
    return min(BACKOFF_BASE_MS * (1 << (steps - 1)), BACKOFF_CAP_MS)


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
        self._clock = clock or SystemClock()
        self._on_change = on_change or (lambda _: None)
        self.callbacks = ClientCallbacks(
            name,
            config,
            self.log,
            roots,
            on_tools_changed=self.tools_changed,
            on_resources_changed=self.resources_changed,
            on_resource_updated=self.watch.updated,
            on_error_logged=lambda: self._on_change(self),
        )
        """What the client answers the server: its roots, its log, its questions and sampling requests."""
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
        self.stderr = ServerStderr(name)
        """A stdio server's stderr, whose tail a failure notice quotes."""

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
                    self.stderr.forget()
                    await self._failed(f"failed to start: {error}", stop)
                    return
                except Exception as error:  # noqa: BLE001 - any start failure is one notice
                    if isinstance(innermost(error), AuthUnavailable):  # its own words: they say what to do
                        await self._failed(f"failed to start: {innermost(error)}", stop)
                        return
                    exited = self.config.command is not None and is_closed(error)
                    await self._failed(
                        "failed to start: "
                        + ("the process exited before the handshake" if exited else reason_of(error)),
                        stop,
                    )
                    return
                if not await self._list(client, stop):
                    return
                self._client = client
                self.instructions = (client.instructions or "").strip() or None
                await self._list_resources(client)
                self.watch.connected(client, resource_capability(client, "subscribe"))
                self._set(McpState.READY, None)
                settled.set()
                listening = asyncio.get_running_loop().create_task(self.callbacks.listen(client))
                try:
                    await _first_of(stop.wait(), ended.wait())
                finally:
                    listening.cancel()
                    await asyncio.gather(listening, return_exceptions=True)
                if not stop.is_set():  # its output ended while nobody was calling it: the process is gone
                    await self._failed("exited", stop, crashed=True)
        except Exception as error:  # noqa: BLE001 - a failure while closing the SDK's context
            if self.state is not McpState.FAILED and self._stop is stop:
                await self._failed(f"stopped with an error: {reason_of(error)}", stop)
        finally:
            if self._client is client:
                self._client = None
            settled.set()

    async def _connect(self, stack: AsyncExitStack, on_end: Callable[[], None]) -> Any:
        from mcp import Client
        from mcp.types import Implementation

        transport = await open_transport(
            stack,
            self.name,
            self.config,
            self.location,
            sandbox=self.sandbox,
            tokens=self.tokens,
            stderr=self.stderr,
            on_end=on_end,
        )
        client = Client(
            transport,
            client_info=Implementation(name=CLIENT_NAME, version=__version__),
            **self.callbacks.sdk_callbacks(),
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
            exited = is_closed(error)
            await self._failed(
                "exited while listing its tools" if exited else f"failed to list its tools: {reason_of(error)}",
                stop,
                crashed=exited,
            )
            return False
        if stop.is_set():
            return False
        self.tools, self.skipped = offered(self.name, listed)
        self.prompts = await offered_prompts(client, self.name, self.config.list_timeout_s)
        return True

    # -- resources -----------------------------------------------------------------

    async def _list_resources(self, client: Any) -> None:
        """List the resources of a server that offers them (bounded by ``list_timeout_s``); a failed
        listing leaves none listed (reads by URI still work) and is logged, never a failure."""
        self.offers_resources = client.server_capabilities.resources is not None
        self.resources = (
            await listed_within(client, self.name, self.config.list_timeout_s) if self.offers_resources else []
        )

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

    def set_roots(self, roots: Iterable[Path]) -> None:
        """New roots (the settings changed); a running server is told, and asks again when it cares."""
        fresh = distinct(roots)
        if fresh == self.callbacks.roots:
            return
        self.callbacks.roots = fresh
        client = self._client
        if self.state is McpState.READY and client is not None:
            self._announcing = asyncio.get_running_loop().create_task(
                announce_change(client, self.name), name=f"mcp-roots:{self.name}"
            )

    @property
    def logs(self) -> tuple[McpLogEntry, ...]:
        return self.log.entries

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
        tail = await self.stderr.tail()
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
            raise ToolError(f"MCP server {self.name}: {failed}: {reason_of(error)}") from None

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
            logging.getLogger(__name__).debug("MCP server %s: no completion: %s", self.name, reason_of(error))
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
        with self.callbacks.asking(elicit, sample, deadline):  # its questions end with it
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
                if stop.is_set() or is_closed(error):
                    await self._failed(f"exited during {tool}", stop, crashed=True)
                    raise ToolError(
                        f"MCP server {self.name} exited during {tool}: {self.last_error or 'stopped'}"
                    ) from None
                raise ToolError(f"MCP server {self.name}: {tool} failed: {reason_of(error)}") from None
        self.failures = 0
        return result


async def _first_of(*waits: Any) -> None:
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
