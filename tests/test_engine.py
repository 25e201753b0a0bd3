"""The engine player against the real Stockfish, and against fake engines that hang or die."""

from __future__ import annotations

import logging
import os
import signal
import stat
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chessatron.errors import (
    ConfigError,
    EngineClosedError,
    EngineError,
    EngineFailedError,
    EngineMissingError,
    EngineSettingsError,
    GameOverError,
    InvalidPositionError,
)
from chessatron.game.engine import settings as engine_settings
from chessatron.game.engine.player import EnginePlayer
from chessatron.game.engine.settings import EngineSettings, find_engine, parse_level

STOCKFISH = Path("/usr/games/stockfish")
needs_stockfish = pytest.mark.skipif(not os.access(STOCKFISH, os.X_OK), reason="sudo apt install stockfish")
FAST = EngineSettings(depth=4)
FAST_HINT = chess.engine.Limit(depth=4)

POSITIONS = [
    chess.STARTING_FEN,
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",  # mate in one: Qxf7#
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",  # en passant possible
    "8/4P3/8/8/8/8/k7/4K3 w - - 0 1",  # promotion
    "4k3/8/8/8/8/8/4r3/4K2R w K - 0 1",  # in check
]
# Chess960, king b1, rook a1: castling long (king c1, rook d1) is the only mate; the rook cannot get to
# d1 on its own, the king is in the way.
C960_MATE = "2rkr3/2p1p3/8/8/8/8/8/RK6 w A - 0 1"


