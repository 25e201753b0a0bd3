from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.config import Config, default_config_text
from chessatron.errors import ConfigError


def test_defaults_are_all_simulated() -> None:
    config = Config.default()
    assert config.is_simulated
    assert config.urls["sensors"] == "sim://" and config.urls["magnet"] == "grbl://"


def test_shipped_default_file_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(default_config_text())
    assert Config.load(path).urls == Config.default().urls


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[grbl]\nurl = "ftp://x"', "unknown scheme 'ftp'"),
        ('[sensors]\nurl = "ws281x://18"', "unknown scheme 'ws281x'"),
        ("[grbl]\nbaudrate = -1", "baudrate"),
        ('[magnet]\nurl = "servo://17"', "method"),
        ('[gantry]\nurl = "sim://"', "unknown section"),
        ('layout = "missing.toml"', "cannot read layout"),
        ("[grbl\n", "not valid TOML"),
        ("[buzzer]\nmuted = 3", "true or false"),
    ],
)
def test_config_problems_are_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        Config.load(path)


def test_config_check_and_init_commands(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "chessatron.toml"
    runner = CliRunner()
    assert runner.invoke(main, ["config", "init", str(path)]).exit_code == 0
    again = runner.invoke(main, ["config", "init", str(path)])
    assert again.exit_code != 0 and "--force" in again.output
    checked = runner.invoke(main, ["config", "check", str(path)])
    assert checked.exit_code == 0 and "config ok" in checked.output
    path.write_text('[leds]\nurl = "neopixel://18"\n')
    bad = runner.invoke(main, ["config", "check", str(path)])
    assert bad.exit_code != 0 and "neopixel" in bad.output and "Traceback" not in bad.output


def test_layout_path_is_relative_to_the_config(tmp_path: Path) -> None:
    layout_text = (Path(__file__).parents[1] / "src" / "chessatron" / "data" / "table.toml").read_text()
    (tmp_path / "mytable.toml").write_text(
        layout_text.replace("carry_feed_mm_min = 4000.0", "carry_feed_mm_min = 3000.0")
    )
    path = tmp_path / "c.toml"
    path.write_text('layout = "mytable.toml"\n')
    assert Config.load(path).layout.carry_feed_mm_min == 3000.0


# --- typos and values out of range are errors that name the known keys ----------------------------


def check(tmp_path: Path, text: str) -> tuple[int, str]:
    """``chessatron config check`` of a config holding ``text``: the exit status and what it said."""
    path = tmp_path / "c.toml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["config", "check", str(path)])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # the machine would quietly run on the simulator
        (
            '[grbl]\nurll = "/dev/ttyUSB0"\n',
            "unknown key 'urll' in [grbl]; did you mean 'url'? (known: baudrate, home, tidy_while_thinking, "
            "url, wait_near_reply)",
        ),
        ('[sensor]\nurl = "sim://"\n', "unknown section 'sensor'; did you mean 'sensors'?"),
        ('layuot = "table.toml"\n', "unknown key 'layuot'; did you mean 'layout'?"),
        ("[buzzer]\nmute = true\n", "unknown key 'mute' in [buzzer]; did you mean 'muted'?"),
        ('[leds]\nURL = "sim://"\n', "unknown key 'URL' in [leds]; did you mean 'url'?"),
        ("[grbl]\nbaudrate = 0\n", "baudrate = 0 must be a whole number from 1 to 4000000"),
        ("[grbl]\nbaudrate = 99999999999\n", "from 1 to 4000000"),
        ("[display]\nurl = 3\n", "url = 3 must be a string"),
        ('grbl = "sim://"\n', "[grbl] must be a table"),
    ],
)
def test_a_typo_in_the_config_is_named_with_the_known_keys(tmp_path: Path, text: str, words: str) -> None:
    code, said = check(tmp_path, text)
    assert code == 2 and "config ok" not in said
    assert words in said, said
    assert len(said.strip().splitlines()) == 1, said


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            ("[table]", "[tabel]"),
            "unknown section 'tabel'; did you mean 'table'? (known: capture_zone, machine",
        ),
        (
            ("square_mm = 50.8", "squre_mm = 50.8"),
            "unknown key 'squre_mm' in [table]; did you mean 'square_mm'?",
        ),
        (('kinematics = "corexy"', 'kinematic = "corexy"'), "did you mean 'kinematics'?"),
        (('piece = "Q"', 'peice = "Q"'), "unknown key 'peice' in [[reserve]] #1; did you mean 'piece'?"),
        (
            ("[[capture_zone]]", "[[capture_zones]]"),
            "unknown section 'capture_zones'; did you mean 'capture_zone'?",
        ),
        (("columns = 12", "columns = 1000"), "columns = 1000 is not a whole number up to 64"),
        (("columns = 12", f"columns = {'9' * 400}"), "columns is a number of 400 digits, out of range"),
        (
            ("square_mm = 50.8", "square_mm = 1e300"),
            "square_mm = 1e+300 is not a number from -1e+06 to 1e+06",
        ),
        (("square_mm = 50.8", "square_mm = nan"), "square_mm is nan, not a finite number"),
        (("to = [1, 9]", "to = [1, 100000000]"), "to = [1, 100000000] is not a cell"),
        (("settle_s = 0.2", "settle_s = 3600"), "settle_s is 3600.0; it must be 0 to 60 seconds"),
        (
            ("junction_deviation_mm = 0.01", "junction_deviation_mm = -1"),
            "junction_deviation_mm must be zero or positive",
        ),
    ],
)
def test_a_typo_or_a_value_out_of_range_in_the_layout_is_named(
    tmp_path: Path, change: tuple[str, str], words: str
) -> None:
    layout_text = (Path(__file__).parents[1] / "src" / "chessatron" / "data" / "table.toml").read_text()
    assert change[0] in layout_text
    (tmp_path / "mytable.toml").write_text(layout_text.replace(change[0], change[1], 1))
    code, said = check(tmp_path, 'layout = "mytable.toml"\n')
    assert code == 2 and words in said and "mytable.toml" in said, said


