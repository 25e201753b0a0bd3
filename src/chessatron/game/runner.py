"""Games played in a thread of their own, driven by commands from elsewhere (the web page).

A :class:`GameRunner` owns one :class:`~.session.Session` (one machine, connected and homed once) and runs
one job at a time in a background thread (:mod:`.jobs`): a game, a resumed game, a table reset. Commands
arrive from any thread and are validated before anything reaches the game or the gantry (:mod:`.requests`):
a move must be legal for a ``web`` player whose turn it is, a reset target must parse, and so on; a refused
command raises a :class:`~chessatron.errors.ChessatronError` whose message says why.

The game never depends on who watches: the runner only feeds its :class:`~.telling.live.LiveState`, and a
page that closes (or a web server that stops) leaves the game running.

While a game with a robot runs and nobody plays at the board itself (no ``board`` or ``hand`` player,
whose recognizer owns the LEDs then), a :class:`~.telling.guide.LedGuide` lights the squares as a chess
computer does: the engine's last move, a king in check, and where the piece a page player picked
(:meth:`GameRunner.select`) may go.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import chess

from ..errors import ChessatronError, ConfigError, EngineError, IllegalMoveError
from ..feedback.signals import LedSignals
from ..i18n import _
from ..planning.targets import parse_target, position_flaws, require_pieces
from .clock import parse_clock
from .engine.settings import checked_options, engine_options, find_engine, parse_level
from .jobs import JobRunner
from .players.base import NewGameRequested
from .players.buttons import players_for, start_for
from .players.spec import PlayerSpec, engine_level, with_level
from .players.web import InboxMover
from .records.journal import Journal
from .records.record import ClockSettings
from .records.store import GameSummary, forget_unplayed, latest_resumable, resumable_game
from .requests import COMMANDS, REMOTE_PLAYERS, TERMINAL_PLAYERS, GameRequest, parse_move
from .session import Session
from .statuses import IDLE, piece_word
from .telling.guide import LedGuide, show_guide
from .telling.live import game_board

__all__ = ["GameRunner", "NotYourTurnError"]

LOGGER = logging.getLogger(__name__)


class NotYourTurnError(ChessatronError, RuntimeError):
    """A move or command for a player who is not waiting to move."""


class GameRunner(JobRunner):
    """The jobs the web page starts on one machine (see :class:`~.jobs.JobRunner`: one at a time, in a
    background thread), and the moves and commands it sends to the game under way."""

    # --- jobs -----------------------------------------------------------------------------------------------

    def start_game(self, request: GameRequest) -> None:
        """Validate ``request`` and start the game in the background. Raises :class:`BusyError`,
        :class:`ConfigError` for a bad player (a level the engine cannot play) or start (one the table
        cannot set up, with more pieces of a kind than it owns)."""
        white, black = request.players()
        start = request.start()
        clock = parse_clock(request.clock) if request.clock is not None else None
        flaws = position_flaws(start, fen=request.fen)
        if flaws:
            raise ConfigError(
                _("the position {fen!r} cannot be played: {flaws}").format(
                    fen=start.fen(), flaws="; ".join(flaws)
                )
            )
        if start.is_game_over():
            raise ConfigError(
                _("the position {fen!r} is already over; choose another").format(fen=start.fen())
            )
        self.check_levels(white, black)
        # a player the table lacks the devices for (buttons, a microphone, sensors) is refused now; a
        # missing engine is left for the game to say
        with contextlib.suppress(EngineError):
            self.session.check_players(white, black)
        require_pieces(start, self.session.table.inventory())
        self._spawn("game", lambda: self._new_games(lambda: self._play_new(white, black, start, clock)))

    def check_levels(self, *players: PlayerSpec) -> None:
        """Raise :class:`~chessatron.errors.EngineSettingsError` for a level the engine cannot play (an
        Elo outside its range); an engine that cannot be asked is left for the game to report."""
        levels = [level for level in map(engine_level, players) if level is not None]
        if not levels:
            return
        try:
            available = engine_options(self.session.engine_path)
            path = find_engine(self.session.engine_path)
        except EngineError:
            return  # the game says why it cannot start the engine
        for level in levels:
            checked_options(parse_level(level), available, path)

    def inventory(self) -> dict[str, int]:
        """The pieces the table owns by FEN letter (its sets and the reserve's spares)."""
        return dict(self.session.table.inventory())

    def resume_game(
        self, game_id: str | None = None, players: Mapping[chess.Color, PlayerSpec] | None = None
    ) -> str:
        """Continue saved game ``game_id`` (None: the latest with a move, see
        :func:`~chessatron.game.records.store.latest_resumable`) in the background; the robot first puts its
        pieces back where the game stopped. Returns the game's id.

        ``players`` hands sides to other players from now on, as ``play --resume --white P`` does
        (journaled and told); a side played at this machine's terminal (:data:`TERMINAL_PLAYERS`), which
        nobody at the page sees, is handed to the page (``web``) unless ``players`` names another. Raises
        :class:`GameNotFoundError` for an unknown id, :class:`CannotResumeError` for a game that is over or
        was not played here, :class:`BusyError`, :class:`ConfigError` for a player that cannot be had."""
        if game_id is None:
            summary = latest_resumable(self.games_dir)
            if summary is None:
                raise ChessatronError(_("there is no unfinished game to resume; start a new one"))
        else:
            summary = resumable_game(game_id, self.games_dir)
        handed = self.handed_over(summary, players)
        for spec in handed.values():
            if spec.kind not in REMOTE_PLAYERS:
                raise ConfigError(
                    _("a {kind!r} player cannot take a side here; use one of {kinds}").format(
                        kind=spec.kind, kinds=", ".join(REMOTE_PLAYERS)
                    )
                )
        self.check_levels(*handed.values())
        path = summary.path
        self._spawn("resume", lambda: self._new_games(lambda: self._play_resumed(path, handed)))
        return summary.game_id

    def set_up_estimate(self, board: chess.Board) -> tuple[int, float] | None:
        """The robot's work to set the table up for ``board`` from where its pieces stand now (what a
        resumed game begins with): its drags and about how long they take, in wall-clock seconds (on the
        simulator, at its speed). None while a job runs (the pieces are moving), without a robot, or when
        the table cannot be set up for ``board``."""
        if self.config.urls["grbl"].startswith("none"):
            return None
        session = self.session
        with self._lock:  # no job begins while the table is read
            if self.busy:
                return None
            table, at = session.table.copy(), session.gantry
        try:
            plan = session.resetter.plan(table, board, at=at)
        except ChessatronError:
            return None
        seconds = plan.seconds
        if self.simulated:
            seconds = 0.0 if session.speed is None else seconds / session.speed
        return len(plan.relocations), seconds

    @staticmethod
    def handed_over(
        summary: GameSummary, players: Mapping[chess.Color, PlayerSpec] | None = None
    ) -> dict[chess.Color, PlayerSpec]:
        """The sides of saved game ``summary`` that change hands when it is resumed here: those in
        ``players``, and those played at the terminal (:data:`TERMINAL_PLAYERS`), handed to ``web``.

        >>> import datetime as dt
        >>> from chessatron.game.records.record import Player
        >>> summary = GameSummary("g1", Path("g1.jsonl"), dt.datetime.now(dt.UTC), None,
        ...                       Player("keyboard", "keyboard"), Player("Stockfish", "engine", "5"),
        ...                       "standard", "*", 8)
        >>> {chess.COLOR_NAMES[c]: p.spec for c, p in GameRunner.handed_over(summary).items()}
        {'white': 'web'}
        """
        handed = dict(players or {})
        for colour, player in ((chess.WHITE, summary.white), (chess.BLACK, summary.black)):
            if colour not in handed and player.kind in TERMINAL_PLAYERS:
                handed[colour] = PlayerSpec("web")
        return handed

    def reset_table(self, target: str = "standard") -> None:
        """Set the table up (``518``, ``N:M``, a FEN, ``standard``) in the background; raises
        :class:`ConfigError` for a target that does not parse or needs pieces the table does not own."""
        setup = parse_target(target)
        require_pieces(setup.board, self.session.table.inventory())
        self._spawn("reset", lambda: self._reset(setup.board, setup.name))

    def start_online(self, game: Callable[[Session], object]) -> None:
        """Play an online game in the background: ``game`` (see :mod:`chessatron.online`) plays it on this
        runner's session, connected. Raises :class:`BusyError`."""

        def job() -> None:
            self.live.update(clock=None, hint=None, evaluation=None)
            game(self.session)
            board = self.session.current_board()
            if board is not None:
                self._board = board

        self._spawn("online", job)

    def start_training(self, work: Callable[[Session], object]) -> None:
        """Play puzzles in the background (:mod:`chessatron.training.table`): ``work`` plays them on this
        runner's session, connected. Raises :class:`BusyError`."""

        def job() -> None:
            self.live.update(clock=None, hint=None, evaluation=None)
            try:
                work(self.session)
            finally:
                self.live.update(prompt=None)

        self._spawn("training", job)

    def _new_games(self, first: Callable[[], None]) -> None:
        """Play the game ``first`` plays; when a player chooses a new game from the buttons' menu (or by
        voice), the game under way stops, saved, and the one they chose begins (its start, the engine at
        the level chosen), as at ``chessatron play``."""
        play = first
        while True:
            try:
                play()
                return
            except NewGameRequested as wanted:
                white, black, clock = self._players
                white, black = players_for(white, black, wanted.settings)
                start = start_for(wanted.settings)
                # TRANSLATORS: {white} and {black} are players as the command line names them (engine:3)
                chosen = _("a new game, as chosen at the table: {white} against {black}")
                self.live.notice(chosen.format(white=white.spec, black=black.spec))
                play = functools.partial(self._play_new, white, black, start, clock)

    def _play_new(
        self, white: PlayerSpec, black: PlayerSpec, start: chess.Board, clock: ClockSettings | None
    ) -> None:
        self.live.update(clock=None)  # the session shows the new game's clock, if it has one
        # an engine named without a level plays at the config's ([player] level), as saved when the game began
        level = self.session.config.player.level
        white, black = with_level(white, level), with_level(black, level)
        try:
            journal = self.session.new_game(white, black, start, clock)
        except BaseException:
            game = self.live.snapshot()["game"]  # a set-up cut short leaves a game with no move
            if game is not None and not game["uci"]:
                self._forget_unplayed(game["id"])
            raise
        self.last_game = journal.path.name.removesuffix(".jsonl")
        self._play(journal, white, black)

    def _play_resumed(self, path: Path, players: Mapping[chess.Color, PlayerSpec]) -> None:
        self.live.update(clock=None, hint=None, evaluation=None)
        standing = self.session.table  # where the pieces are: a set-up may have moved them since
        journal, white, black = self.session.resume(path, players=players)
        self.last_game = journal.path.name.removesuffix(".jsonl")
        try:
            self.session.put_back(standing)
        except BaseException:
            journal.close()
            raise
        self._play(journal, white, black)

    def _play(self, journal: Journal, white: PlayerSpec, black: PlayerSpec) -> None:
        self._players = (white, black, journal.state.metadata.clock)
        try:
            with journal, self._leds_guiding(white, black):
                try:
                    self.session.play(journal, white, black)
                finally:
                    self._board = journal.board()
        finally:
            state = journal.state
            if not state.moves and not state.is_finished:
                self._forget_unplayed(state.metadata.game_id)

    def _forget_unplayed(self, game_id: str | None) -> None:
        """A game stopped (or failed) before its first move holds nothing to resume: its journal goes
        (:func:`~chessatron.game.records.store.forget_unplayed`), so that neither the saved games nor
        *Resume* offer it, and the page shows no game. One whose set-up a stop asked for cut short goes
        too: the player stopped it before it began (the runner's table knows where the robot left the
        pieces)."""
        cut_short = self._forget_set_up and self.session.stop_requested.is_set()
        if game_id is None or not forget_unplayed(game_id, self.games_dir, cut_short=cut_short):
            return
        if self.last_game is not None and self.last_game.endswith(game_id):
            self.last_game = None
        self.live.update(game=None, evaluation=None, hint=None)

    def _reset(self, board: chess.Board, description: str) -> None:
        session = self.session
        # TRANSLATORS: status; {position} is what the table is set up for: standard, Chess960 #518, a FEN
        status = _("setting up {position}").format(position=description)
        self.live.update(status=status, game=None, clock=None, evaluation=None, hint=None)
        session.set_up(board, "RESET")
        self._board = board
        self.live.update(status=_(IDLE))

    # --- the LEDs -------------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _leds_guiding(self, white: PlayerSpec, black: PlayerSpec) -> Iterator[None]:
        """Light the LEDs with a :class:`~.telling.guide.LedGuide` while the game runs, when the robot moves
        every piece."""
        session = self.session
        if (
            session.robot is None
            or white.moves_pieces
            or black.moves_pieces
            or self.config.urls["leds"].startswith("none")
        ):
            yield
            return
        try:
            strip = session.led_strip()
        except ChessatronError as exc:
            self.live.notice(_("the LEDs cannot show the game: {reason}").format(reason=exc), "warning")
            yield
            return
        engines = [
            colour for colour, spec in ((chess.WHITE, white), (chess.BLACK, black)) if spec.kind == "engine"
        ]
        guide = LedGuide(LedSignals(self.config.layout), engines)
        done = threading.Event()
        thread = threading.Thread(
            target=show_guide,
            args=(guide, strip, self.live, self._picked_square, done),
            name="chessatron-leds",
            daemon=True,
        )
        self._guiding = True
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join(5.0)
            self._guiding = False

    def _picked_square(self, state: Mapping[str, Any]) -> chess.Square | None:
        """The square of the piece picked on the page, while its player is still to move."""
        picked, game = self._picked, state.get("game")
        if picked is None or game is None or state.get("prompt") is None or picked[0] != len(game["uci"]):
            return None
        return picked[1]

    # --- commands -------------------------------------------------------------------------------------------

    def move(self, text: str) -> chess.Move:
        """A move for the ``web`` player to move: UCI (``e2e4``, ``e7e8q``) or SAN. Raises
        :class:`NotYourTurnError` when no web player is waiting, :class:`IllegalMoveError` saying why."""
        inbox, board = self._waiting()
        move = parse_move(board, text)
        self._picked = None
        inbox.inbox.put(move)
        return move

    def answer(self, text: str) -> chess.Move:
        """The player at the board says which move they made (UCI or SAN) when the board fits several.
        Raises :class:`NotYourTurnError` when nothing is asked, :class:`IllegalMoveError` for a move that
        is not one of those asked about."""
        if not self.busy or self.session.question is None:
            raise NotYourTurnError(_("nothing is asked now: the board shows a move, or none yet"))
        return self.session.answer(text)

    def select(self, square: str | None) -> None:
        """The web player picked the piece on ``square`` (None: put it down again): the LEDs show where it
        may go, the robot's empty magnet heads for where its moves begin (pondering). Raises
        :class:`NotYourTurnError`, :class:`IllegalMoveError` for a piece that cannot move."""
        _inbox, board = self._waiting()
        ponder = self.session.ponderer
        if square is None:
            self._picked = None
            if ponder is not None:
                ponder.picked(None)
            return
        picked = chess.parse_square(square)
        if not any(move.from_square == picked for move in board.legal_moves):
            piece = board.piece_at(picked)
            if piece is None:
                raise IllegalMoveError(_("there is no piece on {square} to pick up").format(square=square))
            name = piece_word(piece.piece_type)
            if piece.color != board.turn:
                if board.turn == chess.WHITE:
                    # TRANSLATORS: {piece} is a piece's name (knight): build the sentence so that no
                    # article or ending agrees with it
                    mistaken = _("the {piece} on {square} is black's; it is white's move")
                else:
                    # TRANSLATORS: {piece} is a piece's name (knight): build the sentence so that no
                    # article or ending agrees with it
                    mistaken = _("the {piece} on {square} is white's; it is black's move")
                raise IllegalMoveError(mistaken.format(piece=name, square=square))
            # TRANSLATORS: {piece} is a piece's name (knight): build the sentence so that no article or
            # ending agrees with it
            raise IllegalMoveError(
                _("the {piece} on {square} cannot move now").format(piece=name, square=square)
            )
        self._picked = (len(board.move_stack), picked)
        tidier = self.session.tidier
        if tidier is not None:
            tidier.hold()  # the person is making their move: no new step of tidying begins
        if ponder is not None:
            ponder.picked(picked)  # the magnet waits where that piece's likely moves begin

    def command(self, name: str) -> None:
        """``hint``, ``takeback``, ``draw`` or ``resign`` for the web player to move."""
        if name not in COMMANDS:
            raise ConfigError(
                _("unknown command {name!r}; use one of {commands}").format(
                    name=name, commands=", ".join(COMMANDS)
                )
            )
        inbox, board = self._waiting()
        if name == "takeback" and not board.move_stack:
            raise IllegalMoveError(_("there is no move to take back"))
        self._picked = None
        inbox.inbox.put(COMMANDS[name])

    def _waiting(self) -> tuple[InboxMover, chess.Board]:
        snapshot = self.live.snapshot()
        prompt, game = snapshot["prompt"], snapshot["game"]
        if prompt is None or game is None or not self.busy:
            raise NotYourTurnError(_("no player on the web page is to move now"))
        colour = chess.WHITE if prompt["colour"] == "white" else chess.BLACK
        inbox = self.session.inboxes.get(colour)
        if inbox is None:
            elsewhere = (
                _("white is not played from the web page")
                if colour
                else _("black is not played from the web page")
            )
            raise NotYourTurnError(elsewhere)
        board = game_board(game)
        if board.turn != colour:
            raise NotYourTurnError(
                _("it is white's move") if board.turn == chess.WHITE else _("it is black's move")
            )
        return inbox, board
