"""The lichess API through berserk, the field's Python client: one request at a time, a minute's wait after
HTTP 429, retries for a network that comes and goes, and every failure as one of our errors.

berserk is imported here and nowhere else. It talks to any server that speaks the lichess API
(``Client(session, base_url=...)``): lichess.org, a server of one's own, or the tests' fake one. A BOT
account plays through the Bot API (``/api/bot/...``), any other account through the Board API
(``/api/board/...``); the two take the same requests.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import berserk
import berserk.exceptions
import requests
import urllib3.exceptions

from ..errors import LoginError, OnlineError, ServerRefusedError, ServerUnavailableError
from ..i18n import N_, _
from .model import Account

LOGGER = logging.getLogger(__name__)

T = TypeVar("T")
Sleep = Callable[[float], None]

#: How long the server asks a client that made too many requests to wait (HTTP 429), seconds.
RATE_LIMIT_WAIT_S = 60.0
#: The first line of every stream, once the server has answered (before any line it sent).
OPENED: dict[str, Any] = {"type": "chessatron:opened"}
#: Seconds to connect, and to wait for the next byte: streams send an empty line every few seconds.
CONNECT_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 30.0
#: The waits between attempts at a request the network or the server failed (seconds).
BACKOFF_S = (1.0, 2.0, 4.0, 8.0)


@dataclass(frozen=True)
class Doing:
    """What a request does (or what went wrong on the way), as its errors say it (in the person's
    language: :meth:`words`) and the log (in English: ``str``): a message marked with
    :func:`~chessatron.i18n.N_` and its placeholders."""

    message: str
    fields: Mapping[str, object] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message.format(**self.fields)

    def words(self) -> str:
        return _(self.message).format(**self.fields)


def _doing(message: str, **fields: object) -> Doing:
    return Doing(message, fields)


class _TokenSession(berserk.TokenSession):
    """berserk's token session, with timeouts, and the streams it opened at hand so that another thread
    can close them (a stream blocked reading gives up at once)."""

    def __init__(self, token: str, timeouts: tuple[float, float]) -> None:
        super().__init__(token)
        self.timeouts = timeouts
        self._streams: weakref.WeakSet[requests.Response] = weakref.WeakSet()
        self._streams_lock = threading.Lock()

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.timeouts)
        response = super().request(method, url, *args, **kwargs)
        if kwargs.get("stream"):
            with self._streams_lock:
                self._streams.add(response)
        return response

    def close_streams(self, path: str = "") -> None:
        with self._streams_lock:
            streams = [response for response in self._streams if path in (response.url or "")]
        for response in streams:
            response.close()


class LichessClient:
    """An account on a server that speaks the lichess API.

    ``sleep`` waits between attempts and after HTTP 429 (tests pass one that does not sleep a minute).
    Raises :class:`LoginError` when the server does not accept the token, :class:`ServerRefusedError` for
    a request it refuses, :class:`ServerUnavailableError` when it cannot be reached.
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        sleep: Sleep = time.sleep,
        timeouts: tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S),
        rate_limit_wait_s: float = RATE_LIMIT_WAIT_S,
    ) -> None:
        self.url = url.rstrip("/")
        self.sleep = sleep
        self.rate_limit_wait_s = rate_limit_wait_s
        self._session = _TokenSession(token, timeouts)
        self._api = berserk.Client(self._session, base_url=self.url)
        self._raw = berserk.Requestor(self._session, self.url, default_fmt=berserk.JSON)
        #: The server asks for one request at a time (streams aside).
        self._lock = threading.Lock()
        self._account: Account | None = None

    def __repr__(self) -> str:
        return f"LichessClient({self.url!r})"

    def close(self) -> None:
        """Close every stream and connection; safe to call twice."""
        self._session.close_streams()
        self._session.close()

    def __enter__(self) -> LichessClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- requests ----------------------------------------------------------------------------------

    def _call(self, what: Doing, request: Callable[[], T], *, attempts: int = 1) -> T:
        """Make one request (holding the lock: one at a time), waiting a minute after HTTP 429 and
        trying up to ``attempts`` times in all when the network or the server fails."""
        failures = 0
        with self._lock:
            while True:
                try:
                    return request()
                except berserk.exceptions.ResponseError as exc:
                    status = int(exc.status_code)
                    if status == 429:
                        LOGGER.warning("%s: the server says too many requests; waiting a minute", self.url)
                        self.sleep(self.rate_limit_wait_s)
                        continue
                    if status < 500:
                        raise refusal(what, exc, self.url) from exc
                    problem = _doing(N_("the server failed (HTTP {status})"), status=status)
                except berserk.exceptions.ApiError as exc:
                    problem = _doing(_network_problem(exc))
                failures += 1
                if failures >= attempts:
                    raise ServerUnavailableError(
                        # TRANSLATORS: {doing} is what the table was doing ("sending the move e2e4"),
                        # {problem} what went wrong ("no answer in time")
                        _("{doing}: cannot reach {url} ({problem}); check the network and try again").format(
                            doing=what.words(), url=self.url, problem=problem.words()
                        )
                    )
                LOGGER.warning("%s: %s; trying again", what, problem)
                self.sleep(BACKOFF_S[min(failures, len(BACKOFF_S)) - 1])

    def account(self) -> Account:
        """The account the token belongs to (asked once)."""
        if self._account is None:
            data = self._call(_doing(N_("logging in")), self._api.account.get)
            self._account = Account.from_json(data)
        return self._account

    @property
    def api(self) -> Literal["board", "bot"]:
        """Which API the account plays through."""
        return "bot" if self.account().is_bot else "board"

    def scopes(self, token: str) -> set[str] | None:
        """The scopes of ``token`` as the server tells (None: it does not know the token)."""
        data = self._call(_doing(N_("checking the token")), lambda: self._api.oauth.test_tokens(token))
        found = data.get(token) if isinstance(data, dict) else None
        if not isinstance(found, dict):
            return None
        return {scope for scope in str(found.get("scopes") or "").split(",") if scope}

    def _game_post(self, what: Doing, game_id: str, action: str, *, attempts: int = 1) -> None:
        path = f"/api/{self.api}/game/{game_id}/{action}"
        self._call(what, lambda: self._raw.post(path), attempts=attempts)

    def move(self, game_id: str, uci: str) -> None:
        """Play ``uci`` in game ``game_id`` (tried again while the network fails)."""
        doing = _doing(N_("sending the move {uci}"), uci=uci)
        self._game_post(doing, game_id, f"move/{uci}", attempts=len(BACKOFF_S) + 1)

    def draw(self, game_id: str, yes: bool) -> None:
        """Offer a draw or accept the opponent's offer (``yes``), or decline it."""
        doing = _doing(N_("answering about a draw"))
        self._game_post(doing, game_id, f"draw/{'yes' if yes else 'no'}", attempts=3)

    def takeback(self, game_id: str, yes: bool) -> None:
        """Propose a takeback or accept the opponent's proposal (``yes``), or decline it."""
        doing = _doing(N_("answering about a takeback"))
        self._game_post(doing, game_id, f"takeback/{'yes' if yes else 'no'}", attempts=3)

    def resign(self, game_id: str) -> None:
        self._game_post(_doing(N_("resigning")), game_id, "resign", attempts=3)

    def abort(self, game_id: str) -> None:
        self._game_post(_doing(N_("aborting the game")), game_id, "abort", attempts=3)

    def claim_victory(self, game_id: str) -> None:
        self._game_post(_doing(N_("claiming the win")), game_id, "claim-victory", attempts=3)

    def challenge_ai(
        self, level: int, *, clock: tuple[int, int] | None, color: str, variant: str
    ) -> dict[str, Any]:
        """A game against the lichess AI; returns the game (``id``, ``player``...)."""
        limit, increment = clock if clock is not None else (None, None)
        return self._call(
            _doing(N_("challenging the lichess AI")),
            lambda: self._api.challenges.create_ai(
                level,
                clock_limit=limit,
                clock_increment=increment,
                color=color,  # type: ignore[arg-type]
                variant=variant,  # type: ignore[arg-type]
            ),
        )

    def challenge(
        self, username: str, *, rated: bool, clock: tuple[int, int] | None, color: str, variant: str
    ) -> dict[str, Any]:
        """Challenge ``username``; returns the challenge (its ``id`` is the game's once accepted)."""
        limit, increment = clock if clock is not None else (None, None)
        return self._call(
            _doing(N_("challenging {user!r}"), user=username),
            lambda: self._api.challenges.create(
                username,
                rated,
                clock_limit=limit,
                clock_increment=increment,
                color=color,  # type: ignore[arg-type]
                variant=variant,  # type: ignore[arg-type]
            ),
        )

    def accept(self, challenge_id: str) -> None:
        self._call(_doing(N_("accepting the challenge")), lambda: self._api.challenges.accept(challenge_id))

    def cancel(self, challenge_id: str) -> None:
        self._call(_doing(N_("cancelling the challenge")), lambda: self._api.challenges.cancel(challenge_id))

    # --- streams -----------------------------------------------------------------------------------

    def events(self) -> Iterator[dict[str, Any]]:
        """The account's event stream (games starting and ending, challenges), after an :data:`OPENED`
        line once the server answered; keep-alive lines are skipped. Raises as the requests do, also
        while reading."""
        return self._stream(_doing(N_("following the account's events")), "/api/stream/event")

    def game(self, game_id: str) -> Iterator[dict[str, Any]]:
        """Game ``game_id``'s stream: :data:`OPENED`, its ``gameFull`` line, then a ``gameState`` line for
        every change."""
        return self._stream(
            _doing(N_("following game {id!r}"), id=game_id), f"/api/{self.api}/game/stream/{game_id}"
        )

    def seek(self, minutes: float, increment: int, *, rated: bool, color: str, variant: str) -> None:
        """Seek a game and keep the seek open until the server pairs it (then the stream ends) or the
        stream is closed (:meth:`close_streams`)."""
        time_value: Any = int(minutes) if minutes == int(minutes) else minutes
        try:
            self._api.board.seek(time_value, increment, rated=rated, variant=variant, color=color)  # type: ignore[arg-type]
        except STREAM_FAILURES as exc:
            raise self._stream_failure(_doing(N_("seeking a game")), exc) from exc

    def close_streams(self, path: str = "") -> None:
        """End the streams this client reads (those whose address holds ``path``): their readers see them
        end."""
        self._session.close_streams(path)

    def _stream(self, what: Doing, path: str) -> Iterator[dict[str, Any]]:
        try:
            lines = self._raw.get(path, stream=True, fmt=berserk.NDJSON)  # returns once the server answered
            yield OPENED
            yield from lines
        except STREAM_FAILURES as exc:
            raise self._stream_failure(what, exc) from exc

    def _stream_failure(self, what: Doing, exc: Exception) -> OnlineError:
        """The error for a stream that could not open or dropped (after a minute's wait for HTTP 429)."""
        if isinstance(exc, berserk.exceptions.ResponseError):
            status = int(exc.status_code)
            if status == 429:
                LOGGER.warning("%s: the server says too many requests; waiting a minute", self.url)
                self.sleep(self.rate_limit_wait_s)
                return ServerUnavailableError(
                    _("{doing}: the server asked to wait (HTTP 429)").format(doing=what.words())
                )
            if status < 500:
                return refusal(what, exc, self.url)
            return ServerUnavailableError(
                _("{doing}: the server failed (HTTP {status})").format(doing=what.words(), status=status)
            )
        return ServerUnavailableError(
            _("{doing}: the connection to {url} dropped ({problem})").format(
                doing=what.words(), url=self.url, problem=_(_network_problem(exc))
            )
        )


