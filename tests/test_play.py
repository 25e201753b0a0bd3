"""Game sessions end to end on the simulator: players, robot through the simulated GRBL, journal, resume."""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.config import Config
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.records.store import latest_unfinished, list_games
from chessatron.game.session import Session

from .conftest import GAMES_DIR

SCRIPT = GAMES_DIR / "engine-standard.pgn"


def script_moves() -> list[str]:
    with SCRIPT.open() as handle:
        game = chess.pgn.read_game(handle)
    assert game is not None
    return [m.uci() for m in game.mainline_moves()]


def env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "CHESSATRON_STATE": str(tmp_path / "sim.json"),
        "CHESSATRON_GAMES": str(tmp_path / "games"),
    }


@pytest.mark.parametrize("chess960", [None, "123"])
def test_engine_against_engine_plays_to_the_end(tmp_path: Path, chess960: str | None) -> None:
    pgn = tmp_path / "game.pgn"
    args = ["play", "--white", "engine:20:depth=1", "--black", "engine:20:depth=2", "--pgn-out", str(pgn)]
    args += ["--chess960", chess960] if chess960 else []
    result = CliRunner(env=env(tmp_path)).invoke(main, args)
    assert result.exit_code == 0, result.output
    with pgn.open() as handle:
        game = chess.pgn.read_game(handle)
    assert game is not None and game.headers["Result"] in ("1-0", "0-1", "1/2-1/2")
    if chess960:
        start = chess.Board.from_chess960_pos(int(chess960)).board_fen()
        assert game.headers["Variant"] == "Chess960" and game.headers["FEN"].startswith(start)
    board = game.end().board()
    assert board.is_game_over(claim_draw=True)
    (summary,) = list_games(tmp_path / "games")
    assert summary.is_finished


class Crash(Exception):
    pass


def test_a_crash_in_the_middle_of_a_robot_move_resumes_with_the_same_moves(tmp_path: Path) -> None:
    config = Config.default()
    spec = PlayerSpec.parse(f"script:{SCRIPT}")
    events: list[dict[str, Any]] = []

    def crash_mid_move(event: dict[str, Any]) -> None:
        events.append(event)
        moves = sum(1 for e in events if e["event"] == "move")
        if event["event"] == "relocation" and moves >= 10 and event["of"] > 1 and event["index"] == 0:
            raise Crash  # power cut after the first relocation of a capture, mid-move

    with Session(config, games_dir=tmp_path, speed=None, emit=crash_mid_move) as session:
        session.connect()
        journal = session.new_game(spec, spec, chess.Board())
        with journal, pytest.raises(Crash):
            session.play(journal, spec, spec)
    summary = latest_unfinished(tmp_path)
    assert summary is not None
    with Session(config, games_dir=tmp_path, speed=None) as session:
        journal, white, black = session.resume(summary.path)
        session.connect()
        with journal:
            record = session.play(journal, white, black)
        assert session.world is not None and not session.world.twin.violations
    assert [m.uci() for m in record.moves] == script_moves()


def test_sigkill_at_random_moments_then_resume(tmp_path: Path) -> None:
    """The whole process killed at random moments; --resume always continues the same game."""
    rng = random.Random(7)
    expected = script_moves()
    command = [sys.executable, "-m", "chessatron.cli", "play", "--json"]
    players = ["--white", f"script:{SCRIPT}", "--black", f"script:{SCRIPT}"]
    kills = 0
    first = True
    while True:
        args = command + (players if first else ["--resume"])
        with subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(tmp_path)
        ) as process:
            assert process.stdout is not None and process.stderr is not None
            limit = rng.randrange(5, 60)
            seen = 0
            killed = False
            for raw in process.stdout:
                event = json.loads(raw)
                seen += event["event"] in ("move", "relocation")
                if kills < 4 and seen >= limit:
                    process.send_signal(signal.SIGKILL)
                    killed = True
                    break
            process.wait(timeout=60)
            errors = process.stderr.read().decode()
        first = False
        if killed:
            kills += 1
            continue
        assert process.returncode == 0, errors
        break
    assert kills == 4
    (summary,) = list_games(tmp_path / "games")
    assert summary.is_finished
    from chessatron.game.records.store import load_game

    assert [m.uci() for m in load_game(summary.game_id, tmp_path / "games").moves] == expected


def test_bad_players_are_refused_plainly(tmp_path: Path) -> None:
    result = CliRunner(env=env(tmp_path)).invoke(main, ["play", "--white", "robot", "--black", "engine"])
    assert (
        result.exit_code != 0
        and "unknown player 'robot'" in result.output
        and "Traceback" not in result.output
    )
    result = CliRunner(env=env(tmp_path)).invoke(main, ["play", "--resume"])
    assert result.exit_code != 0 and "no unfinished game" in result.output


def keyboard(lines: list[str], said: list[str]) -> Any:
    from chessatron.game.players.keyboard import KeyboardPlayer

    queue = list(lines)

    def read_line(prompt: str) -> str | None:
        return queue.pop(0) if queue else None

    return KeyboardPlayer(read_line=read_line, write=said.append)


