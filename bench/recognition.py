"""``python -m bench.recognition``: does the recognizer see every move a person makes, and ask only what
the board cannot tell (issues 5, 11 and 23)?

Two families of traces:

* **orders** (:mod:`bench.orders`): every order a hand can make a move in, counted rather than sampled
  (:func:`chessatron.sim.orders.hand_orders`): both castlings of all 960 Chess960 starts for both colours
  in every interleaving of king and rook (each on a scanned board and on one that reports its changes),
  again with a neighbour lifted and put back before, between or after any action, and again with king
  and rook pushed over the squares on their way; every capture geometry in which a piece has rivals
  leaving the same occupancy, with and without a slide; and every ply of the engine games in the
  repository, with and without a slide. Gaps between the actions from 50 ms to 2.5 s. What the events
  can tell is worked out from the events alone, so a question is judged against it: **told** (the events
  fit one move best: a question there is the board's fault; target 0) or **cannot tell** (a victim pushed
  off its square unseen, with a rival; a rival's piece straightened while the mover was in the air);
* **games**: simulated people (``chessatron.sim.hand``) play the engine games on the sensor board, both
  sides, with everything people do (every behaviour of ``chessatron.sim.hand_style.CATALOGUE``): three
  seeds of each game of tests/data/games (every third one a whole-table trace) and one of each extra engine
  game of bench/data/engine-more.pgn; and each behaviour forced on every ply of one standard and one
  Chess960 game. When the recognizer asks, the simulated person answers one to three seconds later.

Prints, in total and by family, kind of move and behaviour: plies recognised **without a question** (an
answered question is a question, not a recognised move), questions per 1,000 plies split into those where
the events told (the victim's square went empty: target 0) and those where they could not (true
displacements), false moves (a move the person did not make, committed even for a moment once every piece
of the move was in hand; target 0), stalls (target 0), the median latency from a move's last sensor change
to its commit (target <= 350 ms), and the holds: how long the robot waits after each person's move before
it answers, beside the holds before issue 23 (8 s after any king or rook move from a castling square).
Beside them, the documented rules of LiBoard's recognizer (``bench.liboard``) on the same game traces.

A trace ends a second after the last move, but a real board keeps scanning: the final arrangement is
scanned on for a few more seconds, so a last move that needs a long still board (a capture by
displacement looks like a piece held in the air until then) is seen as it would be at a real table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from chessatron.game.seats import reply_hold_s
from chessatron.planning.layout import Layout
from chessatron.planning.planner import castling_squares
from chessatron.recognition import Ambiguous, Committed, Illegal, Recognizer, Revised
from chessatron.sim.cases import capture_geometries, castling_case, move_kind
from chessatron.sim.hand_moves import displacement_is_decidable
from chessatron.sim.hand_style import CATALOGUE, Behaviour, HandStyle
from chessatron.sim.scenario import GeneratedTrace, trace_for_moves
from chessatron.sim.trace import MoveChoice, Snapshot, TableSnapshot, TraceEntry, board_bits

from .liboard import LiBoardRules
from .orders import HEADER as ORDERS_HEADER
from .orders import OrderTally, runs_of

SETTLE_S = 0.3
SCAN_S = 0.02
#: How long the board goes on being scanned after the trace ends.
AFTER_S = 4.0
MORE_GAMES = Path(__file__).resolve().parent / "data" / "engine-more.pgn"
LATENCY_TARGET_S = 0.35
#: The holds before issue 23: the plain one, a glide that may go on, and 8 s after any king or rook move
#: from a square of a castling that was legal before it.
BEFORE_HOLDS_S = (1.5, 4.0, 8.0)


@dataclass
class PlyOutcome:
    kind: str
    behaviours: tuple[Behaviour, ...]
    right: bool
    """The final game holds the person's move at this ply."""
    false: bool
    """The final game holds another move at this ply."""
    cannot_tell: bool = False
    """The person captured by displacement and the piece had a rival: the events cannot tell which."""
    latency: float | None = None
    revised: int = 0
    late: int = 0
    asked: bool = False
    hold_s: float | None = None
    """How long the robot waits after this move before it answers (the last commit's hold)."""
    hold_before_s: float | None = None
    """The same by the rule before issue 23."""


