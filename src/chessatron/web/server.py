"""Serving the page: ``chessatron serve``, and a server in a thread for tests and the demo.

Safe by default: the server listens on 127.0.0.1; told to listen anywhere else it requires a token (a
random one unless given), printed at start-up as part of the page's link. The game runs in the runner's
own thread, so the server can stop (or the page close) without stopping the game: on Ctrl-C a game that
needs no web player goes on to its end (a second Ctrl-C stops it; it stays saved).
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import re
import secrets
import socket
import threading
import time
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import quote

import uvicorn
from starlette.types import ASGIApp

from ..config import Config
from ..errors import ChessatronError, ConfigError
from ..game.records.store import resolve_games_dir
from ..game.runner import GameRunner
from ..game.telling.announcer import open_announcer
from ..game.telling.live import LiveState
from ..i18n import _
from ..sim.state import default_state_path
from ..termination import raising_on_sigterm
from .app import create_app, missing_widget
from .pictures import link_text

LOGGER = logging.getLogger(__name__)

DEFAULT_PORT: Final = 8960
#: Largest message a page may send over the WebSocket (it sends none that matter).
WS_MAX_BYTES: Final = 64 * 1024
STARTUP_TIMEOUT_S: Final = 10.0
#: Connections waiting to be accepted (uvicorn's own default).
BACKLOG: Final = 2048
SHUTDOWN_GRACE_S: Final = 3

_TOKEN = re.compile(r"[A-Za-z0-9_~.-]{8,128}")


def is_loopback(host: str) -> bool:
    """Whether ``host`` only reaches this machine.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, True, False)
    """
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_token(token: str) -> str:
    """A token given on the command line: 8 to 128 URL-safe characters (it goes into links)."""
    if not _TOKEN.fullmatch(token):
        raise ConfigError(
            _(
                "the token {token!r} must be 8 to 128 letters, digits or -._~; "
                "leave --token out for a random one"
            ).format(token=token[:20])
        )
    return token


def token_path() -> Path:
    """Where ``serve`` keeps its token: beside the simulator's state
    (``~/.local/state/chessatron/web-token``)."""
    return default_state_path().parent / "web-token"


def kept_token(path: Path, *, new: bool = False) -> str:
    """The token kept in ``path``, so that the page's link (and a phone's bookmark of it) stays the same
    from one start to the next; a random one is made and kept (readable by this user only) on first use,
    when the file holds no valid token, or when ``new``. Raises :class:`ChessatronError` when it cannot
    be kept."""
    if not new:
        try:
            text = path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            text = ""
        except (OSError, UnicodeDecodeError) as exc:
            raise ChessatronError(
                _(
                    "cannot read the page's token from {path!r} ({reason}); "
                    "delete the file or pass --new-token"
                ).format(path=str(path), reason=exc)
            ) from exc
        if _TOKEN.fullmatch(text):
            return text
        if text:
            LOGGER.warning("%s holds no valid token; making a new one", path)
    token = secrets.token_urlsafe(16)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as file:
            file.write(token + "\n")
        os.chmod(path, 0o600)  # a file made earlier keeps its mode otherwise
    except OSError as exc:
        raise ChessatronError(
            _("cannot keep the page's token in {path!r} ({reason}); give one with --token").format(
                path=str(path), reason=exc.strerror or exc
            )
        ) from exc
    return token


def page_url(host: str, port: int, token: str | None) -> str:
    """The link people open: a wildcard address becomes this machine's address on the network.

    >>> page_url("127.0.0.1", 8960, None), page_url("::1", 80, "abc")
    ('http://127.0.0.1:8960/', 'http://[::1]:80/?token=abc')
    """
    if host in ("0.0.0.0", "::", ""):
        host = _network_address()
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?token={quote(token)}" if token else "")


def _network_address() -> str:
    """This machine's address on its network (the one a route to the outside would leave from)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # UDP: no packet is sent
            return str(probe.getsockname()[0])
        except OSError:
            return socket.gethostname()


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: any free port); a clear error when it is taken."""
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise ConfigError(
            _("cannot listen on {host!r}: {reason}; give an address of this machine").format(
                host=host, reason=exc.strerror
            )
        ) from exc
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise ChessatronError(
            _("cannot listen on {host}:{port}: {reason}; choose another --port").format(
                host=host, port=port, reason=exc.strerror or exc
            )
        ) from exc
    sock.set_inheritable(True)
    # listening from here on: a client that acts on the printed link before uvicorn has started waits in
    # the backlog instead of being refused
    sock.listen(BACKLOG)
    return sock


class _DenialQuirk(logging.Filter):
    """uvicorn's WebSocket protocol logs an error after a refused connection (a 401 or 403 sent with the
    ASGI denial-response extension, which it did deliver) because no handshake completed; that is the
    refusal working, not a fault."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "ASGI callable returned without completing handshake."