SERVO_LAYOUT = 'layout = "servo.toml"\n'


def _servo_layout(tmp_path: Path) -> None:
    layout_text = (Path(__file__).parents[1] / "src" / "chessatron" / "data" / "table.toml").read_text()
    (tmp_path / "servo.toml").write_text(layout_text.replace('method = "spindle"', 'method = "servo"'))


@pytest.mark.parametrize(
    ("kind", "url", "words"),
    [
        ("grbl", "sim://?sped=max", "unknown option 'sped' in a sim:// URL; did you mean 'speed'?"),
        ("grbl", "sim://?speed=0", "speed='0'"),
        ("grbl", "sim://?error_line=x", "error_line='x' in a sim:// URL is not a number"),
        ("grbl", "sim://?garble_rate=3", "garble_rate must be between 0 and 1"),
        ("grbl", "socket://pi.local", "needs a host and a port"),
        ("grbl", "socket://pi.local:99999", "no valid port number"),
        (
            "grbl",
            "socket://pi.local:7000?loging=debug",
            "unknown option 'loging' in a socket:// URL; did you mean 'logging'?",
        ),
        ("grbl", "rfc2217://pi.local:2217?timeout=soon", "timeout='soon' is not a number"),
        ("grbl", "none://?speed=1", "unknown option 'speed'"),
        ("magnet", "grbl://?pin=3", "unknown option 'pin'"),
        (
            "sensors",
            "mcp23017://1?addresses=zz",
            "addresses='zz' in a mcp23017:// URL is not a list of numbers",
        ),
        ("sensors", "mcp23017://1?adresses=0x20", "did you mean 'addresses'?"),
        ("sensors", "mcp23017://1?addresses=0x20", "the pin map uses 8 expanders"),
        ("sensors", "mcp23017://1?addresses=0x19", "0x19 is not an mcp23017 address"),
        ("sensors", "mcp23017://bus?addresses=0x20", "does not name an I2C bus"),
        (
            "sensors",
            "mcp23017://1?map=/nowhere/pins.txt",
            "cannot read pin map '/nowhere/pins.txt': no such file",
        ),
        ("sensors", "sim://?flicker=2", "flicker probability 2.0 is not between 0 and 1"),
        ("sensors", "sim://?flicer=0.1", "did you mean 'flicker'?"),
        ("sensors", "sim://?stuck=z9:1", "z9"),
        ("sensors", "sim://?range=1000", "range='1000'"),
        ("sensors", "arduino:///dev/ttyACM0?baud=-5", "baud='-5'"),
        ("sensors", "arduino:///dev/ttyACM0?baudrate=9600", "did you mean 'baud'?"),
        ("sensors", "arduino+socket://pi.local", "needs a host and a port"),
        ("sensors", "bitboard:///dev/ttyUSB0?order=middle", "order='middle'"),
        ("sensors", "/dev/ttyACM0", "unknown scheme 'serial'"),
        ("leds", "ws281x://18?count=63", "63"),
        ("leds", "ws281x://18?brigthness=0.3", "did you mean 'brightness'?"),
        ("leds", "ws281x://18?brightness=2", "brightness=2.0 is not between 0 and 1"),
        ("leds", "ws281x://4", "GPIO 4 cannot drive WS281x LEDs"),
        ("leds", "sim://?order=zigzag", "cannot read LED mapping 'zigzag': no such file"),
        ("display", "lcd://1?address=0x99", "address=0x99"),
        ("display", "lcd://1?cols=100", "cols=100"),
        ("display", "lcd://1?adress=0x27", "did you mean 'address'?"),
        ("display", "sim://?cols=16", "only one of cols and rows"),
        ("display", "terminal://?stderr=maybe", "stderr='maybe'"),
        ("buzzer", "buzzer://12?mid=H5", "'H5'"),
        ("buzzer", "buzzer://12?octaves=20", "20 octaves"),
        ("buzzer", "buzzer://twelve", "pin number"),
        ("buzzer", "sim://?mute=1", "did you mean 'muted'?"),
    ],
)
def test_config_check_refuses_every_bad_device_url(tmp_path: Path, kind: str, url: str, words: str) -> None:
    """Checked with the backend's own parsing, so a URL ``config check`` passes is one ``play`` opens."""
    code, said = check(tmp_path, f'[{kind}]\nurl = "{url}"\n')
    assert code == 2 and "config ok" not in said, said
    assert words in said and url in said, said