@dataclass
class TraceOutcome:
    name: str
    exact: bool
    stalled: bool
    plies: list[PlyOutcome]
    revisions: int = 0
    late_revisions: int = 0
    """Revisions that came after the move had stood untouched for the session's hold: the robot would
    have answered the first reading. At a table the released move then stands, as over the board;
    the correction is the person's next action."""
    asked: int = 0
    illegal: int = 0
    snapshots: int = 0
    cpu_s: float = 0.0
    got: list[str] = field(default_factory=list)

    @property
    def false_moves(self) -> int:
        return sum(p.false for p in self.plies)


@dataclass(frozen=True)
class NamedTrace:
    name: str
    family: str
    trace: GeneratedTrace


def scans_after(trace: GeneratedTrace, seconds: float = AFTER_S) -> list[TraceEntry]:
    """The final arrangement scanned on for ``seconds``: the commonest of the last few scans (a
    one-scan flicker there must not become permanent)."""
    scans = [e for e in trace.entries if isinstance(e, Snapshot | TableSnapshot)][-9:]
    if not scans:
        return []
    last_t = scans[-1].t
    states = Counter(e.occupied if isinstance(e, Snapshot) else e.cells for e in scans)
    final = states.most_common(1)[0][0]
    steps = round(seconds / SCAN_S)
    times = [round(last_t + SCAN_S * k, 6) for k in range(1, steps + 1)]
    if isinstance(final, int):
        return [Snapshot(t, final) for t in times]
    return [TableSnapshot(t, final) for t in times]


def ply_kinds(trace: GeneratedTrace) -> list[tuple[str, bool]]:
    """Each ply's kind of move, and whether the events cannot tell it (a displacement with a rival)."""
    board = chess.Board(trace.game_fen, chess960=trace.chess960)
    kinds = []
    truths = [p for p in trace.plies if p.kind == "move"]
    for move, truth in zip(trace.moves, truths, strict=True):
        pushed = "displacement" in truth.behaviours and not displacement_is_decidable(board, move)
        kinds.append((move_kind(board, move), pushed))
        board.push(move)
    return kinds


def hold_before_s(board: chess.Board, *, may_go_on: bool) -> float:
    """The hold before issue 23: 8 s after any king or rook move from a castling square."""
    move = board.peek()
    before = board.copy()
    before.pop()
    if before.piece_type_at(move.from_square) in (chess.KING, chess.ROOK):
        for castling in before.generate_castling_moves():
            king_from, _, rook_from, _ = castling_squares(before, castling)
            if move.from_square in (king_from, rook_from):
                return BEFORE_HOLDS_S[2]
    return BEFORE_HOLDS_S[1] if may_go_on else BEFORE_HOLDS_S[0]


