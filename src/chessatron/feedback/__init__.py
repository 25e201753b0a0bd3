"""Feedback to the player: the square LEDs, the status display and the buzzer.

Each port has an ``open_*`` function that picks a backend by URL, as the rest of chessatron does:

>>> from chessatron.planning.layout import Layout
>>> leds = open_leds("sim://", Layout.default())
>>> display = open_display("sim://?cols=16&rows=2")
>>> buzzer = open_buzzer("none://")

Vendor libraries (rpi_ws281x, RPLCD, gpiozero) are imported only when a hardware backend is opened,
each by its own backend module, so all of this runs on any computer.
"""

from __future__ import annotations

from .buzzer import NullBuzzer, SimBuzzer, TonalBuzzerDevice, open_buzzer
from .colours import NAMED_COLOURS, parse_colour
from .display import LcdDisplay, NullDisplay, SimDisplay, TerminalDisplay, open_display
from .leds import NullLedStrip, PixelLedStrip, SimLedStrip, SimPixelStrip, open_leds
from .mapping import LedMapping
from .signals import LedSignals, SignalColours, combine
from .tunes import TUNES, Tune, TuneName

__all__ = [
    "NAMED_COLOURS",
    "TUNES",
    "LcdDisplay",
    "LedMapping",
    "LedSignals",
    "NullBuzzer",
    "NullDisplay",
    "NullLedStrip",
    "PixelLedStrip",
    "SignalColours",
    "SimBuzzer",
    "SimDisplay",
    "SimLedStrip",
    "SimPixelStrip",
    "TerminalDisplay",
    "TonalBuzzerDevice",
    "Tune",
    "TuneName",
    "combine",
    "open_buzzer",
    "open_display",
    "open_leds",
    "parse_colour",
]
