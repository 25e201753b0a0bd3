"""Device ports: what the core asks of each kind of hardware, whatever the backend.

Every backend is chosen by a URL in the config, the way pyserial's ``serial_for_url`` picks a handler:
``sim://`` for the built-in simulator, a pyserial URL or device path for serial devices, and a scheme of
its own for the rest (``mcp23017://1?addresses=0x20,0x21``, ``ws281x://18?count=64``, ``servo://17``).
Devices are context managers with an idempotent ``close()``.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias, runtime_checkable
from urllib.parse import parse_qsl, urlsplit

from .errors import ConfigError
from .i18n import _
from .keys import unknown
from .planning.layout import Cell

Occupancy: TypeAlias = frozenset[Cell]
"""The table cells (whole table: board, capture zones, reserve) where a sensor sees a piece."""

RGB: TypeAlias = tuple[int, int, int]
"""A colour, 0-255 per channel."""

Note: TypeAlias = tuple[str | None, float]
"""A note name such as ``"A4"`` (None: a rest) and its length in seconds."""

Button: TypeAlias = Literal["up", "down", "left", "right", "select", "back"]
"""A button of the d-pad beside the board: four directions, select and back."""


@runtime_checkable
class OccupancySensor(Protocol):
    """Reads which cells hold a piece. Never which piece: recognition infers that."""

    def scan(self) -> Occupancy: ...

    def close(self) -> None: ...


@runtime_checkable
class LedStrip(Protocol):
    """One RGB LED per square (or per table cell, as the mapping says)."""

    def show(self, colours: Mapping[Cell, RGB]) -> None:
        """Light exactly these cells (others off)."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class StatusDisplay(Protocol):
    def show(self, lines: Sequence[str]) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class Buzzer(Protocol):
    muted: bool

    def play(self, tune: Sequence[Note]) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class Speaker(Protocol):
    """Says sentences aloud (moves, results, warnings), one after another, without holding the game up."""

    muted: bool

    def say(self, text: str) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class Microphone(Protocol):
    """Hears the player: one utterance at a time, as 16-bit mono PCM at 16 kHz."""

    def listen(self, timeout_s: float) -> bytes | None:
        """The next utterance, once its speaker has stopped; None when none began within ``timeout_s``."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class ButtonPad(Protocol):
    """A d-pad with select and back: the presses in the order they were made, debounced, a direction held
    down repeating."""

    def read(self, timeout_s: float | None = None) -> Button | None:
        """The next press, waiting up to ``timeout_s`` seconds for one (None: as long as it takes); None
        when none came."""
        ...

    @property
    def is_finished(self) -> bool:
        """No press will ever come (a simulated pad's script has run out)."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class HostMagnet(Protocol):
    """A magnet the host switches (a servo or a GPIO electromagnet), synchronised on GRBL's G4 P0."""

    def engage(self) -> None: ...

    def release(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class DeviceUrl:
    """A parsed device URL: ``scheme://target?key=value&…``.

    >>> DeviceUrl.parse("mcp23017://1?addresses=0x20,0x21")
    DeviceUrl(scheme='mcp23017', target='1', params={'addresses': '0x20,0x21'})
    >>> DeviceUrl.parse("/dev/ttyUSB0").scheme
    'serial'
    """

    scheme: str
    target: str
    params: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, url: str) -> DeviceUrl:
        url = url.strip()
        if not url:
            raise ConfigError(_("an empty device URL; use sim:// for the simulator"))
        if "://" not in url:
            return cls("serial", url, {})  # a bare device path such as /dev/ttyACM0 or COM3
        try:
            parts = urlsplit(url)
            params = dict(parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query)))
        except ValueError as exc:
            raise ConfigError(
                _("cannot read the options of {url!r}: {reason}").format(url=url, reason=exc)
            ) from exc
        return cls(parts.scheme.lower(), parts.netloc + parts.path, params)

    def check_options(self, known: Collection[str], example: str = "") -> None:
        """Raise :class:`ConfigError` for an option the backend does not know (most often a typo), naming
        the closest known one and listing them all.

        >>> DeviceUrl.parse("sim://?flicer=0.1").check_options(("flicker", "seed"))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        chessatron.errors.ConfigError: unknown option 'flicer' in a sim:// URL; did you mean 'flicker'? ...
        """
        for key in self.params:
            if key not in known:
                message = unknown("option", key, known, scheme=self.scheme)
                if example:
                    message = _("{problem}; e.g. {example}").format(problem=message, example=example)
                raise ConfigError(message)

    def number(self, key: str, default: float) -> float:
        text = self.params.get(key)
        if text is None:
            return default
        try:
            return float(int(text, 0)) if text.lower().startswith("0x") else float(text)
        except ValueError:
            raise ConfigError(
                _("option {key}={value!r} in a {scheme}:// URL is not a number").format(
                    key=key, value=text, scheme=self.scheme
                )
            ) from None

    def integer(self, key: str, default: int) -> int:
        value = self.number(key, default)
        if not math.isfinite(value) or value != int(value):
            text = self.params[key]
            raise ConfigError(
                _("option {key}={value!r} in a {scheme}:// URL is not a whole number").format(
                    key=key, value=text, scheme=self.scheme
                )
            )
        return int(value)

    def flag(self, key: str, default: bool = False) -> bool:
        text = self.params.get(key)
        if text is None:
            return default
        if text.lower() in ("1", "true", "yes", "on", ""):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ConfigError(
            _("option {key}={value!r} in a {scheme}:// URL is not yes or no").format(
                key=key, value=text, scheme=self.scheme
            )
        )

    def integers(self, key: str, default: Sequence[int]) -> list[int]:
        text = self.params.get(key)
        if text is None:
            return list(default)
        try:
            return [int(part, 0) for part in text.split(",") if part.strip()]
        except ValueError:
            raise ConfigError(
                _("option {key}={value!r} in a {scheme}:// URL is not a list of numbers").format(
                    key=key, value=text, scheme=self.scheme
                )
            ) from None
