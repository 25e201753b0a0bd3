"""``chessatron games`` as a player reads it: a table of saved games, exports, and imports that refuse
what is no game."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.game.records.journal import GameMetadata, Journal
from chessatron.game.records.pgn import to_pgn
from chessatron.game.records.record import GameRecord, Player
from chessatron.game.records.store import save_record


def games(tmp_path: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["games", "--games-dir", str(tmp_path), *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def test_the_list_is_a_table_with_players_levels_moves_and_how_games_ended(tmp_path: Path) -> None:
    mate = GameRecord(
        moves=tuple(chess.Move.from_uci(u) for u in ("f2f3", "e7e5", "g2g4", "d8h4")),
        white=Player("keyboard", "keyboard"),
        black=Player("Stockfish", "engine", "3"),
        result="0-1",
        termination="checkmate",
    )
    save_record(mate, tmp_path)
    metadata = GameMetadata(
        white=Player("simulated hand", "board"),
        black=Player("Stockfish", "engine", "1"),
        start_fen=chess.Board.from_chess960_pos(100).fen(),
        chess960=True,
    )
    with Journal.create(tmp_path, metadata) as journal:
        journal.record_move(chess.Move.from_uci("e2e4"), "hand")
    code, out = games(tmp_path)
    assert code == 0
    heading, second, first, hint = out.splitlines()  # the newest first
    assert heading.split() == ["id", "date", "white", "black", "variant", "moves", "result"]
    # (the date as the language writes it: the columns after it from where the heading puts them)
    players = heading.index("white")
    assert first[players:].split() == ["keyboard", "engine:3", "standard", "2", "0-1", "checkmate"]
    assert second[players:].split() == ["simulated", "hand", "engine:1", "chess960", "1", "in", "progress"]
    assert [line.index("engine:") for line in (first, second)] == [heading.index("black")] * 2
    assert hint == "chessatron play --resume continues the latest game in progress"


def test_an_empty_folder_says_so(tmp_path: Path) -> None:
    assert games(tmp_path) == (0, f"no saved games in {tmp_path}\n")


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("garbage\n", "holds no game"),
        ("", "holds no game"),
        (None, "no such file"),
    ],
)
def test_importing_what_is_no_game_is_refused_and_stores_nothing(
    tmp_path: Path, content: str | None, reason: str
) -> None:
    source = tmp_path / "in.pgn"
    if content is not None:
        source.write_text(content, encoding="utf-8")
    folder = tmp_path / "games"
    code, out = games(folder, "--import", str(source))
    assert code == 2 and reason in out and str(source) in out
    assert games(folder)[1].startswith("no saved games")


def test_a_game_exported_as_pgn_and_compact_comes_back_on_import(tmp_path: Path) -> None:
    record = GameRecord(
        moves=(chess.Move.from_uci("e2e4"), chess.Move.from_uci("c7c5")),
        white=Player("Ann", "board"),
        result="1/2-1/2",
        termination="agreed draw",
    )
    game_id = save_record(record, tmp_path / "a")
    code, pgn = games(tmp_path / "a", "--export", game_id)
    assert code == 0 and pgn == to_pgn(record)
    (tmp_path / "x.pgn").write_text(pgn, encoding="utf-8")
    code, out = games(tmp_path / "b", "--import", str(tmp_path / "x.pgn"))
    assert code == 0 and out.startswith("imported 1 game: ")
    code, _ = games(tmp_path / "a", "--export-compact", game_id, "--out", str(tmp_path / "x.bin"))
    assert code == 0
    code, _ = games(tmp_path / "b", "--import", str(tmp_path / "x.bin"))
    assert code == 0
    listing = games(tmp_path / "b")[1].splitlines()
    assert all("agreed draw" in line for line in listing[1:]) and len(listing) == 3
    # the PGN keeps the names; a compact record has none (two imports in one second list in either order)
    named, unnamed = sorted(listing[1:], key=lambda line: "Ann" not in line)
    assert "Ann" in named and unnamed.split()[1:4] == ["?", "?", "?"]
