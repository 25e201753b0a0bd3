"""The Arduino backend: the reply grammar, garbled and missing replies, the board's boot, and real pyserial
ports (``loop://``, an unused socket) where no Arduino answers."""

from __future__ import annotations

import logging

import chess
import pytest

from chessatron.errors import ConfigError, ProtocolError, SensorError, SensorReplyError, SensorTimeoutError
from chessatron.planning.layout import Layout
from chessatron.sensors import ArduinoSensor, open_sensor
from chessatron.sensors.arduino import Reply, parse_reply
from chessatron.sensors.fakes import FakeArduinoBoard
from chessatron.sim.world import SimWorld

REPLY = ["chessatron 1 3 2", "0,1,1", "1,0,0", "end 3"]


@pytest.fixture
def world(layout: Layout) -> SimWorld:
    return SimWorld(layout, name="arduino")


def arduino(board: FakeArduinoBoard, options: str = "") -> ArduinoSensor:
    sensor = open_sensor(f"arduino:///dev/ttyACM0?{options}", board.world.layout, port=board)
    assert isinstance(sensor, ArduinoSensor)
    return sensor


def test_a_reply_lists_the_top_row_first() -> None:
    assert parse_reply(REPLY) == Reply(3, 2, frozenset({(1, 1), (2, 1), (0, 0)}))


@pytest.mark.parametrize(
    ("index", "line", "words"),
    [
        (0, "chessatron 12 10", "expected a header like 'chessatron 1 12 10'"),
        (0, "chessatron 2 3 2", "protocol version 2, this host version 1; flash"),
        (1, "0,1", "expected a row of 3 comma-separated 0s and 1s, got '0,1'"),
        (1, "0,1,2", "got '0,1,2'"),
        (1, "0, 1,1", "got '0, 1,1'"),
        (1, "011", "got '011'"),
        (2, "", "got ''"),
        (3, "end", "expected the closing line 'end N', got 'end'"),
        (3, "end 4", "the rows hold 3 pieces but the board counted 4"),
    ],
)
def test_a_garbled_line_is_named(index: int, line: str, words: str) -> None:
    lines = list(REPLY)
    lines[index] = line
    with pytest.raises(SensorReplyError) as caught:
        parse_reply(lines)
    assert words in str(caught.value)


def test_a_reply_with_a_row_too_many_or_too_few_is_garbled() -> None:
    with pytest.raises(SensorReplyError, match="has 4 lines, this one 5"):
        parse_reply([*REPLY[:2], "0,0,0", *REPLY[2:]])
    with pytest.raises(SensorReplyError, match="has 4 lines, this one 3"):
        parse_reply([REPLY[0], REPLY[1], REPLY[3]])


def test_one_garbled_reply_is_asked_again_and_reported(
    world: SimWorld, caplog: pytest.LogCaptureFixture
) -> None:
    board = FakeArduinoBoard(world)
    sensor = arduino(board)
    requests = board.requests
    board.garble("1,1,1,1,1,1,x,1,1,1,1,1")
    with caplog.at_level(logging.WARNING, logger="chessatron.sensors.arduino"):
        assert sensor.scan() == world.occupied_cells()
    assert board.requests == requests + 2
    assert "garbled reply from the sensor board at '/dev/ttyACM0'" in caplog.text
    assert "'1,1,1,1,1,1,x,1,1,1,1,1'" in caplog.text


def test_a_flipped_bit_is_caught_by_the_count(world: SimWorld) -> None:
    board = FakeArduinoBoard(world)
    sensor = arduino(board)
    board.garble("1,1,1,1,1,1,1,1,1,1,1,1")  # row 4 is empty on the table: twelve false pieces
    assert sensor.scan() == world.occupied_cells()


def test_garbled_twice_running_is_an_error(world: SimWorld) -> None:
    board = FakeArduinoBoard(world)
    sensor = arduino(board)
    board.garble("1,0", "0,0,0")
    with pytest.raises(SensorReplyError) as caught:
        sensor.scan()
    message = str(caught.value)
    assert message.startswith("the sensor board at '/dev/ttyACM0' answered garbled twice running")
    assert "got '0,0,0'" in message
    assert "baud=" in message
    assert isinstance(caught.value, ProtocolError) and isinstance(caught.value, SensorError)
    assert sensor.scan() == world.occupied_cells()  # and the next scan is fine again


