"""The table layout: a grid of squares larger than the chessboard, capture zones, reserve slots, and
where the table sits in the gantry's work area.

Geometry lives on a lattice of *nodes*, one every half square: square centres, edge midpoints and
corners. A node is ``(i, j)`` counted in node pitches from the table corner; the centre of cell
``(column, row)`` is node ``(2 * column + 1, 2 * row + 1)``. Everything that plans works on nodes; only
:meth:`Layout.node_mm` turns them into machine millimetres.

>>> layout = Layout.default()
>>> layout.square_node(chess.A1)
(5, 3)
>>> layout.node_mm((5, 3))
(137.0, 86.2)
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeAlias, cast, get_args

import chess

from .. import files
from ..errors import ConfigError, LayoutError, MachineProfileError
from ..grbl.motion import STEPPERS_ALWAYS_ON, Kinematics, MachineProfile
from ..i18n import N_, _, ngettext
from .layout_file import MAX_CELLS, MAX_NUMBER, LayoutReader, check_keys

Node: TypeAlias = tuple[int, int]
"""A lattice point, in node pitches (half squares) from the table corner."""

Cell: TypeAlias = tuple[int, int]
"""A table square as ``(column, row)``."""

Millimetres: TypeAlias = float
MachinePoint: TypeAlias = tuple[float, float]
"""Machine coordinates in millimetres."""

MagnetMethod = Literal["spindle", "coolant", "servo"]

#: Pieces of one side that can be captured at once: everything but the king.
CAPTURABLE_PER_SIDE = 15


@dataclass(frozen=True)
class MagnetConfig:
    """How the magnet is engaged and released."""

    method: MagnetMethod = "spindle"
    spindle_speed: float = 1000.0
    """S word sent with ``M3`` when the magnet hangs on GRBL's spindle output."""
    settle_s: float = 0.2
    """Dwell after engaging and after releasing, so the piece is held (or let go) before motion."""


@dataclass(frozen=True)
class ReserveSlot:
    """A cell where a spare promotion piece waits."""

    cell: Cell
    symbol: str
    """FEN letter of the spare piece: upper case white, lower case black."""

    @property
    def piece(self) -> chess.Piece:
        return chess.Piece.from_symbol(self.symbol)


