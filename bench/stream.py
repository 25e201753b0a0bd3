"""``python -m bench.stream``: stream every engine game in ../shared/games to the simulated GRBL.

Each game's program goes through :class:`chessatron.grbl.GrblLink` (character counting, 128-byte
buffer) to :class:`chessatron.sim.grbl.SimGrbl` in virtual time (``speed=None``), whose clock runs
GRBL's planner model over the blocks exactly as they reach its 15-block planner. If the streamer let the
planner starve between short moves, the simulated machine would slow down to stop where the plan flows
on, and the streamed time would exceed the planner's prediction (the sum of ``ply.plan.seconds``).
Target: median ratio <= 1.02.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import chess.pgn

from chessatron.grbl import GrblLink
from chessatron.layout import Layout
from chessatron.sim.grbl import SimGrbl
from chessatron.sim.world import SimWorld
from chessatron.simulate import game_moves, simulate_game
from chessatron.table import Table

from .__main__ import GAMES_DIR, load_games

TARGET = 1.02


def stream_game(layout: Layout, name: str, game: chess.pgn.Game) -> dict[str, float]:
    """Plan a game, stream its program to a fresh simulated table; the figures of the run."""
    board, moves = game_moves(game)
    _, run = simulate_game(layout, board, moves)
    lines = list(run.program_lines())
    predicted = sum(ply.plan.seconds for ply in run.plies)
    world = SimWorld(layout, Table.from_board(layout, board), name=f"bench {name}")
    with SimGrbl(world, speed=None, homing=False) as grbl, GrblLink.over(grbl, layout=layout) as link:
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
    args = parser.parse_args(argv)
    layout = Layout.default()
    games = load_games()
    if args.games:
        games = games[: args.games]
    if not games:
        print(f"no games found in {GAMES_DIR}", file=sys.stderr)
        return 2
    runs = {}
    for name, game in games:
        figures = runs[name] = stream_game(layout, name, game)
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
    print(
        f"streamed machine time / planner prediction: median {median:.4f} (max {max(ratios):.4f}) over "
        f"{len(runs)} games  (target <= {TARGET})"
    )
    print(f"problems (stream errors, protocol flags, twin violations): {problems:.0f}")
    if args.json:
        summary = {"games": len(runs), "ratio_median": median, "ratio_max": max(ratios), "runs": runs}
        args.json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0 if median <= TARGET and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
