"""The machine config: one TOML file naming every device by URL, with documented defaults (all
simulated), and the table layout it uses.

Found at ``--config FILE``, else ``$CHESSATRON_CONFIG``, else ``~/.config/chessatron/chessatron.toml``;
when none exists every device is the simulator. ``chessatron config check`` validates a file and names the
first problem plainly; ``chessatron config init`` writes the commented default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeAlias, get_args
from urllib.parse import urlsplit

from . import files
from .errors import ConfigError
from .keys import unknown
from .planning.layout import Layout
from .ports import DeviceUrl

#: The schemes each kind of device understands (a bare path such as /dev/ttyUSB0 is ``serial``).
SCHEMES: Mapping[str, frozenset[str]] = {
    # none: a board without a robot (the players move every piece; sensors confirm)
    "grbl": frozenset({"sim", "serial", "socket", "rfc2217", "loop", "spy", "hwgrep", "alt", "none"}),
    "magnet": frozenset({"grbl", "servo", "gpio", "sim"}),
    "sensors": frozenset({"sim", "mcp23017", "arduino", "bitboard", "none"}),
    "leds": frozenset({"sim", "ws281x", "none"}),
    "display": frozenset({"terminal", "lcd", "sim", "none"}),
    "buzzer": frozenset({"buzzer", "sim", "none"}),
    "speech": frozenset({"espeak", "sim", "none"}),
    "microphone": frozenset({"mic", "sim", "none"}),
    "buttons": frozenset({"buttons", "sim", "none"}),
}

DEFAULT_URLS: Mapping[str, str] = {
    "grbl": "sim://",
    "magnet": "grbl://",
    "sensors": "sim://",
    "leds": "sim://",
    "display": "terminal://",
    "buzzer": "sim://",
    "speech": "sim://",
    "microphone": "sim://",
    # no d-pad unless the config names one: a player at the keyboard or the board needs none
    "buttons": "none://",
}

#: The keys each section takes; anything else is a typo and an error (``urll`` would leave the simulator on).
KEYS: Mapping[str, frozenset[str]] = {
    "grbl": frozenset({"url", "baudrate", "home", "wait_near_reply", "tidy_while_thinking"}),
    "magnet": frozenset({"url"}),
    "sensors": frozenset({"url"}),
    "leds": frozenset({"url"}),
    "display": frozenset({"url"}),
    "buzzer": frozenset({"url", "muted"}),
    "speech": frozenset({"url", "muted"}),
    "microphone": frozenset({"url", "wide_voices"}),
    "buttons": frozenset({"url"}),
    "lichess": frozenset({"url"}),
    "training": frozenset({"watcher", "watcher_loss"}),
}

#: The keys at the top of the file, before the first section.
TOP_KEYS = frozenset({"layout"})

#: Baud rates beyond this are no serial line's (GRBL runs at 115200).
MAX_BAUDRATE = 4_000_000


#: Where online games are played unless ``[lichess] url`` (or ``online --url``) names another server.
DEFAULT_LICHESS_URL = "https://lichess.org"


def _is_http_url(text: str) -> bool:
    """Whether ``text`` is an http(s) address with a host.

    >>> _is_http_url("https://lichess.org"), _is_http_url("http://127.0.0.1:9663/")
    (True, True)
    >>> _is_http_url("lichess.org")
    False
    """
    parsed = urlsplit(text)
    return parsed.scheme in ("http", "https") and bool(parsed.hostname)


def default_config_path() -> Path:
    explicit = os.environ.get("CHESSATRON_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "chessatron" / "chessatron.toml"


def default_config_text() -> str:
    """The commented default config shipped with the package."""
    return (resources.files("chessatron") / "data" / "chessatron.toml").read_text(encoding="utf-8")


TidyWhen: TypeAlias = Literal["board", "always", "never"]
"""While whom the robot tidies the pieces its replies parked (``[grbl] tidy_while_thinking``)."""


@dataclass(frozen=True)
class Config:
    """Validated machine config."""

    layout: Layout
    urls: Mapping[str, str]
    """Device URL by kind: grbl, magnet, sensors, leds, display, buzzer, buttons, speech, microphone."""
    baudrate: int = 115200
    home: bool = False
    """Home the machine (``$H``) before each game."""
    muted: bool = False
    source: str = "the built-in defaults"
    lichess_url: str = DEFAULT_LICHESS_URL
    """The server online games are played on (``[lichess] url``): lichess.org, or any server that speaks
    the lichess API."""
    speech_muted: bool | None = None
    """``[speech] muted`` when the config sets it; None: decided by :meth:`speaks`."""
    wait_near_reply: bool = True
    """``[grbl] wait_near_reply``: while a person thinks, the empty magnet goes where the robot's reply
    will most likely begin (false: it stays where the last move left it, and the gantry is quiet; the
    engine still thinks on the person's time)."""
    watcher: bool = False
    """``[training] watcher``: after a person's move that throws the game away, the table says so before
    the engine answers and offers to take it back (:mod:`chessatron.training.watcher`)."""
    watcher_loss: float = 0.3
    """``[training] watcher_loss``: the winning chances a move must give away for the watcher to speak, on
    lichess's -1..+1 scale (0.3: a blunder, 0.2: a mistake)."""
    tidy_while_thinking: TidyWhen = "board"
    """``[grbl] tidy_while_thinking``: while whom the robot takes the pieces its replies parked beside the
    board on to their capture zones: ``"board"``, a person at the board (a piece they lift stops it before
    their hand is near), ``"always"``, anyone who thinks (a person who types or clicks may wait a moment
    for a step under way), ``"never"`` (they wait for the reset after the game; a quiet gantry)."""
    wide_voices: bool = True
    """``[microphone] wide_voices``: each utterance is heard at three vocal-tract lengths, for voices far
    from the speech model's (false: once, three times quicker, for a slow computer)."""

    def speaks(self, *, voice_player: bool = False) -> bool:
        """Whether the speaker talks: as ``[speech] muted`` says when it is set; otherwise when there is no
        display (``[display] url = "none://"``) or a voice player plays, who must hear the moves read back.

        >>> Config.default().speaks(), Config.default().speaks(voice_player=True)
        (False, True)
        """
        if self.speech_muted is not None:
            return not self.speech_muted
        return voice_player or self.device("display").scheme == "none"

    def device(self, kind: str) -> DeviceUrl:
        return DeviceUrl.parse(self.urls[kind])

    @property
    def is_simulated(self) -> bool:
        return self.device("grbl").scheme == "sim"

    @classmethod
    def default(cls) -> Config:
        return cls.from_dict({}, source="the built-in defaults")

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        """The config at ``path`` (or the default location); the defaults when no file exists there
        and no path was given explicitly. Raises :class:`ConfigError` naming the file and the problem."""
        explicit = path is not None or "CHESSATRON_CONFIG" in os.environ
        target = path or default_config_path()
        if files.is_missing(target):
            if explicit:
                raise ConfigError(f"no config file at {str(target)!r}; `chessatron config init` writes one")
            return cls.default()
        return cls.from_text(files.read_text(target, files.CONFIG), target)

    @classmethod
    def from_text(cls, text: str, path: Path) -> Config:
        """The config a file at ``path`` holding ``text`` is: what :meth:`load` (and so ``chessatron
        config check``) makes of it, checked the same way, so that a file about to be written (the web
        page's settings) can be checked before it replaces the one there. Raises :class:`ConfigError`
        naming ``path`` and the problem."""
        try:
            data = files.parse_toml(text)
        except ValueError as exc:
            raise files.CONFIG.fail(path, str(exc)) from exc
        return cls.from_dict(data, source=repr(str(path)), base=path.parent)

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], *, source: str = "the config", base: Path | None = None
    ) -> Config:
        """Validate parsed TOML: every section and key known, every device URL one its backend accepts
        (checked by the backend's own parsing, nothing opened), the layout loaded and checked."""
        for key, value in data.items():
            if key in KEYS:
                if not isinstance(value, Mapping):
                    raise ConfigError(f'{source}: [{key}] must be a table, as in [{key}] url = "…"')
                for inner in value:
                    if inner not in KEYS[key]:
                        raise ConfigError(f"{source}: {unknown('key', inner, KEYS[key], where=f'[{key}]')}")
            elif key not in TOP_KEYS:
                what = "section" if isinstance(value, Mapping) else "key"
                raise ConfigError(f"{source}: {unknown(what, key, set(KEYS) | TOP_KEYS)}")
        layout_value = data.get("layout")
        if layout_value is None:
            layout = Layout.default()
        elif isinstance(layout_value, str) and layout_value.strip():
            layout_path = Path(layout_value)
            if base is not None and not layout_path.is_absolute():
                layout_path = base / layout_path
            layout = Layout.from_toml(layout_path)
        else:
            raise ConfigError(f"{source}: layout = {layout_value!r} must be the path of a layout TOML file")
        urls: dict[str, str] = {}
        for kind, schemes in SCHEMES.items():
            url = data.get(kind, {}).get("url", DEFAULT_URLS[kind])
            if not isinstance(url, str):
                raise ConfigError(f"{source}: [{kind}] url = {url!r} must be a string")
            parsed = DeviceUrl.parse(url)
            if parsed.scheme.partition("+")[0] not in schemes:
                raise ConfigError(
                    f"{source}: [{kind}] url = {url!r} has the unknown scheme {parsed.scheme!r}; "
                    f"use one of {', '.join(sorted(s + '://' for s in schemes))}"
                )
            try:
                check_device_url(kind, url, layout)
            except ConfigError as exc:
                raise type(exc)(f"{source}: [{kind}] url = {url!r}: {exc}") from exc
            urls[kind] = url
        grbl = data.get("grbl", {})
        baudrate = grbl.get("baudrate", 115200)
        if not isinstance(baudrate, int) or isinstance(baudrate, bool) or not 0 < baudrate <= MAX_BAUDRATE:
            raise ConfigError(
                f"{source}: [grbl] baudrate = {baudrate!r} must be a whole number from 1 to {MAX_BAUDRATE} "
                "(GRBL 1.1 talks at 115200)"
            )
        home = grbl.get("home", False)
        wait_near_reply = grbl.get("wait_near_reply", True)
        tidy_while_thinking = grbl.get("tidy_while_thinking", "board")
        if tidy_while_thinking not in get_args(TidyWhen):
            raise ConfigError(
                f"{source}: [grbl] tidy_while_thinking = {tidy_while_thinking!r} must be one of "
                f"{', '.join(repr(when) for when in get_args(TidyWhen))}"
            )
        muted = data.get("buzzer", {}).get("muted", False)
        speech_muted = data.get("speech", {}).get("muted")
        wide_voices = data.get("microphone", {}).get("wide_voices", True)
        for name, value in (
            ("[grbl] home", home),
            ("[grbl] wait_near_reply", wait_near_reply),
            ("[buzzer] muted", muted),
            ("[speech] muted", speech_muted),
            ("[microphone] wide_voices", wide_voices),
        ):
            if value is not None and not isinstance(value, bool):
                raise ConfigError(f"{source}: {name} = {value!r} must be true or false")
        magnet = DeviceUrl.parse(urls["magnet"]).scheme
        method = layout.magnet.method
        if method == "servo" and magnet == "grbl":
            raise ConfigError(
                f"{source}: the layout's magnet method is 'servo' (switched by the host) but [magnet] url is "
                f"{urls['magnet']!r}; set it to servo://PIN (or sim:// on the simulator)"
            )
        if method != "servo" and magnet in ("servo", "gpio"):
            raise ConfigError(
                f"{source}: the layout switches the magnet in the G-code ({method!r}) but [magnet] url is "
                f'{urls["magnet"]!r}; set method = "servo" in the layout\'s [magnet] or use url = "grbl://"'
            )
        training = data.get("training", {})
        watcher = training.get("watcher", False)
        watcher_loss = training.get("watcher_loss", 0.3)
        if not isinstance(watcher, bool):
            raise ConfigError(f"{source}: [training] watcher = {watcher!r} must be true or false")
        if (
            isinstance(watcher_loss, bool)
            or not isinstance(watcher_loss, int | float)
            or not 0 < watcher_loss <= 2
        ):
            raise ConfigError(
                f"{source}: [training] watcher_loss = {watcher_loss!r} must be a number of winning chances "
                "above 0 and at most 2 (0.3: a blunder, 0.2: a mistake)"
            )
        lichess = data.get("lichess", {})
        lichess_url = lichess.get("url", DEFAULT_LICHESS_URL)
        if not isinstance(lichess_url, str) or not _is_http_url(lichess_url):
            raise ConfigError(
                f"{source}: [lichess] url = {lichess_url!r} must be an http:// or https:// address, "
                f"e.g. {DEFAULT_LICHESS_URL!r}"
            )
        return cls(
            layout,
            urls,
            baudrate,
            home,
            muted,
            source,
            lichess_url.rstrip("/"),
            speech_muted,
            wait_near_reply=wait_near_reply,
            tidy_while_thinking=tidy_while_thinking,
            wide_voices=wide_voices,
            watcher=watcher,
            watcher_loss=float(watcher_loss),
        )

    def summary(self) -> list[str]:
        lines = [f"layout: {self.layout!r}"]
        lines += [f"{kind}: {url}" for kind, url in self.urls.items()]
        lines.append(f"lichess: {self.lichess_url}")
        return lines


