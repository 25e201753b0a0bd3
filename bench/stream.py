"""``python -m bench.stream``: stream every engine game in tests/data/games to the simulated GRBL.

Each game's program goes through :class:`chessatron.grbl.link.GrblLink` (character counting, 128-byte
buffer) to :class:`chessatron.sim.grbl.SimGrbl` in virtual time (``speed=None``), whose clock runs
GRBL's planner model over the blocks exactly as they reach its 15-block planner. If the streamer let the
planner starve between short moves, the simulated machine would slow down to stop where the plan flows
on, and the streamed time would exceed the planner's prediction (the sum of ``ply.plan.seconds``, and
of the tidying's after each move).
Target: median ratio <= 1.02.

GRBL's step idle delay (``$1``) holds the machine at every stop; both the planner's time model and the
simulated GRBL count it. ``--step-idle-delay-ms 25`` runs the games with GRBL's default ``$1=25`` in the
layout (and so in both); ``--firmware-step-idle-delay-ms 25`` only in the simulated GRBL, to see what a
model that leaves the delay out misses.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import chess.pgn

from chessatron.grbl.link import GrblLink
from chessatron.planning.layout import Layout
from chessatron.planning.table import Table
from chessatron.sim.grbl import SimGrbl
from chessatron.sim.simulate import game_moves, simulate_game
from chessatron.sim.world import SimWorld

from .__main__ import GAMES_DIR, load_games

TARGET = 1.02


def stream_game(
    layout: Layout, name: str, game: chess.pgn.Game, firmware_idle_ms: int | None = None
) -> dict[str, float]:
    """Plan a game, stream its program to a fresh simulated table (whose ``$1`` is the layout's, or
    ``firmware_idle_ms``); the figures of the run."""
    board, moves = game_moves(game)
    _, run = simulate_game(layout, board, moves)
    lines = list(run.program_lines())
    # the program holds each move and, from issue 25 on, the tidying after it: both predicted
    predicted = sum(
        ply.plan.seconds + (ply.tidy.seconds if ply.tidy is not None else 0.0) for ply in run.plies
    )
    world = SimWorld(layout, Table.from_board(layout, board), name=f"bench {name}")
    with (
        SimGrbl(world, speed=None, homing=False, step_idle_delay_ms=firmware_idle_ms) as grbl,
        GrblLink.over(grbl, layout=layout) as link,
    ):
        link.connect()
        before = grbl.machine_s
        started = time.perf_counter()
        result = link.stream(lines)
        wall = time.perf_counter() - started
        streamed = grbl.machine_s - before
        problems = len(grbl.flags) + len(world.twin.violations) + (0 if result.ok else 1)
        if not result.ok:
            print(f"{name}: {result.error}", file=sys.stderr)
    return {
        "lines": len(lines),
        "streamed_s": streamed,
        "predicted_s": predicted,
        "ratio": streamed / predicted,
        "wall_s": wall,
        "problems": problems,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.stream", description=__doc__)
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--games", type=int, default=0, help="only the first N games (0: all)")
    parser.add_argument(
        "--step-idle-delay-ms", type=int, default=None, help="GRBL's $1 in the layout (default: the layout's)"
    )
    parser.add_argument(
        "--firmware-step-idle-delay-ms", type=int, default=None, help="$1 in the simulated GRBL only"
    )
    args = parser.parse_args(argv)
    layout = Layout.default()
    if args.step_idle_delay_ms is not None:
        layout = replace(layout, profile=replace(layout.profile, step_idle_delay_ms=args.step_idle_delay_ms))
    games = load_games()
    if args.games:
        games = games[: args.games]
    if not games:
        print(f"no games found in {GAMES_DIR}", file=sys.stderr)
        return 2
    runs = {}
    for name, game in games:
        figures = runs[name] = stream_game(layout, name, game, args.firmware_step_idle_delay_ms)
        print(
            f"{name:<22} {figures['lines']:5.0f} lines  streamed {figures['streamed_s']:7.1f} s  "
            f"planned {figures['predicted_s']:7.1f} s  x{figures['ratio']:.4f}  "
            f"({figures['wall_s']:.2f} s wall, {figures['problems']:.0f} problems)",
            flush=True,
        )
    ratios = [figures["ratio"] for figures in runs.values()]
    problems = sum(figures["problems"] for figures in runs.values())
    median = statistics.median(ratios)
    print()
    idle = layout.profile.step_idle_delay_ms
    firmware = idle if args.firmware_step_idle_delay_ms is None else args.firmware_step_idle_delay_ms
    print(
        f"streamed machine time / planner prediction: median {median:.4f} (max {max(ratios):.4f}) over "
        f"{len(runs)} games  (target <= {TARGET}; $1={firmware} in grbl, {idle} in the model)"
    )
    print(f"problems (stream errors, protocol flags, twin violations): {problems:.0f}")
    if args.json:
        summary = {"games": len(runs), "ratio_median": median, "ratio_max": max(ratios), "runs": runs}
        args.json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0 if median <= TARGET and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
