"""Power cuts during whole games: ``chessatron play`` SIGKILLed at random moments, ``--resume`` carries on.

Each game (engine against engine from the standard start and from a Chess960 start, a simulated hand
against the engine) is first played once without interruption, in its own folder: the reference. Then
the same game is played again and killed again and again (``CHESSATRON_KILLS`` kills over all games,
30 by default, so that ``make test`` keeps within its ten minutes; ``make soak`` 200), each time after a
random number of JSON events, or a random few milliseconds after the machine connected (so that kills
land in the middle of a drag, a set-up, a journal write), and resumed with ``play --resume`` until one
last resume plays it to the end. The players are deterministic: full
strength at a fixed depth.

What a user would notice is checked: the game ends with the reference's moves, every resume continues
the moves journaled so far (a prefix of the reference), the simulated table the game leaves behind holds
the final position with the twin's pieces where the saved state says, every journaled robot job was
finished, and no run printed a traceback.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.game.records.journal import read_journal
from chessatron.planning.layout import Layout
from chessatron.sim.state import load_state
from chessatron.sim.world import get_world

KILLS = int(os.environ.get("CHESSATRON_KILLS", "12"))
LAYOUT = Layout.default()
#: A run that has not ended after this long is hung (a whole game takes a few seconds).
HANG_S = 90.0
#: How far from the reference's last event kills keep away: a kill after the result is journaled
#: leaves nothing to resume.
END_MARGIN_EVENTS = 12
_JOURNAL = re.compile(r"\d{8}T\d{6}Z-[0-9a-z]{1,32}\.jsonl")

Event = dict[str, Any]
#: Called with every event a run prints; returns None to let it go on, or a delay in seconds after
#: which the run is SIGKILLed.
KillRule = Callable[[Event], float | None]


@dataclass(frozen=True)
class GameSpec:
    name: str
    args: tuple[str, ...]
    #: This game's share of the kills.
    share: float


# Full strength (skill 20) at a fixed depth is deterministic; lower skill levels choose at random.
GAMES = (
    GameSpec("engines", ("--white", "engine:20:depth=1", "--black", "engine:20:depth=2"), 0.4),
    GameSpec(
        "chess960",
        ("--white", "engine:20:depth=1", "--black", "engine:20:depth=2", "--chess960", "123"),
        0.3,
    ),
    GameSpec("hand", ("--white", "hand:20:depth=1", "--black", "engine:20:depth=2"), 0.3),
)


def kill_budget(spec: GameSpec) -> int:
    """This game's kills; the shares add up to KILLS exactly (the last game takes the rest)."""
    before = sum(round(KILLS * g.share) for g in GAMES[: GAMES.index(spec)])
    if spec is GAMES[-1]:
        return KILLS - before
    return round(KILLS * spec.share)


@dataclass
class Run:
    """One ``chessatron play`` process (or in-process invocation) and what it printed."""

    args: tuple[str, ...]
    returncode: int
    events: list[Event]
    stdout: str
    stderr: str
    hung: bool = False

    @property
    def killed(self) -> bool:
        return self.returncode == -signal.SIGKILL and not self.hung

    def describe(self) -> str:
        return f"`play {' '.join(self.args)}` exited {self.returncode}: {self.stderr.strip()[-800:]!r}"


def environment(folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "CHESSATRON_STATE": str(folder / "sim.json"),
        "CHESSATRON_GAMES": str(folder / "games"),
    }


def parse_events(text: str) -> list[Event]:
    """The JSON events of ``play --json``; a line that is not one is kept as a ``non-json`` event."""
    events: list[Event] = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        events.append(event if isinstance(event, dict) else {"event": "non-json", "line": line})
    return events


