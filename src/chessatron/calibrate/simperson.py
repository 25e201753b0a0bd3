"""The simulator's person for ``hw calibrate --hand``: hands that do what each step says on the simulated
table, and a person who answers from what they see of it (where an LED really lights, whether there are
sensors beside the board), never from what the calibration believes.

>>> from chessatron.sim.wiring import Wiring
>>> layout = Layout.default()
>>> world = SimWorld(layout)
>>> hands = SimHands(world)
>>> hands.do(Step("clear")); hands.do(Step("place", layout.square_cell(chess.E4)))
>>> sorted(world.occupied_cells()) == [layout.square_cell(chess.E4)]
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import chess

from ..planning.layout import Cell, Layout
from ..planning.table import Table
from ..sim.calibration_person import GantryPerson
from ..sim.twin import TwinPiece
from ..sim.wiring import Wiring
from ..sim.world import SimWorld
from .person import Nudge
from .sensors import Step, off_board_question

__all__ = ["SimHands", "SimMaker", "SimPerson"]


class SimHands:
    """The simulated table's hands: each :class:`Step` done at once on ``world``'s twin. ``lit`` says
    which cell an LED really lights now (for a piece put on the lit square)."""

    def __init__(self, world: SimWorld, *, lit: Callable[[], Cell | None] | None = None) -> None:
        self.world = world
        self.layout: Layout = world.layout
        self.lit = lit
        self.held: TwinPiece | None = None
        self._count = 0

    def _centre(self, cell: Cell) -> tuple[float, float]:
        return self.layout.node_mm(self.layout.cell_node(cell))

    def _piece_on(self, cell: Cell) -> TwinPiece | None:
        x, y = self._centre(cell)
        return self.world.twin.piece_at(x, y, self.layout.square_mm / 3)

    def _put(self, piece: TwinPiece, cell: Cell) -> None:
        x, y = self._centre(cell)
        with self.world.lock:
            self.world.twin.place(TwinPiece(piece.id, piece.symbol, x, y))

    def _spare(self) -> TwinPiece:
        self._count += 1
        return TwinPiece(f"calibration{self._count}", "P", 0.0, 0.0)

    def do(self, step: Step) -> None:
        """Do what ``step`` says."""
        twin = self.world.twin
        with self.world.lock:
            if step.action in ("clear", "setup", "fill"):
                for piece_id in list(twin.pieces):
                    twin.lift(piece_id)
            if step.action == "fill":
                for square in chess.SQUARES:
                    if 2 <= chess.square_rank(square) <= 5:
                        self._put(self._spare(), self.layout.square_cell(square))
                return
            if step.action == "setup":
                start = Table.from_board(self.layout, chess.Board())
                for physical in start:
                    node = start.node_of(physical.id)
                    if self.layout.node_square(node) is not None:
                        twin.place(TwinPiece(physical.id, physical.symbol, *self.layout.node_mm(node)))
                return
        cell = step.cell
        if step.action in ("on-light", "take-off") and cell is None and self.lit is not None:
            cell = self.lit()
        if cell is None:
            return
        if step.action == "on-light":
            self._put(self._spare(), cell)
        elif step.action == "place":
            self._put(self.held or self._spare(), cell)
            self.held = None
        elif step.action == "move" and step.origin is not None:
            self._put(self._piece_on(step.origin) or self._spare(), cell)
        elif step.action in ("lift", "take-off"):
            piece = self._piece_on(cell)
            if piece is not None:
                with self.world.lock:
                    twin.lift(piece.id)
                self.held = piece if step.action == "lift" else None
        elif step.action == "put-back":
            self._put(self.held or self._spare(), cell)
            self.held = None


@dataclass
class SimPerson:
    """A person beside the simulated table who follows the instructions, answering from the table's truth
    (``wiring``) and what the LEDs really show (``lit``: the cells lit now and their colours, through the
    chain as it is wired). ``path`` is the sensors' path they choose; ``mistakes`` how many LEDs they
    name wrong at first (a neighbouring square), as a person in a hurry does."""

    layout: Layout
    wiring: Wiring
    lit: Callable[[], dict[Cell, tuple[int, int, int]]] = dict
    path: str = "quick"
    mistakes: int = 0
    told: list[str] = field(default_factory=list)
    echo: Callable[[str], None] | None = None
    """Shows the dialogue (``--hand`` at a terminal)."""
    _asked: dict[str, int] = field(default_factory=dict)

    def tell(self, text: str) -> None:
        self.told.append(text)
        if self.echo is not None:
            self.echo(text)

    def ask(self, question: str, answers: Sequence[str]) -> str:
        answer = self._answer(question, answers)
        if self.echo is not None:
            self.echo(f"{question} [{'/'.join(answers)}] {answer}")
        return answer

    def _answer(self, question: str, answers: Sequence[str]) -> str:
        from .leds import CHECK_COLOURS, check_question

        self.told.append(question)
        times = self._asked[question] = self._asked.get(question, 0) + 1
        if "quick" in answers and self.path in answers:
            return self.path
        if "again" in answers:
            return "again" if times == 1 else "skip"
        if question == check_question():
            shown = self.lit()
            good = all(
                shown.get(self.layout.square_cell(square)) == colour
                for square, colour in CHECK_COLOURS.items()
            )
            return "yes" if good else "no"
        if question == off_board_question():
            board = set(self.layout.board_cells())
            beside = any(cell not in board for cell in self.wiring.sensors.pins)
            return "yes" if beside else "no"
        return answers[0]

    def ask_square(self, question: str) -> chess.Square | None:
        square = self._square(question)
        if self.echo is not None:
            self.echo(f"{question} {'none' if square is None else chess.square_name(square)}")
        return square

    def _square(self, question: str) -> chess.Square | None:
        self.told.append(question)
        cells = list(self.lit())
        if len(cells) != 1:
            return None
        square = self.layout.node_square(self.layout.cell_node(cells[0]))
        if square is not None and self.mistakes > 0:
            self.mistakes -= 1
            return square + 1 if chess.square_file(square) < 7 else square - 1
        return square

    def nudge(self, question: str) -> Nudge:
        self.told.append(question)
        return "done"


class SimMaker:
    """One simulated person for every part of ``hw calibrate --hand``: the :class:`SimPerson` who answers
    about the sensors and the LEDs, the :class:`~chessatron.sim.calibration_person.GantryPerson` who
    nudges the magnet and puts the piece for the board and the magnet; :attr:`part` (set by the command
    before each part) says which one is at the table. ``echo`` shows the gantry person's dialogue (the
    other one shows its own)."""

    def __init__(
        self, wiring: SimPerson, gantry: GantryPerson, *, echo: Callable[[str], None] | None = None
    ) -> None:
        self.wiring = wiring
        self.gantry = gantry
        self.echo = echo
        self.part = "sensors"

    def __repr__(self) -> str:
        return f"<SimMaker part={self.part!r}>"

    @property
    def _at_gantry(self) -> bool:
        return self.part in ("board", "magnet")

    def _show(self, text: str) -> None:
        if self.echo is not None and self._at_gantry:
            self.echo(text)

    def tell(self, text: str) -> None:
        self._show(text)
        (self.gantry if self._at_gantry else self.wiring).tell(text)

    def ask(self, question: str, answers: Sequence[str]) -> str:
        answer = (self.gantry if self._at_gantry else self.wiring).ask(question, answers)
        self._show(f"{question} [{'/'.join(answers)}] {answer}")
        return answer

    def ask_square(self, question: str) -> chess.Square | None:
        square = (self.gantry if self._at_gantry else self.wiring).ask_square(question)
        self._show(f"{question} {'none' if square is None else chess.square_name(square)}")
        return square

    def nudge(self, question: str) -> Nudge:
        key = (self.gantry if self._at_gantry else self.wiring).nudge(question)
        if key == "done":  # the keys pressed for this centre, in one line
            keys = self.gantry.keys[-self._pressed() :]
            self._show(f"{question} {' '.join(keys)}")
        return key

    def _pressed(self) -> int:
        """How many keys the gantry person pressed since the centre before (this one's "done" too)."""
        keys = self.gantry.keys
        count = 1
        while count < len(keys) and keys[-count - 1] != "done":
            count += 1
        return count
