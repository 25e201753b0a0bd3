"""How one move is made by hand: the timed lifts and placements (:class:`HandAction`) a player's manner
(:class:`~chessatron.sim.hand_style.HandStyle`) draws for it, planned by :class:`MovePlan` on a copy of
the table's cells; :class:`~chessatron.sim.hand.SimulatedHand`, above it, makes the plans, keeps the table
in step with the relocations each :class:`HandStep` lists and hands the steps out."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import chess

from ..errors import NoRoomError, StateError
from ..planning.layout import Cell
from ..planning.table import PhysicalPiece, PieceId, Table
from .hand_style import Behaviour, HandStyle, Span
from .trace import PromotionChoice


@dataclass(frozen=True)
class HandAction:
    """One physical event: a piece leaves (``lift``) or arrives on (``place``) a table cell at ``t`` s."""

    t: float
    kind: Literal["lift", "place"]
    cell: Cell
    piece_symbol: str
    note: str
    """What the hand was doing, for people reading a failing test."""
    piece_id: PieceId = ""
    """The physical piece (its :class:`~chessatron.planning.table.Table` id), when known."""


@dataclass(frozen=True)
class HandStep:
    """What a hand did for one move (or a takeback, a mishap, a reset) and what it means."""

    move: chess.Move | None
    actions: tuple[HandAction, ...]
    behaviours: tuple[Behaviour, ...]
    start_t: float
    end_t: float
    """When the hand is done (the last piece set down and let go, or the prompt answered)."""
    last_change_t: float
    """The last board change this step made, or its promotion choice if later (``start_t`` if none):
    recognition latency counts from here."""
    promotion_choice: PromotionChoice | None = None
    relocations: tuple[tuple[PieceId, Cell, Cell], ...] = ()
    """Net moves ``(piece, from cell, to cell)`` in the order the pieces came to rest."""


def cell_distance(a: Cell, b: Cell) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


class MovePlan:
    """A hand at work on a copy of the table state: records timed actions as pieces move, drawing its
    timings and habits from ``rng`` and ``style``; the table itself is left as it is."""

    def __init__(self, rng: random.Random, style: HandStyle, table: Table, start_t: float) -> None:
        self.rng, self.style, self.layout = rng, style, table.layout
        self.t = self.start_t = start_t
        self.actions: list[HandAction] = []
        self.behaviours: list[Behaviour] = []
        self.pieces: dict[PieceId, PhysicalPiece] = {p.id: p for p in table}
        self.cell_of: dict[PieceId, Cell | None] = {}
        self.at: dict[Cell, list[PieceId]] = {}
        self.came_from: dict[PieceId, Cell] = {}
        for piece in table:
            cell = self.layout.node_cell(table.node_of(piece.id))
            if cell is None:
                raise StateError(
                    f"piece {piece.id!r} stands between cells at node {table.node_of(piece.id)!r}; "
                    "a hand moves pieces between cell centres, so centre it first"
                )
            self.cell_of[piece.id] = cell
            self.at.setdefault(cell, []).append(piece.id)
        self.start_cells = {pid: cell for pid, cell in self.cell_of.items() if cell is not None}

    # --- primitives ----------------------------------------------------------------------------------

    def wait(self, span: Span, extra: float = 0.0) -> None:
        self.t += self.rng.uniform(*span) + extra
        if self.style.hesitate and self.rng.random() < self.style.hesitate:
            low, high = (max(x, 1e-3) for x in self.style.hesitate_s)
            self.t += math.exp(self.rng.uniform(math.log(low), math.log(high)))
            self.behaviours.append("hesitate")

    def _record(self, kind: Literal["lift", "place"], pid: PieceId, cell: Cell, note: str) -> None:
        self.actions.append(HandAction(round(self.t, 3), kind, cell, self.pieces[pid].symbol, note, pid))

    def lift(self, pid: PieceId, note: str) -> None:
        cell = self.cell_of[pid]
        if cell is None:
            raise StateError(f"piece {pid!r} is already in hand")
        self.at[cell].remove(pid)
        self.cell_of[pid] = None
        self.came_from[pid] = cell
        self._record("lift", pid, cell, note)

    def place(self, pid: PieceId, cell: Cell, note: str) -> None:
        self.at.setdefault(cell, []).append(pid)
        self.cell_of[pid] = cell
        self._record("place", pid, cell, note)

    def is_empty(self, cell: Cell) -> bool:
        return not self.at.get(cell)

    def pick(self, pid: PieceId, note: str) -> None:
        """Reach for a piece and lift it."""
        self.wait(self.style.lift_s)
        self.lift(pid, note)

    def put(self, pid: PieceId, cell: Cell, note: str) -> None:
        """Carry a piece in hand to a cell and set it down."""
        self.wait(
            self.style.carry_s, self.style.carry_per_square_s * cell_distance(self.came_from[pid], cell)
        )
        self.place(pid, cell, note)
        self.wait(self.style.place_s)

    def lift_and_put_back(self, pid: PieceId, span: Span, note: str) -> None:
        cell = self.cell_of[pid]
        assert cell is not None
        self.pick(pid, note)
        self.wait(span)
        self.place(pid, cell, note)
        self.wait(self.style.place_s)

    def nudge(self, around: Iterable[chess.Square], exclude: set[PieceId | None], kind: Behaviour) -> None:
        """Adjust a piece on or next to ``around``: lift it and put it back."""
        centres = list(around)
        near = [s for s in chess.SQUARES if any(chess.square_distance(s, c) <= 1 for c in centres)]
        candidates = sorted(
            {pid for s in near for pid in self.at.get(self.layout.square_cell(s), []) if pid not in exclude}
        )
        if candidates:
            self.lift_and_put_back(
                self.rng.choice(candidates), self.style.nudge_s, f"{kind}: adjusts a piece"
            )
            self.behaviours.append(kind)

    def wrong_cell(self, pid: PieceId, to: Cell, path: Sequence[Cell]) -> Cell | None:
        """An empty board cell next to ``to``, off the piece's way, where a hand might set it by mistake."""
        target = self.layout.node_square(self.layout.cell_node(to))
        if target is None:
            return None
        cells = [self.layout.square_cell(s) for s in chess.SQUARES if chess.square_distance(s, target) == 1]
        free = [c for c in cells if self.is_empty(c) and c not in path and c != self.came_from.get(pid)]
        return self.rng.choice(free) if free else None

    def choose(self, members: Sequence[Behaviour]) -> Behaviour:
        weights = [self.style.weight(b) for b in members]
        if not sum(weights) > 0:
            weights = [1.0] * len(members)
        return self.rng.choices(list(members), weights)[0]

    def piece_on(self, square: chess.Square) -> PieceId:
        pids = self.at.get(self.layout.square_cell(square), [])
        if len(pids) != 1:
            raise StateError(f"expected one piece on {chess.square_name(square)}, the table has {pids!r}")
        return pids[0]

    def zone_cell(self, pid: PieceId) -> Cell:
        """Where a piece going off the board is put: its colour's zone, else a free reserve slot."""
        piece = self.pieces[pid]
        own_reserve = [slot for slot in self.layout.reserve if slot.piece.color == piece.color]
        cells = list(self.layout.capture_cells[piece.color])
        cells += [slot.cell for slot in own_reserve if slot.symbol == piece.symbol]
        cells += [slot.cell for slot in own_reserve]
        for cell in cells:
            if self.is_empty(cell):
                return cell
        raise NoRoomError(f"{chess.COLOR_NAMES[piece.color]}'s capture zone and reserve are full")

    # --- composite motions ---------------------------------------------------------------------------

    def slide_path(self, pid: PieceId, to: Cell) -> list[Cell]:
        """The intermediate board cells a piece glides over, or [] when it is lifted and carried."""
        here = self.cell_of[pid]
        if here is None:
            return []
        a = self.layout.node_square(self.layout.cell_node(here))
        b = self.layout.node_square(self.layout.cell_node(to))
        if a is None or b is None:
            return []
        between = sorted(chess.SquareSet(chess.between(a, b)), key=lambda s: chess.square_distance(a, s))
        cells = [self.layout.square_cell(s) for s in between]
        # A knight jumps, and a piece is lifted over anything in its way (a rook put down first).
        if not cells or not all(self.is_empty(c) for c in cells) or self.rng.random() >= self.style.slide:
            return []
        return cells

    def travel(
        self,
        pid: PieceId,
        to: Cell,
        note: str,
        victim: PieceId | None = None,
        order: Literal["victim-first", "mover-first", "displacement", "after"] = "victim-first",
    ) -> None:
        """Bring a piece (on the table or in hand) to ``to``, taking ``victim`` off in the given order."""
        victim_in_hand = False
        if victim is not None and order == "victim-first":
            self.pick(victim, "capture: the victim is taken off")
            if self.rng.random() < self.style.keep_victim_in_hand:
                victim_in_hand = True
            else:
                self.put(victim, self.zone_cell(victim), "capture: the victim goes to the zone")
        path = self.slide_path(pid, to)
        if self.cell_of[pid] is not None:
            self.pick(pid, note)
        mover_square = self.layout.node_square(self.layout.cell_node(to))
        if (
            self.style.nudge_during
            and self.rng.random() < self.style.nudge_during
            and mover_square is not None
        ):
            self.nudge((mover_square,), {pid, victim}, "nudge-during")
        if path:
            self.behaviours.append("slide")
            pause_at = self.rng.randrange(len(path)) if self.rng.random() < self.style.pause else -1
            for i, cell in enumerate(path):
                self.wait(self.style.slide_gap_s)
                self.place(pid, cell, f"{note}: slides over")
                self.wait(self.style.pause_s if i == pause_at else self.style.slide_step_s)
                self.lift(pid, f"{note}: slides on")
            if pause_at >= 0:
                self.behaviours.append("pause")
        if (
            self.style.misplace
            and order != "displacement"
            and (victim is None or order != "after")
            and self.rng.random() < self.style.misplace
        ):
            wrong = self.wrong_cell(pid, to, path)
            if wrong is not None:
                self.put(pid, wrong, f"{note}: set on a wrong square")
                self.wait(self.style.misplace_s)
                self.pick(pid, f"{note}: moved on from the wrong square")
                self.behaviours.append("misplace")
        if victim is not None and order == "mover-first":
            self.pick(victim, "capture: the victim is taken off with the mover in hand")
            victim_in_hand = True
        if path and victim is not None and order == "mover-first":
            self.wait(self.style.swap_s)
        elif path:
            self.wait(self.style.slide_gap_s)
        else:
            self.wait(
                self.style.carry_s, self.style.carry_per_square_s * cell_distance(self.came_from[pid], to)
            )
        self.place(pid, to, note)
        if victim is not None and order == "displacement":
            self.wait(self.style.push_s)
            self.lift(victim, "capture: the victim is pushed off as the mover arrives")
            victim_in_hand = True
        self.wait(self.style.place_s)
        if victim is not None and order == "after":
            self.pick(victim, "capture: the victim is taken off after the move")
            victim_in_hand = True
        if victim_in_hand:
            assert victim is not None
            self.put(victim, self.zone_cell(victim), "capture: the victim goes to the zone")

    def rearrange(self, targets: Sequence[tuple[PieceId, Cell]], note: str) -> None:
        """Bring pieces to target cells, each when its cell is free; a piece waits in hand if need be."""
        pending = [(pid, cell) for pid, cell in targets if self.cell_of[pid] != cell]
        held = [item for item in pending if self.cell_of[item[0]] is None]
        pending = [item for item in pending if item not in held]
        while pending or held:
            progress = False
            for item in list(held):
                if self.is_empty(item[1]):
                    self.put(*item, note)
                    held.remove(item)
                    progress = True
            ready = next((item for item in pending if self.is_empty(item[1])), None)
            if ready is not None:
                pending.remove(ready)
                self.pick(ready[0], note)
                self.put(*ready, note)
            elif pending:
                item = pending.pop(0)
                self.pick(item[0], f"{note}: held while its cell is taken")
                held.append(item)
            elif held and not progress:
                pid, cell = held[0]
                raise StateError(f"cannot put {pid!r} on {cell!r}: {self.at[cell]!r} stands there and stays")

    def finish(self, move: chess.Move | None, choice: PromotionChoice | None) -> HandStep:
        """The step this plan made, its relocations in the order the pieces came to rest (for the owner of
        the table to apply). Raises :class:`~chessatron.errors.StateError` while a piece is still in hand."""
        in_hand = [pid for pid, cell in self.cell_of.items() if cell is None]
        if in_hand:
            raise StateError(f"the hand still holds {in_hand!r} at the end of its turn")
        last_place: dict[PieceId, int] = {}
        for i, action in enumerate(self.actions):
            if action.kind == "place":
                last_place[action.piece_id] = i
        moved = sorted(
            (i, pid) for pid, i in last_place.items() if self.cell_of[pid] != self.start_cells[pid]
        )
        relocations = []
        for _, pid in moved:
            cell = self.cell_of[pid]
            assert cell is not None
            relocations.append((pid, self.start_cells[pid], cell))
        board = set(self.layout.board_cells())
        changes = [a.t for a in self.actions if a.cell in board]
        changes += [choice.t] if choice is not None else []
        return HandStep(
            move=move,
            actions=tuple(self.actions),
            behaviours=tuple(dict.fromkeys(self.behaviours)),
            start_t=round(self.start_t, 3),
            end_t=round(self.t, 3),
            last_change_t=max(changes, default=round(self.start_t, 3)),
            promotion_choice=choice,
            relocations=tuple(relocations),
        )


_CAPTURE_ORDER: dict[Behaviour, Literal["victim-first", "mover-first", "displacement", "after"]] = {
    "capture-victim-first": "victim-first",
    "capture-mover-first": "mover-first",
    "displacement": "displacement",
    "ep-victim-before": "victim-first",
    "ep-victim-between": "mover-first",
    "ep-victim-after": "after",
}


def displacement_is_decidable(board: chess.Board, move: chess.Move) -> bool:
    """Whether a capture by displacement can be told from occupancy alone.

    The victim is pushed off as the mover arrives, so its square never reads empty: all the sensors see
    is the mover's square emptied, which fits every capture that piece could make (and, for a while, the
    piece held in the air). Only when ``move`` is its single capture can a recognizer name it.

    >>> two_targets = chess.Board("4k3/8/8/2p1p3/3P4/8/8/4K3 w - - 0 1")
    >>> displacement_is_decidable(two_targets, chess.Move.from_uci("d4e5"))
    False
    """
    targets = {
        m.to_square
        for m in board.legal_moves
        if m.from_square == move.from_square and board.is_capture(m) and not board.is_en_passant(m)
    }
    return targets == {move.to_square}
