"""``chessatron hw calibrate board``: find where the board lies under the gantry, with the person's help.

After homing, the magnet (off) goes where the layout says a1's centre is; the person nudges it (left,
right, up, down as seen from white's side; finer or coarser steps) until it is under the centre of a1,
then of h8, then of a8 to check squareness. From the three centres (:mod:`.geometry`) come the table's
origin, its square size (along the files and the ranks: the layout keeps their mean, and a difference is
reported) and its small turn, which the layout keeps in ``rotation_deg`` and the G-code follows. The
magnet then visits the board's corners and the capture zones' with the new geometry, for the person to
confirm; a place they say it missed offers a new measurement. :func:`write_board` writes the result.

Nothing moves outside the envelope: a nudge that would is stopped at its edge, and said.

A terminal-free example, on a simulated table built wrong on purpose::

    from pathlib import Path

    from chessatron.calibrate.board import calibrate_board, write_board
    from chessatron.calibrate.machine import GantryTable
    from chessatron.config import Config
    from chessatron.sim.calibration_person import GantryPerson
    from chessatron.sim.wrong_gantry import GantryBuild
    from chessatron.sim.world import register_world

    config = Config.default()  # grbl = sim://, sensors = sim://
    world = register_world(GantryBuild.random(seed=7).world(config.layout))
    with GantryTable.open(config) as table:
        result = calibrate_board(table, GantryPerson(world, seed=7))
    print(result.summary())
    write_board(result, Path("table.toml"))  # then layout = "table.toml" in the config
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import chess

from ..i18n import _
from ..planning.layout import Cell, Layout, MachinePoint
from ..sensors.names import cell_name
from .geometry import BoardFit, fit_board
from .layout_write import LayoutWritten, write_layout_keys
from .person import Nudge, Person

if TYPE_CHECKING:
    from .machine import GantryTable

__all__ = ["STEPS_MM", "BoardResult", "calibrate_board", "write_board"]

#: The nudge steps, coarse to fine (mm); a nudge starts at the middle one.
STEPS_MM = (5.0, 1.0, 0.2)
#: Squares differing more than this along the files and the ranks (a fraction) are reported: the steps per
#: millimetre of an axis ($100/$101) are off, or the board's squares are not square.
SQUARES_DIFFER = 0.003
#: A gantry more than this out of square (degrees) is reported.
OUT_OF_SQUARE_DEG = 0.3
#: A square measured this much larger or smaller than the layout's (a fraction) is a wrong square centred.
IMPLAUSIBLE = 0.1
#: Files and ranks meeting further than this off a right angle (degrees): a wrong square centred, or a
#: centre missed by far (a gantry that far out of square could not play).
IMPLAUSIBLE_SKEW_DEG = 2.0
#: The third corner measured, to check squareness.
THIRD_CORNER = chess.A8


@dataclass(frozen=True)
class BoardResult:
    """What :func:`calibrate_board` learnt: the ``fit`` (:class:`~.geometry.BoardFit`), the ``layout`` with
    the board where it was found, the square centres as the person found them, ``findings`` to show (what
    to look at on the machine) and ``missed``: the places of the tour the person said the magnet was not
    over (empty when they confirmed every one)."""

    fit: BoardFit
    layout: Layout
    measured: dict[chess.Square, MachinePoint]
    findings: tuple[str, ...]
    missed: tuple[str, ...]

    @property
    def confirmed(self) -> bool:
        """True if the person saw the magnet over every place of the tour."""
        return not self.missed

    def changes(self) -> dict[tuple[str, str], float | list[float]]:
        """The layout keys this result sets, by ``(section, key)``."""
        layout = self.layout
        changes: dict[tuple[str, str], float | list[float]] = {
            ("machine", "origin_mm"): [layout.origin_mm[0], layout.origin_mm[1]],
            ("machine", "rotation_deg"): layout.rotation_deg,
            ("table", "square_mm"): layout.square_mm,
        }
        return changes

    def summary(self) -> str:
        """One sentence for the person: what was found."""
        fit = self.fit
        return _(
            "The board's a1 is at X{x} Y{y}, its squares are {square} mm, turned {turn}°: the table's corner "
            "is at X{ox} Y{oy}."
        ).format(
            x=f"{fit.a1_mm[0]:.2f}",
            y=f"{fit.a1_mm[1]:.2f}",
            square=f"{self.layout.square_mm:.3f}",
            turn=f"{fit.turn_deg:+.3f}",
            ox=f"{self.layout.origin_mm[0]:.2f}",
            oy=f"{self.layout.origin_mm[1]:.2f}",
        )


def calibrate_board(table: GantryTable, person: Person) -> BoardResult:
    """Find the board under the gantry with ``person``'s nudges (see the module's description).

    ``table`` is a :class:`~chessatron.calibrate.machine.GantryTable` (``GantryTable.open(config)``); it is
    started (connected, homed when homing is on) if it was not. Nothing is written: pass the result to
    :func:`write_board`. Raises :class:`~chessatron.calibrate.person.Stopped` when the person stops,
    :class:`~chessatron.errors.LayoutError` for a board turned too far to follow (saying how to square
    it) or a table that no longer fits the envelope where it was found, and the link's errors."""
    if table.at is None:
        table.start(person)
    layout = table.layout
    person.tell(
        _(
            "The magnet (off) goes where the layout puts the centre of {first}, then {second}, then {third}: "
            "move it under each square's centre."
        ).format(first="a1", second="h8", third=chess.square_name(THIRD_CORNER))
    )
    while True:
        measured: dict[chess.Square, MachinePoint] = {}
        for square in (chess.A1, chess.H8, THIRD_CORNER):
            measured[square] = _find_centre(table, person, square, _guess(layout, square, measured))
        fit = fit_board(layout, measured)
        problem = _implausible(fit, layout)
        if problem is not None:
            person.tell(problem)
            continue
        found = fit.layout(layout)  # LayoutError: turned too far, or the table leaves the envelope
        findings = tuple(_findings(fit, layout))
        result = BoardResult(fit, found, measured, findings, ())
        person.tell(result.summary())
        for finding in findings:
            person.tell(finding)
        missed = _tour(table, person, found)
        table.move(table.clamp(layout.home_mm)[0])
        if not missed:
            return result
        again = person.ask(
            _("The magnet missed {places}. Measure the board again?").format(places=", ".join(missed)),
            (_("yes"), _("no")),
        )
        if again != _("yes"):
            return BoardResult(fit, found, measured, findings, tuple(missed))


