"""The machine config: one TOML file naming every device by URL, with documented defaults (all
simulated), and the table layout it uses.

Found at ``--config FILE``, else ``$CHESSATRON_CONFIG``, else ``~/.config/chessatron/chessatron.toml``;
when none exists every device is the simulator. One checker (:meth:`Config.from_dict`) reads it for every
command, ``chessatron config check`` and the web page's settings: it finds every problem before telling
any, each naming its key (:mod:`chessatron.config_problems`). ``chessatron config init`` writes the
commented default. The player's own settings (``[player]``) are :mod:`chessatron.config_player`'s.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias, get_args
from urllib.parse import urlsplit

import chess

from . import files
from .config_devices import check_device_url as check_device_url
from .config_eboard import EboardSettings, eboard_settings
from .config_keys import CONFIG_KEYS
from .config_player import PlayerSettings, player_settings
from .config_problems import ConfigProblems, Problem, Problems, shown_path
from .errors import ConfigError
from .i18n import LANGUAGES, _, current_language, formats, pgettext
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
    "player": frozenset({"name", "level", "board", "sound", "language"}),
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
    "eboard": frozenset({"protocol", "transport", "port", "person", "name"}),
}

#: The keys at the top of the file, before the first section.
TOP_KEYS = frozenset({"layout"})

#: Baud rates beyond this are no serial line's (GRBL runs at 115200).
MAX_BAUDRATE = 4_000_000

#: ``[training] watcher_loss`` is a drop in winning chances, which run from -1 (lost) to +1 (won): a move
#: can give away at most 2 (a won game thrown away), and a threshold of 0 would speak after every move.
MAX_WATCHER_LOSS = 2.0


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
    """The buzzer is silent: ``[buzzer] muted``, or ``[player] sound = false``."""
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
    """``[training] watcher_loss``: the winning chances a move must give away for the watcher to speak,
    above 0 and at most 2 (the chances run from -1, lost, to +1, won, on lichess's scale; 0.3: a blunder,
    0.2: a mistake)."""
    tidy_while_thinking: TidyWhen = "board"
    """``[grbl] tidy_while_thinking``: while whom the robot takes the pieces its replies parked beside the
    board on to their capture zones: ``"board"``, a person at the board (a piece they lift stops it before
    their hand is near), ``"always"``, anyone who thinks (a person who types or clicks may wait a moment
    for a step under way), ``"never"`` (they wait for the reset after the game; a quiet gantry)."""
    wide_voices: bool = True
    """``[microphone] wide_voices``: each utterance is heard at three vocal-tract lengths, for voices far
    from the speech model's (false: once, three times quicker, for a slow computer)."""
    player: PlayerSettings = field(default_factory=PlayerSettings)
    """``[player]``: the person's name, the engine's default level, the page's board, sound."""
    eboard: EboardSettings = field(default_factory=EboardSettings)
    """``[eboard]``: the table as an app's e-board (``chessatron eboard``)."""

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
        and no path was given explicitly. Raises :class:`~chessatron.config_problems.ConfigProblems`
        naming every problem (the file's path at the end), :class:`ConfigError` for a missing file."""
        explicit = path is not None or "CHESSATRON_CONFIG" in os.environ
        target = path or default_config_path()
        if files.is_missing(target):
            if explicit:
                raise ConfigError(
                    _("no config file at {path!r}; `chessatron config init` writes one").format(
                        path=str(target)
                    )
                )
            return cls.default()
        return cls.from_text(files.read_text(target, files.CONFIG), target)

    @classmethod
    def from_text(cls, text: str, path: Path) -> Config:
        """The config a file at ``path`` holding ``text`` is: what :meth:`load` (and so ``chessatron
        config check``) makes of it, checked the same way, so that a file about to be written (the web
        page's settings) can be checked before it replaces the one there. Raises
        :class:`~chessatron.config_problems.ConfigProblems` naming every problem, ``path`` at the end."""
        where = shown_path(path)
        try:
            data = files.parse_toml(text)
        except ValueError as exc:
            said = exc.of_the_file if isinstance(exc, files.ContentError) else str(exc)
            raise ConfigProblems([Problem(None, said)], where) from exc
        return cls.from_dict(data, source=repr(str(path)), base=path.parent, where=where)

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        *,
        source: str = "the config",
        base: Path | None = None,
        where: str | None = None,
    ) -> Config:
        """Validate parsed TOML: every section and key known, every device URL one its backend accepts
        (checked by the backend's own parsing, nothing opened), the layout loaded and checked, the
        player's settings. Every problem is found before any is told: raises
        :class:`~chessatron.config_problems.ConfigProblems` with all of them, each naming its key (and
        ``where``, the file, once at the end)."""
        problems = Problems()
        sections = _known_sections(data, problems)
        layout = _layout(data.get("layout"), base, problems)
        player = player_settings(sections["player"], problems)
        eboard = eboard_settings(sections["eboard"], problems)
        urls: dict[str, str] = {}
        for kind, schemes in SCHEMES.items():
            urls[kind] = _device_url(
                kind, schemes, sections[kind].get("url", DEFAULT_URLS[kind]), layout, problems
            )
        grbl = sections["grbl"]
        baudrate = grbl.get("baudrate", 115200)
        if not isinstance(baudrate, int) or isinstance(baudrate, bool) or not 0 < baudrate <= MAX_BAUDRATE:
            problems.add(
                "grbl.baudrate",
                _(
                    "[grbl] baudrate = {value!r} must be a whole number from 1 to {most} (GRBL 1.1 talks at "
                    "115200)"
                ).format(value=baudrate, most=MAX_BAUDRATE),
            )
            baudrate = 115200
        tidy_while_thinking = grbl.get("tidy_while_thinking", "board")
        if tidy_while_thinking not in get_args(TidyWhen):
            problems.add(
                "grbl.tidy_while_thinking",
                _("[grbl] tidy_while_thinking = {value!r} must be one of {choices}").format(
                    value=tidy_while_thinking, choices=", ".join(repr(when) for when in get_args(TidyWhen))
                ),
            )
            tidy_while_thinking = "board"
        flags = {
            key: _flag(sections, key, default, problems)
            for key, default in (
                ("grbl.home", False),
                ("grbl.wait_near_reply", True),
                ("buzzer.muted", False),
                ("speech.muted", None),
                ("microphone.wide_voices", True),
                ("training.watcher", False),
            )
        }
        _check_magnet(urls, layout, problems)
        watcher_loss = sections["training"].get("watcher_loss", 0.3)
        if (
            isinstance(watcher_loss, bool)
            or not isinstance(watcher_loss, int | float)
            or not 0 < watcher_loss <= MAX_WATCHER_LOSS
        ):
            problems.add(
                "training.watcher_loss",
                _(
                    "[training] watcher_loss = {value!r} must be a number above 0 and at most {most} (a drop "
                    "in winning chances, which run from -1, lost, to +1, won; 0.3: a blunder, 0.2: a mistake)"
                ).format(value=watcher_loss, most=f"{MAX_WATCHER_LOSS:g}"),
            )
            watcher_loss = 0.3
        lichess_url = sections["lichess"].get("url", DEFAULT_LICHESS_URL)
        if not isinstance(lichess_url, str) or not _is_http_url(lichess_url):
            problems.add(
                "lichess.url",
                _(
                    "[lichess] url = {value!r} must be an http:// or https:// address, e.g. {example!r}"
                ).format(value=lichess_url, example=DEFAULT_LICHESS_URL),
            )
            lichess_url = DEFAULT_LICHESS_URL
        problems.found.sort(key=in_file_order)
        problems.check(where)
        return cls(
            layout or Layout.default(),
            urls,
            baudrate,
            bool(flags["grbl.home"]),
            bool(flags["buzzer.muted"]) or not player.sound,
            source,
            lichess_url.rstrip("/"),
            flags["speech.muted"],
            wait_near_reply=bool(flags["grbl.wait_near_reply"]),
            tidy_while_thinking=tidy_while_thinking,
            wide_voices=bool(flags["microphone.wide_voices"]),
            watcher=bool(flags["training.watcher"]),
            watcher_loss=float(watcher_loss),
            player=player,
            eboard=eboard,
        )

    def summary(self) -> list[str]:
        """What the config makes of the machine, a line a part, in a maker's words (``config check``)."""
        layout = self.layout
        a1 = layout.node_mm(layout.square_node(chess.A1))
        lines = [
            _(
                "layout: {columns} × {rows} squares of {size} mm, board a1 at ({x}, {y}) mm, {method} "
                "magnet, {kinematics} kinematics"
            ).format(
                columns=layout.columns,
                rows=layout.rows,
                size=_number(layout.square_mm),
                x=_number(a1[0]),
                y=_number(a1[1]),
                method=layout.magnet.method,
                kinematics=layout.profile.kinematics,
            )
        ]
        lines.append(self._player_line())
        for kind, url in self.urls.items():
            if kind == "grbl" and self.device("grbl").scheme not in ("sim", "none"):
                lines.append(
                    _("{kind}: {url} at {baudrate} baud").format(kind=kind, url=url, baudrate=self.baudrate)
                )
            else:
                lines.append(f"{kind}: {url}")
        lines.append(f"lichess: {self.lichess_url}")
        language = self.player.language
        if language is not None:
            lines.append(
                _("language: {name} ({code})").format(name=LANGUAGES.get(language, language), code=language)
            )
        else:
            code = current_language()
            lines.append(
                _("language: unset, the system's: {name} ({code})").format(
                    name=LANGUAGES.get(code, code), code=code
                )
            )
        return lines

    def _player_line(self) -> str:
        """``config check``'s line for ``[player]``."""
        player = self.player
        # TRANSLATORS: the parts of config check's line "player: Ann; engine level 5 when a game names none;
        # blue board; sound on"; {board} is the colour scheme's name as the config writes it (brown, blue...)
        if player.level:
            level = _("engine level {level} when a game names none").format(level=player.level)
        else:
            level = _("the engine at full strength when a game names none")
        sound = pgettext("sound", "on") if player.sound else pgettext("sound", "off")
        name = player.name or _("no name (the games name the way you play)")
        return _("player: {name}; {level}; {board} board; sound {sound}").format(
            name=name, level=level, board=player.board, sound=sound
        )


