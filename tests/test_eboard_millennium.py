"""The Millennium ChessLink protocol in-process: an app's handshake, a whole game with the app's moves read
from its LEDs, the special moves, the EEPROM's automatic reports, and every kind of bad input."""

from __future__ import annotations

import itertools
import logging
import random

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessatron.eboard.core import TableView
from chessatron.eboard.millennium import Millennium, block_check, corners, frame, has_odd_parity
from chessatron.eboard.registry import protocol_class
from tests.eboard_clients.base import FakeTable, InProcessLink, wire
from tests.eboard_clients.millennium import Leds, MillenniumClient, Reports

START_CODES = "rnbqkbnr" + "pppppppp" + "." * 32 + "PPPPPPPP" + "RNBQKBNR"


def connected(
    board: chess.Board | None = None,
    *,
    parity_bit: bool = False,
    rotated: bool = False,
    reports: Reports = "change",
    leds: Leds = "delta",
) -> tuple[Millennium, FakeTable, InProcessLink, MillenniumClient]:
    """A board for a fake table, and an app that has connected to it."""
    protocol, table, link = wire(Millennium, board)
    assert isinstance(protocol, Millennium)
    protocol.parity_bit = parity_bit
    protocol.rotated = rotated
    client = MillenniumClient(link, reports=reports, leds=leds)
    client.connect()
    return protocol, table, link, client


def answers(link: InProcessLink) -> list[bytes]:
    """Everything the board sent since the last call."""
    sent = []
    while (chunk := link.read(0.0)) is not None:
        sent.append(chunk[1])
    return sent


def test_the_registry_names_the_protocol_and_the_serial_line_it_needs() -> None:
    assert protocol_class("millennium") is Millennium
    assert Millennium.serial_settings == {"baudrate": 38400, "bytesize": 7, "parity": "O", "stopbits": 1}
    assert set(Millennium.transports) == {"serial", "ble"}
    assert set(Millennium.ble_channels) == {""}


@pytest.mark.parametrize(
    ("parity_bit", "expected"),
    [(False, b"v010374"), (True, b"v\xb01\xb0\xb374")],  # the second as a real board's log shows it
)
def test_the_version_answer_is_a_real_boards(parity_bit: bool, expected: bytes) -> None:
    protocol, table, link = wire(Millennium)
    assert isinstance(protocol, Millennium)
    protocol.parity_bit = parity_bit
    protocol.received(b"\xd6\xb5\xb6")  # "V56" with its parity bits, as python-mchess sends it
    assert answers(link) == [expected]
    assert table.connected == ["ChessLink app"]


@pytest.mark.parametrize("rotated", [False, True])
def test_the_status_lists_the_squares_in_the_boards_order(rotated: bool) -> None:
    protocol, _, link = wire(Millennium)
    assert isinstance(protocol, Millennium)
    protocol.rotated = rotated
    protocol.received(frame("S"))
    codes = START_CODES[::-1] if rotated else START_CODES
    assert answers(link) == [frame("s" + codes)]


def test_a_lifted_piece_is_reported_as_an_empty_square() -> None:
    protocol, _, link, client = connected()
    board = chess.Board()
    protocol.report(TableView.of(board, lifted=frozenset({chess.E2, chess.G8})))
    assert client.board_fen() == "rnbqkb1r/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR"
    protocol.received(frame("S"))
    status = answers(link)[-1].decode()
    assert status[1 + 6] == "." and status[1 + 52] == "."


def play(seed: int, plies: int) -> list[chess.Move]:
    board = chess.Board()
    rng = random.Random(seed)
    moves: list[chess.Move] = []
    while len(moves) < plies and not board.is_game_over():
        move = rng.choice(sorted(board.legal_moves, key=chess.Move.uci))
        moves.append(move)
        board.push(move)
    return moves


@pytest.mark.parametrize(
    ("reports", "leds", "person", "parity_bit", "rotated"),
    [
        ("change", "delta", chess.WHITE, True, False),
        ("poll", "squares", chess.BLACK, False, False),
        ("scan", "delta", chess.BLACK, True, True),
    ],
)
def test_a_whole_game_the_apps_moves_read_from_its_leds(
    reports: Reports, leds: Leds, person: chess.Color, parity_bit: bool, rotated: bool
) -> None:
    protocol, table, _, client = connected(parity_bit=parity_bit, rotated=rotated, reports=reports, leds=leds)
    board = chess.Board()
    app_moves = 0
    for move in play(seed=38 + person, plies=40):
        if board.turn == person:
            board.push(move)
            protocol.report(TableView.of(board))
        else:
            client.show_move(board, move)
            app_moves += 1
            assert table.moves[-1] == move
            # the robot lifts the piece, then sets it down where the app said
            protocol.report(TableView.of(board, lifted=frozenset({move.from_square})))
            lifted = client.board_fen()
            assert chess.BaseBoard(lifted).piece_at(move.from_square) is None
            board.push(move)
            protocol.report(TableView.of(board))
            client.clear()
            assert table.lit[-1] == frozenset()
        assert client.board_fen() == board.board_fen()
    assert len(board.move_stack) == 40
    assert len(table.moves) == app_moves
    assert client.rotated is rotated
    assert client.errors == []