def run_trace(named: NamedTrace, layout: Layout, *, answer_rng: random.Random) -> TraceOutcome:
    """Replay a trace through the recognizer; a question is answered one to three seconds later with
    the move the person made."""
    trace = named.trace
    board = chess.Board(trace.game_fen, chess960=trace.chess960)
    recognizer = Recognizer(board, settle_s=SETTLE_S, layout=layout)
    expected = list(trace.moves)
    truths = [p for p in trace.plies if p.kind == "move"]
    kinds = ply_kinds(trace)
    outcomes = [
        PlyOutcome(kind, truth.behaviours, right=False, false=False, cannot_tell=pushed)
        for (kind, pushed), truth in zip(kinds, truths, strict=True)
    ]
    revisions = asked = illegal = late = 0
    # the last committed move: its ply, when it stood still, the occupancy it left, how long the robot
    # would wait before answering it, and when the board was first touched again (two scans running)
    standing: list[Any] = []
    answers: list[tuple[float, int]] = []
    """When the person answers, and the half-move they are asked about."""
    entries = [*trace.entries, *scans_after(trace)]
    started = time.process_time()

    def feed(entry: TraceEntry) -> None:
        nonlocal revisions, asked, illegal, late
        for event in recognizer.feed(entry):
            if isinstance(event, Ambiguous):
                asked += 1
                if event.ply < len(outcomes):
                    outcomes[event.ply].asked = True
                    answers.append((round(event.t + answer_rng.uniform(1.0, 3.0), 3), event.ply))
            illegal += isinstance(event, Illegal)
            if isinstance(event, Revised):
                revisions += 1
                first = len(recognizer.board.move_stack) - len(event.moves)
                if first < len(outcomes):
                    outcomes[first].revised += 1
                # a session's robot answers once the move has stood untouched for the hold
                stood = standing and standing[0] == first and standing[4] is not None
                if stood and standing[4] - standing[1] >= standing[3]:
                    late += 1
                    if first < len(outcomes):
                        outcomes[first].late += 1
            if isinstance(event, Committed | Revised) and event.moves:
                stack = recognizer.board.move_stack
                may_go_on = recognizer.may_go_on()
                hold = reply_hold_s(recognizer.board, may_go_on=may_go_on)
                occupied = int(recognizer.board.occupied)
                standing[:] = [len(stack) - 1, recognizer.last_change_t, occupied, hold, None, None]
                if len(stack) - 1 < len(outcomes):
                    outcomes[len(stack) - 1].hold_s = hold
                    outcomes[len(stack) - 1].hold_before_s = hold_before_s(
                        recognizer.board, may_go_on=may_go_on
                    )
            if isinstance(event, Committed):
                count = len(recognizer.board.move_stack)
                for offset, move in enumerate(event.moves):
                    ply = count - len(event.moves) + offset
                    if ply < len(expected) and move == expected[ply] and outcomes[ply].latency is None:
                        outcomes[ply].latency = event.t - truths[ply].last_change_t

    # a real board goes on scanning while the player is asked
    more = scans_after(trace, AFTER_S + 10.0)[len(entries) - len(trace.entries) :]
    for index, entry in enumerate(entries + more):
        if index >= len(entries) and not recognizer.is_asking and not answers:
            break
        while answers and answers[0][0] <= entry.t:
            t, ply = answers.pop(0)
            question = recognizer.question
            # the question may have been settled, or have changed, meanwhile; a person whose move is
            # not among the options cannot answer
            if question is not None and question.ply == ply and expected[ply] in question.options:
                feed(MoveChoice(t, expected[ply]))
        feed(entry)
        if standing and standing[4] is None and isinstance(entry, Snapshot | TableSnapshot):
            seen = entry.occupied if isinstance(entry, Snapshot) else board_bits(entry.cells, layout)
            if seen == standing[2]:
                standing[5] = None
            elif standing[5] is None:
                standing[5] = entry.t  # touched: if it lasts another scan, it counts
            else:
                standing[4] = standing[5]
    cpu = time.process_time() - started
    got = list(recognizer.board.move_stack)
    for ply, outcome in enumerate(outcomes):
        outcome.right = ply < len(got) and got[ply] == expected[ply]
        outcome.false = ply < len(got) and got[ply] != expected[ply]
    stalled = recognizer.is_asking or (len(got) < len(expected) and got == expected[: len(got)])
    return TraceOutcome(
        named.name,
        exact=got == expected,
        stalled=stalled,
        plies=outcomes,
        revisions=revisions,
        late_revisions=late,
        asked=asked,
        illegal=illegal,
        snapshots=len(entries),
        cpu_s=cpu,
        got=[m.uci() for m in got],
    )


