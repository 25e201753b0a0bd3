"""Which table cell sits over which LED of a strip.

LED strips are chained: pixel 0 is the one nearest the Pi, and the strip winds under the board. The
usual wirings are *serpentine* (rows alternate direction, so the strip folds back at each edge) and
*rows* (every row starts at the same side, with a long wire back), starting from any corner. Anything
else is a mapping file with one entry per pixel.

>>> layout = Layout.default()
>>> mapping = LedMapping.grid(layout, "serpentine")
>>> mapping.index(layout.square_cell(chess.E4))  # the 4th row runs from h4 back to a4
27
>>> LedMapping.grid(layout, "rows").index(layout.square_cell(chess.E4))
28
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast, get_args

import chess

from .. import files
from ..errors import LedMappingError
from ..i18n import N_, _
from ..planning.layout import Cell, Layout

Wiring = Literal["serpentine", "rows"]
Corner = Literal["a1", "h1", "a8", "h8"]
"""The corner of the covered area where pixel 0 sits, named after the board square nearest it."""
Along = Literal["ranks", "files"]
"""Whether the strip runs along ranks (left-right, as seen by white) or along files (up-down)."""
Cover = Literal["board", "table"]
"""What a grid wiring covers: the 8 x 8 board, or every cell of the table (capture zones included)."""

_CELL_ENTRY = re.compile(r"(\d+):(\d+)")


@dataclass(frozen=True)
class LedMapping:
    """The cell over each pixel of a strip, in strip order; None for a pixel under no cell.

    Raises :class:`LedMappingError` if a cell appears twice.
    """

    cells: tuple[Cell | None, ...]
    #: What the mapping is, in the messages about it (translated where shown).
    description: str = N_("a custom mapping")
    _index: dict[Cell, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[Cell, int] = {}
        for i, cell in enumerate(self.cells):
            if cell is None:
                continue
            if cell in index:
                raise LedMappingError(
                    # TRANSLATORS: {mapping} is a description such as "the serpentine mapping of the board"
                    _(
                        "{mapping} puts cell {cell!r} under pixels {first} and {second}; give every cell one "
                        "pixel"
                    ).format(mapping=_(self.description), cell=cell, first=index[cell], second=i)
                )
            index[cell] = i
        if not self.cells:
            raise LedMappingError(
                _("{mapping} has no pixels; give at least one").format(mapping=_(self.description))
            )
        object.__setattr__(self, "_index", index)

    @property
    def count(self) -> int:
        """Pixels on the strip (including unused ones)."""
        return len(self.cells)

    def index(self, cell: Cell) -> int | None:
        """The pixel under ``cell``, or None when no pixel is."""
        return self._index.get(cell)

    def lit_cells(self) -> frozenset[Cell]:
        """Every cell that has a pixel under it."""
        return frozenset(self._index)

    def __iter__(self) -> Iterator[Cell | None]:
        return iter(self.cells)

    def __repr__(self) -> str:
        return f"LedMapping({self.description}, {self.count} pixels)"

    # --- construction ------------------------------------------------------------------------------

    @classmethod
    def grid(
        cls,
        layout: Layout,
        wiring: Wiring = "serpentine",
        *,
        origin: Corner = "a1",
        along: Along = "ranks",
        cover: Cover = "board",
    ) -> LedMapping:
        """A strip laid row after row over the board (or the whole table), starting at ``origin``.

        >>> layout = Layout.default()
        >>> m = LedMapping.grid(layout, "serpentine", origin="h8")
        >>> [chess.square_name(layout.node_square(layout.cell_node(c))) for c in m.cells[7:10]]
        ['a8', 'a7', 'b7']
        """
        for name, value, allowed in (
            ("wiring", wiring, get_args(Wiring)),
            ("origin", origin, get_args(Corner)),
            ("along", along, get_args(Along)),
            ("cover", cover, get_args(Cover)),
        ):
            if value not in allowed:
                raise LedMappingError(
                    _("LED {option} {value!r} is not one of {choices}").format(
                        option=name, value=value, choices=", ".join(allowed)
                    )
                )
        if cover == "board":
            columns = range(layout.board_cell[0], layout.board_cell[0] + 8)
            rows = range(layout.board_cell[1], layout.board_cell[1] + 8)
        else:
            columns, rows = range(layout.columns), range(layout.rows)
        if origin[0] == "h":
            columns = columns[::-1]
        if origin[1] == "8":
            rows = rows[::-1]
        outer, inner = (rows, columns) if along == "ranks" else (columns, rows)
        cells: list[Cell | None] = []
        for k, major in enumerate(outer):
            minors = inner[::-1] if wiring == "serpentine" and k % 2 else inner
            for minor in minors:
                cells.append((minor, major) if along == "ranks" else (major, minor))
        # TRANSLATORS: the words in braces are the config's values (serpentine or rows, board or table, a
        # corner such as a1, ranks or files), kept as written
        what = _("the {wiring} mapping of the {cover} from {origin} along {along}").format(
            wiring=wiring, cover=cover, origin=origin, along=along
        )
        return cls(tuple(cells), what)

    @classmethod
    def from_entries(cls, entries: Iterable[str], layout: Layout, *, source: str | None = None) -> LedMapping:
        """A mapping from one entry per pixel: a square (``e4``), a table cell (``column:row``, such as
        ``11:0`` for a capture cell), or ``-`` for a pixel under no cell.

        >>> LedMapping.from_entries(["a1", "-", "0:9"], Layout.default()).cells
        ((2, 1), None, (0, 9))
        """
        source = source if source is not None else _("the mapping")
        cells: list[Cell | None] = []
        for i, raw in enumerate(entries):
            entry = raw.strip().lower()
            if entry == "-":
                cells.append(None)
            elif entry in chess.SQUARE_NAMES:
                cells.append(layout.square_cell(chess.parse_square(entry)))
            elif match := _CELL_ENTRY.fullmatch(entry):
                cell = (int(match[1]), int(match[2]))
                if not (cell[0] < layout.columns and cell[1] < layout.rows):
                    raise LedMappingError(
                        _(
                            "{source}: pixel {pixel} is under cell {cell!r}, outside the {columns} x {rows} "
                            "table"
                        ).format(source=source, pixel=i, cell=raw, columns=layout.columns, rows=layout.rows)
                    )
                cells.append(cell)
            else:
                raise LedMappingError(
                    _(
                        "{source}: pixel {pixel} is {entry!r}; write a square (e4), a cell (column:row) or - "
                        "(none)"
                    ).format(source=source, pixel=i, entry=raw)
                )
        return cls(tuple(cells), source)

    @classmethod
    def from_file(cls, path: str | Path, layout: Layout) -> LedMapping:
        """A mapping file: entries as in :meth:`from_entries`, separated by spaces, commas or new lines;
        ``#`` starts a comment. Eight entries a line, one line per row of the strip, reads best."""
        text = files.read_text(path, files.LED_MAPPING)
        source = _("LED mapping {path!r}").format(path=str(path))
        return cls.from_entries(parse_entries(text), layout, source=source)


