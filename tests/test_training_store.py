"""The training store at lichess's scale, as a person meets it: ``chessatron puzzles import`` stopped with
Ctrl-C and taken up again, a newer file updating puzzles in place, damaged and foreign files refused in one
line with the right exit status; a store of an older chessatron upgraded on opening; a simulated solver's
attempts kept apart from the person's rating; and the next puzzle chosen for a cheap set-up, near the
rating."""

from __future__ import annotations

import csv
import io
import random
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import pytest
import zstandard

from chessatron.config import Config
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.session import Session
from chessatron.planning.layout import Layout
from chessatron.planning.planner import Planner
from chessatron.planning.reset import ResetPlanner
from chessatron.planning.table import Table
from chessatron.training.choice import SetupChooser
from chessatron.training.lichess import COLUMNS
from chessatron.training.puzzle import Puzzle
from chessatron.training.store import NO_FILTERS, Filters, PuzzleStore
from chessatron.training.table import PuzzleTable

from .journeys import Terminal, person_env

#: A mate in two for White after Black's king steps up (lichess's own example line).
MATE = "q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17", "e8d7 a2e6 d7d8 f7f8"
#: White mates on the back rank once Black's king has stepped aside.
BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", "g8f8 d1d8"


def lichess_csv(rows: int, *, seed: int = 1, rating_shift: int = 0) -> str:
    """``rows`` puzzles in lichess's columns, ids in order as lichess lists them (two positions, themes and
    openings drawn at random, seeded)."""
    rng = random.Random(seed)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for number in range(rows):
        fen, moves = MATE if number % 2 else BACK_RANK
        themes = " ".join(rng.sample(["fork", "pin", "mate", "short", "middlegame", "endgame"], 3))
        opening = rng.choice(["", "", "Italian_Game", "Sicilian_Defense"])
        rating = rng.randint(600, 2400) + rating_shift
        writer.writerow([f"p{number:06d}", fen, moves, rating, 80, 90, 100, themes, "", opening])
    return out.getvalue()


