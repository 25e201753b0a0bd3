"""A simulated hand: how people move pieces on a board that has one occupancy sensor per square.

Sensors see which cells hold a piece, never which piece, so what a recognizer must cope with is the
*order and timing* of lifts and placements. :class:`SimulatedHand` turns a chess move into timed
:class:`HandAction` events on table cells the way players make them, drawn at random from a
:class:`HandStyle`:

* sliders, kings and pawns may **slide** over intermediate squares (each seen for 30–120 ms) and
  **pause** mid-slide (0.1–1.5 s, often longer than a recognizer's settle time);
* captures take the **victim first**, the **mover first**, or by **displacement** (the victim is pushed
  off as the mover arrives; the target never reads empty); captured pieces go to their colour's
  capture zone, promoted pawns too. Displacement is used only when the mover has no other capture
  (see :func:`displacement_is_decidable`): otherwise the board shows just the mover's square emptied,
  which fits every capture it could make, and a real board would have to ask which piece was taken;
* **nudges** (a nearby piece lifted and put back, before or after the move) and **touches** (an own
  piece lifted, held, put back);
* castling **king first**, **rook first** or **both in hand**; en passant with the victim removed
  **before**, **between** or **after**; promotions with the piece taken from the **reserve**, chosen at a
  **prompt** (a :class:`~chessatron.sim.trace.PromotionChoice`), or left to the recognizer's **default**;
* replies inside one settle window (**quick-reply**) and one-scan **flicker** on random cells.

:class:`Scenario` strings moves, takebacks, illegal actions and a new game into one session and samples
it like a scanner into a :class:`GeneratedTrace`: the trace entries and the ground truth (expected move
list, behaviours per ply, the time of each ply's last sensor change). The ``trace_for_*`` functions are
one-call shortcuts.

>>> import random
>>> e4 = chess.Move.from_uci("e2e4")
>>> result = trace_for_moves(
...     chess.Board(), [e4], rng=random.Random(1), style=HandStyle.calm(), layout=Layout.default()
... )
>>> result.entries[-1].occupied == result.board().occupied, result.plies[0].san
(True, 'e4')
"""

from __future__ import annotations

import bisect
import logging
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, TypeAlias, get_args

import chess

from ..errors import ConfigError, IllegalMoveError, MissingPieceError, NoRoomError, StateError
from ..layout import Cell, Layout
from ..table import PhysicalPiece, PieceId, Table
from ..twin import TwinPiece
from .trace import PROMOTION_LETTERS, PromotionChoice, Snapshot, TableSnapshot, TraceEntry, board_bits
from .world import SENSOR_RANGE_MM, SimWorld

LOGGER = logging.getLogger(__name__)

Span: TypeAlias = tuple[float, float]
"""A range of seconds ``(shortest, longest)``; a value is drawn uniformly from it."""

Behaviour = Literal[
    "slide",
    "pause",
    "capture-victim-first",
    "capture-mover-first",
    "displacement",
    "nudge-before",
    "nudge-after",
    "touch",
    "flicker",
    "castle-king-first",
    "castle-rook-first",
    "castle-both-hands",
    "ep-victim-before",
    "ep-victim-between",
    "ep-victim-after",
    "promote-reserve",
    "promote-prompt",
    "promote-default",
    "quick-reply",
]
BEHAVIOURS: tuple[Behaviour, ...] = get_args(Behaviour)

#: Behaviours of which exactly one happens whenever the move allows it; their style fields are weights.
GROUPS: dict[str, tuple[Behaviour, ...]] = {
    "capture": ("capture-victim-first", "capture-mover-first", "displacement"),
    "castling": ("castle-king-first", "castle-rook-first", "castle-both-hands"),
    "en passant": ("ep-victim-before", "ep-victim-between", "ep-victim-after"),
    "promotion": ("promote-reserve", "promote-prompt", "promote-default"),
}
#: Blips per second that :meth:`HandStyle.only` gives ``flicker``: a few in every ply.
FORCED_FLICKER_PER_S = 1.0
StepKind = Literal["move", "takeback", "illegal", "new-game"]
IllegalKind = Literal["wrong-square", "wrong-side", "knocked-over"]
_PROBABILITIES = (
    "slide",
    "pause",
    "nudge_before",
    "nudge_after",
    "touch",
    "quick_reply",
    "keep_victim_in_hand",
    "pawn_visits_promotion_square",
)


