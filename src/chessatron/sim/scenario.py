"""Whole sessions at a sensor table, played by simulated hands, sampled into traces with their truth.

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
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import chess

from ..errors import ConfigError, IllegalMoveError, StateError
from ..planning.layout import Cell, Layout
from ..planning.table import PieceId, Table
from .hand import HandAction, HandStep, SimulatedHand, cell_distance
from .hand_style import Behaviour, HandStyle, IllegalKind, Span
from .trace import PromotionChoice, Snapshot, TableSnapshot, TraceEntry, board_bits

StepKind = Literal["move", "takeback", "illegal", "new-game"]


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
                best = min(free, key=lambda c: (cell_distance(c, here), c))
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
        bounced: set[int] = set()
        starts = [ply.start_t for ply in self._plies]
        entries: list[TraceEntry] = []
        bouncing: set[Cell] = set()
        """Cells that changed at the last scan and read their old state once more at this one."""
        i = j = 0
        for k in range(math.floor(end_t / scan_s + 1e-9) + 1):
            t = round(k * scan_s, 6)
            noise = set(bouncing)
            bouncing = set()
            while i < len(actions) and actions[i].t <= t:
                action = actions[i]
                before = counts[action.cell]
                counts[action.cell] += 1 if action.kind == "place" else -1
                if counts[action.cell] < 0:
                    raise StateError(f"{action!r} lifts from an empty cell; the hand's timeline is broken")
                if (before == 0) != (counts[action.cell] == 0):
                    occupied ^= {action.cell}
                    bits ^= bit.get(action.cell, 0)
                    noise.discard(action.cell)
                    if self.style.bounce and rng.random() < self.style.bounce and action.cell in noise_cells:
                        bouncing.add(action.cell)
                        if starts:
                            bounced.add(max(0, bisect.bisect_right(starts, t) - 1))
                i += 1
            while j < len(choices) and choices[j].t <= t:
                entries.append(choices[j])
                j += 1
            if flicker_p and rng.random() < flicker_p:
                noise ^= {rng.choice(noise_cells)}
                if starts:
                    flickered.add(max(0, bisect.bisect_right(starts, t) - 1))
            if self.table_trace:
                entries.append(TableSnapshot(t, frozenset(occupied ^ noise)))
            else:
                entries.append(Snapshot(t, bits ^ board_bits(noise, layout)))
        entries.extend(choices[j:])
        plies = tuple(
            replace(
                ply,
                behaviours=(
                    *ply.behaviours,
                    *(("flicker",) if n in flickered else ()),
                    *(("bounce",) if n in bounced else ()),
                ),
            )
            for n, ply in enumerate(self._plies)
        )
        return GeneratedTrace(
            entries=tuple(entries),
            game_fen=self.game_fen,
            chess960=self.board.chess960,
            moves=tuple(self.moves),
            plies=plies,
        )


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
    then: Callable[[Scenario], object] | None = None,
) -> GeneratedTrace:
    """A game played from ``board`` by hands on both sides, as a scanner every ``scan_s`` s reports it
    (whole-table snapshots with ``table_trace``). ``then`` goes on from there with the scenario's other
    steps: ``lambda s: s.take_back(2)``, ``s.illegal("wrong-side", (1.0, 3.0))``, ``s.new_game()``."""
    scenario = Scenario(
        board, rng=rng, style=style, layout=layout, settle_gap_s=settle_gap_s, table_trace=table_trace
    )
    scenario.play(moves)
    if then is not None:
        then(scenario)
    return scenario.trace(scan_s=scan_s)
