"""The status display: a terminal line, an HD44780 character LCD, its simulator, or none.

:func:`open_display` picks the backend by URL:

``terminal://[?stderr=1]``
    Prints the status through rich, one line per change (nothing when the lines did not change).
``lcd://BUS?address=0x27&cols=16&rows=2&expander=PCF8574&charmap=A00&bank=A&backlight=1``
    A character LCD on I2C bus ``BUS`` (default 1) behind a PCF8574, MCP23008 or MCP23017 (``bank``
    A or B) backpack, through RPLCD's ``CharLCD``. Lines are made ASCII (chess symbols become FEN
    letters, accents are dropped), fitted to ``cols`` (:func:`fit_lines`) and only changed lines are
    rewritten.
``sim://[name][?cols=16&rows=2]``
    :class:`SimDisplay` keeps the lines (fitted like the LCD's when ``cols``/``rows`` are given) and
    every change with its time; ``rich.print(display)`` draws it as an LCD.
``none://``
    No display.

Only this module imports RPLCD, and only when an ``lcd://`` display is opened.

The words come in the player's language (:mod:`chessatron.i18n`), each message short enough for 16
columns; a line that is longer all the same (a name, a long status) is fitted at a space, never cut in
the middle of a word when a whole one fits, and goes on in a row the lines leave free:

>>> fit_lines(["White ♔ to move, move 12", "e2–e4"], cols=16, rows=2)
('White K to move ', 'e2-e4           ')
>>> fit_lines(["Weiß hat am Zug die Dame geschlagen"], cols=20, rows=2)
('Weiss hat am Zug die', 'Dame geschlagen     ')
"""

from __future__ import annotations

import logging
import sys
import textwrap
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, cast, get_args, runtime_checkable

from rich.console import Console, RenderableType
from rich.panel import Panel
from rich.style import Style
from rich.text import Text

from ..errors import ConfigError, OutputDeviceError
from ..i18n import _
from ..ports import DeviceUrl, StatusDisplay
from .device import Closing, OutputDevice, check_options, missing_library

__all__ = [
    "DisplayDevice",
    "LcdDisplay",
    "LcdSettings",
    "NullDisplay",
    "SimDisplay",
    "TerminalDisplay",
    "check_display_url",
    "fit_line",
    "fit_lines",
    "open_display",
    "to_ascii",
]

LOGGER = logging.getLogger(__name__)

Expander = Literal["PCF8574", "MCP23008", "MCP23017"]
Charmap = Literal["A00", "A02"]


@runtime_checkable
class DisplayDevice(StatusDisplay, Closing, Protocol):
    """What :func:`open_display` returns: the :class:`~chessatron.ports.StatusDisplay` port, with ``with``."""


#: Characters an HD44780 cannot show, and what it shows instead.
_ASCII = str.maketrans(
    {
        "♔": "K", "♕": "Q", "♖": "R", "♗": "B", "♘": "N", "♙": "P",
        "♚": "k", "♛": "q", "♜": "r", "♝": "b", "♞": "n", "♟": "p",
        "½": "1/2", "×": "x", "–": "-", "—": "-", "−": "-", "…": "...", "·": ".", "•": "*",
        "→": ">", "←": "<", "↑": "^", "↓": "v", "“": '"', "”": '"', "‘": "'", "’": "'",
        "♯": "#", "♭": "b", "°": "o", "✓": "v", "✗": "x", "\t": " ",
        # the table's languages' letters that lose no accent but are letters of their own
        "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "¡": "!", "¿": "?", "«": '"', "»": '"',
    }
)  # fmt: skip


def to_ascii(text: str) -> str:
    """``text`` as plain printable ASCII: chess symbols as FEN letters, accents dropped, ``?`` for the rest.

    >>> to_ascii("½–½ Réti ♞"), to_ascii("Weiß gewinnt"), to_ascii("¡Jaque mate!")
    ('1/2-1/2 Reti n', 'Weiss gewinnt', '!Jaque mate!')
    """
    text = unicodedata.normalize("NFKD", text.translate(_ASCII))
    chars = (c for c in text if not unicodedata.combining(c))
    return "".join(c if " " <= c <= "~" else "?" for c in chars)