def is_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def sent_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What python-chess wrote to the engine process, from its debug log (``<pid>: << line``)."""
    return [r.getMessage().split(": << ", 1)[1] for r in caplog.records if ": << " in r.getMessage()]


# --- finding the engine --------------------------------------------------------------------------


def test_a_missing_engine_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(engine_settings, "GAMES_DIRS", (str(tmp_path / "games"),))
    with pytest.raises(EngineMissingError) as caught:
        find_engine("stockfish")
    message = str(caught.value)
    assert "'stockfish' not found" in message
    assert "sudo apt install stockfish" in message
    assert "--engine PATH" in message
    assert isinstance(caught.value, FileNotFoundError)


def test_an_explicit_path_must_exist_and_be_executable(tmp_path: Path) -> None:
    with pytest.raises(EngineMissingError, match=r"no chess engine at '.*nowhere'"):
        find_engine(str(tmp_path / "nowhere"))
    script = tmp_path / "engine"
    script.write_text("")
    with pytest.raises(EngineMissingError, match="is not executable; run 'chmod \\+x"):
        find_engine(str(script))
    script.chmod(0o755)
    assert find_engine(str(script)) == script


@needs_stockfish
def test_debian_games_dir_is_searched_when_not_on_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_engine() == STOCKFISH


# --- levels --------------------------------------------------------------------------------------

LEVELS = [
    ("engine", EngineSettings()),
    ("engine:8", EngineSettings(skill=8)),
    ("Engine:0", EngineSettings(skill=0)),
    ("engine:20", EngineSettings(skill=20)),
    ("engine:1500elo", EngineSettings(elo=1500)),
    ("engine:elo1500", EngineSettings(elo=1500)),
    ("engine:1500ELO", EngineSettings(elo=1500)),
    ("engine:8:depth=12", EngineSettings(skill=8, depth=12)),
    ("engine:8:time=0.5", EngineSettings(skill=8, time_s=0.5)),
    ("engine:time=.25:8", EngineSettings(skill=8, time_s=0.25)),
    ("engine:nodes=20000", EngineSettings(nodes=20000)),
    (
        "engine:2000elo:time=2:depth=20:threads=2:hash=64",
        EngineSettings(elo=2000, time_s=2.0, depth=20, threads=2, hash_mb=64),
    ),
    (" engine : 8 : depth = 3 ", EngineSettings(skill=8, depth=3)),
]

BAD_LEVELS = [
    ("computer:8", "it must start with 'engine'"),
    ("engine:21", "skill level 21 is outside 0 to 20"),
    ("engine:-1", "cannot read '-1'"),
    ("engine:8:1500elo", "strength given twice ('8' and '1500elo')"),
    ("engine::8", "an empty field between colons"),
    ("engine:8:", "an empty field between colons"),
    ("engine:fast", "cannot read 'fast'; expected a skill level 0 to 20"),
    ("engine:8:speed=3", "unknown option 'speed'; use time=, depth=, nodes=, threads=, hash="),
    ("engine:time=0", "time per move 0.0 s must be a positive number of seconds"),
    ("engine:time=-1", "time='-1' must be a number of seconds like 0.5"),
    ("engine:time=nan", "time='nan' must be a number of seconds like 0.5"),
    ("engine:depth=1.5", "depth='1.5' must be a whole number"),
    ("engine:depth=0", "depth 0 must be at least 1"),
    ("engine:depth=1:depth=2", "'depth' given twice"),
    ("engine:0elo", "elo 0 is not a rating"),
    ("engine:1_500elo", "cannot read '1_500elo'"),
    ("engine:threads=0", "threads 0 must be at least 1"),
]


@pytest.mark.parametrize(("text", "settings"), LEVELS)
def test_levels(text: str, settings: EngineSettings) -> None:
    assert parse_level(text) == settings


@pytest.mark.parametrize(("text", "fragment"), BAD_LEVELS)
def test_bad_levels_say_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(EngineSettingsError) as caught:
        parse_level(text)
    assert str(caught.value).startswith(f"bad engine level {text!r}: ")
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ConfigError) and isinstance(caught.value, EngineError)


def test_default_level_is_full_strength_for_one_second() -> None:
    settings = parse_level("engine")
    assert settings.limit() == chess.engine.Limit(time=1.0)
    assert settings.options() == {"Threads": 1, "Hash": 16}


def test_skill_and_elo_together_are_refused() -> None:
    with pytest.raises(EngineSettingsError, match="choose one"):
        EngineSettings(skill=3, elo=1500)


@given(
    strength=st.one_of(
        st.none(),
        st.integers(0, 20).map(lambda n: ("skill", n)),
        st.integers(1, 4000).map(lambda n: ("elo", n)),
    ),
    time_s=st.none() | st.floats(0.001, 100.0),
    depth=st.none() | st.integers(1, 99),
    nodes=st.none() | st.integers(1, 10**9),
    threads=st.integers(1, 64),
    hash_mb=st.integers(1, 4096),
)
def test_a_level_reads_back_from_its_spec(
    strength: tuple[str, int] | None,
    time_s: float | None,
    depth: int | None,
    nodes: int | None,
    threads: int,
    hash_mb: int,
) -> None:
    kind, value = strength or ("skill", None)
    settings = EngineSettings(
        time_s=time_s, depth=depth, nodes=nodes, threads=threads, hash_mb=hash_mb, **{kind: value}
    )
    assert parse_level(settings.spec()) == settings


# --- the real Stockfish --------------------------------------------------------------------------


@pytest.fixture
def stockfish() -> Iterator[EnginePlayer]:
    with EnginePlayer(FAST, engine=str(STOCKFISH), hint_limit=FAST_HINT) as player:
        yield player


@needs_stockfish
@pytest.mark.parametrize("fen", POSITIONS)
def test_moves_hints_and_scores_in_standard_positions(fen: str) -> None:
    board = chess.Board(fen)
    with EnginePlayer(FAST, engine=str(STOCKFISH), hint_limit=FAST_HINT) as player:
        assert board.is_legal(player.best_move(board))
        assert board.is_legal(player.hint(board))
        assert isinstance(player.evaluate(board), chess.engine.PovScore)
        assert player.restarts == 0


@needs_stockfish
def test_the_engine_finds_mate_in_one_and_scores_it() -> None:
    board = chess.Board(POSITIONS[1])
    with EnginePlayer(EngineSettings(depth=2), engine=str(STOCKFISH), hint_limit=FAST_HINT) as player:
        assert board.san(player.best_move(board)) == "Qxf7#"
        assert board.san(player.hint(board)) == "Qxf7#"
        score = player.evaluate(board)
        assert score is not None and score.white() == chess.engine.Mate(1)
        board.push_san("Qxf7#")
        assert player.evaluate(board) == chess.engine.PovScore(chess.engine.Mate(0), chess.BLACK)


@needs_stockfish
def test_chess960_castling_comes_back_king_onto_rook(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    board = chess.Board(C960_MATE, chess960=True)
    with EnginePlayer(EngineSettings(depth=3), engine=str(STOCKFISH), hint_limit=FAST_HINT) as player:
        move = player.best_move(board)
        assert move == chess.Move.from_uci("b1a1")
        assert board.is_castling(move) and board.san(move) == "O-O-O#"
        assert player.hint(board) == move
    assert "setoption name UCI_Chess960 value true" in sent_lines(caplog)


@needs_stockfish
@pytest.mark.parametrize("start", [0, 518, 959])
def test_legal_moves_through_a_chess960_game(start: int) -> None:
    board = chess.Board.from_chess960_pos(start)
    with EnginePlayer(EngineSettings(depth=1), engine=str(STOCKFISH)) as player:
        while not board.is_game_over() and board.ply() < 40:
            move = player.best_move(board)
            assert board.is_legal(move)
            board.push(move)


@needs_stockfish
def test_skill_level_is_sent_and_restored_after_a_full_strength_hint(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    board = chess.Board()
    with EnginePlayer(parse_level("engine:8:depth=2"), engine=str(STOCKFISH), hint_limit=FAST_HINT) as player:
        player.best_move(board)
        player.hint(board)
        player.best_move(board)
    options = [line for line in sent_lines(caplog) if line.startswith("setoption name Skill Level")]
    assert options == [
        "setoption name Skill Level value 8",
        "setoption name Skill Level value 20",
        "setoption name Skill Level value 8",
    ]


@needs_stockfish
@pytest.mark.parametrize(
    ("level", "cap_s", "go"),
    [
        ("engine:20:time=0.05", 1.0, "go movetime 50"),  # the level's own time is shorter: it stands
        ("engine:20:time=2", 0.05, "go movetime 50"),  # the clock runs low: the engine hurries
        ("engine:20:depth=3", 0.05, "go depth 3 movetime 50"),  # whichever comes first
        ("engine:20:depth=3", None, "go depth 3"),
    ],
)
def test_a_clock_caps_how_long_the_engine_thinks(
    caplog: pytest.LogCaptureFixture, level: str, cap_s: float | None, go: str
) -> None:
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    with EnginePlayer(parse_level(level), engine=str(STOCKFISH)) as player:
        assert chess.Board().is_legal(player.best_move(chess.Board(), max_time_s=cap_s))
    assert [line for line in sent_lines(caplog) if line.startswith("go")] == [go]


@needs_stockfish
def test_elo_is_sent_as_limited_strength(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="chess.engine")
    with EnginePlayer(parse_level("engine:1500elo:depth=2"), engine=str(STOCKFISH)) as player:
        assert chess.Board().is_legal(player.best_move(chess.Board()))
    sent = sent_lines(caplog)
    assert "setoption name UCI_LimitStrength value true" in sent
    assert "setoption name UCI_Elo value 1500" in sent
    assert not any(line.startswith("setoption name Skill Level") for line in sent)


@needs_stockfish
@pytest.mark.parametrize("elo", [1000, 4000])
def test_an_elo_out_of_the_engines_range_is_refused_naming_the_range(elo: int) -> None:
    with pytest.raises(EngineSettingsError) as caught:
        EnginePlayer(EngineSettings(elo=elo), engine=str(STOCKFISH))
    # Stockfish 15.1 reports UCI_Elo from 1350 to 2850.
    assert f"elo {elo} is outside the range 1350 to 2850" in str(caught.value)


@needs_stockfish
def test_close_kills_the_process_and_may_be_repeated() -> None:
    player = EnginePlayer(FAST, engine=str(STOCKFISH))
    pid = player.pid
    assert pid is not None and is_alive(pid)
    player.close()
    assert not is_alive(pid)
    player.close()
    with pytest.raises(EngineClosedError):
        player.best_move(chess.Board())


@needs_stockfish
def test_positions_without_a_move_or_impossible_ones_are_refused_without_a_crash(
    stockfish: EnginePlayer,
) -> None:
    mated = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    with pytest.raises(GameOverError, match="it is checkmate; take a move back or start a new game"):
        stockfish.best_move(mated)
    with pytest.raises(GameOverError, match="stalemate"):
        stockfish.hint(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"))
    with pytest.raises(InvalidPositionError, match="no black king"):
        stockfish.best_move(chess.Board("8/8/8/8/8/8/8/4K3 w - - 0 1"))
    assert stockfish.restarts == 0


@needs_stockfish
def test_an_engine_killed_between_moves_is_restarted(
    stockfish: EnginePlayer, caplog: pytest.LogCaptureFixture
) -> None:
    board = chess.Board()
    board.push(stockfish.best_move(board))
    old = stockfish.pid
    assert old is not None
    os.kill(old, signal.SIGKILL)
    board.push(stockfish.best_move(board))
    assert stockfish.restarts == 1 and stockfish.pid != old
    assert "failed while choosing a move (it exited), attempt 1 of 3; restarting it" in caplog.text
    assert board.is_valid() and len(board.move_stack) == 2


@needs_stockfish
def test_an_engine_killed_mid_search_is_restarted_and_searches_again() -> None:
    board = chess.Board(POSITIONS[2])
    with EnginePlayer(EngineSettings(time_s=0.5), engine=str(STOCKFISH)) as player:
        pid = player.pid
        assert pid is not None
        killer = threading.Timer(0.15, os.kill, (pid, signal.SIGKILL))
        killer.start()
        started = time.monotonic()
        move = player.best_move(board)
        killer.join()
        assert board.is_legal(move)
        assert player.restarts == 1
        assert time.monotonic() - started > 0.5  # the second search ran its full time
        assert board.is_legal(player.hint(board))


@needs_stockfish
def test_closing_from_another_thread_stops_a_search_without_a_restart() -> None:
    player = EnginePlayer(EngineSettings(time_s=5.0), engine=str(STOCKFISH))
    pid = player.pid
    assert pid is not None
    closer = threading.Timer(0.2, player.close)
    closer.start()
    started = time.monotonic()
    with pytest.raises(EngineClosedError, match="was closed while choosing a move"):
        player.best_move(chess.Board())
    closer.join()
    assert time.monotonic() - started < 3
    assert not is_alive(pid) and player.pid is None and player.restarts == 0


# --- fake engines --------------------------------------------------------------------------------

FAKE_ENGINE = """#!{python}
# A UCI engine that answers e2e4 to everything, after failing its first {failures} searches by {mode}
# (hanging, dying, or answering a bestmove line without a move).
import os, sys, time
count_file, log_file = {count_file!r}, {log_file!r}

