"""Set-ups from wherever the table stands (issue 25), for ``python -m bench``.

After each engine game the table is set up for a Chess960 start of its own (the number drawn from the
game's name, never 518), in the twin:

* **from the start position**: from a table set up for the standard start (as delivered);
* **from another game**: from the table as the game left it (its final position, the captured pieces in
  their zones);
* **from a stopped set-up**: the set-up from another game was stopped after half of its drags, the journal
  saying the table is half-built, and is taken up again:

  - *half-built* (the table stands as the journal says): the time is the stopped set-up's drags and the
    resumed one's together, against the set-up from another game without a stop;
  - *after a crash* (the process died: the simulator's table was saved last before the set-up began): the
    resumed set-up's time, from the game's final table, against the same set-up without a stop;
  - *table changed since* (the table was set up as delivered since, or another game was played on it): the
    resumed set-up's time, from the start position, against the set-up from the start position.

  Each is weighed against the set-up with nothing journaled from the same table and the same place of the
  magnet: after a crash or a change the magnet stands where the stop left it, and a set-up begun
  elsewhere is another problem (it may be a second or two shorter or longer by where it starts, whatever
  the journal said). The figures from where the game left the magnet are printed beside them.

  Before issue 25 a resumed game first put the pieces back where its journal says they are
  (:meth:`~chessatron.planning.reset.ResetPlanner.plan_arrangement`: the half-built position) and then ran
  the drags its set-up had left; from issue 25 on one plan goes from the table that stands to the game's
  start (:meth:`~chessatron.planning.reset.ResetPlanner.resume`).

Target: a set-up from a stopped set-up takes no longer than a set-up from where the table stands without a
stop (each game's ratio; the tour's search has a CPU budget, so a plan made again may differ by a few
tenths of a second).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import chess

from chessatron.planning.layout import Layout, MachinePoint
from chessatron.planning.planner import Plan, Relocation
from chessatron.planning.reset import arrangement_problems
from chessatron.planning.table import Table
from chessatron.sim.simulate import TableSimulator


def target_of(name: str) -> chess.Board:
    """The Chess960 start the table is set up for after game ``name`` (never the standard one)."""
    number = random.Random(f"set-up after {name}").randrange(959)
    return chess.Board.from_chess960_pos(number if number < 518 else number + 1)


@dataclass
class SetupTotals:
    """Machine seconds of each way to set the table up, a game each, and what the twin saw."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    ratios: list[float] = field(default_factory=list)
    """Each game's longest set-up from a stopped set-up over the one from the same table and the same place
    of the magnet without a stop."""
    elsewhere: list[float] = field(default_factory=list)
    """The same, the set-ups without a stop begun where the game left the magnet."""
    violations: int = 0

    def add(self, way: str, seconds: float) -> None:
        self.seconds.setdefault(way, []).append(seconds)


#: The ways, in the order they are reported.
WAYS = (
    "from the start position",
    "from another game",
    "stopped, half-built",
    "stopped, after a crash",
    "stopped, table changed since",
)


def run(sim: TableSimulator, totals: SetupTotals, plans: Sequence[Plan], title: str) -> float:
    """Execute ``plans`` one after the other in the twin: their machine seconds."""
    seconds = 0.0
    for plan in plans:
        work = sim.run(plan, title)
        totals.violations += len(work.violations)
        seconds += work.seconds
    return seconds


def resumed(
    sim: TableSimulator, target: chess.Board, journaled: Table, rest: Sequence[Relocation]
) -> list[Plan]:
    """The plans a resumed game runs to finish its set-up from the table that stands in ``sim``, the
    journal saying it stands as ``journaled`` with the drags ``rest`` still to do."""
    resetter, at = sim.resetter, sim.writer.position
    if hasattr(resetter, "resume"):  # issue 25: one plan from where the table stands
        stands_as_journaled = sim.table.placement() == journaled.placement()
        return [resetter.resume(sim.table, target, rest if stands_as_journaled else (), at=at)]
    # before issue 25: the pieces put back where the journal says, then the rest of the set-up (its
    # pieces found by where they stand, as a resumed session reads them from the journal)
    back = resetter.plan_arrangement(sim.table, journaled, at)
    scratch = sim.table.copy()
    back.apply(scratch)
    found = []
    for relocation in rest:
        piece = scratch.piece_at(relocation.start)
        assert piece is not None and piece.symbol == relocation.piece.symbol
        found.append(Relocation(piece, relocation.path, relocation.purpose))
        scratch.relocate(piece.id, relocation.goal)
    end = back.end_mm if back.relocations else at
    return [back, Plan(tuple(found), 0.0, end, sim.layout.node_mm(rest[-1].goal) if rest else end)]


