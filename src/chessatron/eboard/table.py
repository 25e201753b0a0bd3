"""The table as an app's e-board: games played with the session's own loop, journal and robot, one side
(or both) the app's, whose moves the robot makes, the other the person's at the board (a simulated hand on
the simulator), whose moves the protocol reports.

:class:`EboardTable` is the :class:`~.core.AppListener` of one protocol: what the app shows of its move
(LEDs lit, a move message, a target position) becomes a move the app's side plays (:class:`AppMover`);
the session tells the table every position (:attr:`~chessatron.game.devices.TableDevices.on_position`)
and every scan of the sensors while the person moves (a piece lifted is reported in the air), and the
protocol reports them as the app expects. A new game the app asks for ends the game under way at the
next turn (the robot finishes the move it is making) and the robot sets up the new one.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import chess

from ..feedback.signals import LedSignals
from ..game.players.base import RestartRequested
from ..game.players.spec import PlayerSpec
from ..game.records.journal import Journal
from ..game.records.record import GameRecord
from ..game.records.store import forget_unplayed, latest_resumable
from ..game.session import Session
from ..i18n import _, ngettext
from ..i18n.formats import decimal
from ..planning.layout import Cell
from .core import EboardProtocol, TableView

LOGGER = logging.getLogger(__name__)

Emit = Callable[[dict[str, Any]], None]

#: How often a waiting app side looks whether the game was stopped (seconds).
POLL_S = 0.01
#: After a game ends, the final position stands this long for the app and the person before the robot
#: sets up the next game (an app asking for a new game sooner starts it at once).
NEXT_GAME_S = 20.0


def start_of(chess960: int | None) -> chess.Board:
    """The standard start, or Chess960 start number ``chess960`` (a Chess960 board, 518 too)."""
    return chess.Board() if chess960 is None else chess.Board.from_chess960_pos(chess960)


@dataclass(frozen=True)
class Seats:
    """Who plays each side: the person (``board``, or ``hand`` on the simulator) or the app."""

    white: PlayerSpec
    black: PlayerSpec

    @classmethod
    def of(cls, person: PlayerSpec | None, colour: chess.Color | None) -> Seats:
        """The person plays ``colour`` (None: the app plays both sides)."""
        app = PlayerSpec("app")
        if person is None or colour is None:
            return cls(app, app)
        return cls(person, app) if colour == chess.WHITE else cls(app, person)

    def app_plays(self, colour: chess.Color) -> bool:
        return (self.white if colour == chess.WHITE else self.black).kind == "app"


class AppMover:
    """The app's side of the game: waits for the move the app shows, which the session hands the robot."""

    def __init__(self, table: EboardTable, colour: chess.Color) -> None:
        self.table = table
        self.colour = colour

    def choose(self, board: chess.Board) -> chess.Move | None:
        waiting = (
            _("white to move: waiting for the app")
            if self.colour
            else _("black to move: waiting for the app")
        )
        self.table.live_status(waiting)
        while True:
            move = self.table.take_move(board, POLL_S)
            if move is not None:
                return move
            if self.table.stopped():
                return None