def say(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()

if {mode!r} == "dying at start":
    sys.exit(1)
for line in sys.stdin:
    line = line.strip()
    with open(log_file, "a") as log:
        log.write(line + "\\n")
    if line == "uci":
        say("id name fake")
        for option in {options!r}:
            say("option name " + option)
        say("uciok")
    elif line == "isready":
        say("readyok")
    elif line.startswith("go"):
        searches = int(open(count_file).read()) if os.path.exists(count_file) else 0
        open(count_file, "w").write(str(searches + 1))
        if searches < {failures}:
            if {mode!r} == "hanging":
                time.sleep(3600)
            if {mode!r}.startswith("bestmove"):
                say({mode!r})
                continue
            os._exit(3)
        say("bestmove e2e4")
    elif line == "quit":
        break
"""

OPTIONS = [
    "Threads type spin default 1 min 1 max 512",
    "Hash type spin default 16 min 1 max 1024",
    "Skill Level type spin default 20 min 0 max 20",
    "UCI_Chess960 type check default false",
]


class FakeEngine:
    def __init__(
        self, directory: Path, mode: str, failures: int = 1000, options: list[str] = OPTIONS
    ) -> None:
        self.path = directory / "fake-engine"
        self.log = directory / "fake-engine.log"
        self.path.write_text(
            FAKE_ENGINE.format(
                python=sys.executable,
                mode=mode,
                failures=failures,
                options=options,
                count_file=str(directory / "searches"),
                log_file=str(self.log),
            )
        )
        self.path.chmod(self.path.stat().st_mode | stat.S_IXUSR)

    def searches(self) -> int:
        return sum(line.startswith("go") for line in self.log.read_text().splitlines())


@pytest.mark.parametrize("mode", ["hanging", "dying"])
def test_an_engine_that_fails_once_is_restarted_and_answers(
    tmp_path: Path, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeEngine(tmp_path, mode, failures=1)
    with EnginePlayer(EngineSettings(skill=3, depth=5), engine=str(fake.path), timeout_s=1.0) as player:
        started = time.monotonic()
        assert player.best_move(chess.Board()) == chess.Move.from_uci("e2e4")
        assert time.monotonic() - started < 5
        assert player.restarts == 1
        assert player.best_move(chess.Board()) == chess.Move.from_uci("e2e4")
    assert fake.searches() == 3
    reason = "no answer in 1 s" if mode == "hanging" else "it exited"
    assert f"failed while choosing a move ({reason}), attempt 1 of 3; restarting it" in caplog.text
    # the restarted engine was configured again before it searched
    assert fake.log.read_text().count("setoption name Skill Level value 3") == 2


@pytest.mark.parametrize("mode", ["hanging", "dying"])
def test_an_engine_that_keeps_failing_gives_up_after_the_retries(tmp_path: Path, mode: str) -> None:
    fake = FakeEngine(tmp_path, mode)
    with EnginePlayer(FAST, engine=str(fake.path), timeout_s=0.5, max_attempts=2) as player:
        started = time.monotonic()
        with pytest.raises(EngineFailedError) as caught:
            player.hint(chess.Board())
        assert time.monotonic() - started < 5
    assert "failed 2 times in a row while finding a hint" in str(caught.value)
    assert "--engine PATH" in str(caught.value)
    assert fake.searches() == 2


@pytest.mark.parametrize("answer", ["bestmove", "bestmove (none)", "bestmove 0000"])
def test_an_engine_that_answers_without_a_move_is_restarted_and_asked_again(
    tmp_path: Path, answer: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A bare ``bestmove`` in a position with moves is garbled like an illegal move: retried, not the end
    of the game."""
    fake = FakeEngine(tmp_path, answer, failures=1)
    with EnginePlayer(FAST, engine=str(fake.path), timeout_s=5.0) as player:
        assert player.best_move(chess.Board()) == chess.Move.from_uci("e2e4")
        assert player.restarts == 1
    assert fake.searches() == 2
    said = "failed while choosing a move (it answered 'bestmove' without a move), attempt 1 of 3"
    assert said in caplog.text


def test_an_engine_that_never_answers_a_move_gives_up_saying_so(tmp_path: Path) -> None:
    fake = FakeEngine(tmp_path, "bestmove (none)")
    with EnginePlayer(FAST, engine=str(fake.path), timeout_s=5.0, max_attempts=2) as player:
        with pytest.raises(EngineFailedError) as caught:
            player.best_move(chess.Board())
        with pytest.raises(EngineFailedError, match="while finding a hint"):
            player.hint(chess.Board())
    assert "failed 2 times in a row while choosing a move" in str(caught.value)
    assert "(last: it answered 'bestmove' without a move)" in str(caught.value)
    assert fake.searches() == 4


def test_an_engine_that_does_not_start_is_reported(tmp_path: Path) -> None:
    fake = FakeEngine(tmp_path, "dying at start")
    with pytest.raises(
        EngineFailedError, match=r"did not start \(it exited\); check that it runs on its own"
    ):
        EnginePlayer(FAST, engine=str(fake.path))


def test_an_engine_without_chess960_says_so(tmp_path: Path) -> None:
    fake = FakeEngine(tmp_path, "dying", failures=0, options=OPTIONS[:3])
    with EnginePlayer(FAST, engine=str(fake.path)) as player:
        assert player.best_move(chess.Board()) == chess.Move.from_uci("e2e4")
        with pytest.raises(EngineSettingsError, match="does not play chess960"):
            player.best_move(chess.Board.from_chess960_pos(518))


def test_an_engine_without_an_elo_option_says_so(tmp_path: Path) -> None:
    fake = FakeEngine(tmp_path, "dying", failures=0)
    with pytest.raises(EngineSettingsError, match="has no 'UCI_LimitStrength' option"):
        EnginePlayer(EngineSettings(elo=1500), engine=str(fake.path))
