"""See the human's move from occupancy sensors.

The sensors say which squares hold a piece, never which piece. The recognizer keeps the game position as
the authority and the history of lift and place events since the last move, and commits a move once the
board has been still for the settle time, its occupancy matches a legal move **and** the event history
supports it:

* per-square debouncing: a change that does not last ``debounce_s`` (one-scan flicker) is no event;
* candidates: legal moves whose resulting occupancy is the board's; then a revision of the last move by
  the player who made it (a slide that paused on a legal square, rook-first castling after the rook move
  was shown); then two plies inside one settle window; then takebacks (when enabled); after a finished
  game, the start arrangement starts a new one;
* ranking: every square a piece must leave (the mover, the victim, king and rook) should have been seen
  empty; a capture's target must be filled again after the mover was lifted (a nudged neighbour is no
  capture); squares touched but not explained by the move are nudges and count against it. Capture by
  displacement (the victim pushed off, its square never empty) is the weakest explanation, taken only
  when nothing better fits;
* promotions take the piece the player took from a sensed reserve slot, else the one chosen at a prompt,
  else the configured default;
* anything else is an illegal action: no move is committed and :class:`Illegal` says which squares are
  missing or extra, paired, until the board matches the position again.

The recognizer is pure: it never sleeps or reads a clock; time comes with each snapshot, so a recorded
trace replays exactly and fast.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import chess

from .guidance import Guidance, guidance
from .layout import Cell, Layout

LOGGER = logging.getLogger(__name__)

#: Promotion pieces by letter.
PROMOTIONS = {"q": chess.QUEEN, "r": chess.ROOK, "b": chess.BISHOP, "n": chess.KNIGHT}


# --- what the recognizer reports -------------------------------------------------------------------


@dataclass(frozen=True)
class Committed:
    """One or more plies were recognised and pushed on the game."""

    t: float
    moves: tuple[chess.Move, ...]
    sans: tuple[str, ...]


@dataclass(frozen=True)
class Revised:
    """The last committed move was replaced: the same player went on (a paused slide, rook-first castling)."""

    t: float
    undone: chess.Move
    moves: tuple[chess.Move, ...]
    sans: tuple[str, ...]


@dataclass(frozen=True)
class TookBack:
    t: float
    plies: int


@dataclass(frozen=True)
class NewGame:
    """The start arrangement was set up after a finished game."""

    t: float


@dataclass(frozen=True)
class PieceLifted:
    """A piece of the side to move left its square: light its legal destinations."""

    t: float
    square: chess.Square
    destinations: frozenset[chess.Square]
    captures: frozenset[chess.Square]


@dataclass(frozen=True)
class Illegal:
    """The still board matches no legal action; nothing is committed until it matches again."""

    t: float
    reason: str
    guidance: Guidance


@dataclass(frozen=True)
class Resolved:
    """After an illegal action, the board matches the position again."""

    t: float


RecognizerEvent = Committed | Revised | TookBack | NewGame | PieceLifted | Illegal | Resolved


@dataclass(frozen=True)
class SquareEvent:
    """A debounced change of one square: ``t`` is when it first appeared."""

    t: float
    square: chess.Square
    occupied: bool


@dataclass
class _Candidate:
    moves: tuple[chess.Move, ...]
    score: tuple[float, ...]
    kind: str = "forward"  # forward, revision, takeback
    undo: int = 0


@dataclass
class Recognizer:
    """Turns timestamped occupancy snapshots into moves of a game.

    >>> r = Recognizer(chess.Board())
    >>> start = chess.Board().occupied
    >>> _ = r.feed_occupancy(0.0, start)
    >>> _ = r.feed_occupancy(0.10, start & ~chess.BB_E2)
    >>> _ = r.feed_occupancy(0.20, (start & ~chess.BB_E2) | chess.BB_E4)
    >>> [e for e in r.feed_occupancy(0.60, (start & ~chess.BB_E2) | chess.BB_E4) if isinstance(e, Committed)]
    [Committed(t=0.6, moves=(Move.from_uci('e2e4'),), sans=('e4',))]
    """

    board: chess.Board
    settle_s: float = 0.3
    debounce_s: float = 0.03
    takebacks: bool = False
    promotion_default: str = "q"
    layout: Layout | None = None
    """Needed only for whole-table snapshots (reserve slots tell the promotion piece)."""
    start_board: chess.Board | None = None
    """The arrangement that starts a new game after this one ends (default: the game's start)."""
    illegal_after_s: float = 1.0
    """A still board that matches nothing is reported only after this long: a player pausing halfway
    through castling or a capture is not shown an error."""
    displacement_after_s: float = 2.5
    """A capture whose victim was never seen leaving (pushed off by the mover) looks exactly like a
    piece held in the air over its square, so it is committed only after the board is still this long."""

    history: list[SquareEvent] = field(default_factory=list)
    stable: int = 0
    _raw: int = 0
    _pending: dict[chess.Square, float] = field(default_factory=dict)
    _last_event_t: float = float("-inf")
    _evaluated: bool = True
    _error: Illegal | None = None
    _revisable: tuple[chess.Board, tuple[chess.Move, ...]] | None = None
    _revision_history: list[SquareEvent] = field(default_factory=list)
    _cache_key: tuple[int, int] | None = None
    _cached: dict[str, list[_Candidate]] = field(default_factory=dict)
    _reserve_empty_since: dict[Cell, float] = field(default_factory=dict)
    _reserve_baseline: frozenset[Cell] = frozenset()
    _now: float = 0.0
    _promotion_choice: str | None = None
    _table_cells: frozenset[Cell] | None = None
    _started: bool = False

    def __post_init__(self) -> None:
        self.board = self.board.copy()
        if self.start_board is None:
            self.start_board = self.board.copy(stack=False)
        if self.promotion_default not in PROMOTIONS:
            raise ValueError(f"promotion_default {self.promotion_default!r} is not one of q, r, b, n")

    # --- input -------------------------------------------------------------------------------------

    @property
    def expected(self) -> int:
        """The occupancy the position asks for."""
        return int(self.board.occupied)

    @property
    def in_error(self) -> bool:
        return self._error is not None

    def choose_promotion(self, t: float, piece: str) -> list[RecognizerEvent]:
        """The player picked a promotion piece (at a prompt)."""
        if piece.lower() not in PROMOTIONS:
            raise ValueError(f"promotion piece {piece!r} is not one of q, r, b, n")
        wanted = PROMOTIONS[piece.lower()]
        if self._revisable is not None and not self.history:
            # The answer came after the board settled and a default was committed: change the piece.
            moves = self._revisable[1]
            last = moves[-1]
            if last.promotion is not None and last.promotion != wanted:
                fixed = chess.Move(last.from_square, last.to_square, wanted)
                return self._commit(t, _Candidate((*moves[:-1], fixed), (0.0,), "revision", len(moves)))
        self._promotion_choice = piece.lower()
        return self._tick(t)

    def feed_table(self, t: float, cells: Iterable[Cell]) -> list[RecognizerEvent]:
        """A whole-table snapshot: the board part is recognised; reserve slots that empty tell which
        piece a player took for a promotion."""
        if self.layout is None:
            raise ValueError("whole-table snapshots need the layout: Recognizer(..., layout=layout)")
        layout = self.layout
        now = frozenset(cells)
        for slot in layout.reserve:
            if slot.cell in now:
                self._reserve_empty_since.pop(slot.cell, None)
            else:
                self._reserve_empty_since.setdefault(slot.cell, t)
        self._table_cells = now
        bits = 0
        for square in chess.SQUARES:
            if layout.square_cell(square) in now:
                bits |= chess.BB_SQUARES[square]
        return self.feed_occupancy(t, bits)

    def feed_occupancy(self, t: float, occupied: int) -> list[RecognizerEvent]:
        """One scan of the board (a1 = bit 0). Returns what happened, often nothing."""
        events: list[RecognizerEvent] = []
        if not self._started:
            self._started = True
            self._raw = self.stable = occupied
            self._last_event_t = t
            self._evaluated = occupied == self.expected
            return self._tick(t)
        changed = occupied ^ self._raw
        for square in chess.SquareSet(changed):
            if square in self._pending:
                del self._pending[square]  # it flipped back before it lasted: flicker
            else:
                self._pending[square] = t
        self._raw = occupied
        for square, since in list(self._pending.items()):
            if t - since >= self.debounce_s or self.debounce_s <= 0:
                del self._pending[square]
                is_on = bool(occupied & chess.BB_SQUARES[square])
                self.stable ^= chess.BB_SQUARES[square]
                self.history.append(SquareEvent(since, square, is_on))
                self._last_event_t = max(self._last_event_t, since)
                self._evaluated = False
                if not is_on:
                    events += self._lifted(since, square)
        return events + self._tick(t)

    def feed(self, entry: object) -> list[RecognizerEvent]:
        """Any trace entry: an occupancy snapshot, a whole-table snapshot or a promotion choice."""
        t = float(getattr(entry, "t"))  # noqa: B009 - duck-typed trace entries
        if hasattr(entry, "occupied"):
            return self.feed_occupancy(t, int(getattr(entry, "occupied")))  # noqa: B009
        if hasattr(entry, "cells"):
            return self.feed_table(t, getattr(entry, "cells"))  # noqa: B009
        if hasattr(entry, "piece"):
            return self.choose_promotion(t, str(getattr(entry, "piece")))  # noqa: B009
        raise TypeError(f"not a trace entry: {entry!r}")

    def apply(self, move: chess.Move) -> None:
        """A move made without this recognizer seeing it (the robot's, a typed one): push it and take
        the next scan as the new baseline; if the board then differs, that is reported as usual."""
        if not self.board.is_legal(move):
            raise ValueError(f"{move.uci()!r} is not legal in {self.board.fen()!r}")
        self.board.push(move)
        self._reset_window()
        self._error = None
        self._pending.clear()
        self._started = False

    def freeze(self) -> None:
        """The opponent (e.g. the robot) has started answering: the last move can no longer be revised."""
        self._revisable = None

    # --- evaluation --------------------------------------------------------------------------------

    def _tick(self, t: float) -> list[RecognizerEvent]:
        self._now = t
        if self._evaluated or self._pending or t - self._last_event_t < self.settle_s:
            return []
        self._evaluated = True
        return self._evaluate(t)

    def _lifted(self, t: float, square: chess.Square) -> list[RecognizerEvent]:
        piece = self.board.piece_at(square)
        if piece is None or piece.color != self.board.turn or self._error is not None:
            return []
        moves = [m for m in self.board.legal_moves if m.from_square == square]
        destinations = frozenset(_king_target(self.board, m) for m in moves)
        captures = frozenset(m.to_square for m in moves if self.board.is_capture(m))
        return [PieceLifted(t, square, destinations, captures)]

    def _evaluate(self, t: float) -> list[RecognizerEvent]:
        occupied = self.stable
        still = t - self._last_event_t
        if occupied == self.expected:
            swap = self._best(self._candidates("forward1", occupied), need_touch=True)
            if swap is not None:
                return self._commit(t, swap)
            return self._settle_clean(t)
        best = self._best(self._candidates("forward1", occupied) + self._candidates("revision", occupied))
        if best is None:
            best = self._best(self._candidates("forward2", occupied))
        if best is None:
            # the opponent's move completing a second ply is evidence that the first, a capture by
            # displacement, was done: no need to wait for a piece that might be held in the air
            best = self._best(self._candidates("forward2", occupied), displaced=True)
        if best is None and self.takebacks:
            best = next(iter(self._candidates("takeback", occupied)), None)
        if (
            best is None
            and self.board.is_game_over()
            and self.start_board is not None
            and occupied == int(self.start_board.occupied)
        ):
            self.board = self.start_board.copy()
            self._reset_window()
            return [NewGame(t)]
        displaced = (
            None if best is not None else self._best(self._candidates("forward1", occupied), displaced=True)
        )
        if displaced is not None:
            held = t - self._lifted_at(displaced.moves[0].from_square)
            if held >= self.displacement_after_s - 1e-9:
                best = displaced
        if best is not None:
            return self._commit(t, best)
        if still < self.illegal_after_s or displaced is not None:
            self._evaluated = False  # look again later: the player may be in the middle of something
            return []
        return self._illegal(t, occupied)

    def _candidates(self, kind: str, occupied: int) -> list[_Candidate]:
        """Candidates of one kind for the current board and history, computed once per change."""
        key = (occupied, len(self.history))
        if self._cache_key != key:
            self._cache_key = key
            self._cached = {}
        if kind not in self._cached:
            touched = self._touched()
            if kind == "forward1":
                found = self._forward_candidates(occupied, touched, plies=1)
            elif kind == "forward2":
                found = self._forward_candidates(occupied, touched, plies=2)
            elif kind == "revision":
                found = self._revision_candidates(occupied)
            else:
                takeback = self._takeback_candidate(occupied)
                found = [] if takeback is None else [takeback]
            self._cached[kind] = found
        return self._cached[kind]

    def _settle_clean(self, t: float) -> list[RecognizerEvent]:
        """The board matches the position: nudges and abandoned captures leave no move."""
        self._reset_window(keep_revision=True)
        if self._error is not None:
            self._error = None
            return [Resolved(t)]
        return []

    def _reset_window(self, keep_revision: bool = False) -> None:
        self.history.clear()
        self._cache_key = None
        self._reserve_baseline = frozenset(self._reserve_empty_since)
        self._promotion_choice = None
        if not keep_revision:
            self._revisable = None

    def _lifted_at(self, square: chess.Square) -> float:
        """When ``square`` last went empty (the mover left it)."""
        return max(
            (e.t for e in self.history if e.square == square and not e.occupied), default=self._last_event_t
        )

    def _touched(self) -> dict[chess.Square, list[SquareEvent]]:
        by_square: dict[chess.Square, list[SquareEvent]] = {}
        for event in self.history:
            by_square.setdefault(event.square, []).append(event)
        return by_square

    # --- candidates --------------------------------------------------------------------------------

    def _forward_candidates(
        self, occupied: int, touched: Mapping[chess.Square, list[SquareEvent]], plies: int
    ) -> list[_Candidate]:
        board = self.board
        matches: list[tuple[chess.Move, ...]] = []
        for first in board.legal_moves:
            board.push(first)
            if plies == 1:
                if board.occupied == occupied:
                    matches.append((first,))
            else:
                for second in board.legal_moves:
                    board.push(second)
                    if board.occupied == occupied:
                        matches.append((first, second))
                    board.pop()
            board.pop()
        return [_Candidate(moves, self._score(board, moves, touched)) for moves in matches]

    def _revision_candidates(self, occupied: int) -> list[_Candidate]:
        if self._revisable is None:
            return []
        before, moves = self._revisable
        touched = self._touched_since_revisable()
        found = []
        for move in before.legal_moves:
            if (move,) == moves:
                continue
            before.push(move)
            if before.occupied == occupied:
                before.pop()
                score = self._score(before, (move,), touched)
                found.append(
                    _Candidate((move,), (*score[:1], score[1] + 0.5, *score[2:]), "revision", len(moves))
                )
                continue
            before.pop()
        return found

    def _touched_since_revisable(self) -> dict[chess.Square, list[SquareEvent]]:
        assert self._revisable is not None
        merged = self._revision_history + self.history
        by_square: dict[chess.Square, list[SquareEvent]] = {}
        for event in merged:
            by_square.setdefault(event.square, []).append(event)
        return by_square

    def _takeback_candidate(self, occupied: int) -> _Candidate | None:
        board = self.board.copy()
        for plies in range(1, min(len(board.move_stack), 12) + 1):
            board.pop()
            if board.occupied == occupied:
                return _Candidate((), (0.0,), "takeback", plies)
        return None

    def _score(
        self,
        board: chess.Board,
        moves: Sequence[chess.Move],
        touched: Mapping[chess.Square, list[SquareEvent]],
    ) -> tuple[float, ...]:
        """Lower is better: (unsupported departures, nudges, displacement, timing)."""
        work = board.copy(stack=False)
        required: set[chess.Square] = set()
        captures: list[tuple[chess.Square, chess.Square]] = []
        for move in moves:
            if work.is_castling(move):
                king_from, king_to, rook_from, rook_to = _castling_from(work, move)
                required |= {
                    origin for origin, goal in ((king_from, king_to), (rook_from, rook_to)) if origin != goal
                }
            else:
                required.add(move.from_square)
                if work.is_en_passant(move):
                    required.add(
                        chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))
                    )
                elif work.is_capture(move):
                    captures.append((move.from_square, move.to_square))
            work.push(move)
        lifted = {s for s, events in touched.items() if any(not e.occupied for e in events)}
        missing = len(required - lifted)
        displaced = 0
        timing = 0.0
        for origin, target in captures:
            lift_t = min((e.t for e in touched.get(origin, []) if not e.occupied), default=None)
            refills = [e.t for e in touched.get(target, []) if e.occupied]
            if lift_t is None:
                continue
            later = [x for x in refills if x >= lift_t]
            if target in lifted and later:
                required.add(target)
                timing += min(later) - lift_t
            elif target in lifted:
                missing += 1  # emptied, but filled again before the mover left: a nudge, not this capture
            else:
                displaced += 1
        nudges = len(lifted - required)
        return (float(missing), float(nudges), float(displaced), timing)

    def _best(
        self, candidates: list[_Candidate], need_touch: bool = False, displaced: bool = False
    ) -> _Candidate | None:
        """The best explained candidate; ``displaced`` chooses among those that need a capture by
        displacement (and only those), otherwise they are left out."""
        viable = [c for c in candidates if c.score[0] == 0 and (c.score[2] > 0) == displaced]
        if need_touch:
            viable = [c for c in viable if c.moves and self._all_castling(c.moves)]
        if not viable:
            return None
        viable.sort(key=lambda c: c.score[1:])
        best = viable[0]
        ties = [c for c in viable if c.score[1:] == best.score[1:] and c.moves != best.moves]
        promotion_ties = [c for c in ties if _same_but_promotion(c.moves, best.moves)]
        if promotion_ties or any(m.promotion for m in best.moves):
            return self._pick_promotion([best, *promotion_ties])
        return best

    def _all_castling(self, moves: Sequence[chess.Move]) -> bool:
        return all(self.board.is_castling(m) for m in moves[:1])

    def _reserve_taken(self) -> list[str]:
        """Letters of spares whose reserve slot emptied (for longer than a flicker) since the last move."""
        assert self.layout is not None or not self._reserve_empty_since
        taken = []
        for slot in self.layout.reserve if self.layout else ():
            since = self._reserve_empty_since.get(slot.cell)
            if (
                since is not None
                and slot.cell not in self._reserve_baseline
                and self._now - since >= self.debounce_s
            ):
                taken.append((since, slot.symbol))
        return [symbol for _, symbol in sorted(taken)]

    def _pick_promotion(self, candidates: list[_Candidate]) -> _Candidate:
        wanted = None
        taken = [symbol for symbol in self._reserve_taken() if symbol.isupper() == self.board.turn]
        if taken:
            wanted = taken[-1].lower()
        elif self._promotion_choice is not None:
            wanted = self._promotion_choice
        else:
            wanted = self.promotion_default
        for candidate in candidates:
            last = candidate.moves[-1]
            if last.promotion == PROMOTIONS.get(wanted or "q"):
                return candidate
        return candidates[0]

    # --- outcomes ----------------------------------------------------------------------------------

    def _commit(self, t: float, candidate: _Candidate) -> list[RecognizerEvent]:
        events: list[RecognizerEvent] = []
        if self._error is not None:
            self._error = None
            events.append(Resolved(t))
        if candidate.kind == "takeback":
            for _ in range(candidate.undo):
                self.board.pop()
            self._reset_window()
            return [*events, TookBack(t, candidate.undo)]
        undone: chess.Move | None = None
        if candidate.kind == "revision":
            for _ in range(candidate.undo):
                undone = self.board.pop()
        sans = []
        for move in candidate.moves:
            sans.append(self.board.san(move))
            self.board.push(move)
        before = self.board.copy()
        for _ in candidate.moves:
            before.pop()
        history = list(self.history)
        if candidate.kind == "revision":
            history = self._revision_history + history
        self._reset_window()
        # The player may still be going on (a paused slide): remember how to revise this commit.
        self._revisable = (before, candidate.moves)
        self._revision_history = history
        if undone is not None:
            return [*events, Revised(t, undone, candidate.moves, tuple(sans))]
        return [*events, Committed(t, candidate.moves, tuple(sans))]

    def _illegal(self, t: float, occupied: int) -> list[RecognizerEvent]:
        reason = self._diagnose(occupied)
        error = Illegal(t, reason, guidance(self.expected, occupied))
        if self._error is not None and self._error.guidance == error.guidance:
            return []
        self._error = error
        return [error]

    def _diagnose(self, occupied: int) -> str:
        board = self.board
        other = board.copy(stack=False)
        other.turn = not board.turn
        other.ep_square = None
        if any(_occupancy_after(other, m) == occupied for m in other.legal_moves):
            return f"it is {chess.COLOR_NAMES[board.turn]}'s move"
        if any(
            _occupancy_after(board, m) == occupied for m in board.pseudo_legal_moves if not board.is_legal(m)
        ):
            return "that move would leave the king in check"
        changed = chess.popcount(occupied ^ self.expected)
        if changed > 4:
            return "several pieces are off their squares"
        return "that is not a legal move"


def _occupancy_after(board: chess.Board, move: chess.Move) -> int:
    board.push(move)
    try:
        return int(board.occupied)
    finally:
        board.pop()


def _castling_from(
    board: chess.Board, move: chess.Move
) -> tuple[chess.Square, chess.Square, chess.Square, chess.Square]:
    from .planner import castling_squares

    return castling_squares(board, move)


def _king_target(board: chess.Board, move: chess.Move) -> chess.Square:
    """Where the piece lands: for castling, the king's square (g1/c1 files)."""
    if board.is_castling(move):
        return _castling_from(board, move)[1]
    return move.to_square


def _same_but_promotion(a: Sequence[chess.Move], b: Sequence[chess.Move]) -> bool:
    return len(a) == len(b) and all(
        x.from_square == y.from_square and x.to_square == y.to_square for x, y in zip(a, b, strict=True)
    )
