"""The ``script:FILE`` player: the moves of a PGN's main line, in order."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import chess

from ...errors import ChessatronError
from ...sim.simulate import read_game
from ..telling.live import colour_name
from .base import Command

__all__ = ["ScriptMover"]


class ScriptMover:
    """Plays the moves of a PGN's main line, in order. When they run out before the game ends, the game
    stops there, saved to go on with (adjourned: ``play --resume`` continues it), as when the input of
    a keyboard player ends; nobody resigns."""

    def __init__(self, path: Path) -> None:
        self.path = path
        game = read_game(path)
        self.moves = list(game.mainline_moves())
        #: Told why the game stops when the moves run out.
        self.on_notice: Callable[[str], None] = lambda message: None

    def choose(self, board: chess.Board) -> chess.Move | Command:
        ply = len(board.move_stack)
        if ply >= len(self.moves):
            self.on_notice(
                f"the script {str(self.path)!r} has no move for {colour_name(board.turn)} after its "
                f"{len(self.moves)} plies: the game stops here, saved"
            )
            return Command.QUIT
        move = self.moves[ply]
        if not board.is_legal(move):
            raise ChessatronError(f"the script's move {move.uci()!r} is not legal in {board.fen()!r}")
        return move
