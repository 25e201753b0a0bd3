"""Games that can always be continued, as a player at ``chessatron play`` meets them: players that cannot
play are refused before a game is saved, a game stopped before its first move leaves nothing behind,
``--resume ID`` reaches any game and ``games --abandon ID`` closes one, a damaged journal still gives its
game up to the damage, an engine that answers no move is asked again, a side can change hands on
``--resume``, a script that runs out adjourns the game, and a board player on the simulator is told what
to play instead of waiting for ever."""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from chessatron.cli import main
from chessatron.game.records.journal import GameMetadata, Journal, read_journal
from chessatron.game.records.record import Player
from chessatron.game.records.store import GameSummary, list_games
from chessatron.planning.layout import Layout
from chessatron.sim.state import load_state

ENGINE = "engine:20:depth=1"  # full strength at a fixed depth: deterministic, and quick


def play(tmp_path: Path, *args: str, typed: str = "") -> Result:
    """``chessatron ARGS`` on the simulator (never the user's config), ``typed`` at the keyboard."""
    config = tmp_path / "chessatron.toml"
    if not config.exists():
        config.write_text("# the defaults: everything simulated\n", encoding="utf-8")
    env = {
        "CHESSATRON_STATE": str(tmp_path / "sim.json"),
        "CHESSATRON_GAMES": str(tmp_path / "games"),
        "CHESSATRON_CONFIG": str(config),
    }
    result = CliRunner(env=env).invoke(main, list(args), input=typed)
    assert "Traceback" not in result.output
    return result


def one_line(result: Result) -> str:
    """The one line a refused command says."""
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    return line


def saved(tmp_path: Path) -> dict[str, GameSummary]:
    return {summary.game_id: summary for summary in list_games(tmp_path / "games")}


def stopped_game(tmp_path: Path, moves: str = "e4") -> str:
    """A keyboard game against the engine, stopped after the player's ``moves``; its id."""
    before = set(saved(tmp_path))
    result = play(tmp_path, "play", "--white", "keyboard", "--black", ENGINE, typed=f"{moves}\nquit\n")
    assert result.exit_code == 0, result.output
    (game_id,) = set(saved(tmp_path)) - before
    return game_id


def resumed_id(result: Result) -> str:
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("resumed game ")]
    return line.split()[2]


# --- players that cannot play, and games with nothing to go on with --------------------------------


