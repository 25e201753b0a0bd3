"""A simulated table built wrong on purpose, under the gantry: the board glued a few millimetres off where
the layout says, turned by a little, its squares a little larger or smaller than the layout's, and a weak
magnet that drops a dragged piece above a speed or an acceleration.

The truth (:class:`GantryBuild`) is kept apart from the layout the software reads: :meth:`GantryBuild.
true_layout` is where the table really lies, and the world :meth:`GantryBuild.world` makes stands its
pieces, and has its sensors see them, there. ``chessatron hw calibrate``'s board and magnet parts must
find it again, and the tests compare what they wrote with it.

>>> from chessatron.planning.layout import Layout
>>> build = GantryBuild.parse("offset=2.5:-1,turn=0.4,scale=1.002,drop=3500")
>>> build.offset_mm, build.turn_deg, build.square_scale, build.pull.drop_feed_mm_min
((2.5, -1.0), 0.4, 1.002, 3500.0)
>>> round(build.true_layout(Layout.default()).square_mm, 4)
50.9016
>>> GantryBuild.parse(build.spec()) == build
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import chess

from ..errors import ChessatronError, ConfigError, LayoutError
from ..planning.layout import Layout
from ..planning.table import Table
from .pull import MagnetPull
from .world import SimWorld

__all__ = ["GANTRY_FAULTS", "Drawn", "GantryBuild"]


@dataclass(frozen=True)
class GantryBuild:
    """How the simulated table really lies under the gantry, against what its layout says.

    ``offset_mm`` moves the board (the whole table of squares) in machine millimetres, ``turn_deg`` turns
    it about a1's centre (counter-clockwise seen from above), ``square_scale`` makes its squares that much
    larger (1.002: 0.2 % larger), ``pull`` is the magnet's strength."""

    offset_mm: tuple[float, float] = (0.0, 0.0)
    turn_deg: float = 0.0
    square_scale: float = 1.0
    pull: MagnetPull = field(default_factory=MagnetPull)

    @classmethod
    def random(cls, seed: int, layout: Layout | None = None, *, weak_magnet: bool = True) -> GantryBuild:
        """A table built wrong at random (a few mm off, under a degree askew, squares within ±0.6 %, a
        magnet that drops pieces somewhere between 1500 and 7000 mm/min), the same for the same seed;
        always one whose table still lies inside ``layout``'s envelope."""
        layout = layout or Layout.default()
        rng = random.Random(seed)
        for _ in range(100):
            build = cls(
                offset_mm=(round(rng.uniform(-4.0, 4.0), 2), round(rng.uniform(-4.0, 4.0), 2)),
                turn_deg=round(rng.uniform(-0.9, 0.9), 3),
                square_scale=round(rng.uniform(0.994, 1.006), 4),
                pull=MagnetPull(drop_feed_mm_min=round(rng.uniform(1500.0, 7000.0)))
                if weak_magnet
                else MagnetPull(),
            )
            try:
                build.true_layout(layout, margin_mm=1.0)
            except ChessatronError:
                continue
            return build
        raise ConfigError(f"no table built wrong fits {layout!r}'s envelope; give its table more room")

    @classmethod
    def parse(cls, spec: str) -> GantryBuild:
        """``offset=DX:DY,turn=DEG,scale=FACTOR,drop=MM_MIN,drop_accel=MM_S2`` (each part optional).
        Raises :class:`ConfigError` naming a part that is not one."""
        values: dict[str, str] = {}
        for part in spec.split(","):
            if not part.strip():
                continue
            name, equals, value = part.partition("=")
            if not equals or name.strip() not in ("offset", "turn", "scale", "drop", "drop_accel"):
                raise ConfigError(
                    f"{part!r} is not a way to build the gantry wrong; use offset=DX:DY, turn=DEG, "
                    "scale=FACTOR, drop=MM_MIN or drop_accel=MM_S2, e.g. offset=2:-1.5,turn=0.5"
                )
            values[name.strip()] = value.strip()
        try:
            dx, _, dy = values.get("offset", "0:0").partition(":")
            return cls(
                offset_mm=(float(dx), float(dy or 0)),
                turn_deg=float(values.get("turn", 0)),
                square_scale=float(values.get("scale", 1)),
                pull=MagnetPull(
                    float(values["drop"]) if "drop" in values else None,
                    float(values["drop_accel"]) if "drop_accel" in values else None,
                ),
            )
        except ValueError:
            raise ConfigError(
                f"{spec!r} has a value that is not a number; e.g. offset=2:-1.5,turn=0.5"
            ) from None

    def spec(self) -> str:
        """The text :meth:`parse` reads back to this build."""
        parts = [f"offset={self.offset_mm[0]:g}:{self.offset_mm[1]:g}", f"turn={self.turn_deg:g}"]
        parts.append(f"scale={self.square_scale:g}")
        if self.pull.drop_feed_mm_min is not None:
            parts.append(f"drop={self.pull.drop_feed_mm_min:g}")
        if self.pull.drop_accel_mm_s2 is not None:
            parts.append(f"drop_accel={self.pull.drop_accel_mm_s2:g}")
        return ",".join(parts)

    def true_layout(self, layout: Layout, *, margin_mm: float = 0.0) -> Layout:
        """Where the table ``layout`` describes really lies: its a1 moved by the offset, the table turned
        about a1's centre and its squares scaled. Raises :class:`~chessatron.errors.LayoutError` when the
        table built so would leave the machine's envelope (by ``margin_mm``)."""
        square = layout.square_mm * self.square_scale
        a1 = layout.node_mm(layout.square_node(chess.A1))
        centre = (a1[0] + self.offset_mm[0], a1[1] + self.offset_mm[1])
        rotation = layout.rotation_deg + self.turn_deg
        angle = math.radians(rotation)
        i, j = layout.square_node(chess.A1)
        tx, ty = i * square / 2, j * square / 2  # a1's centre from the table corner, in table mm
        origin = (
            centre[0] - (tx * math.cos(angle) - ty * math.sin(angle)),
            centre[1] - (tx * math.sin(angle) + ty * math.cos(angle)),
        )
        truth = replace(
            layout,
            square_mm=square,
            clearance_mm=min(layout.clearance_mm, square),
            origin_mm=origin,
            rotation_deg=layout.rotation_deg,
        )
        # a real table may lie turned further than a layout may say (that is what calibration refuses)
        object.__setattr__(truth, "rotation_deg", rotation)
        for corner in truth.corners_mm():
            if not layout.in_envelope(corner, -margin_mm):
                raise LayoutError(
                    f"the table built {self.spec()!r} has a corner at {corner!r}, within {margin_mm:g} mm of "
                    f"the envelope {layout.envelope_mm!r} or outside it"
                )
        return truth

    def world(self, layout: Layout, *, name: str = "default", board: chess.Board | None = None) -> SimWorld:
        """A simulated world of this build for a machine whose layout file says ``layout``: the pieces of
        ``board`` (the start position by default) stand on the real squares."""
        truth = self.true_layout(layout)
        return SimWorld(truth, Table.from_board(truth, board or chess.Board()), name=name, pull=self.pull)