def special(fen: str, uci: str, *, chess960: bool = False) -> tuple[chess.Board, chess.Move]:
    board = chess.Board(fen, chess960=chess960)
    return board, chess.Move.from_uci(uci)


SPECIAL_MOVES = {
    "white castles short": special("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"),
    "black castles long": special("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8"),
    "en passant": special("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6"),
    "promotion": special("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q"),
    "capture promoting": special("2r1k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7c8q"),
    "pawn's double step": special("4k3/3p4/8/8/8/8/8/4K3 b - - 0 1", "d7d5"),
    "Chess960 castles, king onto rook": special("4k3/8/8/8/8/8/8/RK5R w HA - 0 1", "b1a1", chess960=True),
    "Chess960 castles short": special("4k3/8/8/8/8/8/8/RK5R w HA - 0 1", "b1h1", chess960=True),
}


@pytest.mark.parametrize("leds", ["delta", "squares"])
@pytest.mark.parametrize("case", list(SPECIAL_MOVES))
def test_the_special_moves_are_read_from_the_leds(case: str, leds: Leds) -> None:
    board, move = SPECIAL_MOVES[case]
    assert move in board.legal_moves
    _, table, _, client = connected(board, leds=leds)
    client.show_move(board, move)
    assert table.moves == [move]
    assert move.from_square in table.lit[-1]


def lit_codes(*squares: chess.Square, pattern: str = "FF") -> str:
    leds = corners(squares)
    return "L20" + "".join(pattern if led in leds else "00" for led in range(81))


@pytest.mark.parametrize(
    ("codes", "lit"),
    [
        (lit_codes(chess.E4), frozenset({chess.E4})),  # one square: the piece to lift, no move
        (lit_codes(chess.E2, chess.E5), None),  # no legal move lights these
        (lit_codes(chess.A2, chess.H7), None),
        ("L20" + "00" * 81, frozenset()),  # everything dark: the LEDs off
    ],
)
def test_leds_that_name_no_move_are_shown_and_nothing_is_moved(
    codes: str, lit: frozenset[chess.Square] | None
) -> None:
    _, table, _, client = connected()
    assert client.ask(codes, "l") == "l"
    assert table.moves == []
    if lit is not None:
        assert table.lit[-1] == lit


def test_the_same_leds_again_name_the_move_once_for_a_position() -> None:
    protocol, table, _, client = connected()
    board = chess.Board()
    move = chess.Move.from_uci("g1f3")
    for _ in range(3):
        client.show_move(board, move)
    assert table.moves == [move]
    board.push(move)
    protocol.report(TableView.of(board))
    board.push(chess.Move.from_uci("g8f6"))
    protocol.report(TableView.of(board))
    client.show_move(board, chess.Move.from_uci("f3g1"))
    assert table.moves == [move, chess.Move.from_uci("f3g1")]


def test_the_eeprom_keeps_what_the_app_writes() -> None:
    _, _, _, client = connected(reports="poll")
    assert client.ask("W2A5C", "w") == "w2A5C"
    assert client.ask("R2A", "r") == "r2A5C"
    assert client.ask("W010A", "w") == "w0114"  # a scan time under 15 sets 20, as the board does
    assert client.ask("R04", "r") == "r040F"


@pytest.mark.parametrize(
    ("mode", "on_change", "on_clock"),
    [("00", True, True), ("01", False, False), ("02", False, True), ("03", True, False), ("07", True, False)],
)
def test_the_automatic_reports_follow_the_eeprom(mode: str, on_change: bool, on_clock: bool) -> None:
    protocol, _, link, client = connected(reports="scan")
    client.ask("W02" + mode, "w")
    client.ask("W0314", "w")  # the report time: 82 ms
    answers(link)
    protocol.report(TableView.of(chess.Board()))  # nothing changed: no report
    assert answers(link) == []
    board = chess.Board()
    board.push_san("e4")
    protocol.report(TableView.of(board))
    assert len(answers(link)) == (1 if on_change else 0)
    protocol.tick(100.0)
    protocol.tick(100.01)  # within a period: nothing more
    protocol.tick(100.2)
    sent = answers(link)
    assert len(sent) == (2 if on_clock else 0)
    assert all(chunk.startswith(b"s") for chunk in sent)


