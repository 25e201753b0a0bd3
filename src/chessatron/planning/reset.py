"""The table sets itself up: from any physical state to any target arrangement.

A target is a position (the standard start, a Chess960 start by number, a Double Fischer Random start or
any legal FEN); the arrangement it asks for puts that position on the board, refills the reserve slots
with their spares and sends every other piece to its colour's capture zone.

Pieces of one type and colour are interchangeable, so who goes where is an optimal assignment
(:func:`scipy.optimize.linear_sum_assignment`) on drag time. The relocations are then ordered so no
target is still occupied when its piece arrives: a cycle of pieces waiting on each other is broken by
parking one on a free cell; among the pieces ready to go the sequencer takes the one that keeps the
machine busiest dragging rather than travelling empty, then improves the order locally.

>>> layout = Layout.default()
>>> table = Table.from_board(layout, chess.Board())
>>> plan = ResetPlanner(Planner(layout)).plan(table, chess.Board())
>>> len(plan.relocations)
0
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import chess
import numpy as np
from scipy.optimize import linear_sum_assignment

from ..errors import ConfigError, MissingPieceError, NoPathError, NoRoomError
from .layout import Layout, MachinePoint, Node
from .planner import Plan, Planner, Relocation
from .table import PieceId, Table
from .tour import DEFAULT_BUDGET_S, KICKS, Drag, plan_tour, tour_seconds

#: Assignment bonuses: a board square must be filled before a reserve slot, a reserve slot before time
#: is saved. Large against any drag time in seconds.
_BOARD_BONUS = 1e7
_RESERVE_BONUS = 1e4
_FORBIDDEN = 1e12
#: A tour the search found is laid out on the table's paths (to see whether it beats the best) only when
#: the time model has it at most this much longer: the paths round the pieces change a tour's seconds by
#: a second or two, and laying one out costs about as much as the whole search.
_WEIGHED_WITHIN_S = 2.0


@dataclass(frozen=True)
class SetupTarget:
    """A position for the robot to set up, with a name for people."""

    board: chess.Board
    name: str


def parse_target(text: str) -> SetupTarget:
    """A set-up target from the command line: ``518`` (Chess960 number, 518 is the standard start),
    ``dfrc:N:M`` or ``N:M`` (Double Fischer Random: white's number, black's number), ``standard``, or a
    FEN. Raises :class:`ConfigError` with what was wrong."""
    text = text.strip()
    if text.lower() in ("standard", "start", "startpos"):
        return SetupTarget(chess.Board(), "the standard start")
    if re.fullmatch(r"\d+", text):
        return chess960_target(int(text))
    match = re.fullmatch(r"(?:dfrc:)?(\d+):(\d+)", text, flags=re.IGNORECASE)
    if match:
        return double_fischer_random_target(int(match[1]), int(match[2]))
    try:
        board = chess.Board(text, chess960=True)
    except ValueError as exc:
        raise ConfigError(
            f"{text!r} is neither a Chess960 number (0-959), N:M for Double Fischer Random, nor a FEN: {exc}"
        ) from exc
    status = board.status() & ~chess.STATUS_BAD_CASTLING_RIGHTS
    if status != chess.STATUS_VALID:
        raise ConfigError(
            f"the FEN {text!r} is not a legal position: {'; '.join(position_flaws(board, castling=False))}"
        )
    return SetupTarget(board, f"the position {board.fen()}")


def chess960_target(number: int) -> SetupTarget:
    if not 0 <= number <= 959:
        raise ConfigError(f"Chess960 start positions are numbered 0 to 959, not {number!r}")
    board = chess.Board.from_chess960_pos(number)
    name = "the standard start (Chess960 #518)" if number == 518 else f"Chess960 start #{number}"
    return SetupTarget(board, name)


def double_fischer_random_target(white: int, black: int) -> SetupTarget:
    """Each side's back rank from its own Chess960 number."""
    for number in (white, black):
        if not 0 <= number <= 959:
            raise ConfigError(f"Chess960 start positions are numbered 0 to 959, not {number!r}")
    board = chess.Board.empty(chess960=True)
    white_rank = chess.BaseBoard.from_chess960_pos(white)
    black_rank = chess.BaseBoard.from_chess960_pos(black)
    for square in chess.SQUARES:
        rank = chess.square_rank(square)
        source = white_rank if rank < 4 else black_rank
        piece = source.piece_at(square)
        if piece is not None:
            board.set_piece_at(square, piece)
    board.castling_rights = _all_rook_rights(board)
    return SetupTarget(board, f"Double Fischer Random start #{white}/#{black}")