def _number(value: float) -> str:
    """A length as ``:g`` writes it (``137``, ``86.2``), in the language's digits (``86,2`` in German)."""
    text = f"{value:g}"
    places = len(text.partition(".")[2]) if "e" not in text else 3
    return formats.decimal(value, places)


_ORDER: Final = {key.key: index for index, key in enumerate(CONFIG_KEYS)}


def in_file_order(problem: Problem) -> int:
    """Where a problem's key stands in the commented default file (and on the page's settings): problems
    are told in that order, those about the file as a whole first, unknown keys last."""
    if problem.key is None:
        return -1
    return _ORDER.get(problem.key, len(_ORDER))


def _known_sections(data: Mapping[str, Any], problems: Problems) -> dict[str, Mapping[str, Any]]:
    """Each known section of ``data`` (empty when absent); an unknown section or key, or a section that
    is not a table, is a problem."""
    sections: dict[str, Mapping[str, Any]] = {name: {} for name in KEYS}
    for key, value in data.items():
        if key in KEYS:
            if not isinstance(value, Mapping):
                problems.add(
                    key, _('[{section}] must be a table, as in [{section}] url = "…"').format(section=key)
                )
                continue
            sections[key] = value
            for inner in value:
                if inner not in KEYS[key]:
                    problems.add(f"{key}.{inner}", unknown("key", inner, KEYS[key], where=f"[{key}]"))
        elif key not in TOP_KEYS:
            what = "section" if isinstance(value, Mapping) else "key"
            problems.add(key, unknown(what, key, set(KEYS) | TOP_KEYS))
    return sections


