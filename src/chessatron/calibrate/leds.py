"""The LEDs' part of ``hw calibrate``: which cell each LED of the chain lies under.

The table lights one LED at a time and the person names the square it lights (typed, or a piece put on
it when the sensors work). Every usual chain (:meth:`LedMapping.grid`: straight rows or serpentine,
from any corner, along ranks or files, under the board or the whole table) that disagrees with an answer
is dropped; the next LED lit is the one the chains still standing disagree most about, so a few answers
settle it. An answer that fits no chain is asked again (a person may misread one); when still no chain
fits, every LED is asked in turn and the chain is written as a table (a mapping file). Then a check
pattern lights the board's four corners in four colours for the person to confirm.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Protocol

import chess

from ..feedback.mapping import LedMapping
from ..i18n import _
from ..planning.layout import Cell, Layout
from ..ports import RGB, OccupancySensor
from ..sensors.names import cell_name
from .person import Person
from .saving import Saved, save_url, with_options
from .sensors import Hands, Step

__all__ = ["CHECK_COLOURS", "LedTable", "LedsResult", "calibrate_leds", "check_question", "write_leds"]

#: The check pattern: the board's corners, each in a colour of its own.
CHECK_COLOURS: Mapping[chess.Square, RGB] = {
    chess.A1: (255, 0, 0),
    chess.H1: (0, 255, 0),
    chess.A8: (0, 0, 255),
    chess.H8: (255, 255, 255),
}
#: The colour of the LED asked about.
ASKED: RGB = (255, 160, 0)
#: The mapping file's name, beside the config, for a chain of no usual order.
LED_MAP_FILE = "leds.txt"


class Pixels(Protocol):
    """The strip, lit by each pixel's place in the chain (:meth:`PixelLedStrip.show_pixels`)."""

    def show_pixels(self, colours: Mapping[int, RGB]) -> None: ...


@dataclass
class LedTable:
    """What the LEDs' part needs: the layout, the strip and how many pixels it has, and optionally the
    sensors (as calibrated) with the simulator's hands, to answer by putting a piece on the lit cell."""

    layout: Layout
    strip: Pixels
    count: int
    sensors: OccupancySensor | None = None
    hands: Hands | None = None
    wait_s: float = 30.0


@dataclass(frozen=True)
class LedsResult:
    """What the LEDs' part learnt: the mapping, the URL options that say it (None: a table written to a
    file), whether the check pattern was confirmed, and what to look at."""

    mapping: LedMapping
    options: Mapping[str, str] | None
    confirmed: bool
    findings: tuple[str, ...]


def check_question() -> str:
    """The question asked while the check pattern is lit."""
    return _("Is a1 lit red, h1 green, a8 blue and h8 white, and nothing else?")


def grid_chains(layout: Layout, count: int) -> list[tuple[dict[str, str], LedMapping]]:
    """Every usual chain of ``count`` pixels, with the URL options that name it."""
    found = []
    for wiring, origin, along, cover in product(
        ("serpentine", "rows"), ("a1", "h1", "a8", "h8"), ("ranks", "files"), ("board", "table")
    ):
        chain = LedMapping.grid(layout, wiring, origin=origin, along=along, cover=cover)  # type: ignore[arg-type]
        if chain.count == count:
            found.append(({"order": wiring, "origin": origin, "along": along, "cover": cover}, chain))
    return found


def calibrate_leds(table: LedTable, person: Person) -> LedsResult:
    """Find the cell of every LED with the person's help (see the module's description). Raises
    :class:`~.person.Stopped` when the person stops."""
    return _Wizard(table, person).run()


