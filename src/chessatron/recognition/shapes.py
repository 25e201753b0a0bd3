"""Moves against a stretch of square events, without state: what each legal move does to the occupancy
(its :class:`Shape`), and whether a stretch of events fits it and what else it then needs
(:func:`fit_segment`, a :class:`Fit`)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

import chess

from .events import SquareEvent
from .model import HumanModel


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
    stays: int = 0
    """Castling pieces already on their target: a hand may lift and put them back as part of the move."""


@dataclass(frozen=True)
class Fit:
    """What a stretch of events needs, besides the move, to be that move (see :mod:`.model`)."""

    displaced: int = 0
    """1 when a capture's victim never left its square in view."""
    nudges: int = 0
    """Pieces lifted and put back before the move began or after it ended."""
    nudges_in_flight: int = 0
    """Pieces lifted and put back while the moving piece was in the air."""
    nudges_across_lift: int = 0
    """Pieces lifted before the moving piece left and put back while it was in the air."""
    stopovers: int = 0
    """Squares off its way where the moving piece was set down, then lifted again."""
    flight_s: float = 0.0
    """Seconds from the mover leaving its square to its landing (a capture: its victim's square filled)."""
    strays: int = 0
    """Empty squares where a piece was set down and taken away again while the mover was not in the air
    (a captured piece put down for a moment on its way off the board, a dropped piece)."""

    def cost(self, model: HumanModel) -> float:
        return model.cost(
            nudges=self.nudges,
            nudges_in_flight=self.nudges_in_flight,
            nudges_across_lift=self.nudges_across_lift,
            stopovers=self.stopovers,
            displaced=self.displaced,
            flight_s=self.flight_s,
            strays=self.strays,
        )


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
        departs = arrives = stays = 0
        for origin, goal in ((king_from, king_to), (rook_from, rook_to)):
            if origin != goal:
                departs |= bb[origin]
                arrives |= bb[goal]
            else:
                stays |= bb[origin]
        diff = (bb[king_from] | bb[rook_from]) ^ (bb[king_to] | bb[rook_to])
        path = chess.between(king_from, king_to) | chess.between(rook_from, rook_to)
        return Shape(move, diff, departs, arrives, path, king_from, castling=True, stays=stays)
    origin, target = move.from_square, move.to_square
    path = chess.between(origin, target)
    if board.is_en_passant(move):
        victim = chess.square(chess.square_file(target), chess.square_rank(origin))
        leave = bb[origin] | bb[victim]
        return Shape(move, leave | bb[target], leave, bb[target], path, origin)
    if board.is_capture(move):
        return Shape(move, bb[origin], bb[origin], 0, path, origin, victim=target)
    return Shape(move, bb[origin] | bb[target], bb[origin], bb[target], path, origin, target=target)


def is_under_way(board: chess.Board, occupied: int, shapes: Sequence[Shape] | None = None) -> bool:
    """Whether ``occupied`` could be ``board`` with a move of the side to move under way: only squares that
    move empties (its mover, a victim, king and rook) read empty, save at most one more (a piece lifted to
    adjust it, or held while thinking), and at most one piece stands where the move passes or lands.
    ``shapes`` are the legal moves' shapes, when known."""
    return under_way(board, occupied, shapes, strict=True) is not None


def under_way(
    board: chess.Board, occupied: int, shapes: Sequence[Shape] | None = None, *, strict: bool = False
) -> int | None:
    """Whether ``occupied`` could be ``board`` with a move of the side to move under way (see
    :func:`is_under_way`), and how many pieces stand off that move's way (0 or 1: the mover set down on a
    wrong square for a moment; never with ``strict``); None if it could not."""
    missing = board.occupied & ~occupied
    extra = occupied & ~board.occupied
    if not missing or chess.popcount(extra) > 1:
        return None
    if not extra and chess.popcount(missing) == 1 and missing & board.occupied_co[board.turn]:
        return 0  # one of its own pieces in hand: thinking
    if shapes is None:
        shapes = [shape_of(board, move) for move in board.legal_moves]
    best: int | None = None
    for shape in shapes:
        leaves = shape.departs | (chess.BB_SQUARES[shape.victim] if shape.victim is not None else 0)
        if not missing & leaves or chess.popcount(missing & ~leaves) > 1:
            continue
        off_way = int(bool(extra & ~(shape.arrives | shape.path)))
        if off_way and (strict or not missing & chess.BB_SQUARES[shape.origin]):
            continue  # only the mover, once lifted, can stand off its way
        if best is None or off_way < best:
            best = off_way
            if not best:
                break
    return best


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


def first_index(indices: list[int] | None, i: int, j: int) -> int:
    """The first of the sorted ``indices`` in ``[i, j)``, else ``j``."""
    if not indices:
        return j
    k = bisect.bisect_left(indices, i)
    return indices[k] if k < len(indices) and indices[k] < j else j