def test_players_that_cannot_play_are_refused_before_a_game_is_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real unfinished game stays the one --resume continues."""
    real = stopped_game(tmp_path)
    line = one_line(play(tmp_path, "play", "--white", "script:/no/such.pgn", "--black", ENGINE))
    assert "'/no/such.pgn'" in line and "no such file" in line
    bad = tmp_path / "bad.pgn"
    bad.write_text("1. e4 e5 2. Ke3 *\n", encoding="utf-8")
    assert "Ke3" in one_line(play(tmp_path, "play", "--white", ENGINE, "--black", f"script:{bad}"))
    monkeypatch.setitem(sys.modules, "rpi_ws281x", None)  # the LED library of the Pi, not installed
    config = tmp_path / "leds.toml"
    config.write_text('[leds]\nurl = "ws281x://18?count=64"\n', encoding="utf-8")
    refused = play(tmp_path, "play", "--config", str(config), "--white", "hand", "--black", ENGINE)
    assert "rpi_ws281x" in one_line(refused) and "chessatron[pi]" in refused.stderr
    assert list(saved(tmp_path)) == [real]
    resumed = play(tmp_path, "play", "--resume", typed="quit\n")
    assert resumed.exit_code == 0 and resumed_id(resumed) == real


def test_a_game_stopped_before_its_first_move_is_not_kept(tmp_path: Path) -> None:
    result = play(tmp_path, "play", "--white", "keyboard", "--black", ENGINE, typed="quit\n")
    assert result.exit_code == 0
    assert "stopped before the first move: not kept, as nothing was played" in result.stderr
    assert saved(tmp_path) == {}
    assert "no unfinished game" in one_line(play(tmp_path, "play", "--resume"))


def test_resume_skips_a_game_left_with_no_move(tmp_path: Path) -> None:
    """An older chessatron (or a crash right after the set-up) left a game with no move, started later:
    --resume goes on with the game that has moves; the list says why."""
    real = stopped_game(tmp_path)
    later = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=1)
    metadata = GameMetadata(
        white=Player("", "keyboard"), config={"white": "keyboard", "black": ENGINE}, started=later
    )
    Journal.create(tmp_path / "games", metadata).close()
    listing = play(tmp_path, "games").stdout
    # the newest first
    assert f"{metadata.game_id}  " in listing and listing.splitlines()[1].endswith("not begun")
    resumed = play(tmp_path, "play", "--resume", typed="quit\n")
    assert resumed.exit_code == 0 and resumed_id(resumed) == real
    assert f"game {metadata.game_id} (started later, no move yet) is not the one resumed" in resumed.stdout
    abandoned = play(tmp_path, "games", "--abandon", metadata.game_id)
    assert abandoned.stdout == f"game {metadata.game_id} had no move: removed\n"
    assert list(saved(tmp_path)) == [real]


def test_resume_id_picks_any_game_and_abandon_closes_one(tmp_path: Path) -> None:
    older = stopped_game(tmp_path, "e4")
    newer = stopped_game(tmp_path, "d4")
    resumed = play(tmp_path, "play", "--resume", older, "--clock", "5+3", typed="quit\n")
    assert resumed.exit_code == 0 and resumed_id(resumed) == older
    assert f"stopped after 1 move: chessatron play --resume {older} continues it" in resumed.stderr
    assert "--clock does not apply to a game resumed: it goes on from its own start" in resumed.stderr

    closed = play(tmp_path, "games", "--abandon", newer)
    assert closed.exit_code == 0 and f"game {newer} abandoned" in closed.stdout
    listed = {line.split()[0]: line for line in play(tmp_path, "games").stdout.splitlines()[1:]}
    assert listed[newer].endswith("abandoned") and listed[older].endswith("in progress")
    latest = play(tmp_path, "play", "--resume", typed="quit\n")
    assert resumed_id(latest) == older  # the abandoned game is no longer offered...
    taken_up = play(tmp_path, "play", "--resume", newer, typed="Nf3\nquit\n")  # ...but its id takes it up
    assert resumed_id(taken_up) == newer
    assert [entry.san for entry in read_journal(saved(tmp_path)[newer].path).moves][::2] == ["d4", "Nf3"]
    assert not saved(tmp_path)[newer].abandoned

    assert "no saved game 'nosuch'" in one_line(play(tmp_path, "play", "--resume", "nosuch"))
    assert "no saved game 'nosuch'" in one_line(play(tmp_path, "games", "--abandon", "nosuch"))
    done = play(tmp_path, "play", "--white", "keyboard", "--black", ENGINE, typed="resign\nn\n")
    (resigned,) = [s.game_id for s in saved(tmp_path).values() if s.is_finished]
    assert done.exit_code == 0
    assert f"game '{resigned}' is over (0-1, resignation)" in one_line(
        play(tmp_path, "play", "--resume", resigned)
    )
    assert "is over" in one_line(play(tmp_path, "games", "--abandon", resigned))


def test_resuming_an_older_game_on_the_simulator_puts_its_pieces_back_first(tmp_path: Path) -> None:
    older = stopped_game(tmp_path, "e4")
    newer = stopped_game(tmp_path, "d4")  # the robot set the table up again and played on it
    games = saved(tmp_path)
    table = load_state(tmp_path / "sim.json", Layout.default()).table
    assert table.board_fen() == read_journal(games[newer].path).board().board_fen()
    resumed = play(tmp_path, "play", "--resume", older, typed="quit\n")
    assert resumed.exit_code == 0 and resumed_id(resumed) == older
    table = load_state(tmp_path / "sim.json", Layout.default()).table  # the simulated table, saved
    assert table.board_fen() == read_journal(games[older].path).board().board_fen()


# --- a damaged journal -----------------------------------------------------------------------------


def duplicated(lines: list[bytes], number: int) -> list[bytes]:
    """A block of lines written twice: the move's line and the robot's lines after it, again."""
    return [*lines[: number + 3], *lines[number - 1 : number + 3], *lines[number + 3 :]]


def garbage(lines: list[bytes], number: int) -> list[bytes]:
    return [*lines[: number - 1], b"garbage", *lines[number:]]


def flipped(lines: list[bytes], number: int) -> list[bytes]:
    """One flipped bit: the move's square, f1c4 read as f1c5."""
    assert b'"uci":"f1c4"' in lines[number - 1]
    return [
        *lines[: number - 1],
        lines[number - 1].replace(b'"uci":"f1c4"', b'"uci":"f1c5"'),
        *lines[number:],
    ]


