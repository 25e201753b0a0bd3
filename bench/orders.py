"""Every order a hand can make a move in, through the recognizer (issue 23): the harness the exhaustive
tests and ``python -m bench.recognition`` share.

Each order (:func:`chessatron.sim.orders.hand_orders`) is made on a board that is scanned every 20 ms, or
on one that reports only its changes, with the actions a fixed gap apart; the board goes on being read
after the last action, as a real one does, and a question is answered two seconds after it is asked
(with the move the hand made, when it is among the options). What the history can tell is worked out
from the events alone (:func:`chessatron.sim.orders.least_extras`), and the outcome judged against it:

* **tells**: only the move made explains the events with the least besides: it must be committed, and
  no question asked;
* **cannot tell**: another move explains them as well (a victim pushed off its square unseen when the
  piece had another capture, two squares emptied and filled again while the piece was in the air): a
  question is right, a guess is not; the move made, or a question, and never another move;
* **mimics**: the hand made exactly another move's signature (a rival victim lifted and put back while
  the true one was pushed off): the board saw that move, and committing it is no fault of the board's.

In every case, once every piece the move involves has been lifted (king and rook both in hand, the
victim taken off), no other move may be committed, even for a moment.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

import chess

from chessatron.recognition import Ambiguous, Committed, Recognizer, Revised
from chessatron.sim.orders import Explanations, Order, hand_orders, scans

SCAN_S = 0.02
#: The gaps between actions, in turn from one order to the next: hurried (two hands at once), brisk,
#: ordinary, slow (a pause longer than the settle time between any two actions) and mixed.
GAPS_S: tuple[tuple[float, ...], ...] = ((0.05,), (0.3,), (0.8,), (2.5,), (0.05, 1.0, 0.3))
#: How long the board goes on being read after the last action, at most.
AFTER_S = 15.0
#: A question is answered this long after it is asked.
ANSWER_S = 2.0

Verdict = Literal["tells", "cannot tell", "mimics"]
Outcome = Literal["right", "asked", "false", "stalled", "early false", "mimicked"]


@dataclass(frozen=True)
class OrderRun:
    """One order made on a board and read by the recognizer."""

    order: Order
    verdict: Verdict
    outcome: Outcome
    asked: bool
    got: tuple[chess.Move, ...]
    latency_s: float | None
    """From the last action to the commit of the move made (no question asked)."""
    reported: bool
    gaps_s: tuple[float, ...]

    @property
    def fault(self) -> bool:
        """What the person meets that the board should have spared them: a false move (even for a
        moment), a stall, or a question where the events tell."""
        if self.outcome in ("false", "stalled", "early false"):
            return True
        return self.asked and self.verdict == "tells"

    def describe(self, board: chess.Board) -> str:
        mode = "reported" if self.reported else "scanned"
        return (
            f"{board.san(self.order.move)}: {self.order.describe()} ({mode}, gaps {self.gaps_s}): "
            f"{self.verdict}, {self.outcome}{', asked' if self.asked else ''}; "
            f"got {[m.uci() for m in self.got]}"
        )


def verdict_of(explanations: Explanations, order: Order) -> tuple[Verdict, set[chess.Move]]:
    """What the events of ``order`` can tell, and the moves that explain them with the least besides."""
    board = explanations.board
    extras = explanations.least_extras(order.actions)
    if order.move not in extras:
        raise AssertionError(f"{order.describe()} does not explain {order.move.uci()} in {board.fen()}")
    least = min(extras.values())
    best = {m for m, n in extras.items() if n == least}
    if extras[order.move] > least:
        return "mimics", best
    return ("tells" if len(best) == 1 else "cannot tell"), best


def run_order(
    board: chess.Board,
    order: Order,
    gaps_s: Sequence[float],
    *,
    reported: bool = False,
    verdict: tuple[Verdict, set[chess.Move]] | None = None,
) -> OrderRun:
    """Make ``order`` on a board read by a fresh recognizer and judge the outcome (module docs)."""
    kind, best = verdict if verdict is not None else verdict_of(Explanations(board), order)
    move = order.move
    recognizer = Recognizer(board)
    reports = scans(board, order, gaps_s, scan_s=None if reported else SCAN_S)
    last_action_t = reports[-1][0] if reported else _last_change(reports)
    # the moment every piece the move involves has left its square (or the mover, for a displacement)
    all_lifted_t = _all_lifted_t(board, order, gaps_s)
    asked = early_false = False
    latency: float | None = None
    answer_t: float | None = None
    for t, occupied in _and_after(reports):
        events = recognizer.feed_occupancy(t, occupied)
        if answer_t is not None and t >= answer_t:
            answer_t = None
            question = recognizer.question
            if question is not None and move in question.options:
                events += recognizer.choose_move(t, move)
        for event in events:
            if isinstance(event, Ambiguous):
                asked = True
                answer_t = t + ANSWER_S
            elif isinstance(event, Committed | Revised) and event.moves:
                if event.moves != (move,) and t >= all_lifted_t and kind != "mimics":
                    early_false = True
                if event.moves == (move,) and latency is None and not asked:
                    latency = max(0.0, event.t - last_action_t)
        done = recognizer.board.move_stack and not recognizer.is_asking and answer_t is None
        if t > last_action_t and done and recognizer.settled_for(t) >= 1.0:
            break
    got = tuple(recognizer.board.move_stack)
    outcome: Outcome
    if got == (move,):
        outcome = "early false" if early_false else ("asked" if asked else "right")
    elif kind == "mimics" and len(got) == 1 and got[0] in best:
        outcome = "mimicked"
    elif got:
        outcome = "false"
    else:
        outcome = "stalled"
    return OrderRun(order, kind, outcome, asked, got, latency, reported, tuple(gaps_s))


def _and_after(reports: Sequence[tuple[float, int]]) -> Iterator[tuple[float, int]]:
    """The reports, then the last one read again every scan for :data:`AFTER_S`."""
    yield from reports
    t0, final = reports[-1]
    for k in range(1, round(AFTER_S / SCAN_S) + 1):
        yield round(t0 + SCAN_S * k, 4), final


def _last_change(reports: Sequence[tuple[float, int]]) -> float:
    for k in range(len(reports) - 1, 0, -1):
        if reports[k][1] != reports[k - 1][1]:
            return reports[k][0]
    return reports[0][0]


def _all_lifted_t(board: chess.Board, order: Order, gaps_s: Sequence[float]) -> float:
    """When the last piece the move involves left its square (the time :func:`scans` gives it)."""
    occupied = int(board.occupied)
    lifted = {a.square for a in order.actions if not a.placed and a.role not in ("neighbour",)}
    t, when = 0.5, 0.5
    for k, action in enumerate(order.actions):
        if k:
            t += gaps_s[(k - 1) % len(gaps_s)]
        if not action.placed and action.square in lifted and occupied & chess.BB_SQUARES[action.square]:
            when = t
        occupied ^= chess.BB_SQUARES[action.square]
    return when + SCAN_S


@dataclass
class OrderTally:
    """Order runs counted the way issue 23 asks."""

    runs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    verdicts: Counter[str] = field(default_factory=Counter)
    questions_emptied: int = 0
    """Questions asked where the victim's square went empty (or the events told): target 0."""
    questions_displaced: int = 0
    """Questions asked where the events could not tell (a victim pushed off unseen, with a rival)."""
    latencies: list[float] = field(default_factory=list)
    faults: list[OrderRun] = field(default_factory=list)

    def add(self, run: OrderRun) -> None:
        self.runs += 1
        self.outcomes[run.outcome] += 1
        self.verdicts[run.verdict] += 1
        if run.asked:
            if run.verdict == "tells":
                self.questions_emptied += 1
            else:
                self.questions_displaced += 1
        if run.latency_s is not None:
            self.latencies.append(run.latency_s)
        if run.fault:
            self.faults.append(run)

    def extend(self, runs: Iterable[OrderRun]) -> OrderTally:
        for run in runs:
            self.add(run)
        return self

    @property
    def without_question(self) -> int:
        return self.outcomes["right"]

    def line(self, label: str) -> str:
        per_1000 = 1000 / max(1, self.runs)
        latency = f"{1000 * statistics.median(self.latencies):4.0f} ms" if self.latencies else "   -   "
        return (
            f"  {label:<28} {self.runs:7d} {self.without_question:7d} "
            f"{self.questions_emptied * per_1000:8.1f} {self.questions_displaced * per_1000:8.1f} "
            f"{self.outcomes['false'] + self.outcomes['early false']:6d} {self.outcomes['stalled']:6d} "
            f"{self.outcomes['mimicked']:6d} {latency}"
        )


