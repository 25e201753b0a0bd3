"""One online game on the table: find it (the lichess AI, a challenge, a seek, an incoming challenge, or a
game under way), play it with the session's own loop, journal and robot, and end it as the server does.

:class:`OnlineTable` is what ``chessatron online`` and the web page's runner use. The session plays the
game (:meth:`~chessatron.game.session.Session.play`), its ``online`` opponent's moves taken from the
server by a :class:`~.opponent.ServerMover` and the player's sent by the :class:`~.opponent.ServerReferee`.
When the loop halts (the server ended the game, took moves back, or has a move made elsewhere), the table
catches up with the server, the robot carrying out every move it missed and putting back those the
server no longer has, and plays on. After a crash ``--game ID`` resumes the game's journal (the robot
finishes the work it was cut short in), sends a move journaled but not sent, and catches up the same way.
"""

# One module on purpose (about 600 lines): finding, playing and ending an online game share the game's
# state with the server at every step; split, each part would need all of it.

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import chess

from ..errors import ChessatronError, ConfigError, OnlineError, OnlineGameError
from ..game.players.spec import PlayerSpec
from ..game.records.journal import Journal, read_journal
from ..game.records.record import GameRecord, Player
from ..game.records.store import list_games
from ..game.session import Session
from ..game.telling.events import result_line
from ..game.telling.live import colour_name
from ..i18n import _
from ..i18n.formats import decimal
from ..i18n.notation import san_in
from ..planning.table import Table
from .client import LichessClient
from .feed import EventFeed, GameFeed, OpponentGone
from .model import (
    GameInfo,
    OnlineRequest,
    ServerState,
    board_after,
    clock_view,
    common_plies,
    ending_text,
    outcome_of,
    parse_time_control,
)
from .opponent import ServerReferee

LOGGER = logging.getLogger(__name__)

Emit = Callable[[dict[str, Any]], None]

#: The players who may sit at the table in an online game (``engine`` only where the server allows it).
ONLINE_PLAYERS = ("board", "keyboard", "voice", "web", "hand", "engine")
#: Hosts where an engine may play only a BOT account's games.
LICHESS_HOSTS = ("lichess.org", "www.lichess.org")


@dataclass(frozen=True)
class Waits:
    """How long to wait for the server, in seconds."""

    #: For a game stream's first line.
    game_s: float = 30.0
    #: For a challenged player to accept (the server drops real-time challenges after 20 s).
    challenge_s: float = 60.0
    #: For a seek to be paired, and for a challenge to come in (``--accept``); None: until stopped.
    seek_s: float | None = None
    accept_s: float | None = None


def is_lichess(url: str) -> bool:
    """Whether ``url`` is lichess.org itself (where only a BOT account may let an engine play)."""
    return (urlsplit(url).hostname or "").lower() in LICHESS_HOSTS


def _seconds(value: float | None) -> str:
    """A wait in seconds as a message writes it (``60``, ``0,5``)."""
    seconds = value or 0.0
    return decimal(seconds, 0 if float(seconds).is_integer() else 1)


def find_journal(games_dir: Path, url: str, game_id: str) -> Path | None:
    """The journal of online game ``game_id`` on ``url`` not finished here, if there is one."""
    for summary in reversed(list_games(games_dir)):
        if not summary.in_progress:
            continue
        try:
            online = read_journal(summary.path).metadata.config.get("online")
        except ChessatronError:
            continue
        if isinstance(online, dict) and online.get("game") == game_id and online.get("url") == url:
            return summary.path
    return None


