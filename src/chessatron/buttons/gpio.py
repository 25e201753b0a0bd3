"""A d-pad of push buttons on the Raspberry Pi's GPIO pins, through gpiozero's ``Button``.

``buttons://?up=5&down=6&left=13&right=19&select=26&back=21&pull_up=1&bounce_ms=20&repeat_delay_ms=400&repeat_ms=120``
    One button per GPIO (BCM numbers), each wired from its pin to ground (``pull_up=1``, the Pi's own
    pull-up resistors) or to 3.3 V with a pull-down (``pull_up=0``). gpiozero debounces each contact
    for ``bounce_ms``; a direction held down repeats after ``repeat_delay_ms``, then every
    ``repeat_ms``, as a d-pad does (select and back never repeat).

Only this module imports gpiozero for the buttons, and only when a ``buttons://`` pad is opened.
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..device import Device
from ..errors import ConfigError, HardwareError
from ..feedback.device import missing_library
from ..i18n import _
from ..ports import Button, DeviceUrl
from .sim import BUTTONS

LOGGER = logging.getLogger(__name__)

#: The directions, which repeat while held down.
DIRECTIONS: tuple[Button, ...] = ("up", "down", "left", "right")
OPTIONS = (*BUTTONS, "pull_up", "bounce_ms", "repeat_delay_ms", "repeat_ms")
EXAMPLE = "buttons://?up=5&down=6&left=13&right=19&select=26&back=21"
#: The GPIOs of a Raspberry Pi's 40-pin header (BCM numbering).
GPIO_PINS = range(28)


@dataclass(frozen=True)
class PadSettings:
    """Where each button is wired and how its presses are read."""

    pins: dict[Button, int]
    """The GPIO (BCM) of each button."""
    pull_up: bool = True
    """Buttons connect their pin to ground (the Pi pulls it up); False: to 3.3 V, pulled down."""
    bounce_s: float = 0.02
    """How long a contact may chatter after it closes or opens (seconds)."""
    repeat_delay_s: float = 0.4
    """A direction held down this long starts repeating (seconds)..."""
    repeat_s: float = 0.12
    """...and then repeats this often (seconds)."""


def pad_settings(url: DeviceUrl) -> PadSettings:
    """The settings of a ``buttons://`` URL, checked: every button on a pin of its own."""
    url.check_options(OPTIONS, EXAMPLE)
    if url.target.strip("/"):
        raise ConfigError(
            _("buttons:// takes its pins as options, as in {example}; got {target!r}").format(
                example=EXAMPLE, target=url.target
            )
        )
    pins: dict[Button, int] = {}
    for button in BUTTONS:
        if button not in url.params:
            raise ConfigError(
                # TRANSLATORS: {button} is the option's name in the URL: up, down, left, right, select, back
                _("no pin for the {button} button; give every button its GPIO, as in {example}").format(
                    button=button, example=EXAMPLE
                )
            )
        pin = url.integer(button, -1)
        if pin not in GPIO_PINS:
            raise ConfigError(
                _("{button}={pin!r} is not a GPIO of the Raspberry Pi; use 0 to 27 (BCM)").format(
                    button=button, pin=pin
                )
            )
        if pin in pins.values():
            other = next(name for name, used in pins.items() if used == pin)
            raise ConfigError(
                _("{button} and {other} are both on GPIO {pin}; give each button its own pin").format(
                    button=button, other=other, pin=pin
                )
            )
        pins[button] = pin
    timing = {}
    for key, default, low, high in (
        ("bounce_ms", 20, 0, 500),
        ("repeat_delay_ms", 400, 50, 5000),
        ("repeat_ms", 120, 20, 2000),
    ):
        value = url.integer(key, default)
        if not low <= value <= high:
            raise ConfigError(
                _("{key}={value!r} is not {low} to {high} milliseconds").format(
                    key=key, value=value, low=low, high=high
                )
            )
        timing[key] = value / 1000
    return PadSettings(
        pins,
        pull_up=url.flag("pull_up", True),
        bounce_s=timing["bounce_ms"],
        repeat_delay_s=timing["repeat_delay_ms"],
        repeat_s=timing["repeat_ms"],
    )


class GpioButtons(Device):
    """Six gpiozero ``Button`` devices feeding one queue of presses.

    ``pin_factory`` is gpiozero's (default: :attr:`gpiozero.Device.pin_factory`; tests pass a
    ``MockFactory``).
    """

    def __init__(self, settings: PadSettings, *, pin_factory: Any = None) -> None:
        self.settings = settings
        self._queue: queue.Queue[Button] = queue.Queue()
        self._buttons: list[Any] = []
        try:
            import gpiozero
        except ImportError as exc:
            raise missing_library(exc.name or "gpiozero", EXAMPLE) from exc
        try:
            for name, pin in settings.pins.items():
                repeats = name in DIRECTIONS
                button = gpiozero.Button(
                    pin,
                    pull_up=settings.pull_up,
                    bounce_time=settings.bounce_s or None,
                    hold_time=settings.repeat_delay_s,
                    hold_repeat=repeats,
                    pin_factory=pin_factory,
                )
                self._buttons.append(button)
                button.when_pressed = self._pressed(name)
                if repeats:
                    button.when_held = self._held(name, button)
                    button.when_released = self._released(button)
        except (gpiozero.GPIOZeroError, OSError) as exc:
            self.close()
            raise HardwareError(
                _(
                    "cannot read the buttons on GPIO {pins} ({reason}); check that the pins are free and "
                    "that "
                    "this is a Raspberry Pi with gpiozero's pin libraries (lgpio or RPi.GPIO)"
                ).format(
                    pins=", ".join(map(str, settings.pins.values())), reason=f"{type(exc).__name__}: {exc}"
                )
            ) from exc
        except BaseException:
            self.close()
            raise

    # gpiozero calls these from its own threads
    def _pressed(self, name: Button) -> Callable[[], None]:
        def pressed() -> None:
            self._queue.put(name)

        return pressed

    def _held(self, name: Button, button: Any) -> Callable[[], None]:
        def held() -> None:
            # gpiozero fires when_held every hold_time: the first repeat after the delay, the next ones
            # at the repeat rate (its hold thread reads hold_time afresh each time)
            button.hold_time = self.settings.repeat_s
            self._queue.put(name)

        return held

    def _released(self, button: Any) -> Callable[[], None]:
        def released() -> None:
            button.hold_time = self.settings.repeat_delay_s

        return released

    def read(self, timeout_s: float | None = None) -> Button | None:
        self._check_open()
        try:
            if timeout_s is not None and timeout_s <= 0:
                return self._queue.get_nowait()
            return self._queue.get(timeout=timeout_s)
        except queue.Empty:
            return None

    @property
    def is_finished(self) -> bool:
        return False

    def _close(self) -> None:
        for button in self._buttons:
            try:
                button.close()
            except Exception as exc:  # a pin that will not let go must not stop the shutdown
                LOGGER.warning("a button did not close: %s", exc)
        self._buttons.clear()

    def __repr__(self) -> str:
        pins = ", ".join(f"{name}={pin}" for name, pin in self.settings.pins.items())
        return f"<GpioButtons {pins}>"
