"""One contract per feedback port, run against every backend: what a player would notice.

The simulators always run; the WS281x backend runs over a fake ``PixelStrip``, the LCD backend over a
fake ``CharLCD``, the buzzer over gpiozero's mock pins. Real hardware joins in when an environment
variable names it: ``CHESSATRON_HW_LEDS=ws281x://18?count=64``, ``CHESSATRON_HW_DISPLAY=lcd://1``,
``CHESSATRON_HW_BUZZER=buzzer://12`` (there nothing is observed, but every call must succeed).
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import chess
import pytest
from rich.console import Console

from chessatron.errors import ColourError, DeviceClosedError, NoteError
from chessatron.feedback import TUNES, open_buzzer, open_display, open_leds
from chessatron.feedback.buzzer import BuzzerDevice
from chessatron.feedback.display import DisplayDevice, LcdSettings, fit_line
from chessatron.feedback.leds import LedDevice, SimLedStrip, SimPixelStrip, StripSettings, unpack
from chessatron.feedback.tunes import note_frequency
from chessatron.planning.layout import Cell, Layout
from chessatron.ports import RGB, Buzzer, LedStrip, StatusDisplay

from .test_feedback_fakes import FakeCharLCD, mock_pin_factory

RED: RGB = (255, 0, 0)
GREEN: RGB = (0, 200, 0)
BLUE: RGB = (0, 80, 255)


def hardware(variable: str) -> list[Any]:
    url = os.environ.get(variable)
    return [pytest.param(url, id=f"hw:{url}")] if url else []


# --- LEDs ------------------------------------------------------------------------------------------


@dataclass
class LedRig:
    strip: LedDevice
    lit: Callable[[], dict[Cell, RGB] | None]
    """What a person sees lit, read from the pixels the driver was given; None: cannot look."""


def _pixels_to_cells(pixels: SimPixelStrip, strip: SimLedStrip | Any, layout: Layout) -> dict[Cell, RGB]:
    mapping = strip.mapping
    return {
        cell: unpack(colour)
        for cell, colour in zip(mapping.cells, pixels.shown, strict=True)
        if cell is not None and colour
    }


@pytest.fixture(params=["sim", "ws281x", "none", *hardware("CHESSATRON_HW_LEDS")])
def leds(request: pytest.FixtureRequest, layout: Layout) -> Iterator[LedRig]:
    if request.param == "sim":
        sim = open_leds("sim://", layout)
        assert isinstance(sim, SimLedStrip)
        rig = LedRig(sim, lambda: _pixels_to_cells(sim.pixels, sim, layout))
    elif request.param == "ws281x":
        made: list[SimPixelStrip] = []

        def factory(settings: StripSettings) -> SimPixelStrip:
            made.append(SimPixelStrip.from_settings(settings))
            return made[-1]

        strip = open_leds("ws281x://18?count=64&order=serpentine", layout, strip_factory=factory)
        rig = LedRig(strip, lambda: _pixels_to_cells(made[0], strip, layout))
    elif request.param == "none":
        rig = LedRig(open_leds("none://", layout), lambda: None)
    else:
        rig = LedRig(open_leds(request.param, layout), lambda: None)
    yield rig
    rig.strip.close()


def test_leds_light_exactly_the_cells_shown(leds: LedRig, layout: Layout) -> None:
    assert isinstance(leds.strip, LedStrip)
    e4, d5, a1 = (layout.square_cell(s) for s in (chess.E4, chess.D5, chess.A1))
    leds.strip.show({e4: RED, d5: GREEN})
    assert leds.lit() in ({e4: RED, d5: GREEN}, None)
    leds.strip.show({a1: BLUE})
    assert leds.lit() in ({a1: BLUE}, None)
    leds.strip.show({})
    assert leds.lit() in ({}, None)


def test_leds_ignore_cells_without_an_led(leds: LedRig, layout: Layout) -> None:
    capture_cell = layout.capture_cells[chess.WHITE][0]
    leds.strip.show({capture_cell: RED, layout.square_cell(chess.H8): GREEN})
    assert leds.lit() in ({layout.square_cell(chess.H8): GREEN}, None)


@pytest.mark.parametrize("bad", [(256, 0, 0), (-1, 0, 0), (0, 0), (1.5, 0, 0), "red"])
def test_leds_refuse_a_colour_that_is_not_rgb(leds: LedRig, layout: Layout, bad: Any) -> None:
    with pytest.raises(ColourError, match="0 to 255"):
        leds.strip.show({layout.square_cell(chess.E4): bad})


def test_leds_go_dark_on_close_and_close_is_idempotent(leds: LedRig, layout: Layout) -> None:
    with leds.strip as strip:
        strip.show({layout.square_cell(chess.E4): RED})
    assert leds.lit() in ({}, None)
    leds.strip.close()
    with pytest.raises(DeviceClosedError, match="closed"):
        leds.strip.show({})


def test_ws281x_e4_lights_pixel_27_of_a_serpentine_board(layout: Layout) -> None:
    # Pixel 0 under a1, a1-h1 is 0-7, h2-a2 is 8-15, a3-h3 is 16-23, and h4 back to a4 is 24-31.
    made: list[SimPixelStrip] = []

    def factory(settings: StripSettings) -> SimPixelStrip:
        made.append(SimPixelStrip.from_settings(settings))
        return made[-1]

    with open_leds("ws281x://18?order=serpentine&origin=a1", layout, strip_factory=factory) as strip:
        strip.show({layout.square_cell(chess.E4): RED})
        (pixels,) = made
        assert pixels.shown[27] == 0xFF0000
        assert sum(1 for colour in pixels.shown if colour) == 1
    assert not any(pixels.shown) and pixels.cleaned_up


# --- status display --------------------------------------------------------------------------------


@dataclass
class DisplayRig:
    display: DisplayDevice
    seen: Callable[[], list[str] | None]
    """The lines a person reads now (without trailing blanks); None: cannot look."""
    width: int | None = None


def _terminal() -> DisplayRig:
    out = io.StringIO()
    display = open_display("terminal://", console=Console(file=out, width=200, color_system=None))
    return DisplayRig(display, lambda: _last_terminal_lines(out))


def _last_terminal_lines(out: io.StringIO) -> list[str] | None:
    printed = out.getvalue().splitlines()
    if not printed:
        return []
    return [part.strip() for part in printed[-1].removeprefix("◆ ").split(" · ")]


def _lcd() -> DisplayRig:
    made: list[FakeCharLCD] = []

    def factory(settings: LcdSettings) -> FakeCharLCD:
        made.append(FakeCharLCD(settings))
        return made[-1]

    display = open_display("lcd://1?address=0x27&cols=16&rows=2", lcd_factory=factory)
    return DisplayRig(display, lambda: _read(made[0].text()), width=16)


def _sim(url: str, width: int | None) -> DisplayRig:
    display = open_display(url)
    return DisplayRig(display, lambda: _read(display.lines), width)  # type: ignore[attr-defined]


def _read(rows: Sequence[str]) -> list[str]:
    """The rows of a screen as a person reads them: trailing blanks and blank last rows dropped."""
    lines = [row.rstrip() for row in rows]
    while lines and not lines[-1]:
        lines.pop()
    return lines


@pytest.fixture(params=["terminal", "lcd", "sim", "sim-lcd", "none", *hardware("CHESSATRON_HW_DISPLAY")])
def display(request: pytest.FixtureRequest) -> Iterator[DisplayRig]:
    rigs: dict[str, Callable[[], DisplayRig]] = {
        "terminal": _terminal,
        "lcd": _lcd,
        "sim": lambda: _sim("sim://", None),
        "sim-lcd": lambda: _sim("sim://?cols=16&rows=2", 16),
        "none": lambda: DisplayRig(open_display("none://"), lambda: None),
    }
    make = rigs.get(request.param)
    rig = make() if make else DisplayRig(open_display(request.param), lambda: None)
    yield rig
    rig.display.close()


def _expected(lines: list[str], width: int | None) -> list[str]:
    return [fit_line(line, width).rstrip() if width else line for line in lines]


def test_display_shows_the_status_lines(display: DisplayRig) -> None:
    assert isinstance(display.display, StatusDisplay)
    display.display.show(["White to move", "e2e4"])
    assert display.seen() in (["White to move", "e2e4"], None)
    display.display.show(["Black to move", "e7e5"])
    assert display.seen() in (["Black to move", "e7e5"], None)


def test_display_cuts_a_long_line_to_its_width(display: DisplayRig) -> None:
    lines = ["Check! Qh5xf7+ wins a pawn", "move 4"]
    display.display.show(lines)
    seen = display.seen()
    assert seen is None or seen == _expected(lines, display.width)
    if display.width:
        assert seen == ["Check! Qh5xf7+", "move 4"]  # at a space: no word cut in half


def test_display_shows_chess_symbols_somehow(display: DisplayRig) -> None:
    display.display.show(["♔ wins ½–½? no: 1–0"])
    seen = display.seen()
    if seen is not None and display.width:
        # "K wins 1/2-1/2? no: 1-0" broken at a space, the rest in the row left free
        assert seen == ["K wins 1/2-1/2?", "no: 1-0"]
    elif seen is not None:
        assert seen == ["♔ wins ½–½? no: 1–0"]


def test_display_close_is_idempotent_and_final(display: DisplayRig) -> None:
    with display.display as shown:
        shown.show(["bye"])
    display.display.close()
    with pytest.raises(DeviceClosedError):
        display.display.show(["again"])


# --- buzzer ----------------------------------------------------------------------------------------


@dataclass
class BuzzerRig:
    buzzer: BuzzerDevice
    heard: Callable[[], list[float | None] | None]
    """The pitches (Hz, None for silence) heard so far, one per note; None: cannot listen."""


@pytest.fixture(params=["gpiozero", "sim", "none", *hardware("CHESSATRON_HW_BUZZER")])
def buzzer(request: pytest.FixtureRequest) -> Iterator[BuzzerRig]:
    if request.param == "gpiozero":
        with mock_pin_factory() as factory:
            heard: list[float | None] = []
            pin = factory.pin(12)
            # The buzzer waits once per note: what the pin plays during that wait is what one hears.
            device = open_buzzer("buzzer://12?blocking=1", sleep=lambda s: heard.append(pin.frequency))
            yield BuzzerRig(device, lambda: heard)
            device.close()
            assert pin.frequency is None  # silent once closed
        return
    if request.param == "sim":
        sim = open_buzzer("sim://", clock=lambda: 0.0)
        rig = BuzzerRig(
            sim,
            lambda: [
                None if name is None else note_frequency(name)
                for tune in sim.tunes()  # type: ignore[attr-defined]
                for name, _ in tune
            ],
        )
    elif request.param == "none":
        rig = BuzzerRig(open_buzzer("none://"), lambda: None)
    else:
        rig = BuzzerRig(open_buzzer(request.param), lambda: None)
    yield rig
    rig.buzzer.close()


def test_buzzer_plays_every_note_of_a_tune(buzzer: BuzzerRig) -> None:
    assert isinstance(buzzer.buzzer, Buzzer)
    buzzer.buzzer.play(TUNES["check"])
    expected = [None if name is None else round(note_frequency(name), 6) for name, _ in TUNES["check"]]
    heard = buzzer.heard()
    assert heard is None or [None if f is None else round(f, 6) for f in heard] == expected
    assert expected[0] != expected[1]


def test_muted_buzzer_makes_no_sound(buzzer: BuzzerRig) -> None:
    buzzer.buzzer.muted = True
    buzzer.buzzer.play(TUNES["game-over"])
    assert buzzer.heard() in ([], None)
    buzzer.buzzer.muted = False
    buzzer.buzzer.play(TUNES["move"])
    heard = buzzer.heard()
    assert heard is None or [round(f or 0, 6) for f in heard] == [
        round(note_frequency(n), 6) for n in ("C6", "G6")
    ]


@pytest.mark.parametrize("tune", [[("H4", 0.1)], [("A4", -1.0)], [("A4",)], "A4"])
def test_buzzer_refuses_a_bad_tune_before_a_sound(buzzer: BuzzerRig, tune: Any) -> None:
    with pytest.raises(NoteError):
        buzzer.buzzer.play([("A5", 0.1), *tune] if isinstance(tune, list) else tune)
    assert buzzer.heard() in ([], None)


def test_buzzer_close_is_idempotent_and_final(buzzer: BuzzerRig) -> None:
    with buzzer.buzzer as b:
        b.play(TUNES["move"])
    buzzer.buzzer.close()
    with pytest.raises(DeviceClosedError):
        buzzer.buzzer.play(TUNES["move"])