def check_device_url(kind: str, url: str, layout: Layout) -> None:
    """Check the URL of a device of ``kind`` (grbl, magnet, sensors, leds, display, buzzer, buttons, speech,
    microphone) with the parsing its backend uses when it opens the device, without opening anything or
    importing a vendor library: unknown options, values out of range, files it names (a pin map, an LED
    mapping, a press script).

    Raises :class:`ConfigError` (or one of its kinds) naming what is wrong.
    """
    if kind == "grbl":
        _check_grbl_url(url)
    elif kind == "magnet":
        from .gantry.magnet import check_magnet_url

        check_magnet_url(url)
    elif kind == "sensors":
        from .sensors import check_sensor_url

        check_sensor_url(url, layout)
    elif kind == "leds":
        from .feedback.leds import check_leds_url

        check_leds_url(url, layout)
    elif kind == "display":
        from .feedback.display import check_display_url

        check_display_url(url)
    elif kind == "buzzer":
        from .feedback.buzzer import check_buzzer_url

        check_buzzer_url(url)
    elif kind == "speech":
        from .feedback.speaker import check_speaker_url

        check_speaker_url(url)
    elif kind == "microphone":
        from .voice.microphone import check_microphone_url

        check_microphone_url(url)
    elif kind == "buttons":
        from .buttons import check_buttons_url

        check_buttons_url(url)
    else:
        raise ValueError(f"no device kind {kind!r}; use one of {', '.join(SCHEMES)}")


def _check_grbl_url(url: str) -> None:
    parsed = DeviceUrl.parse(url)
    if parsed.scheme == "sim":
        from .sim.grbl import sim_grbl_options

        sim_grbl_options(url)
    elif parsed.scheme == "none":
        parsed.check_options(())
    else:
        from .serialurl import check_serial_url

        check_serial_url(url)
