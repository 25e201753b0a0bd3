"""What to tell a player whose board does not match the game: which squares are missing a piece, which
hold one too many, paired by an optimal assignment into "put the piece from e5 back on e4".
"""

from __future__ import annotations

from dataclasses import dataclass

import chess
import numpy as np
from scipy.optimize import linear_sum_assignment

from ..i18n import N_, _

# One sentence for every piece (its name's gender and article differ between languages).
_PUT_BACK_FROM = {
    chess.PAWN: N_("put the pawn from {square} back on {target}"),
    chess.KNIGHT: N_("put the knight from {square} back on {target}"),
    chess.BISHOP: N_("put the bishop from {square} back on {target}"),
    chess.ROOK: N_("put the rook from {square} back on {target}"),
    chess.QUEEN: N_("put the queen from {square} back on {target}"),
    chess.KING: N_("put the king from {square} back on {target}"),
}
_PUT_BACK = {
    (chess.WHITE, chess.PAWN): N_("put the white pawn back on {target}"),
    (chess.WHITE, chess.KNIGHT): N_("put the white knight back on {target}"),
    (chess.WHITE, chess.BISHOP): N_("put the white bishop back on {target}"),
    (chess.WHITE, chess.ROOK): N_("put the white rook back on {target}"),
    (chess.WHITE, chess.QUEEN): N_("put the white queen back on {target}"),
    (chess.WHITE, chess.KING): N_("put the white king back on {target}"),
    (chess.BLACK, chess.PAWN): N_("put the black pawn back on {target}"),
    (chess.BLACK, chess.KNIGHT): N_("put the black knight back on {target}"),
    (chess.BLACK, chess.BISHOP): N_("put the black bishop back on {target}"),
    (chess.BLACK, chess.ROOK): N_("put the black rook back on {target}"),
    (chess.BLACK, chess.QUEEN): N_("put the black queen back on {target}"),
    (chess.BLACK, chess.KING): N_("put the black king back on {target}"),
}


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
        """Short sentences for a person in the current language, using piece names when ``board`` (the
        position) is given."""
        lines = []
        paired_missing = {m for _extra, m in self.pairs}
        paired_extra = {e for e, _missing in self.pairs}
        for extra, missing in self.pairs:
            piece = board.piece_at(missing) if board is not None else None
            text = (
                _(_PUT_BACK_FROM[piece.piece_type])
                if piece
                else _("put the piece from {square} back on {target}")
            )
            lines.append(text.format(square=chess.square_name(extra), target=chess.square_name(missing)))
        for missing in self.missing:
            if missing not in paired_missing:
                piece = board.piece_at(missing) if board is not None else None
                text = (
                    _(_PUT_BACK[piece.color, piece.piece_type])
                    if piece
                    else _("put a piece back on {target}")
                )
                lines.append(text.format(target=chess.square_name(missing)))
        for extra in self.extra:
            if extra not in paired_extra:
                lines.append(_("remove the piece from {square}").format(square=chess.square_name(extra)))
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
