"""The machine config changed from the web page (issue 26): every key documented, values checked by the
checker ``config check`` uses before anything is written, the file replaced atomically with its comments
kept and the previous one kept beside it, behind the page's token, and used from the next game on."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from chessatron.config import KEYS, TOP_KEYS, Config, default_config_text
from chessatron.config_keys import CONFIG_KEYS, KEY_OF
from chessatron.config_write import SettingError, save_settings, settings_in
from chessatron.game.requests import GameRequest
from chessatron.game.runner import GameRunner
from chessatron.web.app import create_app
from chessatron.web.server import start_in_thread

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
    assert "must be a whole number from 1" in refused.json()["error"]

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
