"""``python -m bench.puzzles``: from one puzzle's end to the next puzzle ready on the board (issues 24, 37).

A store of lichess-like puzzles made from engine games (:mod:`bench.puzzle_source`: 20,480 of them,
positions from real play, ratings spread around 1500) is imported, and a simulated person solves
puzzles one after another on the simulated table, at the table's real speed (the digital twin's
seconds, GRBL's acceleration and its stops counted). Each puzzle is set up from where the last one left
the pieces (its line played out), then the robot makes the opponent's first move.

The person's rating follows their results (Glicko-2; they solve a puzzle as often as a player of 1650
would: the Elo expectation), and the next puzzle is chosen near it, twice over, on two tables:

- **cheapest set-up** (:class:`~chessatron.training.choice.SetupChooser`, as ``chessatron puzzles``
  does): chosen while the person solves the current puzzle, one choice for each rating they can leave
  it with, from where the pieces will stand;
- **random pick**: a puzzle drawn at random from the same window, as before.

The wait from a puzzle's end to the next ready is the choosing and planning CPU not hidden behind the
robot's own answers during the solution (a person's thinking time is taken as none), the set-up and the
opponent's first move. Printed: its median and 90th percentile (targets: 45 and 75 s for the cheapest
set-up), the share of chosen puzzles rated within 150 of the target (target 95 %), the ratings' drift,
the twin's violations (must be 0), and the same for the random pick with the ratio between the two.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import chess

from chessatron.planning.layout import Layout
from chessatron.planning.planner import Plan, Planner
from chessatron.planning.reset import ResetPlanner, arrangement_problems
from chessatron.sim.simulate import TableSimulator
from chessatron.training.choice import WINDOW, SetupChooser
from chessatron.training.puzzle import Puzzle
from chessatron.training.rating import Rating
from chessatron.training.store import NO_FILTERS, PuzzleStore

from .__main__ import percentile
from .puzzle_source import realistic_puzzles

#: The simulated person's playing strength (Elo-like): how often they solve a puzzle of a rating.
STRENGTH = 1650.0


@dataclass
class Run:
    """One table's run: per puzzle after the first, the wait and its parts."""

    name: str
    waits: list[float] = field(default_factory=list)
    machine: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    shown: list[float] = field(default_factory=list)
    """CPU not hidden behind the robot's answers."""
    drags: list[int] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    """Chosen rating minus the target."""
    violations: int = 0


def run(store: PuzzleStore, layout: Layout, *, cheapest: bool, puzzles: int, seed: int) -> Run:
    rng = random.Random(seed)
    chooser = SetupChooser(store, ResetPlanner(Planner(layout)))
    result = Run("cheapest set-up" if cheapest else "random pick")
    sim = TableSimulator(layout, chess.Board())
    rating = Rating()
    hidden = 0.0  # machine seconds of the robot's answers during the last solution
    chosen: dict[float, tuple[Puzzle, Plan]] = {}
    done: list[str] = []
    targets = [rating.rating]
    for number in range(puzzles + 1):
        started = time.process_time()
        for target in targets:
            chosen[target] = _choose(chooser, sim, target, done, rng, cheapest)
        cpu = time.process_time() - started
        target = rating.rating
        puzzle, plan = chosen[target]
        line = puzzle.line()
        work = sim.run(plan, f"PUZZLE SETUP {puzzle.puzzle_id}")
        sim.board, sim.plies_played = puzzle.start_board(), 0
        problems = arrangement_problems(sim.table, sim.board)
        first = sim.play(line[0])
        violations = len(work.violations) + len(problems) + len(first.violations)
        if number:  # the first puzzle is set up from the start position: no puzzle's end before it
            shown = max(0.0, cpu - hidden)
            result.waits.append(shown + work.seconds + first.seconds)
            result.machine.append(work.seconds + first.seconds)
            result.cpu.append(cpu)
            result.shown.append(shown)
            result.drags.append(len(plan.relocations))
            result.gaps.append(puzzle.rating - target)
            print(
                f"{result.name:<16} {number:3d} {puzzle.puzzle_id} ({puzzle.rating:4d} for {target:4.0f})  "
                f"{len(plan.relocations):2d} drags  set-up {work.seconds:5.1f} s  first move "
                f"{first.seconds:4.1f} s  CPU {cpu:4.2f} s  ready after {result.waits[-1]:5.1f} s",
                flush=True,
            )
        hidden = 0.0
        for index, move in enumerate(line[1:], start=1):
            ply = sim.play(move)
            violations += len(ply.violations)
            if index % 2 == 0:
                hidden += ply.seconds + ply.tidy_seconds  # the robot's answer: the person waits anyway
        result.violations += violations
        done.append(puzzle.puzzle_id)
        expected = 1 / (1 + 10 ** ((puzzle.rating - STRENGTH) / 400))
        outcomes = [
            rating.after(puzzle.rating, puzzle.rating_deviation, solved=solved) for solved in (True, False)
        ]
        rating = outcomes[0] if rng.random() < expected else outcomes[1]
        # the table prepares the next puzzle for either outcome, before it knows which
        targets = sorted({outcome.rating for outcome in outcomes})
        chosen = {}
    return result