@dataclass(frozen=True)
class Layout:
    """A validated table layout. Build it with :meth:`default`, :meth:`from_toml` or :meth:`from_dict`."""

    columns: int
    rows: int
    square_mm: Millimetres
    board_cell: Cell
    clearance_mm: Millimetres
    origin_mm: MachinePoint
    rotation_deg: float
    """0, 90, 180 or 270, give or take at most :data:`MAX_TURN_DEG` (a board glued a little askew, as
    ``chessatron hw calibrate`` measures it)."""
    envelope_mm: tuple[float, float, float, float]
    home_mm: MachinePoint
    profile: MachineProfile
    carry_feed_mm_min: float
    magnet: MagnetConfig
    capture_cells: Mapping[chess.Color, tuple[Cell, ...]]
    reserve: tuple[ReserveSlot, ...]
    _cell_kind: dict[Cell, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kinds: dict[Cell, str] = {}
        for cell in self.board_cells():
            kinds[cell] = "board"
        for slot in self.reserve:
            kinds[slot.cell] = "reserve"
        for colour, cells in self.capture_cells.items():
            for cell in cells:
                kinds[cell] = "capture-white" if colour else "capture-black"
        object.__setattr__(self, "_cell_kind", kinds)
        _validate(self)

    # --- construction ------------------------------------------------------------------------------

    @classmethod
    def default(cls) -> Layout:
        """The classic 12 x 10 table shipped with chessatron."""
        text = (resources.files("chessatron") / "data" / "table.toml").read_text(encoding="utf-8")
        return cls.from_dict(files.parse_toml(text), source=_("the built-in layout"))

    @classmethod
    def from_toml(cls, path: str | Path) -> Layout:
        """Load and validate a layout file; raises :class:`ConfigError` naming the file and what is wrong."""
        return cls.from_dict(files.load_toml(path, files.LAYOUT), source=repr(str(path)))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> Layout:
        """Build a layout from parsed TOML; missing keys take the built-in defaults, unknown sections and
        keys are errors (a typo would silently leave the default). Every error names ``source`` ("the
        layout" unless it says)."""
        source = _("the layout") if source is None else source
        check_keys(data, source)
        try:
            return cls._from_reader(LayoutReader(data, source))
        except (LayoutError, MachineProfileError) as exc:  # the checks of the whole, which know no file
            raise type(exc)(f"{source}: {exc}") from exc

    @classmethod
    def _from_reader(cls, reader: LayoutReader) -> Layout:
        source = reader.source
        table = reader.section("table")
        machine = reader.section("machine")
        magnet = reader.section("magnet")
        profile = MachineProfile(
            max_rate_mm_min=reader.pair(machine, "max_rate_mm_min", (12000.0, 12000.0)),
            acceleration_mm_s2=reader.pair(machine, "acceleration_mm_s2", (800.0, 800.0)),
            junction_deviation_mm=reader.number(machine, "junction_deviation_mm", 0.01),
            kinematics=cast(Kinematics, reader.choice(machine, "kinematics", get_args(Kinematics), "corexy")),
            step_idle_delay_ms=reader.integer(
                machine, "step_idle_delay_ms", STEPPERS_ALWAYS_ON, maximum=int(MAX_NUMBER)
            ),
        )
        capture: dict[chess.Color, list[Cell]] = {chess.WHITE: [], chess.BLACK: []}
        reserve_cells = set()
        reserve = []
        for i, entry in enumerate(reader.tables("reserve")):
            where = f"reserve #{i + 1}"  # the file's own words: [[reserve]], the first being #1
            symbol = reader.string(entry, "piece", None, where)
            if symbol not in ("Q", "R", "B", "N", "q", "r", "b", "n"):
                raise ConfigError(
                    _(
                        "{source}: {where} has piece {piece!r}; use one of Q R B N (white) or q r b n (black)"
                    ).format(source=source, where=where, piece=symbol)
                )
            cell = reader.cell(entry, "cell", where)
            reserve.append(ReserveSlot(cell, symbol))
            reserve_cells.add(cell)
        for i, entry in enumerate(reader.tables("capture_zone")):
            where = f"capture_zone #{i + 1}"
            colour_name = reader.choice(entry, "colour", ("white", "black"), None, where)
            first = reader.cell(entry, "from", where)
            last = reader.cell(entry, "to", where)
            for column in range(min(first[0], last[0]), max(first[0], last[0]) + 1):
                for row in range(min(first[1], last[1]), max(first[1], last[1]) + 1):
                    if (column, row) not in reserve_cells:
                        capture[colour_name == "white"].append((column, row))
        board = reader.cell(table, "board", "table", (2, 1))
        return cls(
            columns=reader.integer(table, "columns", 12, maximum=MAX_CELLS),
            rows=reader.integer(table, "rows", 10, maximum=MAX_CELLS),
            square_mm=reader.number(table, "square_mm", 50.8),
            board_cell=board,
            clearance_mm=reader.number(table, "clearance_mm", reader.number(table, "square_mm", 50.8) / 2),
            origin_mm=reader.pair(machine, "origin_mm", (10.0, 10.0)),
            rotation_deg=reader.number(machine, "rotation_deg", 0),
            envelope_mm=reader.quad(machine, "envelope_mm", (0.0, 0.0, 630.0, 530.0)),
            home_mm=reader.pair(machine, "home_mm", (0.0, 0.0)),
            profile=profile,
            carry_feed_mm_min=reader.number(machine, "carry_feed_mm_min", 4000.0),
            magnet=MagnetConfig(
                method=cast(MagnetMethod, reader.choice(magnet, "method", get_args(MagnetMethod), "spindle")),
                spindle_speed=reader.number(magnet, "spindle_speed", 1000.0),
                settle_s=reader.number(magnet, "settle_s", 0.2),
            ),
            capture_cells={colour: tuple(cells) for colour, cells in capture.items()},
            reserve=tuple(reserve),
        )

    # --- geometry ----------------------------------------------------------------------------------

    @property
    def pitch_mm(self) -> Millimetres:
        """Distance between neighbouring nodes: half a square."""
        return self.square_mm / 2

    @property
    def clearance_nodes(self) -> float:
        """The clearance rule in node pitches (1.0 on the classic table)."""
        return self.clearance_mm / self.pitch_mm

    @property
    def node_extent(self) -> tuple[int, int]:
        """Number of nodes along the table's columns and rows."""
        return 2 * self.columns + 1, 2 * self.rows + 1

    def nodes(self) -> Iterator[Node]:
        width, height = self.node_extent
        for i in range(width):
            for j in range(height):
                yield (i, j)

    def cells(self) -> Iterator[Cell]:
        for column in range(self.columns):
            for row in range(self.rows):
                yield (column, row)

    def board_cells(self) -> Iterator[Cell]:
        for square in chess.SQUARES:
            yield self.square_cell(square)

    @staticmethod
    def cell_node(cell: Cell) -> Node:
        return (2 * cell[0] + 1, 2 * cell[1] + 1)

    @staticmethod
    def node_cell(node: Node) -> Cell | None:
        """The cell whose centre is ``node``, or None for edge and corner nodes."""
        if node[0] % 2 == 1 and node[1] % 2 == 1:
            return ((node[0] - 1) // 2, (node[1] - 1) // 2)
        return None

    def square_cell(self, square: chess.Square) -> Cell:
        return (
            self.board_cell[0] + chess.square_file(square),
            self.board_cell[1] + chess.square_rank(square),
        )

    def square_node(self, square: chess.Square) -> Node:
        return self.cell_node(self.square_cell(square))

    def node_square(self, node: Node) -> chess.Square | None:
        """The chess square whose centre is ``node``, or None."""
        cell = self.node_cell(node)
        if cell is None:
            return None
        file, rank = cell[0] - self.board_cell[0], cell[1] - self.board_cell[1]
        if 0 <= file < 8 and 0 <= rank < 8:
            return chess.square(file, rank)
        return None

    def cell_kind(self, cell: Cell) -> str:
        """``board``, ``reserve``, ``capture-white``, ``capture-black`` or ``free`` (parking room)."""
        return self._cell_kind.get(cell, "free")

    def free_cells(self) -> tuple[Cell, ...]:
        """Cells outside the board, the zones and the reserve: room to park a piece for a moment."""
        return tuple(cell for cell in self.cells() if cell not in self._cell_kind)

    def node_mm(self, node: Node) -> MachinePoint:
        """Machine coordinates of a node (rounded to the micrometre G-code carries)."""
        return self.table_mm((node[0] * self.pitch_mm, node[1] * self.pitch_mm))

    def table_mm(self, point: tuple[float, float]) -> MachinePoint:
        """Machine coordinates of a point given in table millimetres."""
        cos, sin = self._turn
        x = self.origin_mm[0] + point[0] * cos - point[1] * sin
        y = self.origin_mm[1] + point[0] * sin + point[1] * cos
        return (round(x, 3), round(y, 3))

    def machine_to_table(self, point: MachinePoint) -> tuple[float, float]:
        """Table millimetres of a machine point: the inverse of :meth:`table_mm`."""
        cos, sin = self._turn
        dx, dy = point[0] - self.origin_mm[0], point[1] - self.origin_mm[1]
        return (dx * cos + dy * sin, -dx * sin + dy * cos)

    @property
    def quarter_turns(self) -> int:
        """The table's quarter turn in the machine frame: 0 to 3 (``rotation_deg`` rounded to 90°)."""
        return round(self.rotation_deg / 90) % 4

    @property
    def _turn(self) -> tuple[float, float]:
        """cos and sin of the rotation; exact for a whole quarter turn (no 6e-17 creeping into G-code)."""
        quarter = round(self.rotation_deg / 90)
        if self.rotation_deg == quarter * 90:
            return ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))[quarter % 4]
        angle = math.radians(self.rotation_deg)
        return (math.cos(angle), math.sin(angle))

    def nearest_node(self, point: MachinePoint) -> Node:
        """The lattice node closest to a machine point, clamped to the table."""
        tx, ty = self.machine_to_table(point)
        width, height = self.node_extent
        i = min(max(round(tx / self.pitch_mm), 0), width - 1)
        j = min(max(round(ty / self.pitch_mm), 0), height - 1)
        return (i, j)

    def corners_mm(self) -> tuple[MachinePoint, ...]:
        width, height = self.columns * self.square_mm, self.rows * self.square_mm
        return tuple(self.table_mm(p) for p in ((0, 0), (width, 0), (width, height), (0, height)))

    def in_envelope(self, point: MachinePoint, tolerance_mm: float = 1e-6) -> bool:
        xmin, ymin, xmax, ymax = self.envelope_mm
        x, y = point
        return (
            xmin - tolerance_mm <= x <= xmax + tolerance_mm
            and ymin - tolerance_mm <= y <= ymax + tolerance_mm
        )

    def __repr__(self) -> str:
        return (
            f"Layout({self.columns}x{self.rows} squares of {self.square_mm} mm, a1 at {self.board_cell}, "
            f"{self.magnet.method} magnet, {self.profile.kinematics})"
        )


