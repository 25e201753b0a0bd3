"""Explanations of a stretch of square events, without state: what each legal move does to the
occupancy (its :class:`Shape`), and whether a stretch of events fits it (:func:`fit_segment`)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

import chess

from .events import SquareEvent


@dataclass(frozen=True)
class Shape:
    """What a move does to the occupancy, as bitboards."""

    move: chess.Move
    diff: int
    """Squares whose occupancy changes."""
    departs: int
    """Squares a piece must be seen leaving (in Chess960 castling, some are filled again)."""
    arrives: int
    path: int
    """Squares a sliding piece may be seen over."""
    origin: chess.Square
    victim: chess.Square | None = None
    """A capture's target (it stays occupied); not for en passant, whose victim simply leaves."""
    target: chess.Square | None = None
    """A quiet move's target, which must be filled after the mover left."""
    castling: bool = False


@dataclass(frozen=True)
class Ply:
    move: chess.Move
    start: int
    """Its stretch of events is ``history[start:end]``."""
    end: int
    displaced: bool


@dataclass(frozen=True)
class Explanation:
    plies: tuple[Ply, ...]
    cost: tuple[float, ...]
    """Lower is better: (captures by displacement, nudges, revises the last move, victim refill time)."""
    held: bool = False
    """It relies on a capture by displacement that may be only a piece held in the air, or a move still
    in progress: it is taken only after the board has been still for long."""

    @property
    def moves(self) -> tuple[chess.Move, ...]:
        return tuple(p.move for p in self.plies)


def shapes_by_diff(board: chess.Board) -> dict[int, list[Shape]]:
    """Legal moves by the occupancy change they make."""
    by_diff: dict[int, list[Shape]] = {}
    for move in board.legal_moves:
        shape = shape_of(board, move)
        by_diff.setdefault(shape.diff, []).append(shape)
    return by_diff


def shape_of(board: chess.Board, move: chess.Move) -> Shape:
    bb = chess.BB_SQUARES
    if board.is_castling(move):
        king_from, king_to, rook_from, rook_to = castling_squares(board, move)
        departs = arrives = 0
        for origin, goal in ((king_from, king_to), (rook_from, rook_to)):
            if origin != goal:
                departs |= bb[origin]
                arrives |= bb[goal]
        diff = (bb[king_from] | bb[rook_from]) ^ (bb[king_to] | bb[rook_to])
        path = chess.between(king_from, king_to) | chess.between(rook_from, rook_to)
        return Shape(move, diff, departs, arrives, path, king_from, castling=True)
    origin, target = move.from_square, move.to_square
    path = chess.between(origin, target)
    if board.is_en_passant(move):
        victim = chess.square(chess.square_file(target), chess.square_rank(origin))
        leave = bb[origin] | bb[victim]
        return Shape(move, leave | bb[target], leave, bb[target], path, origin)
    if board.is_capture(move):
        return Shape(move, bb[origin], bb[origin], 0, path, origin, victim=target)
    return Shape(move, bb[origin] | bb[target], bb[origin], bb[target], path, origin, target=target)


def is_begun(board: chess.Board, occupied: int) -> bool:
    """Whether ``occupied`` could be ``board`` with one move of the side to move under way: its mover
    (and perhaps a victim or the castling rook) lifted, at most one piece set down somewhere."""
    emptied = board.occupied & ~occupied
    filled = occupied & ~board.occupied
    return (
        chess.popcount(filled) <= 1
        and 1 <= chess.popcount(emptied) <= 2
        and bool(emptied & board.occupied_co[board.turn])
    )


def explained_squares(shape: Shape) -> int:
    """Squares whose events the move accounts for, whenever they come."""
    victim = chess.BB_SQUARES[shape.victim] if shape.victim is not None else 0
    return shape.departs | shape.arrives | victim


def squares_of(shape: Shape) -> tuple[chess.Square, chess.Square]:
    return shape.move.from_square, shape.move.to_square


def last_index(indices: list[int] | None, i: int, j: int) -> int | None:
    """The last of the sorted ``indices`` in ``[i, j)``."""
    if not indices:
        return None
    k = bisect.bisect_left(indices, j) - 1
    return indices[k] if k >= 0 and indices[k] >= i else None


