"""A search started ahead of time (:meth:`~.player.EnginePlayer.foresee`,
:meth:`~.player.EnginePlayer.predict`, :meth:`~.player.EnginePlayer.analyse_ahead`): the engine works on a
position the game may reach while it is still elsewhere (the opponent thinking), and the search is stopped the
moment the game goes another way.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading

import chess
import chess.engine

from .settings import _ENGINE_FAILURES, _describe

LOGGER = logging.getLogger(__name__)


class Foresight:
    """A search started ahead of time by :meth:`EnginePlayer.foresee`: the move the engine would make in
    :attr:`board`, found while the game is still elsewhere (the opponent thinking)."""

    def __init__(self, board: chess.Board) -> None:
        self.board = board
        self.future: concurrent.futures.Future[tuple[chess.Move | None, dict[str, object]]] | None = None
        #: Every line the engine gave, best first (one unless asked for more), once the search is done.
        self.lines: list[dict[str, object]] = []
        self._analysis: chess.engine.SimpleAnalysisResult | None = None
        self._stopped = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        state = "stopped" if self._stopped else "done" if self.is_done else "searching"
        return f"Foresight({self.board.fen()!r}, {state})"

    @property
    def is_stopped(self) -> bool:
        return self._stopped

    @property
    def is_done(self) -> bool:
        return self.future is not None and self.future.done()

    def attach(self, analysis: chess.engine.SimpleAnalysisResult) -> None:
        """The engine's worker began the search (a stop from now on ends it)."""
        with self._lock:
            self._analysis = analysis
            stopped = self._stopped
        if stopped:
            analysis.stop()

    def stop(self) -> None:
        """Abandon the search (the game went elsewhere): the engine stops at once; no move comes of it."""
        with self._lock:
            self._stopped = True
            analysis = self._analysis
        if analysis is not None:
            analysis.stop()

    def result(self, timeout_s: float | None = None) -> tuple[chess.Move, dict[str, object]] | None:
        """The move and what the engine said of it (``score``, ``pv``), waiting for the search to end
        (at most ``timeout_s``); None when it was stopped, failed or is not done in time."""
        if self.future is None:
            return None
        try:
            move, info = self.future.result(timeout=timeout_s)
        except (*_ENGINE_FAILURES, concurrent.futures.CancelledError, TimeoutError) as exc:
            LOGGER.info("no move foreseen for %s: %s", self.board.fen(), _describe(exc))
            return None
        if move is None or self._stopped:
            return None
        return move, info

    def likely_moves(self, timeout_s: float | None = None) -> list[tuple[chess.Move, chess.engine.PovScore]]:
        """The first move of every line with its score, best first (:meth:`EnginePlayer.predict`), once
        the search is done; none when it was stopped, failed or is not done in time."""
        if self.result(timeout_s) is None:
            return []
        found: list[tuple[chess.Move, chess.engine.PovScore]] = []
        for line in self.lines:
            pv, score = line.get("pv"), line.get("score")
            if isinstance(pv, list) and pv and isinstance(score, chess.engine.PovScore):
                move = pv[0]
                if isinstance(move, chess.Move) and move not in (known for known, _ in found):
                    found.append((move, score))
        return found
