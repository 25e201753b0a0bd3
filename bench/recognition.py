"""Recognition benchmark (issue 5): human-like noisy traces of every game in ../shared/games/, several
seeds each (both capture orders, slides, nudges, hesitations, rook-first castling, flicker, promotions),
replayed through the recognizer.

Prints: games recognised exactly / total (target: all); false moves committed (a committed move that is
not the next move of the game and is not later revised away; target 0); median latency from a move's last
sensor change to its commit, trace time (target <= settle + 50 ms); CPU per snapshot; and how often the
recognizer asked instead of guessing (:class:`~chessatron.recognition.Ambiguous`) or reported an illegal
action (neither should happen on these legal games).

A trace ends a second after the last move, but a real board keeps scanning: the final arrangement is
scanned on for a few more seconds, so a last move that needs a long still board (a capture by
displacement looks like a piece held in the air until then) is seen as it would be at a real table.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import chess
import chess.pgn

from chessatron.layout import Layout
from chessatron.recognition import Ambiguous, Committed, Illegal, Recognizer, Revised
from chessatron.sim.hand_style import HandStyle
from chessatron.sim.scenario import GeneratedTrace, trace_for_moves
from chessatron.sim.trace import Snapshot, TableSnapshot, TraceEntry

SETTLE_S = 0.3
SCAN_S = 0.02
#: How long the board goes on being scanned after the trace ends.
AFTER_S = 3.0


@dataclass
class TraceResult:
    exact: bool
    false_commits: int
    latencies: list[float]
    snapshots: int
    cpu_s: float
    got: list[str]
    asked: int = 0
    illegal: int = 0


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


def run_trace(trace: GeneratedTrace, layout: Layout, settle_s: float = SETTLE_S) -> TraceResult:
    board = chess.Board(trace.game_fen, chess960=trace.chess960)
    recognizer = Recognizer(board, settle_s=settle_s, layout=layout)
    expected = [m.uci() for m in trace.moves]
    false_commits = asked = illegal = 0
    latencies: list[float] = []
    truth_t = [p.last_change_t for p in trace.plies if p.move is not None]
    entries = [*trace.entries, *scans_after(trace)]
    started = time.process_time()
    for entry in entries:
        for event in recognizer.feed(entry):
            asked += isinstance(event, Ambiguous)
            illegal += isinstance(event, Illegal)
            if isinstance(event, Committed | Revised):
                count = len(recognizer.board.move_stack)
                for offset, move in enumerate(event.moves):
                    ply = count - len(event.moves) + offset
                    if ply >= len(expected) or move.uci() != expected[ply]:
                        false_commits += 1
                    elif isinstance(event, Committed) and ply < len(truth_t):
                        latencies.append(event.t - truth_t[ply])
    cpu = time.process_time() - started
    got = [m.uci() for m in recognizer.board.move_stack]
    # a wrong commit that a later revision replaced is not a false move of the final game
    false_final = sum(1 for a, b in zip(got, expected, strict=False) if a != b) + abs(
        len(got) - len(expected)
    )
    return TraceResult(
        got == expected, min(false_commits, false_final), latencies, len(entries), cpu, got, asked, illegal
    )


def main(games: Sequence[tuple[str, chess.pgn.Game]], seeds: int = 3) -> dict[str, float]:
    layout = Layout.default()
    results: list[TraceResult] = []
    failures: list[str] = []
    for name, game in games:
        board = game.board()
        moves = list(game.mainline_moves())
        for seed in range(seeds):
            rng = random.Random(f"{name}/{seed}")
            trace = trace_for_moves(
                board, moves, rng=rng, style=HandStyle.human(), layout=layout, table_trace=seed % 3 == 2
            )
            result = run_trace(trace, layout)
            results.append(result)
            if not result.exact:
                first = next(
                    (
                        i
                        for i, (a, b) in enumerate(zip(result.got, trace.moves, strict=False))
                        if a != b.uci()
                    ),
                    len(result.got),
                )
                kind = "table" if any(isinstance(e, TableSnapshot) for e in trace.entries[:1]) else "board"
                failures.append(f"{name} seed {seed} ({kind}): diverges at ply {first + 1}")
    exact = sum(r.exact for r in results)
    latencies = [x for r in results for x in r.latencies]
    snapshots = sum(r.snapshots for r in results)
    figures = {
        "traces": float(len(results)),
        "exact": float(exact),
        "false_moves": float(sum(r.false_commits for r in results)),
        "latency_median_s": statistics.median(latencies) if latencies else float("nan"),
        "cpu_per_snapshot_us": 1e6 * sum(r.cpu_s for r in results) / max(1, snapshots),
        "asked": float(sum(r.asked for r in results)),
        "illegal_reports": float(sum(r.illegal for r in results)),
    }
    print(f"recognition: {exact}/{len(results)} traces recognised exactly (target: all)")
    print(f"false moves committed: {int(figures['false_moves'])} (target 0)")
    print(
        f"median latency, last sensor change to commit: {1000 * figures['latency_median_s']:.0f} ms "
        f"(target <= settle {1000 * SETTLE_S:.0f} + 50 ms)"
    )
    print(f"CPU per snapshot: {figures['cpu_per_snapshot_us']:.1f} us")
    print(
        f"asked which move (ambiguous): {int(figures['asked'])}, "
        f"illegal actions reported: {int(figures['illegal_reports'])} (legal games: both should be 0)"
    )
    for line in failures[:15]:
        print(f"  {line}")
    return figures


if __name__ == "__main__":
    from .__main__ import load_games

    main(load_games())
