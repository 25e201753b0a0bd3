"""Game records: PGN and the compact form round-trip every legal game exactly, and say plainly what is wrong
with a file they cannot read."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from typing import cast

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessatron.errors import GameFileError, IllegalMoveError
from chessatron.game.records.compact import decode_compact, encode_compact
from chessatron.game.records.pgn import from_pgn, read_pgn_games, to_pgn
from chessatron.game.records.record import (
    TERMINATIONS,
    ClockSettings,
    GameRecord,
    Player,
    Result,
    Termination,
    numbered_start,
    termination_of,
)

from .conftest import GAMES_DIR

M = chess.Move.from_uci


def random_game(rng: random.Random, board: chess.Board, plies: int) -> list[chess.Move]:
    """Up to ``plies`` random legal moves, weighted so that castling, captures and promotions happen."""
    moves = []
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        weights = [
            1.0
            + 3.0 * (board.piece_type_at(m.from_square) == chess.PAWN)
            + 2.0 * board.is_capture(m)
            + 30.0 * board.is_castling(m)
            + 20.0 * (m.promotion is not None)
            for m in legal
        ]
        move = rng.choices(legal, weights)[0]
        board.push(move)
        moves.append(move)
    return moves


START_KINDS = ("standard", "chess960", "fen-standard", "fen-chess960")


def make_record(kind: str, number: int, seed: int, plies: int) -> GameRecord:
    """A random legal game from a numbered start or from a FEN reached by random play, ended properly."""
    rng = random.Random(seed)
    chess960 = kind.endswith("chess960")
    board = chess.Board.from_chess960_pos(number) if chess960 else chess.Board()
    if kind.startswith("fen"):
        random_game(rng, board, rng.randrange(40))
        board = chess.Board(board.fen(), chess960=chess960)
        if board.is_game_over():
            board = chess.Board(chess960=chess960)
    moves = random_game(rng, board, plies)
    result: Result = "*"
    termination: Termination | None = None
    outcome = board.outcome(claim_draw=True)
    endings: list[tuple[Result, Termination | None]] = [
        ("1-0", "resignation"),
        ("0-1", "time forfeit"),
        ("1/2-1/2", "agreed draw"),
        ("1-0", None),
    ]
    if outcome is not None:
        result, termination = cast(Result, outcome.result()), termination_of(outcome)
    elif rng.random() < 0.5:
        result, termination = rng.choice(endings)
    return GameRecord(board.root().fen(), chess960, tuple(moves), result=result, termination=termination)


@st.composite
def records(draw: st.DrawFn) -> GameRecord:
    return make_record(
        draw(st.sampled_from(START_KINDS)),
        draw(st.integers(0, 959)),
        draw(st.integers(0, 2**32 - 1)),
        draw(st.integers(0, 120)),
    )


header_text = st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), max_size=20)
players = st.builds(
    Player, header_text, st.sampled_from(["keyboard", "board", "web", "unknown"])
) | st.builds(Player, header_text, st.just("engine"), st.sampled_from([None, "0", "20", "elo1500:depth=12"]))


@st.composite
def full_records(draw: st.DrawFn) -> GameRecord:
    """A random game with every header PGN carries."""
    record = draw(records())
    clocks = draw(st.booleans())
    return dataclasses.replace(
        record,
        white=draw(players),
        black=draw(players),
        date=draw(st.none() | st.dates(dt.date(1000, 1, 1), dt.date(9999, 12, 31))),
        event=draw(header_text),
        site=draw(header_text),
        clock=draw(st.none() | st.builds(ClockSettings, st.integers(1, 10_000), st.integers(0, 60))),
        clocks_ms=tuple(draw(st.none() | st.integers(0, 36_000_000)) for _ in record.moves) if clocks else (),
        tags=draw(
            st.sampled_from([(), (("Round", "3"),), (("ECO", "C50"), ("Round", "1.2"), ("WhiteElo", "2100"))])
        ),
    )


def compact_part(record: GameRecord) -> GameRecord:
    """What the compact form keeps: start, moves, result and termination."""
    return GameRecord(
        record.start_fen, record.chess960, record.moves, result=record.result, termination=record.termination
    )


# --- round trips -----------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(full_records())
def test_every_legal_game_round_trips_through_pgn(record: GameRecord) -> None:
    assert from_pgn(to_pgn(record)) == record


@settings(max_examples=120, deadline=None)
@given(records())
def test_every_legal_game_round_trips_through_the_compact_form(record: GameRecord) -> None:
    data = encode_compact(record)
    assert decode_compact(data) == compact_part(record)
    assert encode_compact(decode_compact(data)) == data


def test_the_random_games_castle_both_ways_and_promote_to_every_piece_in_both_variants() -> None:
    """The generator the property tests use really covers castling and promotions."""
    seen: set[tuple[bool, str]] = set()
    wanted = {(c, what) for c in (False, True) for what in ("O-O", "O-O-O", "n", "b", "r", "q")}
    for seed in range(25):
        if seen == wanted:
            break
        for kind in ("standard", "chess960"):
            record = make_record(kind, seed * 16, seed, 120)
            board = record.start_board()
            for move in record.moves:
                if board.is_castling(move):
                    seen.add((record.chess960, "O-O" if board.is_kingside_castling(move) else "O-O-O"))
                if move.promotion:
                    seen.add((record.chess960, chess.piece_symbol(move.promotion)))
                board.push(move)
    assert seen == wanted


def test_the_shared_engine_games_round_trip_through_pgn_and_compact() -> None:
    for path in sorted(GAMES_DIR.glob("*.pgn")):
        games = read_pgn_games(path.read_text(encoding="utf-8"), path.name)
        assert games, path
        for record in games:
            assert from_pgn(to_pgn(record)) == record
            assert decode_compact(encode_compact(record)) == compact_part(record)


# --- PGN -------------------------------------------------------------------------------------------


def test_a_chess960_game_carries_variant_setup_and_fen_headers_and_our_own() -> None:
    start = chess.Board.from_chess960_pos(412)
    record = GameRecord(
        start.fen(),
        True,
        (M("e1f3"),),
        white=Player("Ann", "board"),
        black=Player("Stockfish", "engine", "8"),
        result="1-0",
        termination="time forfeit",
        date=dt.date(2024, 5, 12),
        clock=ClockSettings(300, 2),
    )
    text = to_pgn(record)
    for header in (
        '[Variant "Chess960"]',
        '[SetUp "1"]',
        f'[FEN "{start.fen()}"]',
        '[White "Ann"]',
        '[Black "Stockfish"]',
        '[BlackKind "engine"]',
        '[BlackLevel "8"]',
        '[Result "1-0"]',
        '[Termination "Time forfeit"]',
        '[Date "2024.05.12"]',
        '[TimeControl "300+2"]',
    ):
        assert header in text
    assert "1. Nf3 1-0" in text
    assert record.start_number == 412 and record.variant == "chess960"


def chess960_start(king: chess.Square, rook: chess.Square, clear: tuple[chess.Square, ...]) -> chess.Board:
    """A Chess960 start with the white king and a rook where asked, and the squares castling needs cleared."""
    number = next(
        n
        for n in range(960)
        if (b := chess.Board.from_chess960_pos(n)).king(chess.WHITE) == king
        and b.piece_at(rook) == chess.Piece(chess.ROOK, chess.WHITE)
    )
    board = chess.Board.from_chess960_pos(number)
    for square in clear:
        board.remove_piece_at(square)
    return board


@pytest.mark.parametrize(
    ("king", "rook", "clear", "word"),
    [
        # queenside: king b1 to c1, rook a1 to d1; written b1 (1) to c1 (2), special 6
        (chess.B1, chess.A1, (chess.C1, chess.D1), 1 | 2 << 6 | 6 << 12),
        # kingside with the king already home on g1: only the rook moves; written g1 to g1, special 5
        (chess.G1, chess.H1, (chess.F1,), 6 | 6 << 6 | 5 << 12),
    ],
)
def test_chess960_castling_is_king_onto_rook_in_every_form(
    king: chess.Square, rook: chess.Square, clear: tuple[chess.Square, ...], word: int
) -> None:
    start = chess960_start(king, rook, clear)
    castling = chess.Move(king, rook)
    record = GameRecord(start.fen(), True, (castling,))
    assert record.moves == (castling,)
    assert ("O-O-O" if rook == chess.A1 else "O-O") in to_pgn(record)
    assert from_pgn(to_pgn(record)) == record
    assert encode_compact(record)[-2:] == word.to_bytes(2, "big")
    assert decode_compact(encode_compact(record)) == record


def test_standard_castling_is_stored_king_two_squares_whichever_notation_it_is_given() -> None:
    start = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    assert GameRecord(start, moves=(M("e1h1"),)).moves == (M("e1g1"),)
    board = chess.Board(start)
    board.push_san("O-O-O")
    board.push_san("O-O")
    record = GameRecord.from_board(board, result="*")
    assert record.start_fen == start and record.moves == (M("e1c1"), M("e8g8"))


def test_headers_we_do_not_model_survive_and_unknowns_stay_unknown() -> None:
    text = (
        '[Event "Club night"]\n[Site "?"]\n[Date "1972.??.??"]\n[Round "4"]\n[White "?"]\n[Black "B"]\n'
        '[Result "1/2-1/2"]\n[ECO "B01"]\n[Termination "normal"]\n[TimeControl "40/7200"]\n\n'
        "1. e4 d5 {a comment} (1... e5) 1/2-1/2\n"
    )
    record = from_pgn(text)
    assert record.event == "Club night" and record.site == "" and record.date is None
    assert record.white == Player() and record.black == Player("B")
    assert record.termination is None and record.clock is None
    assert dict(record.tags) == {
        "Date": "1972.??.??",
        "Round": "4",
        "ECO": "B01",
        "Termination": "normal",
        "TimeControl": "40/7200",
    }
    again = from_pgn(to_pgn(record))
    assert again == record
    assert '[Date "1972.??.??"]' in to_pgn(record)


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("", "holds 0 games"),
        ("1. e4 e5 *\n\n1. d4 d5 *\n", "holds 2 games"),
        ("1. e4 e5 2. Ke3 *\n", "move 2 (white): 'Ke3' is illegal"),
        ("1. e4 e5 2. Nf9 Nc6 *\n", "move 2: 'Nf9' is not a move"),
        ("1. e4 e5 2. Nbd2 *\n", "move 2 (white): 'Nbd2' is illegal"),
        ('[FEN "8/8/8 w - - 0 1"]\n[SetUp "1"]\n\n1. e4 *\n', "cannot be read"),
        ('[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n[SetUp "1"]\n\n*\n', "cannot arise in chess"),
        ('[Variant "Atomic"]\n\n1. e4 *\n', "'Atomic'"),
        ('[Result "2-0"]\n\n1. e4 2-0\n', "'2-0'"),
        ('[WhiteKind "board"]\n[WhiteLevel "8"]\n\n1. e4 *\n', "a level of '8' for a 'board' player"),
        ('[WhiteKind "robot"]\n\n1. e4 *\n', "'robot'"),
        ("1. e4 -- *\n", "illegal"),
    ],
)
def test_bad_pgn_is_a_game_file_error_that_says_what_is_wrong(text: str, complaint: str) -> None:
    with pytest.raises(GameFileError, match=None) as caught:
        from_pgn(text, "club.pgn")
    assert complaint in str(caught.value)


def test_several_games_are_read_in_order() -> None:
    first, second = GameRecord(moves=(M("e2e4"),)), GameRecord(moves=(M("d2d4"),), result="1-0")
    assert read_pgn_games(to_pgn(first) + "\n" + to_pgn(second)) == [first, second]


# --- the record itself -----------------------------------------------------------------------------


def test_a_record_refuses_what_cannot_be_a_game() -> None:
    with pytest.raises(IllegalMoveError, match="'e2e5' at ply 1"):
        GameRecord(moves=(M("e2e5"),))
    with pytest.raises(IllegalMoveError, match="'0000'"):
        GameRecord(moves=(chess.Move.null(),))
    with pytest.raises(GameFileError, match="'2-0'"):
        GameRecord(result="2-0")  # type: ignore[arg-type]
    with pytest.raises(GameFileError, match="'checkmate' needs a result"):
        GameRecord(termination="checkmate")
    with pytest.raises(GameFileError, match="1 clock readings for 0 moves"):
        GameRecord(clocks_ms=(1,))
    with pytest.raises(GameFileError, match="'bad'"):
        GameRecord("bad")
    with pytest.raises(GameFileError, match="control character"):
        GameRecord(event="two\nlines")
    with pytest.raises(GameFileError, match="'Event'"):
        GameRecord(tags=(("Event", "x"),))


def test_players_read_and_write_their_spec() -> None:
    assert Player.from_spec("engine:8", "Stockfish") == Player("Stockfish", "engine", "8")
    assert Player.from_spec("engine:elo1500:depth=12").level == "elo1500:depth=12"
    assert Player.from_spec("keyboard").spec == "keyboard"
    assert Player("SF", "engine", "3").spec == "engine:3"
    for bad in ("engine:", "robot", "engine:a b", "keyboard:3", "engine::"):
        with pytest.raises(GameFileError):
            Player.from_spec(bad)


def test_time_controls() -> None:
    assert ClockSettings.parse_time_control("300+2") == ClockSettings(300, 2)
    assert ClockSettings.parse_time_control("600") == ClockSettings(600)
    assert ClockSettings(600).time_control() == "600"
    for other in ("-", "?", "40/7200", "0"):
        assert ClockSettings.parse_time_control(other) is None


# --- the compact form ------------------------------------------------------------------------------


def test_the_compact_form_is_the_documented_bytes() -> None:
    record = GameRecord(moves=(M("e2e4"), M("e7e5"), M("g1f3")))
    # 518; e2 (12) to e4 (28): 12 | 28 << 6 = 0x070c; e7e5 52 | 36 << 6 = 0x0934; g1f3 6 | 21 << 6 = 0x0546
    assert encode_compact(record).hex() == "0206070c09340546"
    castles = GameRecord("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", moves=(M("e1g1"), M("e8c8")))
    # O-O: e1 (4) to g1 (6), special 5 = 0x5184; O-O-O: e8 (60) to c8 (58), special 6 = 0x6ebc
    assert encode_compact(castles)[-4:].hex() == "51846ebc"
    promotion = GameRecord(
        "8/P6k/8/8/8/8/8/K7 w - - 0 1", moves=(M("a7a8n"),), result="1/2-1/2", termination="agreed draw"
    )
    fen = promotion.start_fen.encode()
    # a7 (48) to a8 (56), knight 1 = 0x1e30; end word 0x8000 | (1 + 8) << 2 | 3 = 0x8027
    assert encode_compact(promotion) == b"\xff\xff" + bytes([len(fen)]) + fen + bytes.fromhex("1e308027")
    assert TERMINATIONS.index("agreed draw") == 8


def test_numbered_starts_and_chess960_from_518() -> None:
    for number in (0, 412, 959):
        record = GameRecord(numbered_start(number).fen(), True)
        assert encode_compact(record) == number.to_bytes(2, "big")
        assert decode_compact(number.to_bytes(2, "big")) == record
    assert decode_compact(b"\x02\x06") == GameRecord()
    chess960_518 = GameRecord(chess.STARTING_FEN, True)
    assert encode_compact(chess960_518)[:2] == b"\xff\xfe"
    assert decode_compact(encode_compact(chess960_518)) == chess960_518


@pytest.mark.parametrize(
    ("data", "complaint"),
    [
        (b"", "truncated at byte 0"),
        (b"\x02", "truncated at byte 1"),
        (b"\x02\x06\x07", "truncated at byte 2"),
        (b"\x03\xc0", "0x03c0 at byte 0"),
        (b"\xff\xff\x20rnbq", "start FEN is cut short"),
        (b"\xff\xff\x03xyz", "bad start FEN at byte 3"),
        (b"\x02\x06\x07\x0c\x07\x0c", "'e2e4' is not legal .* ply 2 at byte 4"),
        (b"\x02\x06\x00\x00", "'0000' is not legal .* byte 2"),
        (b"\x02\x06\x51\x84", "kingside castling e1g1 is not legal .* byte 2"),
        (b"\x02\x06\x77\x0c", "special code 7 is reserved, ply 1 at byte 2"),
        (b"\x02\x06\x80\x05\x07\x0c", "2 bytes after its end word"),
        (b"\x02\x06\x80\x40", "bad end word 0x8040 at byte 2"),
        (b"\x02\x06\x80\x04", "bad end word 0x8004 at byte 2"),
    ],
)
def test_bad_compact_data_names_the_offset(data: bytes, complaint: str) -> None:
    with pytest.raises(GameFileError, match=complaint):
        decode_compact(data)


def test_a_plain_word_that_is_a_legal_castling_move_is_read_too() -> None:
    start = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    fen = start.encode()
    plain = b"\xff\xff" + bytes([len(fen)]) + fen + (4 | 6 << 6).to_bytes(2, "big")
    assert decode_compact(plain).moves == (M("e1g1"),)
