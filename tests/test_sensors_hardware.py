"""Real sensor hardware, when an environment variable names it and the table is set up for a new game:

    CHESSATRON_HW_SENSORS=arduino:///dev/ttyACM0 .venv/bin/pytest tests/test_sensors_hardware.py

``CHESSATRON_HW_LAYOUT`` names the table's layout file (the built-in table by default). The pieces must
stand as at the start of a game, spares in the reserve; the test reads the sensor and asks nothing of
the person at the table.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import chess
import pytest

from chessatron.planning.layout import Layout
from chessatron.sensors import SensorDevice, open_sensor
from chessatron.sensors.names import cell_name

URL = os.environ.get("CHESSATRON_HW_SENSORS")

pytestmark = pytest.mark.skipif(
    not URL, reason="set CHESSATRON_HW_SENSORS to a sensor URL to test real hardware"
)


@pytest.fixture
def table() -> Layout:
    path = os.environ.get("CHESSATRON_HW_LAYOUT")
    return Layout.from_toml(path) if path else Layout.default()


@pytest.fixture
def sensor(table: Layout) -> Iterator[SensorDevice]:
    assert URL is not None
    with open_sensor(URL, table) as opened:
        yield opened


def test_the_start_position_is_seen(sensor: SensorDevice, table: Layout) -> None:
    covered = sensor.covered_cells
    board = {table.square_cell(chess.square(f, r)) for f in range(8) for r in (0, 1, 6, 7)}
    expected = (board | {slot.cell for slot in table.reserve}) & covered
    seen = sensor.scan()
    missing = sorted(cell_name(c, table) for c in expected - seen)
    extra = sorted(cell_name(c, table) for c in seen - expected)
    assert not missing and not extra, f"sensors missing pieces on {missing}, seeing pieces on {extra}"


def test_ten_scans_agree(sensor: SensorDevice) -> None:
    first = sensor.scan()
    assert all(sensor.scan() == first for _ in range(10))
