"""``python -m bench.replies``: how long a person waits for the robot's reply (issue 16).

Reply latency runs from the commit of the person's move (the recognizer names a move made on the
board 0.3 s after the last touch; a typed or clicked move is committed when it is sent) to the robot's
last release of its reply. Two sets of games, each with one side played by a person and the other by
the robot's engine:

* **shared**: the games of ../shared/games as they were played, the person taking White in
  odd-numbered games and Black in the others; the robot's replies are the games' moves;
* **played**: from the same starts, a simulated person against the engine (the person picks among the
  eight best lines of a short search, worse ones less often; first 60 plies).

Each reply is timed twice on one timeline, the machine's part measured by the twin on the very G-code:

* **today** (no pondering): after the commit the engine evaluates the position for the watchers and
  searches its move, then the robot travels from where its last move ended and drags;
* **now** (:mod:`chessatron.game.ponder`): while the person thinks the engine predicts their likely
  moves and searches its reply to each, most likely first, and the magnet waits where the expected
  travel to the reply is shortest; on a hit the reply is ready and the magnet sets off for its first
  drag at once, on a miss the engine searches as today.

Modelled durations (a Raspberry Pi, where searches run to their time caps): the engine's move time
1 s (the session's default level), the prediction 0.25 s and the evaluation 0.3 s (their limits); the
bench's searches themselves are node-limited (deterministic, cheap), and the person thinks for a
log-normal time (median 8 s; from 2.5 s to 25 s for four moves in five), seeded by the game. On the
board the robot also waits until the move has stood 1 s since the last touch (4 s for a first half of
castling: :func:`~chessatron.game.session.reply_hold_s`); typed and clicked moves have no hold.

Targets: on ponder hits, latency within 0.3 s of the drags' own time (the reply's machine time from
its first magnet engage); zero twin violations, pre-positioning included.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import chess
import chess.engine
import chess.pgn

from chessatron.game.engine import (
    ANALYSIS_LIMIT,
    DEFAULT_MOVE_TIME_S,
    PREDICTION_LIMIT,
    EnginePlayer,
    parse_level,
)
from chessatron.game.ponder import (
    MIN_GAIN_S,
    Prediction,
    expected_travel,
    first_lifts,
    likely_moves_of,
    waiting_spot,
)
from chessatron.game.session import reply_hold_s
from chessatron.layout import Layout, Node
from chessatron.recognition import Recognizer
from chessatron.sim.hand_style import HandStyle
from chessatron.simulate import TableSimulator, game_moves
from chessatron.twin import TwinPiece

from .__main__ import load_games, percentile

ENGINE_MOVE_S = DEFAULT_MOVE_TIME_S
PREDICTION_S = PREDICTION_LIMIT.time or 0.0
EVALUATION_S = ANALYSIS_LIMIT.time or 0.0
SETTLE_S = Recognizer.settle_s
#: The bench's engines: full strength, node-limited (the same move every run).
ROBOT_LEVEL = "engine:nodes=20000"
PERSON_LINES = 8
PERSON_TEMPERATURE_CP = 60.0
PLAYED_PLIES = 60
THINK_MEDIAN_S = 8.0
THINK_SIGMA = 0.9
TARGET_HIT_OVERHEAD_S = 0.3

Person = Literal["typed", "board"]
PERSONS: tuple[Person, ...] = ("typed", "board")


@dataclass(frozen=True)
class Reply:
    """One robot reply, timed today and now, for a person typing and one at the board."""

    hit: bool
    searched: int
    today_s: dict[Person, float]
    now_s: dict[Person, float]
    drags_s: dict[Person, float]
    """The reply's own machine time, from its first magnet engage to its last release (now)."""
    hold_s: float
    """How long after the commit the person's move on the board had stood long enough."""