@pytest.mark.parametrize(
    ("damage", "kept", "said"),
    [
        (duplicated, 4, "repeat an earlier line (written twice): skipped"),
        (
            garbage,
            2,
            "is damaged (it is not valid JSON (Expecting value at line 1 column 1)): kept the game up to "
            "1... e5, dropped 6 lines from there, which held 1 move (Nc6)",
        ),
        (
            flipped,
            2,
            "is damaged (its checksum does not match): kept the game up to 1... e5, dropped 6 lines "
            "from there, which held 1 move (Nc6)",
        ),
    ],
    ids=["duplicated line", "garbage line", "flipped byte"],
)
def test_a_journal_damaged_before_its_last_line_gives_its_moves_up_to_the_damage_and_goes_on(
    tmp_path: Path, damage: Callable[[list[bytes], int], list[bytes]], kept: int, said: str
) -> None:
    """A failing SD card damaged the line of 2. Bc4 (or wrote it twice): the game is listed with every
    move before the damage, the player is told what was dropped, and the game resumes and finishes."""
    both = ["--white", "keyboard", "--black", "keyboard"]
    first = play(tmp_path, "play", *both, typed="e4\ne5\nBc4\nNc6\nquit\n")
    assert first.exit_code == 0, first.output
    (game,) = saved(tmp_path).values()
    data = game.path.read_bytes()
    lines = data.split(b"\n")
    number = next(n for n, line in enumerate(lines, start=1) if b'"san":"Bc4"' in line)
    damaged = b"\n".join(damage(lines, number))
    game.path.write_bytes(damaged)

    listing = play(tmp_path, "games")
    assert listing.exit_code == 0
    (warning,) = listing.stderr.splitlines()
    assert warning.startswith("chessatron: warning: ") and said in warning
    (row,) = listing.stdout.splitlines()[1:2]
    assert row.startswith(game.game_id) and row.endswith(f"{(kept + 1) // 2}  in progress")  # moves

    rest = "Qh5\nNf6\nQxf7#\n" if kept == 4 else "Bc4\nNc6\nQh5\nNf6\nQxf7#\n"
    resumed = play(tmp_path, "play", "--resume", typed=rest)
    assert resumed.exit_code == 0, resumed.output
    assert resumed_id(resumed) == game.game_id and "1-0" in resumed.stdout
    # each said once (in one process, as here, what the list said is not said again)
    told = listing.stderr + resumed.stderr
    assert told.count(said) == 1 and told.count("repaired") == 1 and len(told.splitlines()) == 2
    state = read_journal(game.path)
    assert [entry.san for entry in state.moves] == ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]
    assert (state.result, state.termination) == ("1-0", "checkmate")
    assert game.path.with_name(game.path.name + ".damaged").read_bytes() == damaged  # nothing thrown away
    table = load_state(tmp_path / "sim.json", Layout.default()).table  # the robot played it out
    assert table.board_fen() == state.board().board_fen()
    assert play(tmp_path, "games").stderr == ""  # repaired: nothing more to say


# --- the engine ------------------------------------------------------------------------------------

BARE_ENGINE = """#!{python}
# A UCI engine that plays the first legal move in UCI order, after answering its first {failures}
# searches with a bare "bestmove" (no move).
import os, sys
import chess

count_file = {count_file!r}
board = chess.Board()


def say(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        say("id name bare")
        say("option name Threads type spin default 1 min 1 max 8")
        say("option name Hash type spin default 16 min 1 max 64")
        say("uciok")
    elif words[0] == "isready":
        say("readyok")
    elif words[0] == "position":
        moves = words.index("moves") if "moves" in words else len(words)
        board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:moves]))
        for uci in words[moves + 1 :]:
            board.push_uci(uci)
    elif words[0] == "go":
        searches = int(open(count_file).read()) if os.path.exists(count_file) else 0
        open(count_file, "w").write(str(searches + 1))
        if searches < {failures}:
            say("bestmove")
        else:
            say("bestmove " + min(move.uci() for move in board.legal_moves))
    elif words[0] == "quit":
        break
"""


