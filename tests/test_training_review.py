"""Games reviewed by Stockfish: the annotated PGN marks a known blunder ``??`` with the better move beside
it; a puzzle is mined from a saved game where the person missed the one move that won."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import pytest
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.game.engine.player import EnginePlayer
from chessatron.game.engine.settings import parse_level
from chessatron.game.records.pgn import from_pgn
from chessatron.game.records.store import save_record
from chessatron.training.analysis import analyse_game
from chessatron.training.annotation import annotated_pgn, mistakes
from chessatron.training.mining import mine_game, people_in
from chessatron.training.store import Filters, PuzzleStore

#: Shallow searches: these positions need no depth (a mate in one, a queen left hanging).
SHALLOW = chess.engine.Limit(depth=8)

#: Black's third move allows the mate in one that ends the game.
SCHOLARS_MATE = (
    '[White "Cy"]\n[Black "Di"]\n[WhiteKind "keyboard"]\n[BlackKind "keyboard"]\n\n'
    "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n"
)

#: The engine (Black) puts its queen where the person's knight takes it; the person (White) plays on
#: as if nothing had happened.
MISSED_QUEEN = (
    '[White "Ann"]\n[Black "Stockfish"]\n[WhiteKind "keyboard"]\n[BlackKind "engine"]\n[BlackLevel "1"]\n\n'
    "1. e4 e5 2. Nf3 Qh4 3. d3 Qf6 4. Nc3 c6 *\n"
)


@pytest.fixture(scope="module")
def engine() -> Iterator[EnginePlayer]:
    with EnginePlayer(parse_level("engine:threads=1:hash=16")) as player:
        yield player


def test_the_annotated_pgn_marks_the_known_blunder(engine: EnginePlayer) -> None:
    record = from_pgn(SCHOLARS_MATE)
    analysis = analyse_game(engine, record.start_board(), record.moves, limit=SHALLOW)
    pgn = annotated_pgn(record, analysis)
    assert "3... Nf6??" in pgn  # as lichess writes it
    assert '[Annotator "chessatron (Stockfish, depth 8)"]' in pgn
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert game is not None
    nodes = list(game.mainline())
    assert nodes[5].move == chess.Move.from_uci("g8f6") and chess.pgn.NAG_BLUNDER in nodes[5].nags
    assert nodes[5].eval() is not None and nodes[5].eval().white().mate() == 1  # type: ignore[union-attr]
    # the better move as a variation beside it: one that stops the mate
    better = nodes[4].variations[1]
    assert better.move != nodes[5].move
    board = nodes[4].board()
    board.push(better.move)
    queen_takes = chess.Move.from_uci("h5f7")
    if board.is_legal(queen_takes):
        board.push(queen_takes)
        assert not board.is_checkmate()
    assert [(m.ply, m.judgement, m.san) for m in mistakes(analysis) if m.judgement == "blunder"] == [
        (6, "blunder", "Nf6")
    ]


def test_a_puzzle_is_mined_from_a_saved_game(tmp_path: Path, engine: EnginePlayer) -> None:
    record = from_pgn(MISSED_QUEEN)
    assert people_in(record) == (chess.WHITE,)  # the engine's own blunder is not the person's to learn
    (puzzle,) = mine_game(record, engine, limit=SHALLOW, prefix="gtest-")
    # the position before the engine's Qh4, which the robot plays; the solution: the knight takes
    assert puzzle.fen == chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2").fen()
    assert puzzle.moves[:2] == ("d8h4", "f3h4")
    assert puzzle.colour == chess.WHITE and puzzle.source == "game"
    store = PuzzleStore(tmp_path / "training.sqlite3", starter=False)
    store.add([puzzle])
    assert store.count(Filters(source="game")) == 1


def test_review_writes_the_annotated_pgn_of_a_saved_game(tmp_path: Path) -> None:
    games = tmp_path / "games"
    game_id = save_record(from_pgn(SCHOLARS_MATE), games)
    out = tmp_path / "reviewed.pgn"
    args = ["review", game_id, "--games-dir", str(games), "--depth", "8", "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--store", str(tmp_path / "t.sqlite3")])
    assert result.exit_code == 0, result.output
    assert "3... Nf6??" in out.read_text(encoding="utf-8")
    # the summary on stdout (the mistakes once went to stderr after the PGN): the marked move with the
    # better one and the mate it allowed, and where the PGN went
    assert "3... Nf6?? — " in result.stdout and "was best (#1)" in result.stdout
    assert f"the annotated PGN is in {out}" in result.stdout
