"""The next puzzle for the table: of the puzzles that fit, the one cheapest to set up from the table as it
stands.

A puzzle from another game's position takes the robot some twenty drags to set up, two minutes of
waiting; among the thousands of puzzles near a person's rating, some stand close to what the last puzzle
left on the board. So the next one is chosen in three steps, none of which moves the rating target:

1. up to :data:`DRAWN` puzzles are drawn at random within :data:`WINDOW` points of the target rating
   (wider only when none fits), of the theme and opening asked for, not tried before (while there are
   such), whose pieces the table owns;
2. each is weighed by a quick bound (:class:`QuickBound`: per piece kind, every square that needs a piece
   brought is charged the shortest straight drag into it from a square that must be cleared of that kind,
   or from off the board; every piece left over is charged its way off), tenths of a millisecond each;
3. the :data:`SHORTLIST` lightest are planned with the set-up planner itself
   (:meth:`~chessatron.planning.reset.ResetPlanner.plan`) and the opponent's first move after it, and the
   quickest wins.

The puzzle table does this while the person solves the current puzzle (from where the pieces will stand
when it ends), so that the wait after a puzzle is the machine's work (:mod:`.table`).
"""

from __future__ import annotations

import logging
import random
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

import chess

from ..errors import ChessatronError, PuzzleError
from ..planning.layout import Layout, MachinePoint, Node
from ..planning.planner import Plan, Planner
from ..planning.reset import ResetPlanner
from ..planning.table import PieceId, Table
from ..planning.timing import Timer
from .puzzle import Puzzle
from .rating import Rating
from .sampling import Candidate
from .store import Filters, PuzzleStore

LOGGER = logging.getLogger(__name__)

#: Rating points either side of the target the next puzzle is chosen within.
WINDOW: Final = 150
#: Wider windows, for when the first holds no puzzle that fits.
WIDER: Final = (300, 600, 10_000)
#: Puzzles drawn at random from the window and weighed by the quick bound.
DRAWN: Final = 1500
#: The lightest by the quick bound, planned in full.
SHORTLIST: Final = 6


@dataclass(frozen=True)
class Choice:
    """The puzzle chosen, for ``target``: its set-up's plan from the table ``placement`` (None on a table
    without a robot) and the planner's estimate of it and of the opponent's first move (machine seconds),
    or the quick bound's when not planned; how many puzzles were weighed."""

    puzzle: Puzzle
    target: float
    seconds: float
    plan: Plan | None
    placement: Mapping[PieceId, Node]
    weighed: int

    def fits(self, table: Table) -> bool:
        """Whether ``plan`` was made from the table as it stands."""
        return self.plan is not None and dict(self.placement) == table.placement()


class QuickBound:
    """Seconds below (or near) what setting a board up from a table costs, cheap enough for thousands of
    positions: drags straight at the carry feed, as the set-up planner's own yardstick counts them
    (:meth:`~chessatron.planning.reset.ResetPlanner.assignment_bound`), without the assignment. Boards
    are given as :func:`masks`."""

    def __init__(self, layout: Layout, timer: Timer) -> None:
        squares = [layout.square_node(square) for square in chess.SQUARES]
        self._magnet_s = timer.magnet_s
        self._drag = [[timer.straight_drag_s(a, b) for b in squares] for a in squares]
        self._off: list[list[float]] = []
        for piece in _PIECES:
            cells = [*layout.capture_cells[piece.color]]
            cells += [slot.cell for slot in layout.reserve if slot.piece.color == piece.color]
            nodes = [layout.cell_node(cell) for cell in cells]
            self._off.append(
                [min(timer.straight_drag_s(node, square) for node in nodes) for square in squares]
            )

    def __call__(self, standing: Masks, board: Masks) -> float:
        """The bound for setting ``board`` up where ``standing`` is on the board."""
        seconds = 0.0
        magnet, drag = self._magnet_s, self._drag
        for index, want in enumerate(board):
            have = standing[index]
            if have == want:
                continue
            off = self._off[index]
            into = list(chess.scan_forward(want & ~have))
            away = list(chess.scan_forward(have & ~want))
            for square in into:
                seconds += magnet + min([drag[origin][square] for origin in away] + [off[square]])
            if len(away) > len(into):
                seconds += sum(sorted(off[square] + magnet for square in away)[: len(away) - len(into)])
        return seconds


