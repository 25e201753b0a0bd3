"""Every order in which a hand can make a move, counted rather than sampled.

A move made by hand is a few primitive actions on the board's squares: each piece the move involves is
lifted from its square and set down on another (the mover; a capture's victim, which is lifted and goes
off the board; king and rook; an en-passant victim), and a piece pushed along the board is set down for a
moment on each square on its way (a slide). A person may make the actions of different pieces in any
order, one hand or two, as long as the pieces stay physical: a piece is lifted only from where it stands
and set down only on an empty square. :func:`hand_orders` lists every such interleaving of a move's
actions, and so every history of square events its sensors can show.

Besides them, a capture may be made by displacement: the capturing piece set on its victim, which is
pushed off as it arrives, so that the victim's square never reads empty. That one order is listed too,
flagged :attr:`Order.displaced`: it is the one case in which the events themselves cannot tell two
captures of the same piece apart.

>>> board = chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
>>> orders = list(hand_orders(board, chess.Move.from_uci("e1g1")))
>>> len(orders), orders[0].describe()
(6, 'lift K e1, place K g1, lift R h1, place R f1')
>>> sum(o.both_in_hand for o in orders)
4
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import chess

Role = Literal["mover", "victim", "king", "rook", "ep victim", "neighbour"]

_LETTERS: dict[Role, str] = {
    "mover": "M",
    "victim": "V",
    "king": "K",
    "rook": "R",
    "ep victim": "E",
    "neighbour": "N",
}


@dataclass(frozen=True)
class Action:
    """One primitive action of a hand: ``role``'s piece set down on (``placed``) or lifted from
    ``square``."""

    square: chess.Square
    placed: bool
    role: Role

    def describe(self) -> str:
        return f"{'place' if self.placed else 'lift'} {_LETTERS[self.role]} {chess.square_name(self.square)}"


@dataclass(frozen=True)
class Order:
    """The actions of one way of making ``move`` by hand, in the order the hand makes them."""

    move: chess.Move
    actions: tuple[Action, ...]
    slide: bool = False
    """Sliding pieces are pushed over the squares on their way (each read occupied for a moment)."""
    displaced: bool = False
    """A capture whose victim was pushed off its square as the mover arrived: that square never read
    empty."""
    touched: chess.Square | None = None
    """A neighbour lifted and put back somewhere among the move's actions."""

    def describe(self) -> str:
        text = ", ".join(a.describe() for a in self.actions)
        return f"{text} (victim pushed off)" if self.displaced else text

    @property
    def both_in_hand(self) -> bool:
        """Castling with king and rook in the air together at some moment."""
        held: set[Role] = set()
        for action in self.actions:
            if action.role in ("king", "rook"):
                if action.placed:
                    held.discard(action.role)
                else:
                    held.add(action.role)
                if held == {"king", "rook"}:
                    return True
        return False


def castling_squares(
    board: chess.Board, move: chess.Move
) -> tuple[chess.Square, chess.Square, chess.Square, chess.Square]:
    """King from, king to, rook from, rook to (the planner's, imported only when needed)."""
    from ..planning.planner import castling_squares as squares

    return squares(board, move)


def _carry(origin: chess.Square, target: chess.Square, role: Role, slide: bool) -> list[Action]:
    """A piece lifted from ``origin`` and set down on ``target``; sliding, it is seen on each square
    between them on its way (a knight is never pushed: there is no line between its squares)."""
    actions = [Action(origin, False, role)]
    if slide:
        way = sorted(
            chess.SquareSet(chess.between(origin, target)), key=lambda s: chess.square_distance(origin, s)
        )
        for square in way:
            actions += [Action(square, True, role), Action(square, False, role)]
    actions.append(Action(target, True, role))
    return actions


def piece_actions(board: chess.Board, move: chess.Move, *, slide: bool = False) -> list[list[Action]]:
    """The actions of each piece ``move`` involves, each piece's in the only order it can make them.

    A castling piece already on its target is left alone here; :func:`hand_orders` also tries it lifted
    and put back."""
    if board.is_castling(move):
        king_from, king_to, rook_from, rook_to = castling_squares(board, move)
        pieces = []
        if king_from != king_to:
            pieces.append(_carry(king_from, king_to, "king", slide))
        if rook_from != rook_to:
            pieces.append(_carry(rook_from, rook_to, "rook", slide))
        return pieces
    pieces = [_carry(move.from_square, move.to_square, "mover", slide)]
    if board.is_en_passant(move):
        victim = chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))
        pieces.append([Action(victim, False, "ep victim")])
    elif board.is_capture(move):
        pieces.append([Action(move.to_square, False, "victim")])
    return pieces


