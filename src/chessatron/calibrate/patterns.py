"""The wirings makers usually build, for the sensors' quick path: what the start position should read on
each, and the pin map a few probes pin down.

A table's cells come in *lines* of up to eight, each on one expander port, bit 0 at one end of the line
or the other: the board's ranks (a port per rank, the default) or its files (a port per file), then the
cells off the board in rows from the table's corner, eight to a port (as :meth:`PinMap.default` wires
them). Which port each line is on and which way it runs is what the probes find: one cell a line.

>>> layout = Layout.default()
>>> lines = board_lines(layout, "ranks")
>>> [cell_name(cell, layout) for cell in lines[0][:3]]
['a1', 'b1', 'c1']
>>> ends = frozenset(Pin(i // 2, "AB"[i % 2], b) for i in range(8) for b in (0, 1, 6, 7))
>>> start_fits(layout, "files", ends), start_fits(layout, "ranks", ends)
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal, TypeAlias

import chess

from ..planning.layout import Cell, Layout
from ..sensors.names import cell_name
from ..sensors.pinmap import BITS_PER_PORT, Pin

__all__ = ["Family", "Line", "board_lines", "line_pins", "off_board_lines", "ports_of", "start_fits"]

Family = Literal["ranks", "files"]
Line: TypeAlias = tuple[Cell, ...]
"""Cells in the order bits 0, 1, 2 … see them when the line runs forward."""

#: The cells of the start position that hold a piece, per line of each family (index in the line).
START_RANKS = (0, 1, 6, 7)


def board_lines(layout: Layout, family: Family) -> list[Line]:
    """The board's eight lines: ranks 1-8 (a to h), or files a-h (1 to 8)."""
    if family == "ranks":
        return [tuple(layout.square_cell(chess.square(f, r)) for f in range(8)) for r in range(8)]
    return [tuple(layout.square_cell(chess.square(f, r)) for r in range(8)) for f in range(8)]


def off_board_lines(layout: Layout) -> list[Line]:
    """The cells off the board in rows from the table's corner, eight to a line (the default map's)."""
    board = set(layout.board_cells())
    others = [(c, r) for r in range(layout.rows) for c in range(layout.columns) if (c, r) not in board]
    return [tuple(others[i : i + BITS_PER_PORT]) for i in range(0, len(others), BITS_PER_PORT)]


def ports_of(pins: Iterable[Pin]) -> dict[tuple[int, str], set[int]]:
    """The bits of each port among ``pins``."""
    found: dict[tuple[int, str], set[int]] = {}
    for pin in pins:
        found.setdefault((pin.expander, pin.port), set()).add(pin.bit)
    return found


def start_fits(layout: Layout, family: Family, low: frozenset[Pin]) -> bool:
    """Whether the inputs ``low`` while the start position stands fit ``family``: four full ports for
    ranks (ranks 1, 2, 7 and 8), eight ports each with both ends' two bits for files. One input short
    per port is allowed (a dead sensor is found later)."""
    ports = ports_of(low)
    if family == "ranks":
        return len(ports) == 4 and all(len(bits) >= BITS_PER_PORT - 1 for bits in ports.values())
    ends = {0, 1, 6, 7}
    return len(ports) == 8 and all(bits <= ends and len(bits) >= 3 for bits in ports.values())


def line_pins(line: Sequence[Cell], first: Pin) -> dict[Cell, Pin] | None:
    """The pins of ``line`` when its first cell is on ``first``: the port's bits from that end (None:
    ``first`` is at neither end of a port, so the line is not wired as a pattern)."""
    if first.bit == 0:
        bits = list(range(len(line)))
    elif first.bit == BITS_PER_PORT - 1:
        bits = [BITS_PER_PORT - 1 - i for i in range(len(line))]
    else:
        return None
    return {cell: Pin(first.expander, first.port, bit) for cell, bit in zip(line, bits, strict=True)}


def describe_line(line: Line, layout: Layout) -> str:
    """``a1-h1`` for a line, by its end cells."""
    return f"{cell_name(line[0], layout)}-{cell_name(line[-1], layout)}"
