"""``chessatron games``: exporting several games at once, importing a file twice."""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn
import pytest
from click.testing import CliRunner, Result

from chessatron.cli import main
from chessatron.game.record import read_pgn_games
from chessatron.game.store import list_games

FOOLS_MATE = '[White "Ann"]\n[Black "Bob"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'
SCHOLARS_MATE = '[White "Cy"]\n[Black "Di"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'


def games(folder: Path, *args: str) -> Result:
    result = CliRunner().invoke(main, ["games", "--games-dir", str(folder / "games"), *args])
    assert "Traceback" not in result.output, result.output
    return result


@pytest.fixture
def club(tmp_path: Path) -> Path:
    """A PGN of two games."""
    path = tmp_path / "club.pgn"
    path.write_text(FOOLS_MATE + "\n" + SCHOLARS_MATE)
    return path


def test_several_games_are_exported_in_the_order_given(tmp_path: Path, club: Path) -> None:
    imported = games(tmp_path, "--import", str(club))
    assert imported.exit_code == 0, imported.output
    first, second = imported.output.split(": ", 1)[1].strip().split(", ")
    both = games(tmp_path, "--export", second, first)  # as the README shows: --export ID…
    assert both.exit_code == 0, both.output
    assert [(r.white.name, r.black.name) for r in read_pgn_games(both.output)] == [
        ("Cy", "Di"),
        ("Ann", "Bob"),
    ]
    repeated = games(tmp_path, "--export", first, "--export", second)  # the option twice works too
    assert [r.white.name for r in read_pgn_games(repeated.output)] == ["Ann", "Cy"]


def test_export_says_what_is_missing(tmp_path: Path, club: Path) -> None:
    games(tmp_path, "--import", str(club))
    unknown = games(tmp_path, "--export", "nosuchgame")
    assert unknown.exit_code == 2 and "no saved game 'nosuchgame'" in unknown.stderr
    no_ids = games(tmp_path, "--export")
    assert no_ids.exit_code == 2 and "--export needs the ids of the games" in no_ids.stderr
    bare = games(tmp_path, "abc")
    assert bare.exit_code == 2 and "chessatron games --export ID" in bare.stderr


def test_importing_a_file_twice_keeps_each_game_once(tmp_path: Path, club: Path) -> None:
    first = games(tmp_path, "--import", str(club))
    assert first.exit_code == 0 and first.output.startswith("imported 2 game(s): "), first.output
    ids = first.output.split(": ", 1)[1].strip()
    again = games(tmp_path, "--import", str(club))
    assert again.exit_code == 0, again.output
    assert again.output.splitlines() == ["imported 0 game(s)", f"skipped 2 game(s) saved already: {ids}"]
    assert len(list_games(tmp_path / "games")) == 2


def test_a_file_with_one_new_game_imports_only_that_one(tmp_path: Path, club: Path) -> None:
    games(tmp_path, "--import", str(club))
    more = tmp_path / "more.pgn"
    more.write_text(SCHOLARS_MATE + "\n" + '[White "Ed"]\n\n1. d4 d5 *\n' + "\n" + SCHOLARS_MATE)
    result = games(tmp_path, "--import", str(more))
    assert (
        result.output.startswith("imported 1 game(s): ")
        and "skipped 2 game(s) saved already" in result.output
    )
    assert sorted(s.white.name for s in list_games(tmp_path / "games")) == ["Ann", "Cy", "Ed"]


def test_a_game_exported_and_imported_back_is_not_doubled(tmp_path: Path, club: Path) -> None:
    games(tmp_path, "--import", str(club))
    (game_id, *_) = [s.game_id for s in list_games(tmp_path / "games")]
    exported = tmp_path / "exported.pgn"
    exported.write_text(games(tmp_path, "--export", game_id).output)
    back = games(tmp_path, "--import", str(exported))
    assert back.output.splitlines()[-1] == f"skipped 1 game(s) saved already: {game_id}"
    compact = tmp_path / "game.bin"
    assert games(tmp_path, "--export-compact", game_id, "--out", str(compact)).exit_code == 0
    assert games(tmp_path, "--import", str(compact)).output.startswith("imported 1 game(s)")  # no players
    assert games(tmp_path, "--import", str(compact)).output.startswith("imported 0 game(s)")


def test_a_pgn_error_names_the_wrong_move(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pgn"
    bad.write_text(FOOLS_MATE + "\n" + "1. e4 e5 2. Nf9 Nc6 *\n")
    result = games(tmp_path, "--import", str(bad))
    assert result.exit_code == 2
    why = "move 2: 'Nf9' is not a move; fix or remove that game"
    assert result.stderr.splitlines() == [f"chessatron: game 2 of {str(bad)!r} cannot be read: {why}"]
    assert not list_games(tmp_path / "games")  # nothing of a bad file is stored


@pytest.mark.parametrize(
    ("movetext", "words"),
    [
        ("1. e4 e5 2. Nf9 Nc6 *", "move 2: 'Nf9' is not a move"),
        ("1. e4 e5 2. Ke3 Nc6 *", "move 2 (white): 'Ke3' is illegal in"),
        ("1. e4 e5 2. Nf3 Nc6 3. Nd2 *", "move 3 (white): 'Nd2' is illegal in"),
        ("1. e4 e5 2. ♘f3 Nc6 *", "move 2: '♘f3' is not a move"),
    ],
)
def test_simulate_names_the_wrong_move_in_one_line_without_library_noise(
    tmp_path: Path, movetext: str, words: str
) -> None:
    path = tmp_path / "game.pgn"
    path.write_text(movetext + "\n")
    result = CliRunner().invoke(main, ["simulate", str(path)])
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"chessatron: {str(path)!r}: {words}"), line
    assert "while parsing" not in result.output and "<Game at" not in result.output
    assert result.stdout == ""


def test_a_pgn_the_reader_accepts_is_read_as_python_chess_reads_it() -> None:
    text = (
        "1. e4 e5 2. Nf3+ Nc6!? 3. Bb5 {a comment, Nf9 in it\nover two lines} a6 ; rest of line Nf9\n4. Ba4 *"
    )
    (record,) = read_pgn_games(text)
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and list(record.moves) == list(game.mainline_moves())