def run_process(folder: Path, args: tuple[str, ...], kill: KillRule) -> Run:
    """Run ``play --json ARGS`` as its own process and SIGKILL it when ``kill`` says so."""
    command = [sys.executable, "-m", "chessatron.cli", "play", "--json", *args]
    with subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(folder),
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        hung = threading.Event()

        def watchdog() -> None:
            hung.set()
            process.kill()

        timer = threading.Timer(HANG_S, watchdog)
        timer.start()
        # stderr is read beside stdout so that a chatty run cannot block on a full pipe
        errors: list[bytes] = []
        stderr = process.stderr
        reader = threading.Thread(target=lambda: errors.append(stderr.read()))
        reader.start()
        lines: list[bytes] = []
        try:
            for raw in process.stdout:
                lines.append(raw)
                delay = kill(parse_events(raw.decode("utf-8", "replace"))[0])
                if delay is not None:
                    time.sleep(delay)
                    process.send_signal(signal.SIGKILL)
                    break
            lines.append(process.stdout.read())
            process.wait(timeout=HANG_S)
        finally:
            timer.cancel()
            reader.join(timeout=HANG_S)
    stdout = b"".join(lines).decode("utf-8", "replace")
    if stdout and not stdout.endswith("\n"):
        stdout = stdout[: stdout.rfind("\n") + 1]  # a line cut short by the kill
    return Run(
        args,
        process.returncode,
        parse_events(stdout),
        stdout,
        b"".join(errors).decode("utf-8", "replace"),
        hung.is_set(),
    )


def run_in_process(folder: Path, args: tuple[str, ...]) -> Run:
    """Run ``play --json ARGS`` in this process (faster, and the simulated world stays inspectable)."""
    result = CliRunner(env=environment(folder)).invoke(main, ["play", "--json", *args])
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        assert result.exc_info is not None
        stderr += "".join(traceback.format_exception(*result.exc_info))
    return Run(args, result.exit_code, parse_events(result.stdout), result.stdout, stderr)


def journal_path(folder: Path) -> Path | None:
    """The game's journal (one game a folder), None before it was created."""
    found = sorted(p for p in (folder / "games").glob("*.jsonl") if _JOURNAL.fullmatch(p.name))
    assert len(found) <= 1, f"more than one journal in {folder}: {found}"
    return found[0] if found else None


def journaled_moves(path: Path) -> list[str]:
    return [entry.move.uci() for entry in read_journal(path).moves]


def unfinished_robot_work(path: Path) -> list[str]:
    """Robot jobs the journal began and never finished (each ``robot-begin`` needs a ``robot-done`` for
    every one of its operations before the next job, unless the next job starts from a table of its own:
    a set-up made again from where the table stood gives the one cut short up; a torn last line is
    ignored)."""
    jobs: list[tuple[int, int, set[int]]] = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if entry.get("type") == "robot-begin":
            if "table" in entry and jobs and len(jobs[-1][2]) < jobs[-1][1]:
                jobs.pop()
            jobs.append((entry["ply"], len(entry["operations"]), set()))
        elif entry.get("type") == "robot-done" and jobs:
            jobs[-1][2].add(entry["index"])
    return [
        f"ply {ply}: {count - len(done)} of {count} relocations never done"
        for ply, count, done in jobs
        if len(done) < count
    ]


def progress_events(events: list[Event]) -> list[Event]:
    return [e for e in events if e["event"] in ("move", "relocation")]


@dataclass
class Reference:
    """The game played once without a kill."""

    moves: list[str]
    #: Moves and relocations in order: where kills can land.
    progress: list[Event]
    #: How many drags the robot needed to set the start position up.
    setup_relocations: int

    def remaining_events(self, plies: int) -> int:
        """Moves and relocations the reference still had after ``plies`` moves."""
        moves = [i for i, e in enumerate(self.progress) if e["event"] == "move"]
        start = moves[plies - 1] + 1 if 0 < plies <= len(moves) else 0
        return len(self.progress) - start if plies <= len(moves) else 0

    def remaining_plies(self, plies: int) -> int:
        return max(0, len(self.moves) - plies)


def play_reference(folder: Path, spec: GameSpec) -> Reference:
    run = run_in_process(folder, spec.args)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.describe()
    path = journal_path(folder)
    assert path is not None
    state = read_journal(path)
    assert state.is_finished, f"the reference game of {spec.name} did not finish"
    (setup,) = (e["relocations"] for e in run.events if e["event"] == "setup")
    return Reference([entry.move.uci() for entry in state.moves], progress_events(run.events), setup)