def write_board(result: BoardResult, path: Path) -> LayoutWritten:
    """Write the board ``result`` found (origin, square size, rotation) into the layout file at ``path``
    (made from the built-in table when there is none; the config's ``layout =`` must name it), keeping the
    file before as ``path`` + ``.bak``; atomic. Raises what
    :func:`~.layout_write.write_layout_keys` raises."""
    return write_layout_keys(path, result.changes())


# --- finding a centre ------------------------------------------------------------------------------


def _guess(layout: Layout, square: chess.Square, measured: dict[chess.Square, MachinePoint]) -> MachinePoint:
    """Where ``square``'s centre probably is: the layout's, moved as a1 was found moved, and turned and
    scaled as a1 to h8 was found once both are known."""
    expected = layout.node_mm(layout.square_node(square))
    if chess.A1 not in measured:
        return expected
    a1 = layout.node_mm(layout.square_node(chess.A1))
    found = complex(*measured[chess.A1])
    if chess.H8 not in measured:
        return (expected[0] + found.real - a1[0], expected[1] + found.imag - a1[1])
    h8 = layout.node_mm(layout.square_node(chess.H8))
    similar = (complex(*measured[chess.H8]) - found) / (complex(*h8) - complex(*a1))
    guess = found + similar * (complex(*expected) - complex(*a1))
    return (guess.real, guess.imag)