def run_comparator(named: NamedTrace) -> TraceOutcome:
    """The same trace through LiBoard's documented rules (they never ask and never revise)."""
    trace = named.trace
    rules = LiBoardRules(chess.Board(trace.game_fen, chess960=trace.chess960), settle_s=SETTLE_S)
    for entry in [*trace.entries, *scans_after(trace)]:
        rules.feed(entry)
    got, expected = rules.board.move_stack, list(trace.moves)
    kinds = ply_kinds(trace)
    truths = [p for p in trace.plies if p.kind == "move"]
    plies = [
        PlyOutcome(
            kind,
            truth.behaviours,
            right=ply < len(got) and got[ply] == expected[ply],
            false=ply < len(got) and got[ply] != expected[ply],
        )
        for ply, ((kind, _), truth) in enumerate(zip(kinds, truths, strict=True))
    ]
    stalled = len(got) < len(expected) and got == expected[: len(got)]
    return TraceOutcome(named.name, exact=got == expected, stalled=stalled, plies=plies)


# --- the traces -----------------------------------------------------------------------------------


def game_traces(
    games: Sequence[tuple[str, chess.pgn.Game]], seeds: int, layout: Layout, family: str = "games"
) -> Iterator[NamedTrace]:
    for name, game in games:
        board, moves = game.board(), list(game.mainline_moves())
        for seed in range(seeds):
            rng = random.Random(f"{name}/{seed}")
            table = seed % 3 == 2
            trace = trace_for_moves(
                board, moves, rng=rng, style=HandStyle.human(), layout=layout, table_trace=table
            )
            yield NamedTrace(f"{name} seed {seed} ({'table' if table else 'board'})", family, trace)


def behaviour_traces(games: Sequence[tuple[str, chess.pgn.Game]], layout: Layout) -> Iterator[NamedTrace]:
    """Each behaviour forced on every ply of the first standard and the first Chess960 game."""
    standard = next(g for g in games if "Variant" not in g[1].headers)
    chess960 = next(g for g in games if "Variant" in g[1].headers)
    for behaviour in CATALOGUE:
        for name, game in (standard, chess960):
            style = HandStyle.only(behaviour)
            table = behaviour == "promote-reserve"
            trace = trace_for_moves(
                game.board(),
                list(game.mainline_moves()),
                rng=random.Random(f"{behaviour}/{name}"),
                style=style,
                layout=layout,
                table_trace=table,
            )
            yield NamedTrace(f"{behaviour}: {name}", "behaviours", trace)


# --- every order -----------------------------------------------------------------------------------


ORDER_PARTS = ("castlings", "captures", "games")


def order_tallies(
    games: Sequence[tuple[str, chess.pgn.Game]], every: int = 1, parts: Sequence[str] = ORDER_PARTS
) -> dict[str, OrderTally]:
    """Every order of the castlings of every ``every``-th Chess960 start (plain, with a touch, with a
    slide), of the captures with rivals and of every ply of ``games`` (plain, with a slide): those of
    ``parts``."""
    tallies: dict[str, OrderTally] = defaultdict(OrderTally)
    count = 0
    for number in range(0, 960, every) if "castlings" in parts else ():
        for colour in chess.COLORS:
            for side in ("O-O", "O-O-O"):
                case = castling_case(number, colour, side)
                board = case.board()
                for label, slide, touch, both in (
                    ("castling", False, False, True),
                    ("castling, a touch", False, True, False),
                    ("castling, sliding", True, False, False),
                ):
                    runs = runs_of(board, case.move, slide=slide, touch=touch, start=count, both_modes=both)
                    count += len(runs)
                    tallies[label].extend(runs)
    for geometry in capture_geometries() if "captures" in parts else ():
        board, moves = geometry.position()
        for move in moves:
            for label, slide in (("captures with rivals", False), ("captures with rivals, sliding", True)):
                runs = runs_of(board, move, slide=slide, start=count)
                count += len(runs)
                tallies[label].extend(runs)
    for _, game in games if "games" in parts else ():
        board = game.board()
        for move in game.mainline_moves():
            if move.promotion in (None, chess.QUEEN):  # an under-promotion is named at a prompt
                for label, slide in (("engine games", False), ("engine games, sliding", True)):
                    runs = runs_of(board.copy(stack=False), move, slide=slide, start=count)
                    count += len(runs)
                    tallies[label].extend(runs)
            board.push(move)
    return tallies