def split_lines(lines: Sequence[str] | str) -> list[str]:
    """The lines to show: a bare string is split at its line breaks, and so is every line."""
    if isinstance(lines, str):
        lines = [lines]
    return [part for line in lines for part in (line.splitlines() or [""])]


def fit_line(text: str, cols: int) -> str:
    """``text`` in at most ``cols`` characters: whole when it fits, else up to its last space that leaves
    at least half the width (without a dangling comma or colon), else cut at ``cols``.

    >>> fit_line("Partie gestoppt: gespeichert", 16), fit_line("Schachmattsetzung", 8)
    ('Partie gestoppt', 'Schachma')
    """
    if len(text) <= cols:
        return text
    space = text.rfind(" ", 0, cols + 1)
    if space >= cols // 2:
        return text[:space].rstrip(" ,;:")
    return text[:cols]


def fit_lines(lines: Sequence[str] | str, cols: int, rows: int) -> tuple[str, ...]:
    """What a ``cols`` x ``rows`` character display shows: ``rows`` ASCII lines of exactly ``cols``
    characters (missing lines blank). A line longer than ``cols`` goes on in the rows the lines leave
    free (broken at spaces, the first lines first), and what still does not fit is fitted by
    :func:`fit_line`."""
    texts = [to_ascii(line) for line in split_lines(lines)[:rows]]
    spare = rows - len(texts)
    fitted: list[str] = []
    for text in texts:
        parts = textwrap.wrap(text, cols) if len(text) > cols and spare else [text]
        shown = parts[: spare + 1]
        if len(parts) > len(shown):
            shown[-1] = " ".join([shown[-1], *parts[len(shown) :]])
        spare -= len(shown) - 1
        fitted += [fit_line(part, cols).ljust(cols) for part in shown]
    return tuple(fitted + [" " * cols] * (rows - len(fitted)))


# --- terminal --------------------------------------------------------------------------------------


class TerminalDisplay(OutputDevice):
    """Prints the status through rich, one line per change: ``◆ first line · second line``."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console()
        self._last: tuple[str, ...] | None = None

    def show(self, lines: Sequence[str]) -> None:
        self._check_open()
        current = tuple(split_lines(lines))
        if current == self._last:
            return
        self._last = current
        text = Text("◆ ", Style(color="cyan", bold=True))
        for i, line in enumerate(current):
            if i:
                text.append(" · ", Style(color="grey50"))
            text.append(line, Style(bold=i == 0))
        self.console.print(text, highlight=False, soft_wrap=True)

    def __repr__(self) -> str:
        return "<TerminalDisplay>"


# --- LCD -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LcdSettings:
    """What RPLCD's I2C ``CharLCD`` is built with."""

    bus: int = 1
    address: int = 0x27
    cols: int = 16
    rows: int = 2
    expander: Expander = "PCF8574"
    charmap: Charmap = "A00"
    bank: Literal["A", "B"] = "A"
    """The MCP23017 port the LCD hangs on (ignored by the other expanders)."""
    backlight: bool = True


class CharLcdLike(Protocol):
    """The part of ``RPLCD.i2c.CharLCD`` the LCD backend uses."""

    cursor_pos: tuple[int, int]
    backlight_enabled: bool

    def write_string(self, value: str) -> None: ...

    def clear(self) -> None: ...

    def close(self, clear: bool = False) -> None: ...


LcdFactory = Callable[[LcdSettings], CharLcdLike]


def char_lcd(settings: LcdSettings) -> CharLcdLike:
    """RPLCD's I2C ``CharLCD`` (the default factory)."""
    try:
        from RPLCD.i2c import CharLCD
    except ImportError as exc:
        raise missing_library(exc.name or "RPLCD", f"lcd://{settings.bus}") from exc
    lcd: CharLcdLike = CharLCD(
        i2c_expander=settings.expander,
        address=settings.address,
        expander_params={"gpio_bank": settings.bank} if settings.expander == "MCP23017" else None,
        port=settings.bus,
        cols=settings.cols,
        rows=settings.rows,
        charmap=settings.charmap,
        # We place every line ourselves; RPLCD's own wrapping would carry a full line onto the next.
        auto_linebreaks=False,
        backlight_enabled=settings.backlight,
    )
    return lcd


