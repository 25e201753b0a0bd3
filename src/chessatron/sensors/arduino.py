"""An Arduino reading every cell's sensor and reporting on request: ``arduino:///dev/ttyACM0?baud=115200``.

The sketch is ``firmware/chessatron_sensors``. The protocol is lines of ASCII; the host asks, the board
answers the whole table at once::

    host:  chessatron\\n
    board: chessatron 1 12 10\\r\\n          protocol version, columns, rows
           0,1,0,0,0,0,0,0,0,0,1,1\\r\\n     the top row (row 9) first, column 0 first; 1 = a piece
           …                                one line per row, down to row 0
           end 42\\r\\n                      how many 1s the rows hold: a check on the rows

The host reads strictly: a line that breaks this grammar, or an ``end`` count that disagrees with the
rows, makes the reply garbled. A garbled reply is logged and the question asked once more; a second
garbled reply raises :class:`SensorReplyError`. Silence raises :class:`SensorTimeoutError`. A board that
reports a grid of another size than the layout's raises :class:`ConfigError`: it runs a sketch built
for another table.

The protocol logic (:func:`parse_reply` and friends) does no I/O; :class:`ArduinoSensor` is the thin
driver around it.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..errors import ConfigError, SensorError, SensorReplyError, SensorTimeoutError
from ..i18n import N_, _
from ..planning.layout import Cell, Layout
from ..ports import DeviceUrl, Occupancy
from ..serialurl import check_serial_url
from .options import check_options, positive_integer, seconds
from .serialbase import SerialPort, SerialSensor, open_port, port_url

LOGGER = logging.getLogger(__name__)

REQUEST = b"chessatron\n"
PROTOCOL_VERSION = 1
DEFAULT_BAUD = 115200
OPTIONS = ("baud", "timeout", "boot")

_HEADER = re.compile(r"chessatron (\d+) (\d+) (\d+)")
_END = re.compile(r"end (\d+)")
_T = TypeVar("_T")

_READ_FAILED = N_("{name} could not be read from ({error}); check that it is plugged in")


@dataclass(frozen=True)
class Reply:
    """One answer of the board: its grid size and the cells it reports occupied."""

    columns: int
    rows: int
    occupied: frozenset[Cell]


def parse_header(line: str) -> tuple[int, int]:
    """Columns and rows from ``chessatron 1 12 10``; raises :class:`SensorReplyError`."""
    match = _HEADER.fullmatch(line)
    if match is None:
        raise SensorReplyError(
            _("expected a header like 'chessatron 1 12 10', got {line!r}").format(line=line)
        )
    version, columns, rows = (int(group) for group in match.groups())
    if version != PROTOCOL_VERSION:
        raise SensorReplyError(
            _(
                "the board speaks protocol version {version}, this host version {ours}; flash "
                "firmware/chessatron_sensors from this release"
            ).format(version=version, ours=PROTOCOL_VERSION)
        )
    if not (0 < columns <= 64 and 0 < rows <= 64):
        raise SensorReplyError(
            _("the header {line!r} announces a {columns} x {rows} grid").format(
                line=line, columns=columns, rows=rows
            )
        )
    return columns, rows


def parse_row(line: str, columns: int) -> tuple[int, ...]:
    """The 0/1 values of one row line such as ``0,1,1``; raises :class:`SensorReplyError`."""
    values = line.split(",")
    if len(values) != columns or any(value not in ("0", "1") for value in values):
        raise SensorReplyError(
            _("expected a row of {columns} comma-separated 0s and 1s, got {line!r}").format(
                columns=columns, line=line
            )
        )
    return tuple(int(value) for value in values)


def parse_end(line: str) -> int:
    """The occupied count of the closing ``end 42`` line; raises :class:`SensorReplyError`."""
    match = _END.fullmatch(line)
    if match is None:
        raise SensorReplyError(_("expected the closing line 'end N', got {line!r}").format(line=line))
    return int(match[1])


def parse_reply(lines: Sequence[str]) -> Reply:
    """A whole reply, line ends removed; raises :class:`SensorReplyError` if any line is garbled."""
    if not lines:
        raise SensorReplyError(_("the reply is empty"))
    columns, rows = parse_header(lines[0])
    if len(lines) != rows + 2:
        raise SensorReplyError(
            _("a {columns} x {rows} reply has {wanted} lines, this one {count}").format(
                columns=columns, rows=rows, wanted=rows + 2, count=len(lines)
            )
        )
    occupied: list[Cell] = []
    for offset, line in enumerate(lines[1 : rows + 1]):
        row = rows - 1 - offset  # the top row comes first
        values = parse_row(line, columns)
        occupied.extend((column, row) for column, value in enumerate(values) if value)
    count = parse_end(lines[-1])
    if count != len(occupied):
        raise SensorReplyError(
            _("the rows hold {found} pieces but the board counted {count}").format(
                found=len(occupied), count=count
            )
        )
    return Reply(columns, rows, frozenset(occupied))


class ArduinoSensor(SerialSensor):
    """Occupancy of the whole table from an Arduino running ``firmware/chessatron_sensors``.

    The sensor owns ``port`` and closes it. ``name`` names the port in messages. Raises
    :class:`SensorError` when the port fails, :class:`SensorTimeoutError` when the board stays silent,
    :class:`SensorReplyError` when it answers garbled twice running, and :class:`ConfigError` when its
    grid is not the layout's.
    """

    def __init__(self, port: SerialPort, layout: Layout, *, name: str | None = None) -> None:
        super().__init__(port, _("the sensor board") if name is None else name)
        self.columns, self.rows = layout.columns, layout.rows
        self.covered_cells: frozenset[Cell] = frozenset(layout.cells())

    def scan(self) -> Occupancy:
        """Ask the board once (twice if the first answer is garbled) and return the cells it reports."""
        try:
            return self._exchange()
        except SensorReplyError as exc:
            LOGGER.warning("garbled reply from %s, asking again: %s", self.name, exc)
            self.flush()
        try:
            return self._exchange()
        except SensorReplyError as exc:
            raise SensorReplyError(
                _(
                    "{name} answered garbled twice running ({error}); check that baud= matches the sketch "
                    "({baud} unless changed), the USB cable, and that it runs firmware/chessatron_sensors"
                ).format(name=self.name, error=exc, baud=DEFAULT_BAUD)
            ) from exc

    def _exchange(self) -> Occupancy:
        port = self._open_port()
        self._io(
            lambda: port.write(REQUEST),
            N_("{name} could not be written to ({error}); check that it is plugged in"),
        )
        lines = [self._line(port, _("the header"))]
        try:
            columns, rows = parse_header(lines[0])
        except SensorReplyError:
            if not lines[0].startswith("error"):  # the sketch's error answer is one line
                self._skip_reply(port)
            raise
        if (columns, rows) != (self.columns, self.rows):
            raise ConfigError(
                _(
                    "{name} reports a {columns} x {rows} grid but the layout's table is {table_columns} x "
                    "{table_rows}; set COLUMNS and ROWS in chessatron_sensors.ino to the table's and flash "
                    "it "
                    "again"
                ).format(
                    name=self.name,
                    columns=columns,
                    rows=rows,
                    table_columns=self.columns,
                    table_rows=self.rows,
                )
            )
        for row in range(rows):
            lines.append(self._line(port, _("row {row}").format(row=rows - 1 - row)))
        lines.append(self._line(port, _("the closing 'end' line")))
        return parse_reply(lines).occupied

    def _line(self, port: SerialPort, what: str) -> str:
        raw = self._io(port.readline, _READ_FAILED)
        if not raw.endswith(b"\n"):
            seconds_text = "?" if port.timeout is None else f"{port.timeout:g}"
            text = (
                _(
                    "{name} did not send {what} within {seconds} s; it sent only {got!r}; check the USB "
                    "cable "
                    "and that it runs firmware/chessatron_sensors at the same baud rate"
                )
                if raw
                else _(
                    "{name} did not send {what} within {seconds} s; check the USB cable and that it runs "
                    "firmware/chessatron_sensors at the same baud rate"
                )
            )
            raise SensorTimeoutError(text.format(name=self.name, what=what, seconds=seconds_text, got=raw))
        return raw.decode("ascii", errors="replace").rstrip("\r\n")

    def flush(self) -> None:
        """Drop whatever the board has sent and the host has not read."""
        port = self._open_port()
        self._io(
            port.reset_input_buffer, N_("{name} could not be flushed ({error}); check that it is plugged in")
        )

    def _skip_reply(self, port: SerialPort) -> None:
        # Out of step: read past the rest of this answer, so the next one starts on its header.
        while True:
            raw = self._io(port.readline, _READ_FAILED)
            if not raw.endswith(b"\n") or raw.startswith(b"end"):
                return

    def _io(self, action: Callable[[], _T], failed: str) -> _T:
        """``action()``; an OSError becomes a :class:`SensorError` saying ``failed`` (a message with
        ``{name}`` and ``{error}``)."""
        try:
            return action()
        except OSError as exc:
            raise SensorError(_(failed).format(name=self.name, error=exc)) from exc

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<ArduinoSensor {self.name} {self.columns}x{self.rows} {state}>"


def open_arduino(
    url: DeviceUrl,
    layout: Layout,
    *,
    port: SerialPort | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> ArduinoSensor:
    """The sensor an ``arduino://PORT?baud=115200&timeout=0.5&boot=3`` URL describes, checked by a first scan.

    ``timeout`` is how long to wait for each line of an answer; ``boot`` how long to keep asking while the
    board starts (opening the port resets an Uno or Nano, whose bootloader takes up to two seconds). ``port``
    replaces the serial port, e.g. with a fake in tests; ``boot`` then defaults to 0.
    """
    target, baud, timeout, boot = arduino_settings(url, given_port=port is not None)
    if port is None:
        port = open_port(target, baudrate=baud, timeout=timeout, what=N_("the arduino sensor board"))
    elif "timeout" in url.params:
        port.timeout = timeout
    sensor = ArduinoSensor(port, layout, name=_("the sensor board at {port!r}").format(port=target))
    try:
        deadline = clock() + boot
        while True:
            try:
                sensor.scan()
                break
            except SensorTimeoutError:
                if clock() >= deadline:
                    raise
                sensor.flush()
    except BaseException:
        sensor.close()
        raise
    return sensor


def arduino_settings(url: DeviceUrl, *, given_port: bool = False) -> tuple[str, int, float, float]:
    """The port, baud rate, reply timeout and boot time (seconds) an ``arduino://`` URL names, opening
    nothing (``boot`` defaults to 0 for a ``given_port``). Raises :class:`ConfigError`."""
    check_options(url, OPTIONS, "arduino:///dev/ttyACM0?baud=115200")
    baud = positive_integer(url, "baud", DEFAULT_BAUD)
    timeout = seconds(url, "timeout", 0.5)
    boot = seconds(url, "boot", 0.0 if given_port else 3.0)
    target = port_url(url)
    check_serial_url(target)
    return target, baud, timeout, boot
