"""What a player at ``chessatron play`` is told: one readable line for each thing that happens, an answer
to every command, an engine view that belongs to the position on the board, a flag that falls while the
prompt waits, and no game left behind by players that could not start."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess
import chess.engine
import pytest
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.config import Config
from chessatron.errors import ConfigError, EngineMissingError
from chessatron.game.players.keyboard import KeyboardPlayer
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.records.journal import read_journal
from chessatron.game.records.record import ClockSettings
from chessatron.game.records.store import latest_unfinished, list_games
from chessatron.game.session import Session
from chessatron.game.telling.evaluation import evaluation_after
from chessatron.game.telling.events import describe_event, result_line, summary_line
from chessatron.game.telling.live import LiveState

ENGINE = "engine:20:depth=1"  # full strength at a fixed depth: deterministic, and quick


def env(tmp_path: Path) -> dict[str, str]:
    return {"CHESSATRON_STATE": str(tmp_path / "sim.json"), "CHESSATRON_GAMES": str(tmp_path / "games")}


def scripted(lines: list[str], said: list[str], seen: Callable[[], None] | None = None) -> KeyboardPlayer:
    """A keyboard typing ``lines`` (then the end of input); what it is told goes to ``said``."""
    queue = list(lines)

    def read_line(prompt: str) -> str | None:
        if seen is not None:
            seen()
        return queue.pop(0) if queue else None

    return KeyboardPlayer(read_line, said.append)


@pytest.fixture
def played(tmp_path: Path) -> Iterator[Callable[..., tuple[list[str], list[dict[str, Any]], Session]]]:
    """Play keyboard (White) against the engine with ``lines`` typed; returns what the player was told
    (the terminal's lines, as ``chessatron play`` prints them, and the keyboard's answers), the events
    and the session."""
    sessions: list[Session] = []

    def play(
        lines: list[str], *, black: str = ENGINE, seen: Callable[[Session], None] | None = None, **kw: Any
    ) -> tuple[list[str], list[dict[str, Any]], Session]:
        told: list[str] = []
        events: list[dict[str, Any]] = []
        live = LiveState(Config.default().layout)

        def emit(event: dict[str, Any]) -> None:
            events.append(event)
            line = describe_event(event, live.snapshot().get("game"))
            if line is not None:
                told.append(line)

        session = Session(
            Config.default(), games_dir=tmp_path / "games", speed=None, emit=emit, live=live, **kw
        )
        sessions.append(session)
        session.keyboard = scripted(lines, told, None if seen is None else lambda: seen(session))
        white, black_spec = PlayerSpec.parse("keyboard"), PlayerSpec.parse(black)
        session.connect()
        # a quit (KeyboardInterrupt) leaves the game saved
        with (
            session.new_game(white, black_spec, chess.Board()) as journal,
            contextlib.suppress(KeyboardInterrupt),
        ):
            session.play(journal, white, black_spec)
        return told, events, session

    yield play
    for session in sessions:
        session.close()


# --- one line for each event, in the player's words ------------------------------------------------


GAME = {"white": "keyboard", "black": "engine:3", "start_fen": chess.STARTING_FEN, "san": ["Nf3", "b6"]}


@pytest.mark.parametrize(
    ("event", "game", "line"),
    [
        (
            {"event": "game", "id": "f1363334", "fen": chess.STARTING_FEN, "chess960": False},
            GAME,
            "game f1363334: standard chess, White keyboard vs Black engine:3",
        ),
        (
            {
                "event": "game",
                "id": "c0ffee",
                "fen": chess.Board.from_chess960_pos(100).fen(),
                "chess960": True,
            },
            GAME,
            "game c0ffee: Chess960 start 100 (QBBNRNKR), White keyboard vs Black engine:3",
        ),
        ({"event": "move", "ply": 1, "san": "Nf3", "who": "keyboard"}, GAME, "    1. Nf3      keyboard"),
        ({"event": "move", "ply": 2, "san": "b6", "who": "engine:3"}, GAME, "  1... b6       engine:3"),
        # a game from a position with Black to move numbers its moves from there
        (
            {"event": "move", "ply": 2, "san": "Kd2", "who": "keyboard"},
            {"start_fen": "4k3/8/8/8/8/8/8/4K3 b - - 0 30"},
            "   31. Kd2      keyboard",
        ),
        (
            {"event": "result", "result": "1/2-1/2", "termination": "agreed draw"},
            GAME,
            "draw agreed (1/2-1/2)",
        ),
        (
            {"event": "result", "result": "0-1", "termination": "resignation"},
            GAME,
            "White resigns: Black wins (0-1)",
        ),
        (
            {"event": "result", "result": "1-0", "termination": "checkmate"},
            GAME,
            "White wins by checkmate (1-0)",
        ),
        (
            {"event": "result", "result": "0-1", "termination": "time forfeit"},
            GAME,
            "Black wins on time (0-1)",
        ),
        (
            {"event": "result", "result": "1/2-1/2", "termination": "threefold repetition"},
            GAME,
            "draw by threefold repetition (1/2-1/2)",
        ),
        ({"event": "takeback", "plies": 2}, GAME, "took back 1. Nf3 b6"),
        ({"event": "takeback", "plies": 1}, GAME, "took back 1... b6"),
        ({"event": "takeback", "plies": 1, "by": "hand"}, GAME, "took back 1... b6 on the board"),
        ({"event": "hint", "uci": "e2e4", "san": "e4"}, GAME, "hint: e4"),
        ({"event": "notice", "message": "the engine declines"}, GAME, "the engine declines"),
        ({"event": "warning", "message": "homing is off"}, GAME, "warning: homing is off"),
        (
            {"event": "resumed", "id": "f1363334", "plies": 2},
            {**GAME, "turn": "white"},
            "resumed game f1363334 (White keyboard vs Black engine:3) after 1... b6; White to move",
        ),
        (
            {"event": "your-hands", "uci": "c7c5", "san": "c5"},
            {**GAME, "turn": "black"},
            "please make Black's move c5 on the board (c7 to c5)",
        ),
        ({"event": "relocation", "index": 0, "of": 2, "what": "wP1 e2-e4"}, GAME, None),
        ({"event": "connected", "url": "sim://"}, GAME, None),
    ],
)
def test_each_event_reads_as_a_sentence(
    event: dict[str, Any], game: dict[str, Any], line: str | None
) -> None:
    assert describe_event(event, game) == line


@pytest.mark.parametrize("result", ["1-0", "0-1", "1/2-1/2"])
@pytest.mark.parametrize(
    "termination", [None, "checkmate", "stalemate", "resignation", "agreed draw", "fifty moves"]
)
def test_a_result_line_names_the_score_once_and_never_the_word_result(
    result: str, termination: str | None
) -> None:
    line = result_line(result, termination)
    assert line.count(result) == 1 and "result" not in line and "None" not in line


def test_a_stopped_game_says_how_to_go_on() -> None:
    assert summary_line("ab12", 7, None, finished=False) == (
        "game ab12 stopped after 4 moves: chessatron play --resume ab12 continues it"
    )


def test_the_terminal_prints_readable_lines_and_json_stays_as_it_was(tmp_path: Path) -> None:
    typed = "e4\nhint\ntakeback\nd4\nresign\n"
    args = ["play", "--white", "keyboard", "--black", ENGINE]
    result = CliRunner(env=env(tmp_path)).invoke(main, args, input=typed)
    assert result.exit_code == 0, result.output
    out = result.output
    (summary,) = list_games(tmp_path / "games")
    assert f"game {summary.game_id}: standard chess, White keyboard vs Black {ENGINE}" in out
    assert "    1. e4       keyboard" in out and "hint: " in out and "took back 1. e4 " in out
    assert "White resigns: Black wins (0-1)" in out
    assert f"game {summary.game_id} saved (1 move): chessatron games --export {summary.game_id}" in out
    assert "result: result" not in out and "fen:" not in out and "plies" not in out

    json_dir = tmp_path / "json"
    result = CliRunner(env=env(json_dir)).invoke(main, [*args, "--json"], input=typed)
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    keys = {event["event"]: sorted(event) for event in events}
    assert keys["game"] == ["chess960", "event", "fen", "id"]
    assert keys["move"] == ["event", "ply", "san", "uci", "who"]
    assert keys["hint"] == ["event", "san", "uci"]
    assert keys["takeback"] == ["event", "plies"]
    assert events[-1] == {"event": "result", "result": "0-1", "termination": "resignation"}


# --- every command answers ---------------------------------------------------------------------------


def test_a_takeback_says_what_it_took_back_and_when_there_is_nothing(played: Any) -> None:
    told, events, _ = played(["takeback", "e4", "takeback", "resign"])
    assert told.index("there is no move to take back") < next(
        n for n, line in enumerate(told) if line.startswith("took back 1. e4 ")
    )
    black_reply = next(e["san"] for e in events if e["event"] == "move" and e["ply"] == 2)
    assert f"took back 1. e4 {black_reply}" in told


def test_an_engine_declines_an_early_draw_plainly_and_the_game_goes_on(played: Any) -> None:
    told, _, session = played(["e4", "draw", "resign"])
    (declined,) = [line for line in told if "declines" in line]
    assert declined.startswith(f"Black ({ENGINE}) declines the draw (") and declined.endswith("); play on")
    state = read_journal(next((session.games_dir).glob("*.jsonl")))
    assert state.result == "0-1" and state.termination == "resignation"  # not an agreed draw


def test_a_hint_names_a_legal_move_and_without_an_engine_says_why(played: Any, tmp_path: Path) -> None:
    told, events, _ = played(["hint", "resign"])
    (hint,) = [e for e in events if e["event"] == "hint"]
    assert chess.Board().parse_san(hint["san"]) and f"hint: {hint['san']}" in told
    told, _, _ = played(["hint", "resign"], black="keyboard", engine_path=str(tmp_path / "no-engine"))
    assert any(line.startswith("no hint: no chess engine at") for line in told)
    assert "White resigns: Black wins (0-1)" in told  # the game went on without the hint


def test_help_lists_every_command_and_how_a_quit_game_goes_on() -> None:
    said: list[str] = []
    assert scripted(["help", "q"], said).ask(chess.Board()) is not None
    (text,) = [line for line in said if line]
    for word in ("hint", "takeback", "draw", "resign", "quit", "help", "play --resume", "O-O"):
        assert word in text


def test_quitting_says_which_game_was_kept_and_how_to_continue_it(tmp_path: Path) -> None:
    args = ["play", "--white", "keyboard", "--black", ENGINE]
    result = CliRunner(env=env(tmp_path)).invoke(main, args, input="e4\nquit\n")
    assert result.exit_code == 0  # asked for: no failure (Ctrl-C is 130)
    (summary,) = list_games(tmp_path / "games")
    game_id = summary.game_id
    assert f"game {game_id} stopped after 1 move: chessatron play --resume {game_id} continues it" in (
        result.stderr
    )
    assert "interrupted" not in result.stderr  # the player asked to stop; nobody pressed Ctrl-C


# --- the engine's view and the hint belong to the position on the board -----------------------------


def test_the_panel_never_shows_a_line_or_a_hint_for_another_position(played: Any) -> None:
    """At every prompt the evaluation is about the position on the board (its line starts with a legal
    move there), the hint too; a takeback and the end of the game clear them."""
    checked: list[dict[str, Any]] = []

    def at_prompt(session: Session) -> None:
        state = session.live.snapshot()
        checked.append(state)
        board = chess.Board(state["game"]["fen"])
        for part in ("evaluation", "hint"):
            if state[part] is not None:
                assert state[part]["fen"] == board.fen(), part
        if state["evaluation"] and state["evaluation"]["pv"]:
            board.parse_san(state["evaluation"]["pv"][0])  # legal here

    # engine:3 plays other moves than its line's first (the weaker level): its line must not show then
    lines = ["Nf3", "hint", "d4", "takeback", "c4", "hint", "Nc3", "resign"]
    _, _, session = played(lines, black="engine:3:depth=6", seen=at_prompt)
    after_takeback = checked[4]
    assert after_takeback["hint"] is None
    assert checked[2]["hint"] is not None  # the hint shows until the player moves
    assert checked[3]["hint"] is None
    final = session.live.snapshot()
    assert final["game"]["result"] == "0-1" and final["evaluation"] is None and final["hint"] is None


def test_the_engines_view_after_its_move_is_the_rest_of_its_line() -> None:
    board = chess.Board()
    board.push_san("e4")
    e5, nf3, nc6 = (chess.Move.from_uci(u) for u in ("e7e5", "g1f3", "b8c6"))
    info = {
        "score": chess.engine.PovScore(chess.engine.Cp(-25), chess.BLACK),
        "depth": 14,
        "pv": [e5, nf3, nc6],
    }
    shown = evaluation_after(board, e5, info)
    assert shown is not None
    assert shown["pv"] == ["Nf3", "Nc6"] and shown["cp"] == 25 and shown["depth"] == 14
    board.push(e5)
    assert shown["fen"] == board.fen()
    board.pop()
    # the level chose another move than its line: the line and its score are about another game
    assert evaluation_after(board, chess.Move.from_uci("c7c5"), info) is None
    # a mate it found comes one move closer with its move
    mate = {"score": chess.engine.PovScore(chess.engine.Mate(3), chess.BLACK), "pv": [e5]}
    shown = evaluation_after(board, e5, mate)
    assert shown is not None and shown["mate"] == -2


def test_the_live_state_drops_a_stale_hint_and_evaluation() -> None:
    live = LiveState(Config.default().layout)
    board = chess.Board()
    live.show_board(board, game_id="g1")
    live.update(
        hint={"uci": "e2e4", "san": "e4", "fen": board.fen()}, evaluation={"cp": 20, "fen": board.fen()}
    )
    live.show_board(board)  # the same position again: still true
    assert live.snapshot()["hint"] is not None and live.snapshot()["evaluation"] is not None
    board.push_san("e4")
    live.show_board(board)
    assert live.snapshot()["hint"] is None and live.snapshot()["evaluation"] is None
    live.update(evaluation={"cp": 20, "mate": None, "depth": 3, "pv": [], "fen": board.fen()})
    live.show_board(board, result="1-0", termination="resignation")
    assert live.snapshot()["evaluation"] is None


# --- players that cannot play leave no game behind ------------------------------------------------


def test_a_missing_engine_is_reported_before_any_game_is_saved(tmp_path: Path) -> None:
    games = tmp_path / "games"
    # a real unfinished game first: --resume must still find it afterwards
    first = CliRunner(env=env(tmp_path)).invoke(main, ["play", "--black", ENGINE], input="e4\nquit\n")
    assert first.exit_code == 0
    (real,) = list_games(games)
    args = ["play", "--engine", "nosuchengine", "--white", "engine", "--black", "engine"]
    result = CliRunner(env=env(tmp_path)).invoke(main, args)
    assert result.exit_code == 2 and "sudo apt install stockfish" in result.output
    assert "Traceback" not in result.output
    assert [summary.game_id for summary in list_games(games)] == [real.game_id]
    unfinished = latest_unfinished(games)
    assert unfinished is not None and unfinished.game_id == real.game_id
    with (
        Session(Config.default(), games_dir=games, engine_path="nosuchengine") as session,
        pytest.raises(EngineMissingError),
    ):
        session.new_game(PlayerSpec.parse("keyboard"), PlayerSpec.parse("engine"), chess.Board())
    assert len(list_games(games)) == 1


def test_players_the_table_cannot_have_are_refused_before_a_game_exists(tmp_path: Path) -> None:
    games = tmp_path / "games"
    result = CliRunner(env=env(tmp_path)).invoke(main, ["play", "--white", "web", "--black", ENGINE])
    assert result.exit_code == 2 and "chessatron serve" in result.output
    config = Config.default()
    no_sensors = dataclasses.replace(config, urls={**config.urls, "sensors": "none://"})
    with Session(no_sensors, games_dir=games) as session:
        with pytest.raises(ConfigError, match="hand player needs the simulator"):
            session.new_game(PlayerSpec.parse("hand"), PlayerSpec.parse(ENGINE), chess.Board())
        with pytest.raises(ConfigError, match="board player needs sensors"):
            session.new_game(PlayerSpec.parse("board"), PlayerSpec.parse(ENGINE), chess.Board())
    assert not list_games(games)


def test_the_help_names_every_kind_of_player() -> None:
    result = CliRunner().invoke(main, ["play", "--help"])
    text = " ".join(result.output.split())
    for kind in (
        "keyboard",
        "engine[:LEVEL]",
        "board",
        "script:FILE",
        "hand[:LEVEL]",
        "web",
        "chessatron serve",
    ):
        assert kind in text


# --- the clock -----------------------------------------------------------------------------------


class FakeTime:
    """A monotonic clock that moves on by ``step_s`` each time it is read."""

    def __init__(self, step_s: float) -> None:
        self.t = 0.0
        self.step_s = step_s

    def __call__(self) -> float:
        self.t += self.step_s
        return self.t


def test_the_flag_falls_while_the_prompt_waits(tmp_path: Path) -> None:
    """Nobody types: the game ends on time anyway, and what is typed later answers the next question."""
    typed = threading.Event()
    prompts: list[str] = []

    def read_line(prompt: str) -> str | None:
        prompts.append(prompt)
        # a prompt nobody gives up on ends the game as the end of input would, after a long while
        return "y" if typed.wait(timeout=60) else None

    told: list[str] = []
    keyboard = KeyboardPlayer(read_line, told.append)
    white, black = PlayerSpec.parse("keyboard"), PlayerSpec.parse(ENGINE)
    with Session(Config.default(), games_dir=tmp_path, speed=None, keyboard=keyboard) as session:
        session.clock_now = FakeTime(step_s=10)
        session.connect()
        with session.new_game(white, black, chess.Board(), ClockSettings(60)) as journal:
            record = session.play(journal, white, black)
    assert (record.result, record.termination) == ("0-1", "time forfeit") and not record.moves
    assert prompts == ["White to move: "]
    typed.set()  # the player comes back: the line answers the question asked now
    assert keyboard.confirm("Another game?") is True


def test_the_engine_thinks_no_longer_than_its_clock_allows(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    white, black = PlayerSpec.parse(ENGINE), PlayerSpec.parse(ENGINE)
    with (
        caplog.at_level("DEBUG", logger="chess.engine"),
        Session(Config.default(), games_dir=tmp_path, speed=None) as session,
    ):
        session.connect()
        with session.new_game(white, black, chess.Board(), ClockSettings(12)) as journal:
            session.play(journal, white, black, max_plies=6)
    goes = [r.getMessage().split(": << ", 1)[1] for r in caplog.records if ": << go" in r.getMessage()]
    assert len(goes) == 6
    for go in goes:
        words = go.split()
        assert "movetime" in words and int(words[words.index("movetime") + 1]) <= 12_000 // 30


def test_a_keyboard_player_is_asked_after_every_game_and_told_the_score(tmp_path: Path) -> None:
    fools_mate = "f3\ne5\ng4\nQh4\n"
    args = ["play", "--white", "keyboard", "--black", "keyboard"]
    result = CliRunner(env=env(tmp_path)).invoke(main, args, input=fools_mate + "y\n" + fools_mate + "n\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("Another game?") == 2
    assert result.output.count("Black wins by checkmate (0-1)") == 2
    assert "after 2 games: White keyboard 0, Black keyboard 2" in result.output
    assert [summary.result for summary in list_games(tmp_path / "games")] == ["0-1", "0-1"]


def test_an_engine_that_does_not_start_leaves_no_game_behind(tmp_path: Path) -> None:
    broken = tmp_path / "broken-engine"
    broken.write_text("#!/bin/sh\nexit 3\n", encoding="utf-8")
    broken.chmod(0o755)
    games = tmp_path / "games"
    result = CliRunner(env=env(tmp_path)).invoke(
        main, ["play", "--engine", str(broken), "--white", "keyboard", "--black", "engine:5"]
    )
    assert result.exit_code == 2 and "did not start" in result.output and "Traceback" not in result.output
    assert not list_games(games) and latest_unfinished(games) is None


def test_a_service_stop_sigterm_stops_the_game_saved_as_ctrl_c_does(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "chessatron.cli", "play", "--white", ENGINE, "--black", ENGINE]
    command += ["--speed", "1", "--json"]  # real time: the robot is at work when the signal comes
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env(tmp_path)},
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if json.loads(line)["event"] == "relocation":  # a drag has finished, the next one is under way
                break
        process.send_signal(signal.SIGTERM)  # to chessatron only, as systemd's KillMode=mixed does
        _, errors = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in errors, errors
    (saved,) = list_games(tmp_path / "games")
    assert saved.in_progress
    resumed = CliRunner(env=env(tmp_path)).invoke(main, ["play", "--resume", "--max-plies", "1"])
    assert resumed.exit_code == 0, resumed.output


def test_a_damaged_simulator_state_is_refused_plainly_and_fresh_starts_over(tmp_path: Path) -> None:
    (tmp_path / "sim.json").write_text("{not json", encoding="utf-8")
    args = ["play", "--white", ENGINE, "--black", ENGINE, "--max-plies", "2"]
    refused = CliRunner(env=env(tmp_path)).invoke(main, args)
    assert refused.exit_code == 2 and "damaged" in refused.stderr and "--fresh" in refused.stderr
    assert list_games(tmp_path / "games") == []  # nothing began
    fresh = CliRunner(env=env(tmp_path)).invoke(main, [*args, "--fresh"])
    assert fresh.exit_code == 0, fresh.output
    (game,) = list_games(tmp_path / "games")
    assert game.plies == 2