def _layout(value: object, base: Path | None, problems: Problems) -> Layout | None:
    """The layout ``layout = …`` names (the default when unset); None when it is wrong (a problem)."""
    if value is None:
        return Layout.default()
    if not isinstance(value, str) or not value.strip():
        problems.add(
            "layout", _("layout = {value!r} must be the path of a layout TOML file").format(value=value)
        )
        return None
    path = Path(value)
    if base is not None and not path.is_absolute():
        path = base / path
    try:
        return Layout.from_toml(path)
    except ConfigError as exc:
        problems.add("layout", f"layout = {value!r}: {exc}")
        return None


def _device_url(
    kind: str, schemes: frozenset[str], url: object, layout: Layout | None, problems: Problems
) -> str:
    """``[kind] url`` checked by its backend's parsing; a wrong one is a problem and the default used."""
    key = f"{kind}.url"
    if not isinstance(url, str):
        problems.add(key, _("[{section}] url = {value!r} must be a string").format(section=kind, value=url))
        return DEFAULT_URLS[kind]
    parsed = DeviceUrl.parse(url)
    if parsed.scheme.partition("+")[0] not in schemes:
        problems.add(
            key,
            _("[{section}] url = {value!r} has the unknown scheme {scheme!r}; use one of {schemes}").format(
                section=kind,
                value=url,
                scheme=parsed.scheme,
                schemes=", ".join(sorted(s + "://" for s in schemes)),
            ),
        )
        return DEFAULT_URLS[kind]
    if layout is None and kind in ("sensors", "leds"):
        return url  # checked against the layout, which is wrong itself: told once, as the layout's problem
    with problems.about(key, f"[{kind}] url = {url!r}: "):
        check_device_url(kind, url, layout or Layout.default())
    return DEFAULT_URLS[kind] if problems.has(key) else url


def _flag(
    sections: Mapping[str, Mapping[str, Any]], key: str, default: bool | None, problems: Problems
) -> bool | None:
    """A true/false key (``"grbl.home"``); anything else is a problem and the default is used."""
    section, __, name = key.partition(".")
    value = sections[section].get(name, default)
    if value is not None and not isinstance(value, bool):
        problems.add(
            key,
            _("[{section}] {name} = {value!r} must be true or false").format(
                section=section, name=name, value=value
            ),
        )
        return default
    return value


def _check_magnet(urls: Mapping[str, str], layout: Layout | None, problems: Problems) -> None:
    """The magnet's URL and the layout's magnet method must say the same switch."""
    if layout is None or problems.has("magnet.url"):
        return
    url = urls["magnet"]
    magnet = DeviceUrl.parse(url).scheme
    method = layout.magnet.method
    if method == "servo" and magnet == "grbl":
        problems.add(
            "magnet.url",
            _(
                "[magnet] url = {value!r}: the layout's magnet method is 'servo' (switched by the host); set "
                "the url to servo://PIN (or sim:// on the simulator)"
            ).format(value=url),
        )
    if method != "servo" and magnet in ("servo", "gpio"):
        problems.add(
            "magnet.url",
            _(
                "[magnet] url = {value!r}: the layout switches the magnet in the G-code ({method!r}); set "
                'method = "servo" in the layout\'s [magnet] or use url = "grbl://"'
            ).format(value=url, method=method),
        )
