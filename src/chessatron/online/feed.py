"""The server's streams, followed in threads of their own: a game's state and the account's events.

A :class:`GameFeed` reads a game's stream and keeps its latest state for the game thread, which waits on it
(:meth:`GameFeed.wait`). When the stream drops (a network that went away, a server that closed it, no
keep-alive line in time) the feed opens it again after a pause; the first line of the new stream is the
whole game as it stands, so the feed catches up with whatever happened meanwhile. An :class:`EventFeed`
does the same for the account's event stream, handing its events out one by one.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import LoginError, OnlineError, OnlineGameError, ProtocolError, ServerRefusedError
from ..i18n import _
from ..i18n.formats import decimal
from .model import GameInfo, ServerState, parse_game_full, parse_game_state

LOGGER = logging.getLogger(__name__)

#: The type of the line a stream starts with once the server answered (:data:`.client.OPENED`).
OPENED_TYPE = "chessatron:opened"
#: Pauses before opening a dropped stream again, seconds (the last one repeats).
RECONNECT_S = (0.5, 1.0, 2.0, 5.0, 10.0)


@dataclass(frozen=True)
class OpponentGone:
    """The opponent left the game (``gone``); the win may be claimed ``claim_in_s`` seconds after ``at``
    (monotonic seconds)."""

    gone: bool
    claim_in_s: float | None
    at: float


Opener = Callable[[], Iterator[dict[str, Any]]]


class _Follower:
    """A thread reading a stream again and again until closed; subclasses handle the lines."""

    name = "stream"

    def __init__(self, open_stream: Opener, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self._open = open_stream
        self._sleep = sleep
        self._closed = threading.Event()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        #: A failure that reconnecting cannot mend (a refused token, a game that does not exist).
        self.error: OnlineError | None = None
        #: Whether the stream is open now; ``drops`` counts how often it dropped.
        self.connected = False
        self.drops = 0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"chessatron-{self.name}", daemon=True)
        self._thread.start()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def close(self) -> None:
        """Stop following (the stream's reader returns at its next line or when the stream is closed)."""
        self._closed.set()
        self._notify()

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def _run(self) -> None:
        failures = 0
        while not self.closed:
            try:
                for line in self._open():
                    if self.closed:
                        return
                    if line.get("type") == OPENED_TYPE:
                        self.connected = True
                        failures = 0
                        self._notify()
                        continue
                    self._line(line)
                if self._finished():
                    return
                problem = "the server closed it"
            except (LoginError, OnlineGameError, ProtocolError) as exc:
                self._fail(exc if isinstance(exc, OnlineError) else OnlineGameError(str(exc)))
                return
            except ServerRefusedError as exc:
                if exc.status in (400, 404):
                    self._fail(exc)
                    return
                problem = str(exc)
            except OnlineError as exc:
                problem = str(exc)
            if self.closed:
                return
            self.connected = False
            self.drops += 1
            self._notify()
            LOGGER.warning("the %s dropped (%s); opening it again", self.name, problem)
            self._sleep(RECONNECT_S[min(failures, len(RECONNECT_S) - 1)])
            failures += 1

    def _fail(self, error: OnlineError) -> None:
        self.error = error
        self.connected = False
        self._notify()

    def _line(self, line: dict[str, Any]) -> None:
        raise NotImplementedError

    def _finished(self) -> bool:
        """Whether a stream the server ended needs no reopening."""
        return False


class GameFeed(_Follower):
    """One game's stream, followed: :attr:`info` and :attr:`state` as the server last told them.

    ``on_change(info, state)`` is called (in the feed's thread) for every new state; ``on_gone`` when the
    opponent leaves or comes back; ``on_chat(username, text)`` for chat lines.
    """

    name = "game stream"

    def __init__(
        self,
        open_stream: Opener,
        *,
        sleep: Callable[[float], None] = time.sleep,
        on_change: Callable[[GameInfo, ServerState], None] | None = None,
        on_gone: Callable[[OpponentGone], None] | None = None,
        on_chat: Callable[[str, str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(open_stream, sleep=sleep)
        self.info: GameInfo | None = None
        self.state = ServerState()
        #: Increases with every state.
        self.version = 0
        self.gone: OpponentGone | None = None
        self.on_change = on_change
        self.on_gone = on_gone
        self.on_chat = on_chat
        self._clock = clock

    def _line(self, line: dict[str, Any]) -> None:
        kind = line.get("type")
        if kind == "gameFull":
            info, state = parse_game_full(line)
            self.info = info
            self._set(state)
        elif kind == "gameState" and self.info is not None:
            self._set(parse_game_state(line))
        elif kind == "opponentGone":
            seconds = line.get("claimWinInSeconds")
            gone = OpponentGone(
                bool(line.get("gone")),
                float(seconds) if isinstance(seconds, int | float) else None,
                self._clock(),
            )
            self.gone = gone
            if self.on_gone is not None:
                self.on_gone(gone)
        elif kind == "chatLine" and self.on_chat is not None:
            self.on_chat(str(line.get("username") or "?"), str(line.get("text") or ""))

    def _set(self, state: ServerState) -> None:
        with self._changed:
            self.state = state
            self.version += 1
            self._changed.notify_all()
        if self.on_change is not None and self.info is not None:
            self.on_change(self.info, state)

    def _finished(self) -> bool:
        return self.state.is_over

    def ready(self, timeout_s: float) -> GameInfo:
        """The game, once the stream's first line has come. Raises the feed's :attr:`error`, or
        :class:`OnlineError` when nothing came in ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while self.info is None and self.error is None and not self.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(min(left, 0.25))
        if self.error is not None:
            raise self.error
        if self.info is None:
            seconds = decimal(timeout_s, 0 if float(timeout_s).is_integer() else 1)
            raise OnlineError(
                _("the server did not send the game within {seconds} s; try again").format(seconds=seconds)
            )
        return self.info

    def wait(
        self,
        until: Callable[[ServerState], bool],
        timeout_s: float,
        *,
        stop: Callable[[], bool] | None = None,
    ) -> ServerState:
        """Wait until ``until(state)`` holds, the feed fails or closes, ``stop()`` says so, or ``timeout_s``
        passes; returns the state as it is then."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while not until(self.state) and self.error is None and not self.closed:
                if stop is not None and stop():
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(min(left, 0.05))
            return self.state

    def wait_change(self, version: int, timeout_s: float) -> int:
        """Wait (at most ``timeout_s``) for a state newer than ``version``; returns the version now."""
        with self._changed:
            if self.version == version and self.error is None and not self.closed:
                self._changed.wait(timeout_s)
            return self.version


class EventFeed(_Follower):
    """The account's event stream, followed: its events one by one (:meth:`next`). When it opens the
    server sends the challenges and games under way again; an event already handed out is not handed out
    twice."""

    name = "event stream"

    def __init__(self, open_stream: Opener, *, sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(open_stream, sleep=sleep)
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._seen: set[tuple[str, str]] = set()

    def _line(self, line: dict[str, Any]) -> None:
        kind = str(line.get("type") or "")
        item = line.get("game") or line.get("challenge") or {}
        ident = str(item.get("gameId") or item.get("id") or "") if isinstance(item, dict) else ""
        if (kind, ident) in self._seen:
            return
        self._seen.add((kind, ident))
        self._events.put(line)
        self._notify()

    def next(self, timeout_s: float) -> dict[str, Any] | None:
        """The next event, None when none came in ``timeout_s``. Raises the feed's :attr:`error`."""
        if self.error is not None:
            raise self.error
        try:
            return self._events.get(timeout=timeout_s)
        except queue.Empty:
            if self.error is not None:
                raise self.error from None
            return None
