"""The comparator of the recognition benchmark: the move-recognition rules LiBoard documents (LiBoard is
an open sensor board for lichess; its Python package recognises moves from occupancy alone), rewritten
here from their description, for comparison only.

The rules: remember every square of the position that has been seen empty since the last move (the
"lifted" squares). Once the board has been unchanged for the move delay and differs from the position,
compare it with the position: the squares that disappeared and those that appeared, and the lifted squares
that are occupied again now (the "temporarily lifted" ones). Then

* one disappeared and one appeared: a normal move from the one to the other;
* one disappeared, none appeared, and some temporarily lifted: a capture from the disappeared square onto
  a temporarily lifted one (the first that is a legal capture);
* two disappeared and one appeared: en passant;
* two disappeared and two appeared: castling;

anything else (and a move that is not legal) is no move; a failed attempt waits ten seconds before the
next. Promotions are to a queen. A board that never differs from the position (a Chess960 castling that
swaps king and rook) makes no move.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess

from chessatron.planning.layout import Layout
from chessatron.sim.trace import Snapshot, TableSnapshot, TraceEntry, board_bits

#: After a failed attempt the rules wait this long before trying again.
RETRY_S = 10.0


@dataclass
class LiBoardRules:
    board: chess.Board
    settle_s: float = 0.3
    layout: Layout = field(default_factory=Layout.default)
    _occupied: int | None = None
    _changed_t: float = 0.0
    _lifted: int = 0
    _next_try_t: float = 0.0

    def feed(self, entry: TraceEntry) -> None:
        if isinstance(entry, Snapshot):
            occupied = entry.occupied
        elif isinstance(entry, TableSnapshot):
            occupied = board_bits(entry.cells, self.layout)
        else:
            return  # the rules know no prompts
        if occupied != self._occupied:
            self._occupied = occupied
            self._changed_t = self._next_try_t = entry.t
            self._lifted |= int(self.board.occupied) & ~occupied
        if (
            occupied != self.board.occupied
            and entry.t - self._changed_t >= self.settle_s
            and entry.t >= self._next_try_t
        ):
            move = self._find(occupied)
            if move is None:
                self._next_try_t = entry.t + RETRY_S
            else:
                self.board.push(move)
                self._lifted = 0

    def _find(self, occupied: int) -> chess.Move | None:
        position = int(self.board.occupied)
        gone = chess.SquareSet(position & ~occupied)
        came = chess.SquareSet(occupied & ~position)
        back = chess.SquareSet(self._lifted & occupied)
        for move in self.board.legal_moves:
            if move.promotion not in (None, chess.QUEEN):
                continue
            if len(gone) == 1 and len(came) == 1:
                if (
                    self._shows(move, gone, came)
                    and not self.board.is_capture(move)
                    and not self.board.is_castling(move)
                ):
                    return move
            elif len(gone) == 1 and not came and back:
                if (
                    self.board.is_capture(move)
                    and not self.board.is_en_passant(move)
                    and move.from_square in gone
                    and move.to_square in back
                ):
                    return move
            elif len(gone) == 2 and len(came) == 1:
                if self.board.is_en_passant(move) and self._shows(move, gone, came):
                    return move
            elif (
                len(gone) == 2
                and len(came) == 2
                and self.board.is_castling(move)
                and self._shows(move, gone, came)
            ):
                return move
        return None

    def _shows(self, move: chess.Move, gone: chess.SquareSet, came: chess.SquareSet) -> bool:
        self.board.push(move)
        try:
            after = int(self.board.occupied)
        finally:
            self.board.pop()
        position = int(self.board.occupied)
        return chess.SquareSet(position & ~after) == gone and chess.SquareSet(after & ~position) == came
