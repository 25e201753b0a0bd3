"""See the human's move from occupancy sensors.

The sensors say which squares hold a piece, never which piece. The recognizer keeps the game position as
the authority. Per-square debouncing turns scans into lift and place events (a change that does not last
``debounce_s``, one-scan flicker, is no event). Once the board has been still for the settle time, it
looks for the best **explanation** of every event since the last firm position: a sequence of legal
plies, each a contiguous stretch of events that ends when the board shows that ply's position, plus
nudges (pieces lifted and put back). Plies come one after another, never interleaved, so the stretches
are found by walking the events and the colours must alternate: that is what tells a paused slide from
an opponent's reply, and lets any number of quick replies share one settle window.

* each ply must be seen: every square a piece leaves (the mover, an en-passant victim, king and rook) is
  emptied inside its stretch, a quiet move lands after its mover left, and a capture's target is emptied
  and filled again after the mover left, or else the capture was by displacement (the victim pushed off
  as the mover arrived, its square never empty);
* nothing appears from nowhere: a square empty before and after a stretch may show a piece only while
  the mover is in flight (gliding over its path, or set down on the way), never before it left or after
  it landed; after the last ply, only pieces lifted and put back (nudges, touches);
* explanations rank by captures by displacement, then nudges (squares on the mover's path do not count:
  a slide shows there), then by whether the last committed move must be revised, then by how soon each
  victim's square was filled after its mover left (a neighbour nudged after the move is no capture);
* the last committed ply stays open: a slide that paused on a legal square, rook-first castling or a
  promotion answered late revise it (:class:`Revised`), but only by a ply that moves the same pieces on,
  so a piece taken back to where it came from is never a silent takeback;
* a capture by displacement looks exactly like a piece held in the air, so an explanation that needs
  one waits until the board has been still for ``displacement_after_s`` when it is the last ply, when it
  revises the last move, or when the events through it also fit plies without it and what follows is
  one move begun; otherwise the reply that completed after it confirms it;
* when the best explanations tie (a displacement that could have taken either of two pieces), nothing is
  guessed: :class:`Ambiguous` names the candidates until the player shows which (lifting the capturing
  piece and setting it down again is enough);
* promotions take the piece chosen at a prompt (an answer belongs to the latest promotion begun before
  it, else to the next), else the one taken from a sensed reserve slot, else the configured default; the
  piece matters for what may follow (a queen gives check where a rook may not);
* failing all that: takebacks (when enabled); after a finished game, the start arrangement starts a new
  one; anything else is an illegal action, and :class:`Illegal` says which squares are missing or extra,
  paired, until the board matches the position again (a player thinking with one of their own pieces
  in hand is not told off: its destinations are lit).

The recognizer is pure: it never sleeps or reads a clock; time comes with each snapshot, so a recorded
trace replays exactly and fast.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import chess

from .errors import IllegalMoveError
from .guidance import Guidance, guidance
from .layout import Cell, Layout

LOGGER = logging.getLogger(__name__)

#: Promotion pieces by letter.
PROMOTIONS = {"q": chess.QUEEN, "r": chess.ROOK, "b": chess.BISHOP, "n": chess.KNIGHT}

#: Plies one explanation may hold: quick replies seldom chain more than three in one settle window; a
#: board never still for longer is reported as illegal rather than searched without end.
MAX_PLIES = 8
#: Segment fits tried per search: a player fiddling for minutes must not stall the recognizer.
SEARCH_BUDGET = 3000


# --- what the recognizer reports -------------------------------------------------------------------


@dataclass(frozen=True)
class Committed:
    """One or more plies were recognised and pushed on the game."""

    t: float
    moves: tuple[chess.Move, ...]
    sans: tuple[str, ...]


@dataclass(frozen=True)
class Revised:
    """The last committed move was replaced: the same player went on (a paused slide, rook-first castling,
    a promotion piece chosen late); ``moves`` are the plies now standing in its place."""

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
class Ambiguous:
    """The board fits several moves equally well, e.g. a capture by displacement that could have taken
    either of two pieces. Nothing is committed until the player shows which: lifting the capturing piece
    and setting it down again is enough."""

    t: float
    candidates: tuple[tuple[chess.Move, ...], ...]
    """The plies each explanation would make, from the position before the last committed move when
    that move would be revised."""
    sans: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Resolved:
    """After an illegal action, the board matches the position again."""

    t: float


RecognizerEvent = Committed | Revised | TookBack | NewGame | PieceLifted | Illegal | Ambiguous | Resolved


@dataclass(frozen=True)
class SquareEvent:
    """A debounced change of one square: ``t`` is when it first appeared."""

    t: float
    square: chess.Square
    occupied: bool


# --- explanations ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Shape:
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


@dataclass(frozen=True)
class _Ply:
    move: chess.Move
    start: int
    """Its stretch of events is ``history[start:end]``."""
    end: int
    displaced: bool


@dataclass(frozen=True)
class _Explanation:
    plies: tuple[_Ply, ...]
    cost: tuple[float, ...]
    """Lower is better: (captures by displacement, nudges, revises the last move, victim refill time)."""
    held: bool = False
    """It relies on a capture by displacement that may be only a piece held in the air, or a move still
    in progress: it is taken only after the board has been still for long."""

    @property
    def moves(self) -> tuple[chess.Move, ...]:
        return tuple(p.move for p in self.plies)


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
    illegal_after_s: float = 2.5
    """A still board that matches nothing is reported only after this long: a player pausing halfway
    through castling or a capture, or holding a piece while thinking, is not shown an error. Measured
    on human-like traces: 1 s gave 84 false alarms in 30 legal games, 2.5 s none."""
    displacement_after_s: float = 2.5
    """A capture whose victim was never seen leaving (pushed off by the mover) looks exactly like a
    piece held in the air over its square, so as the last ply it is committed only after the board is
    still this long (people hold a touched piece up to about two seconds)."""

    history: list[SquareEvent] = field(default_factory=list)
    """Square events since the window opened: from before the last committed ply, which may be revised."""
    stable: int = 0
    _raw: int = 0
    _pending: dict[chess.Square, float] = field(default_factory=dict)
    _last_event_t: float = float("-inf")
    _evaluated: bool = True
    _wake_t: float | None = None
    _error: Illegal | None = None
    _asked: Ambiguous | None = None
    _window_plies: int = 0
    """Committed plies inside the window (0 or 1): the one that may still be revised."""
    _window_occupied: int = 0
    _window_t: float = float("-inf")
    _window_end: int = 0
    """Where the committed ply's stretch of events ends in ``history``."""
    _version: int = 0
    _searched: tuple[int, list[_Explanation]] | None = None
    _choices: list[tuple[float, str]] = field(default_factory=list)
    _reserve_empty: dict[Cell, tuple[float, bool]] = field(default_factory=dict)
    """Reserve slots seen empty: since when, and whether that lasted past the debounce time."""
    _reserve_taken: list[tuple[float, str]] = field(default_factory=list)
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
        """The player picked a promotion piece (at a prompt). An answer that comes after the board
        settled and a default was committed changes the piece (:class:`Revised`)."""
        if piece.lower() not in PROMOTIONS:
            raise ValueError(f"promotion piece {piece!r} is not one of q, r, b, n")
        self._choices.append((t, piece.lower()))
        self._evaluated = False
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
                self._reserve_empty.pop(slot.cell, None)
                continue
            since, counted = self._reserve_empty.setdefault(slot.cell, (t, not self._started))
            if not counted and t - since >= self.debounce_s:
                # a slot that stays empty longer than a flicker: a spare was taken
                self._reserve_empty[slot.cell] = (since, True)
                self._reserve_taken.append((since, slot.symbol))
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
            self._open_window(t)
            self._evaluated = occupied == self.expected
            return self._tick(t)
        changed = occupied ^ self._raw
        for square in chess.SquareSet(changed):
            if square in self._pending:
                del self._pending[square]  # it flipped back before it lasted: flicker
            else:
                self._pending[square] = t
        self._raw = occupied
        lasted = [(since, square) for square, since in self._pending.items() if t - since >= self.debounce_s]
        # in time order, and within one scan lifts first: a piece cannot land before it left
        lasted.sort(key=lambda item: (item[0], bool(occupied & chess.BB_SQUARES[item[1]])))
        for since, square in lasted:
            del self._pending[square]
            is_on = bool(occupied & chess.BB_SQUARES[square])
            self.stable ^= chess.BB_SQUARES[square]
            self.history.append(SquareEvent(since, square, is_on))
            self._version += 1
            self._last_event_t = max(self._last_event_t, since)
            self._evaluated = False
            if not is_on:
                events += self._lifted(since, square)
        return events + self._tick(t)

    def feed(self, entry: object) -> list[RecognizerEvent]:
        """Any trace entry: an occupancy snapshot, a whole-table snapshot, a promotion choice or a move
        made by the robot (or typed), which is applied."""
        t = float(getattr(entry, "t"))  # noqa: B009 - duck-typed trace entries
        if hasattr(entry, "occupied"):
            return self.feed_occupancy(t, int(getattr(entry, "occupied")))  # noqa: B009
        if hasattr(entry, "cells"):
            return self.feed_table(t, getattr(entry, "cells"))  # noqa: B009
        if hasattr(entry, "piece"):
            return self.choose_promotion(t, str(getattr(entry, "piece")))  # noqa: B009
        if hasattr(entry, "move"):
            move = getattr(entry, "move")  # noqa: B009
            try:
                self.apply(move)
            except ValueError as exc:
                raise IllegalMoveError(f"the trace's known move at {t:g} s: {exc}") from exc
            return []
        raise TypeError(f"not a trace entry: {entry!r}")

    def apply(self, move: chess.Move) -> None:
        """A move made without this recognizer seeing it (the robot's, a typed one): push it and take
        the next scan as the new baseline; if the board then differs, that is reported as usual."""
        if not self.board.is_legal(move):
            raise ValueError(f"{move.uci()!r} is not legal in {self.board.fen()!r}")
        self.board.push(move)
        self._error = None
        self._pending.clear()
        self._started = False

    def freeze(self) -> None:
        """The opponent (e.g. the robot) has started answering: the last move can no longer be revised."""
        if self._window_plies:
            self._open_window(self._now_t(), start=self._window_end)

    # --- evaluation --------------------------------------------------------------------------------

    def _tick(self, t: float) -> list[RecognizerEvent]:
        if self._pending:
            return []
        due = not self._evaluated and t - self._last_event_t >= self.settle_s - 1e-9
        if not due and (self._wake_t is None or t < self._wake_t - 1e-9):
            return []
        self._evaluated = True
        self._wake_t = None
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
        still = t - self._last_event_t
        explanations = [e for e in self._explanations() if self._promotions_agree(e)]
        firm = [e for e in explanations if not e.held]
        if firm:
            return self._settle(t, firm)
        if explanations:
            if still >= self.displacement_after_s - 1e-9:
                return self._settle(t, explanations)
            self._wake_t = self._last_event_t + self.displacement_after_s
            return []  # a piece held in the air, or a capture by displacement: wait and see
        occupied = self.stable
        if self.takebacks:
            plies = self._takeback_plies(occupied)
            if plies:
                return self._take_back(t, plies)
        start = self.start_board
        if self.board.is_game_over() and start is not None and occupied == int(start.occupied):
            self.board = start.copy()
            self._open_window(t)
            self._error = None
            return [NewGame(t)]
        if still < self.illegal_after_s:
            self._wake_t = self._last_event_t + self.illegal_after_s
            return []  # the player may be in the middle of something
        if self._in_hand(occupied):
            return []  # thinking with a piece in hand is no error: its destinations are lit
        return self._illegal(t, occupied)

    def _in_hand(self, occupied: int) -> bool:
        """Only one piece of the side to move is off the board."""
        missing = self.expected & ~occupied
        return (
            occupied & ~self.expected == 0
            and chess.popcount(missing) == 1
            and bool(missing & self.board.occupied_co[self.board.turn])
        )

    def _settle(self, t: float, explanations: list[_Explanation]) -> list[RecognizerEvent]:
        best_cost = min(e.cost for e in explanations)
        best: dict[tuple[chess.Move, ...], _Explanation] = {}
        for explanation in explanations:
            if explanation.cost == best_cost:
                best.setdefault(explanation.moves, explanation)
        if len(best) > 1:
            return self._ambiguous(t, list(best))
        return self._adopt(t, next(iter(best.values())))

    def _now_t(self) -> float:
        return self._last_event_t if self._last_event_t > float("-inf") else 0.0

    # --- the window --------------------------------------------------------------------------------

    def _open_window(self, t: float, start: int | None = None, plies: int = 0) -> None:
        """Make the window begin at ``history[start]`` (default: now, empty) with ``plies`` of the
        committed moves inside it."""
        if start is None:
            self._window_occupied = self.stable
            self._window_t = t
            self.history = []
        else:
            if start > 0:
                self._window_t = self.history[start - 1].t
            self._window_occupied = self._occupancies()[start]
            self.history = self.history[start:]
        self._window_plies = plies
        self._window_end = 0
        self._version += 1
        self._asked = None
        # promotion answers and reserve slots belong to plies inside the window, or to coming ones
        self._choices = [c for c in self._choices if c[0] >= self._window_t]
        self._reserve_taken = [r for r in self._reserve_taken if r[0] >= self._window_t]

    def _occupancies(self) -> list[int]:
        """The stable occupancy before each event of the window and after the last."""
        occupied = [self._window_occupied]
        for event in self.history:
            bit = chess.BB_SQUARES[event.square]
            occupied.append(occupied[-1] | bit if event.occupied else occupied[-1] & ~bit)
        return occupied

    def _window_board(self) -> chess.Board:
        board = self.board.copy()
        for _ in range(self._window_plies):
            board.pop()
        return board

    # --- the search --------------------------------------------------------------------------------

    def _explanations(self) -> list[_Explanation]:
        """Every complete explanation of the window's events (best per move sequence)."""
        if self._searched is not None and self._searched[0] == self._version:
            return self._searched[1]
        events = self.history
        occupied = self._occupancies()
        lifts: dict[chess.Square, list[int]] = {}
        places: dict[chess.Square, list[int]] = {}
        for index, event in enumerate(events):
            (places if event.occupied else lifts).setdefault(event.square, []).append(index)
        board = self._window_board()
        committed: _Shape | None = None
        if self._window_plies:
            committed = _shape(board, self.board.move_stack[-1])
        found: dict[tuple[chess.Move, ...], _Explanation] = {}
        budget = [SEARCH_BUDGET]
        n = len(events)
        # the fewest captures by displacement that explain the first i events as whole plies, the rest
        # being one move begun and not finished
        unfinished = [float("inf")] * (n + 1)

        def touched(i: int, j: int) -> int:
            bits = 0
            for event in events[i:j]:
                bits |= chess.BB_SQUARES[event.square]
            return bits

        def visit(i: int, plies: list[_Ply], costs: tuple[int, int, int, float]) -> None:
            if _is_begun(board, occupied[n]):
                unfinished[i] = min(unfinished[i], costs[0])
            tail = touched(i, n)
            # after the last ply only pieces lifted and put back: nothing appears from nowhere
            if occupied[n] == board.occupied and (plies or committed is None) and not tail & ~occupied[i]:
                cost = (costs[0], costs[1] + chess.popcount(tail), costs[2], costs[3])
                explanation = _Explanation(tuple(plies), cost)
                moves = explanation.moves
                if moves not in found or _better(explanation, found[moves]):
                    found[moves] = explanation
            if len(plies) >= MAX_PLIES or i >= n or budget[0] <= 0:
                return
            shapes = _shapes(board)
            base = int(board.occupied)
            for j in range(i + 1, n + 1):
                for shape in shapes.get(occupied[j] ^ base, ()):
                    if not plies and committed is not None:
                        if shape.departs & committed.departs != committed.departs:
                            continue  # a revision moves the same pieces on, never fewer
                        revises = int((shape.move.from_square, shape.move.to_square) != _squares(committed))
                    else:
                        revises = 0
                    budget[0] -= 1
                    fit = _fit(shape, events, lifts, places, base, i, j)
                    if fit is None:
                        continue
                    displaced, nudges, refill = fit
                    ply = _Ply(shape.move, i, j, bool(displaced))
                    board.push(shape.move)
                    visit(
                        j,
                        [*plies, ply],
                        (costs[0] + displaced, costs[1] + nudges, costs[2] + revises, costs[3] + refill),
                    )
                    board.pop()

        visit(0, [], (0, 0, 0, 0.0))
        if budget[0] <= 0:
            LOGGER.warning("recognition search cut short after %d segment fits", SEARCH_BUDGET)
        result = [replace(e, held=self._is_held(e, unfinished)) for e in found.values()]
        self._searched = (self._version, result)
        return result

    @staticmethod
    def _is_held(explanation: _Explanation, unfinished: Sequence[float]) -> bool:
        """A capture by displacement cannot be told from a piece held in the air, so an explanation that
        needs one waits when: it is the last ply; or it revises the last move (the opponent lifting the
        piece that move put down, to take it, looks the same); or the events up to and past that ply fit
        legal plies with fewer displacements and the rest is one move begun, not finished (a capture
        that gives check, then a reply paused mid-slide)."""
        displaced = [p for p in explanation.plies if p.displaced]
        if not displaced:
            return False
        if explanation.plies[-1].displaced or explanation.cost[2]:
            return True
        return min(unfinished[displaced[0].end :], default=float("inf")) < explanation.cost[0]

    # --- promotions --------------------------------------------------------------------------------

    def _promotions_agree(self, explanation: _Explanation) -> bool:
        """Whether each promotion in the explanation is to the piece chosen at a prompt, else taken from
        a reserve slot, else the default. An answer or an emptied slot belongs to the latest promotion
        begun before it, else to the next one (people answer late, and some take the piece first). The
        piece matters for what follows: a queen may give check where a rook does not."""
        plies = explanation.plies
        promotions = [k for k, ply in enumerate(plies) if ply.move.promotion]
        if not promotions:
            return True
        began = {k: self.history[plies[k].start].t for k in promotions}
        white_first = self._window_board().turn == chess.WHITE

        def owner(t: float, candidates: list[int]) -> int | None:
            before = [k for k in candidates if began[k] <= t]
            return before[-1] if before else next(iter(candidates), None)

        answered: dict[int, str] = {}
        for t, letter in self._choices:
            k = owner(t, promotions)
            if k is not None:
                answered[k] = letter
        taken: dict[int, str] = {}
        for t, symbol in self._reserve_taken:
            k = owner(t, [k for k in promotions if (white_first == (k % 2 == 0)) == symbol.isupper()])
            if k is not None:
                taken[k] = symbol.lower()
        for k in promotions:
            letter = answered.get(k) or taken.get(k) or self.promotion_default
            if plies[k].move.promotion != PROMOTIONS[letter]:
                return False
        return True

    # --- outcomes ----------------------------------------------------------------------------------

    def _adopt(self, t: float, explanation: _Explanation) -> list[RecognizerEvent]:
        events: list[RecognizerEvent] = []
        if self._error is not None:
            self._error = None
            events.append(Resolved(t))
        self._asked = None
        kept = self._window_plies
        committed = tuple(self.board.move_stack[len(self.board.move_stack) - kept :])
        moves = explanation.moves
        if moves == committed:
            # nothing new: forget what came after the last ply (nudges, touches put back)
            if not explanation.plies:
                self._open_window(t)
            else:
                self.history = self.history[: explanation.plies[-1].end]
                self._window_end = len(self.history)
                self._version += 1
            return events
        undone: chess.Move | None = None
        if moves[:kept] != committed:
            undone = self.board.pop()
            kept = 0
        sans = []
        for move in moves[kept:]:
            sans.append(self.board.san(move))
            self.board.push(move)
        last = explanation.plies[-1]
        self._open_window(t, start=last.start, plies=1)
        self._window_end = last.end - last.start
        if undone is not None:
            return [*events, Revised(t, undone, moves, tuple(sans))]
        return [*events, Committed(t, moves[kept:], tuple(sans))]

    def _ambiguous(self, t: float, candidates: list[tuple[chess.Move, ...]]) -> list[RecognizerEvent]:
        ordered = tuple(sorted(candidates, key=lambda moves: [m.uci() for m in moves]))
        if self._asked is not None and self._asked.candidates == ordered:
            return []
        board = self._window_board()
        sans = []
        for moves in ordered:
            sans.append(tuple(_sans(board, moves)))
        self._asked = Ambiguous(t, ordered, tuple(sans))
        return [self._asked]

    def _takeback_plies(self, occupied: int) -> int:
        board = self.board.copy()
        for plies in range(1, min(len(board.move_stack), 12) + 1):
            board.pop()
            if board.occupied == occupied:
                return plies
        return 0

    def _take_back(self, t: float, plies: int) -> list[RecognizerEvent]:
        events: list[RecognizerEvent] = []
        if self._error is not None:
            self._error = None
            events.append(Resolved(t))
        for _ in range(plies):
            self.board.pop()
        self._open_window(t)
        return [*events, TookBack(t, plies)]

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
        # a single square emptied could be the other side's capture by displacement, but is far more
        # likely a victim lifted early: only a visible move is named as the other side's
        if chess.popcount(occupied ^ self.expected) > 1 and any(
            _occupancy_after(other, m) == occupied for m in other.legal_moves
        ):
            return f"it is {chess.COLOR_NAMES[board.turn]}'s move"
        if any(
            _occupancy_after(board, m) == occupied for m in board.pseudo_legal_moves if not board.is_legal(m)
        ):
            return "that move would leave the king in check"
        changed = chess.popcount(occupied ^ self.expected)
        if changed > 4:
            return "several pieces are off their squares"
        return "that is not a legal move"