def report_orders(tallies: dict[str, OrderTally]) -> dict[str, float]:
    total = OrderTally()
    for tally in tallies.values():
        total.runs += tally.runs
        total.outcomes.update(tally.outcomes)
        total.verdicts.update(tally.verdicts)
        total.questions_emptied += tally.questions_emptied
        total.questions_displaced += tally.questions_displaced
        total.latencies += tally.latencies
        total.faults += tally.faults
    print("every order a hand can make a move in (issue 23): each a ply")
    print(ORDERS_HEADER)
    for label, tally in tallies.items():
        print(tally.line(label))
    print(total.line("all orders"))
    false = total.outcomes["false"] + total.outcomes["early false"]
    print(
        f"plies recognised without a question: {total.without_question}/{total.runs}; questions where the "
        f"events told: {total.questions_emptied} (target 0), where they could not: "
        f"{total.questions_displaced} ({total.verdicts['cannot tell']} such plies); false moves: {false} "
        f"(target 0); stalls: {total.outcomes['stalled']} (target 0); another move's signature made by the "
        f"hand (the board saw that move): {total.verdicts['mimics']}"
    )
    for run in total.faults[:20]:
        print(f"  fault: {run.order.move.uci()} {run.order.describe()} ({run.outcome})")
    return {
        "order_plies": float(total.runs),
        "order_without_question": float(total.without_question),
        "order_questions_told": float(total.questions_emptied),
        "order_questions_cannot_tell": float(total.questions_displaced),
        "order_false_moves": float(false),
        "order_stalls": float(total.outcomes["stalled"]),
        "order_latency_median_s": statistics.median(total.latencies) if total.latencies else float("nan"),
    }


# --- the report -----------------------------------------------------------------------------------


@dataclass
class Tally:
    plies: int = 0
    right: int = 0
    unasked: int = 0
    false: int = 0
    revised: int = 0
    late: int = 0
    asked_told: int = 0
    asked_cannot: int = 0
    latencies: list[float] = field(default_factory=list)

    def add(self, outcome: PlyOutcome) -> None:
        self.plies += 1
        self.right += outcome.right
        self.unasked += outcome.right and not outcome.asked
        self.false += outcome.false
        self.revised += outcome.revised
        self.late += outcome.late
        self.asked_told += outcome.asked and not outcome.cannot_tell
        self.asked_cannot += outcome.asked and outcome.cannot_tell
        if outcome.latency is not None and not outcome.asked:
            self.latencies.append(outcome.latency)

    def line(self, label: str, comparator: Tally | None = None) -> str:
        latency = f"{1000 * statistics.median(self.latencies):5.0f} ms" if self.latencies else "     -  "
        per_1000 = 1000 / max(1, self.plies)
        text = (
            f"  {label:<34} {self.plies:6d}  {self.unasked:6d}  {self.asked_told * per_1000:6.1f}  "
            f"{self.asked_cannot * per_1000:6.1f}  {self.false:5d}  {self.revised:5d}  {self.late:5d}  "
            f"{latency}"
        )
        if comparator is not None:
            text += f"   | {comparator.right:6d}  {comparator.false:5d}"
        return text


HEADER = (
    f"  {'':<34} {'plies':>6}  {'no ask':>6}  {'ask/1k':>6}  {'ask/1k':>6}  {'false':>5}  {'revsd':>5}  "
    f"{'late':>5}  {'latency':>8}   | LiBoard: right  false\n"
    f"  {'':<34} {'':>6}  {'':>6}  {'(told)':>6}  {'(cant)':>6}"
)