def _field(behaviour: Behaviour) -> str:
    return behaviour.replace("-", "_")


@dataclass(frozen=True)
class HandStyle:
    """How a player handles pieces: timings in seconds, probabilities per opportunity, and weights for
    the behaviours of which one must happen (see :data:`GROUPS`). The defaults are :meth:`calm`.

    Raises :class:`~chessatron.errors.ConfigError` for a negative or inverted span, a probability
    outside 0..1, or a group whose weights are all zero.
    """

    reach_s: Span = (0.3, 0.8)
    """From the start of a turn to the hand reaching the first piece."""
    lift_s: Span = (0.08, 0.25)
    """From the hand reaching a piece to its sensor losing it."""
    carry_s: Span = (0.25, 0.5)
    """A lifted piece in the air, plus ``carry_per_square_s`` per square of distance."""
    carry_per_square_s: float = 0.05
    place_s: Span = (0.08, 0.2)
    """After a piece is set down, before the hand moves on."""
    slide_step_s: Span = (0.03, 0.12)
    """A sliding piece seen over each intermediate square."""
    slide_gap_s: Span = (0.02, 0.06)
    """A sliding piece between two squares, seen by neither sensor."""
    pause_s: Span = (0.1, 1.5)
    """A slide paused over one intermediate square."""
    push_s: Span = (0.0, 0.04)
    """Displacement: both pieces on the target before the victim is pushed off."""
    swap_s: Span = (0.08, 0.25)
    """Mover first after a slide: from the victim leaving its square to the mover set down there (the
    hand must clear the victim out of the way first; a shorter gap would read like a displacement)."""
    nudge_s: Span = (0.06, 0.25)
    """A nudged piece off its sensor."""
    touch_s: Span = (0.4, 2.0)
    """A touched piece held in the air before it is put back."""
    quick_reply_s: Span = (0.0, 0.1)
    """A quick reply: from the last board change of a ply to the start of the next."""
    prompt_s: Span = (0.3, 1.2)
    """From the end of a promotion to the choice at the prompt."""

    slide: float = 0.0
    """Probability that a piece with intermediate squares on its way glides over them."""
    pause: float = 0.0
    """Probability that a slide pauses over one intermediate square."""
    nudge_before: float = 0.0
    nudge_after: float = 0.0
    touch: float = 0.0
    quick_reply: float = 0.0
    """Probability that a ply follows the one before inside a settle window."""
    flicker: float = 0.0
    """One-scan blips on random cells, per second of trace."""
    keep_victim_in_hand: float = 0.0
    """Victim first: probability that the victim stays in hand until the mover is down."""
    pawn_visits_promotion_square: float = 1.0
    """Probability that a promoting pawn is put on the last rank before it is exchanged."""

    capture_victim_first: float = 1.0
    capture_mover_first: float = 0.0
    displacement: float = 0.0
    castle_king_first: float = 1.0
    castle_rook_first: float = 0.0
    castle_both_hands: float = 0.0
    ep_victim_before: float = 0.0
    ep_victim_between: float = 0.0
    ep_victim_after: float = 1.0
    promote_reserve: float = 0.0
    promote_prompt: float = 1.0
    promote_default: float = 0.0
    default_promotion: str = "q"
    """The piece the recognizer promotes to when nobody chose: ``promote-default`` is used only then."""

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if isinstance(value, tuple):
                low, high = value
                if not (math.isfinite(low) and math.isfinite(high) and 0 <= low <= high):
                    raise ConfigError(f"{spec.name} is {value!r}; use (shortest, longest) seconds, 0 <= both")
            elif isinstance(value, float) and not (math.isfinite(value) and value >= 0):
                raise ConfigError(f"{spec.name} is {value!r}; it must be zero or positive")
        for name in _PROBABILITIES:
            if getattr(self, name) > 1:
                raise ConfigError(f"{name} is {getattr(self, name)!r}; a probability is at most 1")
        for group, members in GROUPS.items():
            if not sum(getattr(self, _field(b)) for b in members) > 0:
                raise ConfigError(f"the {group} weights are all zero; give one of {members!r} a weight")
        if self.default_promotion not in PROMOTION_LETTERS:
            raise ConfigError(f"default_promotion is {self.default_promotion!r}; use one of q, r, b, n")

    @classmethod
    def calm(cls) -> HandStyle:
        """Deliberate moves and no noise: lift, carry, place; victim first; king first; prompt."""
        return cls()

    @classmethod
    def human(cls) -> HandStyle:
        """A realistic mix of every behaviour."""
        return cls(
            reach_s=(0.2, 1.0),
            carry_s=(0.15, 0.6),
            slide=0.45,
            pause=0.2,
            nudge_before=0.05,
            nudge_after=0.1,
            touch=0.05,
            quick_reply=0.06,
            flicker=0.05,
            keep_victim_in_hand=0.3,
            pawn_visits_promotion_square=0.6,
            capture_victim_first=0.45,
            capture_mover_first=0.3,
            displacement=0.25,
            castle_king_first=0.6,
            castle_rook_first=0.2,
            castle_both_hands=0.2,
            ep_victim_before=0.25,
            ep_victim_between=0.25,
            ep_victim_after=0.5,
            promote_reserve=0.4,
            promote_prompt=0.4,
            promote_default=0.2,
        )

    @classmethod
    def only(cls, behaviour: Behaviour) -> HandStyle:
        """:meth:`calm` with one behaviour forced whenever a move allows it (``pause`` forces slides too,
        ``flicker`` gives :data:`FORCED_FLICKER_PER_S` blips a second).

        >>> HandStyle.only("castle-rook-first").castle_king_first
        0.0
        """
        if behaviour not in BEHAVIOURS:
            raise ConfigError(f"unknown behaviour {behaviour!r}; use one of {', '.join(BEHAVIOURS)}")
        changes: dict[str, Any] = {}
        for members in GROUPS.values():
            if behaviour in members:
                changes.update({_field(b): 0.0 for b in members})
        changes[_field(behaviour)] = FORCED_FLICKER_PER_S if behaviour == "flicker" else 1.0
        if behaviour == "pause":
            changes["slide"] = 1.0
        return replace(cls.calm(), **changes)

    def weight(self, behaviour: Behaviour) -> float:
        """The style's probability or weight for a behaviour (blips per second for ``flicker``)."""
        return float(getattr(self, _field(behaviour)))


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
    """The physical piece (its :class:`~chessatron.table.Table` id), when known."""


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


