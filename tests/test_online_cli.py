"""``chessatron online`` as a user meets it: logging in (the token kept readable by the user only), a game
killed with SIGKILL in the middle and finished with ``--game ID``, and every fault a user can cause or
meet (no token, a refused token, a server that is down, an impossible seek) ending in one line."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import chess.pgn
import pytest
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.game.records.journal import read_journal
from chessatron.game.records.store import list_games
from chessatron.online.token import find_token
from chessatron.sim.world import get_world

from .fake_lichess import FakeLichess

ANN = "lip_ann_token_1"


@pytest.fixture
def fake() -> Iterator[FakeLichess]:
    with FakeLichess() as server:
        server.add_user("Ann", ANN)
        yield server


def env(tmp_path: Path, token: str | None = ANN) -> dict[str, str]:
    values = {
        **os.environ,
        "CHESSATRON_STATE": str(tmp_path / "sim.json"),
        "CHESSATRON_GAMES": str(tmp_path / "games"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    values.pop("LICHESS_TOKEN", None)
    values.pop("CHESSATRON_CONFIG", None)
    if token is not None:
        values["LICHESS_TOKEN"] = token
    return values


def one_line_error(result: object) -> str:
    """The single line a failed command printed (and no traceback)."""
    output = str(getattr(result, "output", ""))
    assert getattr(result, "exit_code", 0) != 0
    assert "Traceback" not in output
    lines = [line for line in output.splitlines() if line.startswith("chessatron: ")]
    assert len(lines) == 1, output
    return lines[0]


def pgn_moves(path: Path) -> list[chess.Move]:
    game = chess.pgn.read_game(io.StringIO(path.read_text()))
    assert game is not None
    return list(game.mainline_moves())


def test_sigkill_mid_game_then_game_id_finishes_it(tmp_path: Path, fake: FakeLichess) -> None:
    command = [sys.executable, "-m", "chessatron.cli", "online", "--player", "hand:20:depth=1", "--ai", "2"]
    command += ["--color", "white", "--url", fake.url, "--json"]
    moves = 0
    killed_in_a_drag = False
    deadline = time.monotonic() + 120
    with subprocess.Popen(
        command, env=env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            event = json.loads(line)
            moves += event["event"] == "move"
            if moves >= 7 and event["event"] == "relocation" and event["index"] + 1 < event["of"]:
                process.send_signal(
                    signal.SIGKILL
                )  # in the middle of the robot's move of the opponent's piece
                killed_in_a_drag = True
                break
            assert time.monotonic() < deadline
        process.wait(30)
    assert killed_in_a_drag and process.returncode == -signal.SIGKILL
    (game,) = fake.games.values()
    assert not game.over
    pgn = tmp_path / "game.pgn"
    result = CliRunner(env=env(tmp_path)).invoke(
        main,
        [
            "online",
            "--player",
            "hand:20:depth=1",
            "--game",
            game.id,
            "--url",
            fake.url,
            "--json",
            "--pgn-out",
            str(pgn),
        ],
    )
    assert result.exit_code == 0, result.output
    assert game.over
    assert pgn_moves(pgn) == list(game.board.move_stack)
    (summary,) = list_games(tmp_path / "games")  # the stopped game's journal, finished: no second one
    journal = read_journal(summary.path)
    assert journal.is_finished and [m.move for m in journal.moves] == list(game.board.move_stack)
    assert journal.metadata.config["online"]["game"] == game.id
    twin = get_world("default").twin
    assert not twin.violations


def test_login_keeps_the_token_readable_by_the_user_only(tmp_path: Path, fake: FakeLichess) -> None:
    runner = CliRunner(env=env(tmp_path, token=None))
    result = runner.invoke(main, ["online", "login", "--url", fake.url, "--token", ANN])
    assert result.exit_code == 0, result.output
    assert "logged in as Ann" in result.output
    kept = tmp_path / "config" / "chessatron" / "online-tokens.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert find_token(fake.url, env={}, path=kept) == (ANN, str(kept))
    result = runner.invoke(main, ["online", "logout", "--url", fake.url])
    assert result.exit_code == 0 and "forgot" in result.output
    assert "no API token" in one_line_error(
        runner.invoke(main, ["online", "--player", "board", "--ai", "1", "--url", fake.url])
    )


def test_login_refuses_a_token_the_server_does_not_know_or_that_cannot_play(
    tmp_path: Path, fake: FakeLichess
) -> None:
    fake.add_user("Reader", "lip_reader_only", scopes="preference:read")
    runner = CliRunner(env=env(tmp_path, token=None))
    refused = one_line_error(
        runner.invoke(main, ["online", "login", "--url", fake.url, "--token", "lip_not_a_token"])
    )
    assert "does not accept the API token" in refused
    scopes = one_line_error(
        runner.invoke(main, ["online", "login", "--url", fake.url, "--token", "lip_reader_only"])
    )
    assert "board:play" in scopes
    assert not (tmp_path / "config" / "chessatron" / "online-tokens.json").exists()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("args", "token", "says"),
    [
        (["--ai", "1"], "lip_wrong_token", "does not accept the API token"),
        (["--seek", "3+2"], ANN, "too fast to seek"),
        ([], ANN, "say which game to play"),
        (["--ai", "1", "--seek", "10+0"], ANN, "say which game to play"),
        (["--game", "nosuchgame"], ANN, "Not found"),
        (["--challenge", "nobody"], ANN, "No such user"),
    ],
)
def test_faults_end_in_one_line(
    tmp_path: Path, fake: FakeLichess, args: list[str], token: str, says: str
) -> None:
    runner = CliRunner(env=env(tmp_path, token=token))
    line = one_line_error(runner.invoke(main, ["online", "--player", "board", "--url", fake.url, *args]))
    assert says in line
    assert list_games(tmp_path / "games") == []


def test_a_server_that_is_down_ends_in_one_line(tmp_path: Path) -> None:
    runner = CliRunner(env=env(tmp_path))
    url = f"http://127.0.0.1:{closed_port()}"
    assert "cannot reach" in one_line_error(
        runner.invoke(main, ["online", "--player", "board", "--ai", "1", "--url", url])
    )


def test_play_resume_points_an_online_game_to_online_game_id(tmp_path: Path, fake: FakeLichess) -> None:
    """A game stopped at its start is aborted on the server; one stopped later is kept, and ``play
    --resume`` says how to go on with it."""
    command = [sys.executable, "-m", "chessatron.cli", "online", "--player", "hand:20:depth=1", "--ai", "2"]
    command += ["--url", fake.url, "--json"]
    with subprocess.Popen(
        command, env=env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if json.loads(line)["event"] == "move" and len(fake.game().board.move_stack) >= 4:
                process.send_signal(signal.SIGINT)
                break
        _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and "--game" in stderr and "Traceback" not in stderr
    line = one_line_error(CliRunner(env=env(tmp_path)).invoke(main, ["play", "--resume"]))
    assert f"chessatron online --game {fake.game().id}" in line