def _all_rook_rights(board: chess.Board) -> int:
    rights = 0
    for colour, rank in ((chess.WHITE, 0), (chess.BLACK, 7)):
        rooks = sorted(s for s in board.pieces(chess.ROOK, colour) if chess.square_rank(s) == rank)
        if rooks:
            rights |= chess.BB_SQUARES[rooks[0]] | chess.BB_SQUARES[rooks[-1]]
    return rights


#: What each of python-chess's position flaws (:meth:`chess.Board.status`) means, for people.
_FLAWS: dict[int, str] = {
    chess.STATUS_EMPTY: "the board is empty",
    chess.STATUS_NO_WHITE_KING: "White has no king",
    chess.STATUS_NO_BLACK_KING: "Black has no king",
    chess.STATUS_TOO_MANY_KINGS: "a side has more than one king",
    chess.STATUS_TOO_MANY_WHITE_PAWNS: "White has more than 8 pawns",
    chess.STATUS_TOO_MANY_BLACK_PAWNS: "Black has more than 8 pawns",
    chess.STATUS_PAWNS_ON_BACKRANK: "a pawn stands on the first or the last rank",
    chess.STATUS_TOO_MANY_WHITE_PIECES: "White has more than 16 pieces",
    chess.STATUS_TOO_MANY_BLACK_PIECES: "Black has more than 16 pieces",
    chess.STATUS_INVALID_EP_SQUARE: "its en passant square does not fit (no pawn can have just passed it)",
    chess.STATUS_OPPOSITE_CHECK: "the side that has just moved is in check",
    chess.STATUS_TOO_MANY_CHECKERS: "the king is in check from more pieces than one move can give",
    chess.STATUS_IMPOSSIBLE_CHECK: "the check could not have come from any last move",
}


def position_flaws(board: chess.Board, *, castling: bool = True, fen: str | None = None) -> list[str]:
    """Why ``board`` is no position a game can reach, in words (empty when it is valid). Castling rights
    that do not fit say which would (``castling=False``: they are not looked at); ``fen``: the text the
    board was read from, whose castling field is quoted as written.

    >>> fen = "r3k2r/8/8/8/8/8/4K3/R6R w KQkq - 0 1"
    >>> position_flaws(chess.Board(fen, chess960=True), fen=fen)
    ["the castling rights 'KQkq' do not fit the position: castling needs the king and that rook on their \
start squares, so only 'kq' can stand here"]
    >>> position_flaws(chess.Board("8/8/8/8/8/8/8/4K3 w - - 0 1"))
    ['Black has no king']
    """
    status = board.status()
    flaws = [words for flag, words in _FLAWS.items() if status & flag]
    if castling and status & chess.STATUS_BAD_CASTLING_RIGHTS:
        fields = (fen or "").split()
        given = fields[2] if len(fields) > 2 else board.castling_xfen()
        fitting = board.copy(stack=False)
        fitting.castling_rights = board.clean_castling_rights()
        flaws.append(
            f"the castling rights {given!r} do not fit the position: castling needs the king and that rook "
            f"on their start squares, so only {fitting.castling_xfen()!r} can stand here"
        )
    return flaws


