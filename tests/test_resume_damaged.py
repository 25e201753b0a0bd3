"""A journal whose first line was damaged still resumes (issue 36): one digit flipped in where a piece
stood before the set-up stopped ``play --resume`` cold with ``two pieces stand on node (7, 5)``, naming
no file and no way on. The robot's drags after that line say where the pieces stood; what they cannot
tell is named, with the file and what to do."""

from __future__ import annotations

import json
import re
from pathlib import Path

import chess
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.config import Config
from chessatron.game.records.journal import read_journal
from chessatron.game.session import Session
from chessatron.game.tablecheck import checked_table
from chessatron.planning.layout import Layout
from chessatron.planning.table import Table

from .journeys import Terminal, person_env

SCRIPT = "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. d4 Nf6 5. Nf3 c6 *\n"


def _played(home: Path, plies: int = 6) -> Path:
    """A game of ``plies`` half-moves played from a script on the simulated table of ``home``; its
    journal."""
    script = home / "game.pgn"
    home.mkdir(parents=True, exist_ok=True)
    script.write_text(SCRIPT, encoding="utf-8")
    args = ["play", "--white", f"script:{script}", "--black", f"script:{script}", "--max-plies", str(plies)]
    result = CliRunner(env=person_env(home)).invoke(main, args)
    assert result.exit_code == 0, result.output
    (journal,) = (home / "data").glob("chessatron/games/*.jsonl")
    return journal


def _flipped(journal: Path, old: str, new: str) -> None:
    """Damage the journal's first line as a failing card does: ``old`` becomes ``new`` (its checksum no
    longer matches)."""
    first, rest = journal.read_bytes().split(b"\n", 1)
    assert old.encode() in first
    journal.write_bytes(first.replace(old.encode(), new.encode(), 1) + b"\n" + rest)


def test_a_flipped_digit_in_the_table_before_the_set_up_is_repaired_and_the_game_goes_on(
    tmp_path: Path,
) -> None:
    home = tmp_path / "ann"
    journal = _played(home)
    _flipped(journal, '["wP1","P",5,5]', '["wP1","P",7,5]')  # a2's pawn said to stand on b2's cell
    with Terminal(["play", "--resume", "--max-plies", "2"], home) as resumed:
        resumed.expect(r"the table before the set-up in '[^']+\.jsonl' was damaged and is repaired: ")
        resumed.expect(r"wP1 stood on node \(5, 5\)")
        resumed.expect(r"3\. Nc3 Qa5  4\. d4 Nf6")  # it went on from its last move
        assert resumed.exit_status() == 0
        resumed.assert_clean()
    state = read_journal(journal)
    assert ["wP1", "P", 5, 5] in state.metadata.config["table"]  # the repair is the journal's now
    assert [entry.san for entry in state.moves][-2:] == ["d4", "Nf6"]
    assert journal.with_name(journal.name + ".damaged").exists()  # the file as it was, kept beside it


def test_a_start_line_damaged_beyond_repair_names_the_file_and_the_way_on(tmp_path: Path) -> None:
    home = tmp_path / "bo"
    journal = _played(home, plies=2)
    # a reserve queen renamed and moved onto her sister's cell: which stood where cannot be told
    _flipped(journal, '["wQ2","Q",1,19]', '["wQ9","Q",3,19]')
    result = CliRunner(env=person_env(home)).invoke(main, ["play", "--resume"])
    assert result.exit_code == 2, result.output
    (line,) = [text for text in result.output.splitlines() if text.startswith("chessatron: game")]
    game_id = read_journal(journal).metadata.game_id
    assert str(journal) in line and f"'chessatron games --abandon {game_id}' sets it aside" in line
    assert "'wQ9'" in line


def test_every_digit_flipped_in_the_table_before_the_set_up_resumes_where_the_pieces_stand(
    tmp_path: Path,
) -> None:
    """One flipped digit anywhere in the start line's table: the game always resumes, and the table it
    rebuilds is the true one wherever the journal can tell (a piece said to stand on a board square,
    on another's cell or where a drag went); only a piece that never moved, said to stand on another free
    cell beside the board, can pass unnoticed."""
    journal = _played(tmp_path / "cy")
    layout = Layout.default()
    true = _rebuilt(journal)
    first, rest = journal.read_bytes().split(b"\n", 1)
    start = first.index(b'"table":[') + 9
    end = first.index(b"]]", start) + 2
    board = {layout.square_node(square) for square in chess.SQUARES}
    unnoticed = 0
    for at in range(start, end):
        if not first[at : at + 1].isdigit():
            continue
        flipped = first[:at] + str((int(first[at : at + 1]) + 1) % 10).encode() + first[at + 1 :]
        try:
            table = json.loads(flipped)["config"]["table"]
        except ValueError:
            continue  # (a leading zero: the line no longer reads as JSON, and is rebuilt otherwise)
        journal.write_bytes(flipped + b"\n" + rest)
        rebuilt = _rebuilt(journal)
        if rebuilt != true:
            (said,) = [entry for entry in table if entry not in json.loads(first)["config"]["table"]]
            node = (said[2], said[3])
            assert node not in board, said  # a cell beside the board, which no drag touched
            unnoticed += 1
    assert unnoticed < 10


def test_a_sound_journal_after_another_game_is_rebuilt_as_it_stands(tmp_path: Path) -> None:
    home = tmp_path / "di"
    first = _played(home)
    script = home / "game.pgn"
    args = ["play", "--white", f"script:{script}", "--black", f"script:{script}", "--chess960", "100"]
    result = CliRunner(env=person_env(home)).invoke(main, [*args, "--max-plies", "2"])
    assert result.exit_code == 0, result.output
    (second,) = [path for path in first.parent.glob("*.jsonl") if path != first]
    events: list[dict[str, object]] = []
    rebuilt = _rebuilt(second, events)
    assert events == []  # nothing said repaired: the set-up began from the first game's end
    assert "N" in rebuilt.values() and len(rebuilt) == len(read_journal(second).metadata.config["table"])


def _rebuilt(journal: Path, events: list[dict[str, object]] | None = None) -> dict[tuple[int, int], str]:
    """The table the journal rebuilds, as what stands where (what it said, into ``events``)."""
    told = (events if events is not None else []).append
    with Session(Config.default(), games_dir=journal.parent, speed=None, emit=told) as session:
        session._rebuild_table(read_journal(journal), journal)
        return {session.table.node_of(piece.id): piece.symbol for piece in session.table}


def test_the_drags_say_where_a_piece_stood_and_the_start_arrangement_where_one_never_moved() -> None:
    layout = Layout.default()
    before = Table.from_board(layout, chess.Board())
    data = [[p.id, p.symbol, *before.node_of(p.id)] for p in before]
    dragged = [[pid, s, 9, 9] if pid == "wP5" else [pid, s, i, j] for pid, s, i, j in data]
    table, repairs = checked_table(dragged, layout, [(1, ["move wP5 13,5 13,9"])], chess.Board())
    assert table.node_of("wP5") == (13, 5) and re.search(r"wP5 .* its first drag", repairs[0])
    still = [[pid, s, 15, 5] if pid == "wP5" else [pid, s, i, j] for pid, s, i, j in data]  # on wP6's
    table, repairs = checked_table(still, layout, [], chess.Board())
    assert table.node_of("wP5") == (13, 5) and table.node_of("wP6") == (15, 5)
    assert checked_table(data, layout, [(1, ["move wP5 13,5 13,9"])], chess.Board())[1] == ()