def measure(
    layout: Layout, name: str, final: Table, gantry: MachinePoint, totals: SetupTotals
) -> dict[str, float]:
    """Set the table up for game ``name``'s target every way (see the module docs); seconds by way."""
    target = target_of(name)
    found: dict[str, float] = {}

    def done(way: str, sim: TableSimulator, seconds: float) -> None:
        problems = arrangement_problems(sim.table, target)
        totals.violations += len(problems)
        totals.add(way, seconds)
        found[way] = seconds

    start = TableSimulator(layout, chess.Board())
    from_start = run(start, totals, [start.resetter.plan(start.table, target)], "SETUP")
    done("from the start position", start, from_start)
    whole = TableSimulator(layout, chess.Board(), table=final, start_mm=gantry)
    plan = whole.resetter.plan(whole.table, target, at=whole.writer.position)
    full = run(whole, totals, [plan], "SETUP")
    done("from another game", whole, full)
    half = len(plan.relocations) // 2
    first = Plan(plan.relocations[:half], 0.0, plan.start_mm, layout.node_mm(plan.relocations[half - 1].goal))
    rest = plan.relocations[half:]
    stopped = TableSimulator(layout, chess.Board(), table=final, start_mm=gantry)
    before_stop = run(stopped, totals, [first], "SETUP")
    journaled = stopped.table.copy()
    resumed_s = run(stopped, totals, resumed(stopped, target, journaled, rest), "SETUP (resumed)")
    done("stopped, half-built", stopped, before_stop + resumed_s)
    there = stopped.writer.position
    crashed = TableSimulator(layout, chess.Board(), table=final, start_mm=there)
    crash_s = run(crashed, totals, resumed(crashed, target, journaled, rest), "SETUP (resumed)")
    done("stopped, after a crash", crashed, crash_s)
    changed = TableSimulator(layout, chess.Board(), start_mm=there)
    changed_s = run(changed, totals, resumed(changed, target, journaled, rest), "SETUP (resumed)")
    done("stopped, table changed since", changed, changed_s)
    # the same set-ups with nothing journaled, the magnet where the stop left it
    game_there = TableSimulator(layout, chess.Board(), table=final, start_mm=there)
    game_there_s = run(
        game_there, totals, [game_there.resetter.plan(game_there.table, target, there)], "SETUP"
    )
    start_there = TableSimulator(layout, chess.Board(), start_mm=there)
    start_there_s = run(
        start_there, totals, [start_there.resetter.plan(start_there.table, target, there)], "SETUP"
    )
    half_built = (before_stop + resumed_s) / full
    totals.ratios.append(max(half_built, crash_s / game_there_s, changed_s / start_there_s))
    totals.elsewhere.append(max(half_built, crash_s / full, changed_s / from_start))
    return found


def figures(totals: SetupTotals) -> dict[str, Any]:
    return {
        "setup_seconds_median": {way: statistics.median(values) for way, values in totals.seconds.items()},
        "setup_seconds_max": {way: max(values) for way, values in totals.seconds.items()},
        "setup_stopped_over_unstopped_median": statistics.median(totals.ratios),
        "setup_stopped_over_unstopped_max": max(totals.ratios),
        "setup_stopped_over_unstopped_elsewhere_median": statistics.median(totals.elsewhere),
        "setup_stopped_over_unstopped_elsewhere_max": max(totals.elsewhere),
        "setup_twin_violations": totals.violations,
    }
