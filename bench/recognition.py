"""``python -m bench.recognition``: does the recognizer see every move a person makes (issues 5 and 11)?

Simulated people (``chessatron.sim.hand``) play traces on the sensor board, making everything people do
(every behaviour of ``chessatron.sim.hand_style.CATALOGUE``), and the recognizer replays the scans:

* **games**: every game of tests/data/games/ (three seeds each, a realistic mix of behaviours, every
  third trace of the whole table) and the extra engine games of bench/data/engine-more.pgn (one seed);
* **behaviours**: each behaviour of the catalogue forced on every ply of one standard and one Chess960
  game;
* **captures**: every capture geometry in which a piece has two or more captures leaving the same
  occupancy (``chessatron.sim.cases``), each capture in each order (victim first, mover first,
  displacement), with pauses from 50 ms to 3 s between the actions;
* **castlings**: both castlings of every Chess960 start, the four orders in turn (king first, rook
  first, both in hand with either set down first), with the same pauses.

When the recognizer asks which move was made (:class:`~chessatron.recognition.Ambiguous`), the simulated
person answers after one to three seconds, as a player at the board answers the prompt.

Prints, in total and by behaviour and by move kind: traces recognised exactly (targets: all), false moves
(a move in the final game that the person did not make: 0), stalls (a question still open, or moves
missing, at the end: 0), revisions (a committed move replaced later: the session holds the robot's reply
until the board is firm, so these must be rare), questions asked, illegal-action reports, and the median
latency from an unambiguous move's last sensor change to its commit (target <= 350 ms). Beside it, the
documented rules of LiBoard's recognizer (``bench.liboard``) run on the same traces, as the comparator.

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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from chessatron.game.seats import reply_hold_s
from chessatron.planning.layout import Layout
from chessatron.recognition import Ambiguous, Committed, Illegal, Recognizer, Revised
from chessatron.sim.cases import capture_geometries, castling_case, move_kind
from chessatron.sim.hand_style import CATALOGUE, GROUPS, Behaviour, HandStyle
from chessatron.sim.scenario import GeneratedTrace, trace_for_moves
from chessatron.sim.trace import MoveChoice, Snapshot, TableSnapshot, TraceEntry, board_bits

from .liboard import LiBoardRules

SETTLE_S = 0.3
SCAN_S = 0.02
#: How long the board goes on being scanned after the trace ends.
AFTER_S = 4.0
#: Pauses between the actions of the generated capture and castling traces.
PAUSES_S = (0.05, 0.5, 3.0)
MORE_GAMES = Path(__file__).resolve().parent / "data" / "engine-more.pgn"
LATENCY_TARGET_S = 0.35


@dataclass
class PlyOutcome:
    kind: str
    behaviours: tuple[Behaviour, ...]
    right: bool
    """The final game holds the person's move at this ply."""
    false: bool
    """The final game holds another move at this ply."""
    latency: float | None = None
    revised: int = 0
    late: int = 0
    asked: bool = False


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


def ply_kinds(trace: GeneratedTrace) -> list[str]:
    board = chess.Board(trace.game_fen, chess960=trace.chess960)
    kinds = []
    for move in trace.moves:
        kinds.append(move_kind(board, move))
        board.push(move)
    return kinds


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
        PlyOutcome(kind, truth.behaviours, right=False, false=False)
        for kind, truth in zip(kinds, truths, strict=True)
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
                standing[:] = [
                    len(stack) - 1,
                    recognizer.last_change_t,
                    int(recognizer.board.occupied),
                    reply_hold_s(recognizer.board, may_go_on=recognizer.may_go_on()),
                    None,
                    None,
                ]
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
        for ply, (kind, truth) in enumerate(zip(kinds, truths, strict=True))
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


def paused(style: HandStyle, pause_s: float) -> HandStyle:
    """The style with a pause of ``pause_s`` before every action."""
    return replace(style, hesitate=1.0, hesitate_s=(pause_s, pause_s))


def capture_traces(layout: Layout) -> Iterator[NamedTrace]:
    orders: tuple[Behaviour, ...] = GROUPS["capture"]
    count = 0
    for geometry in capture_geometries():
        board, moves = geometry.position()
        for move in moves:
            for order in orders:
                pause = PAUSES_S[count % len(PAUSES_S)]
                count += 1
                trace = trace_for_moves(
                    board,
                    [move],
                    rng=random.Random(f"{geometry}/{move}/{order}"),
                    style=paused(HandStyle.only(order), pause),
                    layout=layout,
                )
                yield NamedTrace(f"{geometry} {move.uci()} {order} pause {pause}", "captures", trace)