def interleavings(sequences: Sequence[Sequence[Action]]) -> Iterator[tuple[Action, ...]]:
    """Every merge of ``sequences`` that keeps each one's own order."""
    total = sum(len(s) for s in sequences)
    positions = [0] * len(sequences)
    chosen: list[Action] = []

    def walk() -> Iterator[tuple[Action, ...]]:
        if len(chosen) == total:
            yield tuple(chosen)
            return
        for k, sequence in enumerate(sequences):
            if positions[k] < len(sequence):
                chosen.append(sequence[positions[k]])
                positions[k] += 1
                yield from walk()
                positions[k] -= 1
                chosen.pop()

    yield from walk()


def is_physical(occupied: int, actions: Sequence[Action]) -> bool:
    """Whether the actions can be made from ``occupied``: every lift from an occupied square, every piece
    set down on an empty one."""
    for action in actions:
        bit = chess.BB_SQUARES[action.square]
        if bool(occupied & bit) == action.placed:
            return False
        occupied ^= bit
    return True


def neighbour_of(board: chess.Board, move: chess.Move) -> chess.Square | None:
    """A piece next to the move that the move does not involve, nearest its target first (a piece a
    hand brushes or straightens while making the move); None when there is none."""
    involved = {a.square for piece in piece_actions(board, move) for a in piece}
    target = castling_squares(board, move)[1] if board.is_castling(move) else move.to_square
    near = [
        s
        for s in chess.SquareSet(board.occupied)
        if s not in involved and min(chess.square_distance(s, x) for x in involved) == 1
    ]
    return min(near, key=lambda s: (chess.square_distance(s, target), s), default=None)


def hand_orders(
    board: chess.Board, move: chess.Move, *, slide: bool = False, touch: bool = False
) -> Iterator[Order]:
    """Every order in which a hand can make ``move`` on ``board``: every physical interleaving of the
    actions of the pieces it involves (with ``slide``, sliding pieces pushed over the squares on their
    way), a castling piece already on its target also lifted and put back, and a capture's
    displacement. With ``touch``, each of them again with a neighbour lifted and put back before, between
    any two actions, or after."""
    base = int(board.occupied)
    pieces = piece_actions(board, move, slide=slide)
    variants = [pieces]
    if board.is_castling(move):
        king_from, king_to, rook_from, rook_to = castling_squares(board, move)
        still: list[tuple[chess.Square, chess.Square, Role]] = [
            (king_from, king_to, "king"),
            (rook_from, rook_to, "rook"),
        ]
        for origin, goal, role in still:
            if origin == goal:
                variants.append([*pieces, [Action(origin, False, role), Action(origin, True, role)]])
    orders: list[Order] = []
    for variant in variants:
        for actions in interleavings(variant):
            if is_physical(base, actions):
                orders.append(Order(move, actions, slide))
    if board.is_capture(move) and not board.is_en_passant(move):
        # the victim pushed off as the mover arrives: its square never reads empty
        mover = pieces[0][:-1]
        orders.append(Order(move, tuple(mover), slide, displaced=True))
    neighbour = neighbour_of(board, move) if touch else None
    for order in orders:
        yield order
        if neighbour is None:
            continue
        pair = (Action(neighbour, False, "neighbour"), Action(neighbour, True, "neighbour"))
        for gap in range(len(order.actions) + 1):
            actions = (*order.actions[:gap], *pair, *order.actions[gap:])
            yield Order(move, actions, slide, order.displaced, neighbour)


