"""What reaches the terminal when things go wrong: one line of chessatron's, never a traceback, never a
library's noise (python-chess's warnings, a chatty engine's stderr), never a false "ok"."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from chessatron import logs
from chessatron.cli import EXIT_INTERNAL, main
from chessatron.config import Config
from chessatron.game.records.store import list_games


def boom(path: Path | None = None) -> Config:
    raise RuntimeError("a bug\nover two lines")


def test_an_internal_error_is_one_line_and_its_traceback_goes_to_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Config, "load", boom)
    log = tmp_path / "chessatron.log"
    result = CliRunner(env={"CHESSATRON_LOG": str(log)}).invoke(main, ["config", "check"])
    assert result.exit_code == EXIT_INTERNAL
    said = "internal error: RuntimeError: a bug over two lines; please report it"
    assert result.stderr.splitlines() == [f"chessatron: {said} (the details are in {log})"]
    assert "Traceback" not in result.output
    filed = log.read_text()
    assert "Traceback (most recent call last)" in filed and "RuntimeError: a bug" in filed


@pytest.mark.parametrize(("args", "env"), [(["--debug"], {}), ([], {"CHESSATRON_DEBUG": "1"})])
def test_debug_shows_the_traceback(
    monkeypatch: pytest.MonkeyPatch, args: list[str], env: dict[str, str]
) -> None:
    monkeypatch.setattr(Config, "load", boom)
    result = CliRunner(env=env).invoke(main, [*args, "config", "check"])
    assert isinstance(result.exception, RuntimeError)  # left to Python, which prints its traceback


def test_library_records_go_to_the_log_file_and_ours_to_the_user_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "chessatron.log"
    setup = logs.configure(path=log)
    try:
        logging.getLogger("chess.pgn").warning("illegal san: 'Nc6' in … while parsing <Game at 0x7f>")
        logging.getLogger("chess.engine").warning("<UciProtocol (pid=1)>: stderr >> info string spam")
        logging.getLogger("chessatron.game.records.store").warning(
            "skipping a damaged saved game:\nsecond line"
        )
        logging.getLogger("chessatron.sensors").info("opened the sensors")
    finally:
        setup.close()
    assert capsys.readouterr().err == "chessatron: warning: skipping a damaged saved game:\n"
    filed = log.read_text()
    assert "while parsing" in filed and "info string spam" in filed and "opened the sensors" in filed
    logging.getLogger("chess.pgn").warning("after the command: logging is as it was")
    assert "as it was" not in log.read_text()


def test_a_thread_that_dies_is_one_line_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "chessatron.log"
    setup = logs.configure(path=log)
    try:

        def fail() -> None:
            raise ValueError("a bug in a thread")

        worker = threading.Thread(target=fail, name="worker")
        worker.start()
        worker.join()
    finally:
        setup.close()
    assert capsys.readouterr().err == (
        "chessatron: internal error in worker: ValueError: a bug in a thread; please report it\n"
    )
    assert "Traceback" in log.read_text()


def test_a_damaged_saved_game_is_a_warning_of_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "20240101T120000Z-abc.jsonl").write_bytes(b"\xff\xfe not a journal\n")
    result = CliRunner().invoke(main, ["games", "--games-dir", str(folder)])
    assert result.exit_code == 0
    (line,) = result.stderr.splitlines()
    assert line.startswith("chessatron: warning: skipping a damaged saved game: ") and "abc.jsonl" in line


# --- an engine that writes to stderr ----------------------------------------------------------------

CHATTY_ENGINE = """#!{python}
# A UCI engine that plays the first legal move and writes a lot to stderr: a debug build, say.
import sys
import chess

board = chess.Board()

def say(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()

def chatter(count):
    sys.stderr.write("debug: searching the tree, line after line\\n" * count)
    sys.stderr.flush()

chatter(2000)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        say("id name chatty")
        say("option name Threads type spin default 1 min 1 max 512")
        say("option name Hash type spin default 16 min 1 max 1024")
        say("uciok")
    elif words[0] == "isready":
        say("readyok")
    elif words[0] == "position":
        board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:8]))
        if "moves" in words:
            for uci in words[words.index("moves") + 1 :]:
                board.push_uci(uci)
    elif words[0] == "go":
        chatter(5000)
        say("bestmove " + min(move.uci() for move in board.legal_moves))
    elif words[0] == "quit":
        break
"""


def test_an_engine_that_floods_stderr_leaves_the_terminal_clean(tmp_path: Path) -> None:
    engine = tmp_path / "chatty-engine"
    engine.write_text(CHATTY_ENGINE.format(python=sys.executable))
    engine.chmod(engine.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "chessatron.log"
    env = {
        **os.environ,
        "CHESSATRON_STATE": str(tmp_path / "sim.json"),
        "CHESSATRON_GAMES": str(tmp_path / "games"),
        "CHESSATRON_CONFIG": str(tmp_path / "none.toml"),
        "CHESSATRON_LOG": str(log),
    }
    env.pop("CHESSATRON_DEBUG", None)
    command = [sys.executable, "-m", "chessatron.cli", "play", "--config", str(tmp_path / "c.toml")]
    command += ["--white", "engine", "--black", "engine", "--engine", str(engine), "--max-plies", "6"]
    (tmp_path / "c.toml").write_text("")
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "searching the tree" not in done.stderr and "searching the tree" not in done.stdout
    assert "Traceback" not in done.stderr
    assert not log.exists() or "searching the tree" not in log.read_text()
    (game,) = list_games(tmp_path / "games")
    assert game.plies == 6  # the engine played: its chatter was not for want of a game
