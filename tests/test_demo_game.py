"""The packaged showcase game (``chessatron/data/demo.pgn``) has every feature the demo relies on."""

from __future__ import annotations

import io
from dataclasses import dataclass
from importlib.resources import files

import chess
import chess.pgn

EXPECTED_HEADERS = {
    "Event": "chessatron demo",
    "Site": "simulator",
    "Date": "2026.11.22",
    "Round": "1",
    "White": "chessatron",
    "Black": "chessatron",
}


@dataclass(frozen=True)
class Ply:
    """One half-move of the main line, with the position it was played from."""

    before: chess.Board
    move: chess.Move

    @property
    def colour(self) -> chess.Color:
        return self.before.turn


def _load_game() -> chess.pgn.Game:
    text = (files("chessatron") / "data" / "demo.pgn").read_text(encoding="utf-8")
    stream = io.StringIO(text)
    game = chess.pgn.read_game(stream)
    assert game is not None, "demo.pgn holds no game"
    assert chess.pgn.read_game(stream) is None, "demo.pgn must hold exactly one game"
    return game


def _plies(game: chess.pgn.Game) -> list[Ply]:
    board = game.board()
    plies: list[Ply] = []
    for move in game.mainline_moves():
        assert board.is_legal(move), f"illegal move {move.uci()} in {board.fen()}"
        plies.append(Ply(board.copy(stack=False), move))
        board.push(move)
    return plies


def test_headers_and_plain_main_line() -> None:
    game = _load_game()
    assert game.errors == []
    for name, value in EXPECTED_HEADERS.items():
        assert game.headers.get(name) == value, name
    assert "Annotator" not in game.headers
    assert "FEN" not in game.headers and "SetUp" not in game.headers
    assert game.board() == chess.Board(), "the game must start from the standard position"
    assert all(len(node.variations) <= 1 for node in game.mainline()), "no side variations"


def test_all_moves_legal_and_length_in_range() -> None:
    plies = _plies(_load_game())
    full_moves = (len(plies) + 1) // 2
    assert 25 <= full_moves <= 32, full_moves


def test_contains_several_captures_and_checks() -> None:
    plies = _plies(_load_game())
    captures = [ply for ply in plies if ply.before.is_capture(ply.move)]
    checks = [ply for ply in plies[:-1] if ply.before.gives_check(ply.move)]
    assert len(captures) >= 3, len(captures)
    assert len(checks) >= 1, "expected checks before the mating move"


def test_contains_en_passant() -> None:
    plies = _plies(_load_game())
    assert any(ply.before.is_en_passant(ply.move) for ply in plies)


def test_both_castlings_by_different_colours() -> None:
    plies = _plies(_load_game())
    kingside = {ply.colour for ply in plies if ply.before.is_kingside_castling(ply.move)}
    queenside = {ply.colour for ply in plies if ply.before.is_queenside_castling(ply.move)}
    assert kingside, "nobody castles kingside"
    assert queenside, "nobody castles queenside"
    assert any(k != q for k in kingside for q in queenside), "the two castlings must be by different sides"


def test_contains_queen_promotion() -> None:
    plies = _plies(_load_game())
    promotions = [ply for ply in plies if ply.move.promotion is not None]
    assert promotions, "no promotion"
    assert any(ply.move.promotion == chess.QUEEN for ply in promotions)


def test_ends_in_checkmate_with_matching_result() -> None:
    game = _load_game()
    plies = _plies(game)
    final = game.end().board()
    assert final.is_checkmate()
    last = plies[-1]
    assert last.before.gives_check(last.move)
    outcome = final.outcome()
    assert outcome is not None and outcome.winner == last.colour
    assert game.headers["Result"] == outcome.result()
    assert game.headers["Result"] == ("1-0" if last.colour == chess.WHITE else "0-1")
