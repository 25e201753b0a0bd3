"""The bench a calibration from the web page runs on: :class:`~chessatron.calibrate.bench.Bench`, the
one ``chessatron hw calibrate`` runs, with what the page shows of it (the squares the simulated LEDs
light, what was written in words).

The runner lends the page its machine for the calibration (:meth:`~chessatron.game.jobs.JobRunner.
lend_machine`): the parts open the GRBL link, the magnet, the sensors and the LEDs themselves. On the
simulator the calibration works on the simulated table as it was built (wrong on purpose after ``hw
calibrate --wrong`` or ``--seed``), holding the game's pieces where they stand (the runner's own table
is kept: its next job builds its world again from it); its hands put pieces where each step says while
the person answers on the page, and the step's text says where its magnet really is when it asks for a
nudge, which a person at a real table sees for themselves.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Final

import chess

from ..calibrate.bench import PARTS, Bench, NotHereError, Outcome
from ..calibrate.person import Nudge, Person
from ..config import Config
from ..i18n import N_, _
from ..planning.table import Table
from ..ports import RGB, DeviceUrl

__all__ = ["PART_TITLES", "NotHereError", "WebBench", "written"]

LOGGER = logging.getLogger(__name__)

#: The parts the page offers, in the order ``all`` runs them, with their titles.
PART_TITLES: Final = {
    "sensors": N_("The sensors"),
    "leds": N_("The LEDs"),
    "board": N_("The board under the gantry"),
    "magnet": N_("The magnet's pull"),
}
assert tuple(PART_TITLES) == PARTS


class WebBench(Bench):
    """What a calibration from the page runs on: the machine config at ``config_path``, and on the
    simulator the table's wiring kept at ``wiring_path`` holding the pieces ``pieces()`` gives."""

    def __init__(
        self,
        config_path: Path,
        wiring_path: Path | None = None,
        pieces: Callable[[], Table | None] = lambda: None,
    ) -> None:
        super().__init__(config_path, Config.load(config_path), wiring_path=wiring_path)
        self.pieces = pieces

    def begin(self) -> None:
        """A calibration begins: the config read again and, on the simulator, its table as it stands."""
        self.reload()
        self.world = None
        if self.simulated:
            self.simulate(table=self.pieces())

    def run_part(self, part: str, person: Person, stack: ExitStack) -> list[str]:
        """Run ``part`` with ``person`` and write what it learnt; the lines to show at its end (what to
        look at, what was written). Raises :class:`~chessatron.calibrate.person.Stopped`, and
        :class:`NotHereError` for a part this table cannot run."""
        self.reload()
        if self.world is not None and DeviceUrl.parse(self.settings.urls["grbl"]).scheme == "sim":
            person = _Looking(person, self.hint)
        outcome = self.run(part, person, stack)
        return [*outcome.lines, *written(outcome)]

    def lit_squares(self) -> dict[str, RGB]:
        """The squares the simulated LEDs really light now and their colours (empty on a real table,
        whose person looks at it)."""
        if self.strip is None or self.world is None:
            return {}
        layout = self.world.layout
        found = {}
        for cell, colour in self.lit().items():
            square = layout.node_square(layout.cell_node(cell))
            if square is not None:
                found[chess.square_name(square)] = colour
        return found


class _Looking:
    """``person`` told, with each nudge asked for, what ``look`` sees of the simulated table (where the
    centre is from the magnet), as the terminal tells it."""

    def __init__(self, person: Person, look: Callable[[str], str | None]) -> None:
        self.person = person
        self.look = look

    def tell(self, text: str) -> None:
        self.person.tell(text)

    def ask(self, question: str, answers: Sequence[str]) -> str:
        return self.person.ask(question, answers)

    def ask_square(self, question: str) -> chess.Square | None:
        return self.person.ask_square(question)

    def nudge(self, question: str) -> Nudge:
        seen = self.look(question)
        return self.person.nudge(question if seen is None else f"{question}\n{seen}")


def written(outcome: Outcome) -> list[str]:
    """What a part wrote, in words: each file, and the previous one kept beside it."""
    lines = []
    for path, kept in outcome.files:
        if kept is None:
            lines.append(_("{file} written.").format(file=path))
        else:
            lines.append(
                _("{file} written; the previous one is kept as {kept}.").format(file=path, kept=kept)
            )
    return lines