def test_an_unknown_command_reply_is_garbled(world: SimWorld) -> None:
    board = FakeArduinoBoard(world)
    sensor = arduino(board)
    board.write(b"hello\n")  # someone typed into the port
    assert sensor.scan() == world.occupied_cells()


def test_a_silent_board_times_out_and_the_port_is_closed(world: SimWorld) -> None:
    board = FakeArduinoBoard(world, ignore=1000)
    with pytest.raises(SensorTimeoutError) as caught:
        arduino(board, "timeout=0.2")
    message = str(caught.value)
    assert "the sensor board at '/dev/ttyACM0' did not send the header within 0.2 s" in message
    assert "firmware/chessatron_sensors" in message
    assert isinstance(caught.value, TimeoutError)
    assert board.closed


def test_the_host_keeps_asking_while_the_board_boots(world: SimWorld) -> None:
    board = FakeArduinoBoard(world, ignore=3)  # its bootloader swallows three requests
    sensor = arduino(board, "boot=5")
    assert board.requests == 4
    assert sensor.scan() == world.occupied_cells()


def test_a_board_built_for_another_table_is_a_config_error(world: SimWorld) -> None:
    board = FakeArduinoBoard(world, columns=8, rows=8)
    with pytest.raises(
        ConfigError, match="reports a 8 x 8 grid but the layout's table is 12 x 10; set COLUMNS"
    ):
        arduino(board)
    assert board.closed


def test_a_reply_out_of_step_is_skipped(world: SimWorld) -> None:
    board = FakeArduinoBoard(world)
    sensor = arduino(board)
    board.write(b"chessatron\n")  # a reply nobody reads to the end …
    board.readline()
    board.readline()
    assert sensor.scan() == world.occupied_cells()  # … is read past to its end line, then asked again


def test_a_reply_cut_short_times_out(world: SimWorld) -> None:
    board = FakeArduinoBoard(world)
    sensor = arduino(board)
    board.ignore = 1
    board.send(b"chessatron 1 12 10\r\n1,1,0")  # the board reset in the middle of its answer
    with pytest.raises(SensorTimeoutError, match=r"did not send row 9 within 0.5 s; it sent only b'1,1,0'"):
        sensor.scan()


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("arduino:///dev/ttyACM0?baudrate=9600", "unknown option 'baudrate'"),
        ("arduino:///dev/ttyACM0?baud=0", "baud='0' in a arduino:// URL must be a positive whole number"),
        (
            "arduino:///dev/ttyACM0?timeout=-1",
            "timeout='-1' in a arduino:// URL must be zero or more seconds",
        ),
        ("arduino://", "a arduino:// URL needs a port"),
        ("/dev/ttyACM0", "write arduino:///dev/ttyACM0 or bitboard:///dev/ttyACM0"),
        ("hall://1", "unknown sensor URL scheme 'hall'"),
        ("sim+socket://x", "only serial sensors"),
    ],
)
def test_a_wrong_url_is_a_config_error(url: str, words: str, layout: Layout) -> None:
    with pytest.raises(ConfigError) as caught:
        open_sensor(url, layout)
    assert words in str(caught.value)


def test_an_injected_object_for_another_backend_is_refused(world: SimWorld) -> None:
    with pytest.raises(TypeError, match="port= is for arduino:// and bitboard:// sensors, not sim://"):
        open_sensor("sim://", world.layout, port=FakeArduinoBoard(world))


def test_a_port_that_only_echoes_is_garbled_through_real_pyserial(layout: Layout) -> None:
    with pytest.raises(SensorReplyError, match="got 'chessatron'"):
        open_sensor("arduino+loop://?timeout=0.01&boot=0", layout)


def test_a_port_that_cannot_be_opened_is_a_sensor_error(layout: Layout) -> None:
    with pytest.raises(SensorError, match="cannot open the arduino sensor board at '/dev/chessatron-none'"):
        open_sensor("arduino:///dev/chessatron-none", layout)
    with pytest.raises(SensorError, match="socket://localhost:1"):
        open_sensor("arduino+socket://localhost:1?timeout=0.1", layout)


def test_the_board_sees_the_capture_zones_and_reserve(world: SimWorld) -> None:
    layout = world.layout
    sensor = arduino(FakeArduinoBoard(world))
    seen = sensor.scan()
    assert {slot.cell for slot in layout.reserve} <= seen
    assert layout.square_cell(chess.E1) in seen
