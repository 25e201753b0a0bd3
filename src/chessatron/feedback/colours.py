"""Colours for the square LEDs: validation, names for config files, and the small arithmetic views need.

A colour is an :data:`~chessatron.ports.RGB` triple of 0-255 channels. Config files may write one as a
name (``"green"``), a hex string (``"#00c800"``) or a list (``[0, 200, 0]``).

>>> parse_colour("violet")
(160, 0, 255)
>>> parse_colour("#ff8000"), parse_colour([0, 200, 0])
((255, 128, 0), (0, 200, 0))
>>> hex_colour((255, 128, 0))
'#ff8000'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..errors import ColourError
from ..i18n import _
from ..ports import RGB

OFF: RGB = (0, 0, 0)

#: Names a config file may use. Tuned for WS2812 LEDs, whose green and red are far brighter than
#: their blue: "yellow" leans to orange and "violet" to blue so they read as such through a board.
NAMED_COLOURS: Mapping[str, RGB] = {
    "off": OFF,
    "black": OFF,
    "white": (255, 255, 255),
    "warm-white": (255, 190, 120),
    "red": (255, 0, 0),
    "orange": (255, 96, 0),
    "amber": (255, 150, 0),
    "yellow": (255, 190, 0),
    "green": (0, 200, 0),
    "cyan": (0, 200, 200),
    "blue": (0, 80, 255),
    "violet": (160, 0, 255),
    "magenta": (255, 0, 160),
    "pink": (255, 80, 120),
}

_HEX = re.compile(r"#?([0-9a-fA-F]{6})")


def check_rgb(value: object) -> RGB:
    """``value`` as an RGB triple, or :class:`ColourError` if it is not three whole numbers 0-255."""
    if (
        isinstance(value, tuple | list)
        and len(value) == 3
        and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in value)
    ):
        return (value[0], value[1], value[2])
    raise ColourError(
        _("colour {value!r} is not three whole numbers from 0 to 255, such as (0, 200, 0)").format(
            value=value
        )
    )


def parse_colour(value: str | Sequence[int]) -> RGB:
    """A colour from a config value: a name from :data:`NAMED_COLOURS`, ``#rrggbb``, ``r,g,b`` or a list."""
    if not isinstance(value, str):
        return check_rgb(list(value) if isinstance(value, Sequence) else value)
    text = value.strip().lower()
    if text in NAMED_COLOURS:
        return NAMED_COLOURS[text]
    match = _HEX.fullmatch(text)
    if match:
        number = int(match[1], 16)
        return ((number >> 16) & 0xFF, (number >> 8) & 0xFF, number & 0xFF)
    parts = text.split(",")
    if len(parts) == 3:
        try:
            return check_rgb([int(part) for part in parts])
        except ValueError:
            pass
    names = ", ".join(NAMED_COLOURS)
    raise ColourError(
        _("colour {value!r} is not a name ({names}), #rrggbb or r,g,b").format(value=value, names=names)
    )


def hex_colour(rgb: RGB) -> str:
    """``#rrggbb`` for SVG, HTML and rich styles."""
    return "#{:02x}{:02x}{:02x}".format(*check_rgb(rgb))


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``t`` of the way from ``a`` to ``b`` (0: ``a``, 1: ``b``)."""
    r, g, bl = (round(x * (1 - t) + y * t) for x, y in zip(a, b, strict=True))
    return (r, g, bl)


def scale(rgb: RGB, factor: float) -> RGB:
    """Every channel times ``factor`` (clamped to 0-255): a dimmer or brighter colour."""
    r, g, b = (min(255, max(0, round(c * factor))) for c in rgb)
    return (r, g, b)


def luminance(rgb: RGB) -> float:
    """Perceived brightness 0-1 (Rec. 709 weights on the raw channels): whether dark text reads on it."""
    r, g, b = rgb
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255
