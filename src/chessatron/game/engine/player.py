"""The chess engine as a player: a UCI process that survives crashes.

python-chess does the talking (:meth:`chess.engine.SimpleEngine.popen_uci`, ``UCI_Chess960``, the
position and ``go`` commands); this module adds what a chess computer left running for hours needs: a
watchdog that restarts an engine that crashed or stopped answering and searches again, hints and
evaluations at full strength whatever the level, and searches started ahead of time
(:class:`~.foresight.Foresight`). Its level and where it is found: :mod:`.settings`.
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import subprocess
import threading
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Final, TypeVar

import chess
import chess.engine

from ...errors import (
    EngineClosedError,
    EngineFailedError,
    EngineSettingsError,
)
from ...i18n import _
from .foresight import Foresight
from .settings import (
    _ENGINE_FAILURES,
    DEFAULT_ENGINE,
    FAILED_WHILE,
    INSTALL_HINT,
    STARTUP_TIMEOUT_S,
    EngineSettings,
    _describe,
    _NoMoveError,
    checked_options,
    find_engine,
    unsearchable,
)

__all__ = ["ANALYSIS_LIMIT", "HINT_LIMIT", "PREDICTION_LIMIT", "EnginePlayer"]

LOGGER = logging.getLogger(__name__)

T = TypeVar("T")


HINT_LIMIT: Final = chess.engine.Limit(time=0.5)
"""How long a hint or an evaluation searches, always at the engine's full strength."""
ANALYSIS_LIMIT: Final = chess.engine.Limit(depth=12, time=0.3)
"""How far the engine looks at each position of a game for the watchers (a few tens of milliseconds)."""
PREDICTION_LIMIT: Final = chess.engine.Limit(depth=10, time=0.25)
"""How far the engine looks for the moves a player is likely to make (:meth:`EnginePlayer.likely_moves`)."""

STALL_GRACE_S: Final = 10.0
"""How much longer than its move time a time-limited search may take before the engine counts as hung."""
UNTIMED_SEARCH_TIMEOUT_S: Final = 300.0
"""When a depth- or node-limited search counts as hung; deep searches on a Pi are slow, not stuck."""
KILL_WAIT_S: Final = 5.0
MAX_ATTEMPTS: Final = 3


def _playing(engine: chess.engine.SimpleEngine) -> dict[str, int | bool]:
    """The options that make an analysis the search :meth:`EnginePlayer.best_move` plays: it plays with
    ``UCI_AnalyseMode`` off, which an analysis turns on unless told otherwise."""
    return {"UCI_AnalyseMode": False} if "UCI_AnalyseMode" in engine.options else {}


def _move_of(result: chess.engine.PlayResult) -> chess.engine.PlayResult:
    """``result`` if it holds a move; else :class:`_NoMoveError` (the game is not over: checked before)."""
    if not result.move:  # None, or the null move 0000
        # TRANSLATORS: why the chess engine failed; bestmove is its protocol's word
        raise _NoMoveError(_("it answered 'bestmove' without a move"))
    return result


