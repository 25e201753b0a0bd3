"""The language a command speaks, chosen before click reads the command line (so that click's own words,
``Usage:`` and ``Error: No such option``, are in it too): ``--lang CODE`` anywhere on the command line,
else the config's ``[player] language`` (the file ``--config`` names, else the default one), else the
environment's locale (:func:`chessatron.i18n.choose_language`).

Nothing here fails on a config it cannot read: the command itself reads it and says what is wrong, in the
language chosen without it.

>>> flag_value(["play", "--lang", "de", "--white", "engine"]), flag_value(["--lang=fr", "serve"])
('de', 'fr')
>>> flag_value(["games", "--", "--lang", "de"]) is None
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import click

from .. import files
from ..config import default_config_path
from ..config_player import language_of
from ..errors import ChessatronError, ConfigError
from ..i18n import LANGUAGES, N_, _, choose_language, parse_language

__all__ = [
    "LANG_HELP",
    "chosen_language",
    "configured_language",
    "flag_value",
    "lang_option",
]

#: ``--lang``'s help (every command has the option).
LANG_HELP = N_(
    "The language of the table's words for this command: en, de, fr, es, nl or it (pseudo marks every "
    "text, for testing); default: the config's [player] language, else the system's (LANG)."
)


def _option_value(argv: Sequence[str], name: str) -> str | None:
    """The value of the last ``name VALUE`` or ``name=VALUE`` before ``--`` (click keeps the last one): ``""``
    for ``name`` last, with no value after it."""
    value = None
    words = list(argv)
    for index, word in enumerate(words):
        if word == "--":
            break
        if word == name:
            value = words[index + 1] if index + 1 < len(words) else ""
        elif word.startswith(name + "="):
            value = word.partition("=")[2]
    return value


def flag_value(argv: Sequence[str]) -> str | None:
    """The language ``--lang`` names on the command line ``argv`` (without the program), if it does; raises
    :class:`ConfigError` for a ``--lang`` without a value."""
    value = _option_value(argv, "--lang")
    if value == "":
        raise ConfigError(_("--lang needs a language: {languages}").format(languages=", ".join(LANGUAGES)))
    return value


def configured_language(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> str | None:
    """The language the config names (``[player] language``): the file ``--config`` gives on ``argv``, else
    ``$CHESSATRON_CONFIG``, else the default one; None when it names none, or cannot be read."""
    env = os.environ if environ is None else environ
    given = _option_value(argv, "--config")
    if given:
        path = Path(given)
    elif env.get("CHESSATRON_CONFIG"):
        path = Path(env["CHESSATRON_CONFIG"])
    else:
        path = default_config_path()
    try:
        if files.is_missing(path):
            return None
        data = files.load_toml(path, files.CONFIG)
    except (ChessatronError, OSError, ValueError):
        return None  # the command reads it again and says what is wrong
    return language_of(data.get("player"))


def chosen_language(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> str:
    """The language of the command line ``argv``: ``--lang``'s, else the config's, else the environment's.
    Raises :class:`ConfigError` for a ``--lang`` the table does not speak."""
    return choose_language(flag_value(argv), configured_language(argv, environ), environ)


def _check_lang(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--lang`` as click reads it (the language was chosen already, from the command line itself): a name
    the table does not speak is a usage error (for a command line parsed without :func:`chosen_language`)."""
    if value is None:
        return None
    try:
        return parse_language(value)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from None


def lang_option() -> click.Option:
    """``--lang CODE``, which every command takes (:class:`~chessatron.cli.main.CommandGroup` adds it)."""
    return click.Option(
        ["--lang", "lang"],
        metavar="CODE",
        expose_value=False,
        is_eager=True,
        callback=_check_lang,
        help=LANG_HELP,
    )