def fit_segment(
    shape: Shape,
    events: Sequence[SquareEvent],
    lifts: dict[chess.Square, list[int]],
    places: dict[chess.Square, list[int]],
    before: int,
    i: int,
    j: int,
) -> tuple[int, int, float] | None:
    """Whether ``events[i:j]``, starting from occupancy ``before``, can be this move: None if not, else
    (captures by displacement, nudges, seconds from the mover leaving to its victim's square refilled)."""
    first_left = j
    for square in chess.SquareSet(shape.departs):
        lifted = last_index(lifts.get(square), i, j)
        if lifted is None:
            return None  # a piece left without its square ever reading empty
        first_left = min(first_left, lifted)
    left = last_index(lifts.get(shape.origin), i, j)
    displaced, refill, nudges_on_victim = 0, 0.0, 0
    if shape.target is not None:
        landed = last_index(places.get(shape.target), i, j)
        if left is None or landed is None or landed < left:
            return None
    elif shape.victim is not None and left is not None:
        refilled = last_index(places.get(shape.victim), i, j)
        if last_index(lifts.get(shape.victim), i, j) is None or refilled is None or refilled < left:
            # never emptied, or emptied and filled again before the mover left: pushed off, and any
            # earlier lift of it was a nudge
            displaced = 1
            nudges_on_victim = int(last_index(lifts.get(shape.victim), i, j) is not None)
        else:
            # how soon, not how late: a promoting pawn exchanged on the square later is the same capture
            first_refill = next(k for k in places[shape.victim] if k > left)
            refill = events[first_refill].t - events[left].t
    # The mover is in flight from leaving its square to the last landing the move shows.
    # castling: from the first of king and rook leaving
    flight_from = first_left if shape.castling or left is None else left
    if shape.victim is not None:
        refilled = None if displaced else last_index(places.get(shape.victim), i, j)
        flight_to = j if refilled is None else refilled
    else:
        landings = [last_index(places.get(s), i, j) for s in chess.SquareSet(shape.arrives)]
        flight_to = max((x for x in landings if x is not None), default=j)
    explained = explained_squares(shape)
    nudges = nudges_on_victim
    spans: dict[chess.Square, list[int]] = {}
    for index in range(i, j):
        square = events[index].square
        if not chess.BB_SQUARES[square] & explained:
            spans.setdefault(square, [index, index])[1] = index
    for square, (first, last) in spans.items():
        if before & chess.BB_SQUARES[square]:
            nudges += 1  # a piece lifted and put back
        elif not (flight_from < first and last < flight_to):
            return None  # a piece set down and taken away, but not the mover in flight: from where?
        elif not shape.path & chess.BB_SQUARES[square]:
            if displaced:
                return None  # set down off its path, lifted again, then pushing a victim off unseen
            nudges += 1  # the mover set down off its path, then moved on
    return displaced, nudges, refill


def is_better(a: Explanation, b: Explanation) -> bool:
    """Same moves: the lower cost, then the later boundaries (noise goes with the earlier ply)."""
    if a.cost != b.cost:
        return a.cost < b.cost
    return [p.end for p in a.plies] > [p.end for p in b.plies]


def sans_of(board: chess.Board, moves: Sequence[chess.Move]) -> list[str]:
    board = board.copy(stack=False)
    sans = []
    for move in moves:
        sans.append(board.san(move))
        board.push(move)
    return sans


def occupancy_after(board: chess.Board, move: chess.Move) -> int:
    board.push(move)
    try:
        return int(board.occupied)
    finally:
        board.pop()


def castling_squares(
    board: chess.Board, move: chess.Move
) -> tuple[chess.Square, chess.Square, chess.Square, chess.Square]:
    """King from, king to, rook from, rook to: the planner's, imported only when needed so that the
    recognizer does not load the path finder."""
    from ..planner import castling_squares as squares

    return squares(board, move)


def king_target(board: chess.Board, move: chess.Move) -> chess.Square:
    """Where the piece lands: for castling, the king's square (g1/c1 files)."""
    if board.is_castling(move):
        return castling_squares(board, move)[1]
    return move.to_square
