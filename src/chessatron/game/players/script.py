"""The ``script:FILE`` player: the moves of a PGN's main line, in order."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import chess

from ...errors import ChessatronError
from ...i18n import _, ngettext
from ...sim.simulate import read_game
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
            count = len(self.moves)
            if board.turn == chess.WHITE:
                # TRANSLATORS: {path}: the PGN file; {count}: the half-moves it has
                notice = ngettext(
                    "the script {path!r} has no move for white after its {count} ply: the game stops here, "
                    "saved",
                    "the script {path!r} has no move for white after its {count} plies: the game stops here, "
                    "saved",
                    count,
                )
            else:
                notice = ngettext(
                    "the script {path!r} has no move for black after its {count} ply: the game stops here, "
                    "saved",
                    "the script {path!r} has no move for black after its {count} plies: the game stops here, "
                    "saved",
                    count,
                )
            self.on_notice(notice.format(path=str(self.path), count=count))
            return Command.QUIT
        move = self.moves[ply]
        if not board.is_legal(move):
            # TRANSLATORS: {move}: the move in UCI; {fen}: the position, in FEN
            message = _("the script's move {move!r} is not legal in {fen!r}")
            raise ChessatronError(message.format(move=move.uci(), fen=board.fen()))
        return move