@dataclass
class Tables:
    """One game on a table as it is today, and as it is now for a person typing and one at the board
    (the pieces stand alike on all three; the magnet waits in different places)."""

    today: TableSimulator
    now: dict[Person, TableSimulator]

    @classmethod
    def for_board(cls, layout: Layout, board: chess.Board) -> Tables:
        return cls(TableSimulator(layout, board), {p: TableSimulator(layout, board) for p in PERSONS})

    def all(self) -> list[TableSimulator]:
        return [self.today, *self.now.values()]

    def robot_move(self, move: chess.Move) -> None:
        for sim in self.all():
            sim.play(move)

    def hand_move(self, move: chess.Move) -> None:
        for sim in self.all():
            hand_move(sim, move)


@dataclass
class Totals:
    replies: list[Reply]
    violations: int = 0
    planning_cpu_s: float = 0.0
    machine_s: float = 0.0


def think_time(rng: random.Random) -> float:
    return min(max(rng.lognormvariate(math.log(THINK_MEDIAN_S), THINK_SIGMA), 1.0), 120.0)


def lead_time(rng: random.Random, move: chess.Move) -> float:
    """From the lift of the piece to the commit of its move on the board: the simulated hand's calm
    lift, carry (longer by the squares crossed) and place, and the recognizer's settling time."""
    style = HandStyle.calm()
    squares = chess.square_distance(move.from_square, move.to_square)
    return (
        rng.uniform(*style.lift_s)
        + rng.uniform(*style.carry_s)
        + style.carry_per_square_s * squares
        + rng.uniform(*style.place_s)
        + SETTLE_S
    )


def hand_move(sim: TableSimulator, move: chess.Move) -> None:
    """The person makes ``move``: pieces move (in the twin too), the magnet does not."""
    plan = sim.planner.plan_move(sim.table, sim.board, move, at=sim.writer.position)
    for relocation in plan.relocations:
        piece = sim.twin.lift(relocation.piece.id)
        x, y = sim.layout.node_mm(relocation.goal)
        sim.twin.place(TwinPiece(piece.id, piece.symbol, x, y))
        sim.table.relocate(relocation.piece.id, relocation.goal)
    sim.board.push(move)


def travel(sim: TableSimulator, node: Node) -> tuple[float, int]:
    """The empty magnet to ``node`` through the twin; its seconds and violations."""
    point = sim.layout.node_mm(node)
    if point == sim.writer.position:
        return 0.0, 0
    report = sim.twin.run(["(WAIT FOR THE REPLY)", f"G0 {sim.writer.point(point)}"], finish=True)
    sim.writer.position = point
    return report.seconds, len(report.violations)


def first_start(sim: TableSimulator, board: chess.Board, move: chess.Move | None, reply: chess.Move) -> Node:
    """Where the robot's reply begins: after the person's ``move`` (None: made already)."""
    table, position = sim.table.copy(), board.copy()
    if move is not None:
        sim.planner.plan_move(table, position, move, at=sim.writer.position).apply(table)
        position.push(move)
    plan = sim.planner.plan_move(table, position, reply, at=sim.writer.position)
    return plan.relocations[0].start


class Magnet:
    """Where the magnet waits while a person thinks, on one table: the pondering's travels, timed."""

    def __init__(self, sim: TableSimulator, totals: Totals, commit_s: float) -> None:
        self.sim = sim
        self.totals = totals
        self.commit_s = commit_s
        self.free_at = 0.0  # when the magnet ends the travel under way
        self.known: list[tuple[frozenset[chess.Square], Node, float]] = []

    def wait_near(self, at_s: float, lifted: chess.Square | None) -> None:
        """As :meth:`Ponderer._wait_near` at ``at_s``, the person holding the piece on ``lifted``."""
        timer = self.sim.planner.timer
        cpu = time.process_time()
        held = [entry for entry in self.known if lifted in entry[0]]
        starts = [(start, weight) for _, start, weight in held or self.known]
        if not starts:
            return
        spot, expected = waiting_spot(timer, starts)
        gain = expected_travel(timer, self.sim.writer.position, starts) - expected
        self.totals.planning_cpu_s += time.process_time() - cpu
        departs = max(at_s, self.free_at)
        if gain >= MIN_GAIN_S and departs < self.commit_s:
            seconds, bad = travel(self.sim, spot)
            self.totals.violations += bad
            self.free_at = departs + seconds


