"""The wait a player feels (issue 25), for ``python -m bench.replies``: each reply by kind, its floor on
this table, and the tidying done while the person thinks.

* **Kinds**: the robot's reply is a castling, a promotion (capturing or not), a capture (en passant too)
  or a quiet move.
* **The floor** of a move the robot makes (:func:`move_floor`): each piece the position needs moved
  dragged once, straight, from rest to rest at the carry feed with its magnet time: the mover to its
  square, a victim and a promoted pawn each to the nearest free cell off the board, the nearest spare of
  the promotion piece to the square, king and rook of a castling to theirs; with the least empty travel
  that links those drags in an order the position allows (a victim leaves before a piece arrives on its
  square), and none to the first (the magnet may wait there). No plan on this table goes below it.
* **Tidying** (from issue 25 on, :meth:`~chessatron.sim.simulate.TableSimulator.tidy_step`): pieces the
  robot parked beside the board during its reply go on to their capture zone while the person thinks,
  one small drag at a time, from the moment the reply stands until the person's hand comes to the table
  (at the board: the piece lifted; typed or clicked: the first key or the piece picked up on the page); a
  drag under way then ends first. A drag still running when the person's move is final would hold the
  reply up: that is counted, with how long.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import chess

from chessatron.planning.layout import Node
from chessatron.planning.planner import castling_squares
from chessatron.sim.simulate import TableSimulator

Kind = Literal["quiet", "capture", "castling", "promotion"]
KINDS: tuple[Kind, ...] = ("quiet", "capture", "castling", "promotion")


def reply_kind(board: chess.Board, move: chess.Move) -> Kind:
    """What kind of move ``move`` is on ``board``."""
    if board.is_castling(move):
        return "castling"
    if move.promotion is not None:
        return "promotion"
    if board.is_capture(move):
        return "capture"
    return "quiet"


def _off_board_cells(sim: TableSimulator, taken: set[Node]) -> list[Node]:
    layout, table = sim.layout, sim.table
    return [
        node
        for node in (layout.cell_node(cell) for cell in layout.cells() if layout.cell_kind(cell) != "board")
        if table.piece_at(node) is None and node not in taken
    ]


def move_floor(sim: TableSimulator, move: chess.Move) -> float:
    """Machine seconds no plan of ``move`` on ``sim``'s table (in ``sim.board``) goes below: see the
    module docs."""
    board, layout, table = sim.board, sim.layout, sim.table
    timer = sim.planner.timer
    square = layout.square_node
    drags: list[tuple[Node, Node]] = []
    first: tuple[Node, Node] | None = None  # the drag that must come first (a victim leaving the square)
    taken: set[Node] = set()

    def nearest_off(start: Node) -> Node:
        goal = min(_off_board_cells(sim, taken), key=lambda node: timer.straight_drag_between(start, node))
        taken.add(goal)
        return goal

    if board.is_castling(move):
        king_from, king_to, rook_from, rook_to = castling_squares(board, move)
        drags += [(square(a), square(b)) for a, b in ((king_from, king_to), (rook_from, rook_to)) if a != b]
    else:
        victim: chess.Square | None = None
        if board.is_en_passant(move):
            victim = chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))
        elif board.piece_at(move.to_square) is not None:
            victim = move.to_square
        if victim is not None:
            first = (square(victim), nearest_off(square(victim)))
            drags.append(first)
        if move.promotion is None:
            drags.append((square(move.from_square), square(move.to_square)))
        else:
            drags.append((square(move.from_square), nearest_off(square(move.from_square))))
            symbol = chess.Piece(move.promotion, board.turn).symbol()
            spares = [table.node_of(piece.id) for piece in table.spares(symbol)]
            goal = square(move.to_square)
            drags.append((min(spares, key=lambda node: timer.straight_drag_between(node, goal)), goal))
    if not drags:
        return 0.0
    fixed = sum(timer.straight_drag_between(a, b) + timer.magnet_s for a, b in drags)
    best = math.inf
    for order in itertools.permutations(drags):
        arriving = [i for i, drag in enumerate(order) if first is not None and drag[1] == first[0]]
        if first is not None and arriving and order.index(first) > arriving[0]:
            continue  # the victim leaves its square before anything arrives there
        travel = sum(timer.travel_between(a[1], b[0]) for a, b in itertools.pairwise(order))
        best = min(best, travel)
    return fixed + best


@dataclass(frozen=True)
class Tidied:
    """The tidying in one person's turn."""

    end_s: float
    """When the last drag begun ended (seconds into the turn; 0: none)."""
    machine_s: float
    drags: int
    violations: int


def tidy_during(sim: TableSimulator, until_s: float, number: int) -> Tidied:
    """Tidy parked pieces from the start of the person's turn, a drag at a time, while the next would
    begin before ``until_s`` (the person's hand comes to the table) and end, with the magnet's travel back
    to where the turn began (:func:`~chessatron.planning.tidy.turn_share_s`), within the turn's limit
    (:data:`~chessatron.game.tidying.TURN_S`); the drag under way ends first. Before issue 25 nothing was
    ever parked: nothing to do."""
    if not hasattr(sim, "tidy_step"):
        return Tidied(0.0, 0.0, 0, 0)
    from chessatron.game.tidying import TURN_S as turn_s  # (a turn's limit, from issue 25 on)
    from chessatron.planning import tidy

    home = sim.writer.position
    t = machine = 0.0
    drags = violations = 0
    while t < until_s:
        plan = tidy.next_tidy(sim.planner, sim.table, sim.writer.position)
        if plan is None:
            break
        # (the step and the travel back to where the turn began must fit, when the code has that rule)
        share_s = tidy.turn_share_s(sim.planner, plan, home) if hasattr(tidy, "turn_share_s") else 0.0
        if t + max(plan.seconds, share_s) > turn_s:
            break
        done = sim.run(plan, f"TIDY {number}")
        t += done.seconds
        machine += done.seconds
        drags += len(done.plan.relocations)
        violations += len(done.violations)
    return Tidied(t, machine, drags, violations)


def first_clue_s(commit_s: float, clues: Sequence[object]) -> float:
    """When a person typing or clicking first gives their move away (the first key, the piece picked up),
    seconds into their turn; the commit when they give nothing away."""
    before = [float(getattr(clue, "before_s", 0.0)) for clue in clues]
    return max(commit_s - max(before), 0.0) if before else commit_s