class _BadFrameQuirk(logging.Filter):
    """uvicorn's WebSocket protocol logs a traceback when a page sends a text frame that is not UTF-8,
    though it answers it as it should (it closes that connection with 1007, invalid payload): that is a
    misbehaving page, not a fault of the server, so it is one line at info level, without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage() == "Invalid UTF-8 sequence received from client.":
            record.msg, record.args = (
                "a page sent a WebSocket text frame that is not UTF-8: closed it (1007)",
                (),
            )
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


_UVICORN_ERRORS = logging.getLogger("uvicorn.error")
for _quirk in (_DenialQuirk, _BadFrameQuirk):
    if not any(isinstance(f, _quirk) for f in _UVICORN_ERRORS.filters):
        _UVICORN_ERRORS.addFilter(_quirk())


def _server(app: ASGIApp) -> uvicorn.Server:
    config = uvicorn.Config(
        app,
        log_config=None,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ws_max_size=WS_MAX_BYTES,
        server_header=False,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
    )
    return uvicorn.Server(config)


@dataclass
class ServerHandle:
    """A server running in a thread of its own: ``url`` is the page's link (with its token)."""

    url: str
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop serving (open pages are told the server went away) and wait for the thread."""
        self.server.should_exit = True
        self.thread.join(timeout_s)

    def __enter__(self) -> ServerHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_in_thread(
    app: ASGIApp, host: str = "127.0.0.1", port: int = 0, *, token: str | None = None
) -> ServerHandle:
    """Serve ``app`` from a daemon thread (for tests and ``chessatron demo``); returns once it answers.
    ``port`` 0 picks a free port."""
    sock = bind(host, port)
    server = _server(app)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="chessatron-web", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise ChessatronError(
                _("the web server on {host}:{port} did not start; see the log").format(host=host, port=port)
            )
        time.sleep(0.01)
    return ServerHandle(page_url(host, sock.getsockname()[1], token), server, thread)


def start_watch_page(
    live: LiveState, *, host: str = "127.0.0.1", port: int = 0, language: str | None = None
) -> ServerHandle:
    """A page that only watches ``live`` (its commands answer 409), e.g. beside the demo's terminal view;
    ``language``: the one the table is set to (None: each page follows its browser)."""
    token = None if is_loopback(host) else secrets.token_urlsafe(16)
    app = create_app(
        None, live, token=token, games_dir=resolve_games_dir(None), hosts=(host,), language=language
    )
    return start_in_thread(app, host, port, token=token)


def serve(
    config: Config,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    speed: float | None = 1.0,
    engine_path: str = "stockfish",
    games_dir: Path | None = None,
    token: str | None = None,
    open_browser: bool = False,
    fresh: bool = False,
    new_token: bool = False,
    show_qr: bool = False,
    say: Callable[[str], None] = print,
    config_path: Path | None = None,
    language: str | None = None,
) -> None:
    """``chessatron serve``: the page and its runner until Ctrl-C; then a game that needs no web player
    goes on to its end (a second Ctrl-C stops it, saved for ``chessatron play --resume``). SIGTERM (a
    service being stopped) stops a game at its next move, saved. ``fresh``: on the simulator, forget the
    saved table and start from one set up as delivered. Off the loopback address the token is the one
    kept in :func:`token_path` (``new_token``: a new one, which locks out links with the old one);
    ``show_qr`` prints the link as a QR code too, for a phone's camera; ``config_path`` is the machine
    config the page's settings change (None: they cannot be changed); ``language`` the language the table
    was set to (``--lang``, the config's ``language``), which the page shows unless its person chooses
    another (None: each page follows its browser). What it prints, and a page's words made outside a
    request (the live status, notices), are in the process's language."""
    if token is not None:
        check_token(token)
    elif not is_loopback(host):
        token = kept_token(token_path(), new=new_token)
    directory = resolve_games_dir(games_dir)
    live = LiveState(config.layout)
    sock = bind(host, port)
    try:
        runner = GameRunner(
            config, games_dir=directory, speed=speed, engine_path=engine_path, live=live, fresh=fresh
        )
        # a stop asked for on the page, as what it is
        runner.tell = lambda words: say(_("notice: {words}").format(words=words))
        if config.watcher:  # the training's watcher of a person's moves (off unless the config says)
            from ..training.watcher import MoveWatcher

            runner.session.watcher = MoveWatcher(runner.session, config.watcher_loss)
    except BaseException:
        sock.close()
        raise
    try:
        url = page_url(host, sock.getsockname()[1], token)
        link = url if token is not None else None
        app = create_app(
            runner,
            live,
            token=token,
            games_dir=directory,
            hosts=(host,),
            link=link,
            config_path=config_path,
            language=language,
        )
        server = _server(app)
        problem = missing_widget()
        if problem is not None:
            say(_("warning: {problem}").format(problem=problem))
        say(_("the page: {url}").format(url=url))
        if token is not None:
            say(_("anyone with this link can play on this table; keep it to the people at the table"))
            if show_qr:
                say(link_text(url))
        say(_("Ctrl-C stops the server; a game the page is not playing goes on to its end"))
        if open_browser:
            threading.Thread(target=_open_when_up, args=(server, url), daemon=True).start()
        # uvicorn catches SIGTERM while it serves and raises it again once it has stopped
        with (
            open_announcer(config, live),  # the LCD and the buzzer follow the games
            raising_on_sigterm(Terminated),
        ):
            try:
                with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises the Ctrl-C it caught
                    server.run(sockets=[sock])
                _finish(runner, live, say)
            except Terminated:
                if runner.busy:
                    say(
                        _(
                            "stopping at the next safe point (the robot puts down the piece it holds); "
                            "a game with a move stays saved"
                        )
                    )
    finally:
        sock.close()
        runner.close()


class Terminated(Exception):
    """SIGTERM arrived (``systemctl stop``, a shutdown): stop at the next safe point, saved."""


def _finish(runner: GameRunner, live: LiveState, say: Callable[[str], None]) -> None:
    """After the server: let a game (or a reset) that needs no web player end; stop one that does."""
    if not runner.busy:
        return
    game = live.snapshot()["game"]
    if game is not None and "web" in (game["white"], game["black"]):
        say(
            _(
                "stopping the game (it needs the page); with a move made it stays saved: the page's Resume "
                "continues it"
            )
        )
        return
    say(_("the server has stopped; the table goes on to the end (Ctrl-C stops it, the game stays saved)"))
    try:
        while not runner.wait(0.5):
            pass
    except KeyboardInterrupt:
        say(_("stopping the game; it is saved: `chessatron play --resume` continues it"))


def _open_when_up(server: uvicorn.Server, url: str) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    if server.started:
        webbrowser.open(url)