def tallies(outcomes: Iterable[TraceOutcome], key: Callable[[PlyOutcome], Iterable[str]]) -> dict[str, Tally]:
    table: dict[str, Tally] = defaultdict(Tally)
    for trace in outcomes:
        for ply in trace.plies:
            for label in key(ply):
                table[label].add(ply)
    return table


def report_holds(ours: Sequence[TraceOutcome]) -> dict[str, float]:
    """How long the robot waits after each person's move before it answers, now and before issue 23."""
    now = [p.hold_s for o in ours for p in o.plies if p.hold_s is not None]
    before = [p.hold_before_s for o in ours for p in o.plies if p.hold_before_s is not None]
    if not now:
        return {}
    print("\nthe reply holds (the robot answers once the person's move has stood untouched this long):")
    for label, holds in (("now", now), ("before issue 23", before)):
        counts = Counter(holds)
        parts = ", ".join(
            f"{hold:g} s after {n} ({100 * n / len(holds):.1f} %)" for hold, n in sorted(counts.items())
        )
        print(f"  {label:<16} mean {statistics.fmean(holds):.2f} s a move: {parts}")
    return {"hold_mean_s": statistics.fmean(now), "hold_before_mean_s": statistics.fmean(before)}


def report(families: dict[str, list[tuple[TraceOutcome, TraceOutcome]]]) -> dict[str, float]:
    everything = [pair for pairs in families.values() for pair in pairs]
    ours = [o for o, _ in everything]
    theirs = [t for _, t in everything]
    latencies = [p.latency for o in ours for p in o.plies if p.latency is not None and not p.asked]
    plies = sum(len(o.plies) for o in ours)
    total = Tally()
    for trace in ours:
        for ply in trace.plies:
            total.add(ply)
    figures = {
        "traces": float(len(ours)),
        "exact": float(sum(o.exact for o in ours)),
        "false_moves": float(sum(o.false_moves for o in ours)),
        "stalls": float(sum(o.stalled for o in ours)),
        "revisions": float(sum(o.revisions for o in ours)),
        "late_revisions": float(sum(o.late_revisions for o in ours)),
        "asked": float(sum(o.asked for o in ours)),
        "illegal_reports": float(sum(o.illegal for o in ours)),
        "plies": float(plies),
        "without_question": float(total.unasked),
        "questions_told": float(total.asked_told),
        "questions_cannot_tell": float(total.asked_cannot),
        "latency_median_s": statistics.median(latencies) if latencies else float("nan"),
        "cpu_per_snapshot_us": 1e6 * sum(o.cpu_s for o in ours) / max(1, sum(o.snapshots for o in ours)),
        "liboard_exact": float(sum(t.exact for t in theirs)),
        "liboard_false_moves": float(sum(t.false_moves for t in theirs)),
        "liboard_stalls": float(sum(t.stalled for t in theirs)),
    }
    print("\nrecognition of human traces of whole games (issues 11 and 23)")
    for family, pairs in families.items():
        exact = sum(o.exact for o, _ in pairs)
        print(
            f"  {family:<12} {exact:5d}/{len(pairs):<5d} exact, {sum(o.false_moves for o, _ in pairs)} false "
            f"moves, {sum(o.stalled for o, _ in pairs)} stalls   | LiBoard's rules: "
            f"{sum(t.exact for _, t in pairs)}/{len(pairs)} exact, {sum(t.false_moves for _, t in pairs)} "
            f"false moves, {sum(t.stalled for _, t in pairs)} stuck"
        )
    per_1000 = 1000 / max(1, plies)
    print(
        f"plies recognised without a question: {total.unasked}/{plies}; questions per 1,000 plies: "
        f"{total.asked_told * per_1000:.1f} where the events told (the victim's square went empty; "
        "target 0), "
        f"{total.asked_cannot * per_1000:.1f} where they could not (a victim pushed off unseen with a rival)"
    )
    print(
        f"traces recognised exactly: {int(figures['exact'])}/{len(ours)}; "
        f"LiBoard's rules: {int(figures['liboard_exact'])}/{len(ours)} "
        f"(ratio {figures['exact'] / max(1.0, figures['liboard_exact']):.2f})"
    )
    print(
        f"false moves: {int(figures['false_moves'])} (target 0; LiBoard's rules "
        f"{int(figures['liboard_false_moves'])}); stalls: {int(figures['stalls'])} (target 0)"
    )
    print(
        f"revisions: {int(figures['revisions'])} in {plies} plies "
        f"({1000 * figures['revisions'] / max(1, plies):.1f} per 1000); of them after the move stood for "
        f"the robot's hold: {int(figures['late_revisions'])} "
        "(at a table the robot has answered by then and the released move stands); "
        f"illegal-action reports: {int(figures['illegal_reports'])}"
    )
    print(
        f"median latency, last sensor change to commit (moves not asked about): "
        f"{1000 * figures['latency_median_s']:.0f} ms (target <= {1000 * LATENCY_TARGET_S:.0f} ms); "
        f"CPU per snapshot {figures['cpu_per_snapshot_us']:.1f} us"
    )
    figures.update(report_holds(ours))
    by_kind = tallies(ours, lambda p: [p.kind])
    their_kind = tallies(theirs, lambda p: [p.kind])
    print("\nby move kind:")
    print(HEADER)
    for label in sorted(by_kind):
        print(by_kind[label].line(label, their_kind.get(label)))
    by_behaviour = tallies(ours, lambda p: p.behaviours or ("(none)",))
    their_behaviour = tallies(theirs, lambda p: p.behaviours or ("(none)",))
    print("\nby behaviour:")
    print(HEADER)
    for label in [*CATALOGUE, "(none)"]:
        if label in by_behaviour:
            print(by_behaviour[label].line(label, their_behaviour.get(label)))
    failures = [o for o in ours if not o.exact or o.stalled]
    for outcome in failures[:20]:
        first = next((i for i, p in enumerate(outcome.plies) if not p.right), len(outcome.plies))
        print(f"  not exact: {outcome.name}: from ply {first + 1}{' (stalled)' if outcome.stalled else ''}")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recognition", description=__doc__)
    parser.add_argument("--only", choices=["orders", "games", "behaviours"], action="append", default=None)
    parser.add_argument(
        "--every",
        type=int,
        default=1,
        metavar="N",
        help="the orders family on every N-th Chess960 start only (1, all of them, by default)",
    )
    parser.add_argument(
        "--orders",
        action="append",
        choices=ORDER_PARTS,
        default=None,
        help="the orders family's parts to run (all by default)",
    )
    args = parser.parse_args(argv)
    from .__main__ import load_games, read_games

    layout = Layout.default()
    shared = load_games()
    wanted = args.only or ["orders", "games", "behaviours"]
    false = 0
    if "orders" in wanted:
        started = time.monotonic()
        games = [*shared, *read_games(MORE_GAMES)]
        figures = report_orders(order_tallies(games, args.every, args.orders or ORDER_PARTS))
        print(f"({time.monotonic() - started:.0f} s)\n")
        false += int(figures["order_false_moves"])
    sources: dict[str, Callable[[], Iterable[NamedTrace]]] = {
        "games": lambda: [
            *game_traces(shared, 3, layout),
            *game_traces(read_games(MORE_GAMES), 1, layout),
        ],
        "behaviours": lambda: behaviour_traces(shared, layout),
    }
    families: dict[str, list[tuple[TraceOutcome, TraceOutcome]]] = {}
    answer_rng = random.Random(11)
    for family in [f for f in wanted if f in sources]:
        families[family] = [
            (run_trace(named, layout, answer_rng=answer_rng), run_comparator(named))
            for named in sources[family]()
        ]
    if families:
        false += int(report(families)["false_moves"])
    return 0 if false == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
