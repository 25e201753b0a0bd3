"""The digital twin of the table: run a G-code program against physical pieces and report what went wrong.

The twin reads each line as GRBL 1.1 does (:mod:`chessatron.planning.gcode_parse`), keeps GRBL's modal state,
moves the magnet, drags the piece the magnet holds, and records what a careful machinist would want to
know: a carried piece passing too close to another, a grab with nothing to grab, a piece dropped onto
another, a rapid with a piece on the magnet, a move outside the envelope, the magnet left on, lines GRBL
would reject. It also times the program with GRBL's planner model (:mod:`chessatron.grbl.motion`).

Lines are executed in GRBL's order of execution within a line: feed and spindle speed, spindle (M3/M4/M5),
coolant (M7/M8/M9), dwell (G4), modes, motion, program end; comments (the servo markers) last. A line GRBL
would reject is skipped as a whole, as GRBL does, and the run goes on with the next line.

>>> from chessatron.grbl.motion import MachineProfile
>>> twin = Twin([TwinPiece("wP0", "P", 10.0, 10.0)], clearance_mm=20.0, envelope_mm=(0.0, 0.0, 100.0, 100.0),
...             profile=MachineProfile())
>>> report = twin.run("G0 X10 Y10\\nM3 S1000\\nG1 X50 F3000\\nM5")
>>> report.ok, twin.pieces["wP0"].x
(True, 50.0)
"""

# One module on purpose (about 550 lines): the twin executes G-code and checks every rule on the same
# pieces at the same instant; split, each check would need the whole state.

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

from chessatron.errors import GcodeError, MachineProfileError, MissingPieceError, PieceError
from chessatron.grbl.motion import Block, MachineProfile, run_time
from chessatron.i18n import _
from chessatron.planning.gcode_parse import GcodeLine, parse_line
from chessatron.sim.pull import MagnetPull

__all__ = ["MagnetMethod", "Twin", "TwinPiece", "TwinReport", "Violation", "ViolationKind"]

MagnetMethod = Literal["spindle", "coolant", "servo"]
ViolationKind = Literal[
    "clearance",
    "empty-grab",
    "drop-onto",
    "envelope",
    "rapid-while-carrying",
    "magnet-left-on",
    "bad-gcode",
    "position",
]
Point = tuple[float, float]

_FEN_SYMBOLS = frozenset("PNBRQKpnbrqk")
# G codes the twin runs, and those it accepts without effect (plane XY, units per minute, work offsets
# equal to machine coordinates).
_MOTION_G = {0.0: "G0", 1.0: "G1"}
_IGNORED_G = frozenset({17.0, 21.0, 54.0, 94.0})
_KNOWN_M = frozenset({2.0, 3.0, 4.0, 5.0, 7.0, 8.0, 9.0, 30.0})
# GRBL modal groups among what the twin accepts; two words of one group on a line is GRBL's error:21.
_G_GROUPS = ({0.0, 1.0}, {90.0, 91.0})
_M_GROUPS = ({3.0, 4.0, 5.0}, {7.0, 8.0, 9.0}, {2.0, 30.0})
_VALUE_LETTERS = frozenset("XYFSPN")
_SERVO_MARKERS = {"MAGNET ON": True, "MAGNET OFF": False}


@dataclass(frozen=True)
class TwinPiece:
    """A physical piece: stable identity, FEN symbol and centre in machine millimetres.

    Raises :class:`~chessatron.errors.PieceError` for a symbol that is not a FEN piece letter or a
    centre that is not finite.
    """

    id: str
    symbol: str
    x: float
    y: float

    def __post_init__(self) -> None:
        if self.symbol not in _FEN_SYMBOLS:
            raise PieceError(f"piece {self.id!r} has symbol {self.symbol!r}; use one of 'PNBRQKpnbrqk'")
        if not (math.isfinite(self.x) and math.isfinite(self.y)):
            raise PieceError(f"piece {self.id!r} is at {(self.x, self.y)!r}; coordinates must be finite")

    @property
    def xy(self) -> Point:
        """The centre as an (x, y) pair in machine mm."""
        return (self.x, self.y)

    def __str__(self) -> str:
        return f"{self.id} ({self.symbol})"