@dataclass(frozen=True)
class Drawn:
    """Where a layout put the board when a simulated table was built (the board's origin, square and turn),
    kept with the build: a calibration writes a new layout, but the board stays where it was built.

    >>> layout = Layout.default()
    >>> moved = replace(layout, origin_mm=(3.0, 4.0))
    >>> Drawn.of(layout).on(moved).origin_mm == layout.origin_mm
    True
    """

    origin_mm: tuple[float, float]
    square_mm: float
    rotation_deg: float

    @classmethod
    def of(cls, layout: Layout) -> Drawn:
        return cls((layout.origin_mm[0], layout.origin_mm[1]), layout.square_mm, layout.rotation_deg)

    def on(self, layout: Layout) -> Layout:
        """``layout`` (the machine's other settings as it says now) with the board where it was drawn."""
        return replace(
            layout,
            origin_mm=self.origin_mm,
            square_mm=self.square_mm,
            clearance_mm=min(layout.clearance_mm, self.square_mm),
            rotation_deg=self.rotation_deg,
        )

    def to_json(self) -> list[float]:
        return [self.origin_mm[0], self.origin_mm[1], self.square_mm, self.rotation_deg]

    @classmethod
    def from_json(cls, data: Any) -> Drawn:
        x, y, square, rotation = (float(value) for value in data)
        return cls((x, y), square, rotation)


def _fitting(
    build: GantryBuild, layout: Layout, rng: random.Random, draw: Callable[[random.Random], GantryBuild]
) -> GantryBuild:
    """The first of ``draw``'s builds (from ``build``) whose table still lies inside the envelope."""
    for _try in range(100):
        candidate = draw(rng)
        try:
            candidate.true_layout(layout, margin_mm=1.0)
        except ChessatronError:
            continue
        return candidate
    return build


def _sign(rng: random.Random) -> float:
    return rng.choice((-1.0, 1.0))


def _offset(build: GantryBuild, layout: Layout, rng: random.Random) -> tuple[GantryBuild, str]:
    def draw(rng: random.Random) -> GantryBuild:
        dx, dy = (round(_sign(rng) * rng.uniform(1.0, 4.0), 2) for _axis in range(2))
        return replace(build, offset_mm=(dx, dy))

    built = _fitting(build, layout, rng, draw)
    x, y = built.offset_mm
    return built, f"the board {x:+g} mm along X and {y:+g} mm along Y off where the layout says"


def _turned(build: GantryBuild, layout: Layout, rng: random.Random) -> tuple[GantryBuild, str]:
    def draw(rng: random.Random) -> GantryBuild:
        return replace(build, turn_deg=round(_sign(rng) * rng.uniform(0.2, 0.9), 3))

    built = _fitting(build, layout, rng, draw)
    return built, f"the board turned {built.turn_deg:+g}° about a1"


def _scaled(build: GantryBuild, layout: Layout, rng: random.Random) -> tuple[GantryBuild, str]:
    def draw(rng: random.Random) -> GantryBuild:
        return replace(build, square_scale=round(1 + _sign(rng) * rng.uniform(0.002, 0.006), 4))

    built = _fitting(build, layout, rng, draw)
    return built, f"the board's squares {built.square_scale:g} times the layout's"


def _weak(build: GantryBuild, layout: Layout, rng: random.Random) -> tuple[GantryBuild, str]:
    drop = float(round(rng.uniform(1500.0, 7000.0)))
    built = replace(build, pull=replace(build.pull, drop_feed_mm_min=drop))
    return built, f"a weak magnet that drops a dragged piece above {drop:g} mm/min"


#: The ways the gantry's table can be built wrong, by the name ``hw calibrate --wrong`` takes: each draws
#: its amount from the random generator and says what it did.
GANTRY_FAULTS: Mapping[str, Callable[[GantryBuild, Layout, random.Random], tuple[GantryBuild, str]]] = {
    "board-offset": _offset,
    "board-turned": _turned,
    "board-scaled": _scaled,
    "magnet-weak": _weak,
}