def _choose(
    chooser: SetupChooser,
    sim: TableSimulator,
    target: float,
    done: list[str],
    rng: random.Random,
    cheapest: bool,
) -> tuple[Puzzle, Plan]:
    if cheapest:
        choice = chooser.choose(sim.table, target, NO_FILTERS, at=sim.writer.position, rng=rng, avoid=done)
        assert choice.plan is not None
        return choice.puzzle, choice.plan
    inventory = sim.table.inventory()
    for candidate in chooser.store.candidates(
        target, windows=(WINDOW, 300, 600, 10_000), rng=rng, avoid=done
    ):
        puzzle = chooser.store.puzzle(candidate)
        board = puzzle.start_board()
        if not Counter(piece.symbol() for piece in board.piece_map().values()) - inventory:
            return puzzle, chooser.resetter.plan(sim.table, board, at=sim.writer.position)
    raise RuntimeError(f"no puzzle near {target:.0f} fits the table")


def summary(result: Run) -> list[str]:
    within = sum(1 for gap in result.gaps if abs(gap) <= WINDOW) / len(result.gaps)
    median = statistics.median
    return [
        f"{result.name}: from a puzzle's end to the next ready: median {median(result.waits):.1f} s, "
        f"90th percentile {percentile(result.waits, 0.9):.1f} s (the machine: median "
        f"{median(result.machine):.1f} s, {median(result.drags):.0f} drags)",
        f"  choosing and planning CPU: median {median(result.cpu):.2f} s, max {max(result.cpu):.2f} s; "
        f"not hidden behind the robot's answers: median {median(result.shown):.2f} s",
        f"  ratings within {WINDOW} of the target: {100 * within:.0f} %; drift (chosen - target): mean "
        f"{statistics.mean(result.gaps):+.0f}, mean distance {statistics.mean(map(abs, result.gaps)):.0f}",
        f"  twin violations {result.violations}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.puzzles", description=__doc__)
    parser.add_argument("--puzzles", type=int, default=50, help="how many puzzles in a row")
    parser.add_argument("--store", type=int, default=20_480, help="how many puzzles the store holds")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--no-random", action="store_true", help="skip the random pick's run")
    args = parser.parse_args(argv)
    layout = Layout.default()
    source = realistic_puzzles(args.store)
    with tempfile.TemporaryDirectory() as folder:
        store = PuzzleStore(Path(folder) / "training.sqlite3", starter=False)
        imported = store.import_file(source)
        print(f"store: {imported.puzzles:,} puzzles from {source}", flush=True)
        runs = [run(store, layout, cheapest=True, puzzles=args.puzzles, seed=args.seed)]
        if not args.no_random:
            runs.append(run(store, layout, cheapest=False, puzzles=args.puzzles, seed=args.seed))
    print()
    for result in runs:
        print("\n".join(summary(result)))
    if len(runs) == 2:
        cheapest, randomly = (statistics.median(r.waits) for r in runs)
        print(f"the random pick waits {randomly / cheapest:.1f} times as long (medians)")
    return 1 if any(r.violations for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