class OnlineTable:
    """Online games on ``session``'s table for ``player`` (who sits at it), through ``client``.

    ``connected``: whether the session's machine is connected already (else it is connected when needed).
    ``sleep`` and ``clock`` are the waits' and the opponent-gone timer's time (tests make them fast).
    """

    def __init__(
        self,
        session: Session,
        client: LichessClient,
        player: PlayerSpec,
        *,
        emit: Emit | None = None,
        connected: bool = False,
        waits: Waits = Waits(),
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.session = session
        self.client = client
        self.player = player
        self.emit: Emit = emit or session.emit
        self.waits = waits
        self.sleep = sleep
        self._connected = connected
        self._claim: threading.Timer | None = None

    # --- who may play ------------------------------------------------------------------------------

    def check_player(self) -> None:
        """The player may sit at this table in an online game on this server; raises
        :class:`ConfigError` saying why not. Logs in (asks the server whose token it is)."""
        account = self.client.account()
        kind = self.player.kind
        if kind not in ONLINE_PLAYERS:
            raise ConfigError(
                _(
                    "a {kind!r} player cannot play online; use one of board, keyboard, voice, web or (on the "
                    "simulator) hand, or engine where the server allows it"
                ).format(kind=kind)
            )
        if kind == "engine" and is_lichess(self.client.url) and not account.is_bot:
            raise ConfigError(
                _(
                    "{account} is a person's account: on lichess.org an engine may play only for a BOT "
                    "account (engine help is cheating); play at the board, or use a BOT account's token"
                ).format(account=account.name)
            )
        self.session.check_players(self.player, self.player)

    # --- finding the game --------------------------------------------------------------------------

    def start(self, request: OnlineRequest) -> str:
        """Start or find the game ``request`` asks for; returns its id. The table is set up for a known
        start position first, so that the first move does not wait for the robot."""
        self.check_player()
        account = self.client.account()
        if request.game is not None:
            return request.game
        if account.is_bot and request.seek is not None:
            raise ConfigError(_("a BOT account cannot seek games; challenge a player, or accept challenges"))
        if request.ai is not None:
            if not request.chess960:
                self._set_up(chess.Board())
            game = self.client.challenge_ai(
                request.ai, clock=request.clock_seconds(), color=request.color, variant=request.variant
            )
            game_id = str(game.get("id") or "")
            if not game_id:
                raise OnlineGameError(
                    _("the server started no game against the AI: {answer}").format(answer=f"{game!r:.200}")
                )
            self.emit({"event": "online", "what": "ai", "game": game_id, "level": request.ai})
            return game_id
        with self._events() as events:
            if request.challenge is not None:
                return self._challenge(events, request)
            if request.seek is not None:
                return self._seek(events, request)
            return self._accept(events, request)

    @contextlib.contextmanager
    def _events(self) -> Iterator[EventFeed]:
        """The account's event stream, open (the server's advice: before a challenge or seek is made)."""
        events = EventFeed(self.client.events, sleep=self.sleep)
        events.start()
        try:
            deadline = time.monotonic() + self.waits.game_s
            while not events.connected and events.error is None and time.monotonic() < deadline:
                time.sleep(0.02)
            if events.error is not None:
                raise events.error
            yield events
        finally:
            events.close()
            self.client.close_streams()

    def _stopped(self) -> bool:
        return self.session.stop_requested.is_set()

    def _next_event(self, events: EventFeed, deadline: float | None) -> dict[str, Any] | None:
        if self._stopped():
            raise KeyboardInterrupt
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError
        return events.next(0.1)

    def _challenge(self, events: EventFeed, request: OnlineRequest) -> str:
        assert request.challenge is not None
        user = request.challenge
        if not request.chess960:
            self._set_up(chess.Board())
        challenge = self.client.challenge(
            user,
            rated=request.rated,
            clock=request.clock_seconds(),
            color=request.color,
            variant=request.variant,
        )
        challenge_id = str(challenge.get("id") or "")
        self.emit(
            {
                "event": "notice",
                "message": _("challenged {user}; waiting for them to accept").format(user=user),
            }
        )
        deadline = time.monotonic() + self.waits.challenge_s
        try:
            while True:
                event = self._next_event(events, deadline)
                if event is None:
                    continue
                kind, item = event.get("type"), event.get("game") or event.get("challenge") or {}
                ident = item.get("gameId") or item.get("id")
                if ident != challenge_id:
                    continue
                if kind == "gameStart":
                    return challenge_id
                if kind == "challengeDeclined":
                    reason = item.get("declineReason") or item.get("declineReasonKey")
                    if not reason:
                        raise OnlineGameError(
                            _("{user} declined the challenge (no reason given)").format(user=user)
                        )
                    raise OnlineGameError(
                        # TRANSLATORS: {reason} is the server's words (in the account's language on lichess)
                        _("{user} declined the challenge ({reason})").format(user=user, reason=reason)
                    )
                if kind == "challengeCanceled":
                    raise OnlineGameError(_("the challenge to {user} was cancelled").format(user=user))
        except TimeoutError:
            with contextlib.suppress(OnlineError):
                self.client.cancel(challenge_id)
            raise OnlineGameError(
                _("{user} did not accept the challenge within {seconds} s; try again").format(
                    user=user, seconds=_seconds(self.waits.challenge_s)
                )
            ) from None
        except KeyboardInterrupt:
            with contextlib.suppress(OnlineError):
                self.client.cancel(challenge_id)
            raise

    def _seek(self, events: EventFeed, request: OnlineRequest) -> str:
        assert request.seek is not None
        minutes, increment = parse_time_control(request.seek)
        if not request.chess960:
            self._set_up(chess.Board())
        known = self._current_games(events)
        failure: list[BaseException] = []

        def seek() -> None:
            try:
                self.client.seek(
                    minutes, increment, rated=request.rated, color=request.color, variant=request.variant
                )
            except OnlineError as exc:
                failure.append(exc)

        thread = threading.Thread(target=seek, name="chessatron-seek", daemon=True)
        thread.start()
        seeking = _("seeking a {control} game; waiting for an opponent").format(control=request.seek)
        self.emit({"event": "notice", "message": seeking})
        deadline = None if self.waits.seek_s is None else time.monotonic() + self.waits.seek_s
        try:
            while True:
                if failure and not self._stopped():
                    raise failure[0]
                try:
                    event = self._next_event(events, deadline)
                except TimeoutError:
                    raise OnlineGameError(
                        _("no opponent took the seek within {seconds} s").format(
                            seconds=_seconds(self.waits.seek_s)
                        )
                    ) from None
                if event is not None and event.get("type") == "gameStart":
                    game = event.get("game") or {}
                    game_id = str(game.get("gameId") or game.get("id") or "")
                    if game_id and game_id not in known:
                        return game_id
        finally:
            self.client.close_streams("/api/board/seek")  # a seek left open would pair the account again

    def _current_games(self, events: EventFeed) -> set[str]:
        """The games under way the event stream names as it opens (a seek's game is none of them)."""
        known: set[str] = set()
        while (event := events.next(0.3)) is not None:
            if event.get("type") == "gameStart":
                game = event.get("game") or {}
                known.add(str(game.get("gameId") or game.get("id") or ""))
        return known

    def _accept(self, events: EventFeed, request: OnlineRequest) -> str:
        account = self.client.account()
        self.emit(
            {
                "event": "notice",
                "message": _("waiting for a challenge to {account}").format(account=account.name),
            }
        )
        deadline = None if self.waits.accept_s is None else time.monotonic() + self.waits.accept_s
        while True:
            try:
                event = self._next_event(events, deadline)
            except TimeoutError:
                raise OnlineGameError(
                    _("no challenge came within {seconds} s").format(seconds=_seconds(self.waits.accept_s))
                ) from None
            if event is None or event.get("type") != "challenge":
                continue
            challenge = event.get("challenge") or {}
            challenger = (challenge.get("challenger") or {}).get("id")
            if challenger == account.id or challenge.get("status", "created") != "created":
                continue  # our own, or no longer open
            variant = (challenge.get("variant") or {}).get("key", "standard")
            wanted = ("chess960",) if request.chess960 else ("standard", "fromPosition")
            who = (challenge.get("challenger") or {}).get("name") or challenger
            if variant not in wanted:
                if request.chess960:
                    message = _("not accepting {user}'s {variant} challenge (the table plays Chess960 now)")
                else:
                    message = _(
                        "not accepting {user}'s {variant} challenge (the table plays standard chess and "
                        "games from a position now)"
                    )
                self.emit({"event": "notice", "message": message.format(user=who, variant=variant)})
                continue
            fen = challenge.get("initialFen")
            if variant == "standard" or fen:
                try:
                    self._set_up(chess.Board(fen) if fen and fen != "startpos" else chess.Board())
                except (ValueError, ChessatronError) as exc:
                    message = _("cannot set up {user}'s position ({reason}); skipped").format(
                        user=who, reason=exc
                    )
                    self.emit({"event": "notice", "message": message})
                    continue
            challenge_id = str(challenge.get("id"))
            self.client.accept(challenge_id)
            self.emit({"event": "notice", "message": _("accepted {user}'s challenge").format(user=who)})
            start_deadline = time.monotonic() + self.waits.game_s
            while True:
                try:
                    started = self._next_event(events, start_deadline)
                except TimeoutError:
                    raise OnlineGameError(
                        _("the game of {user}'s challenge did not start").format(user=who)
                    ) from None
                if started is not None and started.get("type") == "gameStart":
                    game = started.get("game") or {}
                    if (game.get("gameId") or game.get("id")) == challenge_id:
                        return challenge_id

    def _connect(self) -> None:
        if not self._connected:
            self.session.connect()
            self._connected = True

    def _set_up(self, board: chess.Board) -> None:
        """Set the table up for ``board`` before the game exists (so that the first move comes in time)."""
        self._connect()
        session = self.session
        if session.robot is None:
            return  # people set a board without a robot up when the game begins
        plan = session.resetter.plan(session.table, board, at=session.gantry)
        if plan.relocations:
            session.live.update(status="setting up")  # (a status the page and the display know: a code)
            session.run_plan(plan, "SETUP", None)

    # --- playing it --------------------------------------------------------------------------------

    def play(self, game_id: str) -> GameRecord:
        """Play game ``game_id`` to its end (or until stopped: a KeyboardInterrupt, the game journaled)."""
        session = self.session
        feed = GameFeed(
            lambda: self.client.game(game_id),
            sleep=self.sleep,
            on_change=self._changed,
            on_gone=self._gone,
            on_chat=lambda user, text: self.emit(
                {"event": "notice", "message": f"{user}: {text}"}
            ),  # (as said)
        )
        self._feed = feed
        self._last_state = ServerState()
        feed.start()
        try:
            info = feed.ready(self.waits.game_s)
            account = self.client.account()
            colour = info.colour_of(account.id)
            if colour is None:
                raise OnlineGameError(
                    _("game {id!r} is between {white} and {black}; {account} does not play in it").format(
                        id=game_id, white=info.white.label, black=info.black.label, account=account.name
                    )
                )
            info.start_board()  # a variant the table does not play is refused before anything moves
            path = find_journal(session.games_dir, self.client.url, info.id)
            if path is None and feed.state.is_over:
                raise OnlineGameError(
                    _(
                        "game {id!r} is over on the server ({status}); `chessatron games` lists the games "
                        "saved here"
                    ).format(id=game_id, status=feed.state.status)
                )
            referee = ServerReferee(
                self.client, feed, info, colour, emit=self.emit, stopped=session.stop_requested.is_set
            )
            self._referee = referee
            session.referee = referee
            self._changed(info, feed.state)
            journal = self._journal(info, colour, path)
            with journal:
                referee.journal = journal
                return self._follow(journal, info, colour)
        finally:
            self._cancel_claim()
            session.referee = None
            feed.close()
            self.client.close_streams()

    def _journal(self, info: GameInfo, colour: chess.Color, path: Path | None) -> Journal:
        """The game's journal: the one a stopped run left at ``path`` (its table rebuilt), or a new one (the
        table set up for the game's start)."""
        session = self.session
        remote = PlayerSpec("online")
        white, black = (self.player, remote) if colour == chess.WHITE else (remote, self.player)
        if path is not None:
            standing = session.table if self._connected else None  # where the pieces stand now
            journal, _white, _black = session.resume(path)
            try:
                if standing is None:
                    self._connect()  # the machine starts from the table the journal rebuilt
                else:
                    self._put_back(standing)
            except BaseException:
                journal.close()
                raise
        else:
            self._connect()
            seats = info.white, info.black
            ours = self.player.player()
            players = tuple(
                Player(seat.name, ours.kind, ours.level)
                if side == colour
                else Player(seat.name or seat.label, "online")
                for side, seat in zip((chess.WHITE, chess.BLACK), seats, strict=True)
            )
            journal = session.new_game(
                white,
                black,
                info.start_board(),
                players=(players[0], players[1]),
                site=f"{self.client.url}/{info.id}",
                online={"url": self.client.url, "game": info.id, "colour": colour_name(colour)},
            )
        board = journal.board()
        labels = tuple(
            f"{seat.label} · {self.player.spec}" if side == colour else seat.label
            for side, seat in zip((chess.WHITE, chess.BLACK), (info.white, info.black), strict=True)
        )
        session.live.show_board(board, game_id=journal.state.metadata.game_id, players=(labels[0], labels[1]))
        self.emit(
            {
                "event": "online",
                "what": "game",
                "game": info.id,
                "url": f"{self.client.url}/{info.id}",
                "colour": colour_name(colour),
            }
        )
        return journal

    def _put_back(self, standing: Table) -> None:
        """The machine was connected before the game's journal was taken up (the web page's table): when
        the pieces stand elsewhere than the journal left them, the robot puts them back
        (:meth:`Session.put_back`), and the game goes on from there."""
        self.session.put_back(standing)

    def _follow(self, journal: Journal, info: GameInfo, colour: chess.Color) -> GameRecord:
        """Play the journaled game with the session's loop, catching up whenever the loop halts."""
        session, referee, feed = self.session, self._referee, self._feed
        remote = PlayerSpec("online")
        idle_runs = 0
        while True:
            before = len(journal.state.moves), feed.version
            self._send_unsent(journal, info, colour)
            catching_up = referee.needs_catching_up()
            referee.begin(catching_up=catching_up)
            ours = remote if catching_up else self.player
            white, black = (ours, remote) if colour == chess.WHITE else (remote, ours)
            try:
                record = session.play(journal, white, black)
            except KeyboardInterrupt:
                self._stopping(journal)
                raise
            if record.result != "*":
                self._confirm(record)
                return record
            if feed.error is not None:
                raise feed.error
            state = feed.state
            theirs = referee.server_moves(state)
            ours_moves = [entry.move for entry in journal.state.moves]
            if state.is_over and list(theirs) == ours_moves:
                return self._finish(journal, info, state)
            idle_runs = idle_runs + 1 if (len(journal.state.moves), feed.version) == before else 0
            if idle_runs > 20:
                raise OnlineError(
                    _("the table cannot follow game {id!r} on the server; try --game again").format(
                        id=info.id
                    )
                )
            if idle_runs:
                feed.wait_change(feed.version, 0.1)

    def _send_unsent(self, journal: Journal, info: GameInfo, colour: chess.Color) -> None:
        """A move of this player's journaled but not sent (the process stopped in between): send it now."""
        state = self._feed.state
        ours = [entry.move for entry in journal.state.moves]
        theirs = self._referee.server_moves(state)
        if state.is_over or len(ours) != len(theirs) + 1 or common_plies(ours, theirs) != len(theirs):
            return
        board = board_after(info, state.moves)
        if board.turn != colour or ours[-1] not in board.legal_moves:
            return
        sending = _("sending the move {san} the server has not had").format(san=san_in(board.san(ours[-1])))
        self.emit({"event": "notice", "message": sending})
        self._referee.moved(board, ours[-1])

    def _finish(self, journal: Journal, info: GameInfo, state: ServerState) -> GameRecord:
        """The game ended on the server: journal how, and show it."""
        board = journal.board()
        ended = outcome_of(state, board)
        session = self.session
        if ended is None:
            message = ending_text(state)
            self.emit({"event": "online", "what": "ended", "status": state.status, "message": message})
            session.live.update(status=message, prompt=None)
            record = journal.state.to_record()
            self._discard(journal)
            return record
        result, termination = ended
        if not journal.state.is_finished:
            journal.finish(result, termination)
        session.live.show_board(board, result=result, termination=termination)
        session.live.update(status=result_line(result, termination), prompt=None)
        self.emit({"event": "result", "result": result, "termination": termination})
        return journal.state.to_record()

    def _confirm(self, record: GameRecord) -> None:
        """The table ended the game (checkmate, stalemate, a resignation): the server says so too soon."""
        state = self._feed.wait(lambda s: s.is_over, 10.0)
        if not state.is_over:
            LOGGER.warning("the game ended here (%s) but not yet on the server", record.result)

    def _stopping(self, journal: Journal) -> None:
        """Stopped here: a game that has not really begun (a move or none) is aborted on the server."""
        state = self._feed.state
        if state.is_over or len(state.moves) >= 2 or self._feed.info is None:
            return
        with contextlib.suppress(OnlineError):
            self.client.abort(self._feed.info.id)
            self.emit(
                {"event": "notice", "message": _("the game had not begun: it is aborted on the server")}
            )
            self._discard(journal)

    def _discard(self, journal: Journal) -> None:
        """A game that ended without a result (aborted, never begun) is not kept: no unfinished game is
        left behind for a resume to stumble on."""
        journal.close()
        for path in (
            journal.path,
            journal.path.with_name(journal.path.name.removesuffix(".jsonl") + ".sensors.jsonl"),
        ):
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                LOGGER.warning("cannot remove %s: %s", path, exc)

    # --- what the feed says meanwhile --------------------------------------------------------------

    def _changed(self, info: GameInfo, state: ServerState) -> None:
        """A new state from the server (in the feed's thread): the clocks, the opponent's offers."""
        before, self._last_state = getattr(self, "_last_state", ServerState()), state
        turn = info.start_board().turn ^ (len(state.moves) % 2 == 1)
        clock = clock_view(info, state, turn)
        if clock is not None:
            self.session.live.update(clock=clock)
        referee = getattr(self, "_referee", None)
        if referee is not None:
            referee.offers(before, state)
            if (
                state.first_move_ms is not None
                and len(state.moves) < 2
                and turn == referee.colour
                and (before.first_move_ms is None or len(before.moves) != len(state.moves))
                and not state.is_over
            ):
                message = _("make the first move within {seconds} s, or the server aborts the game")
                self.emit(
                    {
                        "event": "notice",
                        "message": message.format(seconds=decimal(state.first_move_ms / 1000)),
                    }
                )

    def _gone(self, gone: OpponentGone) -> None:
        """The opponent left (or came back): claim the win once the server allows it."""
        self._cancel_claim()
        if not gone.gone:
            self.emit({"event": "notice", "message": _("the opponent is back")})
            return
        wait_s = gone.claim_in_s or 0.0
        leaving = _("the opponent left the game; claiming the win in {seconds} s").format(
            seconds=decimal(wait_s)
        )
        self.emit({"event": "notice", "message": leaving})
        info = self._feed.info
        if info is None:
            return

        def claim() -> None:
            try:
                self.client.claim_victory(info.id)
            except OnlineError as exc:
                self.emit(
                    {
                        "event": "warning",
                        "message": _("the win could not be claimed: {reason}").format(reason=exc),
                    }
                )

        timer = threading.Timer(wait_s + 0.5, claim)
        timer.daemon = True
        self._claim = timer
        timer.start()

    def _cancel_claim(self) -> None:
        if self._claim is not None:
            self._claim.cancel()
            self._claim = None
