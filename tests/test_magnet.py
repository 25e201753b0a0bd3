"""The host magnet: one contract for every backend (the simulator, a servo and an electromagnet on
gpiozero's mock pins, GRBL-switched), then what each backend does on the wire.

A real magnet joins the contract when ``CHESSATRON_HW_MAGNET`` names it (e.g. ``servo://17``); then
nothing is observed, but every call must succeed and the magnet must end released.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from chessatron.errors import ConfigError, DeviceClosedError, MagnetError, MissingLibraryError
from chessatron.gantry.magnet import (
    ElectroMagnet,
    GrblSwitchedMagnet,
    MagnetDevice,
    RecordingMagnet,
    ServoMagnet,
    open_magnet,
    servo_pin_factory,
)
from chessatron.ports import HostMagnet

from .test_feedback_fakes import mock_pin_factory

SERVO = "servo://17?on=80&off=10&min_angle=0&max_angle=180&min_pulse=0.0005&max_pulse=0.0025&settle=0.3"


def pulse_s(angle: float) -> float:
    """The pulse width that puts the SERVO above at ``angle`` degrees."""
    return 0.0005 + angle / 180 * 0.002


@pytest.fixture
def pins() -> Iterator[Any]:
    with mock_pin_factory() as factory:
        yield factory


@pytest.fixture
def plain_pins() -> Iterator[Any]:
    with mock_pin_factory(pwm=False) as factory:
        yield factory


def last_pulse_s(pin: Any) -> float | None:
    """The last pulse width sent to a servo pin (it stays there after the pulses stop)."""
    duties = [state.state for state in pin.states if state.state]
    return duties[-1] * 0.02 if duties else None


# --- the contract ----------------------------------------------------------------------------------


@dataclass
class MagnetRig:
    magnet: MagnetDevice
    holding: Callable[[], bool | None]
    """Whether the magnet would hold a piece now; None when the test cannot tell."""


def _hardware() -> list[Any]:
    url = os.environ.get("CHESSATRON_HW_MAGNET")
    return [pytest.param(url, id=f"hw:{url}")] if url else []


@pytest.fixture(params=["sim", "servo", "gpio", "grbl", *_hardware()])
def rig(request: pytest.FixtureRequest) -> Iterator[MagnetRig]:
    if request.param in ("servo", "gpio"):
        with mock_pin_factory(pwm=request.param == "servo") as factory:
            if request.param == "servo":
                servo_pin = factory.pin(17)
                servo = open_magnet(SERVO, sleep=lambda s: None)
                yield MagnetRig(servo, lambda: last_pulse_s(servo_pin) == pytest.approx(pulse_s(80)))
                servo.close()
            else:
                gpio_pin = factory.pin(23)
                magnet = open_magnet("gpio://23", sleep=lambda s: None)
                yield MagnetRig(magnet, lambda: bool(gpio_pin.state))
                magnet.close()
        return
    if request.param == "sim":
        sim = open_magnet("sim://")
        made = MagnetRig(sim, lambda: sim.is_engaged)
    elif request.param == "grbl":
        made = MagnetRig(open_magnet("grbl://"), lambda: None)
    else:
        made = MagnetRig(open_magnet(request.param), lambda: None)
    yield made
    made.magnet.close()


def test_magnet_starts_released_and_follows_engage_and_release(rig: MagnetRig) -> None:
    assert isinstance(rig.magnet, HostMagnet)
    assert rig.holding() in (False, None)
    rig.magnet.engage()
    assert rig.holding() in (True, None)
    rig.magnet.engage()  # engaging twice is harmless
    assert rig.holding() in (True, None)
    rig.magnet.release()
    assert rig.holding() in (False, None)


def test_close_releases_the_magnet_first(rig: MagnetRig) -> None:
    with rig.magnet as magnet:
        magnet.engage()
    assert rig.holding() in (False, None)
    rig.magnet.close()
    rig.magnet.release()  # already released: nothing to do, no error
    with pytest.raises(DeviceClosedError, match="closed"):
        rig.magnet.engage()


# --- servo -----------------------------------------------------------------------------------------


def test_servo_angles_become_pulse_widths_then_the_pulses_stop(pins: Any) -> None:
    pin = pins.pin(17)
    seen: list[tuple[float | None, float]] = []
    magnet = open_magnet(SERVO, sleep=lambda s: seen.append((pin.frequency, pin.state * 0.02)))
    magnet.engage()
    assert pin.frequency is None  # detached after settling: no hum while it holds
    magnet.release()
    magnet.close()
    # construction (released), engage, release, close (released): each a 50 Hz pulse train while it swings
    assert [(f, round(p, 7)) for f, p in seen] == [
        (50, round(pulse_s(10), 7)),
        (50, round(pulse_s(80), 7)),
        (50, round(pulse_s(10), 7)),
        (50, round(pulse_s(10), 7)),
    ]
    assert pin.frequency is None


def test_servo_waits_the_settle_time_and_can_stay_attached(pins: Any) -> None:
    waits: list[float] = []
    pin = pins.pin(17)
    with open_magnet("servo://17?settle=0.25&detach=0", sleep=waits.append) as magnet:
        magnet.engage()
        assert pin.frequency == 50 and waits == [0.25, 0.25]
        assert pin.state * 0.02 == pytest.approx(pulse_s(80))
    assert pin.frequency is None


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("on=200", "on=200.0 lies outside the servo's range"),
        ("on=10&off=10", "never move"),
        ("min_pulse=0.003", "cannot drive a servo"),
        ("settle=-1", "settle=-1.0 is negative"),
        ("min_angle=90&max_angle=90", "both 90.0"),
        ("onn=80", "unknown option 'onn'"),
    ],
)
def test_bad_servo_options_are_named(pins: Any, query: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        open_magnet(f"servo://17?{query}", sleep=lambda s: None)


def test_servo_uses_pigpio_when_its_daemon_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    closed: list[bool] = []

    class PiGPIOFactory(MockFactory):  # type: ignore[misc]  # stands in for the real one: same name, mock pins
        def __init__(self) -> None:
            super().__init__(pin_class=MockPWMPin)

        def close(self) -> None:
            closed.append(True)
            super().close()

    module = types.ModuleType("gpiozero.pins.pigpio")
    module.PiGPIOFactory = PiGPIOFactory  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gpiozero.pins.pigpio", module)
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    magnet = open_magnet("servo://17", sleep=lambda s: None)
    assert isinstance(magnet, ServoMagnet)
    assert isinstance(magnet._servo.pin_factory, PiGPIOFactory)
    magnet.close()
    assert closed == [True] and Device.pin_factory is None


def test_without_pigpio_the_servo_warns_and_uses_the_default(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from gpiozero import Device

    monkeypatch.setitem(sys.modules, "gpiozero.pins.pigpio", None)
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    with caplog.at_level(logging.WARNING, logger="chessatron.gantry.magnet"):
        assert servo_pin_factory() == (None, None)
    assert "pigpio is not available" in caplog.text and "pigpiod" in caplog.text


def test_a_chosen_pin_factory_is_kept(pins: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert servo_pin_factory() == (None, None)  # Device.pin_factory is set: keep it
    assert servo_pin_factory(pins) == (pins, None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    from gpiozero import Device

    monkeypatch.setattr(Device, "pin_factory", None)
    assert servo_pin_factory() == (None, None)


# --- electromagnet ---------------------------------------------------------------------------------


def test_electromagnet_pin_is_high_only_while_engaged_and_low_after_close(plain_pins: Any) -> None:
    pin = plain_pins.pin(23)
    magnet = open_magnet("gpio://23", sleep=lambda s: None)
    assert isinstance(magnet, ElectroMagnet)
    assert pin.state is False or pin.state == 0
    magnet.engage()
    assert pin.state
    magnet.release()
    assert not pin.state
    magnet.engage()
    magnet.close()
    assert not pin.state
    pin.assert_states([False, True, False, True, False])


def test_active_low_electromagnet_drives_the_pin_low_to_engage(plain_pins: Any) -> None:
    pin = plain_pins.pin(23)
    waits: list[float] = []
    with open_magnet("gpio://23?active_high=0&settle=0.05", sleep=waits.append) as magnet:
        assert pin.state
        magnet.engage()
        assert not pin.state
        magnet.release()
        assert pin.state
    assert waits == [0.05, 0.05]


def test_a_pin_in_use_is_a_magnet_error(pins: Any) -> None:
    with open_magnet("gpio://23"), pytest.raises(MagnetError, match="GPIO 23"):
        open_magnet("servo://23", sleep=lambda s: None)


@pytest.mark.parametrize("url", ["servo://17", "gpio://23"])
def test_without_gpiozero_the_message_names_the_pi_extra(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setitem(sys.modules, "gpiozero", None)
    with pytest.raises(MissingLibraryError, match=re.escape("pip install 'chessatron[pi]'")):
        open_magnet(url, sleep=lambda s: None)


# --- simulator, GRBL, URLs -------------------------------------------------------------------------


def test_the_recording_magnet_keeps_every_switch_with_its_time() -> None:
    times = iter([1.0, 2.0, 3.0])
    magnet = open_magnet("sim://lab", clock=lambda: next(times))
    assert isinstance(magnet, RecordingMagnet) and magnet.name == "lab"
    magnet.engage()
    magnet.release()
    magnet.close()
    assert magnet.events == [(1.0, "engage"), (2.0, "release"), (3.0, "release")]


def test_grbl_magnet_leaves_the_switching_to_the_gcode() -> None:
    with open_magnet("grbl://") as magnet:
        assert isinstance(magnet, GrblSwitchedMagnet)
        magnet.engage()
        magnet.release()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("servo://", "needs a GPIO"),
        ("gpio://23?active_hi=1", "unknown option 'active_hi'"),
        ("gpio://23?settle=-0.1", "negative"),
        ("relay://5", "unknown scheme 'relay'"),
        ("grbl://?pin=3", "unknown option 'pin'"),
    ],
)
def test_bad_magnet_urls_are_named(pins: Any, url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        open_magnet(url, sleep=lambda s: None)