def parse_entries(text: str) -> list[str]:
    """The entries of a mapping file, comments and separators dropped."""
    entries: list[str] = []
    for line in text.splitlines():
        entries.extend(part for part in re.split(r"[\s,]+", line.split("#", 1)[0]) if part)
    return entries


def resolve(
    layout: Layout,
    order: str = "serpentine",
    *,
    origin: str = "a1",
    along: str = "ranks",
    cover: str = "board",
    mapping: Sequence[Cell | None] | None = None,
    count: int | None = None,
) -> LedMapping:
    """The mapping a device URL asks for: ``order`` is ``serpentine``, ``rows`` or a mapping file;
    ``mapping`` (cells in strip order) overrides it. ``count``, when given, must match.

    Raises :class:`LedMappingError` naming what to change.
    """
    if mapping is not None:
        result = LedMapping(tuple(mapping), _("the mapping given"))
    elif order in get_args(Wiring):
        # grid() checks the option strings and names a bad one.
        result = LedMapping.grid(
            layout,
            cast(Wiring, order),
            origin=cast(Corner, origin),
            along=cast(Along, along),
            cover=cast(Cover, cover),
        )
    else:
        result = LedMapping.from_file(order, layout)
    if count is not None and count != result.count:
        raise LedMappingError(
            _(
                "count={count!r} but {mapping} has {pixels} pixels; set count={pixels}, or use a mapping "
                "file "
                "with one entry per pixel ('-' for a pixel under no cell)"
            ).format(count=count, mapping=_(result.description), pixels=result.count)
        )
    return result
