"""The simulated world: one digital twin of the table that every simulated device shares.

The simulated GRBL moves the twin's magnet and pieces, simulated sensors read which cells hold a piece,
a simulated hand moves pieces the way a person does. Devices find their world by name in the URL
(``sim://`` is the world named ``default``; ``sim://lab`` another one), so a process can run several
independent tables, e.g. in tests.

>>> world = SimWorld(Layout.default())
>>> len(world.occupied_cells())
42
"""

from __future__ import annotations

import math
import threading

import chess

from ..planning.layout import Cell, Layout
from ..planning.table import Table
from .pull import MagnetPull
from .twin import Twin, TwinPiece

#: A Hall sensor sees a piece whose centre is within this distance of the sensor (a cell centre).
SENSOR_RANGE_MM = 12.0


def twin_pieces(table: Table) -> list[TwinPiece]:
    layout = table.layout
    return [TwinPiece(p.id, p.symbol, *layout.node_mm(table.node_of(p.id))) for p in table]


class SimWorld:
    """A twin of the table and a lock that serialises the devices acting on it.

    ``layout`` is where the table really is: pieces stand, and sensors see them, on its squares. A table
    built wrong on purpose (:mod:`chessatron.sim.wrong_gantry`) has a world whose layout differs from the
    one the software reads; ``pull`` is how hard its magnet holds (:class:`~chessatron.sim.pull.MagnetPull`).
    """

    def __init__(
        self,
        layout: Layout,
        table: Table | None = None,
        *,
        name: str = "default",
        pull: MagnetPull | None = None,
    ) -> None:
        self.layout = layout
        self.name = name
        start = Table.from_board(layout, chess.Board()) if table is None else table
        self.twin = Twin(
            twin_pieces(start),
            clearance_mm=layout.clearance_mm,
            envelope_mm=layout.envelope_mm,
            profile=layout.profile,
            magnet=layout.magnet.method,
            start_mm=layout.home_mm,
            pull=pull,
        )
        self.lock = threading.RLock()

    def occupied_cells(self, range_mm: float = SENSOR_RANGE_MM) -> frozenset[Cell]:
        """What perfect sensors under every cell of the table would see now."""
        layout = self.layout
        found = set()
        with self.lock:
            pieces = list(self.twin.pieces.values())
        for piece in pieces:
            node = layout.nearest_node((piece.x, piece.y))
            cell = layout.node_cell(node)
            if cell is None:
                continue
            cx, cy = layout.node_mm(layout.cell_node(cell))
            if math.dist((cx, cy), (piece.x, piece.y)) <= range_mm:
                found.add(cell)
        return frozenset(found)

    def __repr__(self) -> str:
        return f"<SimWorld {self.name!r} {len(self.twin.pieces)} pieces>"


_WORLDS: dict[str, SimWorld] = {}
_WORLDS_LOCK = threading.Lock()


def register_world(world: SimWorld) -> SimWorld:
    """Make ``world`` the one ``sim://<world.name>`` URLs reach (replacing any before it)."""
    with _WORLDS_LOCK:
        _WORLDS[world.name] = world
    return world


def get_world(name: str = "default", layout: Layout | None = None) -> SimWorld:
    """The world of that name, created (with ``layout`` or the default table) on first use."""
    name = name or "default"
    with _WORLDS_LOCK:
        world = _WORLDS.get(name)
        if world is None:
            world = _WORLDS[name] = SimWorld(layout or Layout.default(), name=name)
        return world


def forget_world(name: str) -> None:
    with _WORLDS_LOCK:
        _WORLDS.pop(name, None)