#: What reading a stream can raise when the connection fails or is closed under it.
STREAM_FAILURES: tuple[type[Exception], ...] = (
    berserk.exceptions.BerserkError,
    requests.RequestException,
    urllib3.exceptions.HTTPError,
    OSError,
    ValueError,
    AttributeError,
)


def refusal(what: Doing, exc: berserk.exceptions.ResponseError, url: str) -> OnlineError:
    """The error for a request the server refused (HTTP 4xx), with what the server said."""
    status = int(exc.status_code)
    cause = exc.cause
    said = cause.get("error") if isinstance(cause, dict) else None
    said = str(said or exc.reason or f"HTTP {status}")
    doing = what.words()
    if status == 401:
        return LoginError(
            _(
                "{doing}: {url} does not accept the API token ({said}); make a new one and run `chessatron "
                "online login`"
            ).format(doing=doing, url=url, said=said)
        )
    if status == 403:
        return LoginError(
            _(
                "{doing}: the API token may not do this ({said}); it needs the scopes board:play and "
                "challenge:write: make a new one and run `chessatron online login`"
            ).format(doing=doing, said=said)
        )
    return ServerRefusedError(
        # TRANSLATORS: {said} is the server's own words
        _("{doing}: the server refused: {said}").format(doing=doing, said=said),
        status=status,
    )


def _network_problem(exc: Exception) -> str:
    """What went wrong on the way, in a few words (English: translate it with ``_`` where shown)."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, requests.Timeout):
            return N_("no answer in time")
        if isinstance(cause, requests.ConnectionError):
            return N_("connection refused or dropped")
        cause = cause.__cause__ or cause.__context__
    return type(exc).__name__
