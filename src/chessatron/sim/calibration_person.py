"""The simulated maker of the board and magnet calibrations (``--hand``): a
:class:`~chessatron.calibrate.person.Person` who reads the wizard's words and looks at the simulated
table's truth, never at the wizard's workings.

* Asked to move the magnet under a square's centre, they look where the magnet really is over the real
  board (the world's layout: where the table was really built) and press the key toward the centre; they
  see how far each key moves it, ask for finer steps once a step would overshoot, and say done when it is
  as close as their eye can tell (:data:`EYE_MM`). Now and then they press a wrong key, and correct it.
* Asked whether the magnet is under a place (a square such as ``a8``, a cell such as ``c0r9``), they say
  yes when it is within :data:`SEEN_MM` of its real centre.
* Asked to put a piece on a square (and leave others empty), they do so on the real squares, and answer.
* Asked whether a piece reached a square, they look.

A question's square or cell is read from its words (``a1``, ``c0r9`` are the same in every language); a
yes-or-no question's answers come yes first. What they were told and asked is kept (:attr:`told`,
:attr:`asked`).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence

import chess

from ..calibrate.person import Nudge
from ..planning.layout import Cell, MachinePoint
from ..sensors.names import parse_cell
from .twin import TwinPiece
from .world import SENSOR_RANGE_MM, SimWorld

__all__ = ["EYE_MM", "SEEN_MM", "GantryPerson"]

#: How close to a centre a person can set the magnet by eye (mm).
EYE_MM = 0.15
#: How far off a centre a person still says the magnet is under it (mm).
SEEN_MM = 2.0
#: The most keys a person presses for one centre before they settle for where the magnet is.
PATIENCE = 300

_PLACE = re.compile(r"\b([a-h][1-8]|c\d+r\d+)\b")
_AXES: dict[Nudge, tuple[int, int]] = {"right": (1, 0), "left": (-1, 0), "up": (0, 1), "down": (0, -1)}


class GantryPerson:
    """A maker at the simulated ``world``, deterministic for a ``seed``; ``slips`` is how often a key is
    the wrong one (a fraction of the keys)."""

    def __init__(self, world: SimWorld, *, seed: int = 0, slips: float = 0.05) -> None:
        self.world = world
        self.slips = slips
        self.told: list[str] = []
        self.asked: list[str] = []
        #: Keys pressed while nudging, in order.
        self.keys: list[Nudge] = []
        self._random = random.Random(seed)
        self._step: float | None = None  # how far the last direction key moved the magnet
        self._before: MachinePoint | None = None  # where the magnet was before the last direction key
        self._finest = False  # asked for finer steps and saw the step stay as it was
        self._asked_finer = False
        self._presses = 0
        self._piece_count = 0

    def __repr__(self) -> str:
        return f"<GantryPerson world={self.world.name!r} told={len(self.told)} asked={len(self.asked)}>"

    # --- the Person protocol -----------------------------------------------------------------------

    def tell(self, text: str) -> None:
        self.told.append(text)

    def ask(self, question: str, answers: Sequence[str]) -> str:
        self.asked.append(question)
        places = self._places(question)
        if len(answers) == 1:  # do what it says, then answer
            if places:
                self._set_squares(places[0], places[1:])
            return answers[0]
        yes, no = answers[0], answers[1]
        if not places:
            return yes
        if "magnet" in question.lower():
            return yes if math.dist(self._magnet(), self._centre(places[0])) <= SEEN_MM else no
        return yes if self._piece_near(self._centre(places[0])) is not None else no

    def ask_square(self, question: str) -> chess.Square | None:
        self.asked.append(question)
        return None

    def nudge(self, question: str) -> Nudge:
        places = self._places(question)
        at = self._magnet()
        if self._before is not None:
            moved = math.dist(at, self._before)
            if moved > 1e-6:
                if self._asked_finer and self._step is not None and moved >= self._step - 1e-6:
                    self._finest = True
                self._asked_finer = False
                self._step = moved
            self._before = None
        key = self._key(at, self._centre(places[0])) if places else "done"
        self.keys.append(key)
        if key == "done":
            self._step, self._finest, self._asked_finer, self._presses = None, False, False, 0
        elif key in _AXES:
            self._before = at
            self._presses += 1
        elif key == "finer":
            self._asked_finer = True
        else:
            self._step = None
        return key

    # --- what they see and do --------------------------------------------------------------------

    def _key(self, at: MachinePoint, target: MachinePoint) -> Nudge:
        layout = self.world.layout
        tx, ty = layout.machine_to_table(target)
        ax, ay = layout.machine_to_table(at)
        dx, dy = tx - ax, ty - ay  # seen from white's side: x toward the h-file, y toward the 8th rank
        worst = max(abs(dx), abs(dy))
        if worst <= EYE_MM or self._presses >= PATIENCE:
            return "done"
        step = self._step
        if step is not None and worst < step / 2:
            if self._finest:
                return "done"
            self._step = None
            return "finer"
        if step is not None and worst > 12 * step:
            return "coarser"
        if self._random.random() < self.slips:
            return self._random.choice(list(_AXES))
        if abs(dx) >= abs(dy):
            return "right" if dx > 0 else "left"
        return "up" if dy > 0 else "down"

    def _places(self, question: str) -> list[Cell]:
        cells = []
        for name in _PLACE.findall(question):
            try:
                cells.append(parse_cell(name, self.world.layout))
            except Exception:  # a word that only looks like a cell
                continue
        return cells

    def _centre(self, cell: Cell) -> MachinePoint:
        layout = self.world.layout
        x, y = layout.table_mm(((cell[0] + 0.5) * layout.square_mm, (cell[1] + 0.5) * layout.square_mm))
        return (x, y)

    def _magnet(self) -> MachinePoint:
        with self.world.lock:
            return self.world.twin.magnet_xy

    def _piece_near(self, point: MachinePoint) -> TwinPiece | None:
        with self.world.lock:
            return self.world.twin.piece_at(point[0], point[1], SENSOR_RANGE_MM)

    def _set_squares(self, occupied: Cell, empty: Sequence[Cell]) -> None:
        """One piece on ``occupied``'s centre (the one there, or one nearby, or a new one), none on
        ``empty``: what a person does when asked."""
        twin = self.world.twin
        with self.world.lock:
            for cell in empty:
                centre = self._centre(cell)
                while (piece := twin.piece_at(centre[0], centre[1], SENSOR_RANGE_MM)) is not None:
                    twin.lift(piece.id)
            centre = self._centre(occupied)
            piece = twin.piece_at(centre[0], centre[1], self.world.layout.square_mm)
            if piece is None:
                self._piece_count += 1
                piece = TwinPiece(f"calibration{self._piece_count}", "P", *centre)
            hand = self._random.uniform(0.0, 0.3), self._random.uniform(0.0, 2 * math.pi)
            x = centre[0] + hand[0] * math.cos(hand[1])
            y = centre[1] + hand[0] * math.sin(hand[1])
            twin.place(TwinPiece(piece.id, piece.symbol, x, y))
