"""The player's own settings, the config's ``[player]`` section: the name the games give the person at
the table (PGN headers, the page), the engine's level when a game names none, the look of the web page's
board, whether the page and the table make sounds, and the language of the table's words. Checked here,
by the config's checker (:meth:`chessatron.config.Config.from_dict`), so that ``config check``, every
command and the web page's settings refuse the same values.

>>> problems = Problems()
>>> player_settings({"name": "Ann", "level": 5, "board": "blue"}, problems)
PlayerSettings(name='Ann', level='5', board='blue', sound=True, language=None)
>>> wrong = {"name": " ", "level": "25", "board": "pink", "language": "pt"}
>>> player_settings(wrong, problems) == PlayerSettings()
True
>>> [problem.key for problem in problems.found]
['player.name', 'player.level', 'player.board', 'player.language']
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias, get_args

from .config_problems import Problems
from .errors import ConfigError
from .game.engine.settings import parse_level
from .i18n import LANGUAGES, PSEUDO, _, normalize

__all__ = [
    "BOARD_LOOKS",
    "MAX_NAME_CHARS",
    "BoardLook",
    "PlayerSettings",
    "check_name",
    "language_of",
    "player_settings",
]

#: The look of the web page's board: chessground's own brown, and colour schemes drawn by the page's CSS.
BoardLook: TypeAlias = Literal["brown", "blue", "green", "grey"]
BOARD_LOOKS: Final[tuple[BoardLook, ...]] = get_args(BoardLook)

#: A name longer than this is no one's (the page's player line and a PGN header show it whole).
MAX_NAME_CHARS: Final = 40


@dataclass(frozen=True)
class PlayerSettings:
    """``[player]``: who plays at this table and how they like it."""

    name: str | None = None
    """The person's name in the games' records and on the page; None: the way they play is named
    (``keyboard``, ``web page``)."""
    level: str | None = None
    """The engine's level (as after ``engine:``) when a game names none; None: its full strength."""
    board: BoardLook = "brown"
    """The web page's board colours."""
    sound: bool = True
    """False: the page makes no sound (unless this browser was switched on again) and the buzzer is
    silent; the speech follows ``[speech] muted``, since a player who cannot see a display needs it."""
    language: str | None = None
    """The language of the table's words (a code of :data:`chessatron.i18n.LANGUAGES`, or ``pseudo``);
    None: the environment's locale (``--lang`` overrides either, :func:`chessatron.i18n.choose_language`)."""


def check_name(text: str) -> str:
    """A player's name as the games keep it: ``text`` without the spaces around it, one line of at most
    :data:`MAX_NAME_CHARS` printable characters. Raises :class:`ConfigError` (no key named: the caller
    says where the name came from).

    >>> check_name("  Ann Example ")
    'Ann Example'
    >>> check_name("Ann\\tExample")
    Traceback (most recent call last):
    ...
    chessatron.errors.ConfigError: 'Ann\\tExample' holds the control character '\\t'; a name is one line of \
letters, digits, spaces and punctuation
    """
    name = text.strip()
    if not name or name == "?":
        raise ConfigError(
            _("{text!r} is no name; write the name the games should give you, e.g. 'Ann'").format(text=text)
        )
    if len(name) > MAX_NAME_CHARS:
        raise ConfigError(
            _("{start!r}… is {length} characters long; at most {most} fit").format(
                start=name[:20], length=len(name), most=MAX_NAME_CHARS
            )
        )
    for char in name:
        if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp"):
            raise ConfigError(
                _(
                    "{name!r} holds the control character {char!r}; a name is one line of letters, digits, "
                    "spaces and punctuation"
                ).format(name=name, char=char)
            )
    return name


def player_settings(section: Mapping[str, Any], problems: Problems) -> PlayerSettings:
    """The ``[player]`` section's settings; each wrong value is added to ``problems`` (naming its key)
    and its default used instead, so that the rest is checked too."""
    default = PlayerSettings()
    name = section.get("name")
    if name is not None:
        if not isinstance(name, str):
            problems.add(
                "player.name", _("[player] name = {value!r} must be a text, e.g. 'Ann'").format(value=name)
            )
            name = None
        else:
            with problems.about("player.name", "[player] name = "):
                name = check_name(name)
            if problems.has("player.name"):
                name = None
    level = section.get("level")
    if level is not None:
        if isinstance(level, bool) or not isinstance(level, int | str):
            problems.add(
                "player.level",
                _("[player] level = {value!r} must be a level such as 5 or '1500elo'").format(value=level),
            )
            level = None
        else:
            level = str(level).strip().lower()
            try:
                parse_level(f"engine:{level}")
            except ConfigError as exc:
                reason = str(exc).removeprefix(f"bad engine level {'engine:' + level!r}: ")
                problems.add("player.level", f"[player] level = {section['level']!r}: {reason}")
                level = None
    board = section.get("board", default.board)
    if board not in BOARD_LOOKS:
        looks = ", ".join(repr(look) for look in BOARD_LOOKS)
        problems.add(
            "player.board",
            _("[player] board = {value!r} must be one of {choices}").format(value=board, choices=looks),
        )
        board = default.board
    sound = section.get("sound", default.sound)
    if not isinstance(sound, bool):
        problems.add(
            "player.sound", _("[player] sound = {value!r} must be true or false").format(value=sound)
        )
        sound = default.sound
    language = section.get("language")
    if language is not None:
        language = normalize(language) if isinstance(language, str) else None
        if language is None:
            choices = ", ".join(repr(code) for code in LANGUAGES)
            problems.add(
                "player.language",
                # TRANSLATORS: {choices} lists the language codes: 'en', 'de', 'fr'...
                _(
                    "[player] language = {value!r} must be one of {choices} (unset: the system's language)"
                ).format(value=section["language"], choices=choices),
            )
    return PlayerSettings(name=name, level=level, board=board, sound=sound, language=language)


def language_of(section: object) -> str | None:
    """The language a config's ``[player]`` section (parsed TOML, unchecked) names, None when it names none
    the table speaks: what a command reads before anything else, to speak the person's language from its
    first word (:mod:`chessatron.cli.language`)."""
    if not isinstance(section, Mapping):
        return None
    value = section.get("language")
    code = normalize(value) if isinstance(value, str) else None
    return code if code in LANGUAGES or code == PSEUDO else None
