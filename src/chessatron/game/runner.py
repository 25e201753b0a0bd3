"""Games played in a thread of their own, driven by commands from elsewhere (the web page).

A :class:`GameRunner` owns one :class:`~chessatron.game.session.Session` (one machine, connected and
homed once) and runs one job at a time in a background thread: a game, a resumed game, a table reset.
Commands arrive from any thread and are validated here, before anything reaches the game or the gantry:
a move must be legal for a ``web`` player whose turn it is, a reset target must parse, and so on; a
refused command raises a :class:`~chessatron.errors.ChessatronError` whose message says why.

The game never depends on who watches: the runner only feeds its :class:`~chessatron.live.LiveState`,
and a page that closes (or a web server that stops) leaves the game running.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import chess

from ..config import Config
from ..errors import ChessatronError, ConfigError, IllegalMoveError
from ..live import LiveState, colour_name
from ..reset import parse_target
from ..simstate import SimulatorState, default_state_path, load_state, save_state
from .clock import parse_clock
from .keyboard import Command
from .record import ClockSettings
from .session import InboxMover, PlayerSpec, Session
from .store import latest_unfinished

LOGGER = logging.getLogger(__name__)

GameCommand = Literal["hint", "takeback", "draw", "resign"]
COMMANDS: dict[str, Command] = {
    "hint": Command.HINT,
    "takeback": Command.TAKEBACK,
    "draw": Command.DRAW,
    "resign": Command.RESIGN,
}

#: The players a game started from elsewhere (the web page) may have.
REMOTE_PLAYERS = ("web", "engine", "board", "hand")


class BusyError(ChessatronError, RuntimeError):
    """The machine is already busy with a game or a reset."""


class NotYourTurnError(ChessatronError, RuntimeError):
    """A move or command for a player who is not waiting to move."""


@dataclass(frozen=True)
class GameRequest:
    """A new game: the players (as for ``chessatron play``) and the start.

    ``chess960`` is None for standard chess, ``"random"``, a number 0-959 or ``N:M`` (Double Fischer
    Random); ``fen`` sets up any position instead.
    """

    white: str = "web"
    black: str = "engine"
    chess960: str | None = None
    fen: str | None = None
    #: A chess clock as for ``play --clock`` (``"5+3"``), None for none.
    clock: str | None = None

    def players(self) -> tuple[PlayerSpec, PlayerSpec]:
        """The players; only those that need no file or terminal on this machine (``web``, ``engine``,
        ``board``, ``hand``): a request from a page must not name the server's files."""
        players = PlayerSpec.parse(self.white), PlayerSpec.parse(self.black)
        for player in players:
            if player.kind not in REMOTE_PLAYERS:
                raise ConfigError(
                    f"a {player.kind!r} player cannot be chosen here; use one of {', '.join(REMOTE_PLAYERS)}"
                )
        return players

    def start(self, rng: random.Random | None = None) -> chess.Board:
        """The start position; raises :class:`ConfigError` for a bad number or FEN."""
        if self.fen is not None and self.chess960 is not None:
            raise ConfigError("give either a chess960 start or a FEN, not both")
        if self.fen is not None:
            board = parse_target(self.fen).board
            return board
        if self.chess960 is None:
            return chess.Board()
        text = self.chess960
        if text == "random":
            text = str((rng or random.Random()).randrange(960))
        board = parse_target(text).board
        board.chess960 = True
        return board


