"""Who may use the page: the token, the Host and Origin checks, and the security headers of every answer.

ASGI middleware, so that the same rules cover HTTP requests and the WebSocket feed:

* **Token.** When the server listens beyond the loopback address it has a token; every request must
  carry it, as ``?token=…``, an ``Authorization: Bearer …`` header, or the cookie set when the page was
  opened with ``?token=…`` (HttpOnly, SameSite=Strict, kept a year and renewed whenever the page is
  opened, so that a phone's bookmark of the page goes on working; ``POST /api/v1/forget`` drops it).
  Otherwise 401: for the page itself a short page saying how to get in, for the rest JSON.
* **Host.** Without a token (loopback only) the ``Host`` header must name the loopback address, so that a
  web site cannot reach the page by pointing its own name at 127.0.0.1 (DNS rebinding). Otherwise 403.
* **Origin.** A request that says where it comes from (browsers do for POSTs and WebSockets) must come
  from the page itself. Otherwise 403. Together with POSTs that must be JSON (which a cross-site form
  cannot send without a CORS preflight, and no CORS is answered) this stops cross-site requests.
* **Headers.** A strict Content-Security-Policy (scripts, styles, images and connections from the page
  itself; inline style attributes only, which python-chess's SVG pictures use), no framing, no sniffing,
  no referrer (the token must not leak in one).
"""

from __future__ import annotations

import html
import secrets
from collections.abc import Iterable
from typing import Final
from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from ..i18n import PSEUDO, _, current_language

COOKIE: Final = "chessatron_token"
#: How long a browser keeps the token (a year), renewed each time the page is opened.
COOKIE_MAX_AGE_S: Final = 365 * 24 * 3600
LOOPBACK_HOSTS: Final = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
#: WebSocket close code for a refused connection where the server cannot answer with an HTTP status.
CLOSE_POLICY: Final = 1008

CONTENT_SECURITY_POLICY: Final = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "style-src-elem 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS: Final = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
}


def host_name(host_header: str) -> str:
    """The name in a ``Host`` header, without its port.

    >>> host_name("127.0.0.1:8960"), host_name("[::1]:8960"), host_name("LocalHost")
    ('127.0.0.1', '::1', 'localhost')
    """
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def notice_page(title: str, message: str) -> str:
    """A page of its own, without script or style, for a browser that cannot have the real one."""
    text = html.escape(message[:1].upper() + message[1:])
    language = "en" if current_language() == PSEUDO else current_language()
    return (
        f'<!DOCTYPE html>\n<html lang="{language}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><title>chessatron</title></head>'
        f"<body><h1>{html.escape(title)}</h1><p>{text}.</p></body></html>\n"
    )


def token_of(connection: HTTPConnection) -> str | None:
    """The token a request carries (query, bearer header or cookie), None if none."""
    query = connection.query_params.get("token")
    if query:
        return query
    scheme, _space, value = connection.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return connection.cookies.get(COOKIE) or None


class Guard:
    """Refuses requests without the token, from a foreign Host (when there is no token) or Origin."""

    def __init__(self, app: ASGIApp, *, token: str | None, hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.token = token
        self.hosts = LOOPBACK_HOSTS | {host_name(h) for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        refusal = self.refusal(connection)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message = refusal
        response: Response = JSONResponse({"error": message}, status, headers=SECURITY_HEADERS)
        if scope["type"] == "http" and scope.get("path") == "/" and status == 401:
            # someone opening the page (a bookmark whose cookie has gone): words, not JSON
            response = HTMLResponse(
                notice_page(_("This page needs its link"), message), status, headers=SECURITY_HEADERS
            )
        if status == 401:
            response.headers["www-authenticate"] = 'Bearer realm="chessatron"'
        if scope["type"] == "http":
            await response(scope, receive, send)
            return
        websocket = WebSocket(scope, receive, send)
        if "websocket.http.response" in scope.get("extensions", {}):
            await websocket.send_denial_response(response)
        else:
            # a close frame's reason is at most 123 bytes of UTF-8 (accents take two)
            await websocket.close(CLOSE_POLICY, message.encode()[:120].decode(errors="ignore"))

    def refusal(self, connection: HTTPConnection) -> tuple[int, str] | None:
        """``(status, message)`` for a request that must be refused, else None."""
        host = host_name(connection.headers.get("host", ""))
        if self.token is None and host not in self.hosts:
            return 403, _(
                "this page answers only on the loopback address, not {host!r}; open "
                "http://127.0.0.1:PORT/, or start `chessatron serve --host` to listen on the network"
            ).format(host=host[:60])
        origin = connection.headers.get("origin")
        if origin is not None and origin != "null":
            parts = urlsplit(origin)
            if parts.netloc.lower() != connection.headers.get("host", "").lower():
                return 403, _("requests from other pages ({origin!r}) are refused").format(origin=origin[:60])
        elif origin == "null":
            return 403, _("requests from other pages ('null' origin) are refused")
        if self.token is not None:
            given = token_of(connection)
            if given is None:
                return 401, _(
                    "this page needs its token: open the link `chessatron serve` printed (…/?token=…), or "
                    "scan the QR code it shows; the page then remembers it in this browser for a year"
                )
            if not secrets.compare_digest(given.encode(), self.token.encode()):
                return 401, _("wrong token: open the link `chessatron serve` printed (…/?token=…)")
        return None


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` (and ``Cache-Control: no-store`` for the API) to every answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = str(scope.get("path", "")).startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
                if api:
                    headers["cache-control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)
