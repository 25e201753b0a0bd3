"""A simulated hand: how people move pieces on a board that has one occupancy sensor per square.

Sensors see which cells hold a piece, never which piece, so what a recognizer must cope with is the
*order and timing* of lifts and placements. :class:`SimulatedHand` turns a chess move into timed
:class:`HandAction` events on table cells the way players make them, drawn at random from a
:class:`HandStyle`:

* sliders, kings and pawns may **slide** over intermediate squares (each seen for 30–120 ms) and
  **pause** mid-slide (0.1–1.5 s, often longer than a recognizer's settle time);
* captures take the **victim first**, the **mover first**, or by **displacement** (the victim is pushed
  off as the mover arrives; the target never reads empty); captured pieces go to their colour's
  capture zone, promoted pawns too. Displacement happens whatever else the mover could capture: when
  it had other captures (see :func:`displacement_is_decidable`) the board shows just the mover's square
  emptied, which fits each of them, and only what follows or the player can tell which it was;
* **hesitations** of 50 ms to several seconds before any action;
* **nudges** (a nearby piece lifted and put back, before, during or after the move), **touches** (an
  own piece lifted, held, put back) and a piece **misplaced** on a square next to its target, then
  moved on;
* castling **king first**, **rook first** or **both in hand**, either set down first (a king or rook
  that must land where the other stands is lifted with it); en passant with the victim removed
  **before**, **between** or **after**; promotions with the piece taken from the **reserve**, chosen at a
  **prompt** (a :class:`~chessatron.sim.trace.PromotionChoice`), or left to the recognizer's **default**;
* replies inside one settle window (**quick-reply**); one-scan **flicker** on random cells and sensor
  **bounce** as pieces arrive and leave are added when a :class:`~.scenario.Scenario` samples a trace.

:class:`~chessatron.sim.hand_style.HandStyle` is the player's manner; :mod:`.scenario` strings
steps into whole sessions and traces.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import chess

from ..errors import IllegalMoveError, MissingPieceError, NoRoomError, StateError
from ..planning.layout import Cell, Layout
from ..planning.table import PhysicalPiece, PieceId, Table
from .hand_style import GROUPS, Behaviour, HandStyle, IllegalKind, Span
from .trace import PromotionChoice
from .twin import TwinPiece
from .world import SENSOR_RANGE_MM, SimWorld

LOGGER = logging.getLogger(__name__)


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


class _Plan:
    """A hand at work on a copy of the table state: records timed actions as pieces move."""

    def __init__(self, hand: SimulatedHand, table: Table, start_t: float) -> None:
        self.rng, self.style, self.layout = hand.rng, hand.style, table.layout
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

    def finish(
        self, hand: SimulatedHand, move: chess.Move | None, choice: PromotionChoice | None
    ) -> HandStep:
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
        hand._apply(relocations)
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


class SimulatedHand:
    """A player's hand on a table: turns moves into timed :class:`HandAction` events and keeps the
    :class:`~chessatron.planning.table.Table` in step (captured pieces to their zone, promotion pieces from
    the reserve).

    ``table`` is the physical table (default: set up for the board of the first move); share it with
    whatever else moves pieces (a robot), since every move checks that it shows the board. ``table_visible``
    says the trace will show the whole table, so a recognizer can see which reserve slot a promotion
    piece came from. Without it an under-promotion is never left to the reserve or the default: the
    player answers the prompt, so the ground truth stays recognisable.

    >>> import random
    >>> hand = SimulatedHand(random.Random(0), HandStyle.calm())
    >>> [(a.kind, a.cell) for a in hand.actions(chess.Board(), chess.Move.from_uci("e2e4"), 0.0)]
    [('lift', (6, 2)), ('place', (6, 4))]
    """

    def __init__(
        self,
        rng: random.Random,
        style: HandStyle,
        *,
        layout: Layout | None = None,
        table: Table | None = None,
        table_visible: bool = False,
    ) -> None:
        self.rng = rng
        self.style = style
        self.layout = table.layout if table is not None else (layout or Layout.default())
        self.table = table
        self.table_visible = table_visible

    def __repr__(self) -> str:
        return f"<SimulatedHand table={self.table!r}>"

    # --- moves ---------------------------------------------------------------------------------------

    def actions(self, board: chess.Board, move: chess.Move, start_t: float) -> list[HandAction]:
        """The physical events of ``move`` played on ``board`` from ``start_t`` seconds; see :meth:`play`."""
        return list(self.play(board, move, start_t).actions)

    def play(self, board: chess.Board, move: chess.Move, start_t: float, *, hurry: bool = False) -> HandStep:
        """Make ``move`` on the table: the timed events, the behaviours used and any promotion choice.

        The table is updated; ``board`` is not (push the move yourself). ``hurry`` skips the reach to
        the first piece (a quick reply). Raises :class:`~chessatron.errors.IllegalMoveError` for an
        illegal move, :class:`~chessatron.errors.StateError` when the table does not show ``board`` and
        :class:`~chessatron.errors.NoSparePieceError` when no piece is left for a promotion.
        """
        if not board.is_legal(move):
            raise IllegalMoveError(
                f"{move.uci()!r} is not legal in {board.fen()!r}; the hand plays legal moves"
            )
        table = self._table_for(board)
        plan = _Plan(self, table, start_t)
        style, rng, square_cell = self.style, self.rng, self.layout.square_cell
        if not hurry:
            plan.wait(style.reach_s)
        mover = plan.piece_on(move.from_square)
        victim: PieceId | None = None
        if board.is_en_passant(move):
            ep_square = chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))
            victim = plan.piece_on(ep_square)
        elif board.is_capture(move):
            victim = plan.piece_on(move.to_square)
        if rng.random() < style.nudge_before:
            plan.nudge((move.from_square, move.to_square), {mover, victim}, "nudge-before")
        if rng.random() < style.touch:
            own = sorted(plan.piece_on(s) for s in chess.SquareSet(board.occupied_co[board.turn]))
            touched = mover if rng.random() < 0.5 else rng.choice(own)
            plan.lift_and_put_back(touched, style.touch_s, "touch: lifted, held and put back")
            plan.behaviours.append("touch")
        choice = None
        if board.is_castling(move):
            self._castle(plan, board, move)
        elif move.promotion is not None:
            choice = self._promote(plan, board, move, mover, victim)
        elif victim is not None:
            group = GROUPS["en passant"] if board.is_en_passant(move) else GROUPS["capture"]
            order = plan.choose(group)
            plan.behaviours.append(order)
            plan.travel(mover, square_cell(move.to_square), "the move", victim, _CAPTURE_ORDER[order])
        else:
            plan.travel(mover, square_cell(move.to_square), "the move")
        if rng.random() < style.nudge_after:
            plan.nudge((move.to_square,), set(), "nudge-after")
        step = plan.finish(self, move, choice)
        after = board.copy(stack=False)
        after.push(move)
        table.check_matches(after)
        return step

    def _table_for(self, board: chess.Board) -> Table:
        if self.table is None:
            self.table = Table.from_board(self.layout, board)
        self.table.check_matches(board)
        return self.table

    def _castle(self, plan: _Plan, board: chess.Board, move: chess.Move) -> None:
        after = board.copy(stack=False)
        after.push(move)
        colour, cell = board.turn, self.layout.square_cell
        king_from, king_to = board.king(colour), after.king(colour)
        assert king_from is not None and king_to is not None
        rooks_before, rooks_after = (
            board.pieces_mask(chess.ROOK, colour),
            after.pieces_mask(chess.ROOK, colour),
        )
        steps: list[tuple[PieceId, Cell, str]] = []
        if king_from != king_to:
            steps.append((plan.piece_on(king_from), cell(king_to), "castling: the king"))
        rook_from = chess.SquareSet(rooks_before & ~rooks_after)
        rook_to = chess.SquareSet(rooks_after & ~rooks_before)
        if rook_from and rook_to:  # in Chess960 the rook may already stand where it belongs
            steps.append(
                (plan.piece_on(next(iter(rook_from))), cell(next(iter(rook_to))), "castling: the rook")
            )
        if len(steps) < 2:
            for step in steps:
                plan.travel(*step)
            return
        king, rook = steps
        order = plan.choose(GROUPS["castling"])
        # Chess960: a piece cannot go down where the other still stands, so the player lifts that one too
        if order == "castle-king-first" and not plan.is_empty(king[1]):
            order = "castle-both-king-down-first"
        elif order == "castle-rook-first" and not plan.is_empty(rook[1]):
            order = "castle-both-rook-down-first"
        plan.behaviours.append(order)
        if order == "castle-king-first":
            plan.travel(*king)
            plan.travel(*rook)
        elif order == "castle-rook-first":
            plan.travel(*rook)
            plan.travel(*king)
        else:
            first, second = (king, rook) if self.rng.random() < 0.5 else (rook, king)
            plan.pick(first[0], first[2])
            plan.pick(second[0], second[2])
            down = (king, rook) if order == "castle-both-king-down-first" else (rook, king)
            for pid, target, note in down:
                plan.put(pid, target, note)

    def _promote(
        self, plan: _Plan, board: chess.Board, move: chess.Move, pawn: PieceId, victim: PieceId | None
    ) -> PromotionChoice | None:
        assert move.promotion is not None and self.table is not None
        style, rng = self.style, self.rng
        symbol = chess.Piece(move.promotion, board.turn).symbol()
        letter = symbol.lower()
        spare = self.table.spares(symbol)[0].id
        spare_cell = plan.cell_of[spare]
        from_slot = any(slot.cell == spare_cell and slot.symbol == symbol for slot in self.layout.reserve)
        mode = plan.choose(GROUPS["promotion"])
        if mode == "promote-default" and letter != style.default_promotion:
            mode = "promote-prompt"
        if mode == "promote-reserve" and letter != style.default_promotion and not self.table_visible:
            mode = "promote-prompt"  # the recognizer could not see which slot emptied
        if mode == "promote-reserve" and letter != style.default_promotion and not from_slot:
            mode = "promote-prompt"  # the piece comes from the capture zone, which tells nothing
        plan.behaviours.append(mode)
        order: Literal["victim-first", "mover-first", "displacement", "after"] = "victim-first"
        if victim is not None:
            capture = plan.choose(GROUPS["capture"])
            plan.behaviours.append(capture)
            order = _CAPTURE_ORDER[capture]
        target = self.layout.square_cell(move.to_square)
        if rng.random() < style.pawn_visits_promotion_square:
            plan.travel(pawn, target, "promotion: the pawn to the last rank", victim, order)
            if rng.random() < 0.5:
                plan.pick(spare, "promotion: the new piece is taken")
                plan.pick(pawn, "promotion: the pawn is exchanged")
                plan.put(spare, target, "promotion: the new piece")
                plan.put(pawn, plan.zone_cell(pawn), "promotion: the pawn goes to the zone")
            else:
                plan.pick(pawn, "promotion: the pawn is taken off")
                plan.put(pawn, plan.zone_cell(pawn), "promotion: the pawn goes to the zone")
                plan.pick(spare, "promotion: the new piece is taken")
                plan.put(spare, target, "promotion: the new piece")
        else:
            plan.pick(pawn, "promotion: the pawn is taken off")
            plan.put(pawn, plan.zone_cell(pawn), "promotion: the pawn goes to the zone")
            plan.travel(spare, target, "promotion: the new piece", victim, order)
        if mode != "promote-prompt":
            return None
        plan.wait(style.prompt_s)
        return PromotionChoice(round(plan.t, 3), letter)

    # --- everything else a hand does -----------------------------------------------------------------

    def rearrange(
        self,
        targets: Sequence[tuple[PieceId, Cell]],
        start_t: float,
        *,
        note: str = "tidy up",
        hurry: bool = False,
    ) -> HandStep:
        """Bring pieces to cells (a takeback, setting up a game), each once its cell is free; a piece waits
        in hand when its cell is still taken. Raises :class:`~chessatron.errors.StateError` when a cell
        stays taken or the hand has no table yet."""
        if self.table is None:
            raise StateError("the hand has no table yet; give it one or let it play a move first")
        plan = _Plan(self, self.table, start_t)
        if not hurry:
            plan.wait(self.style.reach_s)
        plan.rearrange(targets, note)
        return plan.finish(self, None, None)

    def fumble(
        self, board: chess.Board, kind: IllegalKind, start_t: float, hold_s: Span = (1.0, 3.0)
    ) -> HandStep:
        """An illegal action, left for ``hold_s`` seconds and then undone, so the table shows ``board``
        again: a piece of the side to move on a square it cannot reach (``wrong-square``), a piece of
        the other side moved (``wrong-side``), or two to four neighbouring pieces knocked over, some
        onto neighbouring squares, and set right (``knocked-over``)."""
        table = self._table_for(board)
        plan = _Plan(self, table, start_t)
        rng, cell = self.rng, self.layout.square_cell
        plan.wait(self.style.reach_s)
        if kind == "wrong-side":
            other = board.copy(stack=False)
            other.turn, other.ep_square = not board.turn, None
            quiet = sorted(
                (m for m in other.pseudo_legal_moves if not other.is_capture(m) and not other.is_castling(m)),
                key=lambda m: m.uci(),
            )
            quiet = [m for m in quiet if m.promotion is None]
            if quiet:
                wrong = rng.choice(quiet)
                self._misplace(plan, plan.piece_on(wrong.from_square), cell(wrong.to_square), hold_s, kind)
            else:
                kind = "wrong-square"
        if kind == "wrong-square":
            pid, target = self._wrong_square(plan, board)
            self._misplace(plan, pid, target, hold_s, kind)
        elif kind == "knocked-over":
            occupied = sorted(chess.SquareSet(board.occupied))
            centre = rng.choice(occupied)
            near = [s for s in occupied if chess.square_distance(s, centre) <= 1]
            knocked = rng.sample(near, min(len(near), rng.randint(2, 4)))
            origins = [(plan.piece_on(s), cell(s)) for s in knocked]
            for pid, _ in origins:
                plan.wait((0.0, 0.08))
                plan.lift(pid, "knocked over")
            for pid, origin in origins:
                landing = [
                    cell(s)
                    for s in chess.SQUARES
                    if cell_distance(cell(s), origin) == 1 and plan.is_empty(cell(s))
                ]
                if landing and rng.random() < 0.5:
                    plan.wait((0.02, 0.2))
                    plan.place(pid, rng.choice(landing), "knocked over: falls onto a neighbouring square")
            plan.wait(hold_s)
            plan.rearrange(origins, "knocked-over pieces are set right")
        step = plan.finish(self, None, None)
        table.check_matches(board)
        return step

    def _wrong_square(self, plan: _Plan, board: chess.Board) -> tuple[PieceId, Cell]:
        choices: list[tuple[int, chess.Square, chess.Square]] = []
        for square in chess.SquareSet(board.occupied_co[board.turn]):
            reach = {m.to_square for m in board.legal_moves if m.from_square == square}
            for target in chess.SquareSet(~board.occupied & chess.BB_ALL):
                if target not in reach:
                    choices.append((chess.square_distance(square, target), square, target))
        if not choices:
            raise StateError(f"no empty square to misplace a piece on in {board.fen()!r}")
        nearest = min(choices)[0]
        square, target = self.rng.choice([(s, t) for d, s, t in choices if d <= max(nearest, 2)])
        return plan.piece_on(square), self.layout.square_cell(target)

    def _misplace(self, plan: _Plan, pid: PieceId, target: Cell, hold_s: Span, kind: str) -> None:
        origin = plan.cell_of[pid]
        assert origin is not None
        plan.pick(pid, f"{kind}: an illegal move")
        plan.put(pid, target, f"{kind}: an illegal move")
        plan.wait(hold_s)
        plan.pick(pid, f"{kind}: put back")
        plan.put(pid, origin, f"{kind}: put back")

    def _apply(self, relocations: Sequence[tuple[PieceId, Cell, Cell]]) -> None:
        """Move the table's pieces to their new cells, parking one aside when two swap places."""
        assert self.table is not None
        table, layout = self.table, self.layout
        pending = [(pid, layout.cell_node(to)) for pid, _, to in relocations]
        while pending:
            ready = [item for item in pending if table.piece_at(item[1]) is None]
            for item in ready:
                table.relocate(*item)
                pending.remove(item)
            if not ready:
                free = [c for c in layout.free_cells() if table.piece_at(layout.cell_node(c)) is None]
                if not free:
                    raise NoRoomError("no free cell to park a piece on while two pieces swap places")
                table.relocate(pending[0][0], layout.cell_node(free[0]))

    def perform(
        self,
        world: SimWorld,
        actions: Iterable[HandAction],
        *,
        realtime: bool = False,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """Apply actions to a simulated world; see :func:`perform`."""
        perform(world, actions, realtime=realtime, sleep=sleep)


def perform(
    world: SimWorld,
    actions: Iterable[HandAction],
    *,
    realtime: bool = False,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Apply hand actions to the world's twin: a lift takes the piece off the table, a place puts it at
    the cell's centre. With ``realtime`` the call sleeps between actions as their times say, so
    simulated sensors reading the twin see the hand at work.

    Pieces are found by id, else by symbol at the cell. Raises
    :class:`~chessatron.errors.MissingPieceError` when a lift finds no such piece or a place has none in
    hand.
    """
    layout = world.layout
    held: dict[str, TwinPiece] = {}
    previous: float | None = None
    for action in actions:
        if realtime and previous is not None and action.t > previous:
            sleep(action.t - previous)
        previous = action.t
        x, y = layout.node_mm(layout.cell_node(action.cell))
        with world.lock:
            if action.kind == "lift":
                pieces = world.twin.pieces
                found = pieces.get(action.piece_id)
                if found is None or math.dist(found.xy, (x, y)) > SENSOR_RANGE_MM:
                    found = next(
                        (
                            p
                            for p in pieces.values()
                            if p.symbol == action.piece_symbol and math.dist(p.xy, (x, y)) <= SENSOR_RANGE_MM
                        ),
                        None,
                    )
                if found is None:
                    raise MissingPieceError(
                        f"no {action.piece_symbol!r} on cell {action.cell!r} to lift ({action.note})"
                    )
                held[found.id] = world.twin.lift(found.id)
            else:
                pid = action.piece_id if action.piece_id in held else None
                pid = pid or next((p.id for p in held.values() if p.symbol == action.piece_symbol), None)
                if pid is None:
                    raise MissingPieceError(
                        f"the hand holds no {action.piece_symbol!r} to place on cell {action.cell!r}; "
                        "lift it first"
                    )
                piece = held.pop(pid)
                world.twin.place(TwinPiece(piece.id, piece.symbol, x, y))