@pytest.mark.parametrize(
    ("kind", "url"),
    [
        ("magnet", "servo://17?onn=80"),
        ("magnet", "servo://17?on=200"),
        ("magnet", "servo://17?settle=inf"),
        ("magnet", "gpio://23?settle=-1"),
        ("magnet", "gpio://pin"),
    ],
)
def test_config_check_refuses_bad_host_magnets(tmp_path: Path, kind: str, url: str) -> None:
    _servo_layout(tmp_path)
    code, said = check(tmp_path, f'{SERVO_LAYOUT}[{kind}]\nurl = "{url}"\n')
    assert code == 2 and url in said and len(said.strip().splitlines()) == 1, said


@pytest.mark.parametrize(
    ("kind", "url"),
    [
        ("grbl", "/dev/ttyUSB0"),
        ("grbl", "socket://192.168.1.20:23"),
        ("grbl", "rfc2217://pi.local:2217?logging=debug"),
        ("grbl", "sim://?speed=max&error_line=3&homing=0"),
        ("grbl", "none://"),
        ("sensors", "mcp23017://1?addresses=0x20,0x21,0x22,0x23,0x24,0x25,0x26,0x27"),
        ("sensors", "mcp23017:///dev/i2c-1"),
        ("sensors", "arduino:///dev/ttyACM1"),
        ("sensors", "arduino+socket://pi.local:7000?baud=9600"),
        ("sensors", "bitboard:///dev/ttyUSB1"),
        ("sensors", "sim://?flicker=0.01&stuck=e4:1&seed=7"),
        ("sensors", "none://"),
        ("leds", "ws281x://18?count=64&order=serpentine&brightness=0.3"),
        ("leds", "none://"),
        ("display", "lcd://1?address=0x27&cols=16&rows=2"),
        ("display", "sim://?cols=20&rows=4"),
        ("buzzer", "buzzer://12"),
        ("buzzer", "none://?muted=1"),
    ],
)
def test_config_check_passes_the_urls_of_the_readme_and_the_pi_guide(
    tmp_path: Path, kind: str, url: str
) -> None:
    code, said = check(tmp_path, f'[{kind}]\nurl = "{url}"\n')
    assert code == 0 and said.startswith("config ok") and f"{kind}: {url}" in said, said