Masks = tuple[int, ...]
"""A board as the squares of each piece kind (bitboards, in the order of :data:`_PIECES`)."""

_PIECES: Final = tuple(chess.Piece(kind, colour) for colour in chess.COLORS for kind in chess.PIECE_TYPES)
_INDEX: Final = {piece.symbol(): index for index, piece in enumerate(_PIECES)}


def masks(board_fen: str) -> Masks:
    """The squares of each piece kind of a FEN's board part (its first field), read fast: thousands of
    puzzles are weighed at a time. Raises ValueError for one that is no board.

    >>> masks("8/8/8/8/8/8/8/4K2k")[5] == chess.BB_E1, masks("8/8/8/8/8/8/8/4K2k")[11] == chess.BB_H1
    (True, True)
    """
    found = [0] * len(_PIECES)
    square = 56
    rank_start = 56
    for char in board_fen:
        if char == "/":
            if square != rank_start + 8 or rank_start == 0:
                raise ValueError(f"a rank of {board_fen!r} is not 8 squares")
            rank_start -= 8
            square = rank_start
        elif char in "12345678":
            square += int(char)
        elif char in _INDEX:
            if square >= rank_start + 8:
                raise ValueError(f"a rank of {board_fen!r} is longer than 8 squares")
            found[_INDEX[char]] |= 1 << square
            square += 1
        else:
            raise ValueError(f"{char!r} in {board_fen!r} is no piece")
    if rank_start != 0 or square != 8:
        raise ValueError(f"{board_fen!r} is not 8 ranks of 8 squares")
    return tuple(found)


class SetupChooser:
    """Chooses puzzles from ``store`` for the table of ``resetter``'s layout (see the module docs)."""

    def __init__(self, store: PuzzleStore, resetter: ResetPlanner) -> None:
        self.store = store
        self.resetter = resetter
        self.bound = QuickBound(resetter.layout, resetter.timer)

    def choose(
        self,
        table: Table,
        target: float,
        filters: Filters,
        *,
        at: MachinePoint | None = None,
        rng: random.Random | None = None,
        avoid: Iterable[str] = (),
        plan: bool = True,
    ) -> Choice:
        """The puzzle near ``target`` cheapest to set up on ``table`` (the magnet ``at``); ``plan``: with
        the set-up planner (a table with a robot), else by the quick bound alone. Raises
        :class:`~chessatron.errors.NoPuzzleError` when no puzzle fits."""
        rng = rng or random.Random()
        avoid = list(avoid)
        inventory = table.inventory()
        standing = masks(table.board_fen())
        weighed: list[tuple[float, int, Candidate]] = []
        windows = (WINDOW, *WIDER)
        for first in range(len(windows)):  # (the next windows only when the table lacks pieces for all)
            drawn = self.store.candidates(
                target, filters, want=DRAWN, windows=windows[first:], rng=rng, avoid=avoid
            )
            weighed = self._weigh(drawn, standing, inventory)
            if weighed or not drawn:
                break
        weighed.sort(key=lambda item: (item[0], item[1]))
        best: tuple[float, Puzzle, Plan | None] | None = None
        planned = 0
        for bound, _, candidate in weighed:
            if planned >= (SHORTLIST if plan else 1):
                break
            try:
                puzzle = self.store.puzzle(candidate)
            except PuzzleError:
                continue  # set aside by the store: the next one
            planned += 1
            if not plan:
                best = (bound, puzzle, None)
                break
            setup = self.resetter.plan(table, puzzle.start_board(), at=at)
            seconds = setup.seconds + self._first_move_s(table, setup, puzzle)
            if best is None or seconds < best[0]:
                best = (seconds, puzzle, setup)
        if best is None:
            raise self.store.none_left(filters)
        seconds, puzzle, chosen = best
        LOGGER.info(
            "puzzle %s (%d for %.0f) chosen of %d weighed: set-up %.1f s",
            puzzle.puzzle_id,
            puzzle.rating,
            target,
            len(weighed),
            seconds,
        )
        return Choice(puzzle, target, seconds, chosen, table.placement(), len(weighed))

    def _first_move_s(self, table: Table, setup: Plan, puzzle: Puzzle) -> float:
        """The opponent's first move once ``setup`` is done: the person waits for it too."""
        work = table.copy()
        setup.apply(work)
        line = puzzle.line()
        return self.resetter.planner.plan_move(work, puzzle.start_board(), line[0], at=setup.end_mm).seconds

    def _weigh(
        self, drawn: list[Candidate], standing: Masks, inventory: Counter[str]
    ) -> list[tuple[float, int, Candidate]]:
        owned = [inventory.get(piece.symbol(), 0) for piece in _PIECES]
        weighed = []
        for order, candidate in enumerate(drawn):
            try:
                board = masks(candidate.fen.split(" ", 1)[0])
            except ValueError as exc:
                self.store.set_aside(candidate, f"a bad FEN {candidate.fen!r}: {exc}")
                continue
            if any(chess.popcount(mask) > owned[index] for index, mask in enumerate(board)):
                continue  # more of a kind than the table owns
            weighed.append((self.bound(standing, board), order, candidate))
        return weighed


