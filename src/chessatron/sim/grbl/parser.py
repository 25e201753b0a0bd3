"""The simulated GRBL's parser: what GRBL 1.1 makes of a line, free of I/O and of time.

A g-code line is checked as ``gc_execute_line`` checks it (every word, then the block as a whole) against
the modal state, and either rejected with GRBL's error code or decoded into what the machine will do: a
target, a dwell, the spindle and coolant outputs, whether it waits for the planner to empty. The modal
state changes only for an accepted line, as in GRBL. ``$J=`` jogs and the texts of the ``$`` reports
(``$G``, ``$I``, ``$#``, help) live here too; :class:`~chessatron.sim.grbl.SimGrbl` runs the result.

>>> modal = Modal()
>>> decoded = decode("G1X10F600M3S1000", modal, (0.0, 0.0))
>>> decoded.target, decoded.feed_mm_min, decoded.sync, decoded.modal.spindle
((10.0, 0.0), 600.0, True, 3)
>>> decode("G5X1", modal, (0.0, 0.0))
Traceback (most recent call last):
...
chessatron.sim.grbl.parser.Reject: 20
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...grbl.protocol import RX_BUFFER_BYTES
from ...planning.gcode_parse import read_number
from ...planning.layout import Layout

__all__ = [
    "HELP",
    "PLANNER_BLOCKS",
    "Decoded",
    "Modal",
    "Reject",
    "build_info",
    "decode",
    "decode_jog",
    "parameters",
    "words",
]

#: Blocks GRBL 1.1's planner holds on an Arduino Uno.
PLANNER_BLOCKS = 15
#: The ``$`` help line.
HELP = "[HLP:$$ $# $G $I $N $x=val $Nx=line $J=line $SLP $C $X $H ~ ! ? ctrl-x]"

_SUPPORTED_G = {0: "motion", 1: "motion", 4: "dwell", 17: "plane", 20: "units", 21: "units"}
_SUPPORTED_G |= {54: "coordinates", 90: "distance", 91: "distance", 94: "feed-mode"}
_SUPPORTED_M = {2: "stop", 30: "stop", 3: "spindle", 4: "spindle", 5: "spindle", 8: "coolant", 9: "coolant"}
_VALUE_LETTERS = frozenset("FSPXYZNT")
_ARC_LETTERS = frozenset("IJKR")
_INCH_MM = 25.4

Point = tuple[float, float]


class Reject(Exception):
    """A line GRBL rejects with ``error:code``."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Modal:
    """The g-code parser's modal state (what ``$G`` reports). ``feed_mm_min`` is None until an ``F``
    word; ``spindle`` is 3, 4 or 5 (``M3``/``M4``/``M5``)."""

    rapid: bool = True
    absolute: bool = True
    inches: bool = False
    feed_mm_min: float | None = None
    speed: float = 0.0
    spindle: int = 5
    coolant: bool = False

    @property
    def scale(self) -> float:
        """Millimetres per program unit."""
        return _INCH_MM if self.inches else 1.0

    def report(self) -> str:
        """The ``$G`` line."""
        words = ["G0" if self.rapid else "G1", "G54", "G17", "G20" if self.inches else "G21"]
        words += [
            "G90" if self.absolute else "G91",
            "G94",
            f"M{self.spindle}",
            "M8" if self.coolant else "M9",
        ]
        return f"[GC:{' '.join(words)} T0 F{self.feed_mm_min or 0:g} S{self.speed:g}]"

    def twin_line(self) -> str:
        """A line that puts the twin's parser in the same motion, distance and feed modes."""
        line = f"G{0 if self.rapid else 1} G{90 if self.absolute else 91}"
        return line if self.feed_mm_min is None else f"{line} F{self.feed_mm_min:g}"


@dataclass(frozen=True)
class Decoded:
    """What an accepted line does: the modal state after it, its motion target (mm) at ``feed_mm_min``
    (None: rapid), its dwell, the outputs it sets (spindle code, coolant, speed) and whether it waits
    for the planner to empty first (``protocol_buffer_synchronize``: output switches, dwells, ``M2``)."""

    modal: Modal
    target: Point | None
    feed_mm_min: float | None
    dwell_s: float
    output: tuple[int, bool, float]
    sync: bool


def words(block: str) -> list[tuple[str, float]]:
    """The letter-number words of a block (comments and spaces already gone); raises :class:`Reject`
    (``error:1`` no letter, ``error:2`` no number)."""
    found: list[tuple[str, float]] = []
    i = 0
    while i < len(block):
        letter = block[i]
        if not ("A" <= letter <= "Z"):
            raise Reject(1)
        number = read_number(block, i + 1)
        if number is None:
            raise Reject(2)
        found.append((letter, number[0]))
        i = number[1]
    return found


def _target(values: dict[str, float], absolute: bool, scale: float, at: Point) -> Point:
    x0, y0 = at
    if absolute:
        return (values.get("X", x0 / scale) * scale, values.get("Y", y0 / scale) * scale)
    return (x0 + values.get("X", 0.0) * scale, y0 + values.get("Y", 0.0) * scale)


