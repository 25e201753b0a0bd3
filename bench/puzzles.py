"""``python -m bench.puzzles``: from one puzzle's end to the next puzzle ready on the board (issue 24).

Puzzles of the starter set shipped with the package, one after another on the simulated table, in an order
drawn at random (seeded): each is set up from wherever the last one left the pieces (its final position,
the solution played out), then the robot makes the opponent's first move. The time a person waits is the
choice of the next puzzle from the store, the planning (CPU) and the machine's work (the twin's simulated
seconds, GRBL's acceleration and its stops counted); the figures are its median and 90th percentile,
with the twin's violations (collisions, the envelope, a magnet left on), which must be 0.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import chess

from chessatron.planning.layout import Layout
from chessatron.sim.simulate import TableSimulator
from chessatron.training.starter import load_starter
from chessatron.training.store import Filters, PuzzleStore

from .__main__ import percentile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.puzzles", description=__doc__)
    parser.add_argument("--puzzles", type=int, default=50, help="how many puzzles in a row")
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args(argv)
    layout = Layout.default()
    starter = {puzzle.puzzle_id: puzzle for puzzle in load_starter()}
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        store = PuzzleStore(Path(folder) / "training.sqlite3")  # a fresh install: the starter set only
        sim = TableSimulator(layout, chess.Board())
        waits: list[float] = []
        machine: list[float] = []
        planning: list[float] = []
        choosing: list[float] = []
        violations = 0
        played: list[str] = []
        for _ in range(args.puzzles):
            started = time.perf_counter()
            # the next puzzle, as the table chooses it: near a rating, not played in this run
            chosen = store.choose(rng.uniform(900, 2000), Filters(source="starter"), rng=rng, avoid=played)
            chose_s = time.perf_counter() - started
            puzzle = starter[chosen.puzzle_id]
            line = puzzle.line()
            setup = sim.set_up(puzzle.start_board(), title=f"PUZZLE SETUP {puzzle.puzzle_id}")
            first = sim.play(line[0])
            violations += len(setup.violations) + len(first.violations)
            seconds = setup.seconds + first.seconds
            cpu = setup.planning_s + first.planning_s
            waits.append(chose_s + cpu + seconds)
            machine.append(seconds)
            planning.append(cpu)
            choosing.append(chose_s)
            played.append(puzzle.puzzle_id)
            for move in line[1:]:  # solved: the person's moves and the robot's answers, to the end
                violations += len(sim.play(move).violations)
            print(
                f"{puzzle.puzzle_id:<14} {len(setup.plan.relocations):3d} drags  "
                f"set-up {setup.seconds:5.1f} s  first move {first.seconds:4.1f} s  planning {cpu:4.2f} s  "
                f"ready after {waits[-1]:5.1f} s",
                flush=True,
            )
    print()
    distinct = len(set(played))
    print(
        f"{len(waits)} puzzles ({distinct} different) of the starter set's {len(starter)}, twin violations "
        f"{violations}"
    )
    print(
        f"from a puzzle's end to the next ready on the board: median {statistics.median(waits):.1f} s, "
        f"90th percentile {percentile(waits, 0.9):.1f} s"
    )
    print(
        f"  of which the machine: median {statistics.median(machine):.1f} s; planning CPU: median "
        f"{statistics.median(planning):.2f} s, max {max(planning):.2f} s; choosing the puzzle: max "
        f"{1000 * max(choosing):.0f} ms"
    )
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