def castling_traces(layout: Layout) -> Iterator[NamedTrace]:
    orders: tuple[Behaviour, ...] = GROUPS["castling"]
    for number in range(960):
        for side in ("O-O", "O-O-O"):
            case = castling_case(number, chess.WHITE if number % 2 == 0 else chess.BLACK, side)
            order = orders[(number // 2 + (side == "O-O-O")) % len(orders)]
            pause = PAUSES_S[number % len(PAUSES_S)]
            trace = trace_for_moves(
                case.board(),
                [case.move],
                rng=random.Random(f"{number}/{side}"),
                style=paused(HandStyle.only(order), pause),
                layout=layout,
            )
            yield NamedTrace(f"start {number} {side} {order} pause {pause}", "castlings", trace)


# --- the report -----------------------------------------------------------------------------------


@dataclass
class Tally:
    plies: int = 0
    right: int = 0
    false: int = 0
    revised: int = 0
    late: int = 0
    asked: int = 0
    latencies: list[float] = field(default_factory=list)

    def add(self, outcome: PlyOutcome) -> None:
        self.plies += 1
        self.right += outcome.right
        self.false += outcome.false
        self.revised += outcome.revised
        self.late += outcome.late
        self.asked += outcome.asked
        if outcome.latency is not None and not outcome.asked:
            self.latencies.append(outcome.latency)

    def line(self, label: str, comparator: Tally | None = None) -> str:
        latency = f"{1000 * statistics.median(self.latencies):5.0f} ms" if self.latencies else "     -  "
        text = (
            f"  {label:<34} {self.plies:6d}  {self.right:6d}  {self.false:5d}  {self.revised:5d}  "
            f"{self.late:5d}  {self.asked:5d}  {latency}"
        )
        if comparator is not None:
            text += f"   | {comparator.right:6d}  {comparator.false:5d}"
        return text


HEADER = (
    f"  {'':<34} {'plies':>6}  {'right':>6}  {'false':>5}  {'revsd':>5}  {'late':>5}  {'asked':>5}  "
    f"{'latency':>8}"
    f"   | LiBoard: right  false"
)


def tallies(outcomes: Iterable[TraceOutcome], key: Callable[[PlyOutcome], Iterable[str]]) -> dict[str, Tally]:
    table: dict[str, Tally] = defaultdict(Tally)
    for trace in outcomes:
        for ply in trace.plies:
            for label in key(ply):
                table[label].add(ply)
    return table


def report(families: dict[str, list[tuple[TraceOutcome, TraceOutcome]]]) -> dict[str, float]:
    everything = [pair for pairs in families.values() for pair in pairs]
    ours = [o for o, _ in everything]
    theirs = [t for _, t in everything]
    latencies = [p.latency for o in ours for p in o.plies if p.latency is not None and not p.asked]
    plies = sum(len(o.plies) for o in ours)
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
        "latency_median_s": statistics.median(latencies) if latencies else float("nan"),
        "cpu_per_snapshot_us": 1e6 * sum(o.cpu_s for o in ours) / max(1, sum(o.snapshots for o in ours)),
        "liboard_exact": float(sum(t.exact for t in theirs)),
        "liboard_false_moves": float(sum(t.false_moves for t in theirs)),
        "liboard_stalls": float(sum(t.stalled for t in theirs)),
    }
    print("recognition of human traces (issue 11)")
    for family, pairs in families.items():
        exact = sum(o.exact for o, _ in pairs)
        print(
            f"  {family:<12} {exact:5d}/{len(pairs):<5d} exact, {sum(o.false_moves for o, _ in pairs)} false "
            f"moves, {sum(o.stalled for o, _ in pairs)} stalls   | LiBoard's rules: "
            f"{sum(t.exact for _, t in pairs)}/{len(pairs)} exact, {sum(t.false_moves for _, t in pairs)} "
            f"false moves, {sum(t.stalled for _, t in pairs)} stuck"
        )
    print(
        f"traces recognised exactly: {int(figures['exact'])}/{len(ours)} (target: all); "
        f"LiBoard's rules: {int(figures['liboard_exact'])}/{len(ours)} "
        f"(ratio {figures['exact'] / max(1.0, figures['liboard_exact']):.2f})"
    )
    print(
        f"false moves: {int(figures['false_moves'])} (target 0; LiBoard's rules "
        f"{int(figures['liboard_false_moves'])}); stalls: {int(figures['stalls'])} (target 0)"
    )
    per_1000 = 1000 * figures["revisions"] / max(1, plies)
    print(
        f"revisions: {int(figures['revisions'])} in {plies} plies ({per_1000:.1f} per 1000); "
        f"of them after the move stood for the robot's hold: {int(figures['late_revisions'])} "
        "(at a table the robot has answered by then and the released move stands); "
        f"questions asked: {int(figures['asked'])}; illegal-action reports: "
        f"{int(figures['illegal_reports'])}"
    )
    print(
        f"median latency, last sensor change to commit (unambiguous moves): "
        f"{1000 * figures['latency_median_s']:.0f} ms (target <= {1000 * LATENCY_TARGET_S:.0f} ms); "
        f"CPU per snapshot {figures['cpu_per_snapshot_us']:.1f} us"
    )
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
    parser.add_argument(
        "--only", choices=["games", "behaviours", "captures", "castlings"], action="append", default=None
    )
    args = parser.parse_args(argv)
    from .__main__ import load_games, read_games

    layout = Layout.default()
    shared = load_games()
    wanted = args.only or ["games", "behaviours", "captures", "castlings"]
    sources: dict[str, Callable[[], Iterable[NamedTrace]]] = {
        "games": lambda: [
            *game_traces(shared, 3, layout),
            *game_traces(read_games(MORE_GAMES), 1, layout),
        ],
        "behaviours": lambda: behaviour_traces(shared, layout),
        "captures": lambda: capture_traces(layout),
        "castlings": lambda: castling_traces(layout),
    }
    families: dict[str, list[tuple[TraceOutcome, TraceOutcome]]] = {}
    answer_rng = random.Random(11)
    for family in wanted:
        families[family] = [
            (run_trace(named, layout, answer_rng=answer_rng), run_comparator(named))
            for named in sources[family]()
        ]
    figures = report(families)
    return 0 if figures["false_moves"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
