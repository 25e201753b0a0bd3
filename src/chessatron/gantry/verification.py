"""Did the pieces follow the magnet? Compare what the table's sensors see with where the physical state
says every piece stands — the whole table, capture zones and reserve included.

>>> layout = Layout.default()
>>> table = Table.from_board(layout, chess.Board())
>>> sensed = expected_cells(table)
>>> check_table(table, sensed).ok
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import chess
import numpy as np
from scipy.optimize import linear_sum_assignment

from ..i18n import _
from ..planning.layout import Cell, Layout
from ..planning.table import PhysicalPiece, Table


def cell_name(layout: Layout, cell: Cell) -> str:
    """``e4`` for a board square, ``c0r9`` (column 0, row 9) for any other cell."""
    file, rank = cell[0] - layout.board_cell[0], cell[1] - layout.board_cell[1]
    if 0 <= file < 8 and 0 <= rank < 8:
        return chess.square_name(chess.square(file, rank))
    return f"c{cell[0]}r{cell[1]}"


def expected_cells(table: Table) -> frozenset[Cell]:
    """The cells perfect sensors would report for ``table`` (pieces between cells are not seen)."""
    cells = set()
    for piece in table:
        cell = table.layout.node_cell(table.node_of(piece.id))
        if cell is not None:
            cells.add(cell)
    return frozenset(cells)


@dataclass(frozen=True)
class Mismatch:
    """A piece that is not where it should be, or a cell that holds something unexpected."""

    piece: PhysicalPiece | None
    expected: Cell | None
    """Where the piece should be (None: a cell that should be empty holds a piece)."""
    found: Cell | None
    """Where a piece was sensed instead (None: nowhere that explains it)."""
    message: str


@dataclass(frozen=True)
class TableCheck:
    mismatches: tuple[Mismatch, ...]

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def messages(self) -> list[str]:
        return [m.message for m in self.mismatches]


def check_table(table: Table, sensed: Iterable[Cell]) -> TableCheck:
    """Report every piece the sensors do not see where the state expects it, paired (by an optimal
    assignment on distance) with the unexpected cells where it probably is — typically a piece that did
    not follow the magnet and stayed behind, or slid off on the way."""
    layout = table.layout
    seen = frozenset(sensed)
    expected = expected_cells(table)
    missing = sorted(expected - seen)
    extra = sorted(seen - expected)
    owner = {layout.node_cell(table.node_of(p.id)): p for p in table}
    pairs: dict[Cell, Cell] = {}
    if missing and extra:
        cost = np.array([[abs(m[0] - e[0]) + abs(m[1] - e[1]) for e in extra] for m in missing], dtype=float)
        rows, cols = linear_sum_assignment(cost)
        pairs = {missing[i]: extra[j] for i, j in zip(rows, cols, strict=True)}
    mismatches = []
    for cell in missing:
        piece = owner.get(cell)
        name = f"{piece.id} ({piece.symbol})" if piece else ""
        found = pairs.get(cell)
        where = cell_name(layout, cell)
        if found is not None:
            text = (
                _(
                    "{piece} should be on {square} but a piece stands on {there}: it did not follow the "
                    "magnet; put it on {square}"
                )
                if piece
                else _(
                    "a piece should be on {square} but a piece stands on {there}: it did not follow the "
                    "magnet; put it on {square}"
                )
            ).format(piece=name, square=where, there=cell_name(layout, found))
        else:
            text = (
                _("{piece} should be on {square} but the sensors see nothing there")
                if piece
                else _("a piece should be on {square} but the sensors see nothing there")
            ).format(piece=name, square=where)
        mismatches.append(Mismatch(piece, cell, found, text))
    for cell in extra:
        if cell not in pairs.values():
            text = _("a piece on {square} should not be there; remove it").format(
                square=cell_name(layout, cell)
            )
            mismatches.append(Mismatch(None, None, cell, text))
    return TableCheck(tuple(mismatches))