def _find_centre(
    table: GantryTable, person: Person, square: chess.Square, guess: MachinePoint
) -> MachinePoint:
    """The magnet to ``guess``, then nudged by the person until they say it is under ``square``'s centre."""
    name = chess.square_name(square)
    start, clamped = table.clamp(guess)
    table.move(start)
    step = 1
    while True:
        key = person.nudge(
            _(
                "Move the magnet under the centre of {square} (steps of {step} mm; finer or coarser "
                "steps; done when it is there)."
            ).format(square=name, step=f"{STEPS_MM[step]:g}")
        )
        if key == "done":
            assert table.at is not None
            return table.at
        if key in ("finer", "coarser"):
            step = min(step + 1, len(STEPS_MM) - 1) if key == "finer" else max(step - 1, 0)
            continue
        assert table.at is not None
        dx, dy = _direction(table.layout, key)
        target, clamped = table.clamp((table.at[0] + dx * STEPS_MM[step], table.at[1] + dy * STEPS_MM[step]))
        if clamped:
            person.tell(_("The magnet is at the edge of the machine's reach; it goes no further that way."))
        table.move(target)


def _direction(layout: Layout, key: Nudge) -> tuple[float, float]:
    """A nudge as a unit step in machine axes: right runs toward the h-file, up toward the 8th rank."""
    along = {"right": (1, 0), "left": (-1, 0), "up": (0, 1), "down": (0, -1)}[key]
    x, y = along
    for _turn in range(layout.quarter_turns):
        x, y = -y, x
    return (float(x), float(y))


# --- checking it -------------------------------------------------------------------------------------


def _implausible(fit: BoardFit, layout: Layout) -> str | None:
    """Why the centres found cannot be the squares asked for, or None."""
    if abs(fit.out_of_square_deg) > IMPLAUSIBLE_SKEW_DEG:
        return _(
            "Those centres make the files and the ranks meet {angle}° off a right angle: one of them was "
            "probably another square, or off its centre. Measure again."
        ).format(angle=f"{fit.out_of_square_deg:+.1f}")
    for size in (fit.file_mm, fit.rank_mm):
        if abs(size / layout.square_mm - 1) > IMPLAUSIBLE:
            return _(
                "Those centres make squares of {size} mm where the layout says {expected} mm: one of them "
                "was probably another square. Measure again."
            ).format(size=f"{size:.1f}", expected=f"{layout.square_mm:g}")
    return None


def _findings(fit: BoardFit, layout: Layout) -> Iterator[str]:
    if fit.squares_differ > SQUARES_DIFFER:
        yield _(
            "The squares measure {file} mm along the files and {rank} mm along the ranks: check the steps "
            "per millimetre of the axes ($100 and $101) and the belts; the layout keeps their mean."
        ).format(file=f"{fit.file_mm:.3f}", rank=f"{fit.rank_mm:.3f}")
    if abs(fit.out_of_square_deg) > OUT_OF_SQUARE_DEG:
        yield _(
            "The gantry draws the board {angle}° out of square: check that the frame is square and the belts "
            "are equally tight."
        ).format(angle=f"{fit.out_of_square_deg:+.2f}")
    if abs(fit.turn_deg) >= 0.05:
        yield _("The board is turned {turn}° on the table; the layout now follows it.").format(
            turn=f"{fit.turn_deg:+.2f}"
        )


def _tour_places(layout: Layout) -> Iterator[tuple[str, Cell]]:
    """The board's corners, then each capture zone's corners, with the names the person is told."""
    for square in (chess.A1, chess.H1, chess.H8, chess.A8):
        yield chess.square_name(square), layout.square_cell(square)
    for colour, zone_name in (
        (chess.WHITE, _("white's capture zone")),
        (chess.BLACK, _("black's capture zone")),
    ):
        cells = layout.capture_cells.get(colour, ())
        if not cells:
            continue
        corners: list[Cell] = []
        for key in (
            lambda c: c[0] + c[1],
            lambda c: c[0] - c[1],
            lambda c: -c[0] - c[1],
            lambda c: c[1] - c[0],
        ):
            cell = min(cells, key=key)
            if cell not in corners:
                corners.append(cell)
        for cell in corners:
            yield _("{cell} in {zone}").format(cell=cell_name(cell, layout), zone=zone_name), cell


def _tour(table: GantryTable, person: Person, layout: Layout) -> list[str]:
    """The magnet to each place of the tour on ``layout``; the places the person says it missed."""
    missed = []
    for name, cell in _tour_places(layout):
        table.move(layout.node_mm(layout.cell_node(cell)))
        answer = person.ask(
            _("Is the magnet under the centre of {place}?").format(place=name), (_("yes"), _("no"))
        )
        if answer != _("yes"):
            missed.append(name)
    return missed