class LcdDisplay(OutputDevice):
    """A character LCD: lines fitted with :func:`fit_lines`, only changed lines rewritten.
    :meth:`close` clears the screen and turns the backlight off."""

    def __init__(self, settings: LcdSettings, factory: LcdFactory | None = None) -> None:
        self.settings = settings
        self._lcd: CharLcdLike | None = None
        self._shown: tuple[str, ...] = fit_lines([], settings.cols, settings.rows)
        try:
            self._lcd = (factory or char_lcd)(settings)
        except OSError as exc:
            raise OutputDeviceError(
                _(
                    "no LCD answers at address {address} on I2C bus {bus} ({reason}); check the wiring, "
                    "enable I2C (raspi-config) and find the address with i2cdetect -y {bus}"
                ).format(address=f"{settings.address:#04x}", bus=settings.bus, reason=exc.strerror or exc)
            ) from exc

    @property
    def lines(self) -> tuple[str, ...]:
        """What the LCD shows now, one string of exactly ``cols`` characters per row."""
        return self._shown

    def show(self, lines: Sequence[str]) -> None:
        self._check_open()
        assert self._lcd is not None
        fitted = fit_lines(lines, self.settings.cols, self.settings.rows)
        try:
            for row, (old, new) in enumerate(zip(self._shown, fitted, strict=True)):
                if old != new:
                    self._lcd.cursor_pos = (row, 0)
                    self._lcd.write_string(new)
        except OSError as exc:
            raise OutputDeviceError(
                _("the LCD stopped answering ({reason}); check its cable").format(reason=exc.strerror or exc)
            ) from exc
        self._shown = fitted

    def _close(self) -> None:
        if self._lcd is None:
            return
        # A display that went away must not stop the rest of the machine from shutting down.
        try:
            self._lcd.backlight_enabled = False
            self._lcd.close(clear=True)
        except OSError as exc:
            LOGGER.warning(
                "the LCD did not answer while closing (%s); it may still show the last status", exc
            )

    def __repr__(self) -> str:
        s = self.settings
        return f"<LcdDisplay {s.cols}x{s.rows} at {s.address:#04x} on bus {s.bus}>"


# --- simulator and none ----------------------------------------------------------------------------


