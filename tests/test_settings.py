"""The machine config changed from the web page (issue 26): every key documented, values checked by the
checker ``config check`` uses before anything is written, the file replaced atomically with its comments
kept and the previous one kept beside it, behind the page's token, and used from the next game on."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Iterator
from pathlib import Path

import chess.pgn
import httpx
import pytest
import tomlkit
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.config import KEYS, TOP_KEYS, Config, default_config_text
from chessatron.config_keys import CONFIG_KEYS, KEY_OF
from chessatron.config_problems import ConfigProblems
from chessatron.config_write import SettingError, problems_in, save_settings, settings_in
from chessatron.game.records.store import export_pgn, list_games
from chessatron.game.requests import GameRequest
from chessatron.game.runner import GameRunner
from chessatron.web.app import create_app
from chessatron.web.server import start_in_thread

from .journeys import Terminal

TOKEN = "settings-token-for-tests"


def test_every_key_of_the_config_is_documented_and_only_those() -> None:
    documented = {key.key for key in CONFIG_KEYS}
    expected = {f"{section}.{name}" for section, names in KEYS.items() for name in names} | set(TOP_KEYS)
    assert documented == expected
    for key in CONFIG_KEYS:
        assert len(key.doc) > 30 and key.doc[0].isupper() and key.doc.endswith("."), key.key
    # the defaults are the config's own: an empty file and the documented defaults are the same machine
    defaults = {key.key: key.default for key in CONFIG_KEYS if key.default is not None and key.section}
    sections: dict[str, dict[str, object]] = {}
    for dotted, value in defaults.items():
        section, name = dotted.split(".")
        sections.setdefault(section, {})[name] = value
    assert Config.from_dict(sections) == Config.from_dict({})


def test_a_change_keeps_the_comments_and_the_previous_file(tmp_path: Path) -> None:
    path = tmp_path / "chessatron.toml"
    path.write_text(default_config_text(), encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    saved = save_settings(path, {"leds.url": "ws281x://18?count=64&brightness=0.5", "grbl.home": True})
    text = path.read_text(encoding="utf-8")
    assert 'url = "ws281x://18?count=64&brightness=0.5"' in text and "home = true" in text
    assert "# online games (chessatron online)" in text  # the comments stay
    assert saved.previous == tmp_path / "chessatron.toml.bak"
    assert saved.previous.read_text(encoding="utf-8") == before
    assert Config.load(path) == saved.config and saved.config.home
    assert settings_in(path)["leds.url"] == "ws281x://18?count=64&brightness=0.5"
    # null: back to the default, the key gone from the file
    save_settings(path, {"grbl.home": None, "speech.muted": True})
    assert "grbl.home" not in settings_in(path) and settings_in(path)["speech.muted"] is True
    assert saved.previous.read_text(encoding="utf-8") == text  # one step back


@pytest.mark.parametrize(
    ("changes", "key", "words"),
    [
        ({"grbl.url": "ftp://table"}, "grbl.url", "unknown scheme"),
        ({"leds.url": "ws281x://18?count=64&brightness=7"}, "leds.url", "brightness"),
        ({"grbl.baudrate": 0}, "grbl.baudrate", "baudrate"),
        ({"grbl.baudrate": "fast"}, "grbl.baudrate", "whole number"),
        ({"buzzer.muted": "yes"}, "buzzer.muted", "true or false"),
        ({"lichess.url": "lichess.org"}, "lichess.url", "http"),
        ({"layout": "no-such-table.toml"}, "layout", "no-such-table.toml"),
        ({"grbl.urll": "sim://"}, "grbl.urll", "no key"),
    ],
)
def test_a_wrong_value_is_refused_naming_its_key_and_nothing_is_written(
    tmp_path: Path, changes: dict[str, object], key: str, words: str
) -> None:
    path = tmp_path / "chessatron.toml"
    path.write_text(default_config_text(), encoding="utf-8")
    with pytest.raises(SettingError, match=words) as refused:
        save_settings(path, changes)
    assert refused.value.key == key
    assert path.read_text(encoding="utf-8") == default_config_text()
    assert not (tmp_path / "chessatron.toml.bak").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chessatron.toml"]  # no temporary file left


def test_a_missing_file_is_made_from_the_commented_default(tmp_path: Path) -> None:
    path = tmp_path / "config" / "chessatron.toml"
    saved = save_settings(path, {"grbl.wait_near_reply": False})
    assert saved.previous is None and not saved.config.wait_near_reply
    assert "# chessatron machine config" in path.read_text(encoding="utf-8")


@pytest.fixture
def page(tmp_path: Path) -> Iterator[tuple[GameRunner, httpx.Client, Path]]:
    """A runner and its page behind a token, with a config file the settings change."""
    path = tmp_path / "chessatron.toml"
    path.write_text(default_config_text(), encoding="utf-8")
    with (
        tempfile.TemporaryDirectory() as folder,
        GameRunner(
            Config.load(path), games_dir=Path(folder) / "g", speed=None, state_path=Path(folder) / "s.json"
        ) as runner,
    ):
        app = create_app(runner, runner.live, token=TOKEN, games_dir=runner.games_dir, config_path=path)
        with (
            start_in_thread(app, token=TOKEN) as server,
            httpx.Client(base_url=server.url.split("?")[0]) as client,
        ):
            yield runner, client, path


def test_the_settings_are_behind_the_token_and_used_from_the_next_game(
    page: tuple[GameRunner, httpx.Client, Path],
) -> None:
    runner, client, path = page
    assert client.get("/api/v1/settings").status_code == 401
    assert client.post("/api/v1/settings", json={"values": {"grbl.home": True}}).status_code == 401
    auth = {"authorization": f"Bearer {TOKEN}"}
    listed = client.get("/api/v1/settings", headers=auth).json()
    assert listed["path"] == str(path) and [k["key"] for k in listed["keys"]] == [k.key for k in CONFIG_KEYS]
    grbl = next(k for k in listed["keys"] if k["key"] == "grbl.url")
    assert (
        grbl["value"] == "sim://"
        and grbl["doc"] == KEY_OF["grbl.url"].doc
        and "/dev/ttyUSB0" in grbl["examples"]
    )

    refused = client.post("/api/v1/settings", json={"values": {"grbl.baudrate": -5}}, headers=auth)
    assert refused.status_code == 422 and refused.json()["field"] == "grbl.baudrate"
    assert refused.json()["error"] == "1 setting needs fixing: [grbl] baudrate; nothing was saved"
    [problem] = refused.json()["errors"]
    assert problem["field"] == "grbl.baudrate" and "must be a whole number from 1" in problem["error"]

    saved = client.post("/api/v1/settings", json={"values": {"grbl.wait_near_reply": False}}, headers=auth)
    assert saved.status_code == 200, saved.text
    assert (
        saved.json()["previous"] == str(path) + ".bak" and saved.json()["applies"] == "from the next game on"
    )
    assert runner.config.wait_near_reply  # not while a game could be under way...
    runner.start_game(GameRequest(white="engine:20:depth=1", black="engine:20:depth=1"))
    try:
        assert not runner.config.wait_near_reply and not runner.session.config.wait_near_reply  # ...the next
    finally:
        runner.stop()
        assert runner.wait(30)
    assert runner.last_error is None
    assert client.get("/api/v1/settings", headers=auth).json()["previous"] == str(path) + ".bak"


# --- one checker: every key's wrong values refused, naming the key, all at once (issue 36) -----------------

#: A wrong value for every key of the config, and what its refusal says.
WRONG: dict[str, tuple[object, str]] = {
    "layout": ("no-such-table.toml", "no such file"),
    "player.name": ("Ann\nExample", "control character"),
    "player.level": ("25", "outside 0 to 20"),
    "player.board": ("pink", "must be one of 'brown', 'blue', 'green', 'grey'"),
    "player.sound": ("yes", "true or false"),
    "player.language": ("klingon", "must be one of 'en', 'de', 'fr', 'es', 'nl', 'it'"),
    "grbl.url": ("ftp://table", "unknown scheme 'ftp'"),
    "grbl.baudrate": ("12abc", "must be a whole number from 1 to 4000000"),
    "grbl.home": (1, "true or false"),
    "grbl.wait_near_reply": ("no", "true or false"),
    "grbl.tidy_while_thinking": ("sometimes", "must be one of 'board', 'always', 'never'"),
    "magnet.url": ("servo://17", "the layout switches the magnet in the G-code"),
    "sensors.url": ("sim://?flicker=2", "not between 0 and 1"),
    "leds.url": ("ws281x://18?brightness=3", "brightness=3.0 is not between 0 and 1"),
    "display.url": ("lcd://1?cols=100", "cols=100"),
    "buzzer.url": ("buzzer://twelve", "pin number"),
    "buzzer.muted": ("yes", "true or false"),
    "buttons.url": ("buttons://?up=x", "up"),
    "speech.url": ("espeak://?sped=160", "did you mean 'speed'?"),
    "speech.muted": (2, "true or false"),
    "microphone.url": ("mic://?rat=48000", "did you mean 'rate'?"),
    "microphone.wide_voices": ("true", "true or false"),
    "training.watcher": ("on", "true or false"),
    "training.watcher_loss": (5, "above 0 and at most 2"),
    "eboard.protocol": ("chesslink", "one of 'millennium'"),
    "eboard.transport": ("wifi", "'serial' or 'ble'"),
    "eboard.port": ("", "serial device"),
    "eboard.person": ("both", "'white', 'black' or 'none'"),
    "eboard.name": ("x" * 30, "1 to 29 characters"),
    "lichess.url": ("lichess.org", "http:// or https://"),
}


def _data(values: dict[str, object]) -> dict[str, object]:
    """``{"grbl.url": …}`` as parsed TOML: ``{"grbl": {"url": …}}``."""
    data: dict[str, object] = {}
    for dotted, value in values.items():
        section, _, name = dotted.rpartition(".")
        if section:
            data.setdefault(section, {})[name] = value  # type: ignore[index]
        else:
            data[name] = value
    return data


def test_every_key_has_a_wrong_value_here() -> None:
    assert set(WRONG) == {key.key for key in CONFIG_KEYS}


@pytest.mark.parametrize("key", list(WRONG))
def test_a_wrong_value_of_any_key_is_refused_naming_the_key(key: str) -> None:
    value, words = WRONG[key]
    with pytest.raises(ConfigProblems) as refused:
        Config.from_dict(_data({key: value}))
    [problem] = refused.value.problems
    assert problem.key == key and words in problem.message, problem
    assert problem.message.startswith(f"{KEY_OF[key].title} = {value!r}"), problem


def test_every_wrong_value_is_told_at_once_the_file_once_at_the_end(tmp_path: Path) -> None:
    wrong = {key: value for key, (value, _) in WRONG.items() if key != "layout"}  # (a layout hides some)
    path = tmp_path / "chessatron.toml"
    path.write_text(tomlkit.dumps(_data(wrong)), encoding="utf-8")
    with pytest.raises(ConfigProblems) as refused:
        Config.load(path)
    # each told once, in the file's order
    assert [problem.key for problem in refused.value.problems] == list(wrong)
    said = str(refused.value)
    assert not said.startswith(("'", str(tmp_path))) and said.count(str(path)) == 1
    assert said.endswith(f"({len(wrong)} problems in {path})")


def test_12abc_is_no_baudrate_anywhere(tmp_path: Path) -> None:
    """Typed into the file (as a text: unquoted it is no TOML), sent by a page, or saved: never read as 12."""
    path = tmp_path / "chessatron.toml"
    path.write_text('[grbl]\nbaudrate = "12abc"\n', encoding="utf-8")
    with pytest.raises(ConfigProblems, match=r"^\[grbl\] baudrate = '12abc' must be a whole number"):
        Config.load(path)
    path.write_text("[grbl]\nbaudrate = 12abc\n", encoding="utf-8")
    with pytest.raises(ConfigProblems, match=r"^the file is not valid TOML .*\(in "):
        Config.load(path)
    path.write_text(default_config_text(), encoding="utf-8")
    with pytest.raises(SettingError, match="'12abc' is not a whole number; write digits only"):
        save_settings(path, {"grbl.baudrate": "12abc"})
    assert path.read_text(encoding="utf-8") == default_config_text()


def test_two_wrong_values_saved_are_both_refused_and_nothing_is_written(tmp_path: Path) -> None:
    path = tmp_path / "chessatron.toml"
    path.write_text(default_config_text(), encoding="utf-8")
    with pytest.raises(SettingError) as refused:
        save_settings(path, {"training.watcher_loss": 5, "grbl.baudrate": 0, "player.name": "Ann"})
    assert [p.key for p in refused.value.problems] == ["grbl.baudrate", "training.watcher_loss"]  # page order
    assert str(tmp_path) not in str(refused.value)
    assert path.read_text(encoding="utf-8") == default_config_text()
    # a file mended by hand badly is told too, each problem with its key, for the page to show
    path.write_text(default_config_text().replace("baudrate = 115200", "baudrate = 0"), encoding="utf-8")
    assert [p.key for p in problems_in(path)] == ["grbl.baudrate"]
    assert settings_in(path)["grbl.baudrate"] == 0


def test_the_player_s_settings_and_the_config_check_summary(tmp_path: Path) -> None:
    path = tmp_path / "chessatron.toml"
    saved = save_settings(
        path,
        {"player.name": " Ann Example ", "player.level": "5", "player.board": "blue", "player.sound": False},
    )
    player = saved.config.player
    assert (player.name, player.level, player.board, player.sound) == ("Ann Example", "5", "blue", False)
    assert saved.config.muted  # no sound: the buzzer too
    assert saved.config.summary()[:2] == [
        "layout: 12 × 10 squares of 50.8 mm, board a1 at (137, 86.2) mm, spindle magnet, corexy kinematics",
        "player: Ann Example; engine level 5 when a game names none; blue board; sound off",
    ]


def test_a_game_played_after_the_name_is_set_names_the_player_in_its_pgn(tmp_path: Path) -> None:
    """A person sets their name (and the engine's level) as the page does, plays at the terminal's keyboard
    against the engine named without a level, stops after a move each; the saved game's PGN names them."""
    home = tmp_path / "home"
    config = home / "config" / "chessatron" / "chessatron.toml"
    save_settings(config, {"player.name": "Ann Example", "player.level": "20:depth=1"})
    games = tmp_path / "games"
    with Terminal(["play", "--games-dir", str(games), "--max-plies", "2"], home) as terminal:
        terminal.expect(r"White to move")
        terminal.line("e4")
        assert terminal.exit_status() == 0
        terminal.assert_clean()
    [game] = list_games(games)
    pgn = chess.pgn.read_game(io.StringIO(export_pgn([game.game_id], games)))
    assert pgn is not None
    assert pgn.headers["White"] == "Ann Example" and pgn.headers["WhiteKind"] == "keyboard"
    assert (
        pgn.headers["Black"] == "Stockfish" and pgn.headers["BlackLevel"] == "20:depth=1"
    )  # the default level
    assert len(list(pgn.mainline_moves())) == 2


def test_play_name_is_checked_as_the_config_s_name(tmp_path: Path) -> None:
    said = CliRunner().invoke(main, ["play", "--games-dir", str(tmp_path), "--name", "Ann\tExample"])
    assert said.exit_code == 2 and "Invalid value for --name" in said.output
    assert "control character" in said.output and not list(tmp_path.iterdir())  # no game begun
