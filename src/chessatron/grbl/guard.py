"""What ``chessatron run`` refuses before anything moves (no I/O): a program that would drive the magnet
outside the table's envelope, move at rapid with the magnet on, or move in ways that cannot be checked.

``run`` streams a maker's own G-code. GRBL checks a target against its travel only with soft limits on
(``$20=1``), and it has no idea of a magnet: a ``G0`` with the magnet on flings the piece it holds, or
drags it into another, at the machine's full speed. So every line is followed as GRBL reads it (its modal
state: ``G0``/``G1``, ``G90``/``G91``, ``G20``/``G21``, ``G53``; the magnet's output as the layout switches
it; ``$J=`` jogs and ``$H``) from where the gantry stands, and refused are:

* a target outside the layout's ``envelope_mm`` (a jog's too);
* motion at rapid (``G0``) while the magnet is on, and homing with it on;
* motion whose path cannot be checked here: arcs (``G2``/``G3``), stored positions (``G28``/``G30``),
  probing (``G38.x``) and coordinate offsets (``G10``, ``G92``, ``G55``-``G59``), which move the
  machine somewhere the program's numbers do not say.

``run --raw`` sends a program without these checks. Lines GRBL itself would refuse (unknown codes, bad
numbers) are left to GRBL: they move nothing.

>>> refusals = check_program(["G21 G90", "G0 X5000 Y-5000", "M3 S1000", "G0 X10 Y10"], Layout.default())
>>> [(r.line, r.why) for r in refusals]  # doctest: +NORMALIZE_WHITESPACE
[(2, "its target X5000 Y-5000 lies outside the table's envelope (X0 to 630, Y0 to 530 mm)"),
 (4, 'it moves at rapid (G0) with the magnet on: a piece on it would be flung off or dragged into
  another; move with G1 and a feed, or switch the magnet off first')]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..errors import GcodeError
from ..i18n import N_, _
from ..planning.gcode_parse import GcodeLine, parse_line
from ..planning.layout import Layout, MachinePoint

__all__ = ["Refusal", "check_lines", "check_program"]

_INCH_MM = 25.4
# G codes that move the machine where the program's numbers do not say, or along a path not checked here.
_UNCHECKED_G = {
    2.0: N_("an arc (G2)"),
    3.0: N_("an arc (G3)"),
    10.0: N_("a coordinate offset (G10)"),
    28.0: N_("a move to a stored position (G28)"),
    28.1: N_("storing a position (G28.1)"),
    30.0: N_("a move to a stored position (G30)"),
    30.1: N_("storing a position (G30.1)"),
    38.2: N_("probing (G38.2)"),
    38.3: N_("probing (G38.3)"),
    38.4: N_("probing (G38.4)"),
    38.5: N_("probing (G38.5)"),
    55.0: N_("a work coordinate system (G55)"),
    56.0: N_("a work coordinate system (G56)"),
    57.0: N_("a work coordinate system (G57)"),
    58.0: N_("a work coordinate system (G58)"),
    59.0: N_("a work coordinate system (G59)"),
    92.0: N_("a coordinate offset (G92)"),
}
_MAGNET_MARKERS = {"MAGNET ON": True, "MAGNET OFF": False}


@dataclass(frozen=True)
class Refusal:
    """A program line ``run`` will not send: its number (from 1), its text and why."""

    line: int
    text: str
    why: str

    def __str__(self) -> str:
        shown = self.text if len(self.text) <= 40 else self.text[:39] + "…"
        return _("line {line} {text!r}: {why}").format(line=self.line, text=shown.strip(), why=self.why)


@dataclass
class _State:
    """GRBL's modal state as far as motion and the magnet go, and where the gantry is (mm)."""

    xy: MachinePoint
    rapid: bool = True  # GRBL starts in G0
    moving: bool = True  # False after G80 (motion cancel) or in an arc mode
    absolute: bool = True
    inches: bool = False
    spindle: float = 5.0
    speed: float = 0.0
    coolant: bool = False
    servo: bool = False


def check_program(
    lines: Iterable[str], layout: Layout, start_mm: MachinePoint | None = None
) -> list[Refusal]:
    """The lines of a program ``run`` refuses on ``layout``'s table, the gantry starting at ``start_mm``
    (default: home): see the module's docs."""
    return list(check_lines(lines, layout, start_mm))


def check_lines(
    lines: Iterable[str], layout: Layout, start_mm: MachinePoint | None = None
) -> Iterator[Refusal]:
    """:func:`check_program`'s refusals one at a time, as ``lines`` are read (a program of millions of
    lines is never held whole)."""
    state = _State(layout.home_mm if start_mm is None else start_mm)
    for number, text in enumerate(lines, start=1):
        try:
            line = parse_line(text)
        except GcodeError:
            continue  # GRBL refuses it: it moves nothing
        why = _system(line, state, layout) if line.system is not None else _gcode(line, state, layout)
        if why is not None:
            yield Refusal(number, text, why)


