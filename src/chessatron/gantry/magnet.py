"""The host magnet: the magnet the Raspberry Pi switches itself, between G-code moves that GRBL has
finished (the host waits for the ``ok`` of a ``G4 P0`` before it engages or releases).

:func:`open_magnet` picks the backend by URL:

``servo://PIN?on=80&off=10&min_angle=0&max_angle=180&min_pulse=0.0005&max_pulse=0.0025&settle=0.3&detach=1``
    A hobby servo on GPIO ``PIN`` (BCM) swings a permanent magnet up to the board (``on`` degrees) or
    away from it (``off``), through gpiozero's ``AngularServo``. Each swing waits ``settle`` seconds,
    then stops the pulses (``detach=1``) so the servo does not hum and jitter while it holds. Uses the
    pigpio pin factory (hardware-timed pulses) when the pigpio daemon runs, else gpiozero's default
    with a logged warning.
``gpio://PIN?active_high=1&settle=0``
    An electromagnet switched through a transistor or MOSFET on GPIO ``PIN``, via gpiozero's
    ``DigitalOutputDevice``.
``sim://[world]``
    :class:`RecordingMagnet`, the device-level simulator: records every engage and release.
``grbl://``
    The magnet hangs on GRBL's spindle or coolant output and the G-code program switches it: the host
    does nothing (:class:`GrblSwitchedMagnet`).

Safety first: every magnet starts released, and ``close()`` always releases it before anything else.
Only this module imports gpiozero for the magnet (the buzzer backend is the other gpiozero user).

>>> with open_magnet("sim://") as magnet:
...     magnet.engage()
...     magnet.release()
...     magnet.actions()
['engage', 'release']
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable
from typing import Any, Literal, Protocol, runtime_checkable

from ..errors import ConfigError, MagnetError
from ..feedback.device import Closing, OutputDevice, check_options, missing_library, pin_number
from ..i18n import _
from ..ports import DeviceUrl, HostMagnet

__all__ = [
    "ElectroMagnet",
    "GrblSwitchedMagnet",
    "MagnetDevice",
    "RecordingMagnet",
    "ServoMagnet",
    "check_magnet_url",
    "open_magnet",
]

LOGGER = logging.getLogger(__name__)

Sleep = Callable[[float], None]
Action = Literal["engage", "release"]


@runtime_checkable
class MagnetDevice(HostMagnet, Closing, Protocol):
    """What :func:`open_magnet` returns: the :class:`~chessatron.ports.HostMagnet` port, with ``with``,
    and whether the magnet holds now (as the host commanded it; always False for ``grbl://``)."""

    @property
    def is_engaged(self) -> bool: ...


#: A hobby servo expects one pulse every 20 ms.
SERVO_FRAME_S = 0.02


class RecordingMagnet(OutputDevice):
    """The device-level simulator: records ``(time, "engage" | "release")`` in ``events``."""

    def __init__(self, *, name: str = "default", clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self._clock = clock
        self.events: list[tuple[float, Action]] = []
        self.is_engaged = False

    def engage(self) -> None:
        self._check_open()
        self._record("engage")

    def release(self) -> None:
        if not self.closed:
            self._record("release")

    def actions(self) -> list[Action]:
        """The engages and releases, oldest first."""
        return [action for _at, action in self.events]

    def _record(self, action: Action) -> None:
        self.events.append((self._clock(), action))
        self.is_engaged = action == "engage"

    def _close(self) -> None:
        self._record("release")

    def __repr__(self) -> str:
        return f"<RecordingMagnet {self.name!r} {'engaged' if self.is_engaged else 'released'}>"


class GrblSwitchedMagnet(OutputDevice):
    """The magnet the G-code program switches (spindle or coolant output): the host does nothing."""

    is_engaged = False

    def engage(self) -> None:
        self._check_open()

    def release(self) -> None:
        pass

    def __repr__(self) -> str:
        return "<GrblSwitchedMagnet: switched by the G-code program>"


class ServoMagnet(OutputDevice):
    """A servo that swings a permanent magnet to the board (engaged) or away from it (released).

    Angles are in degrees between ``min_angle`` and ``max_angle``, which the servo reaches with pulses of
    ``min_pulse`` and ``max_pulse`` seconds. ``sleep`` waits out ``settle`` (tests pass one that does not
    sleep); ``pin_factory`` is gpiozero's (default: pigpio if its daemon answers, see
    :func:`servo_pin_factory`).
    """

    def __init__(
        self,
        pin: int,
        *,
        on_angle: float = 80.0,
        off_angle: float = 10.0,
        min_angle: float = 0.0,
        max_angle: float = 180.0,
        min_pulse: float = 0.0005,
        max_pulse: float = 0.0025,
        settle: float = 0.3,
        detach: bool = True,
        sleep: Sleep = time.sleep,
        pin_factory: Any = None,
    ) -> None:
        self.pin = pin
        self.on_angle, self.off_angle = on_angle, off_angle
        self.settle, self.detach = settle, detach
        self.is_engaged = False
        self._sleep = sleep
        self._servo: Any = None
        self._own_factory: Any = None
        _check_servo(on_angle, off_angle, min_angle, max_angle, min_pulse, max_pulse, settle)
        try:
            import gpiozero
        except ImportError as exc:
            raise missing_library(exc.name or "gpiozero", f"servo://{pin}") from exc
        try:
            factory, self._own_factory = servo_pin_factory(pin_factory)
            try:
                self._servo = gpiozero.AngularServo(
                    pin,
                    initial_angle=off_angle,  # start released
                    min_angle=min_angle,
                    max_angle=max_angle,
                    min_pulse_width=min_pulse,
                    max_pulse_width=max_pulse,
                    frame_width=SERVO_FRAME_S,
                    pin_factory=factory,
                )
            except (gpiozero.GPIOZeroError, OSError) as exc:
                raise MagnetError(
                    _(
                        "cannot drive a servo on GPIO {pin!r} ({error}); check that the pin is free and that "
                        "this is a Raspberry Pi"
                    ).format(pin=pin, error=f"{type(exc).__name__}: {exc}")
                ) from exc
            self._settle()
        except BaseException:
            self.close()
            raise

    def engage(self) -> None:
        """Swing the magnet to the board and wait for it to get there."""
        self._check_open()
        self._swing(self.on_angle)
        self.is_engaged = True

    def release(self) -> None:
        """Swing the magnet away from the board (nothing after :meth:`close`, which released it)."""
        if self.closed:
            return
        self._swing(self.off_angle)
        self.is_engaged = False

    def _swing(self, angle: float) -> None:
        try:
            self._servo.angle = angle
        except Exception as exc:
            raise MagnetError(
                _("the servo on GPIO {pin} did not take angle {angle!r}: {error}").format(
                    pin=self.pin, angle=angle, error=exc
                )
            ) from exc
        self._settle()

    def _settle(self) -> None:
        if self.settle:
            self._sleep(self.settle)
        if self.detach:
            # No pulses, no hum: the arm holds by friction, and the next swing re-attaches it.
            self._servo.detach()

    def _close(self) -> None:
        try:
            if self._servo is not None:
                try:
                    self._servo.angle = self.off_angle
                    self.is_engaged = False
                    self._settle()
                finally:
                    self._servo.close()
        finally:
            if self._own_factory is not None:
                self._own_factory.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "engaged" if self.is_engaged else "released"
        return f"<ServoMagnet GPIO{self.pin} on={self.on_angle} off={self.off_angle} {state}>"


class ElectroMagnet(OutputDevice):
    """An electromagnet on a GPIO pin (through a transistor): on while engaged."""

    def __init__(
        self,
        pin: int,
        *,
        active_high: bool = True,
        settle: float = 0.0,
        sleep: Sleep = time.sleep,
        pin_factory: Any = None,
    ) -> None:
        self.pin = pin
        self.settle = settle
        self.is_engaged = False
        self._sleep = sleep
        self._device: Any = None
        _check_settle(settle)
        try:
            import gpiozero
        except ImportError as exc:
            raise missing_library(exc.name or "gpiozero", f"gpio://{pin}") from exc
        try:
            self._device = gpiozero.DigitalOutputDevice(
                pin, active_high=active_high, initial_value=False, pin_factory=pin_factory
            )
        except (gpiozero.GPIOZeroError, OSError) as exc:
            raise MagnetError(
                _(
                    "cannot switch an electromagnet on GPIO {pin!r} ({error}); check that the pin is free "
                    "and "
                    "that this is a Raspberry Pi"
                ).format(pin=pin, error=f"{type(exc).__name__}: {exc}")
            ) from exc

    def engage(self) -> None:
        self._check_open()
        self._device.on()
        self.is_engaged = True
        if self.settle:
            self._sleep(self.settle)

    def release(self) -> None:
        if self.closed:
            return
        self._device.off()
        self.is_engaged = False
        if self.settle:
            self._sleep(self.settle)

    def _close(self) -> None:
        if self._device is None:
            return
        try:
            self._device.off()
            self.is_engaged = False
        finally:
            self._device.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "engaged" if self.is_engaged else "released"
        return f"<ElectroMagnet GPIO{self.pin} {state}>"


def servo_pin_factory(explicit: Any = None) -> tuple[Any, Any]:
    """The gpiozero pin factory for a servo, and the factory to close with it (None if not ours).

    ``explicit`` wins; a factory already chosen (``Device.pin_factory`` or ``GPIOZERO_PIN_FACTORY``) is
    kept; otherwise pigpio, whose DMA-timed pulses hold a servo still where software PWM makes it
    twitch. Without pigpio this logs a warning and returns gpiozero's default (None).
    """
    if explicit is not None:
        return explicit, None
    import gpiozero

    if gpiozero.Device.pin_factory is not None or os.environ.get("GPIOZERO_PIN_FACTORY"):
        return None, None
    try:
        from gpiozero.pins.pigpio import PiGPIOFactory

        factory = PiGPIOFactory()
    except (ImportError, OSError) as exc:
        LOGGER.warning(
            "pigpio is not available (%s); the servo magnet gets software-timed pulses and may jitter. "
            "for steady pulses: sudo apt install pigpio python3-pigpio && "
            "sudo systemctl enable --now pigpiod",
            exc,
        )
        return None, None
    return factory, factory


def _check_servo(
    on: float, off: float, low: float, high: float, min_pulse: float, max_pulse: float, settle: float
) -> None:
    if low == high:
        raise ConfigError(
            _(
                "min_angle and max_angle are both {angle!r}; give the servo's real range, e.g. 0 and 180"
            ).format(angle=low)
        )
    for name, angle in (("on", on), ("off", off)):
        if not min(low, high) <= angle <= max(low, high):
            raise ConfigError(
                _("{option}={angle!r} lies outside the servo's range {low!r} to {high!r} degrees").format(
                    option=name, angle=angle, low=low, high=high
                )
            )
    if on == off:
        raise ConfigError(
            _("on and off are both {angle!r} degrees; the magnet would never move").format(angle=on)
        )
    if not 0 < min_pulse < max_pulse < SERVO_FRAME_S:
        raise ConfigError(
            _(
                "pulses of {shortest!r} to {longest!r} s cannot drive a servo; most take 0.0005 to 0.0025"
            ).format(shortest=min_pulse, longest=max_pulse)
        )
    if not 0 <= settle < math.inf:
        raise ConfigError(
            _(
                "settle={settle!r} is negative or infinite; give the seconds the arm needs to swing, e.g. 0.3"
            ).format(settle=settle)
        )


def open_magnet(
    url: str,
    *,
    sleep: Sleep = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    pin_factory: Any = None,
) -> MagnetDevice:
    """The host magnet ``url`` names (see the module docstring for schemes and options).

    ``sleep`` waits out settling times; ``clock`` stamps the simulator's records; ``pin_factory`` is
    gpiozero's.

    Raises :class:`~chessatron.errors.ConfigError` for a bad URL,
    :class:`~chessatron.errors.MissingLibraryError` without gpiozero, and
    :class:`~chessatron.errors.MagnetError` when the pin cannot be driven.
    """
    parsed = DeviceUrl.parse(url)
    settings = _settings(parsed, url)
    if parsed.scheme == "servo":
        return ServoMagnet(**settings, sleep=sleep, pin_factory=pin_factory)
    if parsed.scheme == "gpio":
        return ElectroMagnet(**settings, sleep=sleep, pin_factory=pin_factory)
    if parsed.scheme == "sim":
        return RecordingMagnet(name=parsed.target or "default", clock=clock)
    return GrblSwitchedMagnet()


def check_magnet_url(url: str) -> None:
    """Check ``url`` as :func:`open_magnet` would, without touching a pin or importing gpiozero
    (``chessatron config check``). Raises :class:`~chessatron.errors.ConfigError` naming what is wrong."""
    _settings(DeviceUrl.parse(url), url)


def _settings(parsed: DeviceUrl, url: str) -> dict[str, Any]:
    """The keyword arguments of the magnet ``parsed`` names, checked."""
    if parsed.scheme == "servo":
        check_options(
            parsed, ("on", "off", "min_angle", "max_angle", "min_pulse", "max_pulse", "settle", "detach")
        )
        settings: dict[str, Any] = {
            "pin": pin_number(parsed, "servo://17"),
            "on_angle": parsed.number("on", 80.0),
            "off_angle": parsed.number("off", 10.0),
            "min_angle": parsed.number("min_angle", 0.0),
            "max_angle": parsed.number("max_angle", 180.0),
            "min_pulse": parsed.number("min_pulse", 0.0005),
            "max_pulse": parsed.number("max_pulse", 0.0025),
            "settle": parsed.number("settle", 0.3),
            "detach": parsed.flag("detach", True),
        }
        _check_servo(
            settings["on_angle"],
            settings["off_angle"],
            settings["min_angle"],
            settings["max_angle"],
            settings["min_pulse"],
            settings["max_pulse"],
            settings["settle"],
        )
        return settings
    if parsed.scheme == "gpio":
        check_options(parsed, ("active_high", "settle"))
        settle = parsed.number("settle", 0.0)
        _check_settle(settle)
        return {
            "pin": pin_number(parsed, "gpio://23"),
            "active_high": parsed.flag("active_high", True),
            "settle": settle,
        }
    if parsed.scheme in ("sim", "grbl"):
        check_options(parsed, ())
        return {}
    raise ConfigError(
        _(
            "magnet URL {url!r} has the unknown scheme {scheme!r}; use servo://, gpio://, sim:// or grbl://"
        ).format(url=url, scheme=parsed.scheme)
    )


def _check_settle(settle: float) -> None:
    if not 0 <= settle < math.inf:
        raise ConfigError(
            _("settle={settle!r} is negative or infinite; give the seconds the magnet needs, or 0").format(
                settle=settle
            )
        )