@dataclass(frozen=True)
class Violation:
    """Something wrong with a program run: the 1-based line (0 for the end of the program), kind, what."""

    line: int
    kind: ViolationKind
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.kind}: {self.message}"


@dataclass(frozen=True)
class TwinReport:
    """What one :meth:`Twin.run` found: its violations, its simulated seconds and how many lines it had."""

    violations: tuple[Violation, ...]
    seconds: float
    lines: int

    @property
    def ok(self) -> bool:
        """True if the run broke no rule."""
        return not self.violations

    def of_kind(self, kind: ViolationKind) -> tuple[Violation, ...]:
        """The violations of one kind, in program order."""
        return tuple(v for v in self.violations if v.kind == kind)


@dataclass(frozen=True)
class _Command:
    """A line decoded and checked, as GRBL does before it executes anything of it."""

    feed: float | None = None
    speed: float | None = None
    spindle: float | None = None  # 3, 4 or 5
    coolant: float | None = None  # 7, 8 or 9
    dwell_s: float | None = None
    relative: bool | None = None
    motion: str | None = None
    x: float | None = None
    y: float | None = None
    program_end: bool = False


def _segment_distance(start: Point, end: Point, point: Point) -> tuple[float, Point]:
    """Smallest distance from ``point`` to the segment start–end, and the segment point where it occurs."""
    (x0, y0), (x1, y1), (px, py) = start, end, point
    dx, dy = x1 - x0, y1 - y0
    length_sqr = dx * dx + dy * dy
    t = 0.0 if length_sqr == 0.0 else min(1.0, max(0.0, ((px - x0) * dx + (py - y0) * dy) / length_sqr))
    closest = (x0 + t * dx, y0 + t * dy)
    return math.hypot(px - closest[0], py - closest[1]), closest


def _decode(line: GcodeLine, motion_mode: str, feed: float | None) -> _Command:
    """Check a parsed line against what GRBL and this machine support; raise GcodeError if it would fail."""
    for letter, _value in line.words:
        if letter not in _VALUE_LETTERS and letter not in "GM":
            raise GcodeError(
                _("word {letter!r} is not used on this machine (no z axis, tools or arcs)").format(
                    letter=letter
                )
            )
    g_codes, m_codes = line.g_codes, line.m_codes
    for code in g_codes:
        if code == 20.0:
            raise GcodeError(
                _("g20 (inches) is not supported; programs for this table are in millimetres (g21)")
            )
        if code not in _MOTION_G and code not in _IGNORED_G and code not in (4.0, 90.0, 91.0):
            raise GcodeError(_("{code} is not supported by the twin").format(code=f"g{code:g}"))
    for code in m_codes:
        if code not in _KNOWN_M:
            raise GcodeError(_("{code} is not supported by the twin").format(code=f"m{code:g}"))
    for letter, codes, groups in (("g", g_codes, _G_GROUPS), ("m", m_codes, _M_GROUPS)):
        for group in groups:
            if sum(code in group for code in codes) > 1:
                raise GcodeError(
                    _("two {letter}-codes of one modal group in {codes!r}; GRBL answers error:21").format(
                        letter=letter, codes=codes
                    )
                )
    if len(set(g_codes)) != len(g_codes) or len(set(m_codes)) != len(m_codes):
        raise GcodeError(
            _("repeated command word in {words}; GRBL answers error:21").format(
                words=f"g{g_codes!r} m{m_codes!r}"
            )
        )

    new_feed = line.value("F")
    if new_feed is not None and not (math.isfinite(new_feed) and new_feed > 0.0):
        raise GcodeError(
            _("feed {word} must be positive; GRBL answers error:22").format(word=f"f{new_feed:g}")
        )
    speed = line.value("S")
    if speed is not None and speed < 0.0:
        raise GcodeError(
            _("spindle speed {word} is negative; GRBL answers error:4").format(word=f"s{speed:g}")
        )

    dwell_s = None
    p = line.value("P")
    if 4.0 in g_codes:
        if p is None:
            raise GcodeError(_("g4 needs a dwell time p in seconds; GRBL answers error:28"))
        if p < 0.0:
            raise GcodeError(_("g4 dwell {word} is negative; GRBL answers error:4").format(word=f"p{p:g}"))
        dwell_s = p
    elif p is not None:
        raise GcodeError(_("word {word} without g4 is unused; GRBL answers error:36").format(word=f"p{p:g}"))

    motion = next((_MOTION_G[c] for c in g_codes if c in _MOTION_G), None)
    x, y = line.value("X"), line.value("Y")
    if (x is not None or y is not None) and (motion or motion_mode) == "G1" and (new_feed or feed) is None:
        raise GcodeError(_("g1 without a feed rate; give f in mm/min (GRBL answers error:22)"))
    relative = True if 91.0 in g_codes else (False if 90.0 in g_codes else None)
    spindle = next((c for c in m_codes if c in (3.0, 4.0, 5.0)), None)
    coolant = next((c for c in m_codes if c in (7.0, 8.0, 9.0)), None)
    program_end = 2.0 in m_codes or 30.0 in m_codes
    return _Command(new_feed, speed, spindle, coolant, dwell_s, relative, motion, x, y, program_end)