def scans(
    board: chess.Board,
    order: Order,
    gaps_s: Sequence[float],
    *,
    scan_s: float | None = 0.02,
    start_s: float = 0.5,
) -> list[tuple[float, int]]:
    """The occupancy a board reports while a hand makes ``order`` from ``board``: ``(t, bitboard)`` pairs.
    The first action comes ``start_s`` after the first report, each next one ``gaps_s[k % len(gaps_s)]``
    after the one before. With ``scan_s``, a board scanned that often (each change seen at the next scan);
    with None, a board that reports only its changes, one report a change."""
    occupied = int(board.occupied)
    changes = [(0.0, occupied)]
    t = start_s
    for k, action in enumerate(order.actions):
        if k:
            t += gaps_s[(k - 1) % len(gaps_s)]
        occupied ^= chess.BB_SQUARES[action.square]
        changes.append((round(t, 4), occupied))
    if scan_s is None:
        return changes
    reports = []
    step = 0
    end = changes[-1][0]
    current = 0
    while step * scan_s < end + scan_s - 1e-9:  # up to the first scan that sees the last change
        now = round(step * scan_s, 4)
        while current + 1 < len(changes) and changes[current + 1][0] <= now + 1e-9:
            current += 1
        reports.append((now, changes[current][1]))
        step += 1
    return reports


Signature = tuple[tuple[chess.Square, bool], ...]
"""What the sensors see of a hand's actions: each square read emptied (False) or filled (True), in order."""


def signature(actions: Sequence[Action]) -> Signature:
    return tuple((a.square, a.placed) for a in actions)


#: What each extra a history needs counts in :func:`least_extras`: a touch (a piece lifted and put back)
#: is ordinary, a victim pushed off its square unseen rarer.
TOUCH_EXTRA = 1
DISPLACED_EXTRA = 2


def _without_pair(sig: Signature) -> Iterator[Signature]:
    """``sig`` with one square's change and its undoing taken out: a piece lifted and put back, or a
    piece set down on an empty square for a moment and lifted again (set on a wrong square)."""
    for i, (square, placed) in enumerate(sig):
        for j in range(i + 1, len(sig)):
            if sig[j][0] == square:
                if sig[j][1] != placed:
                    yield sig[:i] + sig[i + 1 : j] + sig[j + 1 :]
                break


class Explanations:
    """What every legal move of ``board`` looks like to the sensors, made in any of its orders (with or
    without a slide), for :meth:`least_extras`: worked out once per position. A promotion stands for all
    four (the sensors see the same, the piece is named at a prompt) as its queen's."""

    def __init__(self, board: chess.Board) -> None:
        self.board = board.copy(stack=False)
        self._by_signature: dict[Signature, dict[chess.Move, int]] = {}
        for move in board.legal_moves:
            if move.promotion not in (None, chess.QUEEN):
                continue  # the same events as the queen's: the piece is named, never seen
            for slide in (False, True):
                for order in hand_orders(board, move, slide=slide):
                    extra = DISPLACED_EXTRA if order.displaced else 0
                    moves = self._by_signature.setdefault(signature(order.actions), {})
                    moves[move] = min(moves.get(move, extra), extra)

    def least_extras(self, actions: Sequence[Action]) -> dict[chess.Move, int]:
        """Every legal move that can make exactly these square events, with the least it needs besides
        being made in one of its orders: 0 for one of its orders, a :data:`TOUCH_EXTRA` for each piece
        lifted and put back among them, or set down on a wrong square for a moment (two at most), a
        :data:`DISPLACED_EXTRA` for a capture's victim pushed off unseen.

        When two moves tie at the least, the events cannot tell them apart; when another move needs less
        than the one the hand made, the hand made exactly that other move's signature.

        >>> board = chess.Board("4k3/8/8/2p1p3/3P4/8/8/4K3 w - - 0 1")
        >>> pushed = next(o for o in hand_orders(board, chess.Move.from_uci("d4e5")) if o.displaced)
        >>> sorted((m.uci(), n) for m, n in Explanations(board).least_extras(pushed.actions).items())
        [('d4c5', 2), ('d4e5', 2)]
        """
        seen = signature(actions)
        # the events, and the events without one or two such pairs, with how many were taken out
        fewer = {seen: 0}
        for sig in _without_pair(seen):
            fewer.setdefault(sig, 1)
            for shorter in _without_pair(sig):
                fewer.setdefault(shorter, 2)
        found: dict[chess.Move, int] = {}
        for sig, pairs in fewer.items():
            for move, extra in self._by_signature.get(sig, {}).items():
                cost = extra + TOUCH_EXTRA * pairs
                found[move] = min(found.get(move, cost), cost)
        return found
