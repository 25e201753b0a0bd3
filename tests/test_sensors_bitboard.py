"""The bitboard backend: LiBoard's bit and byte order, frames split and lost on the wire, and a board that
has sent nothing yet."""

from __future__ import annotations

import logging

import chess
import pytest

from chessatron.errors import ConfigError, SensorTimeoutError
from chessatron.planning.layout import Layout
from chessatron.planning.table import Table
from chessatron.sensors import BitboardSensor, open_sensor
from chessatron.sensors.bitboard import FrameDecoder, frame_bytes, squares
from chessatron.sensors.fakes import FakeLiBoard
from chessatron.sim.twin import TwinPiece
from chessatron.sim.world import SimWorld

A1_AND_H8 = b"\x80\x00\x00\x00\x00\x00\x00\x01"  # as LiBoard's firmware sends it: rank 8's byte first


@pytest.fixture
def world(layout: Layout) -> SimWorld:
    return SimWorld(layout, name="bitboard")


@pytest.fixture
def empty(layout: Layout) -> SimWorld:
    return SimWorld(layout, Table(layout, []), name="bitboard-empty")


def bitboard(board: FakeLiBoard, options: str = "") -> BitboardSensor:
    sensor = open_sensor(f"bitboard:///dev/ttyUSB0?{options}", board.world.layout, port=board)
    assert isinstance(sensor, BitboardSensor)
    return sensor


def cells(layout: Layout, *names: str) -> frozenset[tuple[int, int]]:
    return frozenset(layout.square_cell(chess.parse_square(name)) for name in names)


def test_bit_zero_is_a1_and_the_start_position_is_liboards() -> None:
    assert squares(0xFFFF00000000FFFF) == chess.SquareSet(
        chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_7 | chess.BB_RANK_8
    )
    assert squares(1 << 28) == {chess.E4}
    assert frame_bytes(1 << 28) == b"\x00\x00\x00\x00\x10\x00\x00\x00"
    assert frame_bytes(1 << 28, "little") == b"\x00\x00\x00\x10\x00\x00\x00\x00"


@pytest.mark.parametrize(("order", "expected"), [("big", ("a1", "h8")), ("little", ("h1", "a8"))])
def test_the_byte_order_decides_which_squares_the_bytes_mean(
    order: str, expected: tuple[str, ...], empty: SimWorld
) -> None:
    board = FakeLiBoard(empty)
    board.send(A1_AND_H8)
    assert bitboard(board, f"order={order}").scan() == cells(empty.layout, *expected)


def test_a_board_sending_a1_first_is_read_with_order_little(world: SimWorld) -> None:
    layout = world.layout
    move = [layout.square_cell(s) for s in (chess.E2, chess.E4)]
    pawn = world.twin.piece_at(*layout.node_mm(layout.cell_node(move[0])))
    assert pawn is not None
    world.twin.place(TwinPiece(pawn.id, "P", *layout.node_mm(layout.cell_node(move[1]))))
    sensor = bitboard(FakeLiBoard(world, order="little"), "order=little")
    assert sensor.scan() == world.occupied_cells() & set(layout.board_cells())


def test_the_decoder_cuts_frames_from_any_chunks() -> None:
    decoder = FrameDecoder()
    stream = frame_bytes(1) + frame_bytes(2) + frame_bytes(3)
    assert decoder.feed(stream[:5]) == []
    assert decoder.feed(stream[5:17]) == [1, 2]
    assert decoder.pending == 1
    assert decoder.feed(stream[17:]) == [3]
    assert decoder.feed(b"\x01\x02") == []
    assert decoder.drop() == b"\x01\x02"
    assert decoder.pending == 0


def test_a_partial_frame_followed_by_silence_is_dropped(
    world: SimWorld, caplog: pytest.LogCaptureFixture
) -> None:
    layout = world.layout
    board = FakeLiBoard(world)
    sensor = bitboard(board)
    start = sensor.scan()
    board.send(b"\x00\x00\x10")  # three bytes of a frame whose rest was lost
    with caplog.at_level(logging.WARNING, logger="chessatron.sensors.bitboard"):
        assert sensor.scan() == start
    assert "dropped the partial frame b'\\x00\\x00\\x10'" in caplog.text
    pawn = world.twin.piece_at(*layout.node_mm(layout.square_node(chess.D2)))
    assert pawn is not None
    world.twin.lift(pawn.id)
    assert sensor.scan() == start - cells(layout, "d2")  # back in step with the next frame


def test_a_frame_whose_rest_arrives_within_the_gap_is_kept(empty: SimWorld) -> None:
    board = FakeLiBoard(empty)
    sensor = bitboard(board)
    board.send(A1_AND_H8)
    assert sensor.scan() == cells(empty.layout, "a1", "h8")
    frame = frame_bytes(1 << chess.E4)
    board.send(frame[:5])
    board.send_later(frame[5:])
    assert sensor.scan() == cells(empty.layout, "e4")


def test_only_the_latest_frame_counts(world: SimWorld) -> None:
    board = FakeLiBoard(world)
    sensor = bitboard(board)
    sensor.scan()
    for bits in (1, 2, 1 << chess.C3):
        board.send(frame_bytes(bits))
    assert sensor.scan() == cells(world.layout, "c3")
    assert sensor.bits == 1 << chess.C3


def test_a_device_that_never_stops_talking_does_not_hold_the_scan(world: SimWorld) -> None:
    class Chatty(FakeLiBoard):
        def _tick(self) -> None:
            super()._tick()
            self.send(frame_bytes(1 << chess.A5))

    assert bitboard(Chatty(world)).scan() == cells(world.layout, "a5")


def test_a_board_that_sends_nothing_times_out_with_a_hint(empty: SimWorld) -> None:
    board = FakeLiBoard(empty)
    sensor = bitboard(board, "wait=0.2")
    with pytest.raises(SensorTimeoutError) as caught:
        sensor.scan()
    message = str(caught.value)
    assert message.startswith("the bitboard at '/dev/ttyUSB0' sent no frame within 0.2 s")
    assert "put a piece on it" in message
    board.send(frame_bytes(1 << chess.G7))
    assert sensor.scan() == cells(empty.layout, "g7")  # and it works once the board speaks


def test_a_partial_first_frame_is_dropped_and_the_next_one_read(empty: SimWorld) -> None:
    board = FakeLiBoard(empty)
    sensor = bitboard(board, "wait=0.2")
    board.send(b"\xff\xff")
    with pytest.raises(SensorTimeoutError):
        sensor.scan()
    board.send(A1_AND_H8)
    assert sensor.scan() == cells(empty.layout, "a1", "h8")


def test_the_gap_option_sets_the_inter_byte_timeout(world: SimWorld) -> None:
    board = FakeLiBoard(world)
    bitboard(board, "gap=0.02")
    assert board.timeout == 0.02


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ("order=middle", "order='middle' in a bitboard:// URL is not a byte order"),
        ("gap=0", "gap=0 in a bitboard:// URL leaves no time between bytes"),
        ("baud=fast", "baud='fast' in a bitboard:// URL is not a number"),
        ("wait=-1", "wait='-1'"),
        ("timeout=1", "unknown option 'timeout'"),
    ],
)
def test_a_wrong_option_is_a_config_error(options: str, words: str, world: SimWorld) -> None:
    board = FakeLiBoard(world)
    with pytest.raises(ConfigError) as caught:
        bitboard(board, options)
    assert words in str(caught.value)
    assert board.closed
