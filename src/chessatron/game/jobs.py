"""One machine, one job at a time, in a thread of its own: the base of the runner the web page drives
(:mod:`.runner`).

A :class:`JobRunner` owns one :class:`~.session.Session` (one machine, connected and homed once) and runs
one job at a time in a background thread: a game, a resumed game, a table reset, an online game, puzzles.
Another job is refused while one runs (:class:`BusyError`); from any thread the machine is held and
resumed (a feed hold), and the job under way stopped at its next safe point. A job that fails leaves its
reason on the live state, never a traceback; on the simulator the table is saved after every job.

The live status says what a job begins with the moment it is accepted (:data:`BEGINS`), so that what the
last one ended with (a stop, an error) is never shown as if it were still so. A stop a player asked for
is told to :attr:`JobRunner.tell` (the terminal that serves the page) as what it is, in words.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Self

import chess

from ..config import Config
from ..errors import ChessatronError
from ..i18n import N_, _, ngettext
from ..planning.layout import Layout
from ..planning.table import Table
from ..sim.state import SimulatorState, default_state_path, load_state, save_state
from ..tablelock import hold_table, table_url
from .players.base import Command
from .players.spec import PlayerSpec
from .records.record import ClockSettings
from .records.store import open_game
from .session import Session
from .statuses import CONNECTING, IDLE, PAUSED, ROBOT_MOVING, STOPPING
from .tablework import StopRequested
from .telling.live import LiveState

__all__ = ["BEGINS", "BUSY_BECAUSE", "BusyError", "Job", "JobRunner"]

LOGGER = logging.getLogger(__name__)

Job = Literal["game", "resume", "reset", "online", "training"]
#: Why the table cannot take a new job, by the job under way (translated where shown).
BUSY_BECAUSE: dict[str, str] = {
    # TRANSLATORS: "Stop game" is the web page's button
    "game": N_("a game is being played on the table; stop it first (Stop game) or wait for its end"),
    "resume": N_("a game is being played on the table; stop it first (Stop game) or wait for its end"),
    "reset": N_("the robot is setting the table up; wait until it has finished"),
    # TRANSLATORS: "Stop game" is the web page's button
    "online": N_(
        "an online game is being played on the table; stop it first (Stop game) or wait for its end"
    ),
    # TRANSLATORS: "Stop" is the web page's button
    "training": N_("puzzles are being played on the table; stop them first (Stop) or wait for their end"),
}
#: The status the moment a job is accepted, until it says more (a set-up, the first move to make);
#: translated where shown. (The status display shows it while no game runs, fitted at a space.)
BEGINS: dict[str, str] = {
    "game": N_("starting a new game"),
    "resume": N_("resuming a game"),
    "reset": N_("setting the table up"),
    "online": N_("starting an online game"),
    "training": N_("starting the puzzles"),
}


class BusyError(ChessatronError, RuntimeError):
    """The machine is already busy with a game or a reset."""


class JobRunner:
    """One machine, one job at a time, in a background thread.

    ``speed`` is the simulator's speed (None: as fast as the host allows). The table's state on the
    simulator is kept where ``chessatron play`` keeps it, so both see the same pieces; ``fresh`` forgets
    it and starts from a table set up as delivered.
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
        fresh: bool = False,
    ) -> None:
        self.config = config
        self.games_dir = games_dir
        self.live = live if live is not None else LiveState(config.layout)
        self.simulated = config.urls["grbl"].startswith("sim")
        self.state_path = state_path if state_path is not None else default_state_path()
        # the runner drives the table for its whole life: a game or a set-up may start at any time
        self._table_lock = contextlib.ExitStack()
        self._table_lock.enter_context(hold_table(table_url(config.urls), state=self._state_kept()))
        try:
            state = load_state(self.state_path, config.layout, fresh=fresh) if self.simulated else None
            self.session = Session(
                config,
                games_dir=games_dir,
                speed=speed,
                engine_path=engine_path,
                table=state.table if state else None,
                live=self.live,
                state_path=self._state_kept(),
            )
        except BaseException:
            self._table_lock.close()
            raise
        self.last_error: str | None = None
        self.last_game: str | None = None
        self._board = state.board if state else chess.Board()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._job: Job | None = None
        self._connected = False
        self._paused = False
        self._stopping = False
        self._forget_set_up = True
        self._status_before_pause: str | None = None
        #: The piece a page player picked: (the ply it was picked at, its square).
        self._picked: tuple[int, chess.Square] | None = None
        self._guiding = False
        #: The players and clock of the game under way (a new one chosen at the table keeps them).
        self._players: tuple[PlayerSpec, PlayerSpec, ClockSettings | None] = (
            PlayerSpec("web"),
            PlayerSpec("engine"),
            None,
        )
        #: A config saved since (the web page's settings), taken up when the next job begins.
        self._next_config: Config | None = None
        #: Lent to a calibration since the last job: a new layout with the same cells is taken up.
        self._measured = False
        #: Told a stop a player asked for, in words, once it is reached (``serve`` prints it as a notice).
        self.tell: Callable[[str], None] | None = None
        self.live.show_table(self.session.table, ())

    # --- lifecycle ------------------------------------------------------------------------------------------

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def busy(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def report(self) -> dict[str, Any]:
        """What the runner is doing, for pages: ``{"job": "game"|"resume"|"reset"|"online"|None,
        "paused": bool, "stopping": bool, "leds": bool}`` (``stopping``: a stop was asked for and the job
        has not reached its next safe point yet; ``leds``: the LED guide lights the table for this game).
        Every change of it also changes the live state's version."""
        return {"job": self._job, "paused": self._paused, "stopping": self._stopping, "leds": self._guiding}

    def clock_now(self) -> dict[str, Any] | None:
        """The game's chess clock as it reads now (the live state holds its reading from when it last
        changed), None without one."""
        clock = self.session.clock
        return clock.to_dict() if clock is not None and self._job is not None else None

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait for the job under way to end; True when none is running."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)
        return not self.busy

    def close(self) -> None:
        """Stop the job at its next safe point (a game stays saved, one cut short in its set-up too, so
        that it can be finished) and close the machine."""
        self.stop(forget_set_up=False)
        self.wait(30.0)
        try:
            self.session.close()
        finally:
            self._table_lock.close()

    def _state_kept(self) -> Path | None:
        """The simulated table's state file, None on a machine."""
        return self.state_path if self.simulated else None

    def use_config(self, config: Config) -> bool:
        """Play the next game (or set-up) with ``config`` (saved from the web page's settings): the
        devices are opened again from it when the next job begins, the table's pieces kept as they stand.
        A new layout waits for the next start of the server (the pieces are placed by the layout they
        were set up on); returns whether ``config`` names one."""
        with self._lock:
            self._next_config = config
        return config.layout != self.config.layout

    def lend_machine(self) -> None:
        """Close the machine (the GRBL link, the magnet, the sensors, the LEDs) for a calibration, which
        opens its own; the next job opens it again, with a layout the calibration measured (the same
        cells, where they really lie) taken up. Raises :class:`BusyError` while a job runs."""
        with self._lock:
            if self.busy:
                raise BusyError(BUSY_BECAUSE[self._job or "game"])
            self._next_config = self._next_config or self.config
            self._take_up_config()
            self._measured = True  # (until the next job: the calibration writes the layout meanwhile)

    # --- the machine ----------------------------------------------------------------------------------------

    def stop(self, *, forget_set_up: bool = True) -> None:
        """Stop the job under way at its next safe point: a game at its next move, or while the robot works
        (a move, a set-up, a takeback) between two of its relocations, the magnet released and the table
        journaled. Until then the live status says :data:`~.statuses.STOPPING` (and :meth:`report`
        ``stopping``); then what was kept: a game with a move stays saved, one without is not kept, and
        with ``forget_set_up`` (a player's stop: they did not want that game) neither is one cut short
        in its set-up (otherwise, as for a shutdown, it is kept for its set-up to be finished)."""
        self._forget_set_up = forget_set_up
        self.session.stop_requested.set()
        for inbox in list(self.session.inboxes.values()):
            inbox.inbox.put(Command.QUIT)
        if self.busy and not self._stopping:
            with self.session.status_lock:
                self._stopping = True
                self.live.update(status=_(STOPPING), prompt=None)
        if self._paused:
            self.resume_machine()  # a held machine could not reach its next safe point

    def pause(self) -> None:
        """Feed hold: the gantry decelerates to a stop and waits (the magnet keeps its piece)."""
        robot = self.session.robot
        if robot is None:
            raise ChessatronError(_("the machine is not connected yet"))
        with self.session.status_lock:  # the game thread does not say "robot moving" meanwhile
            robot.link.feed_hold()
            status = self.live.snapshot()["status"]
            if not self._paused:
                self._status_before_pause = status
            self._paused = True
            self.live.update(status=_(PAUSED))

    def resume_machine(self) -> None:
        """Cycle start: the gantry goes on where it was held."""
        robot = self.session.robot
        if robot is None:
            raise ChessatronError(_("the machine is not connected yet"))
        with self.session.status_lock:
            robot.link.resume()
            self._paused = False
            now = self.live.snapshot()
            status = now["status"]
            if now["status_kind"] == "paused":  # nothing else happened meanwhile: say again what was going on
                status = self._status_before_pause or _(ROBOT_MOVING if self.busy else IDLE)
            self.live.update(status=status)

    # --- a job at a time ------------------------------------------------------------------------------------

    def _take_up_config(self) -> None:
        """Between jobs: a config saved since replaces the session's (see :meth:`use_config`)."""
        config, self._next_config = self._next_config, None
        if config is None:
            return
        old = self.session
        table = old.table
        if _same_cells(config.layout, self.config.layout) and self._measured:
            # a calibration measured where the cells lie: the pieces stay on theirs
            table = Table(config.layout, [(piece, old.table.node_of(piece.id)) for piece in old.table])
        else:
            config = dataclasses.replace(config, layout=self.config.layout)
        self._measured = False
        session = Session(
            config,
            games_dir=self.games_dir,
            speed=old.speed,
            engine_path=old.engine_path,
            table=table,
            live=self.live,
            state_path=self.state_path if config.urls["grbl"].startswith("sim") else None,
        )
        session.hand_style, session.hand_answers = old.hand_style, old.hand_answers
        session.watcher = old.watcher
        old.close()
        self.session, self.config = session, config
        self.simulated = config.urls["grbl"].startswith("sim")
        self._connected = False  # the next job connects the devices the config names
        LOGGER.info("the next job plays with the config saved from the page")

    def _spawn(self, name: Job, job: Callable[[], None]) -> None:
        with self._lock:
            if self.busy:
                raise BusyError(_(BUSY_BECAUSE[self._job or name]))
            self._take_up_config()
            self.session.stop_requested.clear()
            self._stopping = False
            self.last_error = None
            self._picked = None
            self._job = name
            # the last job's notices and what it ended with (a stop, an error) are not this one's
            self.live.update(notices=[], status=_(BEGINS[name]))
            thread = threading.Thread(
                target=self._guarded, args=(job,), name=f"chessatron-{name}", daemon=True
            )
            self._thread = thread
            thread.start()

    def _guarded(self, job: Callable[[], None]) -> None:
        try:
            if not self._connected:
                self.live.update(status=_(CONNECTING))
                self.session.connect()
                self._connected = True
            job()
        except KeyboardInterrupt as stop:
            status, kept, saved = self._kept()
            self.live.update(status=status, status_kind="stopped, saved" if saved else "stopped", prompt=None)
            asked = self.session.stop_requested.is_set() and self._forget_set_up  # not a shutdown's
            if asked and self.tell is not None:
                with contextlib.suppress(OSError):  # a terminal gone (a closed pipe) stops nothing
                    self.tell(self._stopped_words(stop, kept))
        except ChessatronError as exc:
            self.last_error = str(exc)
            self.live.notice(str(exc), "error")
            # TRANSLATORS: status; the web page's header shows the part before the first ":" or ";"
            self.live.update(
                status=_("stopped: {reason}").format(reason=exc), status_kind="stopped", prompt=None
            )
        except Exception as exc:  # never a traceback in front of a player: the log has it
            LOGGER.exception("the game thread failed")
            self.last_error = _("internal error: {error!r}").format(error=exc)
            self.live.notice(self.last_error, "error")
            self.live.update(
                status=_("stopped by an internal error (see the log)"), status_kind="stopped", prompt=None
            )
        finally:
            self._save()
            with self._lock:
                self._job = None
                self._stopping = False
            self._stop_clock()

    def _kept(self) -> tuple[str, str, bool]:
        """What a stopped job left, in words, as the saved games show it: the status after a stop, the
        same said after what was stopped (for :attr:`tell`), and whether a game was saved."""
        # (the web page's header shows a status after a stop up to its first ";" or ":")
        if self._job == "reset":
            kept = _("the pieces stand where the robot left them")
            # TRANSLATORS: status; {kept} is a sentence saying what was kept
            return _("stopped setting the table up; {kept}").format(kept=kept), kept, False
        game = self.live.snapshot()["game"]
        if game is None:
            kept = _("no game was kept (a game is saved from its first move)")
            # TRANSLATORS: status; {kept} is a sentence saying what was kept
            return _("stopped before the first move: {kept}").format(kept=kept), kept, False
        try:
            summary, _path = open_game(game["id"], self.games_dir)
        except ChessatronError:
            return _("stopped; the game was not kept"), _("the game was not kept"), False
        if not summary.in_progress:
            kept = _("the game is saved ({result})").format(result=summary.result)
            # TRANSLATORS: status; {kept} is a sentence saying what was kept
            return _("stopped; {kept}").format(kept=kept), kept, True
        plies = summary.plies
        if summary.robot_pending:
            # TRANSLATORS: "Resume" is the web page's button
            kept = _(
                "the game is saved: Resume continues it; the robot first finishes the move it was making"
            )
            told = ngettext(
                "the game is saved after {count} half-move: the page's Resume continues it; the robot first "
                "finishes the move it was making",
                "the game is saved after {count} half-moves: the page's Resume continues it; the robot first "
                "finishes the move it was making",
                plies,
            )
        else:
            # TRANSLATORS: "Resume" is the web page's button
            kept = _("the game is saved: Resume continues it")
            told = ngettext(
                "the game is saved after {count} half-move: the page's Resume continues it",
                "the game is saved after {count} half-moves: the page's Resume continues it",
                plies,
            )
        # TRANSLATORS: status; {kept} is a sentence saying what was kept
        stopped = ngettext(
            "stopped after {count} half-move; {kept}", "stopped after {count} half-moves; {kept}", plies
        )
        return stopped.format(count=plies, kept=kept), told.format(count=plies), True

    def _stopped_words(self, stop: KeyboardInterrupt, kept: str) -> str:
        """A stop a player asked for, as the terminal says it: what stopped, how far it had come, what
        was kept (``setup stopped at your request after 4 of 28 moves; no game was kept …``)."""
        if self._job == "training":
            return _("the puzzles stopped at your request")
        if isinstance(stop, StopRequested):
            words = _stopped_work(stop.title.split(" ", 1)[0], stop.total)
            return words.format(done=stop.done, total=stop.total, kept=kept)
        if self._job == "reset":
            # TRANSLATORS: {kept} is a sentence saying what was kept
            return _("setup stopped at your request; {kept}").format(kept=kept)
        # TRANSLATORS: {kept} is a sentence saying what was kept
        return _("the game stopped at your request; {kept}").format(kept=kept)

    def _stop_clock(self) -> None:
        """The job is over: a clock the game left running stops (the journal has its times). Always
        changes the live state, so that watchers see the job end."""
        clock = self.session.clock
        shown = self.live.snapshot()["clock"]
        if clock is not None and shown is not None:
            clock.pause()
            shown = clock.to_dict()
        self.live.update(clock=shown)

    def _save(self) -> None:
        if not self.simulated:
            return
        table = self.session.table
        board = self._board
        if table.board_fen() != board.board_fen():
            # cut short (a fault in the middle of robot work): keep what the table shows
            board = chess.Board(None)
            board.set_board_fen(table.board_fen())
        try:
            save_state(self.state_path, SimulatorState(table, board, self.session.gantry))
        except ChessatronError as exc:
            self.live.notice(_("the simulator's table was not saved: {reason}").format(reason=exc), "warning")


def _stopped_work(kind: str, total: int) -> str:
    """The robot's work a stop cut short, by the first word of its title (:mod:`.tablework`), as the
    terminal says it: a sentence with ``{done}`` of ``{total}`` relocations and ``{kept}``, what was kept."""
    if kind in ("SETUP", "RESET"):
        # TRANSLATORS: {done} of {total} are the robot's drags of pieces; {kept} says what was kept
        return ngettext(
            "setup stopped at your request after {done} of {total} move; {kept}",
            "setup stopped at your request after {done} of {total} moves; {kept}",
            total,
        )
    if kind == "RESUME":
        # TRANSLATORS: {done} of {total} are the robot's drags of pieces; {kept} says what was kept
        return ngettext(
            "putting the pieces back stopped at your request after {done} of {total} move; {kept}",
            "putting the pieces back stopped at your request after {done} of {total} moves; {kept}",
            total,
        )
    if kind == "MOVE":
        # TRANSLATORS: {done} of {total} are the robot's drags of pieces; {kept} says what was kept
        return ngettext(
            "the robot's move stopped at your request after {done} of {total} move; {kept}",
            "the robot's move stopped at your request after {done} of {total} moves; {kept}",
            total,
        )
    if kind == "TAKEBACK":
        # TRANSLATORS: {done} of {total} are the robot's drags of pieces; {kept} says what was kept
        return ngettext(
            "the takeback stopped at your request after {done} of {total} move; {kept}",
            "the takeback stopped at your request after {done} of {total} moves; {kept}",
            total,
        )
    if kind == "TIDY":
        # TRANSLATORS: {done} of {total} are the robot's drags of pieces; {kept} says what was kept
        return ngettext(
            "tidying stopped at your request after {done} of {total} move; {kept}",
            "tidying stopped at your request after {done} of {total} moves; {kept}",
            total,
        )
    # TRANSLATORS: {done} of {total} are the robot's drags of pieces; {kept} says what was kept
    return ngettext(
        "the robot's work stopped at your request after {done} of {total} move; {kept}",
        "the robot's work stopped at your request after {done} of {total} moves; {kept}",
        total,
    )


def _same_cells(new: Layout, old: Layout) -> bool:
    """Whether ``new`` has ``old``'s cells, each for the same use (only where they lie may differ)."""
    keys = ("columns", "rows", "board_cell", "capture_cells", "reserve")
    return all(getattr(new, key) == getattr(old, key) for key in keys)
