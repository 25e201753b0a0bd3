"""The status display: ASCII for the LCD, lines cut to its width, only changes written, its life cycle."""

from __future__ import annotations

import io
import logging
import re
import sys
import types
from typing import Any

import pytest
from rich.console import Console

from chessatron.errors import ConfigError, MissingLibraryError, OutputDeviceError
from chessatron.feedback.display import (
    LcdDisplay,
    LcdSettings,
    SimDisplay,
    fit_lines,
    open_display,
    split_lines,
    to_ascii,
)

from .test_feedback_fakes import FakeCharLCD


class LcdRecorder:
    def __init__(self) -> None:
        self.lcds: list[FakeCharLCD] = []

    def __call__(self, settings: LcdSettings) -> FakeCharLCD:
        self.lcds.append(FakeCharLCD(settings))
        return self.lcds[-1]

    @property
    def lcd(self) -> FakeCharLCD:
        (lcd,) = self.lcds
        return lcd


@pytest.mark.parametrize(
    ("text", "ascii"),
    [
        ("♔♕♖♗♘♙ ♚♛♜♝♞♟", "KQRBNP kqrbnp"),
        ("½–½", "1/2-1/2"),
        ("Nxe5 → mate…", "Nxe5 > mate..."),
        ("Réti–Nimzowitsch", "Reti-Nimzowitsch"),
        ("“check” ✓", '"check" v'),
        ("日本", "??"),
        ("tab\there", "tab here"),
    ],
)
def test_text_becomes_ascii_an_lcd_can_show(text: str, ascii: str) -> None:
    assert to_ascii(text) == ascii


def test_lines_are_cut_padded_and_split() -> None:
    assert fit_lines("one\ntwo\nthree", cols=4, rows=2) == ("one ", "two ")
    assert fit_lines([], cols=3, rows=2) == ("   ", "   ")
    assert split_lines(["a\nb", "", "c"]) == ["a", "b", "", "c"]


def test_terminal_prints_only_changes() -> None:
    out = io.StringIO()
    display = open_display("terminal://", console=Console(file=out, width=100, color_system=None))
    display.show(["White to move", "move 1"])
    display.show(["White to move", "move 1"])
    display.show("Black to move")
    display.close()
    assert out.getvalue().splitlines() == ["◆ White to move · move 1", "◆ Black to move"]


def test_lcd_rewrites_only_changed_lines() -> None:
    recorder = LcdRecorder()
    display = open_display("lcd://1?cols=16&rows=2", lcd_factory=recorder)
    display.show(["White to move", "move 1"])
    first = recorder.lcd.written
    display.show(["White to move", "move 2"])
    assert recorder.lcd.written - first == 16  # just the second line
    display.show(["White to move", "move 2"])
    assert recorder.lcd.written - first == 16
    assert recorder.lcd.text() == ["White to move   ", "move 2          "] and not recorder.lcd.offscreen
    assert isinstance(display, LcdDisplay) and display.lines == ("White to move   ", "move 2          ")


def test_lcd_is_cleared_and_dark_after_close() -> None:
    recorder = LcdRecorder()
    with open_display("lcd://1", lcd_factory=recorder) as display:
        display.show(["game over"])
    lcd = recorder.lcd
    assert lcd.closed and lcd.text() == [" " * 16] * 2 and not lcd.backlight_enabled


def test_a_four_line_lcd_shows_four_lines() -> None:
    recorder = LcdRecorder()
    with open_display("lcd://1?cols=20&rows=4&address=0x3f", lcd_factory=recorder) as display:
        display.show(["1", "2", "3", "4", "5"])
        assert [line.strip() for line in recorder.lcd.text()] == ["1", "2", "3", "4"]
    assert recorder.lcd.settings.address == 0x3F


def test_an_lcd_that_does_not_answer_says_how_to_find_it() -> None:
    def absent(settings: LcdSettings) -> Any:
        raise OSError(121, "Remote I/O error")

    with pytest.raises(
        OutputDeviceError, match=r"no LCD answers at address 0x27 on I2C bus 1 .*i2cdetect -y 1"
    ):
        open_display("lcd://1", lcd_factory=absent)


def test_a_pulled_lcd_cable_is_a_hardware_error(caplog: pytest.LogCaptureFixture) -> None:
    recorder = LcdRecorder()
    display = open_display("lcd://1", lcd_factory=recorder)
    recorder.lcd.fail = True
    with pytest.raises(OutputDeviceError, match="stopped answering"):
        display.show(["anything"])
    with caplog.at_level(logging.WARNING):
        display.close()  # closing still succeeds, with a warning
    assert "did not answer while closing" in caplog.text


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("lcd://1?adress=0x27", "unknown option 'adress'"),
        ("lcd://1?address=0x99", "address=0x99 is not a 7-bit I2C address"),
        ("lcd://1?cols=80", "cols=80 is not 1 to 40"),
        ("lcd://1?expander=PCF9999", "expander='PCF9999' is not supported"),
        ("lcd://1?charmap=B00", "charmap='B00'"),
        ("lcd://one", "does not name an I2C bus"),
        ("sim://?cols=16", "only one of cols and rows"),
        ("oled://1", "unknown scheme 'oled'"),
    ],
)
def test_bad_display_urls_are_named(url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        open_display(url, lcd_factory=LcdRecorder())


def test_the_real_lcd_is_built_with_rplcd_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[dict[str, Any]] = []

    class CharLCD(FakeCharLCD):
        def __init__(self, **kwargs: Any) -> None:
            built.append(kwargs)
            super().__init__(LcdSettings(cols=kwargs["cols"], rows=kwargs["rows"]))

    package, module = types.ModuleType("RPLCD"), types.ModuleType("RPLCD.i2c")
    module.CharLCD = CharLCD  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "RPLCD", package)
    monkeypatch.setitem(sys.modules, "RPLCD.i2c", module)
    open_display("lcd://0?address=0x20&expander=mcp23017&bank=B&cols=20&rows=4").close()
    assert built == [
        {
            "i2c_expander": "MCP23017",
            "address": 0x20,
            "expander_params": {"gpio_bank": "B"},
            "port": 0,
            "cols": 20,
            "rows": 4,
            "charmap": "A00",
            "auto_linebreaks": False,
            "backlight_enabled": True,
        }
    ]


def test_without_rplcd_the_message_names_the_pi_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "RPLCD", None)
    with pytest.raises(MissingLibraryError, match=re.escape("chessatron[pi]")):
        open_display("lcd://1")


def test_the_sim_keeps_every_change_with_its_time() -> None:
    times = iter([1.0, 2.0, 3.0])
    display = open_display("sim://lab?cols=8&rows=2", clock=lambda: next(times))
    assert isinstance(display, SimDisplay)
    display.show(["e2e4"])
    display.show(["e2e4"])
    display.show(["e7e5", "♘f3"])
    assert display.history == [(1.0, ("e2e4    ", "        ")), (2.0, ("e7e5    ", "Nf3     "))]
    assert display.text == "e7e5\nNf3"
    console = Console(width=40, color_system=None)
    with console.capture() as capture:
        console.print(display)
    assert "display lab" in capture.get() and "Nf3" in capture.get()
