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

import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

import chess

from ..errors import IllegalMoveError, MissingPieceError, NoRoomError, StateError
from ..planning.layout import Cell, Layout
from ..planning.table import PieceId, Table
from .hand_moves import (
    _CAPTURE_ORDER,
    HandAction,
    HandStep,
    MovePlan,
    cell_distance,
    displacement_is_decidable,
)
from .hand_style import GROUPS, HandStyle, IllegalKind, Span
from .trace import PromotionChoice
from .twin import TwinPiece
from .world import SENSOR_RANGE_MM, SimWorld

__all__ = ["HandAction", "HandStep", "SimulatedHand", "cell_distance", "displacement_is_decidable", "perform"]


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
        plan = MovePlan(self.rng, self.style, table, start_t)
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
        step = self._finish(plan, move, choice)
        after = board.copy(stack=False)
        after.push(move)
        table.check_matches(after)
        return step

    def _table_for(self, board: chess.Board) -> Table:
        if self.table is None:
            self.table = Table.from_board(self.layout, board)
        self.table.check_matches(board)
        return self.table

    def _castle(self, plan: MovePlan, board: chess.Board, move: chess.Move) -> None:
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
        self, plan: MovePlan, board: chess.Board, move: chess.Move, pawn: PieceId, victim: PieceId | None
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
        plan = MovePlan(self.rng, self.style, self.table, start_t)
        if not hurry:
            plan.wait(self.style.reach_s)
        plan.rearrange(targets, note)
        return self._finish(plan, None, None)

    def fumble(
        self, board: chess.Board, kind: IllegalKind, start_t: float, hold_s: Span = (1.0, 3.0)
    ) -> HandStep:
        """An illegal action, left for ``hold_s`` seconds and then undone, so the table shows ``board``
        again: a piece of the side to move on a square it cannot reach (``wrong-square``), a piece of
        the other side moved (``wrong-side``), or two to four neighbouring pieces knocked over, some
        onto neighbouring squares, and set right (``knocked-over``)."""
        table = self._table_for(board)
        plan = MovePlan(self.rng, self.style, table, start_t)
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
        step = self._finish(plan, None, None)
        table.check_matches(board)
        return step

    def _wrong_square(self, plan: MovePlan, board: chess.Board) -> tuple[PieceId, Cell]:
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

    def _misplace(self, plan: MovePlan, pid: PieceId, target: Cell, hold_s: Span, kind: str) -> None:
        origin = plan.cell_of[pid]
        assert origin is not None
        plan.pick(pid, f"{kind}: an illegal move")
        plan.put(pid, target, f"{kind}: an illegal move")
        plan.wait(hold_s)
        plan.pick(pid, f"{kind}: put back")
        plan.put(pid, origin, f"{kind}: put back")

    def _finish(self, plan: MovePlan, move: chess.Move | None, choice: PromotionChoice | None) -> HandStep:
        """The step ``plan`` made, with the table brought in step with it."""
        step = plan.finish(move, choice)
        self._apply(step.relocations)
        return step

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