def bare_engine(folder: Path, failures: int) -> Path:
    """A UCI engine answering its first ``failures`` searches with a bare ``bestmove``."""
    folder.mkdir(exist_ok=True)
    engine = folder / "bare-engine"
    engine.write_text(
        BARE_ENGINE.format(python=sys.executable, failures=failures, count_file=str(folder / "searches")),
        encoding="utf-8",
    )
    engine.chmod(0o755)
    return engine


def test_an_engine_answering_no_move_is_asked_again_and_the_game_goes_on(tmp_path: Path) -> None:
    args = ["play", "--white", "engine", "--black", "keyboard", "--max-plies", "1"]
    result = play(tmp_path, *args, "--engine", str(bare_engine(tmp_path, failures=1)))
    assert result.exit_code == 0, result.output
    assert "answered 'bestmove' without a move), attempt 1 of 3; restarting it" in result.stderr
    (game,) = saved(tmp_path).values()
    assert game.plies == 1 and not game.is_finished  # the engine's move, and the game goes on
    # one that never gives a move: the game cannot begin, and no game without a move is left behind
    never = tmp_path / "never"
    refused = play(never, *args, "--engine", str(bare_engine(never, failures=99)))
    assert refused.exit_code == 2 and "failed 3 times in a row while choosing a move" in refused.stderr
    assert refused.stderr.splitlines()[-1].startswith("chessatron: the chess engine ")  # one line, no more
    assert saved(never) == {}


# --- another player on --resume --------------------------------------------------------------------


def test_a_player_named_on_resume_takes_that_side_over_and_the_journal_says_so(tmp_path: Path) -> None:
    game_id = stopped_game(tmp_path, "e4")
    resumed = play(tmp_path, "play", "--resume", "--black", "keyboard", typed="d4\nh6\nquit\n")
    assert resumed.exit_code == 0, resumed.output
    assert f"Black is played by keyboard from now on (was {ENGINE})" in resumed.stdout
    state = read_journal(saved(tmp_path)[game_id].path)
    assert [(entry.san, entry.who) for entry in state.moves][1:] == [
        (state.moves[1].san, ENGINE),  # the engine's answer to 1. e4, before Black changed hands
        ("d4", "keyboard"),
        ("h6", "keyboard"),
    ]
    assert state.metadata.config["black"] == "keyboard" and state.metadata.black.kind == "keyboard"
    assert saved(tmp_path)[game_id].black.kind == "keyboard"  # as `games` lists it
    # the same player again changes nothing
    again = play(tmp_path, "play", "--resume", "--black", "keyboard", typed="quit\n")
    assert again.exit_code == 0 and "from now on" not in again.stdout


def test_a_player_named_on_resume_that_cannot_play_changes_nothing(tmp_path: Path) -> None:
    game_id = stopped_game(tmp_path, "e4")
    before = saved(tmp_path)[game_id].path.read_bytes()
    assert "no such file" in one_line(play(tmp_path, "play", "--resume", "--black", "script:/no/such.pgn"))
    assert saved(tmp_path)[game_id].path.read_bytes() == before


# --- a script that runs out ------------------------------------------------------------------------


def test_a_script_that_runs_out_adjourns_the_game_and_nobody_loses(tmp_path: Path) -> None:
    script = tmp_path / "opening.pgn"
    script.write_text("1. e4 e5 2. Nf3 *\n", encoding="utf-8")
    result = play(tmp_path, "play", "--white", f"script:{script}", "--black", f"script:{script}")
    assert result.exit_code == 0, result.output
    assert "has no move for black after its 3 plies: the game stops here, saved" in result.stdout
    (game,) = saved(tmp_path).values()
    assert (game.result, game.plies, game.is_open) == ("*", 3, True)
    assert f"chessatron play --resume {game.game_id} continues it" in result.stderr
    goes_on = play(tmp_path, "play", "--resume", "--black", ENGINE, "--max-plies", "1")
    assert goes_on.exit_code == 0 and saved(tmp_path)[game.game_id].plies == 4


# --- a board player on the simulator ---------------------------------------------------------------


@pytest.mark.parametrize("side", ["white", "black"])
def test_a_board_player_on_the_simulator_is_told_to_play_a_simulated_hand(tmp_path: Path, side: str) -> None:
    other = "black" if side == "white" else "white"
    line = one_line(play(tmp_path, "play", f"--{side}", "board", f"--{other}", ENGINE))
    assert "real sensors" in line and f"play --{side} hand" in line
    assert saved(tmp_path) == {}