# --- validation ------------------------------------------------------------------------------------


def _validate(layout: Layout) -> None:
    if layout.columns < 8 or layout.rows < 8:
        raise LayoutError(
            _("the table has {columns} x {rows} squares; it needs at least 8 x 8").format(
                columns=layout.columns, rows=layout.rows
            )
        )
    if layout.square_mm <= 0:
        raise LayoutError(_("square_mm is {value!r}; it must be positive").format(value=layout.square_mm))
    if not 0 < layout.clearance_mm <= layout.square_mm:
        raise LayoutError(
            _(
                "clearance_mm is {value!r}; it must be positive and at most a square ({square} mm), or no "
                "piece could pass between two others"
            ).format(value=layout.clearance_mm, square=layout.square_mm)
        )
    if abs(layout.rotation_deg - 90 * round(layout.rotation_deg / 90)) > MAX_TURN_DEG:
        raise LayoutError(
            _(
                "rotation_deg is {value!r}; use 0, 90, 180 or 270, give or take at most {most}° (a board "
                "turned further than that: square it on the table)"
            ).format(value=layout.rotation_deg, most=f"{MAX_TURN_DEG:g}")
        )
    a1, h8 = layout.square_cell(chess.A1), layout.square_cell(chess.H8)
    if min(a1) < 0 or h8[0] >= layout.columns or h8[1] >= layout.rows:
        raise LayoutError(
            _("the board at {cell!r} does not fit on a {columns} x {rows} table").format(
                cell=layout.board_cell, columns=layout.columns, rows=layout.rows
            )
        )
    seen: dict[Cell, str] = {cell: _("the board") for cell in layout.board_cells()}
    for slot in layout.reserve:
        _claim(layout, seen, slot.cell, _("reserve slot for {piece!r}").format(piece=slot.symbol))
    for colour, cells in layout.capture_cells.items():
        for cell in cells:
            _claim(layout, seen, cell, _(_CAPTURE_ZONE[colour]))
    for colour in chess.COLORS:
        count = len(layout.capture_cells.get(colour, ()))
        if count < CAPTURABLE_PER_SIDE:
            text = (
                ngettext(
                    "white's capture zone has {count} cell; it needs {wanted}, one for every piece but the "
                    "king",
                    "white's capture zone has {count} cells; it needs {wanted}, one for every piece but the "
                    "king",
                    count,
                )
                if colour == chess.WHITE
                else ngettext(
                    "black's capture zone has {count} cell; it needs {wanted}, one for every piece but the "
                    "king",
                    "black's capture zone has {count} cells; it needs {wanted}, one for every piece but the "
                    "king",
                    count,
                )
            )
            raise LayoutError(text.format(count=count, wanted=CAPTURABLE_PER_SIDE))
    if not layout.free_cells():
        raise LayoutError(_("the table has no free cell to park a piece on; leave at least one cell free"))
    for corner in layout.corners_mm():
        if not layout.in_envelope(corner):
            raise LayoutError(
                _(
                    "the table corner at machine {corner!r} lies outside the envelope {envelope!r}; move "
                    "origin_mm or widen envelope_mm"
                ).format(corner=corner, envelope=layout.envelope_mm)
            )
    if not layout.in_envelope(layout.home_mm):
        raise LayoutError(
            _("home_mm {home!r} lies outside the envelope {envelope!r}").format(
                home=layout.home_mm, envelope=layout.envelope_mm
            )
        )
    if layout.carry_feed_mm_min <= 0:
        raise LayoutError(
            _("carry_feed_mm_min is {value!r}; it must be positive").format(value=layout.carry_feed_mm_min)
        )
    if not 0 <= layout.magnet.settle_s <= MAX_SETTLE_S:
        raise LayoutError(
            _("magnet settle_s is {value!r}; it must be 0 to {most} seconds").format(
                value=layout.magnet.settle_s, most=f"{MAX_SETTLE_S:g}"
            )
        )
    if layout.magnet.spindle_speed < 0:
        raise LayoutError(
            _("magnet spindle_speed is {value!r}; it cannot be negative").format(
                value=layout.magnet.spindle_speed
            )
        )
    profile = layout.profile
    if min(profile.max_rate_mm_min) <= 0 or min(profile.acceleration_mm_s2) <= 0:
        raise LayoutError(_("max_rate_mm_min and acceleration_mm_s2 must be positive"))


_CAPTURE_ZONE = {chess.WHITE: N_("white's capture zone"), chess.BLACK: N_("black's capture zone")}


def _claim(layout: Layout, seen: dict[Cell, str], cell: Cell, what: str) -> None:
    """Claim ``cell`` for ``what`` (a part of the table, in words), which no other part may hold."""
    if not (0 <= cell[0] < layout.columns and 0 <= cell[1] < layout.rows):
        raise LayoutError(
            _("{what} at cell {cell!r} lies outside the {columns} x {rows} table").format(
                what=what, cell=cell, columns=layout.columns, rows=layout.rows
            )
        )
    if cell in seen:
        raise LayoutError(
            _("{what} at cell {cell!r} overlaps {other}").format(what=what, cell=cell, other=seen[cell])
        )
    seen[cell] = what


#: The most a table may be turned off its quarter turn (degrees): a board glued a little askew, which the
#: G-code follows; further than that, the squares' edges no longer run along the machine's axes closely
#: enough for drags between pieces, and the board should be squared on the table.
MAX_TURN_DEG = 2.0

#: A magnet that needs longer than this to settle is broken.
MAX_SETTLE_S = 60.0
