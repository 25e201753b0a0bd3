"""The buttons beside the board: a d-pad, select and back, from whichever backend the URL names.

>>> with open_buttons("sim://?script=up,select") as pad:
...     pad.read(0), pad.read(0), pad.read(0), pad.is_finished
('up', 'select', None, True)
>>> open_buttons("none://").is_finished
True

URL schemes (each backend's module documents its options):

* ``buttons://?up=5&down=6&left=13&right=19&select=26&back=21`` — push buttons on GPIO pins, through
  gpiozero (:mod:`.gpio`, needs the ``pi`` extra), debounced, a direction held down repeating.
* ``sim://[NAME]?script=right,up*2,select`` or ``sim://?file=presses.txt`` — presses from a script, or
  from a program (:mod:`.sim`).
* ``none://`` — no buttons.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

from ..device import Device
from ..errors import ConfigError
from ..i18n import _
from ..ports import Button, ButtonPad, DeviceUrl
from .gpio import GpioButtons, PadSettings, pad_settings
from .sim import BUTTONS, SimButtons, parse_presses, sim_settings

__all__ = [
    "BUTTONS",
    "ButtonDevice",
    "GpioButtons",
    "NoButtons",
    "PadSettings",
    "SimButtons",
    "check_buttons_url",
    "open_buttons",
    "parse_presses",
]

SCHEMES = ("buttons", "sim", "none")


@runtime_checkable
class ButtonDevice(ButtonPad, Protocol):
    """What :func:`open_buttons` returns: the :class:`~chessatron.ports.ButtonPad` port, with ``with``."""

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class NoButtons(Device):
    """No buttons (``none://``): nothing is ever pressed."""

    def read(self, timeout_s: float | None = None) -> Button | None:
        self._check_open()
        return None

    @property
    def is_finished(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "<NoButtons>"


def open_buttons(url: str, *, pin_factory: Any = None) -> ButtonDevice:
    """The buttons ``url`` names. ``pin_factory`` is gpiozero's, for ``buttons://`` (tests pass a
    ``MockFactory``).

    Raises :class:`~chessatron.errors.ConfigError` for a URL it cannot use,
    :class:`~chessatron.errors.MissingLibraryError` when gpiozero is not installed and
    :class:`~chessatron.errors.HardwareError` when the pins cannot be read.
    """
    parsed = _parse(url)
    if parsed.scheme == "none":
        parsed.check_options(())
        return NoButtons()
    if parsed.scheme == "sim":
        settings = sim_settings(parsed)
        return SimButtons(settings.script or (), ends=settings.script is not None, name=settings.name)
    return GpioButtons(pad_settings(parsed), pin_factory=pin_factory)


def check_buttons_url(url: str) -> None:
    """Check ``url`` as :func:`open_buttons` would, without touching a pin or importing gpiozero
    (``chessatron config check``). Raises :class:`~chessatron.errors.ConfigError` naming what is wrong."""
    parsed = _parse(url)
    if parsed.scheme == "none":
        parsed.check_options(())
    elif parsed.scheme == "sim":
        sim_settings(parsed)
    else:
        pad_settings(parsed)


def _parse(url: str) -> DeviceUrl:
    parsed = DeviceUrl.parse(url)
    if parsed.scheme not in SCHEMES:
        raise ConfigError(
            _(
                "unknown buttons URL scheme {scheme!r} in {url!r}; use "
                "buttons://?up=5&down=6&left=13&right=19&select=26&back=21, sim://?script=… or none://"
            ).format(scheme=parsed.scheme, url=url)
        )
    return parsed