def test_nothing_is_reported_before_the_app_speaks() -> None:
    protocol, _, link = wire(Millennium)
    board = chess.Board()
    board.push_san("e4")
    protocol.report(TableView.of(board))
    protocol.tick(1.0)
    assert answers(link) == []


def test_reset_puts_the_leds_out_and_answers_nothing() -> None:
    _, table, link, client = connected()
    client.show_move(chess.Board(), chess.Move.from_uci("e2e4"))
    client.send("T")
    assert answers(link) == []
    assert table.lit[-1] == frozenset()
    assert client.ask("V", "v") == "v0103"


def test_the_identity_request_of_the_chess_com_app_is_answered() -> None:
    _, _, _, client = connected()
    assert client.ask("I0055", "i") == "i0055mm\n"


def test_without_block_parity_the_messages_carry_no_check() -> None:
    protocol, _, link = wire(Millennium)
    protocol.received(frame("W0001"))
    protocol.received(b"S")
    assert answers(link) == [b"w0001", b"s" + START_CODES.encode()]


def bad_parity(text: str, at: int) -> bytes:
    """``text`` framed with parity bits, the one of its byte ``at`` set where it makes the parity even (a
    bit 7 clear could be a 7-bit line's byte: only one set wrongly shows)."""
    data = bytearray(frame(text, parity_bit=True))
    data[at] |= 0x80
    assert not has_odd_parity(data[at])
    return bytes(data)


def flood() -> bytes:
    rng = random.Random(7)
    return bytes(rng.randrange(256) for _ in range(4000))


BAD_INPUT = {
    "wrong block check": b"S00",
    "truncated": b"R0",
    "truncated LED pattern": frame("L20" + "FF" * 81)[:90],
    "unknown command": frame("Z5"),
    "lower-case command": frame("s"),
    "not a hex digit": frame("R0G"),
    "wrong parity bit": bad_parity("X", 0),
    "wrong parity bit inside": bad_parity("W0207", 4),
    "identity without a check": b"I" + b"0" * 20,
    "garbage": bytes(range(0x80, 0x100)),
    "flood": flood(),
}


@pytest.mark.parametrize("case", list(BAD_INPUT))
def test_bad_input_is_ignored_and_logged_and_the_next_request_works(
    case: str, caplog: pytest.LogCaptureFixture
) -> None:
    _, table, link, client = connected(reports="poll")
    answers(link)
    with caplog.at_level(logging.WARNING, logger="chessatron.eboard.millennium"):
        link.write(BAD_INPUT[case])
        assert client.ask("S", "s") == chess.STARTING_BOARD_FEN
    assert any("chesslink app" in record.getMessage() for record in caplog.records)
    assert len(caplog.records) <= 5  # a flood is summed up, not logged byte by byte
    assert table.moves == []
    client.show_move(chess.Board(), chess.Move.from_uci("b1c3"))
    assert table.moves == [chess.Move.from_uci("b1c3")]


def test_a_bad_block_check_gets_the_boards_silence() -> None:
    protocol, _, link = wire(Millennium)
    protocol.received(b"V57")
    assert answers(link) == []
    protocol.received(b"V56")
    assert answers(link) == [frame("v0103")]


def handshake_and_move() -> bytes:
    board = chess.Board()
    client = MillenniumClient(InProcessLink())
    codes = client.led_codes(board, chess.Move.from_uci("e2e4"))
    texts = ["V", "W0207", "R01", "S", "L20" + "".join(f"{code:02X}" for code in codes), "X"]
    return b"".join(frame(text, parity_bit=True) for text in texts)


EXPECTED_ANSWERS = b"".join(frame(text) for text in ["v0103", "w0207", "r0114", "s" + START_CODES, "l", "x"])


def test_a_conversation_fed_a_byte_at_a_time() -> None:
    protocol, table, link = wire(Millennium)
    for byte in handshake_and_move():
        protocol.received(bytes([byte]))
    assert b"".join(answers(link)) == EXPECTED_ANSWERS
    assert table.moves == [chess.Move.from_uci("e2e4")]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(handshake_and_move()) - 1), max_size=12))
def test_a_conversation_split_anywhere(cuts: list[int]) -> None:
    data = handshake_and_move()
    protocol, table, link = wire(Millennium)
    bounds = [0, *sorted(set(cuts)), len(data)]
    for start, end in itertools.pairwise(bounds):
        protocol.received(data[start:end])
    assert b"".join(answers(link)) == EXPECTED_ANSWERS
    assert table.moves == [chess.Move.from_uci("e2e4")]


def test_the_block_check_is_the_xor_of_the_characters() -> None:
    assert block_check("V") == "56"
    assert block_check("W0203") == f"{ord('W') ^ ord('0') ^ ord('2') ^ ord('0') ^ ord('3'):02X}"
