"""The sensors' part of ``hw calibrate``: which expander input each cell's Hall sensor is on.

The table reads its inputs before any pin map (:class:`Inputs`: the expanders' bits, low where a sensor
sees a magnet) while the person puts pieces where it asks, and writes what it learnt as a pin map
(:mod:`chessatron.sensors.pinmap`). First the table is cleared: an input low on an empty table is a
shorted sensor (or a magnet left nearby), one that changes by itself flickers. Then one of two paths:

* **one square at a time**: a piece goes on each cell in turn (moved on from the one before) and the one
  input that went low is that cell's. A cell where nothing changes is looked at again: lifted, to see
  whether it shares the input of the cell before it (two squares on one input); else its sensor is dead
  and the inputs that never changed are named, to look at the wire.
* **the quick path**: the person sets up a new game; the 32 inputs that read a piece are matched to the
  usual wirings (:mod:`.patterns`: a port per rank or per file, either way round, ports in any order);
  one probe per line (a piece lifted, or put down on an empty rank) says which port it is on and which
  way it runs (a line beside the board, which no start position or full rank checks, two: its far end
  must be where the pattern puts it); lines that fit no pattern, and cells of the start position that do
  not read as the pattern says, are then done one square at a time.

On the simulator the person's hands are the simulated table's (:class:`Hands`), doing what each
:class:`Step` says as it is told.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import chess

from ..i18n import _
from ..planning.layout import Cell, Layout
from ..ports import LedStrip, StatusDisplay
from ..sensors.names import cell_name
from ..sensors.pinmap import Pin, PinMap
from .patterns import Family, Line, board_lines, line_pins, off_board_lines, start_fits
from .person import Person
from .saving import Saved, save_url, with_options

__all__ = [
    "Hands",
    "Inputs",
    "SensorTable",
    "SensorsResult",
    "Step",
    "calibrate_sensors",
    "step_text",
    "write_sensors",
]

#: Reads of the inputs on an empty table, to find those that flicker.
QUIET_READS = 24
#: Reads to judge an input that flickers: is a piece on its cell?
FLICKER_READS = 15
#: The pin map's file, beside the config.
PIN_MAP_FILE = "pins.txt"
#: The colour the LEDs show the cell the person is asked about in.
ASKED = (0, 90, 255)

Action = Literal["clear", "setup", "fill", "place", "move", "lift", "put-back", "take-off", "on-light"]


@dataclass(frozen=True)
class Step:
    """One thing the person's hands are asked to do: ``cell`` is where, ``origin`` where a moved piece
    comes from."""

    action: Action
    cell: Cell | None = None
    origin: Cell | None = None


class Inputs(Protocol):
    """The expanders' inputs, before any pin map."""

    @property
    def inputs(self) -> tuple[Pin, ...]:
        """Every input there is."""
        ...

    def read(self) -> frozenset[Pin]:
        """The inputs pulled low now (a sensor that sees a magnet)."""
        ...

    def address(self, pin: Pin) -> int:
        """The I2C address of the pin's expander."""
        ...


class Hands(Protocol):
    """The simulated table's hands: they do what a step says at once."""

    def do(self, step: Step) -> None: ...


@dataclass
class SensorTable:
    """What the sensors' part needs of the table: its inputs, the layout, and optionally the simulator's
    hands, the LEDs and the display to show the cell asked about. ``wait_s`` is how long a piece is waited
    for before the person is asked (0 on the simulator: its hands are quick), ``scans`` how many reads
    must agree, ``gap_s`` the time between them; ``off_board`` whether cells off the board have sensors
    (None: the person is asked)."""

    layout: Layout
    inputs: Inputs
    hands: Hands | None = None
    leds: LedStrip | None = None
    display: StatusDisplay | None = None
    wait_s: float = 30.0
    scans: int = 4
    gap_s: float = 0.03
    off_board: bool | None = None


@dataclass(frozen=True)
class SensorsResult:
    """What the sensors' part learnt: the pin map, the path taken, and what the person should look at."""

    pin_map: PinMap
    path: Literal["quick", "each"]
    findings: tuple[str, ...]
    left_out: frozenset[Cell]
    """Cells with no input of their own that works (dead, or sharing one): not sensed until fixed."""


def step_text(step: Step, layout: Layout) -> str:
    """What the person is told to do for ``step``."""
    where = _where(step.cell, layout) if step.cell is not None else ""
    if step.action == "clear":
        return _("Take every piece off the table.")
    if step.action == "setup":
        return _("Set up the pieces for a new game on the board, and nothing beside it.")
    if step.action == "fill":
        return _("Move the 32 pieces onto ranks 3, 4, 5 and 6, one on each square.")
    if step.action == "place":
        return _("Put a piece on {cell}.").format(cell=where)
    if step.action == "move":
        origin = _where(step.origin, layout) if step.origin is not None else ""
        return _("Move the piece from {origin} to {cell}.").format(origin=origin, cell=where)
    if step.action == "lift":
        return _("Lift the piece on {cell} and hold it.").format(cell=where)
    if step.action == "on-light":
        return _("Put a piece on the cell that is lit.")
    if step.action == "put-back":
        return _("Put the piece back on {cell}.").format(cell=where)
    return _("Take the piece on {cell} off the table.").format(cell=where)