def choose_kill(rng: random.Random, reference: Reference, plies: int, kills_left: int) -> KillRule:
    """A random moment of the next run: right at start-up, a few milliseconds after the machine
    connected (mid-drag, mid-set-up, mid-write), or after a random number of moves and relocations,
    spread so that the kills left still find game left to interrupt."""
    remaining = reference.remaining_events(plies)
    kind = rng.choices(["start", "clock", "progress"], [0.2, 0.25, 0.55])[0]
    if kind == "clock" and reference.remaining_plies(plies) < 30:
        kind = "progress"  # a delay could outlast the game's end
    if kind == "start":
        count = rng.randint(1, 4)
        seen = [0]

        def at_start(event: Event) -> float | None:
            seen[0] += 1
            return 0.0 if seen[0] >= count else None

        return at_start
    if kind == "clock":
        delay = rng.uniform(0.0, 0.08)
        return lambda event: delay if event["event"] == "connected" else None
    limit = max(1, min(remaining - END_MARGIN_EVENTS, 2 * remaining // (kills_left + 1)))
    count = rng.randint(1, limit)
    progress = [0]

    def after_progress(event: Event) -> float | None:
        progress[0] += event["event"] in ("move", "relocation")
        return 0.0 if progress[0] >= count else None

    return after_progress


def in_setup(rng: random.Random, relocations: int) -> KillRule:
    """Kill while the robot sets up the start position, after 1 to ``relocations - 1`` of its drags."""
    count = rng.randint(1, max(1, relocations - 1))
    done = [0]

    def rule(event: Event) -> float | None:
        done[0] += event["event"] == "relocation"
        return 0.0 if done[0] >= count else None

    return rule


@dataclass
class Report:
    """What the kills found, in the words of the checks (a) to (d)."""

    problems: list[str] = field(default_factory=list)
    kills: int = 0
    #: Where journals left the reference, so that each divergence is told once.
    divergences: set[tuple[Path, int]] = field(default_factory=set)

    def add(self, text: str) -> None:
        self.problems.append(text)


def check_run(run: Run, report: Report, number: int) -> None:
    """(d) nothing a run prints is a traceback; a run that was not killed ended as a game ends."""
    for stream, text in (("stderr", run.stderr), ("stdout", run.stdout)):
        if "Traceback" in text:
            report.add(f"(d) run {number} printed a traceback on {stream}: {run.describe()}")
    if run.hung:
        report.add(f"(d) run {number} hung for {HANG_S} s: {run.describe()}")
    elif not run.killed and run.returncode != 0:
        report.add(f"(d) run {number} failed: {run.describe()}")
    if any(e["event"] == "non-json" for e in run.events):
        lines = [e["line"] for e in run.events if e["event"] == "non-json"]
        report.add(f"(d) run {number} printed lines that are not JSON with --json: {lines[:3]!r}")


def check_prefix(folder: Path, reference: Reference, report: Report, when: str) -> int:
    """(b) the journaled moves are the reference's so far; returns how many there are."""
    path = journal_path(folder)
    if path is None:
        return 0
    moves = journaled_moves(path)
    if moves != reference.moves[: len(moves)]:
        pairs = zip(moves, reference.moves, strict=False)
        ply = next((i for i, (a, b) in enumerate(pairs) if a != b), len(reference.moves)) + 1
        if (folder, ply) in report.divergences:
            return len(moves)
        report.divergences.add((folder, ply))
        played = moves[ply - 1] if ply <= len(moves) else "-"
        expected = reference.moves[ply - 1] if ply <= len(reference.moves) else "the end of the game"
        report.add(f"(b) {when}: the journal left the reference at ply {ply}: {played} instead of {expected}")
    return len(moves)


def check_table(folder: Path, final_run: Run | None, report: Report, *, saved_at_end: bool = True) -> None:
    """(c) the saved simulated table holds the final position, the twin agrees with it and broke no
    rule, and the journal shows every robot job finished."""
    path = journal_path(folder)
    assert path is not None
    state = read_journal(path)
    board = state.board()
    saved = load_state(folder / "sim.json", LAYOUT)  # also checks the table against its own position
    if saved_at_end and saved.board.board_fen() != board.board_fen():
        report.add(
            f"(c) the saved simulator table shows {saved.board.board_fen()!r}, "
            f"the game ended at {board.board_fen()!r}"
        )
    for problem in unfinished_robot_work(path):
        report.add(f"(c) robot work journaled and never finished: {problem}")
    if final_run is not None:
        twin = get_world("default").twin
        if twin.violations:
            report.add(
                f"(c) the twin saw violations in the last run: {[str(v) for v in twin.violations[:5]]}"
            )
        expected = {LAYOUT.node_mm(saved.table.node_of(p.id)): p.symbol for p in saved.table}
        misplaced = twin.check_positions(expected)
        if misplaced or len(twin.pieces) != len(saved.table):
            report.add(
                f"(c) the saved table and the simulated one differ: {[str(v) for v in misplaced[:5]]}, "
                f"{len(twin.pieces)} pieces in the twin, {len(saved.table)} saved"
            )


def kill_game(folder: Path, spec: GameSpec, reference: Reference, budget: int, rng: random.Random) -> Report:
    """Play ``spec`` in ``folder``, killing it ``budget`` times (new games in fresh sub-folders when one
    ends early), resume it to the end each time, and check everything."""
    report = Report()
    runs = 0
    for episode in range(6):
        if report.kills >= budget:
            break
        here = folder / f"episode-{episode}"
        plies = 0
        finished = killed_after_end = False
        stuck = False
        while report.kills < budget:
            resume = journal_path(here) is not None
            args = ("--resume",) if resume else spec.args
            if reference.setup_relocations > 1 and not resume:
                kill = in_setup(rng, reference.setup_relocations)
            else:
                kill = choose_kill(rng, reference, plies, budget - report.kills)
            run = run_process(here, args, kill)
            runs += 1
            check_run(run, report, runs)
            if resume and not run.hung:
                resumed = [e for e in run.events if e["event"] == "resumed"]
                if resumed and resumed[0]["plies"] != plies:
                    report.add(
                        f"(b) run {runs} resumed at ply {resumed[0]['plies']}, the journal had {plies}"
                    )
            if run.killed:
                report.kills += 1
            plies = check_prefix(here, reference, report, f"after kill {report.kills} (run {runs})")
            if not run.killed:
                # it ended on its own: the game is over, or the resume failed (which the next one would too)
                stuck = run.returncode != 0
                finished = not stuck
                break
            path = journal_path(here)
            if path is not None and read_journal(path).is_finished:
                # the kill came after the result was journaled (a rare race with the end of the game):
                # nothing to resume, and the simulated table, saved only when `play` returns, was lost
                # with the process (see the report)
                finished = killed_after_end = True
                break
        if stuck:
            break
        final: Run | None = None
        if not finished and journal_path(here) is not None:
            final = run_in_process(here, ("--resume",))
            runs += 1
            check_run(final, report, runs)
            if final.returncode != 0:
                break
        elif journal_path(here) is None:
            final = run_in_process(here, spec.args)
            runs += 1
            check_run(final, report, runs)
        path = journal_path(here)
        assert path is not None
        moves = journaled_moves(path)
        check_prefix(here, reference, report, f"at the end of episode {episode}")
        if moves != reference.moves:
            report.add(
                f"(a) episode {episode} ended after {len(moves)} plies, the reference after "
                f"{len(reference.moves)}"
            )
        if not read_journal(path).is_finished:
            report.add(f"(a) episode {episode}: the game is not finished after the last resume")
        check_table(here, final, report, saved_at_end=not killed_after_end)
    return report


@pytest.mark.parametrize("spec", GAMES, ids=[g.name for g in GAMES])
def test_sigkill_at_random_moments_resumes_the_same_game(tmp_path: Path, spec: GameSpec) -> None:
    budget = kill_budget(spec)
    rng = random.Random(f"kill-{spec.name}")
    reference = play_reference(tmp_path / "reference", spec)
    report = kill_game(tmp_path / "killed", spec, reference, budget, rng)
    assert not report.problems, "\n".join(report.problems)
    assert report.kills == budget
