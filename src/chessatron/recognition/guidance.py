"""What to tell a player whose board does not match the game: which squares are missing a piece, which
hold one too many, paired by an optimal assignment into "put the piece from e5 back on e4".
"""

from __future__ import annotations

from dataclasses import dataclass

import chess
import numpy as np
from scipy.optimize import linear_sum_assignment


@dataclass(frozen=True)
class Guidance:
    """Differences between the board and the position, and what to do about them."""

    missing: tuple[chess.Square, ...]
    """Squares that should hold a piece and are empty."""
    extra: tuple[chess.Square, ...]
    """Squares that hold a piece and should be empty."""
    pairs: tuple[tuple[chess.Square, chess.Square], ...]
    """(extra, missing): the piece standing on the first square belongs on the second."""

    @property
    def is_clear(self) -> bool:
        return not self.missing and not self.extra

    def instructions(self, board: chess.Board | None = None) -> list[str]:
        """Short sentences for a person, using piece names when ``board`` (the position) is given."""
        lines = []
        paired_missing = {m for _, m in self.pairs}
        paired_extra = {e for e, _ in self.pairs}
        for extra, missing in self.pairs:
            piece = board.piece_at(missing) if board is not None else None
            name = f"the {chess.piece_name(piece.piece_type)}" if piece else "the piece"
            lines.append(f"put {name} from {chess.square_name(extra)} back on {chess.square_name(missing)}")
        for missing in self.missing:
            if missing not in paired_missing:
                piece = board.piece_at(missing) if board is not None else None
                what = (
                    f"the {chess.COLOR_NAMES[piece.color]} {chess.piece_name(piece.piece_type)}"
                    if piece
                    else "a piece"
                )
                lines.append(f"put {what} back on {chess.square_name(missing)}")
        for extra in self.extra:
            if extra not in paired_extra:
                lines.append(f"remove the piece from {chess.square_name(extra)}")
        return lines


def guidance(expected: int, occupied: int) -> Guidance:
    """Compare two occupancy bitboards (python-chess numbering) and pair the differences."""
    missing = tuple(chess.SquareSet(expected & ~occupied))
    extra = tuple(chess.SquareSet(occupied & ~expected))
    pairs: tuple[tuple[chess.Square, chess.Square], ...] = ()
    if missing and extra:
        cost = np.array([[chess.square_distance(e, m) for m in missing] for e in extra], dtype=float)
        rows, cols = linear_sum_assignment(cost)
        pairs = tuple((extra[i], missing[j]) for i, j in zip(rows, cols, strict=True))
    return Guidance(missing, extra, pairs)