def test_keyboard_commands_hint_takeback_draw_resign(tmp_path: Path) -> None:
    said: list[str] = []
    events: list[dict[str, Any]] = []
    player = keyboard(["e4", "hint", "Nf3", "takeback", "d4", "nonsense", "Ke2", "draw", "resign"], said)
    white, black = PlayerSpec.parse("keyboard"), PlayerSpec.parse("engine:20:depth=1")
    with Session(
        Config.default(), games_dir=tmp_path, speed=None, emit=events.append, keyboard=player
    ) as session:
        session.connect()
        with session.new_game(white, black, chess.Board()) as journal:
            record = session.play(journal, white, black)
        assert session.world is not None and not session.world.twin.violations
        session.table.check_matches(record.board())
    kinds = [e["event"] for e in events]
    assert "hint" in kinds and "takeback" in kinds
    moves = [m.uci() for m in record.moves]
    assert moves[0] == "e2e4" and moves[2] == "d2d4"  # Nf3 and the engine's answer were taken back
    assert record.result in ("0-1", "1/2-1/2")
    assert any("unknown input" in line or "nonsense" in line for line in said)


def test_resume_after_a_takeback(tmp_path: Path) -> None:
    said: list[str] = []
    player = keyboard(["e4", "Nf3", "takeback", "d4", "quit"], said)
    white, black = PlayerSpec.parse("keyboard"), PlayerSpec.parse("engine:20:depth=1")
    with Session(Config.default(), games_dir=tmp_path, speed=None, keyboard=player) as session:
        session.connect()
        with session.new_game(white, black, chess.Board()) as journal, pytest.raises(KeyboardInterrupt):
            session.play(journal, white, black)
        before = {p.id: session.table.node_of(p.id) for p in session.table}
    summary = latest_unfinished(tmp_path)
    assert summary is not None
    with Session(
        Config.default(), games_dir=tmp_path, speed=None, keyboard=keyboard(["resign"], said)
    ) as session:
        journal, white, black = session.resume(summary.path)
        symbols = {session.table.node_of(p.id): p.symbol for p in session.table}
        assert symbols == {node: session.table.piece(pid).symbol for pid, node in before.items()}
        session.connect()
        with journal:
            record = session.play(journal, white, black)
    assert [m.uci() for m in record.moves][:1] == ["e2e4"] and record.result == "0-1"


@pytest.mark.parametrize("seed", [0, 1])
def test_a_simulated_hand_plays_the_engine_on_the_board(tmp_path: Path, seed: int) -> None:
    """The hand moves pieces in the twin, the simulated sensors see them, the recognizer commits the
    move, the robot answers; a complete game."""
    events: list[dict[str, Any]] = []
    # full strength at a fixed depth: deterministic (lower skill levels choose at random)
    hand, engine = PlayerSpec.parse("hand:20:depth=1"), PlayerSpec.parse(f"engine:20:depth={seed + 1}")
    white, black = (hand, engine) if seed == 0 else (engine, hand)
    with Session(Config.default(), games_dir=tmp_path, speed=None, emit=events.append) as session:
        session.connect()
        with session.new_game(white, black, chess.Board()) as journal:
            record = session.play(journal, white, black)
        assert session.world is not None and not session.world.twin.violations
        session.table.check_matches(record.board())
        assert session._leds is not None
        frames = getattr(session._leds.strip, "frames", [])
        # when the hand lifted a piece, its legal destinations lit up (more than the piece's own square)
        assert any(len(frame) > 1 for frame in frames)
    assert record.result != "*" and len(record.moves) > 10
    assert record.board().is_game_over(claim_draw=True)
    # the game's sensor log replays offline to the same moves
    (log,) = tmp_path.glob("*.sensors.jsonl")
    replay = CliRunner().invoke(main, ["recognize", str(log)])
    assert replay.exit_code == 0, replay.output
    board = chess.Board()
    assert replay.output.split() == [board.uci(m) for m in _pushed(board, record.moves)]


def test_a_promotion_to_a_piece_the_table_lacks_becomes_one_it_has(tmp_path: Path) -> None:
    """Four white rooks do not exist: an engine (or script) asking for one gets the nearest piece there is."""
    script = tmp_path / "rooks.pgn"
    script.write_text('[FEN "6k1/4P3/8/8/8/8/8/RR1RK3 w - - 0 1"]\n[SetUp "1"]\n\n1. e8=R+ Kg7 *\n')
    events: list[dict[str, Any]] = []
    spec = PlayerSpec.parse(f"script:{script}")
    start = chess.Board("6k1/4P3/8/8/8/8/8/RR1RK3 w - - 0 1")
    with Session(Config.default(), games_dir=tmp_path, speed=None, emit=events.append) as session:
        session.connect()
        with session.new_game(spec, spec, start) as journal:
            record = session.play(journal, spec, spec, max_plies=1)
    assert [m.uci() for m in record.moves] == ["e7e8q"]
    assert any("no spare rook" in str(e.get("message")) for e in events)


def _pushed(board: chess.Board, moves: Any) -> Any:
    for move in moves:
        yield move
        board.push(move)