def require_pieces(board: chess.BaseBoard, inventory: Mapping[str, int]) -> None:
    """Raise :class:`ConfigError` when ``board`` needs more pieces of a kind than the table owns
    (``inventory``: its sets and the reserve's spares by FEN letter, as :meth:`Table.inventory` counts
    them): a set-up the robot could never finish.

    >>> require_pieces(chess.Board("QQQQk3/8/8/8/8/8/8/4K3 w - - 0 1"), full_inventory(Layout.default()))
    Traceback (most recent call last):
    ...
    chessatron.errors.ConfigError: the table cannot set this position up: it needs 4 white queens (Q) and \
the table has 3 (with its spares); choose a position with fewer
    """
    needed: Counter[str] = Counter(piece.symbol() for piece in board.piece_map().values())
    short = {symbol: count for symbol, count in needed.items() if count > inventory.get(symbol, 0)}
    if not short:
        return
    parts = []
    for symbol, count in sorted(short.items(), key=lambda item: "KQRBNPkqrbnp".index(item[0])):
        owned = inventory.get(symbol, 0)
        parts.append(f"{describe_pieces({symbol: count})} and the table has {owned}")
    raise ConfigError(
        f"the table cannot set this position up: it needs {'; '.join(parts)} (with its spares); "
        "choose a position with fewer"
    )


# --- the target arrangement ------------------------------------------------------------------------


def full_inventory(layout: Layout) -> Counter[str]:
    """Every piece the table owns: two standard sets and the reserve's spares."""
    inventory: Counter[str] = Counter("KQRRBBNNPPPPPPPPkqrrbbnnpppppppp")
    inventory.update(slot.symbol for slot in layout.reserve)
    return inventory


def missing_pieces(table: Table) -> Counter[str]:
    """Pieces of the full set that are not on the table."""
    return full_inventory(table.layout) - table.inventory()


def describe_pieces(counts: Mapping[str, int]) -> str:
    parts = []
    for symbol, count in sorted(counts.items(), key=lambda item: "KQRBNPkqrbnp".index(item[0])):
        piece = chess.Piece.from_symbol(symbol)
        name = f"{chess.COLOR_NAMES[piece.color]} {chess.piece_name(piece.piece_type)}"
        parts.append(f"{count} {name}{'s' if count > 1 else ''} ({symbol})")
    return ", ".join(parts)


