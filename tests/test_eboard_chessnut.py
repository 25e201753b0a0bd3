"""The Chessnut protocol (Air and Move) in-process: a Chessnut app's client against the protocol and a fake
table. The app connects, follows the position from the board's notifications, shows its moves (the Air's
LEDs, the Move's target position) and the table hears them; bad input is answered or ignored, logged, and
the next good command works."""

from __future__ import annotations

import logging
import random
from typing import Literal

import chess
import pytest

from chessatron.eboard.chessnut import Chessnut, decode_leds, decode_position, encode_leds, encode_position
from chessatron.eboard.core import TableView
from chessatron.eboard.registry import protocol_class

from .eboard_clients.base import FakeTable, wire
from .eboard_clients.chessnut import ChessnutClient, position_bytes

Model = Literal["air", "move"]
MODELS: list[Model] = ["air", "move"]
START = chess.STARTING_BOARD_FEN

#: Short games with every special move, each side making it.
LINES = {
    "castling both wings": "e2e4 e7e5 g1f3 b8c6 f1c4 d7d6 e1g1 c8g4 d2d3 d8d7 b1c3 e8c8",
    "en passant both sides": "e2e4 a7a6 e4e5 d7d5 e5d6 c7c5 g2g3 c5c4 b2b4 c4b3",
    "promotion both sides": "a2a4 b7b5 a4b5 a7a6 b5a6 c8b7 a6b7 g8f6 b7a8q h7h5 g2g4 h5g4 a8a7 g4g3 "
    "a7a6 g3h2 a6a5 h2g1q",
}


def connected(model: Model, board: chess.Board | None = None) -> tuple[Chessnut, FakeTable, ChessnutClient]:
    protocol, table, link = wire(Chessnut, board)
    assert isinstance(protocol, Chessnut)
    client = ChessnutClient(link, model=model)
    client.connect()
    return protocol, table, client


def person_moves(protocol: Chessnut, client: ChessnutClient, board: chess.Board, move: chess.Move) -> None:
    """The person lifts the piece (the app sees its square empty), then the move stands."""
    protocol.report(TableView.of(board, lifted=frozenset({move.from_square})))
    lifted = chess.BaseBoard(board.board_fen())
    lifted.remove_piece_at(move.from_square)
    assert client.board_fen() == lifted.board_fen()
    board.push(move)
    protocol.report(TableView.of(board))
    assert client.board_fen() == board.board_fen()


def app_moves(
    protocol: Chessnut, table: FakeTable, client: ChessnutClient, board: chess.Board, move: chess.Move
) -> None:
    """The app shows its move, the table hears it, the robot makes it, the app sees it and clears."""
    client.show_move(board, move)
    assert table.moves[-1] == move
    if client.model == "air":
        assert table.lit[-1] == {move.from_square, move.to_square}
    reports = client.reports
    protocol.report(TableView.of(board, lifted=frozenset({move.from_square})))  # the robot on its way
    if client.model == "move":
        assert client.board_fen() == board.board_fen()  # the Move reports nothing while it moves
        assert client.reports == reports
    board.push(move)
    protocol.report(TableView.of(board))
    assert client.board_fen() == board.board_fen()
    client.clear()
    assert table.lit[-1] == frozenset()


def play(model: Model, moves: list[chess.Move], app_side: chess.Color) -> tuple[FakeTable, chess.Board]:
    board = chess.Board()
    protocol, table, client = connected(model, board)
    assert client.board_fen() == START
    for move in moves:
        if board.turn == app_side:
            app_moves(protocol, table, client, board, move)
        else:
            person_moves(protocol, client, board, move)
    return table, board


def test_the_registry_names_the_protocol() -> None:
    assert protocol_class("chessnut") is Chessnut
    assert Chessnut.transports == ("ble",)
    assert set(Chessnut.ble_channels) == {"write", "board", "misc"}


@pytest.mark.parametrize("model", MODELS)
def test_connecting_gets_the_position_and_the_battery(model: Model) -> None:
    protocol, table, client = connected(model)
    assert table.connected == ["Chessnut app"]
    assert client.board_fen() == START
    assert client.misc == []  # the acknowledgement and the battery's answer came, and were read
    assert client.reports == 1
    protocol.report(TableView.of(chess.Board()))
    assert client.board_fen() == START
    assert client.reports == 1  # nothing new, nothing sent


@pytest.mark.parametrize("model", MODELS)
def test_a_whole_game_the_app_playing_white(model: Model) -> None:
    rng = random.Random(38)
    board, moves = chess.Board(), list[chess.Move]()
    while len(moves) < 40 and not board.is_game_over():
        choices = [m for m in board.legal_moves if m.promotion in (None, chess.QUEEN)]
        moves.append(rng.choice(choices))
        board.push(moves[-1])
    table, played = play(model, moves, chess.WHITE)
    assert played.move_stack == moves
    assert table.moves == moves[::2]