class GameRunner:
    """One machine, one job at a time, in a background thread.

    ``speed`` is the simulator's speed (None: as fast as the host allows). The table's state on the
    simulator is kept where ``chessatron play`` keeps it, so both see the same pieces.
    """

    def __init__(
        self,
        config: Config,
        *,
        games_dir: Path,
        speed: float | None = 1.0,
        engine_path: str = "stockfish",
        live: LiveState | None = None,
        state_path: Path | None = None,
    ) -> None:
        self.config = config
        self.games_dir = games_dir
        self.live = live if live is not None else LiveState(config.layout)
        self.simulated = config.urls["grbl"].startswith("sim")
        self.state_path = state_path if state_path is not None else default_state_path()
        state = load_state(self.state_path, config.layout) if self.simulated else None
        self.session = Session(
            config,
            games_dir=games_dir,
            speed=speed,
            engine_path=engine_path,
            table=state.table if state else None,
            live=self.live,
        )
        self.last_error: str | None = None
        self.last_game: str | None = None
        self._board = state.board if state else chess.Board()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._connected = False
        self._paused = False
        self.live.show_table(self.session.table, ())

    # --- lifecycle ---------------------------------------------------------------------------------

    def __enter__(self) -> GameRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def busy(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait for the job under way to end; True when none is running."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)
        return not self.busy

    def close(self) -> None:
        """Stop the game at its next move (it stays saved) and close the machine."""
        self.stop()
        self.wait(30.0)
        self.session.close()

    # --- jobs --------------------------------------------------------------------------------------

    def start_game(self, request: GameRequest) -> None:
        """Validate ``request`` and start the game in the background. Raises :class:`BusyError`,
        :class:`ConfigError` for a bad player or start."""
        white, black = request.players()
        start = request.start()
        clock = parse_clock(request.clock) if request.clock is not None else None
        if not start.is_valid():
            raise ConfigError(f"the position {start.fen()!r} is not a legal chess position")
        if start.is_game_over():
            raise ConfigError(f"the position {start.fen()!r} is already over; choose another")
        self._spawn("game", lambda: self._play_new(white, black, start, clock))

    def resume_game(self) -> None:
        """Continue the latest unfinished game in the background."""
        summary = latest_unfinished(self.games_dir)
        if summary is None:
            raise ChessatronError(f"no unfinished game in {str(self.games_dir)!r} to resume")
        self._spawn("resume", lambda: self._play_resumed(summary.path))

    def reset_table(self, target: str = "standard") -> None:
        """Set the table up (``518``, ``N:M``, a FEN, ``standard``) in the background."""
        setup = parse_target(target)
        self._spawn("reset", lambda: self._reset(setup.board, setup.name))

    def _spawn(self, name: str, job: Callable[[], None]) -> None:
        with self._lock:
            if self.busy:
                raise BusyError("the table is busy with a game or a reset; stop it or wait for it to end")
            self.session.stop_requested.clear()
            self.last_error = None
            thread = threading.Thread(
                target=self._guarded, args=(job,), name=f"chessatron-{name}", daemon=True
            )
            self._thread = thread
            thread.start()

    def _guarded(self, job: Callable[[], None]) -> None:
        try:
            if not self._connected:
                self.live.update(status="connecting")
                self.session.connect()
                self._connected = True
            job()
        except KeyboardInterrupt:
            self.live.update(status="stopped (the game is saved; resume it any time)", prompt=None)
        except ChessatronError as exc:
            self.last_error = str(exc)
            self.live.notice(str(exc), "error")
            self.live.update(status=f"stopped: {exc}", prompt=None)
        except Exception as exc:  # never a traceback in front of a player: the log has it
            LOGGER.exception("the game thread failed")
            self.last_error = f"internal error: {exc!r}"
            self.live.notice(self.last_error, "error")
            self.live.update(status="stopped by an internal error (see the log)", prompt=None)
        finally:
            self._save()

    def _play_new(
        self, white: PlayerSpec, black: PlayerSpec, start: chess.Board, clock: ClockSettings | None
    ) -> None:
        journal = self.session.new_game(white, black, start, clock)
        self.last_game = journal.path.name.removesuffix(".jsonl")
        with journal:
            record = self.session.play(journal, white, black)
        self._board = record.board()

    def _play_resumed(self, path: Path) -> None:
        journal, white, black = self.session.resume(path)
        self.last_game = journal.path.name.removesuffix(".jsonl")
        with journal:
            record = self.session.play(journal, white, black)
        self._board = record.board()

    def _reset(self, board: chess.Board, description: str) -> None:
        session = self.session
        self.live.update(status=f"setting up {description}", game=None)
        plan = session.resetter.plan(session.table, board, at=session.gantry)
        session._run_plan(plan, "RESET", None)
        self._board = board
        self.live.update(status="idle")

    def _save(self) -> None:
        if not self.simulated:
            return
        try:
            save_state(self.state_path, SimulatorState(self.session.table, self._board, self.session.gantry))
        except ChessatronError as exc:
            self.live.notice(f"the simulator's table was not saved: {exc}", "warning")

    # --- commands ----------------------------------------------------------------------------------

    def move(self, text: str) -> chess.Move:
        """A move for the ``web`` player to move: UCI (``e2e4``, ``e7e8q``) or SAN. Raises
        :class:`NotYourTurnError` when no web player is waiting, :class:`IllegalMoveError`."""
        inbox, board = self._waiting()
        try:
            move = board.parse_uci(text) if _looks_uci(text) else board.parse_san(text)
        except ValueError as exc:
            raise IllegalMoveError(f"{text!r} is not a legal move in {board.fen()!r}") from exc
        inbox.inbox.put(move)
        return move

    def command(self, name: str) -> None:
        """``hint``, ``takeback``, ``draw`` or ``resign`` for the web player to move."""
        if name not in COMMANDS:
            raise ConfigError(f"unknown command {name!r}; use one of {', '.join(COMMANDS)}")
        inbox, board = self._waiting()
        if name == "takeback" and not board.move_stack:
            raise IllegalMoveError("there is no move to take back")
        inbox.inbox.put(COMMANDS[name])

    def _waiting(self) -> tuple[InboxMover, chess.Board]:
        snapshot = self.live.snapshot()
        prompt, game = snapshot["prompt"], snapshot["game"]
        if prompt is None or game is None or not self.busy:
            raise NotYourTurnError("no player on the web page is to move now")
        colour = chess.WHITE if prompt["colour"] == "white" else chess.BLACK
        inbox = self.session.inboxes.get(colour)
        if inbox is None:
            raise NotYourTurnError(f"{prompt['colour']} is not played from the web page")
        board = chess.Board(game["start_fen"], chess960=game["variant"] == "chess960")
        for uci in game["uci"]:
            board.push_uci(uci)
        if board.turn != colour:
            raise NotYourTurnError(f"it is {colour_name(board.turn)}'s move")
        return inbox, board

    def stop(self) -> None:
        """Stop the game at its next move; it stays saved (``resume_game`` continues it)."""
        self.session.stop_requested.set()
        for inbox in list(self.session.inboxes.values()):
            inbox.inbox.put(Command.QUIT)
        if self._paused:
            self.resume_machine()

    def pause(self) -> None:
        """Feed hold: the gantry decelerates to a stop and waits (the magnet keeps its piece)."""
        robot = self.session.robot
        if robot is None:
            raise ChessatronError("the machine is not connected yet")
        robot.link.feed_hold()
        self._paused = True
        self.live.update(status="paused (resume to go on)")

    def resume_machine(self) -> None:
        robot = self.session.robot
        if robot is None:
            raise ChessatronError("the machine is not connected yet")
        robot.link.resume()
        self._paused = False
        self.live.update(status="robot moving" if self.busy else "idle")


def _looks_uci(text: str) -> bool:
    return len(text) in (4, 5) and text[0] in "abcdefgh" and text[1] in "12345678" and text[2] in "abcdefgh"
