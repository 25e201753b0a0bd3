"""``--help`` and click's own words in the table's language.

The commands' and options' help texts are English, marked with :func:`~chessatron.i18n.N_` where they are
written (click reads them when the command modules are imported, before the language is chosen), and
translated when the help is shown: :func:`helps_translated` puts each one's translation in place while
click formats the page, whatever language the command line chose and whenever the modules were imported.

click's own words (``Usage:``, ``Options``, ``Error: No such option '--x'.``) come from gettext's default
domain: each click module calls the ``_`` and ``ngettext`` it imported (``from gettext import gettext as
_``). :func:`speak_clicks_words` points those names at the table's catalogs, where :data:`CLICK_WORDS` and
:func:`_click_plurals` mark the messages click uses (the test of this module checks that click still says
each of them).
"""

from __future__ import annotations

import contextlib
import gettext
import importlib
from collections.abc import Callable, Iterator

import click

from .. import i18n
from ..i18n import N_, _, ngettext

__all__ = [
    "CLICK_WORDS",
    "HELP_OPTION_HELP",
    "composed",
    "helps_translated",
    "speak_clicks_words",
    "translated",
]

#: The help of ``--help`` (click's words, made when a command's help option is first needed).
HELP_OPTION_HELP = N_("Show this message and exit.")

#: What click says on its own, in the messages people meet: the help page, usage errors, prompts.
CLICK_WORDS = (
    N_("Usage:"),
    N_("Options"),
    N_("Commands"),
    N_("Positional arguments"),
    HELP_OPTION_HELP,
    N_("Show the version and exit."),
    N_("Error: {message}"),
    N_("Try '{command} {option}' for help."),
    N_("No such option {name!r}."),
    N_("No such command {name!r}."),
    N_("Missing command."),
    N_("Invalid value: {message}"),
    N_("Invalid value for {param_hint}: {message}"),
    N_("Missing argument"),
    N_("Missing option"),
    N_("Missing parameter"),
    N_("Missing parameter: {param_name}"),
    N_("Option {name!r} does not take a value."),
    N_("{value!r} is not a valid {number_type}."),
    N_("{value} is not in the range {range}."),
    N_("{value!r} is not a valid boolean. Recognized values: {states}"),
    N_("{name} {filename!r} does not exist."),
    N_("{name} {filename!r} is a file."),
    N_("{name} {filename!r} is a directory."),
    N_("file"),
    N_("directory"),
    N_("path"),
    N_("Could not open file {filename!r}: {message}"),
    N_("default: {default}"),
    N_("required"),
    N_("env var: {var}"),
    N_("Aborted!"),
    N_("Error: invalid input"),
    N_("Repeat for confirmation"),
    N_("Error: The two entered values do not match."),
)


def _click_plurals() -> list[str]:
    """click's messages with a count (never called: the calls mark them for the catalogs)."""
    return [
        ngettext("Got unexpected extra argument ({args})", "Got unexpected extra arguments ({args})", 1),
        ngettext("Option {name!r} requires an argument.", "Option {name!r} requires {nargs} arguments.", 1),
        ngettext("Did you mean {possibility}?", "(Did you mean one of: {possibilities}?)", 1),
        ngettext("{value!r} is not {choice}.", "{value!r} is not one of {choices}.", 1),
    ]


#: click's modules that import gettext's ``_`` and ``ngettext`` (click 8).
_CLICK_MODULES = (
    "click.core",
    "click.decorators",
    "click.exceptions",
    "click.formatting",
    "click.parser",
    "click.types",
    "click.termui",
    "click.utils",
    "click._termui_impl",
    "click.shell_completion",
)


def speak_clicks_words() -> None:
    """Make click say its own words in the current language (:mod:`chessatron.i18n`) from now on, in this
    process: its modules' ``_`` and ``ngettext`` become the table's. In English nothing changes."""
    for name in _CLICK_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:  # a click without that module
            continue
        if getattr(module, "_", None) is gettext.gettext:
            module._ = i18n._  # type: ignore[attr-defined]
        if getattr(module, "ngettext", None) is gettext.ngettext:
            module.ngettext = i18n.ngettext  # type: ignore[attr-defined]


#: Help texts made of several messages (``--speed``'s: what it is, then why its default is what it is), by
#: their English text, with how to say them in the current language.
_COMPOSED: dict[str, Callable[[], str]] = {}


def composed(*messages: str) -> str:
    """The English help made of ``messages`` (whole sentences, each marked), one after another; shown in
    the current language by :func:`translated`."""
    english = " ".join(messages)
    _COMPOSED[english] = lambda: " ".join(_(message) for message in messages)
    return english


def translated(text: str | None) -> str | None:
    """A help text (or a ``show_default`` text) in the current language."""
    if not text:
        return text
    say = _COMPOSED.get(text)
    return say() if say is not None else _(text)


@contextlib.contextmanager
def helps_translated(command: click.Command, ctx: click.Context) -> Iterator[None]:
    """While the block runs, ``command``'s help and its parameters' (and their ``show_default`` texts) are
    in the current language; English again afterwards."""
    saved: list[tuple[object, str, object]] = []

    def put(owner: object, attribute: str, value: object) -> None:
        saved.append((owner, attribute, getattr(owner, attribute)))
        setattr(owner, attribute, value)

    put(command, "help", translated(command.help))
    help_option = command.get_help_option(ctx)
    for param in command.get_params(ctx):
        if param is help_option:
            put(param, "help", _(HELP_OPTION_HELP))  # (made in the language of its first use)
            continue
        if isinstance(param, click.Option):
            put(param, "help", translated(param.help))
            if isinstance(param.show_default, str):
                put(param, "show_default", translated(param.show_default))
    try:
        yield
    finally:
        for owner, attribute, value in reversed(saved):
            setattr(owner, attribute, value)
