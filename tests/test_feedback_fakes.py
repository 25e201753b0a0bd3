"""Fakes of the vendor hardware the feedback and magnet backends drive, and checks that the fakes
behave like the libraries they stand in for (so a backend passing against them is not fooled).

- :class:`FakeCharLCD` behaves like ``RPLCD.i2c.CharLCD`` (its cursor, its screen, its close).
- :func:`fake_rpi_ws281x` is a stand-in ``rpi_ws281x`` module whose ``PixelStrip`` records its arguments.
- :func:`mock_pin_factory` installs gpiozero's ``MockFactory`` with PWM-capable pins and restores the
  previous factory afterwards.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from chessatron.feedback.display import LcdSettings
from chessatron.feedback.leds import SimPixelStrip


class FakeCharLCD:
    """A character LCD as RPLCD drives it: a ``rows`` x ``cols`` screen, a cursor, a backlight.

    Like the real HD44780 (and RPLCD with ``auto_linebreaks=False``), characters written past the end
    of a row go to memory nobody sees; they are kept in ``offscreen``. Non-ASCII characters raise:
    the backend must make text ASCII before it gets here. ``fail`` makes the next bus access raise
    ``OSError`` as a pulled cable does.
    """

    def __init__(self, settings: LcdSettings) -> None:
        self.settings = settings
        self.cols, self.rows = settings.cols, settings.rows
        self.screen = [[" "] * self.cols for _ in range(self.rows)]
        self.offscreen: list[str] = []
        self._cursor = (0, 0)
        self.backlight_enabled = settings.backlight
        self.written = 0
        self.closed = False
        self.fail = False

    @property
    def cursor_pos(self) -> tuple[int, int]:
        return self._cursor

    @cursor_pos.setter
    def cursor_pos(self, value: tuple[int, int]) -> None:
        self._bus()
        row, col = value
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"Cursor position {value!r} invalid on a {self.rows}x{self.cols} LCD.")
        self._cursor = value

    def write_string(self, value: str) -> None:
        self._bus()
        for char in value:
            if not " " <= char <= "~":
                raise UnicodeEncodeError("hd44780", char, 0, 1, "not on the character ROM")
            row, col = self._cursor
            if col < self.cols:
                self.screen[row][col] = char
            else:
                self.offscreen.append(char)
            self.written += 1
            self._cursor = (row, col + 1)

    def clear(self) -> None:
        self._bus()
        self.screen = [[" "] * self.cols for _ in range(self.rows)]
        self._cursor = (0, 0)

    def close(self, clear: bool = False) -> None:
        if clear:
            self.clear()
        self.closed = True

    def text(self) -> list[str]:
        """What a person reads on the screen, row by row."""
        return ["".join(row) for row in self.screen]

    def _bus(self) -> None:
        if self.fail:
            raise OSError(121, "Remote I/O error")


def fake_rpi_ws281x() -> types.ModuleType:
    """A stand-in ``rpi_ws281x`` module: ``PixelStrip`` takes the real signature and records it."""
    module = types.ModuleType("rpi_ws281x")
    ws = types.SimpleNamespace(
        WS2811_STRIP_RGB=0x100800,
        WS2811_STRIP_RBG=0x100008,
        WS2811_STRIP_GRB=0x081000,
        WS2811_STRIP_GBR=0x080010,
        WS2811_STRIP_BRG=0x001008,
        WS2811_STRIP_BGR=0x000810,
    )
    built: list[dict[str, Any]] = []

    class PixelStrip(SimPixelStrip):
        def __init__(
            self,
            num: int,
            pin: int,
            freq_hz: int = 800000,
            dma: int = 10,
            invert: bool = False,
            brightness: int = 255,
            channel: int = 0,
            strip_type: int | None = None,
            gamma: list[int] | None = None,
        ) -> None:
            super().__init__(num)
            built.append(
                {
                    "num": num,
                    "pin": pin,
                    "freq_hz": freq_hz,
                    "dma": dma,
                    "invert": invert,
                    "brightness": brightness,
                    "channel": channel,
                    "strip_type": strip_type,
                }
            )

    module.PixelStrip = PixelStrip  # type: ignore[attr-defined]
    module.ws = ws  # type: ignore[attr-defined]
    module.built = built  # type: ignore[attr-defined]
    return module


@contextmanager
def mock_pin_factory(*, pwm: bool = True) -> Iterator[Any]:
    """gpiozero's MockFactory as the default pin factory, for the duration. With ``pwm`` every pin can
    do PWM (a buzzer, a servo); without, pins are plain MockPins, which (unlike MockPWMPins) keep their
    last level when a device lets go of them, as a real pin does."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin

    saved = Device.pin_factory
    factory = MockFactory(pin_class=MockPWMPin if pwm else MockPin)
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


# --- the fakes behave like the real thing ----------------------------------------------------------


def test_fake_lcd_rejects_a_cursor_off_the_screen_like_rplcd() -> None:
    lcd = FakeCharLCD(LcdSettings(cols=16, rows=2))
    with pytest.raises(ValueError, match="invalid"):
        lcd.cursor_pos = (2, 0)
    lcd.cursor_pos = (1, 14)
    lcd.write_string("abcd")
    assert lcd.text() == [" " * 16, " " * 14 + "ab"] and lcd.offscreen == ["c", "d"]


def test_fake_lcd_refuses_text_the_rom_cannot_show() -> None:
    lcd = FakeCharLCD(LcdSettings())
    with pytest.raises(UnicodeEncodeError):
        lcd.write_string("♔")


def test_fake_pixel_strip_needs_begin_like_the_c_library() -> None:
    module = fake_rpi_ws281x()
    strip = module.PixelStrip(8, 18)
    with pytest.raises(RuntimeError):
        strip.show()
    strip.begin()
    strip.setPixelColor(3, 0xFF0000)
    strip.show()
    assert strip.shown[3] == 0xFF0000 and module.built[0]["num"] == 8


def test_mock_pin_factory_is_restored() -> None:
    from gpiozero import Device

    before = Device.pin_factory
    with mock_pin_factory() as factory:
        assert Device.pin_factory is factory
    assert Device.pin_factory is before