def test_several_games_in_a_row_the_robot_resetting_between_them(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    args = [
        "play",
        "--white",
        "engine:20:depth=1",
        "--black",
        "engine:20:depth=2",
        "--chess960",
        "--games",
        "2",
    ]
    result = CliRunner(env=env(tmp_path)).invoke(main, [*args, "--pgn-out", str(pgn)])
    assert result.exit_code == 0, result.output
    summaries = list_games(tmp_path / "games")
    assert len(summaries) == 2 and all(summary.is_finished for summary in summaries)
    games = []
    with pgn.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    assert len(games) == 2
    # each game began from its own set-up position, which the robot built from the last game's end
    assert all(game.headers["Variant"] == "Chess960" for game in games)


def test_a_keyboard_player_is_offered_another_game(tmp_path: Path) -> None:
    # fool's mate for black, then "y": a second game starts, which the player leaves with end of input
    lines = "f3\ne5\ng4\nQh4\ny\ne4\n"
    args = ["play", "--white", "keyboard", "--black", "keyboard"]
    result = CliRunner(env=env(tmp_path)).invoke(main, args, input=lines)
    assert result.exit_code == 0, result.output  # the end of input left the second game unfinished, saved
    assert "Another game?" in result.output and "play --resume" in result.output
    summaries = sorted(list_games(tmp_path / "games"), key=lambda summary: summary.plies)
    assert [summary.plies for summary in summaries] == [1, 4]
    assert summaries[1].result == "0-1" and summaries[0].in_progress


def test_a_clock_is_kept_for_every_move_and_saved_with_the_game(tmp_path: Path) -> None:
    pgn = tmp_path / "game.pgn"
    args = ["play", "--white", "engine:20:depth=1", "--black", "engine:20:depth=1", "--clock", "5+3"]
    result = CliRunner(env=env(tmp_path)).invoke(main, [*args, "--pgn-out", str(pgn)])
    assert result.exit_code == 0, result.output
    game = chess.pgn.read_game(io.StringIO(pgn.read_text(encoding="utf-8")))
    assert game is not None and game.headers["TimeControl"] == "300+3"
    clocks = [node.clock() for node in game.mainline()]
    # the increment keeps every reading near the initial five minutes; none is missing
    assert clocks and all(c is not None and 290 < c <= 300 + 3 * len(clocks) for c in clocks)


def test_a_malformed_clock_is_refused_before_anything_moves(tmp_path: Path) -> None:
    result = CliRunner(env=env(tmp_path)).invoke(main, ["play", "--black", "engine", "--clock", "five"])
    assert result.exit_code != 0 and "five" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "games").exists() or not list_games(tmp_path / "games")


def test_engine_games_in_a_row_keep_the_twin_clean_through_every_move_and_reset(tmp_path: Path) -> None:
    """Standard, then Chess960, then standard again: the robot resets the table before each game."""
    white, black = PlayerSpec.parse("engine:20:depth=1"), PlayerSpec.parse("engine:20:depth=2")
    starts = [chess.Board(), chess.Board.from_chess960_pos(314), chess.Board()]
    with Session(Config.default(), games_dir=tmp_path, speed=None) as session:
        session.connect()
        for start in starts:
            with session.new_game(white, black, start) as journal:
                record = session.play(journal, white, black)
            assert record.result != "*"
            session.table.check_matches(record.board())
        assert session.world is not None and not session.world.twin.violations
    assert len(list_games(tmp_path)) == 3


def test_a_resume_completes_the_journal_of_a_move_a_person_had_made(tmp_path: Path) -> None:
    """Killed after a person's move was journaled as pieces to move but before they were marked moved:
    the resumed game marks them, so the journal shows no robot work left undone."""
    hand, engine = PlayerSpec.parse("hand:20:depth=1"), PlayerSpec.parse("engine:20:depth=1")
    with Session(Config.default(), games_dir=tmp_path, speed=None) as session:
        session.connect()
        with session.new_game(hand, engine, chess.Board()) as journal:
            session.play(journal, hand, engine, max_plies=1)
        path = journal.path
    lines = path.read_bytes().splitlines(keepends=True)
    last_begin = max(n for n, line in enumerate(lines) if b'"robot-begin"' in line)
    assert b'"hand ' in lines[last_begin] and b'"robot-done"' in lines[-1]
    path.write_bytes(
        b"".join(line for line in lines if b'"robot-done"' not in line or lines.index(line) < last_begin)
    )
    with Session(Config.default(), games_dir=tmp_path, speed=None) as session:
        journal, white, black = session.resume(path)
        session.connect()
        with journal:
            record = session.play(journal, white, black, max_plies=1)
        session.table.check_matches(record.board())
    begun: list[tuple[int, set[int]]] = []
    for raw in path.read_bytes().splitlines():
        entry = json.loads(raw)
        if entry["type"] == "robot-begin":
            begun.append((len(entry["operations"]), set()))
        elif entry["type"] == "robot-done":
            begun[-1][1].add(entry["index"])
    assert all(len(done) == count for count, done in begun), begun