def _magnet_on(state: _State, layout: Layout) -> bool:
    method = layout.magnet.method
    if method == "spindle":
        return state.spindle in (3.0, 4.0) and state.speed > 0.0
    if method == "coolant":
        return state.coolant
    return state.servo


def _outside(layout: Layout, xy: MachinePoint) -> str | None:
    xmin, ymin, xmax, ymax = layout.envelope_mm
    if xmin - 1e-6 <= xy[0] <= xmax + 1e-6 and ymin - 1e-6 <= xy[1] <= ymax + 1e-6:
        return None
    return _(
        "its target {target} lies outside the table's envelope (X{xmin} to {xmax}, Y{ymin} to {ymax} mm)"
    ).format(
        target=f"X{xy[0]:g} Y{xy[1]:g}",
        xmin=f"{xmin:g}",
        xmax=f"{xmax:g}",
        ymin=f"{ymin:g}",
        ymax=f"{ymax:g}",
    )


def _target(line: GcodeLine, state: _State, *, absolute: bool, inches: bool, machine: bool) -> MachinePoint:
    scale = _INCH_MM if inches else 1.0
    x, y = line.value("X"), line.value("Y")
    if absolute or machine:
        return (state.xy[0] if x is None else x * scale, state.xy[1] if y is None else y * scale)
    return (state.xy[0] + (x or 0.0) * scale, state.xy[1] + (y or 0.0) * scale)


def _system(line: GcodeLine, state: _State, layout: Layout) -> str | None:
    command = line.system or ""
    if command == "H":
        on = _magnet_on(state, layout)
        state.xy = layout.home_mm
        return (
            _("it homes with the magnet on, dragging what it holds to home; switch it off first")
            if on
            else None
        )
    if not command.startswith("J="):
        return None  # settings and reports move nothing
    try:
        jog = parse_line(command[2:])
    except GcodeError:
        return None  # GRBL refuses it (error:16)
    codes = set(jog.g_codes)
    target = _target(
        jog,
        state,
        absolute=90.0 in codes or (state.absolute and 91.0 not in codes),
        inches=20.0 in codes or (state.inches and 21.0 not in codes),
        machine=53.0 in codes,
    )
    state.xy = target
    return _outside(layout, target)


def _gcode(line: GcodeLine, state: _State, layout: Layout) -> str | None:
    # GRBL's order within a line: speed, spindle, coolant, modes, motion; the host's markers last
    for letter, value in line.words:
        if letter == "S":
            state.speed = value
    for code in line.m_codes:
        if code in (3.0, 4.0, 5.0):
            state.spindle = code
        elif code in (7.0, 8.0):
            state.coolant = True
        elif code == 9.0:
            state.coolant = False
    codes = line.g_codes
    unchecked = [_UNCHECKED_G[code] for code in codes if code in _UNCHECKED_G]
    for code in codes:
        if code in (0.0, 1.0):
            state.rapid, state.moving = code == 0.0, True
        elif code in (2.0, 3.0, 80.0):
            state.moving = False
        elif code in (90.0, 91.0):
            state.absolute = code == 90.0
        elif code in (20.0, 21.0):
            state.inches = code == 20.0
    why: str | None = None
    moves = line.has("X") or line.has("Y")
    arc_mode_only = all(code in (2.0, 3.0) for code in codes if code in _UNCHECKED_G)  # (sets a mode)
    if unchecked and (moves or not arc_mode_only):
        why = _(
            "it asks for {what}, which moves the machine where this check cannot follow; write the moves as "
            "G0/G1 lines, or send the program as it is with --raw"
        ).format(what=_(unchecked[0]))
    elif moves and not state.moving:
        why = _(
            "it moves in a mode this check cannot follow (an arc, or none after G80); write the moves as "
            "G0/G1 lines, or send the program as it is with --raw"
        )
    elif moves and 4.0 not in codes:
        target = _target(line, state, absolute=state.absolute, inches=state.inches, machine=53.0 in codes)
        why = _outside(layout, target)
        if why is None and state.rapid and _magnet_on(state, layout):
            why = _(
                "it moves at rapid (G0) with the magnet on: a piece on it would be flung off or dragged into "
                "another; move with G1 and a feed, or switch the magnet off first"
            )
        if why is None:
            state.xy = target
    if 2.0 in line.m_codes or 30.0 in line.m_codes:  # program end: GRBL resets G1, G90, M5, M9
        state.rapid, state.moving, state.absolute = False, True, True
        state.spindle, state.coolant = 5.0, False
    for comment in line.comments:
        marker = _MAGNET_MARKERS.get(" ".join(comment.upper().split()))
        if marker is not None:
            state.servo = marker
    return why