def fit_segment(
    shape: Shape,
    events: Sequence[SquareEvent],
    lifts: dict[chess.Square, list[int]],
    places: dict[chess.Square, list[int]],
    before: int,
    i: int,
    j: int,
) -> Fit | None:
    """Whether ``events[i:j]``, starting from occupancy ``before``, can be this move: None if not, else
    what else the stretch needs (nudges, a capture by displacement, stops off the mover's way).

    Every square the move empties must be seen empty; a quiet move's target fills after its mover left; a
    capture's target is emptied and filled again after the mover left, or else the victim was displaced.
    A square the move does not touch may change as a piece lifted and put back (a nudge), or, if it was
    empty, as the mover set down there while in flight (a slide over it on its way, or a stop off its
    way); anything else appeared from nowhere (a stray, dearly priced)."""
    first_left = j
    for square in chess.SquareSet(shape.departs):
        lifted = last_index(lifts.get(square), i, j)
        if lifted is None:
            return None  # a piece left without its square ever reading empty
        first_left = min(first_left, lifted)
    left = last_index(lifts.get(shape.origin), i, j)
    displaced, nudges_on_victim = 0, 0
    landing: int | None = None
    if shape.target is not None:
        landed = last_index(places.get(shape.target), i, j)
        if left is None or landed is None or landed < left:
            return None
        landing = next(k for k in places[shape.target] if k > left)
    elif shape.victim is not None and left is not None:
        refilled = last_index(places.get(shape.victim), i, j)
        if last_index(lifts.get(shape.victim), i, j) is None or refilled is None or refilled < left:
            # never emptied, or emptied and filled again before the mover left: pushed off, and any
            # earlier lift of it was a nudge
            displaced = 1
            nudges_on_victim = int(last_index(lifts.get(shape.victim), i, j) is not None)
        else:
            # how soon, not how late: a promoting pawn exchanged on the square later is the same capture
            landing = next(k for k in places[shape.victim] if k > left)
    # The mover is in flight from leaving its square to the last landing the move shows.
    # castling: from the first of king and rook leaving (the first time: one may land where the other
    # stood and leave again)
    if shape.castling:
        flight_from = min(first_index(lifts.get(s), i, j) for s in chess.SquareSet(shape.departs))
    else:
        flight_from = first_left if left is None else left
    if shape.victim is not None:
        refilled = None if displaced else last_index(places.get(shape.victim), i, j)
        flight_to = j if refilled is None else refilled
    else:
        landings = [last_index(places.get(s), i, j) for s in chess.SquareSet(shape.arrives)]
        flight_to = max((x for x in landings if x is not None), default=j)
        if shape.castling and flight_to < j:
            landing = flight_to
    explained = explained_squares(shape)
    nudges, in_flight, across, stopovers, strays = nudges_on_victim, 0, 0, 0, 0
    if landing is not None and not shape.castling and shape.move.promotion is None:
        # the piece lifted off its target again after it landed and set down once more: adjusted, or
        # another piece's place taken and given back (a pawn exchanged on promotion is no adjustment)
        landed_on = shape.target if shape.target is not None else shape.victim
        if landed_on is not None:
            nudges += sum(1 for k in lifts.get(landed_on, ()) if landing < k < j)
    spans: dict[chess.Square, list[int]] = {}
    for index in range(i, j):
        square = events[index].square
        if not chess.BB_SQUARES[square] & explained:
            spans.setdefault(square, [index, index])[1] = index
    for square, (first, last) in spans.items():
        if before & chess.BB_SQUARES[square]:
            # a piece lifted and put back: with the other hand if the mover was in the air meanwhile,
            # still in it as the mover left if off its square then (a castling piece on its target is
            # the move's own)
            if last < flight_from or first > flight_to:
                nudges += 1
            elif (
                _is_off(square, lifts, places, i, flight_from) and not shape.stays & chess.BB_SQUARES[square]
            ):
                across += 1
            else:
                in_flight += 1
        elif not (flight_from < first and last < flight_to):
            strays += 1  # a piece set down and taken away, but not the mover in flight: from where?
        elif not shape.path & chess.BB_SQUARES[square]:
            stopovers += 1  # the mover set down off its way, then moved on
    flight_s = 0.0 if landing is None else events[landing].t - events[flight_from].t
    return Fit(displaced, nudges, in_flight, across, stopovers, max(0.0, flight_s), strays)


def _is_off(
    square: chess.Square,
    lifts: dict[chess.Square, list[int]],
    places: dict[chess.Square, list[int]],
    i: int,
    k: int,
) -> bool:
    """Whether ``square``'s piece, there at event ``i``, is off it just before event ``k``."""
    lifted = last_index(lifts.get(square), i, k)
    placed = last_index(places.get(square), i, k)
    return lifted is not None and (placed is None or placed < lifted)


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
    from ..planning.planner import castling_squares as squares

    return squares(board, move)


def king_target(board: chess.Board, move: chess.Move) -> chess.Square:
    """Where the piece lands: for castling, the king's square (g1/c1 files)."""
    if board.is_castling(move):
        return castling_squares(board, move)[1]
    return move.to_square
