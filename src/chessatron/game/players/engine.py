"""The ``engine[:LEVEL]`` player: the robot's engine (:class:`~chessatron.game.engine.player.EnginePlayer`)
choosing within its clock's budget, or answering at once with the move it found while the opponent
thought (:mod:`chessatron.game.ponder`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import chess

from ..engine.player import EnginePlayer
from .base import Command

__all__ = ["EngineMover"]


class EngineMover:
    def __init__(self, engine: EnginePlayer) -> None:
        self.engine = engine
        #: The most the engine may think about a move (seconds) as its clock stands, None without one.
        self.budget: Callable[[chess.Board], float | None] = lambda board: None
        #: The move the engine found for this position while the opponent thought (pondering), if any.
        self.foreseen: Callable[[chess.Board], chess.Move | None] = lambda board: None
        #: Told, as a search of a position not foreseen goes on, the move the engine is heading for
        #: (:meth:`EnginePlayer.best_move`): the magnet sets off for it. None: nobody listens.
        self.heading: Callable[[chess.Board, chess.Move, Mapping[str, object]], None] | None = None

    def choose(self, board: chess.Board) -> chess.Move | Command:
        foreseen = self.foreseen(board)
        if foreseen is not None:
            return foreseen
        heard = self.heading
        told = None if heard is None else lambda move, info: heard(board, move, info)
        return self.engine.best_move(board, max_time_s=self.budget(board), heading=told)