def _distance(a: Cell, b: Cell) -> int:
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
        self.wait(self.style.carry_s, self.style.carry_per_square_s * _distance(self.came_from[pid], cell))
        self.place(pid, cell, note)
        self.wait(self.style.place_s)

    def lift_and_put_back(self, pid: PieceId, span: Span, note: str) -> None:
        cell = self.cell_of[pid]
        assert cell is not None
        self.pick(pid, note)
        self.wait(span)
        self.place(pid, cell, note)
        self.wait(self.style.place_s)

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
        if victim is not None and order == "mover-first":
            self.pick(victim, "capture: the victim is taken off with the mover in hand")
            victim_in_hand = True
        if path and victim is not None and order == "mover-first":
            self.wait(self.style.swap_s)
        elif path:
            self.wait(self.style.slide_gap_s)
        else:
            self.wait(self.style.carry_s, self.style.carry_per_square_s * _distance(self.came_from[pid], to))
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


def _capture_orders(board: chess.Board, move: chess.Move) -> tuple[Behaviour, ...]:
    """The capture orders a player may use for ``move``: an undecidable displacement would leave the
    board asking which piece was taken (and a trace has no way to answer), so the victim is taken off
    in view instead."""
    if displacement_is_decidable(board, move):
        return GROUPS["capture"]
    return tuple(b for b in GROUPS["capture"] if b != "displacement")