def _where(cell: Cell, layout: Layout) -> str:
    name = cell_name(cell, layout)
    if layout.cell_kind(cell) == "board":
        return name
    return _("{name} (column {column}, row {row} from the near left corner)").format(
        name=name, column=cell[0], row=cell[1]
    )


def off_board_question() -> str:
    """The question whether the cells beside the board have sensors."""
    return _("Are there sensors under the cells beside the board too (capture zones, reserve)?")


def calibrate_sensors(table: SensorTable, person: Person) -> SensorsResult:
    """Find the input of every cell with the person's help (see the module's description). Raises
    :class:`~.person.Stopped` when the person stops; nothing is written here (:func:`~.saving`)."""
    return _Wizard(table, person).run()


class _Wizard:
    def __init__(self, table: SensorTable, person: Person) -> None:
        self.table = table
        self.person = person
        self.layout = table.layout
        self.flickering: set[Pin] = set()
        self.stuck: frozenset[Pin] = frozenset()
        self.pins: dict[Cell, Pin] = {}
        self.shared: dict[Pin, list[Cell]] = {}
        self.dead: list[Cell] = []
        self.findings: list[str] = []
        self.at: Cell | None = None  # where the calibration's own piece stands

    # --- the whole part ----------------------------------------------------------------------------

    def run(self) -> SensorsResult:
        layout = self.layout
        off_board = self.table.off_board
        if off_board is None:
            off_board = self.ask(off_board_question(), ("yes", "no")) == "yes"
        self.do(Step("clear"))
        self.ask(_("Is the table empty?"), ("ready",))
        self.quiet()
        path = self.ask(
            _(
                "Quick path (set up a new game, then a few probes) or one square at a time "
                "(slower, finds every broken sensor)?"
            ),
            ("quick", "each"),
        )
        extra = off_board_lines(layout) if off_board else []
        if path == "quick":
            self.quick(extra)
        else:
            for line in [*board_lines(layout, "ranks"), *extra]:
                for cell in line:
                    self.probe(cell, occupied=False)
        self.put_away()
        return self.result("quick" if path == "quick" else "each")

    def quick(self, extra: list[Line]) -> None:
        layout = self.layout
        self.do(Step("setup"))
        self.ask(_("Are the pieces set up?"), ("ready",))
        start = self.settled() - self.stuck
        family: Family | None = next((f for f in ("ranks", "files") if start_fits(layout, f, start)), None)
        if family is None:
            self.tell(
                _(
                    "The start position reads as {count} inputs on no usual wiring: "
                    "going one square at a time."
                ).format(count=len(start))
            )
            self.do(Step("clear"))
            self.ask(_("Is the table empty?"), ("ready",))
            for line in [*board_lines(layout, "ranks"), *extra]:
                for cell in line:
                    self.probe(cell, occupied=False)
            return
        occupied = {layout.square_cell(s) for s in chess.SQUARES if chess.square_rank(s) in (0, 1, 6, 7)}
        self.tell(
            _("The start position fits a port per rank.")
            if family == "ranks"
            else _("The start position fits a port per file.")
        )
        lines = [*board_lines(layout, family), *extra]
        board = set(layout.board_cells())
        claimed: set[tuple[int, str]] = set()
        # the lines with pieces on them first: the calibration's own piece comes in afterwards
        for line in sorted(lines, key=lambda line: line[0] not in occupied):
            first = self.probe(line[0], occupied=line[0] in occupied)
            proposed = line_pins(line, first) if first is not None else None
            if proposed is None or (first is not None and (first.expander, first.port) in claimed):
                self.tell(
                    _("{cell}'s line is not wired as a pattern: checking it square by square.").format(
                        cell=cell_name(line[0], layout)
                    )
                )
                for cell in line[1:]:
                    self.probe(cell, occupied=cell in occupied)
                continue
            assert first is not None
            claimed.add((first.expander, first.port))
            if line[0] not in board and len(line) > 1:
                # no start position and no full ranks check the cells off the board: the line's far end
                # must be where the pattern puts it, else the line is wired some other way
                last = self.probe(line[-1], occupied=False)
                if last != proposed[line[-1]]:
                    self.tell(
                        _("{cell}'s line is not wired as a pattern: checking it square by square.").format(
                            cell=cell_name(line[0], layout)
                        )
                    )
                    for cell in line[1:-1]:
                        self.probe(cell, occupied=False)
                    continue
            for cell in line[1:]:
                if cell in self.pins:
                    continue
                pin = proposed[cell]
                if cell in occupied and pin not in start and pin not in self.flickering:
                    self.probe(cell, occupied=True)  # the pattern says a piece, the input says none
                else:
                    self.pins[cell] = pin
        # two cells the proposals put on one input: each probed on its own
        owners: dict[Pin, list[Cell]] = {}
        for cell, pin in self.pins.items():
            owners.setdefault(pin, []).append(cell)
        for cells in owners.values():
            if len(cells) > 1:
                for cell in cells:
                    del self.pins[cell]
                for cell in cells:
                    self.probe(cell, occupied=cell in occupied)
        # the ranks the start position leaves empty, full: a sensor the pattern got wrong reads no piece
        self.put_away()
        self.do(Step("fill"))
        self.ask(_("Are the pieces on ranks 3 to 6?"), ("ready",))
        middle = self.settled()
        for cell in [c for c in self.layout.board_cells() if c not in occupied]:
            wired = self.pins.get(cell)
            if wired not in middle and wired not in self.flickering:
                self.probe(cell, occupied=True)
        # a cell that lifted changed nothing may share its input with a neighbour that still held it
        # down: on an empty table a piece of its own tells
        again, self.dead = list(dict.fromkeys(self.dead)), []
        if again:
            self.put_away()
            self.do(Step("clear"))
            self.ask(_("Is the table empty?"), ("ready",))
            for cell in again:
                self.probe(cell, occupied=False)

    # --- one cell ------------------------------------------------------------------------------------

    def probe(self, cell: Cell, *, occupied: bool) -> Pin | None:
        """The input of ``cell``: its piece lifted (``occupied``), or the calibration's piece put on it."""
        if occupied:
            self.put_away()
            before = self.settled()
            self.do(Step("lift", cell))
            gone = self.wait(before, "gone")
            self.do(Step("put-back", cell))
            if gone:
                self.wait(before - gone, "new")
            return self.found(cell, gone)
        before = self.settled()
        self.do(Step("place", cell) if self.at is None else Step("move", cell, self.at))
        previous, self.at = self.at, cell
        new = self.wait(before, "new") or self.flickering_low()
        held = self.pins.get(previous) if previous is not None else None
        if not new and held is not None and held in self.settled():
            # nothing changed and the input of the cell before still reads the piece: the same input?
            now = self.settled()
            self.do(Step("lift", cell))
            gone = self.wait(now, "gone")
            self.do(Step("put-back", cell))
            if gone:
                self.wait(now - gone, "new")
            if held in gone:
                self.share(held, previous, cell)
                return held
        while not new:
            answer = self.ask(
                _(
                    "Nothing changed when the piece went on {cell}. Is it there? Answer again to look "
                    "again, or skip to go on without this sensor."
                ).format(cell=cell_name(cell, self.layout)),
                ("again", "skip"),
            )
            if answer == "skip":
                self.dead.append(cell)
                return None
            new = self.wait(before, "new") or self.flickering_low()
        return self.found(cell, new)

    def found(self, cell: Cell, pins: frozenset[Pin]) -> Pin | None:
        if not pins:
            self.dead.append(cell)
            return None
        pin = min(pins)
        if len(pins) > 1:
            self.findings.append(
                _(
                    "{cell}: inputs {pins} changed together; {pin} was taken. Look for a bridge between them."
                ).format(cell=cell_name(cell, self.layout), pins=", ".join(map(str, sorted(pins))), pin=pin)
            )
        owner = next((c for c, p in self.pins.items() if p == pin and c != cell), None)
        if owner is not None:
            self.share(pin, owner, cell)
        self.pins[cell] = pin
        return pin

    def share(self, pin: Pin, *cells: Cell | None) -> None:
        """``cells`` are on ``pin`` together (each named once, however often it was probed)."""
        names = self.shared.setdefault(pin, [])
        names.extend(c for c in cells if c is not None and c not in names)

    def put_away(self) -> None:
        if self.at is not None:
            self.do(Step("take-off", self.at))
            self.at = None

    # --- reading the inputs ----------------------------------------------------------------------------

    def window(self, reads: int) -> list[frozenset[Pin]]:
        seen = []
        for i in range(reads):
            if i:
                time.sleep(self.table.gap_s)
            seen.append(self.table.inputs.read())
        for pin in frozenset().union(*seen):
            turns = sum(a != b for a, b in itertools.pairwise(pin in s for s in seen))
            if turns >= 2:
                self.flickering.add(pin)
        return seen

    def settled(self) -> frozenset[Pin]:
        """The inputs steadily low now (those that flicker left out), once no input is changing."""
        while True:
            seen = self.window(self.table.scans)
            always, ever = frozenset.intersection(*seen), frozenset.union(*seen)
            if not (ever - always) - self.flickering:
                return always - self.flickering
            time.sleep(self.table.gap_s)

    def quiet(self) -> None:
        """The empty table: inputs that read a magnet, inputs that flicker."""
        seen = self.window(QUIET_READS)
        self.stuck = frozenset.intersection(*seen) - self.flickering
        for pin in sorted(self.stuck):
            self.findings.append(
                _(
                    "Input {pin} reads a magnet on an empty table: a shorted sensor, or a magnet left "
                    "under the table. Look at {where}."
                ).format(pin=pin, where=self.where(pin))
            )

    def flickering_low(self) -> frozenset[Pin]:
        """A flickering input, not yet anyone's, that reads low most of the time now: the cell's."""
        if not self.flickering:
            return frozenset()
        seen = self.window(FLICKER_READS)
        taken = set(self.pins.values())
        low = [p for p in sorted(self.flickering - taken) if sum(p in s for s in seen) * 2 > len(seen)]
        return frozenset(low[:1])

    def wait(self, before: frozenset[Pin], what: Literal["new", "gone"]) -> frozenset[Pin]:
        """The inputs that went low (``new``) or high (``gone``) since ``before``, waiting up to
        ``wait_s`` for a change; empty when none came."""
        deadline = time.monotonic() + self.table.wait_s
        while True:
            now = self.settled()
            found = (now - before if what == "new" else before - now) - self.stuck
            if found or time.monotonic() >= deadline:
                return frozenset(found)
            time.sleep(max(self.table.gap_s, 0.05))

    # --- talking ------------------------------------------------------------------------------------

    def do(self, step: Step) -> None:
        if step.cell is not None:
            if self.table.leds is not None:
                self.table.leds.show({step.cell: ASKED})
            if self.table.display is not None:
                self.table.display.show([_("calibrating"), cell_name(step.cell, self.layout)])
        self.person.tell(step_text(step, self.layout))
        if self.table.hands is not None:
            self.table.hands.do(step)

    def tell(self, text: str) -> None:
        self.person.tell(text)

    def ask(self, question: str, answers: Sequence[str]) -> str:
        return self.person.ask(question, answers)

    def where(self, pin: Pin) -> str:
        gp = "GPA" if pin.port == "A" else "GPB"
        return _("expander {index} (address {address}), pin {gp}{bit}").format(
            index=pin.expander, address=f"{self.table.inputs.address(pin):#04x}", gp=gp, bit=pin.bit
        )

    # --- the result -----------------------------------------------------------------------------------

    def result(self, path: Literal["quick", "each"]) -> SensorsResult:
        layout = self.layout
        left_out = set(self.dead)
        for pin, cells in sorted(self.shared.items()):
            names = ", ".join(cell_name(c, layout) for c in cells)
            self.findings.append(
                _(
                    "{cells} are all on input {pin} ({where}): a wire joined to another. They are left "
                    "out of the map until each has an input of its own."
                ).format(cells=names, pin=pin, where=self.where(pin))
            )
            left_out.update(cells)
        pins = {cell: pin for cell, pin in self.pins.items() if cell not in left_out}
        used_ports = {(p.expander, p.port) for p in pins.values()}
        never = [
            p
            for p in self.table.inputs.inputs
            if (p.expander, p.port) in used_ports and p not in pins.values() and p not in self.stuck
        ]
        for cell in dict.fromkeys(self.dead):
            self.findings.append(
                _(
                    "{cell}: no input changed when a piece stood on it: a dead sensor or a broken wire. "
                    "Inputs that never saw a magnet: {never}."
                ).format(cell=cell_name(cell, layout), never=", ".join(map(str, never)) or _("none"))
            )
        for pin in sorted(self.flickering):
            owner = next((cell_name(c, layout) for c, p in pins.items() if p == pin), None)
            self.findings.append(
                _("Input {pin} flickers{of}: look at its wire and solder joints at {where}.").format(
                    pin=pin, of=f" ({owner})" if owner else "", where=self.where(pin)
                )
            )
        return SensorsResult(PinMap(pins), path, tuple(self.findings), frozenset(left_out))


def write_sensors(result: SensorsResult, config_path: Path, url: str, layout: Layout) -> Saved:
    """Write the pin map to ``pins.txt`` beside the config (the previous one kept as ``pins.txt.bak``)
    and point the sensors' URL ``url`` at it (``map=``), the config saved atomically with its previous
    version kept as ``chessatron.toml.bak``. Raises
    :class:`~chessatron.errors.ConfigError` if the config refuses it (nothing is changed then)."""
    path = config_path.expanduser().absolute().parent / PIN_MAP_FILE
    text = result.pin_map.to_text(layout)
    return save_url(config_path, "sensors", with_options(url, map=str(path)), file=path, text=text)