class EboardTable:
    """The table ``session`` drives as the e-board of one app, through ``protocol`` (attached with
    :meth:`attach` once the transport can send). ``seats`` says who plays each side."""

    def __init__(
        self,
        session: Session,
        seats: Seats,
        *,
        protocol_name: str,
        transport: str,
        where: str,
        emit: Emit | None = None,
        lock: threading.RLock | None = None,
    ) -> None:
        self.session = session
        self.seats = seats
        self.emit: Emit = emit or session.emit
        #: Held while the protocol hears the app or reports to it (the transport's thread and the game's).
        self.lock = lock or threading.RLock()
        self.protocol: EboardProtocol | None = None
        self._moves: queue.Queue[tuple[str, chess.Move]] = queue.Queue()
        self._board = chess.Board()
        self._lifted: frozenset[chess.Square] = frozenset()
        self._reported: tuple[str, frozenset[chess.Square]] | None = None
        self._next_start: chess.Board | None = None
        self._asked_new = threading.Event()
        self._connected = threading.Event()
        self._ended_by_app = False
        self._app: str | None = None
        self._info = {"protocol": protocol_name, "transport": transport, "where": where}
        session.app_seat = lambda colour: AppMover(self, colour)
        session.ordinary_hold_s = 0.0  # the app heard the person's move at its commit: the robot answers
        session.on_position = self._position
        session.on_occupancy = self._occupancy
        self._show_live([])

    @property
    def position(self) -> chess.Board:
        """The game as the table last told the app (its moves on the stack)."""
        return self._board.copy()

    def stands(self, board: chess.Board) -> None:
        """The pieces stand as in ``board`` before any game is set up (the simulated table's last game)."""
        with self.lock:
            self._board = board.copy()
            self._report()

    # --- the protocol ----------------------------------------------------------------------------------

    def attach(self, protocol: EboardProtocol) -> None:
        """Serve ``protocol``: it hears of every position from now on."""
        with self.lock:
            self.protocol = protocol
            self._reported = None
            self._report()

    def _report(self) -> None:
        """Tell the protocol the table's view, if it changed (under the lock)."""
        if self.protocol is None:
            return
        key = (self._board.fen(), self._lifted)
        if key == self._reported:
            return
        self._reported = key
        self.protocol.report(TableView.of(self._board, lifted=self._lifted))

    # --- what the app tells the table (the transport's thread, under the lock) ---------------------------

    def app_connected(self, description: str) -> None:
        if description == self._app:
            return
        self._app = description
        self._connected.set()
        LOGGER.info("%s connected (%s over %s)", description, self._info["protocol"], self._info["transport"])
        self.emit({"event": "eboard", "what": "connected", "app": description, **self._info})
        self._show_live(None)

    def app_lit(self, squares: frozenset[chess.Square]) -> None:
        self._show_live(sorted(chess.square_name(square) for square in squares))
        self._light(squares)

    def app_move(self, move: chess.Move) -> None:
        board = self._board
        if move not in board.legal_moves:
            LOGGER.info("the app named %s, not legal in %s: ignored", move.uci(), board.fen())
            return
        if not self.seats.app_plays(board.turn):
            # the person's move to make (a hint, or the app showing it): the LEDs show it, the person moves
            self._light(frozenset((move.from_square, move.to_square)))
            return
        self._light(frozenset((move.from_square, move.to_square)))  # the table shows it, the robot makes it
        self._moves.put((board.fen(), move))

    def app_position(self, board: chess.Board) -> None:
        if board.board_fen() == self._board.board_fen() and board.turn == self._board.turn:
            return  # the table stands so already
        for move in self._board.legal_moves:
            after = self._board.copy(stack=False)
            after.push(move)
            if after.board_fen() == board.board_fen():
                self.app_move(move)  # one move on from the game: the app's move
                return
        self._restart(board)

    def app_new_game(self, chess960: int | None = None) -> None:
        start = start_of(chess960)
        if not self._board.move_stack and self._board.fen() == start.fen():
            self._asked_new.set()  # the game stands at that start already: it begins (after a game: now)
            return
        self._restart(start)

    def app_message(self, text: str) -> None:
        """A message the app shows the person (CPP's ``msg``)."""
        self.emit({"event": "notice", "message": _("the app says: {text}").format(text=text)})

    def app_end(self, reason: str) -> None:
        """The app ended the game (a resignation, a flag, a draw agreed there): the table's game ends with
        it at the next turn, and the next begins when the app starts one (or after a while)."""
        # TRANSLATORS: {reason} is the app's own words (a resignation, a flag...)
        ended = _("the app ended the game ({reason})").format(reason=reason)
        self.emit({"event": "eboard", "what": "ended", "message": ended})
        self._ended_by_app = True
        self.session.restart_requested.set()

    def _restart(self, start: chess.Board) -> None:
        LOGGER.info("the app starts a new game from %s", start.fen())
        self._next_start = start
        self._asked_new.set()
        self.session.restart_requested.set()

    # --- what the session tells the table (the game's thread) -------------------------------------------

    def _position(self, board: chess.Board) -> None:
        with self.lock:
            if board.fen() != self._board.fen() or board.move_stack != self._board.move_stack:
                self._board = board.copy()
                self._lifted = frozenset()
            self._report()

    def _occupancy(self, cells: frozenset[Cell]) -> None:
        layout = self.session.layout
        standing = {layout.node_square(layout.cell_node(cell)) for cell in cells}
        lifted = frozenset(square for square in self._board.piece_map() if square not in standing)
        if lifted != self._lifted:
            with self.lock:
                self._lifted = lifted
                self._report()

    def take_move(self, board: chess.Board, timeout: float) -> chess.Move | None:
        """The app's move in ``board`` if it named one within ``timeout`` seconds (one named for another
        position is stale: dropped)."""
        try:
            fen, move = self._moves.get(timeout=timeout)
        except queue.Empty:
            return None
        if fen != board.fen() or move not in board.legal_moves:
            return None
        return move

    def stopped(self) -> bool:
        session = self.session
        return session.stop_requested.is_set() or session.restart_requested.is_set()

    # --- games ------------------------------------------------------------------------------------------

    def play(self, start: chess.Board, *, games: int | None = None) -> list[GameRecord]:
        """Play games from ``start`` until stopped (Ctrl-C: a KeyboardInterrupt), or ``games`` of them; a
        new game the app asks for ends the one under way. An app's game left unfinished here (a stop, a
        power cut) is gone on with first: the app that held it finds it as it was. Returns the games
        finished."""
        session = self.session
        finished: list[GameRecord] = []
        resumed = self._resume()
        first = start
        while games is None or len(finished) < games:
            asked = self._next_start  # a game the app asked for
            start = asked or first
            self._next_start = None
            self._asked_new.clear()
            session.restart_requested.clear()
            white, black = self.seats.white, self.seats.black
            if resumed is not None and asked is None:
                (journal, white, black), resumed = resumed, None
            else:
                if resumed is not None:  # the app began another game before this one went on
                    with resumed[0] as left:
                        left.abandon()
                    resumed = None
                journal = session.new_game(white, black, start)
            try:
                with journal:
                    try:
                        self._wait_for_the_app()
                        record = session.play(journal, white, black)
                    except RestartRequested:
                        journal.abandon()  # the app left this game for another, or ended it there
                        raise
            except RestartRequested:
                # kept as abandoned, or gone if it never had a move
                forget_unplayed(journal.state.metadata.game_id, session.games_dir)
                if self._ended_by_app and self._next_start is None:
                    self._ended_by_app = False
                    self.live_status(
                        _("the app ended the game: the next in {seconds} s (or when it starts one)").format(
                            seconds=decimal(NEXT_GAME_S)
                        )
                    )
                    self._asked_new.wait(NEXT_GAME_S)
                else:
                    self.emit(
                        {"event": "eboard", "what": "new-game", "message": _("the app started a new game")}
                    )
                continue
            self._position(record.board())
            finished.append(record)
            if games is not None and len(finished) >= games:
                break
            self.live_status(
                _("{result}: the next game in {seconds} s (or when the app starts one)").format(
                    result=record.result, seconds=decimal(NEXT_GAME_S)
                )
            )
            self._asked_new.wait(NEXT_GAME_S)
        return finished

    def _resume(self) -> tuple[Journal, PlayerSpec, PlayerSpec] | None:
        """Connect the machine; the latest unfinished game an app played here, resumed (the robot puts
        the pieces back where it stopped), if there is one."""
        session = self.session
        summary = latest_resumable(session.games_dir)
        if summary is None or "app" not in (summary.white.kind, summary.black.kind):
            session.connect()
            return None
        journal, white, black = session.resume_at_table(summary.path)
        message = ngettext(
            "going on with game {id} ({count} ply), left unfinished here",
            "going on with game {id} ({count} plies), left unfinished here",
            summary.plies,
        ).format(id=summary.game_id, count=summary.plies)
        self.emit({"event": "notice", "message": message})
        return journal, white, black

    def _wait_for_the_app(self) -> None:
        """The game begins once the app has spoken: it holds the game (its clocks, its opponent)."""
        if not self._connected.is_set():
            self.live_status(_("waiting for the app to connect"))
        while not self._connected.wait(0.1):
            if self.session.stop_requested.is_set():
                raise KeyboardInterrupt

    # --- what people see ----------------------------------------------------------------------------------

    def live_status(self, status: str) -> None:
        self.session.live.update(status=status)

    def _show_live(self, lit: list[str] | None) -> None:
        current = self.session.live.snapshot().get("eboard") or {}
        shown = lit if lit is not None else current.get("lit", [])
        self.session.live.update(eboard={**self._info, "app": self._app, "lit": shown})

    def _light(self, squares: frozenset[chess.Square]) -> None:
        """The table's LEDs show what the app lit (in the engine's-move colours)."""
        try:
            strip = self.session.led_strip()
            signals = LedSignals(self.session.layout)
            colours = {signals.cell(square): signals.colours.engine_to for square in squares}
            strip.show(colours)
        except Exception as exc:  # the LEDs are feedback: the game goes on without them
            LOGGER.warning("the LEDs could not show the app's squares: %s", exc)
