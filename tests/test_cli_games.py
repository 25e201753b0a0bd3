"""``chessatron games``: exporting several games at once, importing a file twice."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import chess.pgn
import pytest
from click.testing import CliRunner, Result
from rich.console import Console

from chessatron.cli import main
from chessatron.cli.games import ImportView
from chessatron.game.records.pgn import from_pgn, read_pgn_games
from chessatron.game.records.store import ImportProgress, import_pgn, list_games, save_record

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
    assert first.exit_code == 0 and first.output.startswith("imported 2 games: "), first.output
    ids = first.output.split(": ", 1)[1].strip()
    again = games(tmp_path, "--import", str(club))
    assert again.exit_code == 0, again.output
    assert again.output.splitlines() == ["imported 0 games", f"skipped 2 games saved already: {ids}"]
    assert len(list_games(tmp_path / "games")) == 2


def test_a_file_with_one_new_game_imports_only_that_one(tmp_path: Path, club: Path) -> None:
    games(tmp_path, "--import", str(club))
    more = tmp_path / "more.pgn"
    more.write_text(SCHOLARS_MATE + "\n" + '[White "Ed"]\n\n1. d4 d5 *\n' + "\n" + SCHOLARS_MATE)
    result = games(tmp_path, "--import", str(more))
    assert result.output.startswith("imported 1 game: ") and "skipped 2 games saved already" in result.output
    assert sorted(s.white.name for s in list_games(tmp_path / "games")) == ["Ann", "Cy", "Ed"]


def test_a_game_exported_and_imported_back_is_not_doubled(tmp_path: Path, club: Path) -> None:
    games(tmp_path, "--import", str(club))
    (game_id, *_) = [s.game_id for s in list_games(tmp_path / "games")]
    exported = tmp_path / "exported.pgn"
    exported.write_text(games(tmp_path, "--export", game_id).output)
    back = games(tmp_path, "--import", str(exported))
    assert back.output.splitlines()[-1] == f"skipped 1 game saved already: {game_id}"
    compact = tmp_path / "game.bin"
    assert games(tmp_path, "--export-compact", game_id, "--out", str(compact)).exit_code == 0
    assert games(tmp_path, "--import", str(compact)).output.startswith("imported 1 game")  # no players
    assert games(tmp_path, "--import", str(compact)).output.startswith("imported 0 games")


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


# --- a large import shows how far it has come -----------------------------------------------------------


def _many_games(count: int) -> str:
    return "\n".join(FOOLS_MATE.replace('"Ann"', f'"Ann {n}"') for n in range(count))


def test_an_import_tells_how_far_it_has_come_at_every_stage(tmp_path: Path) -> None:
    path = tmp_path / "many.pgn"
    path.write_text(_many_games(30))
    save_record(from_pgn(FOOLS_MATE.replace('"Ann"', '"Ann 0"')), tmp_path / "games")  # one saved already
    seen: list[ImportProgress] = []
    imported = import_pgn(path, tmp_path / "games", on_progress=seen.append)
    assert len(imported.stored) == 29 and len(imported.already_saved) == 1
    stages = [p.stage for p in seen]
    assert stages == ["reading"] * 30 + ["comparing"] + ["saving"] * 30  # in that order, each game told
    reading = [p for p in seen if p.stage == "reading"]
    assert [p.games for p in reading] == list(range(1, 31))
    assert all(a.done < b.done for a, b in itertools.pairwise(reading))
    assert reading[-1].done == reading[-1].total == len(path.read_text())
    assert seen[-1] == ImportProgress("saving", 30, 30, 30)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_without_a_terminal_a_long_import_prints_a_line_every_few_seconds() -> None:
    out = io.StringIO()
    clock = FakeClock()
    console = Console(file=out, force_terminal=False, width=200)
    with ImportView(console, "big.pgn", every_s=5.0, clock=clock) as view:
        for done in range(1, 101):
            clock.now = done * 0.2  # a game every 0.2 s: 20 s in all
            view(ImportProgress("reading", done * 1000, 100_000, done))
        view(ImportProgress("saving", 100, 100, 100))
    lines = out.getvalue().splitlines()
    assert lines[0] == "importing big.pgn: reading, 25% (25 games)…"
    assert len(lines) == 4  # at 5, 10, 15 and 20 s: never a line per game
    assert lines[-1] == "importing big.pgn: reading, 100% (100 games)…"


def test_a_quick_import_prints_nothing_but_what_it_did(tmp_path: Path, club: Path) -> None:
    result = games(tmp_path, "--import", str(club))
    assert result.exit_code == 0 and result.stderr == ""
    assert result.output.startswith("imported 2 games: ")


def test_on_a_terminal_an_import_shows_a_progress_bar_that_goes_when_it_is_done() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)
    with ImportView(console, "big.pgn") as view:
        view(ImportProgress("reading", 500, 1000, 7))
        view(ImportProgress("saving", 3, 7, 7))
    shown = out.getvalue()
    assert "reading big.pgn" in shown and "saving big.pgn" in shown and "7 games" in shown


def test_an_import_of_many_games_names_a_few_and_says_how_to_list_them(tmp_path: Path) -> None:
    path = tmp_path / "many.pgn"
    path.write_text(_many_games(25))
    result = games(tmp_path, "--import", str(path))
    assert result.exit_code == 0, result.output
    line = result.output.splitlines()[0]
    assert line.startswith("imported 25 games: ") and "(25 games: 'chessatron games' lists them)" in line
    assert len(line) < 120