class UpNext:
    """The next puzzle of a run on one table, chosen while the person solves the current one
    (:meth:`prepare`) and taken when it ends (:meth:`take`), or chosen then (:meth:`choose`).

    The chooser has a planner of its own: it plans on a thread of its own, beside the session's."""

    def __init__(self, store: PuzzleStore, layout: Layout, filters: Filters) -> None:
        self.chooser = SetupChooser(store, ResetPlanner(Planner(layout)))
        self.filters = filters
        self._prepared: list[Choice] = []
        self._preparing: threading.Thread | None = None
        #: Choices taken that were made while the last puzzle was solved.
        self.used = 0

    def choose(
        self,
        table: Table,
        target: float,
        *,
        at: MachinePoint,
        rng: random.Random,
        avoid: Iterable[str],
        plan: bool = True,
    ) -> Choice:
        """The next puzzle for ``table`` as it stands, now (``plan``: its set-up, for a robot)."""
        return self.chooser.choose(table, target, self.filters, at=at, rng=rng, avoid=avoid, plan=plan)

    def prepare(
        self,
        puzzle: Puzzle,
        board: chess.Board,
        table: Table,
        at: MachinePoint,
        before: Rating,
        target: float | None,
        rng: random.Random,
        avoid: Iterable[str],
        plan: bool = True,
    ) -> None:
        """While ``puzzle`` is solved (its opponent's move made on ``board``, ``table`` and the magnet
        ``at`` as they stand): choose the next one from where the pieces will be when it ends (its line
        played out, by the person or by the robot showing it), for each rating the person can leave it
        with (``before`` it, solved or failed; or the fixed ``target``), and plan its set-up. Nothing moves
        on the table meanwhile: this is CPU only, on a thread of its own."""
        if target is not None:
            targets = [target]
        else:
            after = (before.after(puzzle.rating, puzzle.rating_deviation, solved=s) for s in (True, False))
            targets = sorted({rating.rating for rating in after})
        table, board = table.copy(), board.copy()
        rest = puzzle.line()[1:]
        rng = random.Random(rng.random())  # drawn here, so that a seed gives the same puzzles
        avoid = [*avoid, puzzle.puzzle_id]

        def work() -> None:
            try:
                end, end_at = _played_out(self.chooser.resetter.planner, table, board, rest, at)
                for rating in targets:
                    choice = self.choose(end, rating, at=end_at, rng=rng, avoid=avoid, plan=plan)
                    self._prepared.append(choice)
            except ChessatronError as exc:
                LOGGER.info("the next puzzle is chosen when this one ends: %s", exc)
            except Exception:  # a helper failing: the next puzzle is chosen when this one ends
                LOGGER.exception("choosing the next puzzle while this one is solved failed")

        self._preparing = threading.Thread(target=work, name="chessatron-next-puzzle", daemon=True)
        self._preparing.start()

    def take(self, target: float) -> Choice | None:
        """The choice prepared for ``target`` (waited for while it is still being made), or None."""
        if self._preparing is not None:
            self._preparing.join()
            self._preparing = None
        prepared, self._prepared = self._prepared, []
        choice = next((choice for choice in prepared if abs(choice.target - target) < 0.5), None)
        self.used += choice is not None
        return choice


def _played_out(
    planner: Planner, table: Table, board: chess.Board, moves: list[chess.Move], at: MachinePoint
) -> tuple[Table, MachinePoint]:
    """Where the pieces (and the magnet) will stand once ``moves`` are played on ``table`` from ``board``."""
    work = table.copy()
    for move in moves:
        plan = planner.plan_move(work, board, move, at=at)
        plan.apply(work)
        board.push(move)
        at = plan.end_mm
    return work, at
