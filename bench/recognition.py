"""Recognition benchmark (issue 5): human-like noisy traces of every game in ../shared/games/, several
seeds each (both capture orders, slides, nudges, hesitations, rook-first castling, flicker, promotions),
replayed through the recognizer.

Prints: games recognised exactly / total (target: all); false moves committed (a committed move that is
not the next move of the game and is not later revised away; target 0); median latency from a move's last
sensor change to its commit, trace time (target <= settle + 50 ms); CPU per snapshot.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import chess
import chess.pgn

from chessatron.layout import Layout
from chessatron.recognition import Committed, Recognizer, Revised
from chessatron.sim.hand import GeneratedTrace, HandStyle, trace_for_moves
from chessatron.sim.trace import TableSnapshot

SETTLE_S = 0.3


@dataclass
class TraceResult:
    exact: bool
    false_commits: int
    latencies: list[float]
    snapshots: int
    cpu_s: float
    got: list[str]


def run_trace(trace: GeneratedTrace, layout: Layout, settle_s: float = SETTLE_S) -> TraceResult:
    board = chess.Board(trace.game_fen, chess960=trace.chess960)
    recognizer = Recognizer(board, settle_s=settle_s, layout=layout)
    expected = [m.uci() for m in trace.moves]
    false_commits = 0
    latencies: list[float] = []
    truth_t = [p.last_change_t for p in trace.plies if p.move is not None]
    started = time.process_time()
    for entry in trace.entries:
        for event in recognizer.feed(entry):
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
        got == expected, min(false_commits, false_final), latencies, len(trace.entries), cpu, got
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
    }
    print(f"recognition: {exact}/{len(results)} traces recognised exactly (target: all)")
    print(f"false moves committed: {int(figures['false_moves'])} (target 0)")
    print(
        f"median latency, last sensor change to commit: {1000 * figures['latency_median_s']:.0f} ms "
        f"(target <= settle {1000 * SETTLE_S:.0f} + 50 ms)"
    )
    print(f"CPU per snapshot: {figures['cpu_per_snapshot_us']:.1f} us")
    for line in failures[:15]:
        print(f"  {line}")
    return figures


if __name__ == "__main__":
    from .__main__ import load_games

    main(load_games())
