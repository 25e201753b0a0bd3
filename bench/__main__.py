"""``make bench``: the figures the issues ask for, over the engine games in tests/data/games.

Robot moves (issue 2): simulated seconds per move (median, 90th percentile); the game's move time over
the straight-line bound (median over games, target <= 1.05); planning CPU time as a fraction of simulated
execution time (target < 1 %); and the same games through the classic node-by-node planner, as a ratio.

Reset (issue 3): after every game, seconds to reset to the standard start (median) and the ratio to the
assignment bound (median over games, target <= 1.5). Issue 16: the reset as a tour; targets <= 1.10 of the
bound and <= 0.8 of the reset time before it (each figure is printed beside the one measured before
issue 16, kept in ``bench/data/before-issue16.json``), and beside them the floor no order of the drags can
go below (:func:`reset_floors`): the bound plus the least empty travel that can link the drags; and the
floor no tour of any drags goes below: the bound plus one square of travel between drags (two drags
never start and end on one node: the first piece stands there).

Issue 25 (the move stands first, the tidying comes later; set-ups go straight), each beside the figure
measured on the code before it (``bench/data/before-issue25.json``): the robot's move is its reply
(:meth:`~chessatron.planning.planner.Planner.plan_reply`: what leaves the board is parked nearby), the
tidying after it is counted apart (machine seconds a move); the reset's time and its ratio to the bound
(target: no slower than before; the mean is printed too, the median of thirty resets moving by a second
with one game); the set-ups from another game's final position and from a stopped set-up
(:mod:`bench.setups`). Seconds a move count the travel from where the last work left the magnet: after
tidying that is beside the board (a session's ponderer sends it to wait for the next move meanwhile).

GRBL's stepper idle delay ``$1`` holds the machine at every stop; the time model and the twin count it.
The layout's is printed; ``--step-idle-delay-ms 25`` runs with GRBL's default instead. The replies (issue
16) are ``python -m bench.replies``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import numpy as np
from scipy.optimize import linear_sum_assignment

from chessatron.grbl.motion import STEPPERS_ALWAYS_ON
from chessatron.planning.layout import Layout
from chessatron.planning.table import Table
from chessatron.sim.simulate import TableSimulator, game_moves

from . import setups
from .classic import ClassicPlanner

#: The engine games the tests play too (one copy, in the tests' data).
GAMES_DIR = Path(__file__).resolve().parents[1] / "tests" / "data" / "games"
BEFORE = Path(__file__).resolve().parent / "data" / "before-issue16.json"
#: The figures measured on the code before issue 25 (the move stands first; set-ups go straight).
BEFORE_25 = Path(__file__).resolve().parent / "data" / "before-issue25.json"


def read_games(path: Path) -> list[tuple[str, chess.pgn.Game]]:
    """Every game of a PGN file, named ``stem#n``."""
    games = []
    with path.open(encoding="utf-8") as handle:
        n = 0
        while (game := chess.pgn.read_game(handle)) is not None:
            n += 1
            games.append((f"{path.stem}#{n}", game))
    return games