class ResetPlanner:
    """Plans set-ups on one layout, sharing the move planner's paths and timing."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner
        self.layout = planner.layout
        self.timer = planner.timer
        #: CPU seconds the tour's local search may spend on one set-up (0: the greedy tour as it is).
        self.tour_budget_s = DEFAULT_BUDGET_S
        #: restarts of the tour's iterated local search (0: one descent from the greedy tour)
        self.tour_kicks = KICKS

    def assign(self, table: Table, board: chess.BaseBoard) -> dict[PieceId, Node]:
        """Where each piece goes for ``board``: an optimal assignment on drag time per colour.

        Raises :class:`MissingPieceError` naming the pieces the set-up lacks.
        """
        layout = self.layout
        missing = missing_pieces(table)
        needed: Counter[str] = Counter(p.symbol() for p in board.piece_map().values())
        short = needed - table.inventory()
        if short or missing:
            lacking = short | missing
            raise MissingPieceError(
                f"cannot set up: the table lacks {describe_pieces(lacking)}; put the missing pieces in "
                "a capture zone and try again"
            )
        assignment: dict[PieceId, Node] = {}
        for colour in chess.COLORS:
            pieces = [p for p in table if p.color == colour]
            slots: list[tuple[Node, str | None, float]] = []
            for square, kind in board.piece_map().items():
                if kind.color == colour:
                    slots.append((layout.square_node(square), kind.symbol(), _BOARD_BONUS))
            for slot in layout.reserve:
                if slot.piece.color == colour:
                    slots.append((layout.cell_node(slot.cell), slot.symbol, _RESERVE_BONUS))
            for cell in layout.capture_cells[colour]:
                slots.append((layout.cell_node(cell), None, 0.0))
            if len(slots) < len(pieces):
                raise NoRoomError(f"{chess.COLOR_NAMES[colour]}'s side of the table has too few places")
            cost = np.empty((len(pieces), len(slots)))
            for i, piece in enumerate(pieces):
                here = table.node_of(piece.id)
                for j, (node, symbol, bonus) in enumerate(slots):
                    if symbol is not None and symbol != piece.symbol:
                        cost[i, j] = _FORBIDDEN
                    else:
                        cost[i, j] = self._drag_estimate(here, node) - bonus
            rows, cols = linear_sum_assignment(cost)
            for i, j in zip(rows, cols, strict=True):
                assignment[pieces[i].id] = slots[j][0]
        return assignment

    def assignment_bound(self, table: Table, board: chess.BaseBoard) -> float:
        """The yardstick for set-ups: each misplaced piece dragged once, straight, from rest to rest at
        the carry feed, plus magnet time, and no travel between drags (for the same assignment)."""
        goals = self.assign(table, board)
        return sum(self._drag_estimate(table.node_of(pid), node) for pid, node in goals.items())

    def _drag_estimate(self, a: Node, b: Node) -> float:
        if a == b:
            return 0.0
        return self.timer.straight_drag_s(a, b) + self.timer.magnet_s

    def plan(self, table: Table, board: chess.BaseBoard, at: MachinePoint | None = None) -> Plan:
        """The relocations that turn ``table`` into the arrangement for ``board``, fastest order found."""
        start = self.layout.home_mm if at is None else at
        return self._sequence(table, self.assign(table, board), start, zones=True)

    def resume(
        self,
        table: Table,
        board: chess.BaseBoard,
        rest: Sequence[Relocation] = (),
        at: MachinePoint | None = None,
    ) -> Plan:
        """A set-up for ``board`` taken up again from ``table`` as it stands (after a stop, a crash, another
        game): one plan straight to the arrangement (:meth:`plan`), never through the position the set-up
        had reached. ``rest``: the drags the set-up cut short had left, kept instead when they still fit
        the table (it stands where they stopped) and the time model says they are no slower."""
        start = self.layout.home_mm if at is None else at
        fresh = self.plan(table, board, start)
        if not rest or not _fits(table, rest):
            return fresh
        seconds = self.timer.relocations_s(start, [relocation.path for relocation in rest])
        if seconds > fresh.seconds:
            return fresh
        return Plan(tuple(rest), seconds, start, self.layout.node_mm(rest[-1].goal))

    def plan_arrangement(self, table: Table, wanted: Table, at: MachinePoint | None = None) -> Plan:
        """The relocations that make ``table`` look like ``wanted`` (the same pieces elsewhere, e.g. a game
        to go back to after the table was set up for something else): every place in ``wanted``, zones and
        reserve included, gets a piece of its kind, interchangeable pieces assigned for the least drag
        time; the fastest order found."""
        goals: dict[PieceId, Node] = {}
        for symbol in sorted({piece.symbol for piece in wanted}):
            pieces = [piece.id for piece in table if piece.symbol == symbol]
            places = [wanted.node_of(piece.id) for piece in wanted if piece.symbol == symbol]
            if len(pieces) != len(places):
                raise MissingPieceError(
                    f"cannot put the pieces back: the table has {len(pieces)} {symbol!r}, the arrangement "
                    f"wants {len(places)}"
                )
            cost = np.array(
                [[self._drag_estimate(table.node_of(pid), node) for node in places] for pid in pieces]
            )
            for row, column in zip(*linear_sum_assignment(cost), strict=True):
                goals[pieces[row]] = places[column]
        return self._sequence(table, goals, self.layout.home_mm if at is None else at)

    # --- sequencing --------------------------------------------------------------------------------

    def _sequence(
        self, table: Table, goals: Mapping[PieceId, Node], at: MachinePoint, *, zones: bool = False
    ) -> Plan:
        """The relocations for ``goals``: the drags ordered as a tour (:mod:`.tour`), then each given its
        path on the table as it stands by then. ``zones``: a piece bound for its capture zone may take
        any free cell there (a set-up), not only the one the assignment chose (an exact arrangement)."""
        timer, layout = self.timer, self.layout
        work = table.copy()
        pending = {pid: node for pid, node in goals.items() if work.node_of(pid) != node}
        targets = set(pending.values())
        zone_of = {colour: _zone_name(colour) for colour in chess.COLORS}
        zone_goals = {layout.cell_node(c) for colour in chess.COLORS for c in layout.capture_cells[colour]}
        drags = []
        for pid, goal in pending.items():
            piece = work.piece(pid)
            free_goal = zones and goal in zone_goals
            drags.append(
                Drag(
                    pid,
                    work.node_of(pid),
                    goal,
                    piece.symbol,
                    zone=zone_of[piece.color] if zones else None,
                    accepts=zone_of[piece.color] if free_goal else piece.symbol,
                )
            )
        leaving = {work.node_of(pid) for pid in pending}
        free_cells: dict[str, list[Node]] = {}
        if zones:
            for colour in chess.COLORS:
                free_cells[zone_of[colour]] = [
                    node
                    for node in (layout.cell_node(c) for c in layout.capture_cells[colour])
                    if node not in targets and (work.piece_at(node) is None or node in leaving)
                ]
        parks = [
            node
            for node in (layout.cell_node(c) for c in layout.cells() if layout.cell_kind(c) != "board")
            if node not in targets and work.piece_at(node) is None
        ]
        tour = plan_tour(
            drags,
            at,
            timer,
            free_cells=free_cells,
            park_cells=parks,
            budget_s=self.tour_budget_s,
            kicks=self.tour_kicks,
        )
        plan = self._realise(table, tour.drags, targets, at)
        assert plan is not None  # no limit was given
        # the search weighs straight drags; the paths around pieces may still favour another tour
        for other in (tour.greedy, *tour.alternatives):
            if (
                other != tour.drags
                and sum(tour_seconds(other, at, timer)) <= tour.seconds + _WEIGHED_WITHIN_S
            ):
                candidate = self._realise(table, other, targets, at, within_s=plan.seconds)
                if candidate is not None and candidate.seconds < plan.seconds:
                    plan = candidate
        return plan

    def _realise(
        self,
        table: Table,
        drags: Sequence[Drag],
        targets: set[Node],
        at: MachinePoint,
        within_s: float = math.inf,
    ) -> Plan | None:
        """The relocations of a tour: each drag in turn with its path on the table as it stands then (a
        drag that cannot go yet waits for the next that can; a ring of pieces waiting on each other that
        the tour did not break is broken here, by parking one). None once the drags take ``within_s``
        seconds or more (a candidate that cannot beat the plan in hand)."""
        planner, timer, layout = self.planner, self.timer, self.layout
        work = table.copy()
        order = list(drags)
        relocations: list[Relocation] = []
        notes: list[str] = []
        seconds = 0.0
        position = at
        while order:
            steps = None
            for index, item in enumerate(order):
                if not self._is_vacant(work, item.goal, item.piece):
                    continue
                steps = planner.drag(work, item.piece, item.goal, "park" if item.parked else "setup")
                if steps is not None:
                    del order[index]
                    if item.parked:
                        notes.append(f"{item.piece} parked to break a cycle of pieces waiting on each other")
                    break
            if steps is None:
                remaining = {item.piece: item.goal for item in order if not item.parked}
                steps = self._break_cycle(work, remaining, targets | {i.goal for i in order}, position)
                park = next(step for step in steps if step.purpose == "park")
                notes.append(f"{park.piece.id} parked to break a cycle of pieces waiting on each other")
                order = [
                    replace(item, start=park.goal) if item.piece == park.piece.id else item
                    for item in order
                    if not (item.parked and item.piece == park.piece.id)
                ]
            for step in steps:
                seconds += timer.relocation_s(position, step.path)
                position = layout.node_mm(step.goal)
                work.relocate(step.piece.id, step.goal)
                relocations.append(step)
            if seconds >= within_s:
                return None
        return Plan(tuple(relocations), seconds, at, position, tuple(notes))

    def _is_vacant(self, work: Table, goal: Node, mover: PieceId) -> bool:
        others = work.occupied_nodes(excluding=[mover])
        return self.planner.finder.is_free(goal, others)

    def _break_cycle(
        self, work: Table, pending: Mapping[PieceId, Node], targets: set[Node], position: MachinePoint
    ) -> list[Relocation]:
        """Every pending piece waits on another: park the cheapest one on a free cell no piece needs."""
        layout = self.layout
        free_cells = [
            layout.cell_node(cell)
            for cell in layout.cells()
            if layout.cell_kind(cell) != "board" and layout.cell_node(cell) not in targets
        ]
        free_cells = [n for n in free_cells if self.planner.finder.is_free(n, work.occupied_nodes())]
        best: tuple[float, list[Relocation]] | None = None
        for pid, goal in pending.items():
            here = work.node_of(pid)
            for park in sorted(free_cells, key=lambda n: math.dist(n, here) + math.dist(n, goal))[:3]:
                steps = self.planner.drag(work, pid, park, "park")
                if steps is None:
                    continue
                cost = (
                    self.timer.travel_s(position, layout.node_mm(here))
                    + sum(self.timer.drag_s(s.path) for s in steps)
                    + self._drag_estimate(park, goal)
                )
                if best is None or cost < best[0]:
                    best = (cost, steps)
        if best is None:
            raise NoPathError("the set-up is stuck: no piece can move and no free cell is left to park one")
        return best[1]


def _fits(table: Table, relocations: Sequence[Relocation]) -> bool:
    """Whether ``relocations`` can run on ``table`` one after the other: each piece where its drag begins,
    each goal free when it arrives."""
    work = table.copy()
    for relocation in relocations:
        piece = work.piece_at(relocation.start)
        if piece is None or piece.id != relocation.piece.id:
            return False
        occupant = work.piece_at(relocation.goal)
        if occupant is not None and occupant.id != piece.id:
            return False
        work.relocate(piece.id, relocation.goal)
    return True


def _zone_name(colour: chess.Color) -> str:
    return f"capture-{chess.COLOR_NAMES[colour]}"


def arrangement_problems(table: Table, board: chess.BaseBoard) -> list[str]:
    """What differs from the set-up arrangement for ``board``: the board itself, reserve slots without
    their spare, pieces outside their colour's capture zone. Empty when the set-up is exact."""
    layout = table.layout
    problems = []
    if table.board_fen() != board.board_fen():
        problems.append(f"the board shows {table.board_fen()!r} instead of {board.board_fen()!r}")
    needed: Counter[str] = Counter(p.symbol() for p in board.piece_map().values())
    spare_room: Counter[str] = Counter(slot.symbol for slot in layout.reserve)
    expected_in_reserve = {s: min(spare_room[s], table.inventory()[s] - needed[s]) for s in spare_room}
    in_reserve: Counter[str] = Counter()
    for slot in layout.reserve:
        piece = table.piece_at(layout.cell_node(slot.cell))
        if piece is not None and piece.symbol == slot.symbol:
            in_reserve[slot.symbol] += 1
        elif piece is not None:
            problems.append(f"reserve slot {slot.cell!r} for {slot.symbol!r} holds {piece.symbol!r}")
    for symbol, count in expected_in_reserve.items():
        if in_reserve[symbol] < count:
            problems.append(f"the reserve holds {in_reserve[symbol]} spare {symbol!r}, not {count}")
    for piece in table:
        node = table.node_of(piece.id)
        cell = layout.node_cell(node)
        kind = "free" if cell is None else layout.cell_kind(cell)
        zone = "capture-white" if piece.color else "capture-black"
        if kind not in ("board", "reserve", zone):
            problems.append(f"{piece.id} ({piece.symbol}) stands on {kind} node {node!r}")
    return problems
