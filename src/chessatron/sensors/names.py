"""Names for table cells in sensor configuration: ``e4`` for a board cell, ``c0r9`` for any cell.

Board cells read best as chess squares; cells off the board (capture zones, reserve, parking room) are
named by column and row, counted from 0 at the table corner: ``c0r9`` is column 0, row 9. A board cell may
also be written ``cCrR``; :func:`cell_name` always gives the chess square.

>>> layout = Layout.default()
>>> parse_cell("e4", layout), parse_cell("c0r9", layout)
((6, 4), (0, 9))
>>> cell_name((6, 4), layout), cell_name((0, 9), layout)
('e4', 'c0r9')
"""

from __future__ import annotations

import re

import chess

from ..errors import ConfigError
from ..i18n import _
from ..planning.layout import Cell, Layout

_SQUARE = re.compile(r"[a-h][1-8]")
_GRID = re.compile(r"c(\d+)r(\d+)")


def cell_name(cell: Cell, layout: Layout) -> str:
    """``e4`` for a board cell, ``c0r9`` for any other."""
    square = layout.node_square(layout.cell_node(cell))
    if square is not None:
        return chess.square_name(square)
    return f"c{cell[0]}r{cell[1]}"


def parse_cell(text: str, layout: Layout) -> Cell:
    """The cell a name such as ``e4`` or ``c0r9`` stands for; raises :class:`ConfigError` for a name that is
    not a cell of ``layout``'s table."""
    name = text.strip().lower()
    if _SQUARE.fullmatch(name):
        return layout.square_cell(chess.parse_square(name))
    match = _GRID.fullmatch(name)
    if match is None:
        raise ConfigError(
            _(
                "{text!r} is not a cell name; name board cells like 'e4' and any cell like 'c0r9' (column 0, "
                "row 9)"
            ).format(text=text)
        )
    cell = (int(match[1]), int(match[2]))
    if not (0 <= cell[0] < layout.columns and 0 <= cell[1] < layout.rows):
        raise ConfigError(
            _(
                "cell {text!r} lies outside the {columns} x {rows} table; columns run 0-{last_column} and "
                "rows "
                "0-{last_row}"
            ).format(
                text=text,
                columns=layout.columns,
                rows=layout.rows,
                last_column=layout.columns - 1,
                last_row=layout.rows - 1,
            )
        )
    return cell
