"""An MCP server that wants a bearer token, and the OAuth 2.1 authorization server that issues them, in one process.

``python mcp_oauth.py PORT [sse]`` serves on 127.0.0.1:PORT (``sse``: the older SSE transport at
``/sse`` instead of ``/mcp``):

- ``/mcp``: streamable HTTP MCP (the SDK's ``MCPServer`` with ``AuthSettings``): a request without
  a valid token gets 401 with ``WWW-Authenticate: Bearer resource_metadata=…``; the RFC 9728
  metadata is at ``/.well-known/oauth-protected-resource/mcp``. Tool ``whoami`` says which
  token's client called.
- ``/.well-known/oauth-authorization-server`` (RFC 8414), ``/register`` (RFC 7591),
  ``/authorize`` (no login page: it redirects straight back to ``redirect_uri`` with a code, as a
  user who says yes would), ``/token`` (``authorization_code`` with the PKCE S256 check, and
  ``refresh_token``). Access tokens live ``FAKE_OAUTH_TTL`` seconds (default 3600).
- ``FAKE_MCP_BEARER``: a static token the MCP server also accepts (for ``bearer_token_env_var``).
- ``GET /fake/stats``: how many grants of each kind were issued, and the bearer tokens the MCP
  server last saw (tests check what was sent); ``POST /fake/revoke`` forgets every refresh token,
  so the next refresh fails; ``POST /fake/revoke-access`` forgets every access token (a token
  revoked server-side before its expiry), so the next request gets 401.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import sys
import time
from typing import Any
from urllib.parse import urlencode

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 0
TRANSPORT = sys.argv[2] if len(sys.argv) > 2 else "http"
BASE = f"http://127.0.0.1:{PORT}"
ENDPOINT = "/sse" if TRANSPORT == "sse" else "/mcp"
TTL = int(os.environ.get("FAKE_OAUTH_TTL", "3600"))
STATIC = os.environ.get("FAKE_MCP_BEARER", "")

clients: dict[str, dict[str, Any]] = {}
codes: dict[str, dict[str, Any]] = {}
access: dict[str, dict[str, Any]] = {}  # token -> client_id, expires_at
refresh: dict[str, str] = {}  # refresh token -> client_id
stats: dict[str, Any] = {"authorization_code": 0, "refresh_token": 0, "refused_refresh": 0, "seen": []}


class Verifier:
    async def verify_token(self, token: str) -> AccessToken | None:
        stats["seen"].append(token)
        if STATIC and token == STATIC:
            return AccessToken(token=token, client_id="static", scopes=[])
        grant = access.get(token)
        if grant is None or grant["expires_at"] < time.time():
            return None
        return AccessToken(token=token, client_id=grant["client_id"], scopes=[], expires_at=int(grant["expires_at"]))


server = MCPServer(
    "guarded",
    token_verifier=Verifier(),
    auth=AuthSettings(issuer_url=BASE, resource_server_url=f"{BASE}{ENDPOINT}", validate_token_resource=False),  # type: ignore[arg-type]
)


@server.tool()
def whoami() -> str:
    """Which client's token made this call."""
    from mcp.server.auth.middleware.auth_context import get_access_token

    token = get_access_token()
    return f"client: {token.client_id if token else '?'}"


async def metadata(_: Request) -> Response:
    return JSONResponse(
        {
            "issuer": BASE,
            "authorization_endpoint": f"{BASE}/authorize",
            "token_endpoint": f"{BASE}/token",
            "registration_endpoint": f"{BASE}/register",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }
    )


async def register(request: Request) -> Response:
    body = await request.json()
    if not body.get("redirect_uris"):
        return JSONResponse({"error": "invalid_redirect_uri"}, status_code=400)
    client_id = "client-" + secrets.token_hex(4)
    clients[client_id] = body
    return JSONResponse(
        {**body, "client_id": client_id, "token_endpoint_auth_method": "none", "client_id_issued_at": int(time.time())},
        status_code=201,
    )


async def authorize(request: Request) -> Response:
    query = request.query_params
    client = clients.get(query.get("client_id", ""))
    redirect_uri = query.get("redirect_uri", "")
    if client is None or redirect_uri not in client["redirect_uris"]:
        return JSONResponse({"error": "invalid_client"}, status_code=400)
    if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
        return JSONResponse({"error": "invalid_request", "error_description": "PKCE S256 required"}, status_code=400)
    code = secrets.token_urlsafe(16)
    codes[code] = {"client_id": query["client_id"], "challenge": query["code_challenge"], "redirect_uri": redirect_uri}
    return RedirectResponse(f"{redirect_uri}?{urlencode({'code': code, 'state': query.get('state', '')})}", 302)


def _issue(client_id: str, kind: str) -> Response:
    stats[kind] += 1
    token, renewal = "at-" + secrets.token_urlsafe(16), "rt-" + secrets.token_urlsafe(16)
    access[token] = {"client_id": client_id, "expires_at": time.time() + TTL}
    refresh[renewal] = client_id
    return JSONResponse({"access_token": token, "token_type": "Bearer", "expires_in": TTL, "refresh_token": renewal})


async def token(request: Request) -> Response:
    form = await request.form()
    match form.get("grant_type"):
        case "authorization_code":
            grant = codes.pop(str(form.get("code", "")), None)
            if grant is None or grant["client_id"] != form.get("client_id"):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            if grant["redirect_uri"] != form.get("redirect_uri"):
                return JSONResponse({"error": "invalid_grant", "error_description": "redirect_uri"}, status_code=400)
            digest = hashlib.sha256(str(form.get("code_verifier", "")).encode()).digest()
            if base64.urlsafe_b64encode(digest).decode().rstrip("=") != grant["challenge"]:
                return JSONResponse({"error": "invalid_grant", "error_description": "PKCE"}, status_code=400)
            return _issue(grant["client_id"], "authorization_code")
        case "refresh_token":
            client_id = refresh.pop(str(form.get("refresh_token", "")), None)
            if client_id is None or client_id != form.get("client_id"):
                stats["refused_refresh"] += 1
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            return _issue(client_id, "refresh_token")
    return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)


async def fake_stats(_: Request) -> Response:
    return JSONResponse(stats)


async def revoke(_: Request) -> Response:
    refresh.clear()
    return JSONResponse({"revoked": True})


async def revoke_access(_: Request) -> Response:
    access.clear()
    return JSONResponse({"revoked": True})


if __name__ == "__main__":
    import uvicorn

    app = server.sse_app() if TRANSPORT == "sse" else server.streamable_http_app()
    app.router.routes.extend(
        [
            Route("/.well-known/oauth-authorization-server", metadata),
            Route("/register", register, methods=["POST"]),
            Route("/authorize", authorize),
            Route("/token", token, methods=["POST"]),
            Route("/fake/stats", fake_stats),
            Route("/fake/revoke", revoke, methods=["POST"]),
            Route("/fake/revoke-access", revoke_access, methods=["POST"]),
        ]
    )
    uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning")