@pytest.mark.parametrize("app_side", [chess.WHITE, chess.BLACK], ids=["app white", "app black"])
@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("line", LINES.values(), ids=LINES.keys())
def test_special_moves_shown_by_the_app_are_heard(model: Model, line: str, app_side: chess.Color) -> None:
    moves = [chess.Move.from_uci(uci) for uci in line.split()]
    table, board = play(model, moves, app_side)
    assert board.move_stack == moves
    assert table.moves == [m for i, m in enumerate(moves) if (i % 2 == 0) == (app_side == chess.WHITE)]


def test_the_move_names_an_underpromotion_by_its_target() -> None:
    board = chess.Board("8/1P5k/8/8/8/8/8/K7 w - - 0 1")
    protocol, table, client = connected("move", board)
    move = chess.Move.from_uci("b7b8n")
    app_moves(protocol, table, client, board, move)
    assert table.moves == [move]


def test_the_air_lights_castling_as_the_king_s_squares_or_all_four() -> None:
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    _protocol, table, client = connected("air", board)
    for squares, uci in (("e1 g1", "e1g1"), ("e1 c1 a1 d1", "e1c1"), ("e1 h1", "e1g1")):
        client.command(b"\x0a\x08" + encode_leds(chess.parse_square(s) for s in squares.split()))
        assert table.moves[-1] == chess.Move.from_uci(uci)
        client.clear()


def test_the_same_leds_again_name_the_move_once() -> None:
    _protocol, table, client = connected("air")
    move = chess.Move.from_uci("g1f3")
    for _ in range(3):
        client.show_move(chess.Board(), move)
    assert table.moves == [move]
    assert len(table.lit) == 3


@pytest.mark.parametrize(
    "squares", [[], ["e2"], ["e2", "e5"], ["e7", "e5"], ["e2", "e4", "d2", "d4"]], ids=str
)
def test_leds_naming_no_legal_move_are_only_shown(squares: list[str]) -> None:
    _protocol, table, client = connected("air")
    lit = [chess.parse_square(s) for s in squares]
    client.command(b"\x0a\x08" + encode_leds(lit))
    assert table.lit[-1] == frozenset(lit)
    assert table.moves == []


@pytest.mark.parametrize(
    ("fen", "heard"),
    [
        (START, "new game"),
        (chess.Board.from_chess960_pos(100).board_fen(), "new game 100"),
        ("4k3/8/8/8/8/8/8/4K3", "position"),
        ("rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR", "position"),  # two moves on
    ],
    ids=["start", "chess960 start", "kings only", "two moves on"],
)
def test_the_move_s_target_that_is_no_move_is_a_position_to_set_up(fen: str, heard: str) -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    protocol, table, client = connected("move", board)
    client.command(b"\x42\x21" + position_bytes(chess.BaseBoard(fen)) + b"\x01")
    assert table.moves == []
    if heard.startswith("new game"):
        assert table.new_games == [int(heard.split()[-1]) if heard != "new game" else None]
        assert table.positions == []
    else:
        assert [b.board_fen() for b in table.positions] == [fen]
        assert table.positions[0].turn == chess.BLACK
    # the robot sets it up: the app sees the target only once it stands
    protocol.report(TableView.of(board, lifted=frozenset({chess.E4})))
    assert client.board_fen() == board.board_fen()
    protocol.report(TableView.of(chess.Board(f"{fen} w - - 0 1")))
    assert client.board_fen() == fen


def test_the_move_s_stop_lets_the_reports_flow_again() -> None:
    protocol, table, client = connected("move")
    client.command(b"\x42\x21" + position_bytes(chess.BaseBoard("4k3/8/8/8/8/8/8/4K3")) + b"\x00")
    protocol.report(TableView.of(chess.Board(), lifted=frozenset({chess.A2})))
    assert client.board_fen() == START
    client.command(b"\x42\x21" + bytes(33))  # stop
    assert client.board_fen() == "rnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR"
    assert len(table.positions) == 1


def test_a_target_never_reached_stops_holding_the_reports_back() -> None:
    protocol, _table, client = connected("move")
    protocol.tick(10.0)
    client.show_move(chess.Board(), chess.Move.from_uci("e2e4"))
    protocol.report(TableView.of(chess.Board(), lifted=frozenset({chess.E2})))
    protocol.tick(20.0)
    assert client.board_fen() == START
    protocol.tick(100.0)
    assert client.board_fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR"


def test_the_move_s_target_already_standing_asks_nothing() -> None:
    protocol, table, client = connected("move")
    client.command(b"\x42\x21" + position_bytes(chess.BaseBoard()) + b"\x00")
    assert (table.moves, table.positions, table.new_games) == ([], [], [])
    protocol.report(TableView.of(chess.Board(), lifted=frozenset({chess.E2})))
    assert client.board_fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR"


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        ("21 01 00", "23 01 00"),
        ("29 01 00", "2a 02 64 00"),
        ("41 01 0c", "41 03 0c 00 64"),
        ("41 01 09", "41 0b 09" + b"chessatron".hex()),
        ("2b 01 00", "2c 0c" + b"Chessnut Air".hex()),
        ("0b 04 07 d0 01 f4", "23 01 00"),
        ("0a 08 00 00 00 00 00 00 00 00", "23 01 00"),
    ],
    ids=["init", "air battery", "move battery", "version", "name", "beep", "leds"],
)
def test_requests_get_the_board_s_answers(command: str, answer: str) -> None:
    _protocol, _table, client = connected("air")
    client.misc.clear()
    client.command(bytes.fromhex(command))
    client.pump()
    assert client.misc == [bytes.fromhex(answer)]


