"""The buttons beside the board: the press scripts of the simulated pad, the GPIO pad on gpiozero's mock
pins (a press is one press, a direction held down repeats, select never does), and their URLs, checked
as the config is."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from chessatron.buttons import GpioButtons, SimButtons, check_buttons_url, open_buttons, parse_presses
from chessatron.cli import main
from chessatron.config import Config
from chessatron.errors import ConfigError, MissingLibraryError
from chessatron.ports import Button, ButtonPad

from .test_feedback_fakes import mock_pin_factory

PINS = {"up": 5, "down": 6, "left": 13, "right": 19, "select": 26, "back": 21}
URL = "buttons://?" + "&".join(f"{name}={pin}" for name, pin in PINS.items())


def test_a_script_names_the_presses_in_order() -> None:
    assert parse_presses("up, up*2 select\n# a comment\nBACK  left # the rest is a comment\n") == (
        "up",
        "up",
        "up",
        "select",
        "back",
        "left",
    )
    assert parse_presses("") == ()


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("up,rigth", "unknown button 'rigth'; did you mean 'right'?"),
        ("up*0", "'up*0' must repeat a button 1 to 99 times"),
        ("up*x", "'up*x' must repeat"),
        ("select*1000", "1 to 99 times"),
    ],
)
def test_a_script_that_cannot_be_read_is_named(script: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_presses(script)


def test_the_simulated_pad_presses_its_script_then_is_finished() -> None:
    with open_buttons("sim://?script=right*2,select") as pad:
        assert isinstance(pad, SimButtons)
        assert [pad.read(0) for _ in range(4)] == ["right", "right", "select", None]
        assert pad.is_finished
        assert [button for _, button in pad.pressed] == ["right", "right", "select"]


def test_a_pad_without_a_script_waits_for_presses(tmp_path: Path) -> None:
    with open_buttons("sim://") as pad:
        assert isinstance(pad, SimButtons)
        assert pad.read(0.01) is None and not pad.is_finished
        pad.press("up", "back")
        assert pad.read(0) == "up" and pad.read() == "back"
        with pytest.raises(ConfigError, match="unknown button 'sideways'"):
            pad.press("sideways")  # type: ignore[arg-type]
    script = tmp_path / "presses.txt"
    script.write_text("# to the pawn\nup\nselect up*2 select\n", encoding="utf-8")
    with open_buttons(f"sim://?file={script}") as pad:
        assert [pad.read(0) for _ in range(5)] == ["up", "select", "up", "up", "select"]
    with open_buttons("none://") as none:
        assert none.read(0) is None and none.is_finished


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sim://?scrpit=up", "unknown option 'scrpit' in a sim:// URL; did you mean 'script'?"),
        ("sim://?script=up,sideways", "script=: unknown button 'sideways'"),
        ("sim://?script=up&file=x.txt", "not both"),
        ("sim://?file=/no/such/presses.txt", "cannot read press script '/no/such/presses.txt': "),
        (URL.replace("back=21", "bak=21"), "unknown option 'bak' in a buttons:// URL; did you mean 'back'?"),
        (URL.replace("&back=21", ""), "no pin for the back button"),
        (URL.replace("back=21", "back=26"), "back and select are both on GPIO 26"),
        (URL.replace("back=21", "back=40"), "back=40 is not a GPIO of the Raspberry Pi"),
        (URL.replace("back=21", "back=two"), "back='two' in a buttons:// URL is not a number"),
        (URL + "&repeat_ms=5", "repeat_ms=5 is not 20 to 2000 milliseconds"),
        ("buttons://5?up=5", "takes its pins as options"),
        ("gpio://5", "unknown buttons URL scheme 'gpio'"),
        ("none://?x=1", "unknown option 'x'"),
    ],
)
def test_a_bad_buttons_url_is_named_plainly(url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        check_buttons_url(url)


def test_the_config_checks_its_buttons_like_every_device(tmp_path: Path) -> None:
    assert Config.default().urls["buttons"] == "none://"
    assert Config.from_dict({"buttons": {"url": URL}}).urls["buttons"] == URL
    with pytest.raises(ConfigError, match=re.escape("unknown key 'ulr' in [buttons]; did you mean 'url'?")):
        Config.from_dict({"buttons": {"ulr": "sim://"}})
    with pytest.raises(
        ConfigError, match=re.escape("[buttons] url = 'lcd://1' has the unknown scheme 'lcd'")
    ):
        Config.from_dict({"buttons": {"url": "lcd://1"}})
    config = tmp_path / "chessatron.toml"
    config.write_text('[buttons]\nurl = "sim://?script=up,slect"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["config", "check", str(config)])
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "unknown button 'slect'; did you mean 'select'?" in lines[0]
    assert "Traceback" not in result.output


# --- the GPIO pad, on gpiozero's mock pins -------------------------------------------------------


@pytest.fixture
def pins() -> Iterator[Any]:
    with mock_pin_factory(pwm=False) as factory:
        yield factory


def drain(pad: ButtonPad) -> list[Button]:
    found: list[Button] = []
    while (button := pad.read(0)) is not None:
        found.append(button)
    return found


def test_each_button_is_read_on_its_own_pin(pins: Any) -> None:
    with open_buttons(URL) as pad:
        assert isinstance(pad, GpioButtons)
        for name, number in PINS.items():
            pin = pins.pin(number)
            pin.drive_low()  # wired to ground: pressed
            pin.drive_high()
            assert drain(pad) == [name]
        assert not pad.is_finished
    # closed: the pins are free for others
    with open_buttons(URL) as again:
        assert isinstance(again, GpioButtons)


def test_buttons_wired_to_three_volts_are_read_with_pull_downs(pins: Any) -> None:
    with open_buttons(URL + "&pull_up=0") as pad:
        pin = pins.pin(PINS["select"])
        pin.drive_high()
        pin.drive_low()
        assert drain(pad) == ["select"]


def test_a_direction_held_down_repeats_and_select_does_not(pins: Any) -> None:
    # defaults: the first repeat after 0.4 s, then every 0.12 s
    with open_buttons(URL) as pad:
        assert isinstance(pad, GpioButtons)
        up, select = pins.pin(PINS["up"]), pins.pin(PINS["select"])
        up.drive_low()
        time.sleep(0.1)
        assert drain(pad) == ["up"]  # one press, no repeat yet
        time.sleep(0.9)
        up.drive_high()
        repeats = drain(pad)
        assert len(repeats) >= 2 and set(repeats) == {"up"}  # held: it went on
        time.sleep(0.3)
        assert drain(pad) == []  # let go: it stopped
        up.drive_low()  # pressed again: the delay starts afresh
        time.sleep(0.1)
        up.drive_high()
        assert drain(pad) == ["up"]
        select.drive_low()
        time.sleep(0.6)
        select.drive_high()
        assert drain(pad) == ["select"]


def test_gpiozero_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gpiozero", None)
    with pytest.raises(MissingLibraryError, match=re.escape("pip install 'chessatron[pi]'")):
        open_buttons(URL)
    check_buttons_url(URL)  # checking the config needs no gpiozero
