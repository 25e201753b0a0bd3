"""Chess moves become ordered piece relocations on the table.

For a legal move the planner lists what must happen physically (the victim of a capture leaves first,
a promoted pawn goes off the board and a spare comes in, castling moves king and rook), then searches the
orders, destinations and parking places for the plan that takes the least machine time, empty travel
included. Every drag keeps the clearance rule (:mod:`chessatron.planning.paths`); when no drag can, one
blocker is moved aside and back, and the plan says so in its notes. A piece leaving the board (a capture,
a promoted pawn) must come back when the table is reset after the game, so its capture cell is weighed
with that later drag too (:attr:`Planner.reset_weight`).

The robot's own move is what a person waits for (:meth:`Planner.plan_reply`): a piece leaving the board
goes to the nearest free place off it that lets the move go on (a cell of the free rows, the edge of a
zone, its own zone when that is as near), *parked* there; its trip on to its own capture zone comes
later, while the person thinks (:mod:`.tidy`). What that trip and the reset will cost only breaks
near-ties (:data:`LATER_WEIGHT`).

>>> layout = Layout.default()
>>> board, table = chess.Board(), Table.from_board(layout, chess.Board())
>>> plan = Planner(layout).plan_move(table, board, chess.Move.from_uci("g1f3"))
>>> [r.describe(layout) for r in plan.relocations]
['wN2 g1-f3 (move)']
"""

# One module on purpose (about 520 lines): the search over a move's variants, the order of its drags,
# asides and parking works on one table and one timer; its refusals, whole sentences in every language
# (chessatron.i18n), took it past 500.

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import chess

from ..errors import IllegalMoveError, NoPathError, NoRoomError
from ..i18n import _
from .layout import Cell, Layout, MachinePoint, Node
from .paths import Path, PathFinder
from .table import PhysicalPiece, PieceId, Table
from .timing import Timer

Purpose = Literal[
    "move",
    "capture",
    "promote-out",
    "promote-in",
    "castle",
    "park",
    "unpark",
    "aside",
    "back",
    "setup",
    "hand",
    "tidy",
]
"""Why a piece is dragged; ``hand``: moved by a person, journaled so that a resume knows where it is;
``tidy``: a parked piece on its way to its capture zone (:mod:`.tidy`)."""

#: How many free capture cells, best first (:meth:`Planner.zone_cells`), the planner weighs for a
#: captured piece.
_CELL_CHOICES = 2
#: How many parking nodes, nearest first, the planner tries for a piece that must make way.
_PARK_CHOICES = 8
#: How many places off the board, best first, a reply weighs for a victim and for a promoted pawn.
_REPLY_CELL_CHOICES = (4, 3)
#: In a reply, how much a second of work later (the parked piece's trip to its zone, done while the
#: person thinks, and the reset after the game) weighs against a second the person waits for now.
LATER_WEIGHT = 0.1


@dataclass(frozen=True)
class Relocation:
    """One drag: a piece taken along a path, magnet engaged at the start and released at the end."""

    piece: PhysicalPiece
    path: Path
    purpose: Purpose

    @property
    def start(self) -> Node:
        return self.path[0]

    @property
    def goal(self) -> Node:
        return self.path[-1]

    def describe(self, layout: Layout) -> str:
        start, goal = _node_name(layout, self.start), _node_name(layout, self.goal)
        return f"{self.piece.id} {start}-{goal} ({self.purpose})"

    def __str__(self) -> str:
        return f"{self.piece.id} {self.start}-{self.goal} ({self.purpose})"


@dataclass(frozen=True)
class Task:
    """A piece that must end on a node; the solver chooses when and by which path."""

    piece: PieceId
    goal: Node
    purpose: Purpose
    later_s: float = 0.0
    """Machine seconds this goal will cost later: the reset's drag from a capture cell back to the board."""


@dataclass(frozen=True)
class Plan:
    """Relocations in the order the machine runs them, and their predicted time."""

    relocations: tuple[Relocation, ...]
    seconds: float
    """Predicted machine time: travel, magnet actions and drags, from the gantry position planned from."""
    start_mm: MachinePoint
    end_mm: MachinePoint
    """Where the magnet is when the plan is done."""
    notes: tuple[str, ...] = ()

    def apply(self, table: Table) -> None:
        """Carry the plan out on the physical state."""
        for relocation in self.relocations:
            table.relocate(relocation.piece.id, relocation.goal)