def test_config_check_passes_a_servo_magnet_with_a_servo_layout(tmp_path: Path) -> None:
    _servo_layout(tmp_path)
    code, said = check(tmp_path, f'{SERVO_LAYOUT}[magnet]\nurl = "servo://17?on=80&off=10"\n')
    assert code == 0, said


def test_checking_device_urls_imports_no_vendor_library(tmp_path: Path) -> None:
    """``config check`` on a laptop: every backend's URL parsed, no Pi library loaded (nor needed)."""
    path = tmp_path / "pi.toml"
    path.write_text(
        '[sensors]\nurl = "mcp23017://1?addresses=0x20,0x21,0x22,0x23,0x24,0x25,0x26,0x27"\n'
        '[leds]\nurl = "ws281x://18?count=64"\n[display]\nurl = "lcd://1"\n[buzzer]\nurl = "buzzer://12"\n'
    )
    script = (
        "import sys\nfrom pathlib import Path\nfrom chessatron.config import Config\n"
        f"Config.load(Path({str(path)!r}))\n"
        "vendors = ('smbus2', 'gpiozero', 'rpi_ws281x', 'RPLCD', 'lgpio')\n"
        "print(sorted(m for m in vendors if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


# --- config check as a program (issue 36) ------------------------------------------------------------------


def config_check(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """``chessatron config check ARGS`` run as a person runs it, with a home of its own."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("CHESSATRON_")}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"), "NO_COLOR": "1"})
    return subprocess.run(
        [sys.executable, "-m", "chessatron.cli", "config", "check", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=60,
        check=False,
    )


def test_config_check_takes_config_and_tells_every_problem_in_a_maker_s_words(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    path = tmp_path / "my.toml"
    path.write_text(
        '[player]\nname = "Ann"\n[grbl]\nbaudrate = "12abc"\nurl = "/dev/ttyUSB0"\n'
        "[training]\nwatcher_loss = 5\n[lichess]\nurl = 'lichess.org'\n",
        encoding="utf-8",
    )
    bad = config_check("--config", str(path), home=home)
    assert bad.returncode == 2 and bad.stdout == "", bad
    assert bad.stderr.splitlines() == [
        f"chessatron: 3 problems in {path}:",
        "  [grbl] baudrate = '12abc' must be a whole number from 1 to 4000000 (GRBL 1.1 talks at 115200)",
        "  [training] watcher_loss = 5 must be a number above 0 and at most 2 (a drop in winning chances, "
        "which run from -1, lost, to +1, won; 0.3: a blunder, 0.2: a mistake)",
        "  [lichess] url = 'lichess.org' must be an http:// or https:// address, e.g. 'https://lichess.org'",
    ]
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace('"12abc"', "57600")
        .replace("5\n", "0.2\n")
        .replace("'lichess.org'", "'https://lichess.org'")
    )
    good = CliRunner().invoke(main, ["config", "check", str(path)])  # the path as an argument, as before
    assert good.exit_code == 0 and good.stderr == "", good.output
    assert good.stdout.splitlines()[:4] == [
        f"config ok: {str(path)!r}",
        "  layout: 12 × 10 squares of 50.8 mm, board a1 at (137, 86.2) mm, spindle magnet, corexy kinematics",
        "  player: Ann; the engine at full strength when a game names none; brown board; sound on",
        "  grbl: /dev/ttyUSB0 at 57600 baud",
    ]
    assert "Layout(" not in good.stdout
    # one problem: one line; the file read by default, once at its end, from the home folder
    mine = home / "config" / "chessatron" / "chessatron.toml"
    mine.parent.mkdir(parents=True)
    mine.write_text('[player]\nboard = "pink"\n', encoding="utf-8")
    one = CliRunner(
        env={"CHESSATRON_CONFIG": None, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")}
    )
    said = one.invoke(main, ["config", "check"])
    assert said.exit_code == 2 and said.stderr == (
        "chessatron: [player] board = 'pink' must be one of 'brown', 'blue', 'green', 'grey' "
        "(in ~/config/chessatron/chessatron.toml)\n"
    )
