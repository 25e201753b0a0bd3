"""The square LEDs: a WS281x strip under the board, its simulator, or none.

:func:`open_leds` picks the backend by URL:

``ws281x://PIN?count=64&brightness=0.3&order=serpentine&origin=a1&along=ranks&cover=board&strip=GRB``
    A WS2811/WS2812/SK6812 strip on GPIO ``PIN`` (BCM; 18 or 12 for PWM channel 0, 13 or 19 for
    channel 1, 21 for PCM, 10 for SPI) driven by rpi_ws281x's ``PixelStrip``. ``order`` is
    ``serpentine``, ``rows`` or the path of a mapping file (see :mod:`.mapping`); ``origin`` the
    corner of pixel 0; ``along`` ``ranks`` or ``files``; ``cover`` ``board`` (64 pixels) or ``table``
    (a pixel under every table cell). ``brightness`` 0-1 (default 0.3) caps the whole strip: 64
    pixels at full white draw almost 4 A. ``strip`` is the colour order the chips expect (``GRB`` for
    WS2812). ``freq`` (800000), ``dma`` (10), ``invert`` (0) and ``channel`` (by pin) are passed on.
``sim://[name]?…``
    :class:`SimLedStrip`: the same pixels in memory, shown in the terminal (``rich.print(strip)``)
    or over the SVG picture of the table. Takes the same options, so it lights exactly what the
    real strip would.
``none://``
    No LEDs.

Only this module imports rpi_ws281x, and only when a ``ws281x://`` strip is opened.

>>> import chess
>>> layout = Layout.default()
>>> with open_leds("sim://?order=serpentine", layout) as strip:
...     strip.show({layout.square_cell(chess.E4): (255, 0, 0)})
...     hex(strip.pixels.shown[27])
'0xff0000'
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, cast, get_args, runtime_checkable

from rich.console import RenderableType

from ..errors import ConfigError, OutputDeviceError
from ..i18n import _
from ..planning.layout import Cell, Layout
from ..ports import RGB, DeviceUrl, LedStrip
from .colours import check_rgb
from .device import Closing, OutputDevice, check_options, missing_library, pin_number
from .mapping import LedMapping, resolve
from .view import leds_panel, svg_with_leds

__all__ = [
    "LedDevice",
    "LedMapping",
    "NullLedStrip",
    "PixelLedStrip",
    "PixelStripFactory",
    "SimLedStrip",
    "SimPixelStrip",
    "StripSettings",
    "check_leds_url",
    "open_leds",
]

LOGGER = logging.getLogger(__name__)

ColourOrder = Literal["RGB", "RBG", "GRB", "GBR", "BRG", "BGR"]
"""The order in which the LED chips expect the channels on the wire (rpi_ws281x's strip type)."""

#: GPIOs the rpi_ws281x driver can drive, and the PWM channel each needs.
WS281X_PINS: Mapping[int, int] = {12: 0, 18: 0, 13: 1, 19: 1, 21: 0, 10: 0}

_MAPPING_OPTIONS = ("count", "order", "origin", "along", "cover")
_STRIP_OPTIONS = ("brightness", "strip", "freq", "dma", "invert", "channel")


@runtime_checkable
class LedDevice(LedStrip, Closing, Protocol):
    """What :func:`open_leds` returns: the :class:`~chessatron.ports.LedStrip` port, usable with ``with``."""


@dataclass(frozen=True)
class StripSettings:
    """What rpi_ws281x's ``PixelStrip`` is built with."""

    pin: int
    count: int
    freq_hz: int = 800_000
    dma: int = 10
    invert: bool = False
    brightness: int = 77
    """Global brightness 0-255, applied by the driver to every pixel."""
    channel: int = 0
    order: ColourOrder = "GRB"


class PixelStripLike(Protocol):
    """The part of ``rpi_ws281x.PixelStrip`` the LED backend uses (its names, not ours)."""

    def begin(self) -> None: ...

    def setPixelColor(self, n: int, color: int) -> None: ...

    def show(self) -> None: ...

    def _cleanup(self) -> None: ...


PixelStripFactory = Callable[[StripSettings], PixelStripLike]
"""Builds the strip driver; tests and dry runs pass :meth:`SimPixelStrip.from_settings`."""


def pack(rgb: RGB) -> int:
    """A colour as rpi_ws281x's 24-bit ``Color(red, green, blue)``: ``0xRRGGBB`` whatever the wire order."""
    r, g, b = rgb
    return (r << 16) | (g << 8) | b


def unpack(color: int) -> RGB:
    return ((color >> 16) & 0xFF, (color >> 8) & 0xFF, color & 0xFF)


def pixel_strip(settings: StripSettings) -> PixelStripLike:
    """The real ``rpi_ws281x.PixelStrip`` (the default factory)."""
    try:
        import rpi_ws281x
    except ImportError as exc:
        raise missing_library("rpi_ws281x", f"ws281x://{settings.pin}") from exc
    strip_type = getattr(rpi_ws281x.ws, f"WS2811_STRIP_{settings.order}")
    strip: PixelStripLike = rpi_ws281x.PixelStrip(
        settings.count,
        settings.pin,
        freq_hz=settings.freq_hz,
        dma=settings.dma,
        invert=settings.invert,
        brightness=settings.brightness,
        channel=settings.channel,
        strip_type=strip_type,
    )
    return strip


#: The frames a simulated strip keeps (the newest; :class:`SimPixelStrip`).
RECORDED_FRAMES = 200


class SimPixelStrip:
    """A stand-in for ``rpi_ws281x.PixelStrip`` that keeps its pixels in memory and records every call.

    ``pixels`` is the buffer ``setPixelColor`` writes, ``shown`` what the LEDs show since the last
    ``show()``, ``frames`` every frame shown, ``calls`` every call in order: the latest
    :data:`RECORDED_FRAMES` frames and ten times as many calls (a table served for days would otherwise
    keep every frame of every game).
    """

    def __init__(self, count: int, settings: StripSettings | None = None) -> None:
        self.settings = settings
        self.pixels = [0] * count
        self.shown: tuple[int, ...] = tuple(self.pixels)
        self.frames: list[tuple[int, ...]] = []
        self.calls: list[tuple[str, tuple[int, ...]]] = []
        self.began = False
        self.cleaned_up = False

    @classmethod
    def from_settings(cls, settings: StripSettings) -> SimPixelStrip:
        return cls(settings.count, settings)

    def _record(self, call: tuple[str, tuple[int, ...]]) -> None:
        self.calls.append(call)
        if len(self.calls) > 20 * RECORDED_FRAMES:
            del self.calls[: -10 * RECORDED_FRAMES]

    def begin(self) -> None:
        self._record(("begin", ()))
        self.began = True

    def setPixelColor(self, n: int, color: int) -> None:
        self._record(("setPixelColor", (n, color)))
        if not self.began or self.cleaned_up:
            raise RuntimeError("setPixelColor() on a strip that was not begun or is cleaned up")
        if not 0 <= n < len(self.pixels):
            raise IndexError(f"pixel {n} on a strip of {len(self.pixels)}")
        self.pixels[n] = color

    def getPixelColor(self, n: int) -> int:
        return self.pixels[n]

    def numPixels(self) -> int:
        return len(self.pixels)

    def show(self) -> None:
        self._record(("show", ()))
        if not self.began or self.cleaned_up:
            raise RuntimeError("show() on a strip that was not begun or is cleaned up")
        self.shown = tuple(self.pixels)
        self.frames.append(self.shown)
        if len(self.frames) > 2 * RECORDED_FRAMES:
            del self.frames[:-RECORDED_FRAMES]

    def _cleanup(self) -> None:
        self._record(("_cleanup", ()))
        self.cleaned_up = True

    def __repr__(self) -> str:
        lit = sum(1 for c in self.shown if c)
        return f"<SimPixelStrip {len(self.pixels)} pixels, {lit} lit>"


class PixelLedStrip(OutputDevice):
    """A :class:`~chessatron.ports.LedStrip` over a chain of pixels: cells map to pixel indices.

    Starts dark; :meth:`close` turns every pixel off before it lets the driver go.
    """

    def __init__(self, mapping: LedMapping, strip: PixelStripLike, *, name: str = "ws281x") -> None:
        self.mapping = mapping
        self.name = name
        self._strip = strip
        self._began = False
        self._frame: list[int] = [0] * mapping.count
        try:
            try:
                strip.begin()
            except RuntimeError as exc:
                raise OutputDeviceError(
                    _(
                        "the LED strip {name!r} did not start ({reason}); run as root (the PWM/PCM driver "
                        "needs "
                        "/dev/mem), or use pin 10 (SPI) with /dev/spidev0.0 enabled"
                    ).format(name=name, reason=exc)
                ) from exc
            self._began = True
            self._write([0] * mapping.count, force=True)
        except BaseException:
            self.close()
            raise

    def show(self, colours: Mapping[Cell, RGB]) -> None:
        """Light exactly these cells (others off); cells with no pixel under them are ignored.

        Raises :class:`~chessatron.errors.ColourError` for a colour that is not three channels 0-255.
        """
        self._check_open()
        frame = [0] * self.mapping.count
        for cell, rgb in colours.items():
            colour = check_rgb(rgb)
            index = self.mapping.index(cell)
            if index is not None:
                frame[index] = pack(colour)
        self._write(frame)

    def show_pixels(self, colours: Mapping[int, RGB]) -> None:
        """Light exactly these pixels by their place in the chain (others off), whatever the mapping says:
        ``hw calibrate`` finds the mapping with it. Pixels beyond the strip are ignored."""
        self._check_open()
        frame = [0] * self.mapping.count
        for index, rgb in colours.items():
            colour = check_rgb(rgb)
            if 0 <= index < len(frame):
                frame[index] = pack(colour)
        self._write(frame)

    @property
    def colours(self) -> dict[Cell, RGB]:
        """The lit cells and their colours, read back from the pixels last shown."""
        return self._lit(self._frame)

    def _lit(self, frame: Sequence[int]) -> dict[Cell, RGB]:
        pairs = zip(self.mapping.cells, frame, strict=True)
        return {cell: unpack(colour) for cell, colour in pairs if colour and cell is not None}

    def _write(self, frame: list[int], *, force: bool = False) -> None:
        if frame == self._frame and not force:
            return
        try:
            for i, (old, new) in enumerate(zip(self._frame, frame, strict=True)):
                if new != old or force:
                    self._strip.setPixelColor(i, new)
            self._strip.show()
        except RuntimeError as exc:
            raise OutputDeviceError(
                _("the LED strip {name!r} failed to update: {reason}").format(name=self.name, reason=exc)
            ) from exc
        # A new list rather than an update, so a view reading colours from another thread sees whole frames.
        self._frame = frame

    def _close(self) -> None:
        try:
            if self._began:
                self._write([0] * self.mapping.count)
        except OutputDeviceError as exc:
            # Lights left on must not stop the rest of the machine from shutting down.
            LOGGER.warning("%s; the LEDs may stay lit", exc)
        finally:
            # rpi_ws281x frees its DMA buffers in _cleanup(), which it otherwise only runs at exit.
            self._strip._cleanup()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{len(self.colours)} lit"
        return f"<{type(self).__name__} {self.name!r}: {self.mapping!r}, {state}>"


class SimLedStrip(PixelLedStrip):
    """The simulated strip: a :class:`PixelLedStrip` over a :class:`SimPixelStrip`.

    Print it with rich (``rich.print(strip)``) to see the board lit; :meth:`svg` lays the LEDs over a
    picture from :func:`chessatron.render.table_svg`.
    """

    def __init__(self, layout: Layout, mapping: LedMapping | None = None, *, name: str = "default") -> None:
        self.layout = layout
        mapping = mapping or LedMapping.grid(layout)
        self.pixels = SimPixelStrip(mapping.count)
        super().__init__(mapping, self.pixels, name=name)

    @property
    def frames(self) -> list[dict[Cell, RGB]]:
        """Every frame shown, oldest first, as lit cells and their colours (the first is the dark start)."""
        return [self._lit(frame) for frame in self.pixels.frames]

    def svg(self, table_svg: str) -> str:
        """``table_svg`` (from :func:`chessatron.render.table_svg`) with the lit LEDs glowing under
        the pieces."""
        return svg_with_leds(table_svg, self.colours, self.layout)

    def __rich__(self) -> RenderableType:
        return leds_panel(
            self.colours,
            self.layout,
            title=_("LEDs {name}").format(name=self.name),
            cells=self.mapping.lit_cells(),
        )


class NullLedStrip(OutputDevice):
    """No LEDs (``none://``): shows nothing, but still checks the colours it is given."""

    def show(self, colours: Mapping[Cell, RGB]) -> None:
        self._check_open()
        for rgb in colours.values():
            check_rgb(rgb)

    def __repr__(self) -> str:
        return "<NullLedStrip>"


def open_leds(
    url: str,
    layout: Layout,
    *,
    strip_factory: PixelStripFactory | None = None,
    mapping: Sequence[Cell | None] | None = None,
) -> LedDevice:
    """The LED strip ``url`` names (see the module docstring for the schemes and their options).

    ``strip_factory`` builds the ``ws281x://`` driver (default: rpi_ws281x's ``PixelStrip``);
    ``mapping``, the cell over each pixel in strip order, overrides the ``order`` option.

    Raises :class:`~chessatron.errors.ConfigError` (or its :class:`LedMappingError`) for a bad URL,
    :class:`~chessatron.errors.MissingLibraryError` when rpi_ws281x is not installed, and
    :class:`~chessatron.errors.OutputDeviceError` when the strip does not start.
    """
    parsed = DeviceUrl.parse(url)
    found = _settings(parsed, url, layout, mapping)
    if found is None:
        return NullLedStrip()
    leds, settings = found
    if parsed.scheme == "sim":
        return SimLedStrip(layout, leds, name=parsed.target or "default")
    factory = strip_factory or pixel_strip
    try:
        strip = factory(settings)
    except (RuntimeError, OSError) as exc:
        raise OutputDeviceError(
            _("cannot open the LED strip {url!r}: {reason}").format(url=url, reason=exc)
        ) from exc
    return PixelLedStrip(leds, strip, name=url)


def check_leds_url(url: str, layout: Layout) -> None:
    """Check ``url`` as :func:`open_leds` would for ``layout`` (options, mapping, strip settings), without
    opening the strip or importing rpi_ws281x (``chessatron config check``).

    Raises :class:`~chessatron.errors.ConfigError` (or its :class:`LedMappingError`) naming what is wrong.
    """
    _settings(DeviceUrl.parse(url), url, layout)


def _settings(
    parsed: DeviceUrl, url: str, layout: Layout, mapping: Sequence[Cell | None] | None = None
) -> tuple[LedMapping, StripSettings] | None:
    """The pixels' cells and the strip's settings ``parsed`` names (None: no LEDs), checked."""
    if parsed.scheme == "none":
        check_options(parsed, ())
        return None
    if parsed.scheme not in ("ws281x", "sim"):
        raise ConfigError(
            _("LED URL {url!r} has the unknown scheme {scheme!r}; use ws281x://, sim:// or none://").format(
                url=url, scheme=parsed.scheme
            )
        )
    check_options(parsed, _MAPPING_OPTIONS + _STRIP_OPTIONS)
    count = parsed.integer("count", 0) if "count" in parsed.params else None
    leds = resolve(
        layout,
        parsed.params.get("order", "serpentine"),
        origin=parsed.params.get("origin", "a1").lower(),
        along=parsed.params.get("along", "ranks").lower(),
        cover=parsed.params.get("cover", "board").lower(),
        mapping=mapping,
        count=count,
    )
    # the simulator takes the real strip's settings, checked the same way, as if on GPIO 18
    pin = 18 if parsed.scheme == "sim" else pin_number(parsed, "ws281x://18")
    return leds, _strip_settings(parsed, pin, leds.count)


def _strip_settings(url: DeviceUrl, pin: int, count: int) -> StripSettings:
    if pin not in WS281X_PINS:
        pins = ", ".join(str(p) for p in sorted(WS281X_PINS))
        raise ConfigError(
            _("GPIO {pin!r} cannot drive WS281x LEDs; use one of {pins} (18 is the usual one)").format(
                pin=pin, pins=pins
            )
        )
    brightness = url.number("brightness", 0.3)
    if not 0 <= brightness <= 1:
        raise ConfigError(
            _("brightness={brightness!r} is not between 0 and 1; 0.3 is bright enough indoors").format(
                brightness=brightness
            )
        )
    order = url.params.get("strip", "GRB").upper()
    if order not in get_args(ColourOrder):
        raise ConfigError(
            _("strip={order!r} is not a colour order; use one of {orders}").format(
                order=order, orders=", ".join(get_args(ColourOrder))
            )
        )
    freq = url.integer("freq", 800_000)
    if freq not in (400_000, 800_000):
        raise ConfigError(
            _("freq={freq!r} is not a WS281x data rate; use 800000 (or 400000 for old WS2811)").format(
                freq=freq
            )
        )
    dma = url.integer("dma", 10)
    if not 0 <= dma <= 14 or dma == 5:
        raise ConfigError(
            _("dma={dma!r} cannot be used; pick a DMA channel 0-14 other than 5 (10 is safe)").format(dma=dma)
        )
    channel = url.integer("channel", WS281X_PINS[pin])
    if channel != WS281X_PINS[pin]:
        raise ConfigError(
            _("channel={channel!r} does not drive GPIO {pin}; it needs channel {needed}").format(
                channel=channel, pin=pin, needed=WS281X_PINS[pin]
            )
        )
    return StripSettings(
        pin=pin,
        count=count,
        freq_hz=freq,
        dma=dma,
        invert=url.flag("invert"),
        brightness=int(brightness * 255 + 0.5),  # 0.3 -> 77, not round()'s 76
        channel=channel,
        order=cast(ColourOrder, order),
    )
