"""Puzzles on the table: a lichess puzzle solved by a simulated person at the simulated board, one wrong
move on the way put back by the robot; the starter set on a fresh install; lichess's CSV plain and
compressed."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path
from typing import Any

import chess
import pytest
import zstandard
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.config import Config
from chessatron.errors import PuzzleFileError
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.session import Session
from chessatron.training.lichess import Reading, read_puzzles
from chessatron.training.starter import STARTER, load_starter
from chessatron.training.store import Filters, PuzzleStore
from chessatron.training.table import PuzzleTable

#: Lichess's own example of its database's lines: a mate in two for White after Black's king steps up.
HEADER = "PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags\n"
LINE = (
    "00sHx,q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17,e8d7 a2e6 d7d8 f7f8,1760,80,83,72,"
    "mate mateIn2 middlegame short,https://lichess.org/yyznGmXs/black#34,"
    "Italian_Game Italian_Game_Classical_Variation\n"
)
#: Not the move: the queen takes a pawn and mates nothing.
WRONG = chess.Move.from_uci("f7g7")
RED = "#ff0000"


class Erring:
    """A person who tries a wrong move first, then finds the solution."""

    def __init__(self, moves: list[chess.Move]) -> None:
        self.moves = moves

    def best_move(self, board: chess.Board) -> chess.Move:
        move = self.moves.pop(0)
        assert board.is_legal(move), (board.fen(), move)
        return move


def test_a_lichess_puzzle_is_solved_at_the_board_and_a_wrong_move_is_put_back(tmp_path: Path) -> None:
    csv = tmp_path / "lichess_db_puzzle.csv"
    csv.write_text(HEADER + LINE, encoding="utf-8")
    store = PuzzleStore(tmp_path / "training.sqlite3", starter=False)
    assert store.add(read_puzzles(csv, Reading())) == 1
    person = Erring([WRONG, chess.Move.from_uci("a2e6"), chess.Move.from_uci("f7f8")])
    events: list[dict[str, Any]] = []
    seen: list[dict[str, Any]] = []
    with Session(Config.default(), games_dir=tmp_path / "games", speed=None, emit=events.append) as session:
        session.connect()
        session.live.listen(lambda version: seen.append(session.live.snapshot()))
        table = PuzzleTable(session, store, PlayerSpec.parse("hand"), rng=random.Random(1), brain=person)
        (outcome,) = table.play(1)
        assert session.world is not None and not session.world.twin.violations
        final = chess.Board("q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17")
        for uci in ("e8d7", "a2e6", "d7d8", "f7f8"):
            final.push_uci(uci)
        assert final.is_checkmate()
        assert session.table.board_fen() == final.board_fen()  # the pieces stand as the mate left them
    # the wrong move: shown red under its squares, said, and put back by the robot before the next try
    assert any(e["event"] == "warning" and "Qxg7 is not the move" in e["message"] for e in events)
    assert any(s["leds"].get("f7") == RED and s["leds"].get("g7") == RED for s in seen)
    works = [s["gantry"]["work"]["title"] for s in seen if s["gantry"]["work"]]
    assert "PUZZLE PUT BACK" in works
    answer = next(index for index, title in enumerate(works) if title.endswith("d7d8"))
    assert works.index("PUZZLE PUT BACK") < answer  # the pieces back before the robot's answer
    attempt = outcome.attempt
    assert (attempt.puzzle_id, attempt.solved, attempt.wrong, attempt.hints) == ("00sHx", False, 1, 0)
    assert attempt.seconds > 0
    # saved, with the rating after it (a failure lowers it): the simulated hand's own, never the person's
    assert store.attempts(simulated=True) == [attempt] and attempt.player == "hand"
    assert store.attempts() == [] and store.rating().rating == 1500
    assert store.rating("hand").rating < 1500


def test_the_starter_set_loads_on_a_fresh_install(tmp_path: Path) -> None:
    shipped = load_starter()
    assert len(shipped) >= 15
    assert {puzzle.source for puzzle in shipped} == {"starter"}
    assert any(puzzle.chess960 for puzzle in shipped)  # mined from the Chess960 games too
    store = PuzzleStore(tmp_path / "fresh" / "training.sqlite3")  # a store never opened before
    assert store.count(Filters(source="starter")) == len({p.puzzle_id for p in shipped})
    assert store.choose(1500, rng=random.Random(3)).source == "starter"
    # and the file is package data, so that a wheel carries it
    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    globs = project["tool"]["setuptools"]["package-data"]["chessatron"]
    assert any(Path("data", STARTER).match(glob) for glob in globs)


def test_lichess_csv_reads_compressed_and_skips_a_damaged_line(tmp_path: Path) -> None:
    damaged = "broken,not a fen,e2e4 e7e5,1500,80,1,1,,,\n"
    path = tmp_path / "lichess_db_puzzle.csv.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress((HEADER + damaged + LINE).encode()))
    runner = CliRunner()
    store = tmp_path / "training.sqlite3"
    result = runner.invoke(main, ["puzzles", "import", str(path), "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert "imported 1 puzzle (1 new" in result.output and "skipped 1 line" in result.output
    assert "line 2: puzzle 'broken' has a bad FEN" in result.output
    kept = PuzzleStore(store).get("00sHx")
    assert kept.themes == ("mate", "mateIn2", "middlegame", "short") and kept.rating == 1760
    assert PuzzleStore(store).count(Filters(opening="Italian_Game")) == 1


def test_a_file_that_is_no_puzzle_csv_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    path.write_text('[Event "?"]\n\n1. e4 e5 *\n' * 30, encoding="utf-8")
    with pytest.raises(PuzzleFileError, match="is not a lichess puzzle file"):
        list(read_puzzles(path, Reading()))


def test_a_skipped_puzzle_tells_its_solution_and_counts_as_failed_in_plain_lines(tmp_path: Path) -> None:
    store = PuzzleStore(tmp_path / "training.sqlite3")
    csv = tmp_path / "lichess_db_puzzle.csv"
    csv.write_text(HEADER + LINE, encoding="utf-8")
    store.add(read_puzzles(csv, Reading()))
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data")}
    args = [
        "puzzles",
        "--player",
        "keyboard",
        "--count",
        "2",
        "--theme",
        "Mate in 2",
        "--store",
        str(store.path),
    ]
    result = CliRunner(env=env).invoke(main, args, input="help\nskip\n")  # (then the end of input)
    assert result.exit_code == 0, result.output
    # into a pipe: lines only, the puzzle's own help, the solution told (not played) and the result
    assert "chessatron table" not in result.output
    assert "skip: on to the next puzzle" in result.output and "takeback" not in result.output
    assert "skipped: the solution is 18. Be6+ Kd8 19. Qf8#" in result.output
    assert "puzzle 00sHx (1760): skipped in" in result.output
    assert "puzzle 00sHx stopped before its end: not counted\n0 of 1 solved" in result.output
    (attempt,) = store.attempts()
    assert (attempt.puzzle_id, attempt.solved, attempt.wrong, attempt.hints) == ("00sHx", False, 0, 0)
