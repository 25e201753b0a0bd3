"""Where the board lies under the gantry, from the machine positions of a few square centres: its a1, the
size of its squares along the files and along the ranks, how far it is turned, and how square the gantry
draws it. Pure arithmetic over values, no machine.

The squares' centres measured (three at least, not on one line: a1, h8 and a8 or h1) fix an affine map
from (file, rank) to machine millimetres: a1's centre, and the machine vector of one file and of one
rank. Its lengths are the square sizes, their directions the board's turn; the angle between them
minus 90° is how far the gantry is out of square.

>>> layout = Layout.default()
>>> fit = fit_board(layout, {chess.A1: (138.0, 85.0), chess.H8: (494.0, 441.0), chess.A8: (138.0, 441.0)})
>>> round(fit.square_mm, 3), round(fit.turn_deg, 3), [round(v, 2) for v in fit.origin_mm]
(50.857, 0.0, [10.86, 8.71])
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import chess
import numpy as np

from ..errors import LayoutError
from ..planning.layout import MAX_TURN_DEG, Layout, MachinePoint

__all__ = ["BoardFit", "fit_board"]


@dataclass(frozen=True)
class BoardFit:
    """The board as measured: ``a1_mm`` (a1's centre, machine mm), the size of a square along the files
    (``file_mm``) and along the ranks (``rank_mm``), ``rotation_deg`` (the layout's quarter turn and the
    small turn found, the files' and ranks' directions averaged), ``out_of_square_deg`` (the angle between
    files and ranks less 90°: a gantry whose axes are not square), ``origin_mm`` (the table corner the
    layout counts from, for the mean square) and ``residual_mm`` (the worst distance between a centre
    measured and the fit: more than a millimetre with more than three centres is a slip of the hand)."""

    a1_mm: MachinePoint
    file_mm: float
    rank_mm: float
    rotation_deg: float
    out_of_square_deg: float
    origin_mm: MachinePoint
    residual_mm: float

    @property
    def square_mm(self) -> float:
        """The mean square size (the layout has one)."""
        return (self.file_mm + self.rank_mm) / 2

    @property
    def turn_deg(self) -> float:
        """The small turn off the quarter turn (degrees, counter-clockwise seen from above)."""
        return self.rotation_deg - 90 * round(self.rotation_deg / 90)

    @property
    def squares_differ(self) -> float:
        """How much the squares along the files and along the ranks differ, as a fraction."""
        return abs(self.file_mm - self.rank_mm) / self.square_mm

    def layout(self, layout: Layout) -> Layout:
        """``layout`` with this board's origin, square size and rotation (rounded to what a person writes:
        hundredths of a millimetre, thousandths of a degree). Raises :class:`LayoutError` when the
        table so placed does not fit the machine (a corner outside the envelope), or is turned further
        than the layout allows."""
        if abs(self.turn_deg) > MAX_TURN_DEG:
            raise LayoutError(
                f"the board is turned {self.turn_deg:.2f}° on the table, more than the {MAX_TURN_DEG:g}° the "
                "layout follows; square the board with the gantry's x axis (measure a1 to h1 against the "
                "rail) and calibrate again"
            )
        square = round(self.square_mm, 3)
        return replace(
            layout,
            origin_mm=(round(self.origin_mm[0], 2), round(self.origin_mm[1], 2)),
            square_mm=square,
            clearance_mm=min(layout.clearance_mm, square),
            rotation_deg=round(self.rotation_deg, 3),
        )


def fit_board(layout: Layout, centres: Mapping[chess.Square, MachinePoint]) -> BoardFit:
    """The board that puts ``centres`` (machine positions of square centres, three or more not on one
    line) where they were found, least squares; ``layout`` says which cell a1 is and the quarter turn.
    Raises :class:`LayoutError` for too few centres, or centres on one line."""
    squares = sorted(centres)
    grid = np.array([[1.0, chess.square_file(s), chess.square_rank(s)] for s in squares])
    if len(squares) < 3 or np.linalg.matrix_rank(grid) < 3:
        raise LayoutError(
            f"the board needs three square centres not on one line to be measured, got {len(squares)}"
        )
    points = np.array([centres[s] for s in squares], dtype=float)
    solution, *_ = np.linalg.lstsq(grid, points, rcond=None)
    a1, along_file, along_rank = (np.asarray(row, dtype=float) for row in solution)
    residual = float(np.max(np.hypot(*(grid @ solution - points).T)))
    quarter = 90.0 * layout.quarter_turns
    file_deg = _wrap(math.degrees(math.atan2(along_file[1], along_file[0])) - quarter)
    rank_deg = _wrap(math.degrees(math.atan2(along_rank[1], along_rank[0])) - quarter - 90.0)
    rotation = quarter + (file_deg + rank_deg) / 2
    file_mm, rank_mm = float(np.hypot(*along_file)), float(np.hypot(*along_rank))
    square = (file_mm + rank_mm) / 2
    # a1's centre lies half a square into its cell: the table corner is that far, and the board's cell
    # offset, back along the board's directions
    i, j = layout.square_node(chess.A1)
    tx, ty = i * square / 2, j * square / 2
    angle = math.radians(rotation)
    cos, sin = math.cos(angle), math.sin(angle)
    origin = (float(a1[0]) - (tx * cos - ty * sin), float(a1[1]) - (tx * sin + ty * cos))
    return BoardFit(
        a1_mm=(float(a1[0]), float(a1[1])),
        file_mm=file_mm,
        rank_mm=rank_mm,
        rotation_deg=rotation,
        out_of_square_deg=rank_deg - file_deg,
        origin_mm=origin,
        residual_mm=residual,
    )


def _wrap(degrees: float) -> float:
    """An angle in (-180, 180]."""
    return -((-degrees + 180.0) % 360.0 - 180.0)
