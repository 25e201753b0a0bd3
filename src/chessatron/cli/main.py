"""The ``chessatron`` group itself: ``--version``, ``--debug``, ``--lang`` and the log file; how every group
lists its commands and shows its help in the table's language (:class:`CommandGroup`, :class:`Command`)."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

import click

from .. import __version__, logs
from ..errors import ConfigError
from ..i18n import (
    N_,
    _,
    choose_language,
    current_language,
    explicit_language,
    ngettext,
    normalize,
    set_language,
)
from .helptext import helps_translated, speak_clicks_words, translated
from .language import configured_language, flag_value, lang_option

#: A FEN's fields after the first (side to move, castling, en passant, the clocks), as a shell splits an
#: unquoted FEN into arguments.
_FEN_FIELDS = re.compile(r"^(?:[wb]|-|[KQkqA-Ha-h]{1,4}|[a-h][36]|\d+)$")
#: Where a sentence ends in a help text: a stop, then a word that begins with a capital (of any Latin
#: alphabet: Ä, É...), a quote or a bracket.
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-ZÀ-ÖØ-Þ'`(¿¡]|$)")

#: Exit status of a command line the program refuses before it starts (as click's usage errors).
_EXIT_USAGE = 2


def first_sentence(text: str) -> str:
    """The first sentence of a command's help, whole (click cuts it short with ``...``).

    >>> first_sentence("Play a game at the table: typed moves. Every game is saved.")
    'Play a game at the table: typed moves.'
    >>> first_sentence("Spiele eine Partie. Über jede wird Buch geführt.")
    'Spiele eine Partie.'
    """
    paragraph = " ".join(text.strip().split("\n\n", 1)[0].split())
    found = _SENTENCE_END.search(paragraph)
    sentence = paragraph if found is None else paragraph[: found.end()]
    # the pseudo-language's brackets round the whole help stay round its first sentence
    return sentence + "⟧" if sentence.count("⟦") > sentence.count("⟧") else sentence


class Command(click.Command):
    """A command whose ``--help`` is in the table's language (:mod:`.helptext`), and whose usage error for
    words left over explains an unquoted FEN."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with helps_translated(self, ctx):
            super().format_help(ctx, formatter)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        allowed = ctx.allow_extra_args
        ctx.allow_extra_args = True  # the words left over are said here, with what they may mean
        try:
            rest = super().parse_args(ctx, args)
        finally:
            ctx.allow_extra_args = allowed
        if rest and not allowed and not ctx.resilient_parsing:
            ctx.fail(extra_words(rest))
        return rest


def extra_words(words: Sequence[str]) -> str:
    """click's ``Got unexpected extra arguments (w KQkq - 0 1)``, and what it means when the words are a
    FEN's fields: a FEN's spaces split it.

    >>> print(extra_words(["b", "KQkq", "-", "0", "1"]))  # doctest: +ELLIPSIS
    Got unexpected extra arguments (b KQkq - 0 1); a FEN has spaces, so put it in quotes: 'rnbqkbnr/...'
    """
    shown = " ".join(words)
    message = ngettext(
        "Got unexpected extra argument ({args})", "Got unexpected extra arguments ({args})", len(words)
    ).format(args=shown)
    if not all(_FEN_FIELDS.match(word) for word in words):
        return message
    return _("{problem}; a FEN has spaces, so put it in quotes: {example}").format(
        problem=message, example="'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'"
    )


class CommandGroup(click.Group):
    """A group whose ``--help`` is in the table's language and lists each command with the whole first
    sentence of its help, wrapped to the terminal (click's own list cuts it at the width with ``...``).
    Its commands are :class:`Command`\\ s and its subgroups of its kind; every one of them takes ``--lang``
    (:mod:`.language`)."""

    command_class = Command
    group_class = type

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        if not any(param.name == "lang" for param in cmd.params):
            cmd.params.append(lang_option())
        super().add_command(cmd, name)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with helps_translated(self, ctx):
            super().format_help(ctx, formatter)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            short = translated(command.short_help) or first_sentence(translated(command.help) or "")
            rows.append((name, short))
        if rows:
            with formatter.section(_("Commands")):
                formatter.write_dl(rows)


class RootGroup(CommandGroup):
    """``chessatron`` itself: the language is chosen from the command line (``--lang``), the config and
    the environment before click reads a word of it, so that every word, click's own too, is in it."""

    def main(self, args: Sequence[str] | None = None, *more: Any, **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        before, before_explicit = current_language(), explicit_language() is not None
        speak_clicks_words()
        configured = configured_language(argv)
        try:
            # a --lang the table does not speak is refused in the language it would have spoken
            set_language(choose_language(None, configured))
            flag = flag_value(argv)
            chosen = choose_language(flag, configured)
            set_language(chosen, explicit=flag is not None or normalize(configured) == chosen)
        except ConfigError as exc:
            click.echo(f"chessatron: {exc}", err=True)
            set_language(before, explicit=before_explicit)
            sys.exit(_EXIT_USAGE)
        try:
            return super().main(argv, *more, **extra)
        finally:
            # (a program that runs commands in-process, as the tests do, goes on in its own language)
            set_language(before, explicit=before_explicit)


def _show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(_("{program}, version {version}").format(program="chessatron", version=__version__))
        ctx.exit()


@click.group(
    cls=RootGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    help=N_("chessatron: a chessboard that moves its own pieces."),
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_show_version,
    help=N_("Show the version and exit."),
)
@click.option(
    "--debug",
    is_flag=True,
    envvar="CHESSATRON_DEBUG",
    help=N_(
        "Show every log record, and the traceback of an internal error, on stderr (also "
        "CHESSATRON_DEBUG=1); otherwise they go to the log file, ~/.local/state/chessatron/chessatron.log."
    ),
)
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    # (the console script ``chessatron`` and ``python -m chessatron.cli`` call main(): RootGroup.main)
    ctx.call_on_close(logs.configure(debug=debug).close)


main.params.append(lang_option())