class Planner:
    """Plans moves on one layout. Keeps caches, so reuse one planner for a whole game."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.finder = PathFinder(layout)
        self.timer = Timer(layout)
        self.corner_pitches = self.timer.corner_pitches()
        #: How much a second of the reset after the game weighs against a second of this move, when
        #: choosing where a piece leaving the board waits: 1 (a person waits through both); 0 takes the
        #: cell nearest the square it leaves.
        self.reset_weight = 1.0
        self._homes: dict[str, list[Node]] = {}
        self._reset_drags: dict[tuple[str, Cell], float] = {}  # (unweighted: reset_weight may change)
        for square, kind in chess.Board().piece_map().items():
            self._homes.setdefault(kind.symbol(), []).append(layout.square_node(square))

    # --- chess moves -------------------------------------------------------------------------------

    def plan_move(
        self, table: Table, board: chess.Board, move: chess.Move, at: MachinePoint | None = None
    ) -> Plan:
        """The fastest plan that turns the table from ``board`` into ``board`` after ``move``.

        ``at`` is where the magnet is when the plan starts (home if not given). Raises
        :class:`IllegalMoveError` for an illegal move and :class:`PlanningError` subclasses when the
        table cannot do it (no spare piece, no room, no path).
        """
        if not board.is_legal(move):
            raise IllegalMoveError(
                _("{move!r} is not legal in {fen!r}").format(move=move.uci(), fen=board.fen())
            )
        start = self.layout.home_mm if at is None else at
        return self.solve(table, self._move_variants(table, board, move, park=False), start)

    def plan_reply(
        self,
        table: Table,
        board: chess.Board,
        move: chess.Move,
        at: MachinePoint | None = None,
        *,
        free_s: float = 0.0,
    ) -> Plan:
        """The robot's move as a person waits for it: the fastest plan that makes ``move`` stand on the
        board. A victim and a promoted pawn go to the nearest free places off the board that let the
        move go on (:meth:`Table.is_parked` when that is not their zone: :mod:`.tidy` takes them on
        later); a spare comes to the square. ``free_s``: seconds of the empty travel to the first drag
        that cost the person nothing (made while they think, or while their move must still stand): a
        promotion whose spare comes in first and whose pawn goes out after it may be a second shorter
        than the other way round, though its first drag begins farther from the magnet. Raises as
        :meth:`plan_move`."""
        if not board.is_legal(move):
            raise IllegalMoveError(
                _("{move!r} is not legal in {fen!r}").format(move=move.uci(), fen=board.fen())
            )
        start = self.layout.home_mm if at is None else at
        return self.solve(table, self._move_variants(table, board, move, park=True), start, free_s)

    def _move_variants(
        self, table: Table, board: chess.Board, move: chess.Move, *, park: bool
    ) -> Iterable[list[Task]]:
        layout = self.layout
        mover = _piece_on(table, layout, move.from_square)
        if board.is_castling(move):
            yield from self._castling_variants(table, board, move)
            return
        victim_square: chess.Square | None = None
        if board.is_en_passant(move):
            victim_square = chess.square(
                chess.square_file(move.to_square), chess.square_rank(move.from_square)
            )
        elif board.piece_at(move.to_square) is not None:
            victim_square = move.to_square
        to_node = layout.square_node(move.to_square)
        victim_options: list[list[Task]] = [[]]
        reserved: set[Cell] = set()
        if victim_square is not None:
            victim = _piece_on(table, layout, victim_square)
            places = self._leaving_cells(table, victim, layout.square_node(victim_square), set(), park, 0)
            victim_options = [[Task(victim.id, layout.cell_node(c), "capture", later)] for c, later in places]
            reserved = {places[0][0]}
        if move.promotion is None:
            for option in victim_options:
                yield [*option, Task(mover.id, to_node, "move")]
            return
        symbol = chess.Piece(move.promotion, board.turn).symbol()
        spares = sorted(table.spares(symbol), key=lambda p: math.dist(table.node_of(p.id), to_node))
        spare = spares[0]
        for option in victim_options:
            taken = reserved | {c for t in option for c in [layout.node_cell(t.goal)] if c is not None}
            # The pawn may take the cell the spare leaves if that is nearest: it is free once the spare moves.
            from_node = layout.square_node(move.from_square)
            for pawn_cell, later in self._leaving_cells(table, mover, from_node, taken, park, 1):
                yield [
                    *option,
                    Task(mover.id, layout.cell_node(pawn_cell), "promote-out", later),
                    Task(spare.id, to_node, "promote-in"),
                ]

    def _castling_variants(self, table: Table, board: chess.Board, move: chess.Move) -> Iterable[list[Task]]:
        layout = self.layout
        king_from, king_to, rook_from, rook_to = castling_squares(board, move)
        king = _piece_on(table, layout, king_from)
        rook = _piece_on(table, layout, rook_from)
        tasks = []
        if king_from != king_to:
            tasks.append(Task(king.id, layout.square_node(king_to), "castle"))
        if rook_from != rook_to:
            tasks.append(Task(rook.id, layout.square_node(rook_to), "castle"))
        yield tasks
        if king_from == rook_to and rook_from == king_to:
            # King and rook stand on each other's targets: one parks while the other passes.
            for parked, other in ((king, rook), (rook, king)):
                parked_goal = layout.square_node(king_to if parked is king else rook_to)
                other_goal = layout.square_node(king_to if other is king else rook_to)
                for node in self._parking_nodes(table, table.node_of(parked.id), exclude=()):
                    yield [
                        Task(parked.id, node, "park"),
                        Task(other.id, other_goal, "castle"),
                        Task(parked.id, parked_goal, "unpark"),
                    ]

    # --- the solver --------------------------------------------------------------------------------

    def solve(
        self, table: Table, variants: Iterable[Sequence[Task]], at: MachinePoint, free_s: float = 0.0
    ) -> Plan:
        """The fastest feasible plan among the variants, each tried in every order of its tasks (a
        task whose goal is still occupied cannot run yet), counting the seconds its goals cost later
        (:attr:`Task.later_s`) and the empty travel from ``at`` to the first drag but its first
        ``free_s``. Raises :class:`NoPathError` if none works."""
        best: Plan | None = None
        best_cost = math.inf
        for tasks in variants:
            later = sum(task.later_s for task in tasks)
            orders = [tasks] if any(t.purpose == "park" for t in tasks) else itertools.permutations(tasks)
            for order in orders:
                plan = self._try(table, order, at, None if best is None else best_cost - later + free_s)
                if plan is None:
                    continue
                cost = plan.seconds + later
                if free_s and plan.relocations:
                    approach = self.timer.travel_s(at, self.layout.node_mm(plan.relocations[0].start))
                    cost -= min(approach, free_s)
                if cost < best_cost - 1e-9:
                    best, best_cost = plan, cost
        if best is None:
            raise NoPathError(
                _("no sequence of drags can make this move without breaking the clearance rule")
            )
        return best

    def _try(self, table: Table, order: Sequence[Task], at: MachinePoint, limit: float | None) -> Plan | None:
        work = table.copy()
        relocations: list[Relocation] = []
        notes: list[str] = []
        seconds = 0.0
        position = at
        for task in order:
            if work.node_of(task.piece) == task.goal:
                continue
            occupant = work.piece_at(task.goal)
            if occupant is not None:
                return None
            steps = self.drag(work, task.piece, task.goal, task.purpose)
            if steps is None:
                return None
            for step in steps:
                seconds += self.timer.relocation_s(position, step.path)
                position = self.layout.node_mm(step.goal)
                work.relocate(step.piece.id, step.goal)
                relocations.append(step)
                if step.purpose == "aside":
                    notes.append(
                        _("{piece} moved aside to let {other} pass, and back").format(
                            piece=step.piece.id, other=task.piece
                        )
                    )
            if limit is not None and seconds >= limit:
                return None
        return Plan(tuple(relocations), seconds, at, position, tuple(notes))

    def drag(self, table: Table, piece_id: PieceId, goal: Node, purpose: Purpose) -> list[Relocation] | None:
        """Relocations that bring one piece to ``goal``: one drag, or a blocker moved aside, the drag,
        and the blocker back. None when even that cannot be done."""
        piece = table.piece(piece_id)
        start = table.node_of(piece_id)
        others = table.occupied_nodes(excluding=[piece_id])
        path = self.finder.find(start, goal, others)
        if path is not None:
            return [Relocation(piece, self._smoother(path, others), purpose)]
        if not self.finder.is_free(goal, others):
            return None
        return self._drag_around(table, piece, start, goal, purpose)

    def _smoother(self, path: Path, others: Sequence[Node]) -> Path:
        """The shortest path, or one with fewer corners where they cost more than its length saves: the
        machine all but stops at every corner (GRBL's junction speed), so the fastest drag is not always
        the shortest."""
        if len(path) <= 3:
            return path  # one corner: no path with fewer corners goes around what made it
        smooth = self.finder.find(path[0], path[-1], others, corner_cost=self.corner_pitches)
        if smooth is None or smooth == path or self.timer.drag_s(smooth) >= self.timer.drag_s(path):
            return path
        return smooth

    def _drag_around(
        self, table: Table, piece: PhysicalPiece, start: Node, goal: Node, purpose: Purpose
    ) -> list[Relocation] | None:
        finder = self.finder
        placement = table.placement()
        del placement[piece.id]

        def off_line(node: Node) -> float:
            return _point_segment_distance(node, start, goal)

        for blocker_id, blocker_node in sorted(placement.items(), key=lambda item: off_line(item[1]))[:8]:
            rest = [node for pid, node in placement.items() if pid != blocker_id]
            path = finder.find(start, goal, rest)
            if path is None:
                continue
            for park in self._parking_nodes(table, blocker_node, exclude=(start, goal)):
                if not finder.path_is_clear(path, [park]):
                    continue
                aside = finder.find(blocker_node, park, [*rest, start])
                back = finder.find(park, blocker_node, [*rest, goal]) if aside else None
                if aside and back:
                    blocker = table.piece(blocker_id)
                    return [
                        Relocation(blocker, aside, "aside"),
                        Relocation(piece, path, purpose),
                        Relocation(blocker, back, "back"),
                    ]
        return None

    # --- places ------------------------------------------------------------------------------------

    def _leaving_cells(
        self, table: Table, piece: PhysicalPiece, near: Node, taken: set[Cell], park: bool, which: int
    ) -> list[tuple[Cell, float]]:
        """Where ``piece``, leaving the board at ``near``, may go, best first, each with what it costs
        later (:attr:`Task.later_s`): its colour's capture cells (:meth:`zone_cells`), or in a reply
        (``park``) and when those are full every free place off the board, nearest first (``which``: 0 a
        victim, 1 a promoted pawn, for how many to weigh)."""
        if not park:
            try:
                cells = self.zone_cells(table, piece, near, taken)
            except NoRoomError:  # the zone full (pieces parked in it): parked, like a reply's victim
                return self._leaving_cells(table, piece, near, taken, True, which)
            count = _CELL_CHOICES if which == 0 else 1
            return [(c, self.reset_drag_s(piece.symbol, c)) for c in cells[:count]]
        try:
            proper = [c for c in table.free_capture_cells(piece.color, piece.symbol) if c not in taken]
        except NoRoomError:
            proper = []
        layout, timer = self.layout, self.timer
        scored = []
        for cell in self._parking_cells(table, piece, taken):
            if cell in proper:
                later = self.reset_drag_s(piece.symbol, cell)
            else:
                later = self._tidy_later_s(piece.symbol, cell, proper)
            now = timer.straight_drag_between(near, layout.cell_node(cell))
            scored.append((now + LATER_WEIGHT * later, cell, LATER_WEIGHT * later))
        if not scored:
            raise NoRoomError(
                _("no free place off the board for {id} ({symbol}); clear the zones").format(
                    id=piece.id, symbol=piece.symbol
                )
            )
        scored.sort()
        return [(cell, later) for _cost, cell, later in scored[: _REPLY_CELL_CHOICES[which]]]

    def _parking_cells(self, table: Table, piece: PhysicalPiece, taken: set[Cell]) -> list[Cell]:
        """The empty cells off the board where ``piece`` may wait: every free cell and every capture cell,
        and a reserve slot of its own letter (a spare going home). Other reserve slots hold spares."""
        layout = self.layout
        found = []
        for cell in layout.cells():
            kind = layout.cell_kind(cell)
            if kind == "board" or cell in taken or table.piece_at(layout.cell_node(cell)) is not None:
                continue
            if kind == "reserve" and not any(
                slot.cell == cell and slot.symbol == piece.symbol for slot in layout.reserve
            ):
                continue
            found.append(cell)
        return found

    def _tidy_later_s(self, symbol: str, cell: Cell, proper: Sequence[Cell]) -> float:
        """What a piece of kind ``symbol`` parked on ``cell`` costs later: its trip to the best of the
        ``proper`` cells (straight, magnet time included) and the reset's drag from there."""
        node = self.layout.cell_node(cell)
        costs = [
            self.timer.straight_drag_between(node, self.layout.cell_node(c))
            + self.timer.magnet_s
            + self.reset_drag_s(symbol, c)
            for c in proper
        ]
        return min(costs, default=0.0)

    def zone_cells(
        self, table: Table, piece: PhysicalPiece, near: Node, taken: Collection[Cell] = ()
    ) -> list[Cell]:
        """The free cells where ``piece``, leaving the board (or its parking place) at ``near``, may
        wait, best first: its colour's capture zone (:meth:`Table.free_capture_cells`) but ``taken``,
        by the drag there now plus the reset's drag back later (:meth:`reset_drag_s`). Raises
        :class:`NoRoomError` when none is free."""
        cells = [c for c in table.free_capture_cells(piece.color, piece.symbol) if c not in taken]
        if not cells:
            raise NoRoomError(
                _("white's capture zone is full")
                if piece.color == chess.WHITE
                else _("black's capture zone is full")
            )
        timer, layout = self.timer, self.layout
        return sorted(
            cells,
            key=lambda c: (
                timer.straight_drag_between(near, layout.cell_node(c)) + self.reset_drag_s(piece.symbol, c)
            ),
        )

    def reset_drag_s(self, symbol: str, cell: Cell) -> float:
        """What a piece of kind ``symbol`` waiting on ``cell`` will cost the reset after the game: the
        straight drag to the nearest square of its kind in the standard start (a Chess960 start puts
        the pieces on the same ranks), times :attr:`reset_weight`. A cell beside its home ranks costs
        little; one at the far end of the zone costs the whole length of the board."""
        homes = self._homes.get(symbol)
        if not self.reset_weight or not homes:
            return 0.0
        if (symbol, cell) not in self._reset_drags:
            node = self.layout.cell_node(cell)
            self._reset_drags[symbol, cell] = min(self.timer.straight_drag_between(node, h) for h in homes)
        return self.reset_weight * self._reset_drags[symbol, cell]

    def _parking_nodes(self, table: Table, near: Node, exclude: Sequence[Node]) -> list[Node]:
        """Free nodes close to ``near`` where a piece can wait for a moment, nearest first."""
        others = [n for n in table.occupied_nodes() if n != near] + list(exclude)
        found = []
        for radius in range(1, max(self.finder.width, self.finder.height)):
            ring = [
                (near[0] + di, near[1] + dj)
                for di in range(-radius, radius + 1)
                for dj in range(-radius, radius + 1)
                if max(abs(di), abs(dj)) == radius
            ]
            for node in sorted(ring, key=lambda n: math.dist(n, near)):
                if self.finder.on_table(node) and self.finder.is_free(node, others):
                    found.append(node)
            if len(found) >= _PARK_CHOICES:
                break
        return found[:_PARK_CHOICES]


# --- helpers ---------------------------------------------------------------------------------------


def castling_squares(
    board: chess.Board, move: chess.Move
) -> tuple[chess.Square, chess.Square, chess.Square, chess.Square]:
    """King from, king to, rook from, rook to for a castling move in either notation (``e1g1`` or
    king-onto-rook as in Chess960)."""
    rank = chess.square_rank(move.from_square)
    kingside = board.is_kingside_castling(move)
    king_to = chess.square(6 if kingside else 2, rank)
    rook_to = chess.square(5 if kingside else 3, rank)
    target = board.piece_at(move.to_square)
    if target is not None and target.piece_type == chess.ROOK and target.color == board.turn:
        rook_from = move.to_square
    else:
        rook_from = chess.square(7 if kingside else 0, rank)
    return move.from_square, king_to, rook_from, rook_to


def _piece_on(table: Table, layout: Layout, square: chess.Square) -> PhysicalPiece:
    piece = table.piece_at(layout.square_node(square))
    if piece is None:
        raise IllegalMoveError(
            _("the table has no piece on {square}").format(square=chess.square_name(square))
        )
    return piece


def _point_segment_distance(p: Node, a: Node, b: Node) -> float:
    ax, ay = b[0] - a[0], b[1] - a[1]
    length_sq = ax * ax + ay * ay
    t = 0.0 if length_sq == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * ax + (p[1] - a[1]) * ay) / length_sq))
    return math.dist(p, (a[0] + t * ax, a[1] + t * ay))


def _node_name(layout: Layout, node: Node) -> str:
    square = layout.node_square(node)
    if square is not None:
        return chess.square_name(square)
    cell = layout.node_cell(node)
    return f"cell{cell}" if cell is not None else f"node{node}"
