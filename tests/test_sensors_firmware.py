"""The Arduino sketch itself, compiled for this computer against a small stand-in for the Arduino API, so the
Python model of it (``FakeArduinoBoard``) and the host's parser are checked against the real thing.

The stand-in plays a chain of 74HC165s wired as ``firmware/README.md`` says: SH/LD on D2, CLK on D3, QH of
chip 0 on D4, cell ``row * COLUMNS + column`` on input ``n % 8`` of chip ``n / 8``. Needs a C++ compiler
(``g++``); skipped without one. ``make -C firmware`` is what checks the AVR build.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import chess
import pytest

from chessatron.planning.layout import Cell, Layout
from chessatron.sensors.arduino import REQUEST, parse_reply
from chessatron.sensors.fakes import FakeArduinoBoard
from chessatron.sim.twin import TwinPiece
from chessatron.sim.world import SimWorld

SKETCH = Path(__file__).resolve().parents[1] / "firmware" / "chessatron_sensors" / "chessatron_sensors.ino"
COMPILER = shutil.which("g++")

ARDUINO_H = r"""
#pragma once
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define HIGH 1
#define LOW 0
#define INPUT 0
#define OUTPUT 1
#define F(text) (text)

// The 74HC165 chain: levels[i] is the i-th bit QH shows after a latch (chip 0's input H first).
static char levels[4096];
static int position = 0;
static bool done = false;

inline void pinMode(uint8_t, uint8_t) {}
inline void delayMicroseconds(unsigned int) {}
inline void digitalWrite(uint8_t pin, uint8_t value) {
  if (pin == 2 && value == LOW) position = 0;  // SH/LD low: latch the inputs
  if (pin == 3 && value == HIGH) ++position;   // CLK rising edge: shift by one
}
inline int digitalRead(uint8_t pin) {
  if (pin != 4) { fprintf(stderr, "read of pin %d\n", pin); exit(2); }
  return levels[position] == '0' ? LOW : HIGH;  // past the chain: SER tied high
}

struct FakeSerial {
  void begin(long) {}
  int available() {
    int c = getchar();
    if (c == EOF) { done = true; return 0; }
    ungetc(c, stdin);
    return 1;
  }
  int read() { return getchar(); }
  void print(const char* text) { fputs(text, stdout); }
  void print(char c) { putchar(c); }
  void print(int value) { printf("%d", value); }
  void print(unsigned int value) { printf("%u", value); }
  void println() { fputs("\r\n", stdout); }
  template <typename T> void println(T value) { print(value); println(); }
};
static FakeSerial Serial;
"""

MAIN = r"""
#include "Arduino.h"
#include SKETCH_PATH
int main(int argc, char** argv) {
  memset(levels, '1', sizeof levels);
  if (argc > 1) memcpy(levels, argv[1], strlen(argv[1]));
  setup();
  while (!done) loop();
  return 0;
}
"""

pytestmark = pytest.mark.skipif(
    COMPILER is None, reason="no C++ compiler (g++) to build the sketch for the host"
)


@pytest.fixture(scope="module")
def sketch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sketch")
    (folder / "Arduino.h").write_text(ARDUINO_H, encoding="utf-8")
    (folder / "main.cpp").write_text(MAIN, encoding="utf-8")
    program = folder / "chessatron_sensors"
    assert COMPILER is not None
    subprocess.run(
        [
            COMPILER,
            "-std=gnu++11",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{folder}",
            f'-DSKETCH_PATH="{SKETCH}"',
            str(folder / "main.cpp"),
            "-o",
            str(program),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return program


def chain(world: SimWorld) -> str:
    """The levels QH shows bit by bit, from the wiring in firmware/README.md (0 = a magnet pulls low)."""
    layout = world.layout
    occupied = world.occupied_cells()
    cells = layout.columns * layout.rows
    bits = []
    for chip in range((cells + 7) // 8):
        for bit in range(7, -1, -1):  # input H first
            n = chip * 8 + bit
            cell: Cell = (n % layout.columns, n // layout.columns)
            bits.append("0" if n < cells and cell in occupied else "1")
    return "".join(bits)


def run(sketch: Path, world: SimWorld, requests: bytes) -> bytes:
    done = subprocess.run(
        [str(sketch), chain(world)], input=requests, capture_output=True, timeout=10, check=True
    )
    return done.stdout


def model(world: SimWorld, requests: bytes) -> bytes:
    board = FakeArduinoBoard(world)
    board.write(requests)
    return board.read(100_000)


def test_the_sketch_reports_the_start_position(sketch: Path, layout: Layout) -> None:
    world = SimWorld(layout)
    reply = run(sketch, world, REQUEST).decode("ascii")
    assert reply.endswith("\r\nend 42\r\n")
    assert parse_reply(reply.splitlines()).occupied == world.occupied_cells()


def test_the_python_model_answers_byte_for_byte_as_the_sketch(sketch: Path, layout: Layout) -> None:
    world = SimWorld(layout)
    for square, cell in ((chess.E2, layout.square_cell(chess.E4)), (chess.B8, (11, 9)), (chess.H1, (0, 0))):
        piece = world.twin.piece_at(*layout.node_mm(layout.square_node(square)))
        assert piece is not None
        world.twin.place(TwinPiece(piece.id, piece.symbol, *layout.node_mm(layout.cell_node(cell))))
    requests = b"chessatron\n\r\nhello\nchessatron\r\n" + b"x" * 40 + b"\n"
    assert run(sketch, world, requests) == model(world, requests)


def test_unknown_requests_get_an_error_line_and_empty_lines_nothing(sketch: Path, layout: Layout) -> None:
    world = SimWorld(layout)
    assert run(sketch, world, b"\r\n\nhello\n" + b"y" * 40 + b"\n") == b"error unknown command\r\n" * 2
