"""The DGT board protocol, in process: an app (the test client) connects, keeps the position from the board's
dump and field updates, shows its engine's move on the clock or the Revelation II's LEDs, and the table hears
that move; bad input gets silence and a log line, and the next request is answered."""

from __future__ import annotations

import logging
import random

import chess
import pytest

from chessatron.eboard.core import TableView
from chessatron.eboard.dgt import SILENCE, Dgt
from chessatron.eboard.registry import protocol_class

from .eboard_clients.base import FakeTable, InProcessLink, wire
from .eboard_clients.dgt import BOARD_DUMP, BWTIME, FIELD_UPDATE, SEND_BRD, DgtClient, Style, field

STYLES: list[Style] = ["san", "uci", "xl", "leds", "san+leds"]


class ChunkedLink(InProcessLink):
    """Either side's bytes reach the other in chunks of ``size`` bytes (a serial line splits anywhere)."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def sent(self, data: bytes, channel: str = "") -> None:
        for start in range(0, len(data), self.size):
            super().sent(data[start : start + self.size], channel)

    def write(self, data: bytes, channel: str = "") -> None:
        for start in range(0, len(data), self.size):
            super().write(data[start : start + self.size], channel)


def connected(
    board: chess.Board | None = None, style: Style = "san", chunk: int = 0
) -> tuple[Dgt, FakeTable, DgtClient]:
    protocol, table, link = wire(Dgt, board)
    if chunk:
        link = ChunkedLink(chunk)
        link.protocol = protocol
        protocol.send = link.sent
    client = DgtClient(link, style)
    client.connect()
    assert isinstance(protocol, Dgt)
    return protocol, table, client


def test_the_registry_names_dgt_over_a_serial_line_at_9600_8n1() -> None:
    assert protocol_class("dgt") is Dgt
    assert Dgt.transports == ("serial",) and Dgt.ble_channels == {}
    assert Dgt.serial_settings == {"baudrate": 9600, "bytesize": 8, "parity": "N", "stopbits": 1}


@pytest.mark.parametrize("chunk", [0, 1, 2, 5])
def test_an_app_connects_reads_the_position_and_shows_its_move_in_any_chunking(chunk: int) -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    protocol, table, client = connected(board, style="san+leds", chunk=chunk)
    assert table.connected == ["DGT board app"]
    assert (client.serial_number, client.version, client.clock_version) == ("02024", "1.7", "2.2")
    assert client.seen_fen() == client.board_fen() == board.board_fen()
    move = chess.Move.from_uci("f1b5")
    client.show_move(board, move)  # the clock text and the LEDs, split anywhere
    assert table.moves == [move] and table.lit == [frozenset({chess.F1, chess.B5})]
    board.push(move)
    protocol.report(TableView.of(board))
    assert client.seen_fen() == board.board_fen()


def _person_moves(protocol: Dgt, client: DgtClient, board: chess.Board, move: chess.Move) -> None:
    """The person lifts the piece (the app sees its field empty), then the move stands."""
    protocol.report(TableView.of(board, lifted=frozenset({move.from_square})))
    lifted = board.copy()
    lifted.remove_piece_at(move.from_square)
    assert client.seen_fen() == lifted.board_fen()
    board.push(move)
    protocol.report(TableView.of(board))


@pytest.mark.parametrize(
    ("style", "app_color"), list(zip(STYLES, [chess.BLACK, chess.WHITE] * 3, strict=False))
)
def test_a_whole_game_the_app_against_the_person(style: Style, app_color: chess.Color) -> None:
    protocol, table, client = connected(style=style)
    board = chess.Board()
    rng = random.Random(f"{style}{app_color}")
    app_moves = 0
    for _ in range(40):
        if board.is_game_over():
            break
        move = rng.choice(list(board.legal_moves))
        if board.turn == app_color:
            client.show_move(board, move)
            assert table.moves[-1] == move
            app_moves += 1
            board.push(move)
            protocol.report(TableView.of(board))  # the robot made it
            client.clear()
        else:
            _person_moves(protocol, client, board, move)
        assert client.seen_fen() == board.board_fen()
        assert client.board_fen() == board.board_fen()
    assert len(table.moves) == app_moves > 10
    if "leds" in style:
        assert table.lit[-1] == frozenset() and len(table.lit) == 2 * len(table.moves)


SPECIAL = {
    "castle white short": ("r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 0 1", "e1g1"),
    "castle white long": ("r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 0 1", "e1c1"),
    "castle black short": ("r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R b KQkq - 0 1", "e8g8"),
    "castle black long": ("r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R b KQkq - 0 1", "e8c8"),
    "en passant": ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "e5f6"),
    "promotion": ("3r4/4P3/8/8/8/8/k7/7K w - - 0 1", "e7e8q"),
    "promotion with capture": ("3r4/4P3/8/8/8/8/k7/7K w - - 0 1", "e7d8q"),
    "underpromotion": ("3r4/4P3/8/8/8/8/k7/7K w - - 0 1", "e7e8n"),
    "black promotes": ("7k/8/8/8/8/8/p7/1R5K b - - 0 1", "a2b1r"),
}


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("case", SPECIAL)
def test_castling_en_passant_and_promotion_shown_by_the_app(case: str, style: Style) -> None:
    fen, uci = SPECIAL[case]
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci)
    if "leds" in style and move.promotion not in (None, chess.QUEEN):
        move = chess.Move(move.from_square, move.to_square, chess.QUEEN)  # lit squares name no piece
    protocol, table, client = connected(board, style)
    client.show_move(board, move)
    assert table.moves == [move]  # once, even where the clock and the LEDs both show it
    board.push(move)
    protocol.report(TableView.of(board))
    client.clear()
    assert client.seen_fen() == client.board_fen() == board.board_fen()


@pytest.mark.parametrize("style", ["san", "uci", "leds"])
@pytest.mark.parametrize("side", ["h", "a"])
def test_chess960_castling_king_onto_rook(style: Style, side: str) -> None:
    board = chess.Board("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1", chess960=True)
    move = chess.Move.from_uci("e1g1" if side == "h" else "e1b1")
    assert board.is_castling(move)
    _, table, client = connected(board, style)
    client.show_move(board, move)
    assert table.moves == [move]


START = chess.Board()
PROMOTING = chess.Board("8/4P3/8/8/8/8/k7/7K w - - 0 1")


@pytest.mark.parametrize(
    ("board", "text", "uci"),
    [
        (START, "e2e4", "e2e4"),
        (START, "e2-e4", "e2e4"),
        (START, "E2E4", "e2e4"),
        (START, "     Nf3", "g1f3"),
        (START, "NF3", "g1f3"),  # PicoChess in capitals
        (START, "Sf3", "g1f3"),  # in German
        (START, "Cf3", "g1f3"),  # in French
        (START, "  1.Nf3", "g1f3"),  # a Revelation II's text with the move number
        (START, "g1-f3", "g1f3"),
        (PROMOTING, "e8=Q", "e7e8q"),
        (PROMOTING, "e7e8", "e7e8q"),
        (PROMOTING, "e8=N", "e7e8n"),
        (PROMOTING, "e7e8r", "e7e8r"),
        (START, "ok usb", None),
        (START, "err e2e5", None),
        (START, "e2e5", None),
        (START, "Nd2", None),  # the knight cannot
        (START, "pico 4", None),
        (START, "        ", None),
    ],
)
def test_the_app_move_is_read_from_clock_text_as_apps_write_it(
    board: chess.Board, text: str, uci: str | None
) -> None:
    _, table, client = connected(board)
    client.clock_text(text)
    assert table.moves == ([chess.Move.from_uci(uci)] if uci else [])


def test_the_xl_digits_and_the_leds_tell_the_table_what_they_show() -> None:
    _, table, client = connected()
    client.xl_text("e2 e5 ")  # not a move
    client.leds(chess.E2)  # one square lit: shown on the table, no move
    assert table.lit == [frozenset({chess.E2})] and table.moves == []
    client.leds(chess.G1, chess.F3)
    client.leds(chess.G1, chess.F3)  # lit again: the same move, named once
    client.leds()
    assert table.lit[1:] == [frozenset({chess.G1, chess.F3})] * 2 + [frozenset()]
    assert table.moves == [chess.Move.from_uci("g1f3")]
    client.xl_text("g1 f3 ")  # shown again after the app took it off: asked again
    assert table.moves == [chess.Move.from_uci("g1f3")] * 2


def test_a_lifted_piece_is_an_empty_field_and_set_down_again_a_piece() -> None:
    protocol, _, client = connected()
    seen = len(client.messages)
    protocol.report(TableView.of(chess.Board(), lifted=frozenset({chess.G1})))
    protocol.report(TableView.of(chess.Board()))
    assert client.pump() == 2
    assert client.messages[seen:] == [(FIELD_UPDATE, bytes((62, 0))), (FIELD_UPDATE, bytes((62, 3)))]
    board = chess.Board()
    board.push_san("e4")
    protocol.report(TableView.of(board))  # the emptied field first, as a hand lifts before it sets down
    assert client.pump() == 2
    assert client.messages[-2:] == [
        (FIELD_UPDATE, bytes((field(chess.E2), 0))),
        (FIELD_UPDATE, bytes((36, 1))),
    ]


@pytest.mark.parametrize(
    ("mode", "updates", "acks"),
    [(0x40, False, False), (0x43, True, True), (0x44, True, False), (0x4B, True, True)],
)
def test_update_modes_send_field_updates_and_clock_acks(mode: int, updates: bool, acks: bool) -> None:
    protocol, _, link = wire(Dgt)
    client = DgtClient(link)
    link.write(bytes((mode, 0x2B, 0x03, 0x03, 0x09, 0x00)))  # the mode, then the clock's version
    board = chess.Board()
    board.push_san("d4")
    protocol.report(TableView.of(board))
    client.pump()
    assert (client.clock_version == "2.2") is acks
    assert any(message_id == FIELD_UPDATE for message_id, _ in client.messages) is updates
    assert client.board_fen() == board.board_fen()


@pytest.mark.parametrize(
    ("command", "answer", "data"),
    [
        (b"\x45", 0x91, b"02024"),
        (b"\x55", 0xA2, b"0000002024"),
        (b"\x46", 0x90, bytes((2024 >> 7, 2024 & 0x7F))),
        (b"\x4d", 0x93, bytes((1, 7))),
        (b"\x4c", 0xA0, bytes((100, 0x7F, 0x7F, 0, 0, 0, 0, 0, 0))),
        (b"\x49", 0x8F, b"\x6b"),  # no moves stored: EE_EOF alone
        (b"\x41", BWTIME, bytes(7)),  # the clock's times, none set
    ],
)
def test_the_board_answers_every_request(command: bytes, answer: int, data: bytes) -> None:
    _, _, client = connected()
    assert client.request(command, answer) == data


def test_the_clock_reports_the_times_the_app_set() -> None:
    _, _, client = connected()
    assert client.clock(0x0A, bytes((0, 5, 0, 1, 2, 3, 0x01))) == (0x10, 0x0A, 0, 0)  # left 0:05:00 running
    times = bytes((1, 0x02, 0x03, 0, 0x05, 0x00, 0x11))  # right first, BCD; running, the left's turn
    assert client.messages[-1] == (BWTIME, times)  # sent by itself in the update mode: the times changed
    assert client.request(b"\x41", BWTIME) == times


def test_the_trademark_is_ascii_and_claims_no_dgt_product() -> None:
    _, _, client = connected()
    text = client.request(b"\x47", 0x92).decode("ascii")
    assert "chessatron" in text and "not a DGT product" in text


@pytest.mark.parametrize("command", [0x02, 0x08, 0x0B, 0x03, 0x0C])
def test_every_clock_command_gets_the_ack_of_a_dgt_3000(command: int) -> None:
    _, _, client = connected()
    content = {0x02: bytes(8), 0x0B: b"\x02", 0x0C: b"  hello \x00"}.get(command, b"")
    assert client.clock(command, content) == (0x10, command, 0, 0)


FLOOD = bytes(random.Random(38).randrange(256) for _ in range(4000))
BAD = {
    "unknown command": b"\x5a",
    "bytes with the top bit set": b"\x81\x85\xff\xc0",
    "bus mode and draughts commands": b"\x4a\x50\x54",
    "truncated clock message": b"\x2b\x0c\x03\x0c  e2e4",
    "clock message without its end byte": b"\x2b\x0c\x03\x0c    e2e4\x03\x07",
    "clock message without its start byte": b"\x2b\x0c\x01\x0c",
    "clock message of a bad size": b"\x2b\x7f",
    "clock message with a top bit byte": b"\x2b\x0c\x03\x0c  \xe5\xb2",
    "unknown clock command": b"\x2b\x03\x03\x07\x00",
    "LED command without its end byte": b"\x60\x04\x01\x0c\x1c\x05",
    "short LED command": b"\x60\x02\x01\x00",
    "a flood of garbage": FLOOD,
}


@pytest.mark.parametrize("case", BAD)
def test_bad_input_gets_silence_and_a_log_line_and_the_next_request_works(
    case: str, caplog: pytest.LogCaptureFixture
) -> None:
    protocol, table, client = connected()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="chessatron.eboard.dgt"):
        client.link.write(BAD[case])
        protocol.tick(100.0)
        protocol.tick(101.0)  # a message left half sent is forgotten
    assert caplog.records, "no log line"
    assert table.moves == []
    client.pump()
    client.link.write(b"\x4b")  # the flood may have reset the board to idle
    assert client.request(bytes((SEND_BRD,)), BOARD_DUMP)[:8] == bytes((8, 9, 10, 12, 11, 10, 9, 8))
    client.clock_text("e4")
    assert table.moves == [chess.Move.from_uci("e2e4")]


def test_an_app_heard_again_after_a_silence_is_connected_again() -> None:
    protocol, table, client = connected()
    protocol.tick(1.0)
    protocol.tick(1.0 + SILENCE / 2)
    client.request(bytes((SEND_BRD,)), BOARD_DUMP)
    protocol.tick(2.0 + SILENCE / 2)
    protocol.tick(3.0 + 2 * SILENCE)
    client.request(bytes((SEND_BRD,)), BOARD_DUMP)
    assert table.connected == ["DGT board app", "DGT board app"]