class Bench:
    def __init__(self, layout: Layout, robot: EnginePlayer, person: EnginePlayer) -> None:
        self.layout = layout
        self.robot = robot
        self.person = person
        self.totals: dict[str, Totals] = {"shared": Totals([]), "played": Totals([])}

    def reply(
        self,
        part: str,
        sims: Tables,
        think_s: float,
        lead_s: float,
        person_move: chess.Move,
        reply: chess.Move | None,
    ) -> chess.Move:
        """Time the robot's reply to ``person_move``, committed ``think_s`` after the robot's last move
        (on the board the piece was lifted ``lead_s`` before); ``reply``: the game's, or None for the
        engine's own (the foreseen one on a hit). Plays both moves on every table; returns the reply."""
        totals = self.totals[part]
        board = sims.today.board.copy()
        predictions = likely_moves_of(self.robot.likely_moves(board))
        # the engine's side of pondering, the same for every person: the prediction, then its reply to
        # each likely move in turn, then its view of each position; all of it stops at the commit
        t = PREDICTION_S
        answers: list[tuple[Prediction, float, chess.Move]] = []  # the move, when its reply is found
        for prediction in predictions:
            if t >= think_s:
                break
            after = _after(board, prediction.move)
            if after.is_game_over():
                continue
            found_at = t + ENGINE_MOVE_S
            given = reply if prediction.move == person_move else None
            answers.append((prediction, found_at, given or self.robot.best_move(after)))
            t = found_at
        evaluated: dict[chess.Move, tuple[float, float]] = {}
        for prediction, found_at, _ in answers:
            if t >= think_s or found_at > think_s:
                break
            evaluated[prediction.move] = (t, t + EVALUATION_S)
            t += EVALUATION_S
        hit = next((entry for entry in answers if entry[0].move == person_move), None)
        if reply is None:
            reply = hit[2] if hit is not None else self.robot.best_move(_after(board, person_move))
        # today: the evaluation, then the search, then the robot from where its last move ended
        hand_move(sims.today, person_move)
        today_ready = think_s + EVALUATION_S + ENGINE_MOVE_S
        ply_today = sims.today.play(reply)
        totals.violations += len(ply_today.violations)
        if hit is not None:  # the search goes on to its end; the watchers' evaluation follows if not made
            began, done = evaluated.get(person_move, (math.inf, math.inf))
            if done <= think_s:
                ready = think_s
            elif began <= think_s:
                ready = done
            else:
                ready = max(think_s, hit[1]) + EVALUATION_S
        else:  # a prediction under way ends first (a search or an evaluation ahead stops at once)
            ready = max(think_s, PREDICTION_S) + EVALUATION_S + ENGINE_MOVE_S
        played = _after(board, person_move)
        hold_end = think_s - SETTLE_S + reply_hold_s(played)
        lifted_at = think_s - lead_s
        today_s: dict[Person, float] = {}
        now_s: dict[Person, float] = {}
        drags: dict[Person, float] = {}
        for person in PERSONS:
            sim = sims.now[person]
            timer = sim.planner.timer
            magnet = Magnet(sim, totals, think_s)
            lift_seen = person == "board" and lifted_at > 0.0
            start_known = False
            for prediction, found_at, answer in answers:
                if found_at > think_s:
                    continue
                if lift_seen and lifted_at <= found_at:
                    magnet.wait_near(lifted_at, person_move.from_square)
                    lift_seen = False
                cpu = time.process_time()
                start = first_start(sim, board, prediction.move, answer)
                totals.planning_cpu_s += time.process_time() - cpu
                magnet.known.append((first_lifts(board, prediction.move), start, prediction.probability))
                start_known = start_known or prediction.move == person_move
                lifted = person_move.from_square if person == "board" and lifted_at <= found_at else None
                magnet.wait_near(found_at, lifted)
            if lift_seen:
                magnet.wait_near(lifted_at, person_move.from_square)
            # the commit: on a hit the magnet sets off for the reply at once, else when the engine has it
            approach_from = max(think_s if start_known else ready, magnet.free_at)
            hand_move(sim, person_move)
            cpu = time.process_time()
            target = first_start(sim, sim.board, None, reply)
            totals.planning_cpu_s += time.process_time() - cpu
            approach_s, bad = travel(sim, target)
            ply = sim.play(reply)
            totals.violations += bad + len(ply.violations)
            totals.machine_s += ply.seconds + approach_s
            totals.planning_cpu_s += ply.planning_s
            first = ply.plan.relocations[0].start
            drags[person] = ply.seconds - timer.travel_s(ply.plan.start_mm, self.layout.node_mm(first))
            hold = think_s if person == "typed" else hold_end
            today_s[person] = max(today_ready, hold) + ply_today.seconds - think_s
            now_s[person] = max(ready, hold, approach_from + approach_s) + ply.seconds - think_s
        totals.replies.append(Reply(hit is not None, len(answers), today_s, now_s, drags, hold_end - think_s))
        return reply

    def shared(self, index: int, game: chess.pgn.Game) -> None:
        """A shared game as played: the person takes White in odd-numbered games."""
        board, moves = game_moves(game)
        person = chess.WHITE if index % 2 == 0 else chess.BLACK
        sims = Tables.for_board(self.layout, board)
        rng = random.Random(f"shared {index}")
        ply = 0
        while ply < len(moves):
            if sims.today.board.turn != person:  # the robot opens the game
                sims.robot_move(moves[ply])
                ply += 1
            elif ply + 1 == len(moves):
                sims.hand_move(moves[ply])  # the game's last move: nothing to reply
                ply += 1
            else:
                move = moves[ply]
                self.reply("shared", sims, think_time(rng), lead_time(rng, move), move, moves[ply + 1])
                ply += 2
        self._finish("shared", sims)

    def played(self, index: int, game: chess.pgn.Game) -> None:
        """A simulated person against the robot's engine, from the game's start."""
        board, _ = game_moves(game)
        person = chess.WHITE if index % 2 == 0 else chess.BLACK
        sims = Tables.for_board(self.layout, board)
        rng = random.Random(f"played {index}")
        while sims.today.board.ply() - board.ply() < PLAYED_PLIES and not sims.today.board.is_game_over():
            if sims.today.board.turn != person:
                sims.robot_move(self.robot.best_move(sims.today.board))
                continue
            move = self._person_move(sims.today.board, rng)
            if _after(sims.today.board, move).is_game_over():
                sims.hand_move(move)
                break
            self.reply("played", sims, think_time(rng), lead_time(rng, move), move, None)
        self._finish("played", sims)

    def _person_move(self, board: chess.Board, rng: random.Random) -> chess.Move:
        lines = self.person.likely_moves(board, count=PERSON_LINES, limit=chess.engine.Limit(depth=6))
        turn = board.turn
        values = [score.pov(turn).score(mate_score=10_000) or 0 for _, score in lines]
        best = max(values)
        weights = [math.exp((value - best) / PERSON_TEMPERATURE_CP) for value in values]
        return rng.choices([move for move, _ in lines], weights)[0]

    def _finish(self, part: str, sims: Tables) -> None:
        for sim in sims.all():
            self.totals[part].violations += len(sim.compare_twin())