class EnginePlayer:
    """A UCI engine process that chooses moves, gives hints and evaluates, and is restarted when it fails.

    ``engine`` is a name or a path for :func:`find_engine`. An engine that crashes or does not answer
    within ``timeout_s`` (default: :data:`STALL_GRACE_S` plus twice the move time, or
    :data:`UNTIMED_SEARCH_TIMEOUT_S` for depth- or node-limited searches) is killed, started again with
    the same settings, and the search repeated, up to ``max_attempts`` times in all; then
    :class:`EngineFailedError`. Chess960 needs no setting: python-chess sends ``UCI_Chess960`` for every
    position from ``board.chess960`` and answers castling as king-onto-rook moves there.

    Raises :class:`EngineMissingError`, :class:`EngineSettingsError` when the engine lacks an option or
    its range (an Elo below its minimum), :class:`EngineFailedError` when it does not start. ``pid`` is
    the running process, ``restarts`` counts the restarts so far.

    >>> with EnginePlayer(EngineSettings(skill=3, depth=4)) as engine:
    ...     engine.best_move(chess.Board()) in chess.Board().legal_moves
    True
    """

    def __init__(
        self,
        settings: EngineSettings | None = None,
        *,
        engine: str | os.PathLike[str] = DEFAULT_ENGINE,
        hint_limit: chess.engine.Limit = HINT_LIMIT,
        timeout_s: float | None = None,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
        max_attempts: int = MAX_ATTEMPTS,
    ) -> None:
        if max_attempts < 1:
            raise EngineSettingsError(f"max_attempts {max_attempts!r} must be at least 1")
        self.settings = settings if settings is not None else EngineSettings()
        self.path = find_engine(os.fspath(engine))
        self.hint_limit = hint_limit
        self.restarts = 0
        #: What the engine said about its last move's search (``score``, ``pv``, ``depth``).
        self.last_info: dict[str, object] = {}
        # analyses made ahead of time (analyse_ahead), by position and limit, for analyse to answer at once
        self._analysed: dict[tuple[str, tuple[str, ...], str], dict[str, object]] = {}
        self._analysing: dict[tuple[str, tuple[str, ...], str], Foresight] = {}
        self._timeout_s = timeout_s
        self._startup_timeout_s = startup_timeout_s
        self._max_attempts = max_attempts
        self._engine: chess.engine.SimpleEngine | None = None
        self._plays_chess960 = True
        self._closed = False
        # One worker runs every engine call so that the caller can stop waiting for a hung engine:
        # SimpleEngine itself has no timeout for depth- or node-limited searches.
        self._worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="engine")
        # close and an engine started for a caller that stopped waiting (adopted) take turns
        self._adopting = threading.Lock()
        try:
            self._engine = self._start()
        except _ENGINE_FAILURES as exc:
            self.close()
            # TRANSLATORS: {hint} is a sentence saying how to install an engine
            raise EngineFailedError(
                _(
                    "the chess engine {path!r} did not start ({reason}); check that it runs on its own and "
                    "speaks uci, or {hint}"
                ).format(path=str(self.path), reason=_describe(exc), hint=_(INSTALL_HINT))
            ) from exc
        except BaseException:
            self.close()
            raise

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"pid={self.pid}"
        return f"EnginePlayer({str(self.path)!r}, {self.settings.spec()!r}, {state})"

    def __enter__(self) -> EnginePlayer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The process id of the running engine, None between a crash and its restart."""
        return None if self._engine is None else self._engine.transport.get_pid()

    def best_move(
        self,
        board: chess.Board,
        *,
        max_time_s: float | None = None,
        heading: Callable[[chess.Move, Mapping[str, object]], None] | None = None,
    ) -> chess.Move:
        """The engine's move at its level; castling is king-onto-rook on Chess960 boards.

        ``max_time_s`` caps the time it thinks (a chess clock running low): the level's time per move,
        or its depth or nodes, whichever comes first. ``heading`` hears, for each line the engine reports
        while it searches, the first move of its best line with what it said then (``depth``, ``nodes``,
        ``time``): the move it is heading for (at a weaker level it may play another). It is called on
        the engine's thread and must return at once.

        Raises :class:`GameOverError`, :class:`InvalidPositionError`, :class:`EngineFailedError`.
        """
        self._check_position(board, needs_move=True)
        limit = self.settings.limit()
        # A search bounded by depth or nodes starts from an empty hash table, so the move depends on the
        # position alone: a game resumed in a new engine process goes on the same way.
        game = object() if limit.time is None else None
        if max_time_s is not None and (limit.time is None or limit.time > max_time_s):
            limit = chess.engine.Limit(time=max_time_s, depth=limit.depth, nodes=limit.nodes)
        position = board.copy()
        info = chess.engine.INFO_SCORE | chess.engine.INFO_PV

        def play(engine: chess.engine.SimpleEngine) -> chess.engine.PlayResult:
            if heading is None:
                return _move_of(engine.play(position, limit, info=info, game=game))
            # the very search play makes, its lines heard as they come
            with engine.analysis(position, limit, game=game, info=info, options=_playing(engine)) as search:
                for line in search:
                    if pv := line.get("pv"):
                        try:
                            heading(pv[0], dict(line))
                        except Exception:  # a listener's fault: the search goes on without it
                            LOGGER.exception("heading for %s", pv[0].uci())
                best = search.wait()
                return _move_of(chess.engine.PlayResult(best.move, best.ponder, search.info))

        result = self._run("choosing a move", play, limit)
        assert result.move is not None
        self.last_info = dict(result.info)
        return result.move

    def hint(self, board: chess.Board) -> chess.Move:
        """A move for the player to move, from a short search at full strength (:attr:`hint_limit`)."""
        self._check_position(board, needs_move=True)
        options = self.settings.full_strength_options()
        limit, position = self.hint_limit, board.copy()
        result = self._run(
            "finding a hint", lambda engine: _move_of(engine.play(position, limit, options=options)), limit
        )
        assert result.move is not None
        return result.move

    def evaluate(self, board: chess.Board) -> chess.engine.PovScore | None:
        """The position's score from a short search at full strength, None when the engine gave none."""
        self._check_position(board, needs_move=False)
        options = self.settings.full_strength_options()
        limit, position = self.hint_limit, board.copy()
        info = self._run("evaluating", lambda engine: engine.analyse(position, limit, options=options), limit)
        return info.get("score")

    def analyse(self, board: chess.Board, limit: chess.engine.Limit = ANALYSIS_LIMIT) -> dict[str, object]:
        """What a short search at full strength says of the position (``score``, ``pv``, ``depth``),
        whatever the level the engine plays at."""
        self._check_position(board, needs_move=False)
        key = _analysis_key(board, limit)
        if (ahead := self._analysing.get(key)) is not None and (found := ahead.result()) is not None:
            return dict(found[1])  # analysed ahead, while the opponent thought (perhaps just finishing)
        if (known := self._analysed.get(key)) is not None:
            return dict(known)
        options = self.settings.full_strength_options()
        position = board.copy()
        info = self._run("analysing", lambda engine: engine.analyse(position, limit, options=options), limit)
        return dict(info)

    def analysed(
        self, board: chess.Board, limit: chess.engine.Limit = ANALYSIS_LIMIT
    ) -> dict[str, object] | None:
        """What :meth:`analyse` would say of the position when it can say it without searching or waiting
        (analysed ahead, and done); None otherwise."""
        key = _analysis_key(board, limit)
        ahead = self._analysing.get(key)
        if ahead is not None and ahead.is_done:
            found = ahead.result()
            if found is not None and found[1]:
                return dict(found[1])
        known = self._analysed.get(key)
        return None if known is None else dict(known)

    def likely_moves(
        self, board: chess.Board, count: int = 4, limit: chess.engine.Limit = PREDICTION_LIMIT
    ) -> list[tuple[chess.Move, chess.engine.PovScore]]:
        """The ``count`` best moves for the side to move with their scores, best first, from a short
        search at full strength (several lines at once, ``MultiPV``): what a player is likely to play.

        Raises :class:`GameOverError`, :class:`InvalidPositionError`, :class:`EngineClosedError`.
        """
        return self.predict(board, count, limit).likely_moves()

    def predict(
        self, board: chess.Board, count: int = 4, limit: chess.engine.Limit = PREDICTION_LIMIT
    ) -> Foresight:
        """:meth:`likely_moves` in the background, stoppable: its :meth:`Foresight.likely_moves` waits for
        the lines (none when stopped). The engine's other calls wait until it ends or is stopped.

        Raises :class:`GameOverError`, :class:`InvalidPositionError`, :class:`EngineClosedError`.
        """
        self._check_position(board, needs_move=True)
        strength = self.settings.full_strength_options()
        return self._ahead(board, limit, None, lambda engine: strength, None, lines=count)

    def foresee(self, board: chess.Board, *, max_time_s: float | None = None) -> Foresight:
        """Start, in the background, the very search :meth:`best_move` would make in ``board`` (the same
        level, limit and options), and return at once: pondering on a position the game may reach. The
        engine's other calls wait until it ends or is stopped (:meth:`Foresight.stop`).

        Raises :class:`GameOverError`, :class:`InvalidPositionError`, :class:`EngineClosedError`.
        """
        self._check_position(board, needs_move=True)
        limit = self.settings.limit()
        game = object() if limit.time is None else None  # as best_move: the move depends on the position
        if max_time_s is not None and (limit.time is None or limit.time > max_time_s):
            limit = chess.engine.Limit(time=max_time_s, depth=limit.depth, nodes=limit.nodes)

        return self._ahead(board, limit, game, _playing, None)

    def analyse_ahead(self, board: chess.Board, limit: chess.engine.Limit = ANALYSIS_LIMIT) -> Foresight:
        """Start, in the background, the analysis :meth:`analyse` would make of ``board``; once it is done
        :meth:`analyse` answers with it at once (the engine's view of a position the game may reach,
        ready when it does). Stops like :meth:`foresee`.

        Raises :class:`InvalidPositionError`, :class:`EngineClosedError`.
        """
        self._check_position(board, needs_move=False)
        strength = self.settings.full_strength_options()
        return self._ahead(board, limit, None, lambda engine: strength, _analysis_key(board, limit))

    def _ahead(
        self,
        board: chess.Board,
        limit: chess.engine.Limit,
        game: object,
        options: Callable[[chess.engine.SimpleEngine], Mapping[str, int | bool]],
        remember: tuple[str, tuple[str, ...], str] | None,
        *,
        lines: int = 1,
    ) -> Foresight:
        """A search of ``board`` on the engine's worker, stoppable: its best move and what the engine said
        (kept for :meth:`analyse` under ``remember``), and with ``lines`` above one, that many lines."""
        foresight = Foresight(board.copy())
        position = board.copy()
        info = chess.engine.INFO_SCORE | chess.engine.INFO_PV
        multipv = lines if lines > 1 else None

        def search() -> tuple[chess.Move | None, dict[str, object]]:
            engine = self._engine
            if engine is None or foresight.is_stopped:
                return None, {}
            with engine.analysis(
                position, limit, multipv=multipv, game=game, info=info, options=options(engine)
            ) as analysis:
                foresight.attach(analysis)
                best = analysis.wait()
                said = dict(analysis.info)
                foresight.lines = [dict(line) for line in analysis.multipv]
            if remember is not None and not foresight.is_stopped:
                while len(self._analysed) >= _ANALYSED_KEPT:
                    self._analysed.pop(next(iter(self._analysed)))
                self._analysed[remember] = said
            return best.move, said

        if self._closed:
            raise EngineClosedError(f"{self!r} is closed; open a new EnginePlayer")
        foresight.future = self._worker.submit(search)
        if remember is not None:
            self._analysing = {remember: foresight}  # analyse waits for it rather than search twice
        return foresight

    def close(self) -> None:
        """Kill the engine process and wait for it to go; safe to call more than once.

        Another thread may call it to stop a search; the search then raises :class:`EngineClosedError`.
        """
        with self._adopting:
            if self._closed:
                return
            self._closed = True
        self._kill()
        self._worker.shutdown(wait=True, cancel_futures=True)  # (an engine starting then is killed)

    # --- the process ----------------------------------------------------------------------------

    def _start(self) -> chess.engine.SimpleEngine:
        # What an engine writes to stderr is for its developers: passed on, a chatty one floods the
        # terminal (one wrote 273,507 lines in a 16-ply game); kept, python-chess logs every line.
        # Started on the worker, so that a caller who stops waiting (Ctrl-C) leaves an engine that close
        # still kills (_adopt): left running, it would keep the program from ending.
        starting = self._worker.submit(
            chess.engine.SimpleEngine.popen_uci,
            str(self.path),
            timeout=self._startup_timeout_s,
            stderr=subprocess.DEVNULL,
            # its own process group: the terminal's Ctrl-C is the program's, which closes the engine itself
            setpgrp=True,
        )
        starting.add_done_callback(self._adopt)
        engine = self._engine = starting.result()
        if self._closed:
            # closed from another thread while this one started it (after a crash, say)
            self._kill()
            raise EngineClosedError(f"{self!r} was closed while the engine started")
        # The watchdog in _call owns hang detection from here on, for every kind of limit alike.
        engine.timeout = None
        try:
            available = engine.options
            self._plays_chess960 = "UCI_Chess960" in available
            options = self._checked_options(available)
            self._call(engine, lambda e: e.configure(options), self._startup_timeout_s)
        except BaseException:
            self._kill()
            raise
        LOGGER.info(
            "engine %s started (pid %d) at %s", self.path, engine.transport.get_pid(), self.settings.spec()
        )
        return engine

    def _adopt(self, starting: concurrent.futures.Future[chess.engine.SimpleEngine]) -> None:
        """An engine started: it is this player's to kill, unless the player is closed (then now)."""
        if starting.cancelled() or starting.exception() is not None:
            return
        engine = starting.result()
        with self._adopting:
            closed = self._closed
            if not closed:
                self._engine = engine
        if closed:
            engine.close()

    def _checked_options(self, available: Mapping[str, chess.engine.Option]) -> dict[str, int | bool]:
        return checked_options(self.settings, available, self.path)

    def _check_position(self, board: chess.Board, *, needs_move: bool) -> None:
        if self._closed:
            raise EngineClosedError(f"{self!r} is closed; open a new EnginePlayer")
        problem = unsearchable(board, self.path, plays_chess960=self._plays_chess960, needs_move=needs_move)
        if problem is not None:
            raise problem

    def _run(
        self, what: str, search: Callable[[chess.engine.SimpleEngine], T], limit: chess.engine.Limit
    ) -> T:
        """``search`` on a live engine, restarted after a crash or a hang, ``max_attempts`` times at most."""
        timeout_s = self._timeout_for(limit)
        last: BaseException | None = None
        for attempt in range(1, self._max_attempts + 1):
            try:
                if self._engine is None:
                    self.restarts += 1
                    self._engine = self._start()
                return self._call(self._engine, search, timeout_s)
            except _ENGINE_FAILURES as exc:
                if self._closed:  # closed from another thread to stop the search: no restart
                    raise EngineClosedError(f"{self!r} was closed while {what}") from exc
                last = exc
                self._kill()
                LOGGER.warning(
                    "engine %s failed while %s (%s), attempt %d of %d%s",
                    self.path,
                    what,
                    _describe(exc, timeout_s),
                    attempt,
                    self._max_attempts,
                    "; restarting it" if attempt < self._max_attempts else "; giving up",
                )
        failed = FAILED_WHILE.get(what, FAILED_WHILE["choosing a move"])
        raise EngineFailedError(
            _(failed).format(path=str(self.path), count=self._max_attempts, reason=_describe(last, timeout_s))
        ) from last

    def _call(
        self,
        engine: chess.engine.SimpleEngine,
        call: Callable[[chess.engine.SimpleEngine], T],
        timeout_s: float,
    ) -> T:
        future = self._worker.submit(call, engine)
        try:
            return future.result(timeout=timeout_s)
        except TimeoutError:
            if future.done():
                raise
            # Killing the engine makes the stuck call fail with EngineTerminatedError, freeing the worker.
            self._kill()
            concurrent.futures.wait([future], timeout=KILL_WAIT_S)
            raise TimeoutError(f"no answer in {timeout_s:g} s") from None

    def _timeout_for(self, limit: chess.engine.Limit) -> float:
        if self._timeout_s is not None:
            return self._timeout_s
        if limit.time is not None:
            return STALL_GRACE_S + 2 * limit.time
        return UNTIMED_SEARCH_TIMEOUT_S

    def _kill(self) -> None:
        engine, self._engine = self._engine, None
        if engine is None:
            return
        engine.close()  # closes the transport, which kills a process still running
        try:
            engine.returncode.result(timeout=KILL_WAIT_S)
        except (TimeoutError, concurrent.futures.CancelledError):
            LOGGER.warning(
                "engine %s (pid %d) did not exit after being killed", self.path, engine.transport.get_pid()
            )


#: How many analyses made ahead of time an engine keeps.
_ANALYSED_KEPT: Final = 16


def _analysis_key(board: chess.Board, limit: chess.engine.Limit) -> tuple[str, tuple[str, ...], str]:
    return board.fen(), tuple(move.uci() for move in board.move_stack), repr(limit)