def load_games() -> list[tuple[str, chess.pgn.Game]]:
    """Every game of tests/data/games/."""
    return [named for path in sorted(GAMES_DIR.glob("*.pgn")) for named in read_games(path)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def load_before(step_idle_delay_ms: int) -> dict[str, Any]:
    """The figures measured before issue 16 (:data:`BEFORE`), if they were measured with this ``$1``."""
    if not BEFORE.is_file():
        return {}
    before: dict[str, Any] = json.loads(BEFORE.read_text(encoding="utf-8"))
    return before if before.get("step_idle_delay_ms") == step_idle_delay_ms else {}


def load_before_25(step_idle_delay_ms: int) -> dict[str, Any]:
    """The figures measured before issue 25 (:data:`BEFORE_25`), if they were measured with this ``$1``."""
    if not BEFORE_25.is_file():
        return {}
    before: dict[str, Any] = json.loads(BEFORE_25.read_text(encoding="utf-8"))
    return before if before.get("step_idle_delay_ms") == step_idle_delay_ms else {}


def reset_floors(sim: TableSimulator, target: chess.Board) -> tuple[float, float]:
    """Seconds no set-up of ``sim``'s table for ``target`` can go below, two ways, each its bound (every
    misplaced piece dragged straight, magnet time included) plus the least empty travel between drags:

    - for the planner's assignment: the least travel that can link the drags, from the start point to a
      drag's start and from every drag's end to another's start, each used once (the assignment
      relaxation of the tour: no drag order travels less);
    - whatever the order or chaining: one square at rapid between two drags, from rest to rest (the next
      drag's piece cannot stand where the last one was just set down).
    """
    timer, layout, table = sim.planner.timer, sim.layout, sim.table
    goals = sim.resetter.assign(table, target)
    bound = sim.resetter.assignment_bound(table, target)
    drags = [(table.node_of(pid), goal) for pid, goal in goals.items() if table.node_of(pid) != goal]
    count = len(drags)
    # rows: the start point, then each drag's end; columns: each drag's start, then "the last drag"
    cost = np.full((count + 1, count + 1), np.inf)
    for j, (start, _) in enumerate(drags):
        cost[0, j] = timer.travel_s(sim.writer.position, layout.node_mm(start))
        for i, (_, end) in enumerate(drags, start=1):
            if i - 1 != j:
                cost[i, j] = timer.travel_between(end, start)
    cost[1:, count] = 0.0
    rows, columns = linear_sum_assignment(np.where(np.isinf(cost), 1e9, cost))
    one_square = timer.travel_s((0.0, 0.0), (layout.square_mm, 0.0))
    return bound + float(cost[rows, columns].sum()), bound + max(0, count - 1) * one_square


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--games", type=int, default=0, help="only the first N games (0: all)")
    parser.add_argument(
        "--step-idle-delay-ms",
        type=int,
        help="GRBL's $1 for the time model and the twin (default: the layout's)",
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
    move_seconds: list[float] = []
    game_ratios: list[float] = []
    classic_ratios: list[float] = []
    planning_cpu = simulated = 0.0
    reset_seconds: list[float] = []
    reset_ratios: list[float] = []
    reset_cpu: list[float] = []
    floor_ratios: list[float] = []
    link_floors: list[float] = []
    tidy_seconds: list[float] = []
    setup_totals = setups.SetupTotals()
    violations = 0
    for name, game in games:
        board, moves = game_moves(game)
        sim = TableSimulator(layout, board)
        classic = ClassicPlanner(layout)
        classic_table = Table.from_board(layout, board)
        classic_board = board.copy()
        classic_at = layout.home_mm
        game_time = bound = classic_time = 0.0
        for move in moves:
            ply = sim.play(move)
            violations += len(ply.violations)
            move_seconds.append(ply.seconds)
            tidy_seconds.append(getattr(ply, "tidy_seconds", 0.0))  # (issue 25 on: parked pieces tidied)
            game_time += ply.seconds
            bound += ply.bound_seconds
            planning_cpu += ply.planning_s
            seconds, classic_at = classic.move_seconds(classic_table, classic_board, move, classic_at)
            classic_time += seconds
            classic_board.push(move)
        simulated += game_time
        game_ratios.append(game_time / bound)
        classic_ratios.append(game_time / classic_time)
        setups.measure(layout, name, sim.table, sim.writer.position, setup_totals)
        floor, link_floor = reset_floors(sim, chess.Board())
        setup = sim.set_up(chess.Board())
        violations += len(setup.violations)
        reset_seconds.append(setup.seconds)
        reset_ratios.append(setup.seconds / setup.bound_seconds)
        reset_cpu.append(setup.planning_s)
        floor_ratios.append(floor / setup.bound_seconds)
        link_floors.append(link_floor)
        print(
            f"{name:<20} {len(moves):4d} plies  {game_time:7.1f} s  x{game_time / bound:.3f} of bound  "
            f"x{game_time / classic_time:.3f} of classic  reset {setup.seconds:6.1f} s "
            f"(x{setup.seconds / setup.bound_seconds:.3f})",
            flush=True,
        )
    figures: dict[str, Any] = {
        "games": len(games),
        "moves": len(move_seconds),
        "seconds_per_move_median": statistics.median(move_seconds),
        "seconds_per_move_p90": percentile(move_seconds, 0.9),
        "move_time_over_straight_line_bound_median": statistics.median(game_ratios),
        "move_time_over_classic_planner_median": statistics.median(classic_ratios),
        "planning_cpu_fraction": planning_cpu / simulated,
        "reset_seconds_median": statistics.median(reset_seconds),
        "reset_seconds_mean": statistics.fmean(reset_seconds),
        "reset_over_assignment_bound_median": statistics.median(reset_ratios),
        "reset_planning_cpu_seconds_median": statistics.median(reset_cpu),
        "reset_planning_cpu_seconds_max": max(reset_cpu),
        "reset_floor_over_assignment_bound_median": statistics.median(floor_ratios),
        "reset_link_floor_seconds_median": statistics.median(link_floors),
        "step_idle_delay_ms": layout.profile.step_idle_delay_ms,
        "tidy_seconds_per_move_mean": statistics.fmean(tidy_seconds),
        "twin_violations": violations + setup_totals.violations,
        **setups.figures(setup_totals),
    }
    before = load_before(layout.profile.step_idle_delay_ms)
    before_25 = load_before_25(layout.profile.step_idle_delay_ms)

    def was(key: str, digits: int = 3) -> str:
        return f" (before: {before[key]:.{digits}f})" if key in before else ""

    def was_percent(key: str) -> str:
        return f" (before: {100 * before[key]:.3f} %)" if key in before else ""

    delay = layout.profile.step_idle_delay_ms
    print()
    print(
        f"games {figures['games']}, moves {figures['moves']}, twin violations {violations}; "
        f"GRBL's $1 = {delay} "
        + ("(the motors stay on: no delay at stops)" if delay == STEPPERS_ALWAYS_ON else "ms at every stop")
    )
    print(
        f"simulated seconds per move: median {figures['seconds_per_move_median']:.2f}"
        f"{was('seconds_per_move_median', 2)}, 90th percentile {figures['seconds_per_move_p90']:.2f}"
        f"{was('seconds_per_move_p90', 2)}"
    )
    print(
        f"move time / straight-line bound: median {figures['move_time_over_straight_line_bound_median']:.3f}"
        f"{was('move_time_over_straight_line_bound_median')}  (target <= 1.05)"
    )
    classic = figures["move_time_over_classic_planner_median"]
    print(
        f"move time / classic node-by-node planner: median {classic:.3f}"
        f"{was('move_time_over_classic_planner_median')}"
    )
    print(
        f"planning CPU / simulated execution: {100 * figures['planning_cpu_fraction']:.3f} %"
        f"{was_percent('planning_cpu_fraction')}  (target < 1 %)"
    )
    reset = figures["reset_seconds_median"]
    share = (
        f", {reset / before['reset_seconds_median']:.3f} of it" if "reset_seconds_median" in before else ""
    )
    print(
        f"reset to the start: median {reset:.1f} s{was('reset_seconds_median', 1)}{share}"
        "  (target <= 0.8 of it)"
    )
    link_floor = figures["reset_link_floor_seconds_median"]
    floor_share = (
        f", {link_floor / before['reset_seconds_median']:.3f} of before"
        if "reset_seconds_median" in before
        else ""
    )
    print(
        f"  no reset of these tables goes below {link_floor:.1f} s{floor_share}: every misplaced piece "
        "dragged straight, one square of travel between drags"
    )
    print(
        f"reset / assignment bound: median {figures['reset_over_assignment_bound_median']:.3f}"
        f"{was('reset_over_assignment_bound_median')}  (target <= 1.10; no order of these drags goes below "
        f"{figures['reset_floor_over_assignment_bound_median']:.3f}: the empty travel that must link them)"
    )
    print(
        f"reset planning CPU: median {figures['reset_planning_cpu_seconds_median']:.2f} s"
        f"{was('reset_planning_cpu_seconds_median', 2)}, "
        f"max {figures['reset_planning_cpu_seconds_max']:.2f} s"
    )
    for line in issue25_report(figures, before_25):
        print(line)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 1 if figures["twin_violations"] else 0


def issue25_report(figures: dict[str, Any], before: dict[str, Any]) -> list[str]:
    """The figures of issue 25 beside those measured before it (:data:`BEFORE_25`)."""

    def was(key: str, digits: int = 2, sub: str | None = None) -> str:
        value = before.get(key)
        if sub is not None and isinstance(value, dict):
            value = value.get(sub)
        return f" (before issue 25: {value:.{digits}f})" if isinstance(value, int | float) else ""

    lines = [
        "",
        "issue 25: the move stands first, the tidying comes later; set-ups go straight",
        f"  robot move (the reply's part) median {figures['seconds_per_move_median']:.2f} s"
        f"{was('seconds_per_move_median')}, p90 {figures['seconds_per_move_p90']:.2f} s"
        f"{was('seconds_per_move_p90')}; tidying after it {figures['tidy_seconds_per_move_mean']:.2f} s a "
        f"move on average{was('tidy_seconds_per_move_mean')}",
    ]
    reset = figures["reset_seconds_median"]
    ratio = figures["reset_over_assignment_bound_median"]
    lines.append(
        f"  reset to the start: median {reset:.1f} s{was('reset_seconds_median', 1)}, mean "
        f"{figures['reset_seconds_mean']:.1f} s{was('reset_seconds_mean', 1)}, x{ratio:.3f} of its bound"
        f"{was('reset_over_assignment_bound_median', 3)}  (target: no slower)"
    )
    medians = figures["setup_seconds_median"]
    for way in setups.WAYS:
        lines.append(
            f"  set-up for a Chess960 start, {way}: median {medians[way]:.1f} s"
            f"{was('setup_seconds_median', 1, way)}, max {figures['setup_seconds_max'][way]:.1f} s"
            f"{was('setup_seconds_max', 1, way)}"
        )
    worst = figures["setup_stopped_over_unstopped_max"]
    lines.append(
        f"  a set-up from a stopped set-up over the same set-up without a stop, the magnet starting where "
        f"the stop left it: median x{figures['setup_stopped_over_unstopped_median']:.3f}, "
        f"worst x{worst:.3f}  (target <= 1)"
    )
    lines.append(
        f"    the set-up without a stop begun where the game left the magnet instead: median "
        f"x{figures['setup_stopped_over_unstopped_elsewhere_median']:.3f}"
        f"{was('setup_stopped_over_unstopped_median', 3)}, "
        f"worst x{figures['setup_stopped_over_unstopped_elsewhere_max']:.3f}"
        f"{was('setup_stopped_over_unstopped_max', 3)}"
    )
    lines.append(f"  twin violations {figures['twin_violations']}{was('twin_violations', 0)}")
    return lines


if __name__ == "__main__":
    sys.exit(main())