def chessatron(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The program as a person runs it (in their home), its output."""
    return subprocess.run(
        [sys.executable, "-m", "chessatron.cli", *args],
        cwd=home,
        env=person_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_import_stopped_with_ctrl_c_goes_on_where_it_stopped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "puzzles.csv").write_text(lichess_csv(25_000), encoding="utf-8")
    with Terminal(["puzzles", "import", "puzzles.csv"], home) as terminal:
        terminal.expect(r"importing puzzles\.csv .* [1-9]\d*/\d+")  # under way
        terminal.press("ctrl-c")
        stopped = terminal.expect(
            r"stopped at line ([\d,]+) \(([\d,]+) puzzles imported\); 'chessatron puzzles"
        )
        assert terminal.exit_status() == 130
        terminal.assert_clean()
    line, kept = (int(text.replace(",", "")) for text in stopped.groups())
    assert 0 < kept < 25_000 and line == kept + 1  # (the header line)
    stats = chessatron(home, "puzzles", "stats")
    assert f"the import of puzzles.csv stopped at line {line:,}: 'chessatron puzzles import" in stats.stdout
    again = chessatron(home, "puzzles", "import", "puzzles.csv")
    assert again.returncode == 0, again.stderr
    assert (
        f"going on with the import of puzzles.csv from line {line:,} ({kept:,} puzzles imported before)"
        in (again.stdout)
    )
    assert "imported 25,000 puzzles (25,000 new, 0 updated, 0 unchanged)" in again.stdout
    store = PuzzleStore(home / "data" / "chessatron" / "training.sqlite3")
    assert store.count(Filters(source="lichess")) == 25_000
    assert store.choose(1500, Filters(theme="pin", opening="Italian_Game")).puzzle_id.startswith("p")


def test_a_newer_file_updates_ratings_and_plays_in_place(tmp_path: Path) -> None:
    (tmp_path / "old.csv").write_text(lichess_csv(300), encoding="utf-8")
    (tmp_path / "new.csv").write_text(lichess_csv(300, rating_shift=100), encoding="utf-8")
    store = PuzzleStore(tmp_path / "data" / "chessatron" / "training.sqlite3")
    store.import_file(tmp_path / "old.csv")
    before = store.get("p000007").rating
    newer = chessatron(tmp_path, "puzzles", "import", "new.csv")
    assert newer.returncode == 0, newer.stderr
    assert "imported 300 puzzles (0 new, 300 updated, 0 unchanged)" in newer.stdout
    assert store.get("p000007").rating == before + 100
    assert store.count(Filters(source="lichess")) == 300  # in place: none twice
    # chosen by the new rating: the index moved with it
    rating = store.get("p000007").rating
    assert "p000007" in [c.puzzle_id for c in store.candidates(rating, windows=(0,), want=300)]
    assert "p000007" not in [c.puzzle_id for c in store.candidates(before, windows=(0,), want=300)]


@pytest.mark.parametrize(
    ("name", "content", "status", "said"),
    [
        (
            "cut.csv.zst",
            "cut",
            1,
            r"'cut\.csv\.zst' is cut short .* after line [\d,]+; the puzzles before it",
        ),
        (
            "tiny.csv.zst",
            "tiny",
            1,
            r"'tiny\.csv\.zst' is cut short .* after line 0; no puzzle came before it",
        ),
        ("empty.csv", "", 2, r"'empty\.csv' is empty; expected lichess's puzzle CSV or \.csv\.zst"),
        ("header.csv", "header", 2, r"'header\.csv' holds only lichess's header line; expected"),
        ("games.csv.zst", "binary", 2, r"'games\.csv\.zst' is not a lichess puzzle file \(line 1: bytes"),
        ("absurd.csv", "absurd", 0, r"line 2: puzzle 'x1': rating '9999999999999999…' is no number"),
    ],
)
def test_damaged_and_foreign_files_are_said_in_one_line(
    tmp_path: Path, name: str, content: str, status: int, said: str
) -> None:
    whole = lichess_csv(20_000).encode()
    frame = zstandard.ZstdCompressor().compress(whole)
    data = {
        "cut": frame[: len(frame) // 2],
        "tiny": frame[:40],
        "": b"",
        "header": whole.split(b"\n", 1)[0] + b"\n",
        "binary": random.Random(2).randbytes(3000),
        "absurd": b"\n".join(
            [
                whole.split(b"\n", 1)[0],
                f"x1,{BACK_RANK[0]},{BACK_RANK[1]},{'9' * 400},80,1,1,,,".encode(),
                f"x2,{BACK_RANK[0]},{BACK_RANK[1]},NaN,80,1,1,,,".encode(),
                *whole.split(b"\n")[1:4],
            ]
        )
        + b"\n",
    }[content]
    (tmp_path / name).write_bytes(data)
    result = chessatron(tmp_path, "puzzles", "import", name)
    shown = result.stdout + result.stderr
    assert result.returncode == status, shown
    assert re.search(said, shown), shown
    assert len(result.stderr.splitlines()) == (1 if status else 0)  # one line
    assert "Traceback" not in shown and "codec can't" not in shown
    if content == "cut":  # what was read before the damage is kept, and choosable
        assert "kept " in result.stdout
        assert PuzzleStore(tmp_path / "data" / "chessatron" / "training.sqlite3").count() > 105
    if content == "absurd":
        assert "imported 3 puzzles" in result.stdout and "skipped 2 lines" in result.stdout


def test_a_store_of_schema_1_is_upgraded_and_keeps_its_puzzles_and_attempts(tmp_path: Path) -> None:
    path = tmp_path / "training.sqlite3"
    with sqlite3.connect(path) as db:  # as chessatron wrote it before the tags
        db.executescript(SCHEMA_1)
        db.execute(
            "INSERT INTO puzzles VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            ("old1", *BACK_RANK, 1300, 80, 90, 10, "mate mateIn1 short", "", "", "lichess"),
        )
        db.execute(
            "INSERT INTO attempts (puzzle_id, played_at, seconds, solved, wrong, hints, puzzle_rating, "
            "rating, deviation, volatility) VALUES ('old1', '2026-01-02T10:00:00+00:00', 12, 1, 0, 0, 1300, "
            "1620.5, 250.0, 0.06)"
        )
    store = PuzzleStore(path, starter=False)
    assert store.count(Filters(theme="mateIn1")) == 1 and store.themes() == [
        ("mate", 1),
        ("mateIn1", 1),
        ("short", 1),
    ]
    assert store.choose(1300, Filters(theme="mate")).puzzle_id == "old1"
    (attempt,) = store.attempts()  # the person's, as every attempt was then
    assert attempt.player is None and not attempt.is_simulated
    assert round(store.rating().rating, 1) == 1620.5
    assert PuzzleStore(path, starter=False).count() == 1  # opened again: upgraded once


def test_a_simulated_solver_never_moves_the_persons_rating(tmp_path: Path) -> None:
    store = PuzzleStore(tmp_path / "data" / "chessatron" / "training.sqlite3")
    store.add([Puzzle("m1", BACK_RANK[0], tuple(BACK_RANK[1].split()), rating=700, themes=("mate",))])
    solved = chessatron(tmp_path, "puzzles", "--count", "1", "--rating", "700", "--player", "hand:20:depth=1")
    assert solved.returncode == 0, solved.stdout + solved.stderr
    assert "the simulated hand's rating" in solved.stdout and "your rating" not in solved.stdout
    stats = chessatron(tmp_path, "puzzles", "stats")
    assert stats.returncode == 0, stats.stderr
    assert "rating 1500? (± 350)" in stats.stdout  # the person has not played
    assert "0 puzzles tried" in stats.stdout
    assert "1 attempt by a simulated player (hand) is not counted in your rating" in stats.stdout


def test_the_next_puzzle_is_the_cheaper_set_up_and_stays_near_the_rating(tmp_path: Path) -> None:
    layout = Layout.default()
    store = PuzzleStore(tmp_path / "training.sqlite3", starter=False)
    table = Table.from_board(layout, chess.Board(BACK_RANK[0]))
    near = chess.Board(BACK_RANK[0])
    near.push_uci("h7h6")  # one pawn a square on
    near.push_uci("d1d2")
    puzzles = [
        Puzzle("far", MATE[0], tuple(MATE[1].split()), rating=1500),
        Puzzle("near", near.fen(), ("g8h7", "d2d7"), rating=1500),
        Puzzle("same", BACK_RANK[0], tuple(BACK_RANK[1].split()), rating=1900),  # cheapest: out of reach
    ]
    store.add(puzzles)
    chooser = SetupChooser(store, ResetPlanner(Planner(layout)))
    for seed in range(3):
        choice = chooser.choose(table, 1520, NO_FILTERS, rng=random.Random(seed))
        assert choice.puzzle.puzzle_id == "near"
        assert choice.plan is not None and len(choice.plan.relocations) <= 3
    assert chooser.choose(table, 1520, NO_FILTERS, avoid=["near"]).puzzle.puzzle_id == "far"
    assert chooser.choose(table, 1880, NO_FILTERS).puzzle.puzzle_id == "same"


def test_the_table_prepares_the_next_puzzle_while_this_one_is_solved(tmp_path: Path) -> None:
    store = PuzzleStore(tmp_path / "training.sqlite3", starter=False)
    store.add(
        [
            Puzzle("first", BACK_RANK[0], tuple(BACK_RANK[1].split()), rating=1000),
            Puzzle("far", MATE[0], tuple(MATE[1].split()), rating=1020),
            # the same mate with the rook still on d1: one drag from where the first puzzle ends
            Puzzle("near", "5k2/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", ("f8g8", "d1d8"), rating=1010),
        ]
    )
    seen: list[dict[str, Any]] = []
    with Session(Config.default(), games_dir=tmp_path / "games", speed=None) as session:
        session.connect()
        session.live.listen(lambda version: seen.append(session.live.snapshot()))
        table = PuzzleTable(session, store, PlayerSpec.parse("hand"), rating=1000, rng=random.Random(4))
        table.check()
        table.play_puzzle(store.get("first"), number=1, of=2)  # the next is chosen meanwhile
        assert table.next_puzzle().puzzle_id == "near"
        assert table.up_next.used == 1
        marked = len(seen)
        outcome = table.play_puzzle(store.get("near"), number=2, of=2)
        assert outcome.attempt.solved
        assert session.world is not None and not session.world.twin.violations
    setups = [
        s["gantry"]["work"]
        for s in seen[marked:]
        if (s["gantry"]["work"] or {}).get("title") == "PUZZLE SETUP"
    ]
    assert setups and setups[0]["of"] == 1  # the rook back to d1


SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema', '1'), ('starter', '0');
CREATE TABLE puzzles (
    id TEXT PRIMARY KEY, fen TEXT NOT NULL, moves TEXT NOT NULL, rating INTEGER NOT NULL,
    rating_deviation INTEGER NOT NULL, popularity INTEGER NOT NULL, plays INTEGER NOT NULL,
    themes TEXT NOT NULL, game_url TEXT NOT NULL, openings TEXT NOT NULL, source TEXT NOT NULL);
CREATE INDEX puzzles_by_rating ON puzzles (rating);
CREATE TABLE attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, puzzle_id TEXT NOT NULL, played_at TEXT NOT NULL,
    seconds REAL NOT NULL, solved INTEGER NOT NULL, wrong INTEGER NOT NULL, hints INTEGER NOT NULL,
    puzzle_rating INTEGER NOT NULL, rating REAL NOT NULL, deviation REAL NOT NULL, volatility REAL NOT NULL);
CREATE INDEX attempts_by_puzzle ON attempts (puzzle_id);
CREATE TABLE reviews (
    game_key TEXT PRIMARY KEY, made_at TEXT NOT NULL, review TEXT NOT NULL, pgn TEXT NOT NULL);
"""