# --- move shapes and segment fits ------------------------------------------------------------------


def _shapes(board: chess.Board) -> dict[int, list[_Shape]]:
    """Legal moves by the occupancy change they make."""
    by_diff: dict[int, list[_Shape]] = {}
    for move in board.legal_moves:
        shape = _shape(board, move)
        by_diff.setdefault(shape.diff, []).append(shape)
    return by_diff


def _shape(board: chess.Board, move: chess.Move) -> _Shape:
    bb = chess.BB_SQUARES
    if board.is_castling(move):
        king_from, king_to, rook_from, rook_to = _castling_from(board, move)
        departs = arrives = 0
        for origin, goal in ((king_from, king_to), (rook_from, rook_to)):
            if origin != goal:
                departs |= bb[origin]
                arrives |= bb[goal]
        diff = (bb[king_from] | bb[rook_from]) ^ (bb[king_to] | bb[rook_to])
        path = chess.between(king_from, king_to) | chess.between(rook_from, rook_to)
        return _Shape(move, diff, departs, arrives, path, king_from, castling=True)
    origin, target = move.from_square, move.to_square
    path = chess.between(origin, target)
    if board.is_en_passant(move):
        victim = chess.square(chess.square_file(target), chess.square_rank(origin))
        leave = bb[origin] | bb[victim]
        return _Shape(move, leave | bb[target], leave, bb[target], path, origin)
    if board.is_capture(move):
        return _Shape(move, bb[origin], bb[origin], 0, path, origin, victim=target)
    return _Shape(move, bb[origin] | bb[target], bb[origin], bb[target], path, origin, target=target)