BAD = {
    "truncated": ("write", "0a 08 00 00"),
    "unknown command": ("write", "77 02 01 02"),
    "wrong length": ("write", "29 05 00"),
    "length out of range": ("write", "27 ff"),
    "bad piece code": ("write", "42 21" + " ff" * 32 + " 00"),
    "bad force flag": ("write", "42 21" + " 00" * 31 + " 01 07"),
    "bad LED colour": ("write", "43 20" + " 44" * 32),
    "flood": ("write", random.Random(7).randbytes(3000).hex()),
    "wrong channel": ("board", "29 01 00"),
    "unserved register": ("write", "41 01 0b"),
}


@pytest.mark.parametrize(("channel", "data"), BAD.values(), ids=BAD.keys())
def test_bad_input_is_logged_and_the_next_command_works(
    channel: str, data: str, caplog: pytest.LogCaptureFixture
) -> None:
    protocol, table, link = wire(Chessnut)
    client = ChessnutClient(link, model="air")
    client.connect()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="chessatron.eboard.chessnut"):
        link.write(bytes.fromhex(data), channel)
        protocol.tick(1.0)
        protocol.tick(2.0)  # a Bluetooth write later: what was left incomplete is dropped
    assert any(
        r.name == "chessatron.eboard.chessnut" and r.levelno >= logging.WARNING for r in caplog.records
    )
    client.misc.clear()
    client.command(bytes((0x29, 0x01, 0x00)))
    assert client.wait_misc(b"\x2a\x02", timeout=0.1) == bytes.fromhex("2a 02 64 00")
    move = chess.Move.from_uci("d2d4")
    client.show_move(chess.Board(), move)
    assert table.moves[-1] == move


@pytest.mark.parametrize(
    "name",
    [
        "unknown command",
        "wrong length",
        "length out of range",
        "bad piece code",
        "bad force flag",
        "bad LED colour",
    ],
)
def test_a_good_command_right_after_a_bad_one_in_one_write_works(name: str) -> None:
    _protocol, _table, client = connected("air")
    client.misc.clear()
    client.command(bytes.fromhex(BAD[name][1]) + b"\x29\x01\x00")
    client.pump()
    assert client.misc == [bytes.fromhex("2a 02 64 00")]


def test_a_move_taken_back_and_shown_again_is_heard_again() -> None:
    protocol, table, client = connected("air")
    board, move = chess.Board(), chess.Move.from_uci("e2e4")
    app_moves(protocol, table, client, board, move)
    board.pop()
    protocol.report(TableView.of(board))  # the table takes the move back
    client.show_move(board, move)
    assert table.moves == [move, move]


@pytest.mark.parametrize("model", MODELS)
def test_commands_fed_a_byte_at_a_time_work(model: Model) -> None:
    _protocol, table, link = wire(Chessnut)
    client = ChessnutClient(link, model=model)
    for byte in b"\x21\x01\x00":
        client.command(bytes((byte,)))
    assert client.board_fen() == START
    move = chess.Move.from_uci("b1c3")
    if model == "air":
        data = b"\x0a\x08" + encode_leds([chess.B1, chess.C3])
    else:
        after = chess.Board()
        after.push(move)
        data = b"\x42\x21" + position_bytes(after) + b"\x01"
    for byte in data:
        client.command(bytes((byte,)))
    assert table.moves == [move]


@pytest.mark.parametrize("cut", range(1, 13))
def test_a_command_split_anywhere_works(cut: int) -> None:
    _protocol, table, client = connected("air")
    data = b"\x0a\x08" + encode_leds([chess.G1, chess.F3]) + b"\x29\x01\x00"
    client.command(data[:cut])
    client.command(data[cut:])
    client.pump()
    assert table.moves == [chess.Move.from_uci("g1f3")]
    assert bytes.fromhex("2a 02 64 00") in client.misc


def test_nothing_is_reported_before_the_app_asks() -> None:
    protocol, _table, link = wire(Chessnut)
    board = chess.Board()
    board.push_uci("e2e4")
    protocol.report(TableView.of(board))
    assert link.read(0.0) is None
    link.write(b"\x21\x01\x00", "write")
    assert ChessnutClient(link).board_fen() == board.board_fen()


def test_the_codecs_read_what_they_write() -> None:
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    assert decode_position(encode_position(board.piece_map())) == board.piece_map()
    assert encode_position(board.piece_map()) == position_bytes(board)
    assert decode_leds(encode_leds([chess.A1, chess.H8, chess.E4])) == {chess.A1, chess.H8, chess.E4}
