from __future__ import annotations

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