def _after(board: chess.Board, move: chess.Move) -> chess.Board:
    after = board.copy()
    after.push(move)
    return after


def _stats(values: list[float]) -> tuple[float, float]:
    return (statistics.median(values), percentile(values, 0.9)) if values else (math.nan, math.nan)


def _spread(values: list[float]) -> tuple[float, float, float]:
    return (*_stats(values), max(values, default=math.nan))


def figures(totals: Totals) -> dict[str, Any]:
    replies = totals.replies
    hits = [r for r in replies if r.hit]
    result: dict[str, Any] = {
        "replies": len(replies),
        "ponder_hits": len(hits),
        "twin_violations": totals.violations,
        "planning_cpu_fraction": totals.planning_cpu_s / totals.machine_s if totals.machine_s else 0.0,
    }
    for person in PERSONS:
        result[person] = {
            "today_median_p90": _stats([r.today_s[person] for r in replies]),
            "now_median_p90": _stats([r.now_s[person] for r in replies]),
            "hits_today_median_p90": _stats([r.today_s[person] for r in hits]),
            "hits_now_median_p90": _stats([r.now_s[person] for r in hits]),
            "hits_over_drags_median_p90_max": _spread([r.now_s[person] - r.drags_s[person] for r in hits]),
            "misses_now_median_p90": _stats([r.now_s[person] for r in replies if not r.hit]),
        }
    result["board"]["hits_over_drags_after_hold_median_p90_max"] = _spread(
        [r.now_s["board"] - max(r.hold_s, 0.0) - r.drags_s["board"] for r in hits]
    )
    return result