class SimulatedHand:
    """A player's hand on a table: turns moves into timed :class:`HandAction` events and keeps the
    :class:`~chessatron.table.Table` in step (captured pieces to their zone, promotion pieces from the
    reserve).

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
            self._nudge(plan, (move.from_square, move.to_square), {mover, victim}, "nudge-before")
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
            group = GROUPS["en passant"] if board.is_en_passant(move) else _capture_orders(board, move)
            order = plan.choose(group)
            plan.behaviours.append(order)
            plan.travel(mover, square_cell(move.to_square), "the move", victim, _CAPTURE_ORDER[order])
        else:
            plan.travel(mover, square_cell(move.to_square), "the move")
        if rng.random() < style.nudge_after:
            self._nudge(plan, (move.to_square,), set(), "nudge-after")
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

    def _nudge(
        self, plan: _Plan, around: Iterable[chess.Square], exclude: set[PieceId | None], kind: Behaviour
    ) -> None:
        centres = list(around)
        near = [s for s in chess.SQUARES if any(chess.square_distance(s, c) <= 1 for c in centres)]
        candidates = sorted(
            {pid for s in near for pid in plan.at.get(self.layout.square_cell(s), []) if pid not in exclude}
        )
        if candidates:
            plan.lift_and_put_back(
                self.rng.choice(candidates), self.style.nudge_s, f"{kind}: adjusts a piece"
            )
            plan.behaviours.append(kind)

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
        # Chess960: a piece cannot go down where the other still stands.
        if (order == "castle-king-first" and not plan.is_empty(king[1])) or (
            order == "castle-rook-first" and not plan.is_empty(rook[1])
        ):
            order = "castle-both-hands"
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
            for pid, target, note in (first, second) if self.rng.random() < 0.5 else (second, first):
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
            capture = plan.choose(_capture_orders(board, move))
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
                    if _distance(cell(s), origin) == 1 and plan.is_empty(cell(s))
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


# --- whole sessions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlyTruth:
    """The ground truth of one step of a generated trace."""

    kind: StepKind
    move: chess.Move | None
    """The move played or taken back; None for illegal actions and a new game."""
    san: str
    behaviours: tuple[Behaviour, ...]
    start_t: float
    """When the player started (the first event comes a little later)."""
    last_change_t: float
    """The last board change of the step, or its promotion choice if later: recognition latency counts
    from here."""


@dataclass(frozen=True)
class GeneratedTrace:
    """A generated trace and what a perfect recognizer would make of it."""

    entries: tuple[TraceEntry, ...]
    game_fen: str
    """The start of the game that :attr:`moves` belong to (the new game's after a reset)."""
    chess960: bool
    moves: tuple[chess.Move, ...]
    """The expected move list at the end of the trace."""
    plies: tuple[PlyTruth, ...]

    def board(self) -> chess.Board:
        """The game as it should stand at the end of the trace."""
        board = chess.Board(self.game_fen, chess960=self.chess960)
        for move in self.moves:
            board.push(move)
        return board


def _check_span(name: str, span: Span) -> None:
    low, high = span
    if not (math.isfinite(low) and math.isfinite(high) and 0 <= low <= high):
        raise ConfigError(f"{name} is {span!r}; use (shortest, longest) seconds, 0 <= both")


class Scenario:
    """A session at the table played by simulated hands on both sides: moves, takebacks, illegal actions
    and new games, one after another, then sampled by a scanner with :meth:`trace`.

    Between steps the table rests for a time drawn from ``settle_gap_s`` (the opponent thinking), or,
    with the style's ``quick_reply`` probability, for less than a settle window after the last board
    change. ``board`` is copied, never changed.

    >>> import random
    >>> scenario = Scenario(
    ...     chess.Board(), rng=random.Random(3), style=HandStyle.calm(), layout=Layout.default()
    ... )
    >>> scenario.play([chess.Move.from_uci("e2e4"), chess.Move.from_uci("e7e5")])
    >>> scenario.take_back(1)
    >>> [m.uci() for m in scenario.trace().moves]
    ['e2e4']
    """

    def __init__(
        self,
        board: chess.Board,
        *,
        rng: random.Random,
        style: HandStyle,
        layout: Layout,
        settle_gap_s: Span = (0.6, 2.5),
        table_trace: bool = False,
        table: Table | None = None,
    ) -> None:
        _check_span("settle_gap_s", settle_gap_s)
        self.rng, self.style, self.layout = rng, style, layout
        self.settle_gap_s = settle_gap_s
        self.table_trace = table_trace
        self.board = board.copy(stack=False)
        self._start = self.board.copy()
        self.table = table if table is not None else Table.from_board(layout, self.board)
        self.table.check_matches(self.board)
        self.hand = SimulatedHand(rng, style, layout=layout, table=self.table, table_visible=table_trace)
        self._initial: Counter[Cell] = Counter(
            cell for cell in map(layout.node_cell, self.table.occupied_nodes()) if cell is not None
        )
        self.game_fen = self.board.fen()
        self.moves: list[chess.Move] = []
        self._history: list[tuple[HandStep, str]] = []
        self._actions: list[HandAction] = []
        self._choices: list[PromotionChoice] = []
        self._plies: list[PlyTruth] = []
        self.t = 0.0
        self._last_board_t = 0.0

    def __repr__(self) -> str:
        return f"<Scenario {len(self._plies)} steps, {self.t:.1f} s, at {self.board.fen()!r}>"

    def _record(self, kind: StepKind, step: HandStep, san: str, extra: tuple[Behaviour, ...] = ()) -> None:
        self._actions.extend(step.actions)
        if step.promotion_choice is not None:
            self._choices.append(step.promotion_choice)
        self._plies.append(
            PlyTruth(kind, step.move, san, step.behaviours + extra, step.start_t, step.last_change_t)
        )
        self.t = max(self.t, step.end_t)
        self._last_board_t = step.last_change_t

    def _gap(self) -> float:
        return self.t + self.rng.uniform(*self.settle_gap_s)

    def play(self, moves: Iterable[chess.Move]) -> None:
        """Both sides make their moves.

        Raises :class:`~chessatron.errors.IllegalMoveError` for an illegal move."""
        for move in moves:
            if not self.board.is_legal(move):
                raise IllegalMoveError(f"{move.uci()!r} is not legal in {self.board.fen()!r}")
            previous = self._plies[-1] if self._plies else None
            quick = (
                previous is not None
                and previous.kind == "move"
                and not self._choices_after(previous.start_t)
                and self.rng.random() < self.style.quick_reply
            )
            start = self._last_board_t + self.rng.uniform(*self.style.quick_reply_s) if quick else self._gap()
            step = self.hand.play(self.board, move, start, hurry=quick)
            san = self.board.san(move)
            self.board.push(move)
            self.moves.append(move)
            self._history.append((step, san))
            self._record("move", step, san, ("quick-reply",) if quick else ())

    def _choices_after(self, t: float) -> bool:
        return any(choice.t >= t for choice in self._choices)

    def take_back(self, plies: int = 1) -> None:
        """The player takes back the last ``plies`` plies: moved pieces go back, captured pieces return
        from the zone, promoted pieces to the reserve. Raises :class:`~chessatron.errors.IllegalMoveError`
        for more plies than were played."""
        if not 1 <= plies <= len(self.moves):
            raise IllegalMoveError(f"cannot take back {plies} plies: {len(self.moves)} were played")
        start, hurry = self._gap(), False
        for _ in range(plies):
            done, san = self._history.pop()
            move = self.moves.pop()
            self.board.pop()
            targets = [(pid, origin) for pid, origin, _ in reversed(done.relocations)]
            step = self.hand.rearrange(targets, start, note=f"take back {san}", hurry=hurry)
            self.table.check_matches(self.board)
            self._record("takeback", replace(step, move=move), san)
            start, hurry = step.end_t, True

    def illegal(self, kind: IllegalKind = "wrong-square", hold_s: Span = (1.0, 3.0)) -> None:
        """An illegal action that is held, then undone; see :meth:`SimulatedHand.fumble`."""
        _check_span("hold_s", hold_s)
        step = self.hand.fumble(self.board, kind, self._gap(), hold_s)
        self._record("illegal", step, "")

    def new_game(self, start: chess.Board | None = None) -> None:
        """The start arrangement (default: the position this scenario began in) is set up again:
        pieces back to their squares, spares back to the reserve. Later moves belong to the new game."""
        start = self._start.copy() if start is None else start.copy(stack=False)
        reference = Table.from_board(self.layout, start)
        wanted: dict[str, list[Cell]] = {}
        for piece in reference:
            wanted.setdefault(piece.symbol, []).append(self._cell(reference, piece.id))
        targets: list[tuple[PieceId, Cell]] = []
        for symbol, cells in wanted.items():
            have = sorted(piece.id for piece in self.table if piece.symbol == symbol)
            if len(have) != len(cells):
                raise StateError(f"the table has {len(have)} {symbol!r} pieces; the start needs {len(cells)}")
            free = set(cells)
            movers = []
            for pid in have:
                here = self._cell(self.table, pid)
                if here in free:
                    free.remove(here)
                else:
                    movers.append((pid, here))
            for pid, here in movers:
                best = min(free, key=lambda c: (_distance(c, here), c))
                free.remove(best)
                targets.append((pid, best))
        kind = self.layout.cell_kind
        targets.sort(key=lambda item: (kind(item[1]) == "board", item[1][1], item[1][0]))
        step = self.hand.rearrange(targets, self._gap(), note="set up a new game")
        self.board = start
        self.table.check_matches(self.board)
        self.game_fen = start.fen()
        self.moves, self._history = [], []
        self._record("new-game", step, "")

    @staticmethod
    def _cell(table: Table, pid: PieceId) -> Cell:
        cell = table.layout.node_cell(table.node_of(pid))
        if cell is None:
            raise StateError(f"piece {pid!r} stands between cells; centre it first")
        return cell

    def trace(self, *, scan_s: float = 0.02, tail_s: float = 1.0) -> GeneratedTrace:
        """Sample the session every ``scan_s`` seconds from 0 to ``tail_s`` after the hands are done,
        flickering cells as the style says; promotion choices are interleaved in time order."""
        if not (math.isfinite(scan_s) and scan_s > 0):
            raise ConfigError(f"scan_s is {scan_s!r}; it must be a positive number of seconds")
        layout, rng = self.layout, self.rng
        actions = sorted(self._actions, key=lambda a: a.t)
        choices = sorted(self._choices, key=lambda c: c.t)
        counts = Counter(self._initial)
        occupied = {cell for cell, n in counts.items() if n}
        bit = {layout.square_cell(s): chess.BB_SQUARES[s] for s in chess.SQUARES}
        bits = board_bits(occupied, layout)
        end_t = max([self.t, tail_s] + [a.t for a in actions]) + tail_s
        noise_cells = list(layout.cells()) if self.table_trace else list(bit)
        flicker_p = min(1.0, self.style.flicker * scan_s)
        flickered: set[int] = set()
        starts = [ply.start_t for ply in self._plies]
        entries: list[TraceEntry] = []
        i = j = 0
        for k in range(math.floor(end_t / scan_s + 1e-9) + 1):
            t = round(k * scan_s, 6)
            while i < len(actions) and actions[i].t <= t:
                action = actions[i]
                before = counts[action.cell]
                counts[action.cell] += 1 if action.kind == "place" else -1
                if counts[action.cell] < 0:
                    raise StateError(f"{action!r} lifts from an empty cell; the hand's timeline is broken")
                if (before == 0) != (counts[action.cell] == 0):
                    occupied ^= {action.cell}
                    bits ^= bit.get(action.cell, 0)
                i += 1
            while j < len(choices) and choices[j].t <= t:
                entries.append(choices[j])
                j += 1
            noise: Cell | None = None
            if flicker_p and rng.random() < flicker_p:
                noise = rng.choice(noise_cells)
                if starts:
                    flickered.add(max(0, bisect.bisect_right(starts, t) - 1))
            if self.table_trace:
                seen = frozenset(occupied) if noise is None else frozenset(occupied ^ {noise})
                entries.append(TableSnapshot(t, seen))
            else:
                entries.append(Snapshot(t, bits if noise is None else bits ^ bit[noise]))
        entries.extend(choices[j:])
        plies = tuple(
            replace(ply, behaviours=(*ply.behaviours, "flicker")) if n in flickered else ply
            for n, ply in enumerate(self._plies)
        )
        return GeneratedTrace(
            entries=tuple(entries),
            game_fen=self.game_fen,
            chess960=self.board.chess960,
            moves=tuple(self.moves),
            plies=plies,
        )


def _scenario(
    board: chess.Board,
    *,
    rng: random.Random,
    style: HandStyle,
    layout: Layout,
    settle_gap_s: Span,
    table_trace: bool,
    moves: Sequence[chess.Move],
) -> Scenario:
    scenario = Scenario(
        board, rng=rng, style=style, layout=layout, settle_gap_s=settle_gap_s, table_trace=table_trace
    )
    scenario.play(moves)
    return scenario


def trace_for_moves(
    board: chess.Board,
    moves: Sequence[chess.Move],
    *,
    rng: random.Random,
    style: HandStyle,
    layout: Layout,
    scan_s: float = 0.02,
    settle_gap_s: Span = (0.6, 2.5),
    table_trace: bool = False,
) -> GeneratedTrace:
    """A game played from ``board`` by hands on both sides, as a scanner every ``scan_s`` s reports it
    (whole-table snapshots with ``table_trace``)."""
    scenario = _scenario(
        board,
        rng=rng,
        style=style,
        layout=layout,
        settle_gap_s=settle_gap_s,
        table_trace=table_trace,
        moves=moves,
    )
    return scenario.trace(scan_s=scan_s)


def trace_for_takeback(
    board: chess.Board,
    moves: Sequence[chess.Move],
    plies: int = 1,
    *,
    rng: random.Random,
    style: HandStyle,
    layout: Layout,
    scan_s: float = 0.02,
    settle_gap_s: Span = (0.6, 2.5),
    table_trace: bool = False,
) -> GeneratedTrace:
    """``moves`` played, then the last ``plies`` taken back; the expected moves are the rest."""
    scenario = _scenario(
        board,
        rng=rng,
        style=style,
        layout=layout,
        settle_gap_s=settle_gap_s,
        table_trace=table_trace,
        moves=moves,
    )
    scenario.take_back(plies)
    return scenario.trace(scan_s=scan_s)


def trace_for_illegal(
    board: chess.Board,
    moves: Sequence[chess.Move],
    kind: IllegalKind = "wrong-square",
    *,
    rng: random.Random,
    style: HandStyle,
    layout: Layout,
    scan_s: float = 0.02,
    settle_gap_s: Span = (0.6, 2.5),
    table_trace: bool = False,
    hold_s: Span = (1.0, 3.0),
) -> GeneratedTrace:
    """``moves`` played, then an illegal action held for ``hold_s`` and undone; the expected moves are
    ``moves``."""
    scenario = _scenario(
        board,
        rng=rng,
        style=style,
        layout=layout,
        settle_gap_s=settle_gap_s,
        table_trace=table_trace,
        moves=moves,
    )
    scenario.illegal(kind, hold_s)
    return scenario.trace(scan_s=scan_s)


def trace_for_new_game_after(
    board: chess.Board,
    moves: Sequence[chess.Move],
    *,
    rng: random.Random,
    style: HandStyle,
    layout: Layout,
    scan_s: float = 0.02,
    settle_gap_s: Span = (0.6, 2.5),
    table_trace: bool = False,
) -> GeneratedTrace:
    """``moves`` played, then the start arrangement of ``board`` set up again; the expected moves are
    none, in a new game from ``board``."""
    scenario = _scenario(
        board,
        rng=rng,
        style=style,
        layout=layout,
        settle_gap_s=settle_gap_s,
        table_trace=table_trace,
        moves=moves,
    )
    scenario.new_game()
    return scenario.trace(scan_s=scan_s)