def _is_begun(board: chess.Board, occupied: int) -> bool:
    """Whether ``occupied`` could be ``board`` with one move of the side to move under way: its mover
    (and perhaps a victim or the castling rook) lifted, at most one piece set down somewhere."""
    emptied = board.occupied & ~occupied
    filled = occupied & ~board.occupied
    return (
        chess.popcount(filled) <= 1
        and 1 <= chess.popcount(emptied) <= 2
        and bool(emptied & board.occupied_co[board.turn])
    )


def _explained(shape: _Shape) -> int:
    """Squares whose events the move accounts for, whenever they come."""
    victim = chess.BB_SQUARES[shape.victim] if shape.victim is not None else 0
    return shape.departs | shape.arrives | victim


def _squares(shape: _Shape) -> tuple[chess.Square, chess.Square]:
    return shape.move.from_square, shape.move.to_square


def _last(indices: list[int] | None, i: int, j: int) -> int | None:
    """The last of the sorted ``indices`` in ``[i, j)``."""
    if not indices:
        return None
    k = bisect.bisect_left(indices, j) - 1
    return indices[k] if k >= 0 and indices[k] >= i else None


def _fit(
    shape: _Shape,
    events: Sequence[SquareEvent],
    lifts: dict[chess.Square, list[int]],
    places: dict[chess.Square, list[int]],
    before: int,
    i: int,
    j: int,
) -> tuple[int, int, float] | None:
    """Whether ``events[i:j]``, starting from occupancy ``before``, can be this move: None if not, else
    (captures by displacement, nudges, seconds from the mover leaving to its victim's square refilled)."""
    first_left = j
    for square in chess.SquareSet(shape.departs):
        lifted = _last(lifts.get(square), i, j)
        if lifted is None:
            return None  # a piece left without its square ever reading empty
        first_left = min(first_left, lifted)
    left = _last(lifts.get(shape.origin), i, j)
    displaced, refill, nudges_on_victim = 0, 0.0, 0
    if shape.target is not None:
        landed = _last(places.get(shape.target), i, j)
        if left is None or landed is None or landed < left:
            return None
    elif shape.victim is not None and left is not None:
        refilled = _last(places.get(shape.victim), i, j)
        if _last(lifts.get(shape.victim), i, j) is None or refilled is None or refilled < left:
            # never emptied, or emptied and filled again before the mover left: pushed off, and any
            # earlier lift of it was a nudge
            displaced = 1
            nudges_on_victim = int(_last(lifts.get(shape.victim), i, j) is not None)
        else:
            # how soon, not how late: a promoting pawn exchanged on the square later is the same capture
            first_refill = next(k for k in places[shape.victim] if k > left)
            refill = events[first_refill].t - events[left].t
    # The mover is in flight from leaving its square to the last landing the move shows.
    # castling: from the first of king and rook leaving
    flight_from = first_left if shape.castling or left is None else left
    if shape.victim is not None:
        refilled = None if displaced else _last(places.get(shape.victim), i, j)
        flight_to = j if refilled is None else refilled
    else:
        landings = [_last(places.get(s), i, j) for s in chess.SquareSet(shape.arrives)]
        flight_to = max((x for x in landings if x is not None), default=j)
    explained = _explained(shape)
    nudges = nudges_on_victim
    spans: dict[chess.Square, list[int]] = {}
    for index in range(i, j):
        square = events[index].square
        if not chess.BB_SQUARES[square] & explained:
            spans.setdefault(square, [index, index])[1] = index
    for square, (first, last) in spans.items():
        if before & chess.BB_SQUARES[square]:
            nudges += 1  # a piece lifted and put back
        elif not (flight_from < first and last < flight_to):
            return None  # a piece set down and taken away, but not the mover in flight: from where?
        elif not shape.path & chess.BB_SQUARES[square]:
            if displaced:
                return None  # set down off its path, lifted again, then pushing a victim off unseen
            nudges += 1  # the mover set down off its path, then moved on
    return displaced, nudges, refill


def _better(a: _Explanation, b: _Explanation) -> bool:
    """Same moves: the lower cost, then the later boundaries (noise goes with the earlier ply)."""
    if a.cost != b.cost:
        return a.cost < b.cost
    return [p.end for p in a.plies] > [p.end for p in b.plies]


def _sans(board: chess.Board, moves: Sequence[chess.Move]) -> list[str]:
    board = board.copy(stack=False)
    sans = []
    for move in moves:
        sans.append(board.san(move))
        board.push(move)
    return sans


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