HEADER = (
    f"  {'':<28} {'plies':>7} {'no ask':>7} {'ask/1k':>8} {'ask/1k':>8} {'false':>6} {'stall':>6} "
    f"{'mimic':>6} {'latency':>7}\n"
    f"  {'':<28} {'':>7} {'':>7} {'(told)':>8} {'(cannot)':>8}"
)


def runs_of(
    board: chess.Board,
    move: chess.Move,
    *,
    slide: bool = False,
    touch: bool = False,
    start: int = 0,
    both_modes: bool = True,
) -> list[OrderRun]:
    """Every order of ``move`` on ``board`` (:func:`~chessatron.sim.orders.hand_orders`), each made on a
    scanned board and on one that reports its changes (or, not ``both_modes``, on one of them in turn),
    the gaps taken from :data:`GAPS_S` in turn from ``start``."""
    explanations = Explanations(board)
    runs = []
    for k, order in enumerate(hand_orders(board, move, slide=slide, touch=touch), start):
        verdict = verdict_of(explanations, order)
        gaps = GAPS_S[k % len(GAPS_S)]
        modes = (False, True) if both_modes else ((k // len(GAPS_S)) % 2 == 1,)
        for reported in modes:
            runs.append(run_order(board, order, gaps, reported=reported, verdict=verdict))
    return runs