class Twin:
    """A simulated table: pieces, a magnet on a GRBL-driven gantry, and a record of what went wrong.

    ``clearance_mm`` is the least centre-to-centre distance a carried or dropped piece must keep from
    every other piece, ``tolerance_mm`` the slack allowed on it and on the envelope
    ``(xmin, ymin, xmax, ymax)``. ``magnet`` says how the program switches the magnet: the spindle
    (M3/M4 with S>0 on, M5 or S0 off), the coolant output (M7/M8 on, M9 off) or a servo the host moves at
    ``(MAGNET ON)``/``(MAGNET OFF)`` comment markers, each taking ``servo_s`` seconds. Engaging the magnet
    picks up the piece nearest to it within ``grab_radius_mm``; the piece then keeps its offset to the
    magnet while carried. ``pull`` says how hard the magnet holds (:class:`~chessatron.sim.pull.MagnetPull`:
    a weak one leaves a piece dragged too fast behind, on the table, while the magnet goes on;
    :attr:`drops` counts them).

    A move whose target lies outside the envelope is recorded as an "envelope" violation and *skipped*:
    the gantry stays where it is, as GRBL with soft limits would refuse to go there.

    Raises :class:`~chessatron.errors.MachineProfileError` for impossible settings and
    :class:`~chessatron.errors.PieceError` for two pieces with one id.
    """

    def __init__(
        self,
        pieces: Iterable[TwinPiece],
        *,
        clearance_mm: float,
        envelope_mm: tuple[float, float, float, float],
        profile: MachineProfile,
        magnet: MagnetMethod = "spindle",
        grab_radius_mm: float = 2.0,
        tolerance_mm: float = 0.01,
        servo_s: float = 0.0,
        start_mm: Point = (0.0, 0.0),
        pull: MagnetPull | None = None,
    ) -> None:
        for name, value in (
            ("clearance_mm", clearance_mm),
            ("grab_radius_mm", grab_radius_mm),
            ("tolerance_mm", tolerance_mm),
            ("servo_s", servo_s),
        ):
            if not (math.isfinite(value) and value >= 0.0):
                raise MachineProfileError(
                    _("{name} must be zero or positive, got {value!r}").format(name=name, value=value)
                )
        xmin, ymin, xmax, ymax = envelope_mm
        if not (all(math.isfinite(v) for v in envelope_mm) and xmin <= xmax and ymin <= ymax):
            raise MachineProfileError(
                _("envelope_mm must be finite (xmin, ymin, xmax, ymax), got {value!r}").format(
                    value=envelope_mm
                )
            )
        if magnet not in ("spindle", "coolant", "servo"):
            raise MachineProfileError(
                _("magnet must be 'spindle', 'coolant' or 'servo', got {value!r}").format(value=magnet)
            )
        self._pieces: dict[str, TwinPiece] = {}
        for piece in pieces:
            if piece.id in self._pieces:
                raise PieceError(
                    _("two pieces share the id {id!r}; give each piece its own id").format(id=piece.id)
                )
            self._pieces[piece.id] = piece
        self.clearance_mm = clearance_mm
        self.envelope_mm = envelope_mm
        self.profile = profile
        self.magnet = magnet
        self.grab_radius_mm = grab_radius_mm
        self.tolerance_mm = tolerance_mm
        self.servo_s = servo_s
        self.pull = pull or MagnetPull()
        #: Pieces the magnet lost on the way (a weak :attr:`pull`), by id, in order.
        self.drops: list[str] = []

        self._xy: Point = (float(start_mm[0]), float(start_mm[1]))
        self._magnet_on = False
        self._attached: str | None = None
        # GRBL's modal state after power-up: G0, G90, no feed, spindle and coolant off.
        self._motion_mode = "G0"
        self._relative = False
        self._feed: float | None = None
        self._spindle = 5.0
        self._speed = 0.0
        self._coolant: frozenset[float] = frozenset()
        self._servo_on = False
        self._run: list[Block] = []
        self._seconds = 0.0
        self._violations: list[Violation] = []
        self._slips: list[str | None] = []

    def __repr__(self) -> str:
        return (
            f"Twin(pieces={len(self._pieces)}, magnet_xy={self._xy!r}, magnet_on={self._magnet_on!r}, "
            f"carrying={self._attached!r}, seconds={self._seconds:.3f})"
        )

    # --- what can be seen ------------------------------------------------------------------------

    @property
    def pieces(self) -> dict[str, TwinPiece]:
        """Current pieces by id (a copy)."""
        return dict(self._pieces)

    @property
    def magnet_xy(self) -> Point:
        """Where the magnet is, in machine mm."""
        return self._xy

    @property
    def magnet_on(self) -> bool:
        """True while the magnet is engaged."""
        return self._magnet_on

    @property
    def carrying(self) -> TwinPiece | None:
        """The piece on the magnet, if any."""
        return None if self._attached is None else self._pieces[self._attached]

    @property
    def seconds(self) -> float:
        """Simulated seconds of every program run so far."""
        return self._seconds

    @property
    def violations(self) -> tuple[Violation, ...]:
        """Every violation of every run so far, in order."""
        return tuple(self._violations)

    def piece_at(self, x: float, y: float, radius_mm: float = 2.0) -> TwinPiece | None:
        """The piece whose centre is nearest to (x, y) and within ``radius_mm``, or None."""
        best: TwinPiece | None = None
        best_distance = radius_mm
        for piece in self._pieces.values():
            distance = math.hypot(piece.x - x, piece.y - y)
            if distance <= best_distance:
                best, best_distance = piece, distance
        return best

    def positions_by_symbol(self, ndigits: int = 1) -> dict[Point, str]:
        """Map each piece's centre, rounded to ``ndigits`` decimals of a mm, to its FEN symbol.

        Two pieces whose centres round alike share a key and the later one wins; the clearance checks are
        what catch pieces that close.
        """
        return {(round(p.x, ndigits), round(p.y, ndigits)): p.symbol for p in self._pieces.values()}

    def check_positions(
        self, expected: Mapping[Point, str], radius_mm: float | None = None
    ) -> list[Violation]:
        """Report "position" violations (line 0) for expected centres that are empty or hold another symbol.

        A centre is matched by the nearest piece within ``radius_mm`` (default: the grab radius). Pieces
        elsewhere are not reported, and the violations are returned, not added to :attr:`violations`.
        """
        radius = self.grab_radius_mm if radius_mm is None else radius_mm
        found: list[Violation] = []
        for (x, y), symbol in expected.items():
            piece = self.piece_at(x, y, radius)
            if piece is None:
                found.append(
                    Violation(
                        0,
                        "position",
                        _("expected {symbol!r} at {at}, found no piece").format(
                            symbol=symbol, at=f"({x:g}, {y:g})"
                        ),
                    )
                )
            elif piece.symbol != symbol:
                found.append(
                    Violation(
                        0,
                        "position",
                        _("expected {symbol!r} at {at}, found {piece}").format(
                            symbol=symbol, at=f"({x:g}, {y:g})", piece=piece
                        ),
                    )
                )
        return found

    # --- world controls --------------------------------------------------------------------------

    def place(self, piece: TwinPiece) -> None:
        """Put a piece on the table by hand, or move it there if its id is already on the table.

        A piece taken off the magnet this way is no longer carried.
        """
        if piece.id == self._attached:
            self._attached = None
        self._pieces[piece.id] = piece

    def slip(self, piece_id: str | None = None) -> None:
        """Fault injection: the next grab (of ``piece_id``, or of any piece) fails — the magnet engages
        but the piece does not follow it, as with a worn felt or a weak magnet."""
        self._slips.append(piece_id)

    def lift(self, piece_id: str) -> TwinPiece:
        """Take a piece off the table by hand and return it.

        Raises :class:`~chessatron.errors.MissingPieceError` if no piece has that id.
        """
        try:
            piece = self._pieces.pop(piece_id)
        except KeyError:
            raise MissingPieceError(
                _("no piece {id!r} on the table to lift; it holds {ids!r}").format(
                    id=piece_id, ids=sorted(self._pieces)
                )
            ) from None
        if piece_id == self._attached:
            self._attached = None
        return piece

    # --- running programs ------------------------------------------------------------------------

    def run(self, program: str | Iterable[str], *, finish: bool = True) -> TwinReport:
        """Execute a program (one string, or an iterable of lines) and report what this run found.

        Line numbers in the report count from 1 within this program. State (pieces, magnet, modal
        G-code state, time) carries over between calls, but every call ends at rest: the motion it
        leaves is timed as a run that stops at the program's end. With ``finish`` True a magnet still
        engaged at the end is a "magnet-left-on" violation (line 0); pass False for a program that
        another call will continue.
        """
        lines = program.splitlines() if isinstance(program, str) else list(program)
        seconds_before, violations_before = self._seconds, len(self._violations)
        for number, text in enumerate(lines, start=1):
            self._execute(number, text)
        self._sync()
        if finish and self._magnet_on:
            if self._attached is None:
                text = _("the magnet is still on at the end, holding nothing")
            else:
                text = _("the magnet is still on at the end, holding {piece}").format(
                    piece=self._pieces[self._attached]
                )
            self._violate(0, "magnet-left-on", text)
        return TwinReport(
            tuple(self._violations[violations_before:]), self._seconds - seconds_before, len(lines)
        )

    def _violate(self, line: int, kind: ViolationKind, message: str) -> None:
        self._violations.append(Violation(line, kind, message))

    def _sync(self) -> None:
        """Let the queued motion finish, as GRBL's protocol_buffer_synchronize does."""
        if self._run:
            self._seconds += run_time(self._run, self.profile)
            self._run = []

    def _execute(self, number: int, text: str) -> None:
        try:
            line = parse_line(text)
            if line.system is not None:
                return  # $ lines talk to GRBL itself and are not part of a program
            command = _decode(line, self._motion_mode, self._feed)
        except GcodeError as exc:
            self._violate(number, "bad-gcode", _("{problem} (line skipped)").format(problem=exc))
            return

        if command.feed is not None:
            self._feed = command.feed
        if command.speed is not None and command.speed != self._speed:
            if self._spindle != 5.0:
                self._sync()  # GRBL syncs before changing the speed of a running spindle
            self._speed = command.speed
            self._update_magnet(number)
        if command.spindle is not None and command.spindle != self._spindle:
            self._sync()
            self._spindle = command.spindle
            self._update_magnet(number)
        if command.coolant is not None:
            coolant = frozenset() if command.coolant == 9.0 else self._coolant | {command.coolant}
            if coolant != self._coolant:
                self._sync()
                self._coolant = coolant
                self._update_magnet(number)
        if command.dwell_s is not None:
            self._sync()
            self._seconds += command.dwell_s
        if command.relative is not None:
            self._relative = command.relative
        if command.motion is not None:
            self._motion_mode = command.motion
        if command.x is not None or command.y is not None:
            self._move(number, command)
        if command.program_end:
            # M2/M30: GRBL finishes the motion, then resets G1, G90, spindle off and coolant off.
            self._sync()
            self._motion_mode, self._relative = "G1", False
            self._spindle, self._coolant = 5.0, frozenset()
            self._update_magnet(number)
        for comment in line.comments:
            self._servo_marker(number, comment)

    def _servo_marker(self, number: int, comment: str) -> None:
        engage = _SERVO_MARKERS.get(" ".join(comment.upper().split()))
        if engage is None or self.magnet != "servo":
            return
        if self._run:
            # The host acts on the marker as soon as it reads it; only a G4 P0 before it makes the host
            # wait until the gantry has stopped.
            self._violate(
                number,
                "bad-gcode",
                _(
                    "servo marker ({marker}) follows motion without a g4 p0 sync; the servo would move while "
                    "the "
                    "gantry is moving"
                ).format(marker=comment),
            )
        self._sync()
        self._seconds += self.servo_s
        self._servo_on = engage
        self._update_magnet(number)

    def _magnet_wanted(self) -> bool:
        if self.magnet == "spindle":
            return self._spindle in (3.0, 4.0) and self._speed > 0.0
        if self.magnet == "coolant":
            return bool(self._coolant)
        return self._servo_on

    def _update_magnet(self, number: int) -> None:
        wanted = self._magnet_wanted()
        if wanted and not self._magnet_on:
            self._magnet_on = True
            piece = self.piece_at(*self._xy, self.grab_radius_mm)
            if piece is None:
                x, y = self._xy
                self._violate(
                    number,
                    "empty-grab",
                    _("magnet engaged at {at} with no piece within {radius} mm").format(
                        at=f"({x:.2f}, {y:.2f})", radius=f"{self.grab_radius_mm:g}"
                    ),
                )
            elif self._slips and self._slips[0] in (None, piece.id):
                self._slips.pop(0)  # a weak grip: the magnet engages but the piece stays behind
            else:
                self._attached = piece.id
        elif not wanted and self._magnet_on:
            self._magnet_on = False
            if self._attached is not None:
                dropped = self._pieces[self._attached]
                self._attached = None
                for other in self._others(dropped.id):
                    distance = math.hypot(other.x - dropped.x, other.y - dropped.y)
                    if distance < self.clearance_mm - self.tolerance_mm:
                        self._violate(
                            number,
                            "drop-onto",
                            _(
                                "{piece} released {distance} mm from {other}; clearance is {clearance} mm"
                            ).format(
                                piece=dropped,
                                distance=f"{distance:.2f}",
                                other=other,
                                clearance=f"{self.clearance_mm:g}",
                            ),
                        )

    def _others(self, piece_id: str) -> list[TwinPiece]:
        return [p for p in self._pieces.values() if p.id != piece_id]

    def _move(self, number: int, command: _Command) -> None:
        x0, y0 = self._xy
        if self._relative:
            target = (x0 + (command.x or 0.0), y0 + (command.y or 0.0))
        else:
            target = (x0 if command.x is None else command.x, y0 if command.y is None else command.y)
        xmin, ymin, xmax, ymax = self.envelope_mm
        tol = self.tolerance_mm
        if not (xmin - tol <= target[0] <= xmax + tol and ymin - tol <= target[1] <= ymax + tol):
            self._violate(
                number,
                "envelope",
                _("target {target} is outside the envelope {envelope!r}; move skipped").format(
                    target=f"({target[0]:.2f}, {target[1]:.2f})", envelope=self.envelope_mm
                ),
            )
            return
        rapid = self._motion_mode == "G0"
        carried = self.carrying
        if carried is not None:
            if rapid:
                self._violate(
                    number,
                    "rapid-while-carrying",
                    _("g0 rapid to {target!r} while carrying {piece}").format(target=target, piece=carried),
                )
            dx, dy = target[0] - x0, target[1] - y0
            lost = None if rapid else self.pull.dropped_at(self._xy, target, self._feed or 0.0, self.profile)
            if lost is not None:  # a weak magnet: the piece stays behind where it lost the magnet
                dx, dy = lost[0] - x0, lost[1] - y0
            new_centre = (carried.x + dx, carried.y + dy)
            for other in self._others(carried.id):
                distance, at = _segment_distance(carried.xy, new_centre, other.xy)
                if distance < self.clearance_mm - self.tolerance_mm:
                    self._violate(
                        number,
                        "clearance",
                        _(
                            "{piece} passes {distance} mm from {other} at {at}; clearance is {clearance} mm"
                        ).format(
                            piece=carried,
                            distance=f"{distance:.2f}",
                            other=other,
                            at=f"({at[0]:.2f}, {at[1]:.2f})",
                            clearance=f"{self.clearance_mm:g}",
                        ),
                    )
            self._pieces[carried.id] = replace(carried, x=new_centre[0], y=new_centre[1])
            if lost is not None:
                self._attached = None
                self.drops.append(carried.id)
        self._run.append(Block(self._xy, target, None if rapid else self._feed))
        self._xy = target