def report(part: str, found: dict[str, Any]) -> Iterator[str]:
    share = 100 * found["ponder_hits"] / max(found["replies"], 1)
    yield (
        f"{part}: {found['replies']} replies, ponder hits {found['ponder_hits']} ({share:.0f} %), twin "
        f"violations {found['twin_violations']}, planning CPU {100 * found['planning_cpu_fraction']:.3f} % "
        "of machine time"
    )
    words: dict[Person, str] = {"typed": "typed or clicked", "board": "made on the board"}
    for person in PERSONS:
        f = found[person]
        now, today = f["now_median_p90"], f["today_median_p90"]
        hits, hits_today, misses = (
            f["hits_now_median_p90"],
            f["hits_today_median_p90"],
            f["misses_now_median_p90"],
        )
        yield (
            f"  {words[person]:>17}: reply latency median/p90 {now[0]:.2f}/{now[1]:.2f} s (today "
            f"{today[0]:.2f}/{today[1]:.2f} s); on hits {hits[0]:.2f}/{hits[1]:.2f} s (today "
            f"{hits_today[0]:.2f}/{hits_today[1]:.2f} s), on misses {misses[0]:.2f}/{misses[1]:.2f} s"
        )
        over = f["hits_over_drags_median_p90_max"]
        yield (
            f"  {'':>17}  on hits, beyond the drags' own time: median {over[0]:.2f} s, p90 {over[1]:.2f} s, "
            f"max {over[2]:.2f} s  (target <= {TARGET_HIT_OVERHEAD_S} s)"
        )
    after = found["board"]["hits_over_drags_after_hold_median_p90_max"]
    yield (
        f"  {'':>17}  the same counted from the end of the hold: median {after[0]:.2f} s, "
        f"p90 {after[1]:.2f} s, max {after[2]:.2f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.replies", description=__doc__)
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--games", type=int, default=0, help="only the first N games (0: all)")
    parser.add_argument("--part", choices=("shared", "played", "both"), default="both")
    parser.add_argument(
        "--step-idle-delay-ms",
        type=int,
        help="GRBL's $1 in the time model and the twin (default: the layout's)",
    )
    args = parser.parse_args(argv)
    layout = Layout.default()
    if args.step_idle_delay_ms is not None:
        layout = replace(layout, profile=replace(layout.profile, step_idle_delay_ms=args.step_idle_delay_ms))
    games = load_games()
    if args.games:
        games = games[: args.games]
    with EnginePlayer(parse_level(ROBOT_LEVEL)) as robot, EnginePlayer(parse_level(ROBOT_LEVEL)) as person:
        bench = Bench(layout, robot, person)
        for index, (name, game) in enumerate(games):
            if args.part in ("shared", "both"):
                bench.shared(index, game)
            if args.part in ("played", "both"):
                bench.played(index, game)
            done = {part: len(t.replies) for part, t in bench.totals.items()}
            print(f"{name:<20} replies so far {done}", file=sys.stderr, flush=True)
    found = {part: figures(t) for part, t in bench.totals.items() if t.replies}
    print(
        f"reply latency (modelled: engine move {ENGINE_MOVE_S:g} s, evaluation {EVALUATION_S:g} s, "
        f"prediction {PREDICTION_S:g} s; thinking median {THINK_MEDIAN_S:g} s; "
        f"GRBL's $1 = {layout.profile.step_idle_delay_ms})"
    )
    for part, values in found.items():
        for line in report(part, values):
            print(line)
    if args.json:
        args.json.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    return 1 if any(values["twin_violations"] for values in found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
