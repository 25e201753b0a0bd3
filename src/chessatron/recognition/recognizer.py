"""The recognizer: square events debounced from snapshots, explanations searched once the board is
still, events reported (the package's description says how)."""

# One module on purpose (about 680 lines): the recognizer is one state machine over the snapshots
# (debounce, history, commits, questions, withdrawals); the search and the model are apart.

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import chess

from ..errors import IllegalMoveError
from ..i18n import _
from ..planning.layout import Cell, Layout
from .events import (
    Ambiguous,
    Committed,
    Illegal,
    NewGame,
    PieceLifted,
    RecognizerEvent,
    Resolved,
    Revised,
    SquareEvent,
    TookBack,
)
from .guidance import guidance
from .model import HumanModel
from .search import MAX_PLIES, SEARCH_BUDGET, Explanation, Search
from .shapes import is_under_way, king_target, occupancy_after, sans_of

LOGGER = logging.getLogger(__name__)

#: Promotion pieces by letter.
PROMOTIONS = {"q": chess.QUEEN, "r": chess.ROOK, "b": chess.BISHOP, "n": chess.KNIGHT}

__all__ = ["MAX_PLIES", "PROMOTIONS", "SEARCH_BUDGET", "Recognizer"]

#: A piece that lands on the next square this soon after leaving its own was pushed along the board, not
#: lifted and carried (that takes a quarter of a second or more).
GLIDE_S = 0.15


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
    chatter_s: float = 0.12
    """A change that follows one which flipped back within this long is one change, begun with the
    first: a sensor chatters as a piece arrives or leaves (the order of lifts and places depends on it)."""
    takebacks: bool = False
    sides: frozenset[chess.Color] = frozenset(chess.COLORS)
    """The colours whose moves are made by hand on this board: both when two people play at it; one when
    the other side's moves come from the robot (or are typed) and :meth:`apply` tells them, so that
    the person's hand going on is never taken for the other side's reply."""
    promotion_default: str = "q"
    layout: Layout | None = None
    """Needed only for whole-table snapshots (reserve slots tell the promotion piece)."""
    start_board: chess.Board | None = None
    """The arrangement that starts a new game after this one ends (default: the game's start)."""
    illegal_after_s: float = 2.5
    """A still board that matches nothing is reported only after this long: a player pausing halfway
    through castling or a capture, or holding a piece while thinking, is not shown an error. Measured
    on human-like traces: 1 s gave 84 false alarms in 30 legal games, 2.5 s none."""
    unfinished_after_s: float = 10.0
    """A still board that is a move halfway made (a victim taken off, king and rook in hand) is reported
    only after this long: people pause mid-move to think; if nothing follows, the pieces are missing."""
    ask_after_s: float = 4.0
    """A question (:class:`Ambiguous`) is put only after the board has been still this long: a player
    holding the capturing piece over the board while thinking is not asked which capture they made."""
    model: HumanModel = field(default_factory=HumanModel)
    """What people do and how unlikely each is: how explanations are ranked."""

    history: list[SquareEvent] = field(default_factory=list)
    """Square events since the window opened: from before the last committed ply, which may be revised."""
    stable: int = 0
    _raw: int = 0
    _pending: dict[chess.Square, tuple[float, float]] = field(default_factory=dict)
    """Squares whose change has not lasted yet: since when it reads so, and when the change began."""
    _chatter: dict[chess.Square, tuple[float, float]] = field(default_factory=dict)
    """Squares whose change flipped back before it lasted: when that change began, and when it flipped
    back."""
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
    _searched: tuple[tuple[int, frozenset[chess.Color]], list[Explanation], list[Explanation]] | None = None
    _advanced: int = -1
    """The window version last looked at while the board was busy."""
    _answers: list[tuple[int, chess.Move]] = field(default_factory=list)
    """Moves the player named when asked, by the half-move of the game they answer for."""
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

    def may_go_on(self) -> bool:
        """Whether the last committed move looks as if it might still go on: its piece was seen gliding
        over the squares on its way and stopped where the same line goes on to more legal squares (a
        slide paused on a legal square), so an opponent should give it longer before answering it."""
        if not self._window_plies:
            return False
        board = self._window_board()
        move = self.board.move_stack[-1]
        if board.is_castling(move):
            return False
        path = chess.between(move.from_square, move.to_square)
        events = self.history[: self._window_end]
        # gliding: seen over the squares on its way, or landing a moment after it left (a lifted piece
        # is carried for a quarter of a second or more; one pushed along the board arrives at once)
        slid = any(e.occupied and chess.BB_SQUARES[e.square] & path for e in events)
        left = [e.t for e in events if e.square == move.from_square and not e.occupied]
        landed = [e.t for e in events if e.square == move.to_square and e.occupied]
        if left and not path:
            arrival = min((t for t in landed if t >= left[-1]), default=None)
            slid = slid or (arrival is not None and arrival - left[-1] <= GLIDE_S)
        return slid and any(
            other.from_square == move.from_square
            and chess.BB_SQUARES[move.to_square] & chess.between(move.from_square, other.to_square)
            for other in board.legal_moves
        )

    @property
    def last_change_t(self) -> float:
        """When a square last changed (debounced), or when scanning began."""
        return self._now_t()

    def settled_for(self, t: float) -> float:
        """Seconds the board has shown the position, untouched, at ``t`` (0 when anything is off its
        square, changing, or asked about): how long the last move has stood."""
        if self._pending or self._asked is not None or self.stable != self.expected:
            return 0.0
        if len(self.history) > self._window_end:
            return 0.0  # touched since: a piece lifted and put back may still be followed by more
        return max(0.0, t - self._now_t())

    @property
    def is_asking(self) -> bool:
        """A question is open: the board fits several moves and nothing has settled which yet."""
        return self._asked is not None

    @property
    def question(self) -> Ambiguous | None:
        """The open question, if any."""
        return self._asked

    def choose_move(self, t: float, move: chess.Move) -> list[RecognizerEvent]:
        """The player says which move they made, answering the open question (:class:`Ambiguous`).
        Without an open question the answer is ignored (what followed may have settled it meanwhile).
        Raises ValueError for a move that is not one of the question's options."""
        asked = self._asked
        if asked is None:
            return []
        if move not in asked.options:
            options = ", ".join(m.uci() for m in asked.options)
            raise ValueError(f"{move.uci()!r} is not one of the moves asked about ({options})")
        self._answers.append((asked.ply, move))
        self._evaluated = False
        return self._tick(t)

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
        if occupied == self._raw and not self._pending:
            return self._tick(t)  # nothing new: the common case, many times a second
        # A reading that stood from its scan until this one lasted, however far apart the scans are: a
        # board that reports only its changes sends one snapshot a change, and a square lifted in one
        # and filled again in the next was empty all that while, not a flicker.
        events += self._lasted(t, self._raw)
        changed = occupied ^ self._raw
        for square in chess.SquareSet(changed):
            if square in self._pending:
                # it flipped back before it lasted: flicker, or a sensor chattering as a piece arrives or
                # leaves, in which case the change began with the chatter
                self._chatter[square] = (self._pending.pop(square)[1], t)
            else:
                began, reverted = self._chatter.pop(square, (t, t))
                # chatter flips again at once; a change that comes later followed a flicker
                if t - reverted > self.debounce_s + 1e-9 or t - began > self.chatter_s:
                    began = t
                self._pending[square] = (t, began)
        self._raw = occupied
        events += self._lasted(t, occupied)
        return events + self._tick(t)

    def _lasted(self, t: float, reading: int) -> list[RecognizerEvent]:
        """Make the pending changes that have read so for the debounce time by ``t`` square events;
        ``reading`` is what the sensors read for them."""
        events: list[RecognizerEvent] = []
        debounce = self.debounce_s
        lasted = [(began, sq) for sq, (since, began) in self._pending.items() if t - since >= debounce]
        # in time order, and within one scan lifts first: a piece cannot land before it left
        lasted.sort(key=lambda item: (item[0], bool(reading & chess.BB_SQUARES[item[1]])))
        for since, square in lasted:
            del self._pending[square]
            is_on = bool(reading & chess.BB_SQUARES[square])
            self.stable ^= chess.BB_SQUARES[square]
            # in time order: a chattering change that lasted late began before others that lasted
            # sooner (never before the committed ply's own events)
            at = len(self.history)
            while at > self._window_end and (self.history[at - 1].t, self.history[at - 1].occupied) > (
                since,
                is_on,
            ):
                at -= 1
            self.history.insert(at, SquareEvent(since, square, is_on))
            self._version += 1
            self._last_event_t = max(self._last_event_t, since)
            self._evaluated = False
            if not is_on:
                events += self._lifted(since, square)
        return events

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
        if hasattr(entry, "choice"):
            return self.choose_move(t, getattr(entry, "choice"))  # noqa: B009
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
        self._chatter.clear()
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
            return self._advance(t)
        self._evaluated = True
        self._wake_t = None
        return self._evaluate(t)

    def _lifted(self, t: float, square: chess.Square) -> list[RecognizerEvent]:
        piece = self.board.piece_at(square)
        if piece is None or piece.color != self.board.turn or self._error is not None:
            return []
        moves = [m for m in self.board.legal_moves if m.from_square == square]
        destinations = frozenset(king_target(self.board, m) for m in moves)
        captures = frozenset(m.to_square for m in moves if self.board.is_capture(m))
        return [PieceLifted(t, square, destinations, captures)]

    def _evaluate(self, t: float) -> list[RecognizerEvent]:
        still = t - self._last_event_t
        found, partial = self._explanations()
        unfinished = min((e.cost for e in partial), default=float("inf"))
        explanations = [e for e in found if self._agrees(e)]
        if explanations:
            best = min(e.cost for e in explanations)
            contenders = [e for e in explanations if e.cost <= best + self.model.margin]
            wait_s = self.model.still_wait_s(max(e.cost for e in contenders), unfinished)
            if any(self._displaces(e) for e in contenders):
                wait_s = max(wait_s, self.model.held_s)  # or the piece is only held (see the model)
            if len({e.moves for e in contenders}) > 1 and any(
                len(e.moves) <= parting_ply([c.moves for c in contenders]) + 1 for e in contenders
            ):
                # a question about the last move made: the player may still hold its piece (once the
                # opponent has moved on, the player had finished)
                wait_s = max(wait_s, self.ask_after_s)
            if still < wait_s - 1e-9:
                # the player may still be at it (a piece held in the air looks exactly like a capture
                # by displacement): wait and see
                self._wake_t = self._last_event_t + wait_s
                return []
            return self._settle(t, contenders)
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
        # (a move of the side whose moves the recognizer is told, not shown, is never under way here)
        under_way = self.board.turn in self.sides and is_under_way(self.board, occupied)
        if under_way and self._in_hand(occupied):
            return []  # thinking with one of its own pieces in hand is no error: its destinations are lit
        patience = self.unfinished_after_s if under_way else self.illegal_after_s
        if still < patience:
            self._wake_t = self._last_event_t + patience
            return []  # the player may be in the middle of something
        return self._illegal(t, occupied)

    def _in_hand(self, occupied: int) -> bool:
        """Only one piece of the side to move is off the board."""
        missing = self.expected & ~occupied
        return (
            occupied & ~self.expected == 0
            and chess.popcount(missing) == 1
            and bool(missing & self.board.occupied_co[self.board.turn])
        )

    def _advance(self, t: float) -> list[RecognizerEvent]:
        """The board is busy (quick replies, one after another): commit the plies that every good
        explanation of the events so far agrees on, once each is followed by the next player's move."""
        if self._advanced == self._version or self._error is not None:
            return []
        self._advanced = self._version
        if len(self.history) - self._window_end < 4:
            return []  # too little since the committed ply for another whole ply and a reply begun
        found, partial = self._explanations()
        options = [(e, False) for e in found if self._agrees(e)]
        options += [(e, True) for e in partial if self._agrees(e)]
        if not options:
            return []
        best = min(e.cost for e, _partial in options)
        near = [(e, is_partial) for e, is_partial in options if e.cost <= best + self.model.margin]
        common = near[0][0].moves
        for e, _partial in near:
            k = 0
            while k < min(len(common), len(e.moves)) and common[k] == e.moves[k]:
                k += 1
            common = common[:k]
        # a ply is finished when every explanation has something after it: the next player's move
        length = len(common)
        if any(len(e.moves) == length and not is_partial for e, is_partial in near):
            length -= 1
        kept = self._window_plies
        committed = tuple(self.board.move_stack[len(self.board.move_stack) - kept :])
        if length <= kept or common[:kept] != committed:
            return []  # nothing new, or a revision: wait for the board to be still
        if any(e.moves[:length] != common[:length] for e, is_partial in options if not is_partial):
            # an explanation of every event disagrees: the cheaper ones only guess at a move under way
            # from where the pieces stand; let the still board decide
            return []
        chosen = next(e for e, _partial in near if e.moves[:length] == common[:length])
        while length > kept and self._displaces(chosen, length):
            # a piece that may only be held: commit what came before it, and for it wait for the board to
            # be still (the model's held_s) or for the game to go on
            length -= 1
        if length <= kept:
            return []
        return self._adopt(t, Explanation(chosen.plies[:length], best), prefix=True)

    def _displaces(self, explanation: Explanation, commits: int | None = None) -> bool:
        """Whether a ply the explanation would newly commit (of its first ``commits``, default all) is a
        capture by displacement that the game has not gone on from: its piece may as well be held in the
        air still, and what follows it (one reply) be that same hand at work, a slow slide over squares
        the victim's side could move to. Two whole plies after it mean the game went on."""
        committed = tuple(self.board.move_stack[len(self.board.move_stack) - self._window_plies :])
        first = len(committed) if explanation.moves[: len(committed)] == committed else 0
        plies = explanation.plies
        last = len(plies) if commits is None else commits
        return any(plies[k].displaced and len(plies) - k - 1 < 2 for k in range(first, last))

    def _agrees(self, explanation: Explanation) -> bool:
        return self._promotions_agree(explanation) and self._answers_agree(explanation)

    def _settle(self, t: float, contenders: list[Explanation]) -> list[RecognizerEvent]:
        """Adopt the best explanation, unless another move sequence is as good (then ask)."""
        best: dict[tuple[chess.Move, ...], Explanation] = {}
        for explanation in sorted(contenders, key=lambda e: e.cost):
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
        first_ply = len(self.board.move_stack) - plies
        self._answers = [a for a in self._answers if a[0] >= first_ply]
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
        for _ply in range(self._window_plies):
            board.pop()
        return board

    # --- the search --------------------------------------------------------------------------------

    def _explanations(self) -> tuple[list[Explanation], list[Explanation]]:
        """Every complete explanation of the window's events, and every one in which a move is still under
        way (best per move sequence)."""
        if self._searched is not None and self._searched[0] == (self._version, self.sides):
            return self._searched[1], self._searched[2]
        board = self._window_board()
        committed = self.board.move_stack[-1] if self._window_plies else None
        search = Search(board, self.history, self._occupancies(), committed, self.model, self.sides)
        result = search.run()
        if search.cut_short:
            LOGGER.warning("recognition search cut short after %d segment fits", SEARCH_BUDGET)
        partial = list(search.partial.values())
        self._searched = ((self._version, self.sides), result, partial)
        return result, partial

    def _answers_agree(self, explanation: Explanation) -> bool:
        """Whether the explanation makes each move the player named when asked."""
        start = len(self.board.move_stack) - self._window_plies
        moves = explanation.moves
        for ply, move in self._answers:
            k = ply - start
            if 0 <= k < len(moves) and moves[k] != move:
                return False
        return True

    # --- promotions --------------------------------------------------------------------------------

    def _promotions_agree(self, explanation: Explanation) -> bool:
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

    def _adopt(self, t: float, explanation: Explanation, *, prefix: bool = False) -> list[RecognizerEvent]:
        """Make the explanation's moves the game's; with ``prefix`` it explains only the first events of
        the window, and the rest stay."""
        events: list[RecognizerEvent] = []
        if self._error is not None or self._asked is not None:
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
        if not explanation.plies:
            assert undone is not None
            self._open_window(t)  # withdrawn: the piece is back where it stood
            return [*events, Revised(t, undone, (), ())]
        last = explanation.plies[-1]
        self._open_window(t, start=last.start, plies=1)
        self._window_end = last.end - last.start
        if prefix:
            self._evaluated = False  # the rest of the window is still to be explained
        if undone is not None:
            return [*events, Revised(t, undone, moves, tuple(sans))]
        return [*events, Committed(t, moves[kept:], tuple(sans))]

    def _ambiguous(self, t: float, candidates: list[tuple[chess.Move, ...]]) -> list[RecognizerEvent]:
        ordered = tuple(sorted(candidates, key=lambda moves: [m.uci() for m in moves]))
        if self._asked is not None and self._asked.candidates == ordered:
            return []
        board = self._window_board()
        sans = [tuple(sans_of(board, moves)) for moves in ordered]
        # the first ply at which the candidates part, and what each makes there
        part = parting_ply(ordered)
        options: dict[chess.Move, str] = {}
        for moves, names in zip(ordered, sans, strict=True):
            if len(moves) > part:
                options.setdefault(moves[part], names[part])
        start = len(board.move_stack)
        self._asked = Ambiguous(
            t, ordered, tuple(sans), start + part, tuple(options), tuple(options.values())
        )
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
        for _ply in range(plies):
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
            occupancy_after(other, m) == occupied for m in other.legal_moves
        ):
            return _("it is white's move") if board.turn == chess.WHITE else _("it is black's move")
        if any(
            occupancy_after(board, m) == occupied for m in board.pseudo_legal_moves if not board.is_legal(m)
        ):
            return _("that move would leave the king in check")
        changed = chess.popcount(occupied ^ self.expected)
        if changed > 4:
            return _("several pieces are off their squares")
        return _("that is not a legal move")


def parting_ply(candidates: Sequence[Sequence[chess.Move]]) -> int:
    """The first index at which the move sequences differ (or one ends)."""
    part = 0
    while all(len(moves) > part for moves in candidates) and len({m[part] for m in candidates}) == 1:
        part += 1
    return part