class SimDisplay(OutputDevice):
    """Keeps the lines shown (fitted like an LCD's when ``cols`` and ``rows`` are given) and every
    change as ``(time, lines)``."""

    def __init__(
        self,
        cols: int | None = None,
        rows: int | None = None,
        *,
        name: str = "default",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cols, self.rows, self.name = cols, rows, name
        self._clock = clock
        self.lines: tuple[str, ...] = ()
        self.history: list[tuple[float, tuple[str, ...]]] = []

    def show(self, lines: Sequence[str]) -> None:
        self._check_open()
        if self.cols is not None and self.rows is not None:
            current = fit_lines(lines, self.cols, self.rows)
        else:
            current = tuple(split_lines(lines))
        if current != self.lines:
            self.lines = current
            self.history.append((self._clock(), current))

    @property
    def text(self) -> str:
        """The lines shown, joined by new lines and without the padding."""
        return "\n".join(line.rstrip() for line in self.lines)

    def __rich__(self) -> RenderableType:
        width = self.cols or max((len(line) for line in self.lines), default=16)
        body = Text("\n".join(line.ljust(width) for line in self.lines) or " " * width)
        return Panel(
            body,
            title=_("display {name}").format(name=self.name),
            expand=False,
            style=Style(color="#0f380f", bgcolor="#9bbc0f"),
        )

    def __repr__(self) -> str:
        return f"<SimDisplay {self.name!r} {self.lines!r}>"


class NullDisplay(OutputDevice):
    """No display (``none://``)."""

    def show(self, lines: Sequence[str]) -> None:
        self._check_open()

    def __repr__(self) -> str:
        return "<NullDisplay>"


def open_display(
    url: str,
    *,
    console: Console | None = None,
    lcd_factory: LcdFactory | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> DisplayDevice:
    """The status display ``url`` names (see the module docstring for schemes and options).

    ``console`` is where ``terminal://`` prints; ``lcd_factory`` builds the ``lcd://`` driver
    (default: RPLCD's I2C ``CharLCD``); ``clock`` stamps the simulator's history.

    Raises :class:`~chessatron.errors.ConfigError` for a bad URL,
    :class:`~chessatron.errors.MissingLibraryError` when RPLCD is not installed and
    :class:`~chessatron.errors.OutputDeviceError` when no LCD answers.
    """
    parsed = DeviceUrl.parse(url)
    settings = _settings(parsed, url)
    if parsed.scheme == "terminal":
        if console is None and parsed.flag("stderr"):
            console = Console(file=sys.stderr)
        return TerminalDisplay(console)
    if isinstance(settings, LcdSettings):
        return LcdDisplay(settings, lcd_factory)
    if parsed.scheme == "sim":
        cols, rows = settings if settings is not None else (None, None)
        return SimDisplay(cols, rows, name=parsed.target or "default", clock=clock)
    return NullDisplay()


def check_display_url(url: str) -> None:
    """Check ``url`` as :func:`open_display` would, without opening an LCD or importing RPLCD
    (``chessatron config check``). Raises :class:`~chessatron.errors.ConfigError` naming what is wrong."""
    _settings(DeviceUrl.parse(url), url)


def _settings(parsed: DeviceUrl, url: str) -> LcdSettings | tuple[int, int] | None:
    """What ``parsed`` says, checked: an LCD's settings, a simulated LCD's columns and rows, or None."""
    if parsed.scheme == "terminal":
        check_options(parsed, ("stderr",))
        parsed.flag("stderr")
        return None
    if parsed.scheme == "lcd":
        check_options(parsed, ("address", "cols", "rows", "expander", "charmap", "bank", "backlight"))
        return _lcd_settings(parsed)
    if parsed.scheme == "sim":
        check_options(parsed, ("cols", "rows"))
        cols = _size(parsed, "cols", 16, 1, 40) if "cols" in parsed.params else None
        rows = _size(parsed, "rows", 2, 1, 4) if "rows" in parsed.params else None
        if cols is None or rows is None:
            if (cols is None) != (rows is None):
                raise ConfigError(
                    _(
                        "{url!r} gives only one of cols and rows; give both, as in sim://?cols=16&rows=2"
                    ).format(url=url)
                )
            return None
        return cols, rows
    if parsed.scheme == "none":
        check_options(parsed, ())
        return None
    raise ConfigError(
        _(
            "display URL {url!r} has the unknown scheme {scheme!r}; use terminal://, lcd://, sim:// or "
            "none://"
        ).format(url=url, scheme=parsed.scheme)
    )


def _lcd_settings(url: DeviceUrl) -> LcdSettings:
    bus_text = url.target.strip("/") or "1"
    if not bus_text.isdigit():
        raise ConfigError(
            _("lcd://{target} does not name an I2C bus; write its number, as in lcd://1").format(
                target=url.target
            )
        )
    address = url.integer("address", 0x27)
    if not 0x03 <= address <= 0x77:
        raise ConfigError(
            _("address={address} is not a 7-bit I2C address; PCF8574 backpacks use 0x27 or 0x3f").format(
                address=f"{address:#x}"
            )
        )
    expander = url.params.get("expander", "PCF8574").upper()
    if expander not in get_args(Expander):
        raise ConfigError(
            _("expander={expander!r} is not supported; use one of {choices}").format(
                expander=expander, choices=", ".join(get_args(Expander))
            )
        )
    charmap = url.params.get("charmap", "A00").upper()
    if charmap not in get_args(Charmap):
        raise ConfigError(
            _("charmap={charmap!r} is not an HD44780 ROM; use A00 (most LCDs) or A02").format(charmap=charmap)
        )
    bank = url.params.get("bank", "A").upper()
    if bank not in ("A", "B"):
        raise ConfigError(_("bank={bank!r} is not an MCP23017 port; use A or B").format(bank=bank))
    return LcdSettings(
        bus=int(bus_text),
        address=address,
        cols=_size(url, "cols", 16, 1, 40),
        rows=_size(url, "rows", 2, 1, 4),
        expander=cast(Expander, expander),
        charmap=cast(Charmap, charmap),
        bank=cast(Literal["A", "B"], bank),
        backlight=url.flag("backlight", True),
    )


def _size(url: DeviceUrl, key: str, default: int, low: int, high: int) -> int:
    value = url.integer(key, default)
    if not low <= value <= high:
        raise ConfigError(
            _("{key}={value!r} is not {low} to {high}; character LCDs are 16 or 20 wide, 2 or 4 high").format(
                key=key, value=value, low=low, high=high
            )
        )
    return value
