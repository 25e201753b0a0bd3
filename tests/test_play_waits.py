"""The wait a player feels, in sessions on the simulator: the robot tidies what its reply parked while
the person thinks (journaled, taken up again after a crash), a set-up cut short goes on straight from
wherever the table stands, and long work shows how long it has left."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path
from typing import Any

import chess
import pytest
from rich.console import Console

from chessatron.config import Config
from chessatron.errors import ConfigError
from chessatron.game.players.keyboard import KeyboardPlayer
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.records.store import latest_unfinished
from chessatron.game.session import Session
from chessatron.game.telling.announcer import display_lines
from chessatron.game.telling.live import LiveState
from chessatron.game.telling.screen import render_view
from chessatron.game.tidying import Tidier
from chessatron.planning.layout import Layout
from chessatron.planning.reset import arrangement_problems
from chessatron.planning.table import Table
from chessatron.planning.tidy import next_tidy, turn_share_s
from chessatron.recognition import PieceLifted
from chessatron.sim.twin import TwinPiece

# Black's queen takes the pawn on h4: White's zone lies beyond the a-file, so the reply parks it beside the
# h-file and the tidying takes it round the board while White thinks about the next move.
SCRIPT = "1. h4 e5 2. Rh3 Qxh4 *\n"


#: The robot tidies while a person at the keyboard thinks too (by default only at the board).
ANY_PERSON = Config.from_dict({"grbl": {"url": "sim://", "tidy_while_thinking": "always"}})


class Crash(Exception):
    pass


def journal_entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def thinking_keyboard(moves: list[str], holder: dict[str, Session]) -> KeyboardPlayer:
    """A person at the keyboard who thinks until the robot has stopped tidying before each move."""
    queue = list(moves)

    def read_line(prompt: str) -> str | None:
        session = holder.get("session")
        deadline = time.monotonic() + 60
        while session is not None and time.monotonic() < deadline:
            tidier = session.tidier
            if tidier is None or not tidier.is_tidying:
                break
            time.sleep(0.02)
        return queue.pop(0) if queue else None

    return KeyboardPlayer(read_line=read_line, write=lambda line: None)


def test_the_robot_tidies_what_its_reply_parked_while_the_person_thinks(tmp_path: Path) -> None:
    script = tmp_path / "black.pgn"
    script.write_text(SCRIPT, encoding="utf-8")
    holder: dict[str, Session] = {}
    white, black = PlayerSpec.parse("keyboard"), PlayerSpec.parse(f"script:{script}")
    player = thinking_keyboard(["h4", "Rh3", "Ra3"], holder)
    config = ANY_PERSON
    with Session(config, games_dir=tmp_path / "games", speed=None, keyboard=player) as session:
        holder["session"] = session
        session.connect()
        with session.new_game(white, black, chess.Board()) as journal:
            session.play(journal, white, black, max_plies=5)
            path = journal.path
        assert session.world is not None and not session.world.twin.violations
        assert not session.table.parked()
        victim = next(
            p for p in session.table if p.symbol == "P" and session.table.place_of(p.id) == "capture"
        )
        assert (
            session.layout.node_cell(session.table.node_of(victim.id)) in session.layout.capture_cells[True]
        )
    entries = journal_entries(path)
    kinds = [(e["type"], e.get("ply"), (e.get("operations") or [""])[0].split(" ")[0]) for e in entries]
    reply = kinds.index(("robot-begin", 4, "capture"))
    tidying = [i for i, kind in enumerate(kinds) if kind == ("robot-begin", 4, "tidy")]
    white_move = next(i for i, e in enumerate(entries) if e["type"] == "move" and e["ply"] == 5)
    assert tidying and reply < tidying[0] and tidying[-1] < white_move  # after the reply, before White's move


@pytest.mark.parametrize("when", ["board", "never"])
def test_a_person_away_from_the_board_is_never_held_up_by_tidying(tmp_path: Path, when: str) -> None:
    """By default the robot tidies only while a person at the board thinks (their lifted piece stops it):
    a person at the keyboard gives no warning. The parked piece waits for the reset."""
    script = tmp_path / "black.pgn"
    script.write_text(SCRIPT, encoding="utf-8")
    white, black = PlayerSpec.parse("keyboard"), PlayerSpec.parse(f"script:{script}")
    config = Config.from_dict({"grbl": {"url": "sim://", "tidy_while_thinking": when}})
    player = thinking_keyboard(["h4", "Rh3", "Ra3"], {})
    with Session(config, games_dir=tmp_path / "games", speed=None, keyboard=player) as session:
        session.connect()
        with session.new_game(white, black, chess.Board()) as journal:
            session.play(journal, white, black, max_plies=5)
            path = journal.path
        assert len(session.table.parked()) == 1
    assert not any("tidy" in " ".join(e.get("operations", ())) for e in journal_entries(path))


def test_the_config_says_while_whom_the_robot_tidies() -> None:
    assert Config.default().tidy_while_thinking == "board"
    with pytest.raises(ConfigError, match="tidy_while_thinking = 'sometimes' must be one of 'board'"):
        Config.from_dict({"grbl": {"tidy_while_thinking": "sometimes"}})


def test_a_crash_while_tidying_resumes_with_the_piece_where_the_journal_says(tmp_path: Path) -> None:
    script = tmp_path / "black.pgn"
    script.write_text(SCRIPT, encoding="utf-8")
    holder: dict[str, Session] = {}
    white, black = PlayerSpec.parse("keyboard"), PlayerSpec.parse(f"script:{script}")
    events: list[dict[str, Any]] = []

    def crash_while_tidying(event: dict[str, Any]) -> None:
        events.append(event)
        if event["event"] == "relocation" and "(tidy)" in str(event.get("what")):
            raise Crash  # power cut in the middle of the tidying, its first leg done

    config = ANY_PERSON
    player = thinking_keyboard(["h4", "Rh3", "Ra3"], holder)
    with Session(
        config, games_dir=tmp_path / "games", speed=None, emit=crash_while_tidying, keyboard=player
    ) as session:
        holder["session"] = session
        session.connect()
        with session.new_game(white, black, chess.Board()) as journal, pytest.raises(Crash):
            session.play(journal, white, black)
        left = {p.id: session.table.node_of(p.id) for p in session.table}
    summary = latest_unfinished(tmp_path / "games")
    assert summary is not None
    holder.clear()
    player = thinking_keyboard(["Ra3"], holder)
    with Session(config, games_dir=tmp_path / "games", speed=None, keyboard=player) as session:
        holder["session"] = session
        journal, white, black = session.resume(summary.path)
        # the model knows where the crash left the parked piece: as the first session had it
        assert {p.id: session.table.node_of(p.id) for p in session.table} == left
        assert session.table.parked()
        session.connect()
        with journal:
            record = session.play(journal, white, black, max_plies=1)
        assert session.world is not None and not session.world.twin.violations
        assert not session.table.parked()
        session.table.check_matches(record.board())


def test_a_set_up_cut_short_goes_on_straight_from_where_the_table_stands(tmp_path: Path) -> None:
    """The set-up for a Chess960 start crashes half-way; the simulator's table is lost (set up as
    delivered again). The resumed game sets up from there in one plan, journaled with that table, never
    building the half-way position first; a second resume rebuilds the table from that journal."""
    config = Config.default()
    start = chess.Board.from_chess960_pos(100)
    white, black = PlayerSpec.parse("engine:20:depth=1"), PlayerSpec.parse("engine:20:depth=1")

    def crash_half_way(event: dict[str, Any]) -> None:
        if event["event"] == "relocation" and event["index"] >= event["of"] // 2:
            raise Crash

    with Session(config, games_dir=tmp_path, speed=None, emit=crash_half_way) as session:
        session.connect()
        with pytest.raises(Crash):
            session.new_game(white, black, start)
    summary = latest_unfinished(tmp_path)
    assert summary is not None
    events: list[dict[str, Any]] = []
    with Session(config, games_dir=tmp_path, speed=None, emit=events.append) as session:
        session.connect()
        standing = session.table  # as delivered: the simulator lost the half-built table
        delivered = {p.id: n for p, n in ((p, standing.node_of(p.id)) for p in standing)}
        journal, white, black = session.resume(summary.path)
        session.put_back(standing)
        assert {p.id: session.table.node_of(p.id) for p in session.table} == delivered
        with journal:
            session.play(journal, white, black, max_plies=1)
        assert session.world is not None and not session.world.twin.violations
        kept = {p.id: session.table.node_of(p.id) for p in session.table}
    relocations = [e for e in events if e["event"] == "relocation"]
    setups = [e for e in events if e["event"] == "setup"]
    assert len(setups) == 1 and relocations[0]["of"] == setups[0]["relocations"]  # one plan, no put-back
    entries = journal_entries(summary.path)
    begun = [e for e in entries if e["type"] == "robot-begin" and e["ply"] == 0]
    assert len(begun) == 2 and "table" in begun[1] and "table" not in begun[0]
    assert sorted(tuple(row[2:]) for row in begun[1]["table"]) == sorted(delivered.values())
    with Session(config, games_dir=tmp_path, speed=None) as session:
        session.resume(summary.path)[0].close()
        assert {p.id: session.table.node_of(p.id) for p in session.table} == kept


def test_a_set_up_shows_its_estimate_and_counts_down(tmp_path: Path) -> None:
    config = Config.default()
    seen: list[dict[str, Any]] = []
    with Session(config, games_dir=tmp_path, speed=200.0) as session:
        session.long_work_s = 0.01  # (at this speed a set-up takes a moment)
        session.live.listen(
            lambda version: seen.append(dict(session.live.snapshot()["gantry"]["work"] or {}))
        )
        session.connect()
        before = session.table.copy()
        plan = session.set_up(chess.Board.from_chess960_pos(7))
        assert plan is not None and plan.relocations
        assert arrangement_problems(session.table, chess.Board.from_chess960_pos(7)) == []
    told = [work for work in seen if "left_s" in work]
    assert told and all(work["title"] == "SETUP" for work in told)
    estimate = session.planner.timer.relocations_s(session.layout.home_mm, [r.path for r in plan.relocations])
    assert told[0]["estimate_s"] == pytest.approx(estimate, abs=0.1) and before is not None
    lefts = [work["left_s"] for work in told]
    assert lefts == sorted(lefts, reverse=True) and lefts[0] == pytest.approx(estimate / 200.0, abs=0.06)


def test_the_terminal_and_the_display_say_how_long_long_work_has_left(layout: Layout) -> None:
    live = LiveState(layout)
    live.show_board(chess.Board(), players=("keyboard", "engine"))
    live.show_table(Table.from_board(layout, chess.Board()), ())
    now = time.time()
    live.show_gantry(
        layout.home_mm,
        work={"title": "SETUP", "index": 3, "of": 25, "estimate_s": 180.0, "left_s": 160.4, "at": now},
    )
    console = Console(record=True, width=100, force_terminal=True, file=io.StringIO())
    console.print(render_view(live.snapshot(), *live.table(), width=100))
    picture = console.export_text()
    assert "setting up" in picture and "about 2:40" in picture
    assert display_lines(live.snapshot(), cols=16, rows=2, now=now + 40.0) == [
        "Setting up",
        "about 2:00 left",
    ]


def test_a_lifted_piece_holds_the_tidying_and_the_step_under_way_ends_first() -> None:
    events: list[object] = []
    steps: list[int] = []
    under_way = threading.Event()
    go_on = threading.Event()

    def step(within_s: float) -> bool:
        steps.append(len(steps))
        under_way.set()
        go_on.wait(5)
        return True

    tidier = Tidier(step)
    tidier.start(events)
    assert under_way.wait(5) and tidier.is_tidying
    events.append(PieceLifted(1.0, chess.E2, frozenset(), frozenset()))  # the person's hand at the board
    assert not tidier.is_tidying
    go_on.set()
    assert tidier.stop() == 1 and steps == [0]  # the step under way ended; no other began


def test_a_fault_while_tidying_is_raised_where_the_game_goes_on() -> None:
    def step(within_s: float) -> bool:
        raise Crash

    tidier = Tidier(step)
    idle: list[bool] = []
    tidier.on_idle = lambda: idle.append(True)
    tidier.start()
    with pytest.raises(Crash):
        tidier.stop()
    assert tidier.stop() == 0 and idle == []  # raised once


def test_tidying_with_nothing_left_frees_the_magnet_for_the_ponderer() -> None:
    idle: list[bool] = []
    tidier = Tidier(lambda within_s: False)
    tidier.on_idle = lambda: idle.append(True)
    tidier.start()
    assert tidier.stop() == 0 and idle == [True] and not tidier.is_tidying


def test_a_turn_s_tidying_stops_at_its_limit_and_frees_the_magnet() -> None:
    """Steps begin only in the turn's first seconds (a person's hand comes the likelier the longer they
    think): once the limit has passed, no other begins, and the magnet is free to wait for the reply."""
    steps: list[int] = []
    idle = threading.Event()

    def step(within_s: float) -> bool:
        steps.append(len(steps))
        time.sleep(0.05)
        return True  # (always more to tidy)

    tidier = Tidier(step, turn_s=0.2)
    tidier.on_idle = idle.set
    tidier.start()
    assert idle.wait(5)
    done = tidier.stop()
    assert 3 <= done <= 5 and len(steps) == done  # 0.2 s of 0.05 s steps, not more


def test_a_step_that_would_run_past_the_turns_limit_is_left_for_later() -> None:
    """A step begins only if it ends within the turn's first seconds: one of 0.3 s fits a limit of 0.5 s
    once, and the second, with 0.2 s left, waits (for the next turn, or the reset)."""
    begun: list[float] = []

    def step(within_s: float) -> bool:
        if within_s < 0.3:
            return False  # (the session's step: the time model says it would not end in time)
        begun.append(within_s)
        time.sleep(0.3)
        return True

    tidier = Tidier(step, turn_s=0.5)
    idle = threading.Event()
    tidier.on_idle = idle.set
    tidier.start()
    assert idle.wait(5)
    assert tidier.stop() == 1 and len(begun) == 1 and begun[0] > 0.4


def test_tidying_begins_no_step_the_magnet_could_not_come_back_from_within_the_turn(tmp_path: Path) -> None:
    """Tidying carries the magnet to the zones at the table's sides; the robot's next reply may begin
    across the table. A step counts with the travel back to where the turn began: the same step is
    begun when the magnet comes back from it in time, and left for later when it could not."""
    speed = 50.0
    with Session(Config.from_dict({"grbl": {"url": "sim://"}}), games_dir=tmp_path, speed=speed) as session:
        session.connect()
        layout, table = session.layout, session.table
        queen = table.piece_at(layout.square_node(chess.D8))
        assert queen is not None
        table.relocate(queen.id, layout.cell_node((2, 9)))  # parked above the board, far from its zone
        assert session.world is not None
        session.world.twin.lift(queen.id)
        session.world.twin.place(TwinPiece(queen.id, queen.symbol, *layout.node_mm(layout.cell_node((2, 9)))))
        step = next_tidy(session.planner, table, session.gantry)
        assert step is not None
        far = layout.node_mm(layout.square_node(chess.A1))
        share = turn_share_s(session.planner, step, far)
        assert share > step.seconds + 1.0  # a1 is well across the table from where the step ends
        within_s = (step.seconds + share) / 2 / speed
        session.tidy_home = far
        assert not session._tidy_step(None, within_s)
        assert table.node_of(queen.id) == layout.cell_node((2, 9))  # left for later
        session.tidy_home = step.end_mm
        assert session._tidy_step(None, within_s)
        assert table.node_of(queen.id) != layout.cell_node((2, 9))