class _Wizard:
    def __init__(self, table: LedTable, person: Person) -> None:
        self.table = table
        self.person = person
        self.layout = table.layout
        self.board = frozenset(table.layout.board_cells())
        self.touch = False
        self.findings: list[str] = []

    def run(self) -> LedsResult:
        if self.table.sensors is not None:
            answer = self.person.ask(
                _("Answer by putting a piece on the lit cell, or by typing its square?"), ("touch", "type")
            )
            self.touch = answer == "touch"
            if self.touch:
                self.person.tell(_("Take every piece off the table."))
                if self.table.hands is not None:
                    self.table.hands.do(Step("clear"))
                self.person.ask(_("Is the table empty?"), ("ready",))
        chains = grid_chains(self.layout, self.table.count)
        answers: dict[int, Cell | None] = {}
        again: set[int] = set()
        chosen: tuple[dict[str, str], LedMapping] | None = None
        while chains:
            alive = [c for c in chains if self.misses(c[1], answers) == 0]
            if not alive:
                near = [c for c in chains if self.misses(c[1], answers) == 1]
                redo = sorted(
                    {k for c in near for k in answers if not self.fits(c[1], k, answers[k])} - again
                )
                if not redo:
                    break
                self.person.tell(_("That answer fits no usual chain; let us look at that LED again."))
                for index in redo:
                    answers[index] = self.ask(index)
                    again.add(index)
                continue
            wanted = self.next_pixel([c[1] for c in alive], answers)
            if wanted is None or (len(alive) == 1 and len(answers) >= 2):
                chosen = alive[0]
                break
            answers[wanted] = self.ask(wanted)
        if chosen is not None:
            if self.check(chosen[1]):
                return LedsResult(chosen[1], chosen[0], True, tuple(self.findings))
            self.person.tell(_("Then the chain is in no usual order: every LED in turn."))
        mapping = self.every(answers)
        confirmed = self.check(mapping)
        if not confirmed:
            self.findings.append(_("The check pattern was not right: run the LEDs' part again."))
        return LedsResult(mapping, None, confirmed, tuple(self.findings))

    def fits(self, chain: LedMapping, index: int, cell: Cell | None) -> bool:
        predicted = chain.cells[index]
        if cell is None:
            return predicted is None or predicted not in self.board
        return predicted == cell

    def misses(self, chain: LedMapping, answers: Mapping[int, Cell | None]) -> int:
        return sum(not self.fits(chain, index, cell) for index, cell in answers.items())

    def next_pixel(self, alive: list[LedMapping], answers: Mapping[int, Cell | None]) -> int | None:
        """The LED the chains still standing disagree most about (0 first); None when they all agree."""
        if 0 not in answers:
            return 0
        best, spread = None, 1
        for index in range(self.table.count):
            if index in answers:
                continue
            seen = len({chain.cells[index] for chain in alive})
            if seen > spread:
                best, spread = index, seen
        return best

    def ask(self, index: int) -> Cell | None:
        self.table.strip.show_pixels({index: ASKED})
        if self.touch and self.table.sensors is not None:
            return self.touched(index)
        square = self.person.ask_square(
            _("LED {index} is lit: which square is it under? (none: not under the board)").format(index=index)
        )
        return None if square is None else self.layout.square_cell(square)

    def touched(self, index: int) -> Cell | None:
        sensors = self.table.sensors
        assert sensors is not None
        before = sensors.scan()
        self.person.tell(
            _("LED {index} is lit.").format(index=index) + " " + _("Put a piece on the cell that is lit.")
        )
        if self.table.hands is not None:
            self.table.hands.do(Step("on-light"))
        deadline = time.monotonic() + self.table.wait_s
        while True:
            new = sensors.scan() - before
            if len(new) == 1 or time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        if len(new) != 1:
            # no sensor saw it (a cell the sensors leave out): the piece comes off, the square is typed
            self.person.tell(_("No sensor saw that piece; take it off the table again."))
            if self.table.hands is not None:
                self.table.hands.do(Step("take-off", None))
            square = self.person.ask_square(
                _("LED {index} is lit: which square is it under? (none: not under the board)").format(
                    index=index
                )
            )
            return None if square is None else self.layout.square_cell(square)
        (cell,) = new
        step = Step("take-off", cell)
        self.person.tell(
            _("Take the piece on {cell} off the table.").format(cell=cell_name(cell, self.layout))
        )
        if self.table.hands is not None:
            self.table.hands.do(step)
        return cell

    def every(self, answers: dict[int, Cell | None]) -> LedMapping:
        named: dict[Cell, int] = {cell: i for i, cell in answers.items() if cell is not None}
        cells: list[Cell | None] = []
        for index in range(self.table.count):
            cell = answers[index] if index in answers else self.ask(index)
            for _try in range(3):
                if cell is None or named.get(cell, index) == index:
                    break
                self.person.tell(
                    _("{cell} was named for LED {other} already; look again.").format(
                        cell=cell_name(cell, self.layout), other=named[cell]
                    )
                )
                cell = self.ask(index)
            if cell is not None and named.get(cell, index) != index:
                cell = None
            if cell is not None:
                named[cell] = index
            cells.append(cell)
        return LedMapping(tuple(cells), "the chain as calibrated")

    def check(self, mapping: LedMapping) -> bool:
        lit = {}
        for square, colour in CHECK_COLOURS.items():
            index = mapping.index(self.layout.square_cell(square))
            if index is not None:
                lit[index] = colour
        self.table.strip.show_pixels(lit)
        ok = self.person.ask(check_question(), ("yes", "no")) == "yes"
        self.table.strip.show_pixels({})
        return ok


def write_leds(result: LedsResult, config_path: Path, url: str, layout: Layout) -> Saved:
    """Write the chain into the LEDs' URL ``url``: the options of a usual chain (``order=``, ``origin=``,
    ``along=``, ``cover=``), or a mapping file ``leds.txt`` beside the config (the previous one kept as
    ``leds.txt.bak``) that ``order=`` names. The config is saved atomically, the previous one kept as
    ``chessatron.toml.bak``."""
    if result.options is not None:
        return save_url(config_path, "leds", with_options(url, count=None, **result.options))
    path = config_path.expanduser().absolute().parent / LED_MAP_FILE
    lines = ["# the cell over each LED, in chain order (e4, column:row, or - for none), eight a line"]
    entries = ["-" if c is None else _entry(c, layout) for c in result.mapping.cells]
    lines += [" ".join(entries[i : i + 8]) for i in range(0, len(entries), 8)]
    options = {"order": str(path), "origin": None, "along": None, "cover": None, "count": None}
    return save_url(
        config_path, "leds", with_options(url, **options), file=path, text="\n".join(lines) + "\n"
    )


def _entry(cell: Cell, layout: Layout) -> str:
    square = layout.node_square(layout.cell_node(cell))
    return chess.square_name(square) if square is not None else f"{cell[0]}:{cell[1]}"