def decode(block: str, modal: Modal, at: Point) -> Decoded:
    """Check a g-code block as GRBL 1.1 does (only the codes this table uses: G0 G1 G4 G17 G20 G21 G54
    G90 G91 G94, M2 M30 M3 M4 M5 M8 M9; others are ``error:20``, as on a GRBL built without them) and
    decode it against ``modal`` with the planned position ``at`` (mm). Raises :class:`Reject`."""
    groups: set[str] = set()
    g_codes: set[int] = set()
    m_codes: set[int] = set()
    values: dict[str, float] = {}
    for letter, value in words(block):
        if letter in "GM":
            table = _SUPPORTED_G if letter == "G" else _SUPPORTED_M
            if value != int(value) or int(value) not in table:
                raise Reject(20)
            group = f"{letter}-{table[int(value)]}"
            if group in groups:
                raise Reject(21)
            groups.add(group)
            (g_codes if letter == "G" else m_codes).add(int(value))
        elif letter in _VALUE_LETTERS:
            if letter in values:
                raise Reject(25)
            if value < 0 and letter in "FSPNT":
                raise Reject(4)
            values[letter] = value
        elif letter in _ARC_LETTERS:
            raise Reject(36)  # arc words without an arc
        else:
            raise Reject(20)
    if "P" in values and 4 not in g_codes:
        raise Reject(36)
    if 4 in g_codes and "P" not in values:
        raise Reject(28)
    inches = (20 in g_codes) if g_codes & {20, 21} else modal.inches
    scale = _INCH_MM if inches else 1.0
    rapid = (0 in g_codes) if g_codes & {0, 1} else modal.rapid
    absolute = (90 in g_codes) if g_codes & {90, 91} else modal.absolute
    feed = values["F"] * scale if "F" in values else modal.feed_mm_min
    target = None
    if any(axis in values for axis in "XYZ"):
        if not rapid and not feed:
            raise Reject(22)
        target = _target(values, absolute, scale, at)
    speed = values.get("S", modal.speed)
    spindle = next((c for c in m_codes if c in (3, 4, 5)), modal.spindle)
    coolant = (8 in m_codes) if m_codes & {8, 9} else modal.coolant
    sync = (
        spindle != modal.spindle
        or coolant != modal.coolant
        or (speed != modal.speed and modal.spindle != 5)
        or 4 in g_codes
        or bool(m_codes & {2, 30})
    )
    after = Modal(rapid, absolute, inches, feed, speed, spindle, coolant)
    if m_codes & {2, 30}:
        after = replace(after, spindle=5, coolant=False, rapid=False, absolute=True)
    return Decoded(
        modal=after,
        target=target,
        feed_mm_min=None if rapid else feed,
        dwell_s=values["P"] if 4 in g_codes else 0.0,
        output=(after.spindle, after.coolant, after.speed),
        sync=sync,
    )


def decode_jog(body: str, modal: Modal, at: Point) -> tuple[Point, float]:
    """A ``$J=`` jog's target (mm) and feed (mm/min); the modal state is not changed. Raises
    :class:`Reject` (``error:16`` for anything but G20 G21 G53 G90 G91 and X Y Z F words, or no feed)."""
    found = words(body)
    values = {letter: value for letter, value in found if letter != "G"}
    g_codes = {int(value) for letter, value in found if letter == "G"}
    if not g_codes <= {20, 21, 53, 90, 91} or "F" not in values or set(values) - set("XYZF"):
        raise Reject(16)
    if values["F"] <= 0:
        raise Reject(16)
    scale = _INCH_MM if (20 in g_codes or (modal.inches and 21 not in g_codes)) else 1.0
    absolute = 90 in g_codes or (modal.absolute and 91 not in g_codes)
    return _target(values, absolute, scale, at), values["F"] * scale


def build_info(layout: Layout) -> list[str]:
    """The ``$I`` answer of GRBL 1.1h built for ``layout``: variable spindle (``V``), Core-XY (``C``)
    exactly when the layout's kinematics is Core-XY, and homing that sets the origin (``Z``: after
    ``$H`` the machine position is the layout's ``home_mm``), then the planner's blocks and the receive
    buffer's bytes."""
    letters = "V" + ("C" if layout.profile.kinematics == "corexy" else "") + "Z"
    return ["[VER:1.1h.20190830:]", f"[OPT:{letters},{PLANNER_BLOCKS},{RX_BUFFER_BYTES}]"]


def parameters() -> list[str]:
    """The ``$#`` answer: every offset zero (this table uses machine coordinates)."""
    lines = [f"[{name}:0.000,0.000,0.000]" for name in ("G54", "G55", "G56", "G57", "G58", "G59")]
    lines += [f"[{name}:0.000,0.000,0.000]" for name in ("G28", "G30", "G92")]
    return [*lines, "[TLO:0.000]", "[PRB:0.000,0.000,0.000:0]"]
