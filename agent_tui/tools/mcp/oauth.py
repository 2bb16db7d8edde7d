"""OAuth 2.1 for remote MCP servers: ``agent-tui mcp login`` and the stored login a connection sends.

The SDK's ``OAuthClientProvider`` (an ``httpx2.Auth``) does the protocol: on a 401 it discovers the
protected resource metadata (RFC 9728, from ``WWW-Authenticate`` or the well-known URL) and the
authorization server's (RFC 8414), registers a client (RFC 7591), sends the user to the
authorization URL with PKCE (S256) and a state, exchanges the code, and refreshes an expired
token before a request. This module gives it what the SDK leaves to the host:

- ``login``: a loopback listener on 127.0.0.1 (a random port) the browser is sent back to, the
  authorization URL printed (and a browser opened where there is one), a bounded wait for the code.
  It connects once with the new tokens, so a login that does not let the client in fails here.
- ``connection_auth``: the provider a connection uses, loaded from the ``token_store`` record
  (tokens, expiry, client registration, the metadata that names the token endpoint). It runs its
  own flow instead of the SDK's interactive one: refresh a token that is due; on a 401 (a token
  revoked before its recorded expiry, a skewed clock) refresh once and retry once; both under the
  store's ``RenewalLock``, re-reading the record first, so tokens another process has just rotated
  are adopted, never refreshed again with a spent refresh token. What cannot be fixed that way
  raises ``LoginNeeded``, naming ``agent-tui mcp login NAME``.

The SDK is imported inside functions only (``tests/test_layering.py``), as in ``connection``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from agent_tui import __version__
from agent_tui.tools.mcp.token_store import Record, TokenStore
from agent_tui.vocab.mcp_server import McpServerConfig

LOGIN_TIMEOUT_S = 300.0
"""How long ``login`` waits for the browser to come back with the code."""
REFRESH_MARGIN_S = 60.0
"""An access token this close to its end is refreshed before it is sent (at most a tenth of its life)."""
CALLBACK_PATH = "/callback"


class AuthUnavailable(Exception):
    """A remote server cannot be authenticated to; the message says why and what to do (never the secret)."""


class LoginNeeded(AuthUnavailable):
    """The server needs a login this process cannot do by itself; the message names the command."""


class LoginFailed(Exception):
    """``agent-tui mcp login`` did not end with working tokens; the message says why."""


def login_hint(name: str) -> str:
    return f"run `agent-tui mcp login {name}`"


def auth_state(record: Record | None, config: McpServerConfig, now: float | None = None) -> str:
    """How the server authenticates, for ``mcp list/get`` (never the secret)."""
    if config.bearer_token_env_var:
        return f"bearer from ${config.bearer_token_env_var}"
    if config.transport == "stdio" or any(key.lower() == "authorization" for key in config.headers):
        return ""  # a process, or a server given its Authorization header as written
    if record is None or record.get("url") != config.url or not record.get("tokens"):
        return "not logged in"
    expires_at = record.get("expires_at")
    if expires_at is not None and float(expires_at) <= (now or time.time()):
        refreshable = bool(record["tokens"].get("refresh_token"))
        return "expired (refreshed at the next connection)" if refreshable else "expired"
    return "logged in (OAuth)"


def _usable(record: Record | None, config: McpServerConfig) -> bool:
    return record is not None and record.get("url") == config.url and bool(record.get("tokens"))


class _RecordStorage:
    """The SDK's ``TokenStorage`` over one store record: what the provider learns is saved at once
    (a refresh's new tokens too), with the absolute expiry the SDK does not keep."""

    def __init__(self, store: TokenStore, name: str, url: str, record: Record | None) -> None:
        self.store, self.name = store, name
        self.record: Record = dict(record) if record else {"url": url}

    def _save(self) -> None:
        self.store.save(self.name, self.record)

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        tokens = self.record.get("tokens")
        return OAuthToken.model_validate(tokens) if tokens else None

    async def set_tokens(self, tokens: Any) -> None:
        self.record["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        self.record["expires_at"] = time.time() + tokens.expires_in if tokens.expires_in else None
        await asyncio.to_thread(self._save)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        info = self.record.get("client")
        return OAuthClientInformationFull.model_validate(info) if info else None

    async def set_client_info(self, client_info: Any) -> None:
        self.record["client"] = client_info.model_dump(mode="json", exclude_none=True)
        await asyncio.to_thread(self._save)


def _provider(
    name: str, url: str, storage: _RecordStorage, redirect_uri: str, on_url: Any, on_code: Any, stored: bool = False
) -> Any:
    """The SDK's provider, which also restores what a refresh needs from the record (the SDK
    keeps the expiry and the discovered metadata only in memory). ``stored``: a connection's
    stored login, which refreshes (on a 401 too) but never starts a login."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata, OAuthMetadata, ProtectedResourceMetadata

    class StoredLoginProvider(OAuthClientProvider):
        async def _initialize(self) -> None:
            await super()._initialize()
            record = storage.record
            expires_at, lifetime = record.get("expires_at"), (record.get("tokens") or {}).get("expires_in")
            if expires_at is not None:
                margin = min(REFRESH_MARGIN_S, float(lifetime or 0) / 10)
                self.context.token_expiry_time = float(expires_at) - margin
            if record.get("authorization_server"):
                self.context.oauth_metadata = OAuthMetadata.model_validate(record["authorization_server"])
            if record.get("protected_resource"):
                resource = ProtectedResourceMetadata.model_validate(record["protected_resource"])
                self.context.protected_resource_metadata = resource
                self.context.auth_server_url = str(resource.authorization_servers[0])

    metadata = OAuthClientMetadata(
        client_name=f"agent-tui {__version__} ({name})",
        redirect_uris=[redirect_uri],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    kind = _renewing(StoredLoginProvider, name, url, storage) if stored else StoredLoginProvider
    return kind(url, metadata, storage, redirect_handler=on_url, callback_handler=on_code)


def _renewing(base: Any, name: str, url: str, storage: _RecordStorage) -> Any:
    """``base`` (the provider restoring the record) with the stored login's flow instead of the SDK's."""
    from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER

    class RenewingProvider(base):  # type: ignore[misc]
        """The stored login's flow: send the token; refresh when due or refused; retry once."""

        async def _auth_flow(self, request: Any) -> Any:
            async with self.context.lock:
                if not self._initialized:
                    await self._initialize()
                self.context.protocol_version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
                refused: str | None = None  # the access token the server answered 401 to
                for _ in range(2):
                    if refused is not None or not self.context.is_token_valid():
                        async with storage.store.renewal_lock():
                            if not await self._adopt_newer(refused):
                                if not self.context.can_refresh_token():
                                    raise LoginNeeded(_expired(name))
                                refresh_response = yield await self._refresh_token()
                                if not await self._handle_refresh_response(refresh_response):
                                    raise LoginNeeded(_expired(name))
                    self._add_auth_header(request)
                    response = yield request
                    if response.status_code != 401:
                        return
                    refused = self.context.current_tokens.access_token if self.context.current_tokens else ""
                raise LoginNeeded(_expired(name))

        async def _adopt_newer(self, refused: str | None) -> bool:
            """Take the record's tokens when another process stored newer ones than those held
            (or than the one just refused): True when they are usable as they are."""
            record = await asyncio.to_thread(storage.store.load, name)
            if record is None or record.get("url") != url or not record.get("tokens") or record == storage.record:
                return False
            held = (self.context.current_tokens.access_token if self.context.current_tokens else None, refused)
            if record["tokens"].get("access_token") in held:
                return False
            storage.record = dict(record)
            await self._initialize()
            return bool(self.context.is_token_valid())

    return RenewingProvider


def _expired(name: str) -> str:
    return f"the login has expired or was refused and could not be refreshed: {login_hint(name)}"


def connection_auth(name: str, config: McpServerConfig, store: TokenStore | None) -> Any:
    """The ``httpx2.Auth`` a connection to a remote server sends with each request: the token from
    ``bearer_token_env_var``, else the stored login (refreshed when due), else nothing, with a 401
    turned into the reason and the command that fixes it. Raises ``AuthUnavailable`` when the
    variable is unset or empty (an empty ``Authorization`` header is never sent)."""
    if config.bearer_token_env_var:
        token = os.environ.get(config.bearer_token_env_var, "").strip()
        if not token:
            raise AuthUnavailable(
                f"bearer_token_env_var: ${config.bearer_token_env_var} is not set or empty "
                f"(set it to the token for MCP server {name})"
            )
        refused = f"the server refused the token from ${config.bearer_token_env_var} (HTTP 401)"
        return _gate(token, refused)
    record = store.load(name) if store is not None and config.url is not None else None
    if store is None or config.url is None or not _usable(record, config):
        return _gate(None, f"the server wants a login (HTTP 401): {login_hint(name)}")
    storage = _RecordStorage(store, name, config.url, record)

    async def cannot_ask(_: str) -> None:
        raise LoginNeeded(_expired(name))

    async def no_code() -> Any:
        raise LoginNeeded(login_hint(name))

    return _provider(name, config.url, storage, f"http://127.0.0.1{CALLBACK_PATH}", cannot_ask, no_code, stored=True)


def _gate(token: str | None, refused: str) -> Any:
    """An ``httpx2.Auth`` sending ``token`` as a bearer (when given) that turns a 401 into ``AuthUnavailable(refused)``."""
    import httpx2

    class BearerGate(httpx2.Auth):
        def auth_flow(self, request: Any) -> Any:
            if token is not None:
                request.headers["Authorization"] = f"Bearer {token}"
            response = yield request
            if response.status_code == 401:
                raise AuthUnavailable(refused)

    return BearerGate()


class _Callback:
    """The loopback listener: one ``GET /callback?code=…&state=…`` from the browser ends the wait."""

    def __init__(self) -> None:
        self.result: asyncio.Future[dict[str, str]] = asyncio.get_running_loop().create_future()
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            while (await asyncio.wait_for(reader.readline(), 10)).strip():
                pass  # the headers: nothing in them matters
            parts = request_line.split()
            target = urlsplit(parts[1]) if len(parts) >= 2 else urlsplit("/")
            query = {key: values[0] for key, values in parse_qs(target.query).items()}
            if target.path != CALLBACK_PATH or not ("code" in query or "error" in query):
                await _answer(writer, 404, "Not the agent-tui login callback.")
                return
            if "error" in query:
                await _answer(writer, 400, "The login was refused. You can close this tab.")
            else:
                await _answer(writer, 200, "agent-tui is logged in. You can close this tab.")
            if not self.result.done():
                self.result.set_result(query)
        except (OSError, TimeoutError, UnicodeError):
            pass
        finally:
            writer.close()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


async def _answer(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    body = text.encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    head = f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    writer.write(head.encode() + body)
    await writer.drain()


def has_browser() -> bool:
    """A browser can be opened: ``BROWSER`` is set, or there is a display (or it is macOS/Windows)."""
    if os.environ.get("BROWSER"):
        return True
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


async def login(
    name: str,
    config: McpServerConfig,
    store: TokenStore,
    say: Callable[[str], None],
    timeout_s: float = LOGIN_TIMEOUT_S,
) -> None:
    """Log in to the server (the whole flow; ``say`` gets the lines for the user), store the tokens,
    and connect once with them. Raises ``LoginFailed`` with the reason."""
    if config.url is None or config.transport == "stdio":
        raise LoginFailed(f"MCP server {name} is not a remote (url) server: it needs no login")
    if config.bearer_token_env_var:
        raise LoginFailed(f"MCP server {name} takes its token from ${config.bearer_token_env_var}, not from a login")
    callback = _Callback()
    await callback.start()
    storage = _RecordStorage(store, name, config.url, None)  # a login starts afresh: a new registration

    async def show(url: str) -> None:
        say(f"Open this URL to log in to {name}:\n\n  {url}\n")
        if has_browser():
            import webbrowser

            opened = await asyncio.to_thread(webbrowser.open, url)
            say("A browser was opened." if opened else "No browser could be opened: open the URL yourself.")
        say(f"Waiting up to {timeout_s:g} s for the login to finish…")

    async def code() -> Any:
        from mcp.client.auth import AuthorizationCodeResult

        try:
            query = await asyncio.wait_for(asyncio.shield(callback.result), timeout_s)
        except TimeoutError:
            raise LoginFailed(f"no login came back within {timeout_s:g} s") from None
        if "error" in query:
            why = query.get("error_description") or query["error"]
            raise LoginFailed(f"the authorization server refused the login: {why}")
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    provider = _provider(name, config.url, storage, callback.redirect_uri, show, code)
    try:
        await _connect_once(config, provider)
    except Exception as error:  # noqa: BLE001 - discovery, registration, exchange or the connection
        raise _failure(error) from None
    finally:
        await callback.close()
    if not storage.record.get("tokens"):
        raise LoginFailed("the server let the client in without a login: nothing to store")
    await asyncio.to_thread(_keep_metadata, storage, provider.context)


def _failure(error: BaseException) -> LoginFailed:
    inner = _innermost(error)
    if isinstance(inner, LoginFailed):
        return inner
    return LoginFailed(f"{type(inner).__name__}: {inner}".rstrip(": "))


def _keep_metadata(storage: _RecordStorage, context: Any) -> None:
    """Store what the login discovered, which a later refresh needs (the token endpoint, the resource)."""
    if context.oauth_metadata is not None:
        storage.record["authorization_server"] = context.oauth_metadata.model_dump(mode="json", exclude_none=True)
    if context.protected_resource_metadata is not None:
        resource = context.protected_resource_metadata.model_dump(mode="json", exclude_none=True)
        storage.record["protected_resource"] = resource
    storage.store.save(storage.name, storage.record)


async def _connect_once(config: McpServerConfig, auth: Any) -> None:
    """Initialize a session with ``auth`` (the first request's 401 runs the login) and close it."""
    import httpx2
    from mcp import Client
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import Implementation

    info = Implementation(name="agent-tui", version=__version__)
    async with httpx2.AsyncClient(headers=config.headers, timeout=config.timeout_s, auth=auth) as http:
        if config.transport == "sse":
            transport = sse_client(config.url or "", headers=config.headers, timeout=config.timeout_s, auth=auth)
        else:
            transport = streamable_http_client(config.url or "", http_client=http)
        async with Client(transport, client_info=info):
            pass


def _innermost(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    cause = error.__cause__ or error.__context__
    if isinstance(cause, (LoginFailed, AuthUnavailable)):
        return cause
    return error
