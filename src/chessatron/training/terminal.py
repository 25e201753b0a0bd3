"""Puzzles at a terminal, as a person meets them: the live table and panel ``chessatron play`` draws
(:class:`~chessatron.game.telling.view.PlayView`), the panel telling the puzzle (its id and rating, its
themes in words, whose move, the tries left, the hint, the person's rating), the hint's squares marked on
the table; a line for each thing that happens (the opponent's moves, ``right``, ``not the move: 2 tries
left``, ``failed: the solution is …``, ``solved in 8.4 s, rating 1281 → 1297 (+16)``); and the prompt's
own words (``hint``, ``solution``, ``skip``, ``quit``, ``help``), which Tab completes with the moves, and
the same words typed beside a person who solves at the board (:func:`typed_requests`).

Everything here reads what :class:`~.table.PuzzleTable` tells: its events and the live state's
``training`` part. Nothing here moves a piece.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final

from rich.console import RenderableType
from rich.text import Text

from ..game.players.base import Command
from ..game.players.keyboard import KeyboardPlayer, read_stdin_line
from ..game.telling import lineinput
from ..game.telling.events import describe_event
from ..game.telling.screen import render_view
from ..game.telling.view import PlayView
from ..i18n import _, ngettext
from ..i18n.formats import decimal
from ..i18n.notation import san_in
from ..planning.planner import Relocation
from ..planning.table import Table
from .attempts import is_person
from .table import MAX_WRONG, Outcome, PuzzleTable
from .themes import theme_line

__all__ = [
    "FINISHED",
    "WORDS",
    "PuzzleLines",
    "PuzzlePrompt",
    "outcome_line",
    "puzzle_help",
    "puzzle_keyboard",
    "puzzle_view",
    "typed_requests",
]


def puzzle_help(*, at_board: bool = False) -> str:
    """What ``help`` (or ``?``) prints at a puzzle's prompt, in the current language (``at_board``: beside
    a person who makes the moves at the board, without the line on typing moves)."""
    examples = ", ".join(san_in(san) for san in ("Nf3", "exd5", "e8=Q", "O-O"))
    lines = [
        # TRANSLATORS: a puzzle's help, a line a word the person types ({hint}: "hint (h)"), then what it does
        _("type your move: {examples}, or from and to squares: {uci}").format(examples=examples, uci="g1f3"),
        _("{hint}: the piece to move, then the square it goes to (marked on the board)").format(
            hint="hint (h)"
        ),
        _("{solution}: the robot plays the solution out (the puzzle counts as failed)").format(
            solution="solution"
        ),
        _("{skip}: on to the next puzzle (it counts as failed; its solution is printed)").format(skip="skip"),
        _("{quit}: stop here; the puzzles done are saved").format(quit="quit (q)"),
        _("{help}: this help").format(help="help (?)"),
    ]
    return "\n".join(lines[1:] if at_board else lines)


#: The live state's ``training`` states of a puzzle that ended (saved with its time and result).
FINISHED: Final = frozenset({"solved", "failed"})

#: The words a puzzle's prompt takes besides moves (what Tab completes, with the legal moves).
WORDS: Final = ("hint", "solution", "skip", "quit", "help")

_GAME_WORDS: Final = frozenset(command.value for command in Command)
_ASCII: Final = {"→": "->", "−": "-", "·": "-", "✓": "ok"}


def _plain(text: str, letters: bool) -> str:
    if letters:
        for mark, plain in _ASCII.items():
            text = text.replace(mark, plain)
    return text


# --- the picture -----------------------------------------------------------------------------------


def puzzle_view(
    snapshot: Mapping[str, Any],
    table: Table | None,
    paths: Sequence[Relocation],
    *,
    width: int,
    engine: bool = False,
    letters: bool = False,
) -> RenderableType:
    """The picture of a puzzle under way: :func:`~chessatron.game.telling.screen.render_view` with the
    puzzle's panel (its title ``puzzle 1 of 10``, :func:`panel_rows` at its top) and the hint's squares
    marked on the table; a game's own picture while no puzzle is on the table."""
    training = snapshot.get("training")
    game = snapshot.get("game") or {}
    if not training or game.get("id") != f"puzzle-{training.get('id')}":
        return render_view(snapshot, table, paths, width=width, engine=engine, letters=letters)
    number, of = training.get("number"), training.get("of")
    title = _title(number, of) or _("puzzle")
    hint = training.get("hint") or {}
    marked = [str(square) for square in hint.get("squares") or [hint.get("square")] if square]
    # the lines printed above say what the notices say; the panel keeps to the puzzle
    shown = {**snapshot, "notices": []}
    if snapshot.get("status_kind") == "idle":
        shown["status"] = ""  # (between puzzles, and after the last)
        if training.get("state") not in FINISHED:
            training = {**training, "state": "stopped"}  # quit (or stopped) with the puzzle under way
    return render_view(
        shown,
        table,
        paths,
        width=width,
        engine=engine,
        letters=letters,
        title=title,
        extra=panel_rows(training, letters),
        marked=marked,
    )


def panel_rows(training: Mapping[str, Any], letters: bool = False) -> list[RenderableType]:
    """The puzzle's rows of the panel, from the live state's ``training`` part: its id and rating, its
    themes in words, how the person is doing (the tries left, the hints, the verdict), the hint, and the
    person's rating (and after the puzzle the change).

    >>> about = {"id": "00sHx", "rating": 1760, "themes": ["mateIn2", "short"], "state": "solving",
    ...          "wrong": 1, "hints": 0, "hint": None, "your_rating": 1500, "provisional": True}
    >>> [row.plain for row in panel_rows(about)]
    ['00sHx · rated 1760', 'Mate in 2 · Short puzzle', '2 tries left', 'your rating 1500?']
    """
    rows: list[RenderableType] = []
    head = Text(str(training.get("id")), style="bold")
    # TRANSLATORS: the puzzle panel's first row, after the puzzle's id: " · rated 1760"
    head.append(_plain(_(" · rated {rating}").format(rating=training.get("rating")), letters))
    rows.append(head)
    themes = [str(theme) for theme in training.get("themes") or ()]
    if themes:
        rows.append(Text(_plain(theme_line(themes), letters), style="dim"))
    rows.append(_progress(training, letters))
    hint = training.get("hint") or {}
    if hint.get("text"):
        rows.append(Text(_("hint: {hint}").format(hint=hint["text"]), style="bold cyan"))
    mark = "?" if training.get("provisional") else ""
    rating = Text(_("your rating {rating}").format(rating=f"{training.get('your_rating')}{mark}"))
    after = training.get("rating_after")
    if after is not None:
        change = int(after) - int(training.get("your_rating") or 0)
        rating.append(_plain(f" → {after} ({_signed(change)})", letters), style="bold")
    rows.append(rating)
    return rows


def _signed(change: int) -> str:
    """A rating's change with its sign: ``+16``, ``−69`` (a true minus sign)."""
    return ("+" if change >= 0 else "−") + str(abs(change))


def _title(number: object, of: object) -> str:
    """``puzzle 1 of 10``, ``puzzle 1``; empty without a number."""
    if number and of:
        return _("puzzle {number} of {of}").format(number=number, of=of)
    return _("puzzle {number}").format(number=number) if number else ""


def _tries(left: int) -> str:
    """``2 tries left``, ``no tries left``."""
    if left <= 0:
        return _("no tries left")
    return ngettext("{count} try left", "{count} tries left", left).format(count=left)


def _progress(training: Mapping[str, Any], letters: bool) -> Text:
    """How the person is doing: whose move and the tries left, or the verdict."""
    state = str(training.get("state") or "")
    wrong, hints = int(training.get("wrong") or 0), int(training.get("hints") or 0)
    tries = _tries(MAX_WRONG - wrong)
    helped = ngettext("{count} hint", "{count} hints", hints).format(count=hints) if hints else ""
    if state == "setting up":
        return Text(_("the robot sets the puzzle up"), style="cyan")
    if state == "wrong":
        said = " · ".join([_("not the move"), tries] + ([helped] if helped else []))
        return Text(_plain(said, letters), style="bold yellow")
    if state == "solution":
        return Text(_("the robot plays the solution"), style="cyan")
    if state == "solved":
        return Text(_plain(_("solved ✓"), letters), style="bold green")
    if state == "failed":
        return Text(
            _plain(" · ".join([_("not solved")] + ([helped] if helped else [])), letters), style="bold red"
        )
    if state == "stopped":
        return Text(_("stopped before its end: not counted"), style="bold")
    return Text(_plain(" · ".join([tries] + ([helped] if helped else [])), letters), style="bold")


# --- the lines -------------------------------------------------------------------------------------


def outcome_line(outcome: Outcome) -> str:
    """The line a person at the terminal reads as a puzzle ends: ``solved in 8.4 s, rating 1281 → 1297
    (+16)``, ``failed in 31.0 s (3 wrong moves), rating 1500? → 1431? (−69)``, ``skipped after 4.0 s,
    which counts as failed, …``."""
    attempt = outcome.attempt
    seconds = _("{seconds} s").format(seconds=decimal(attempt.seconds, 1))
    given = []
    if attempt.wrong:
        given.append(
            ngettext("{count} wrong move", "{count} wrong moves", attempt.wrong).format(count=attempt.wrong)
        )
    if attempt.hints:
        given.append(ngettext("{count} hint", "{count} hints", attempt.hints).format(count=attempt.hints))
    detail = ", ".join(given)
    how = outcome.how
    if how == "solved":
        said = _("solved in {time}").format(time=seconds)
    elif how == "with help":
        said = _("solved with help ({help}) in {time}, which counts as failed").format(
            help=detail, time=seconds
        )
    elif how == "skipped":
        said = _("skipped after {time}, which counts as failed").format(time=seconds)
    elif detail:
        said = _("failed in {time} ({help})").format(time=seconds, help=detail)
    else:
        said = _("failed in {time}").format(time=seconds)
    after = attempt.rating
    change = round(after.rating) - round(outcome.before.rating)
    if not is_person(attempt.player):  # a simulated solver: its own rating, never the person's
        # TRANSLATORS: {outcome} is "solved in 8.4 s" or the like; {player} a simulated player's kind (hand)
        return _("{outcome}, the simulated {player}'s rating {before} → {after}, not yours").format(
            outcome=said, player=attempt.player, before=outcome.before, after=after
        )
    # TRANSLATORS: {outcome} is "solved in 8.4 s" or the like; {change} the rating's change, "+16"
    return _("{outcome}, rating {before} → {after} ({change})").format(
        outcome=said, before=outcome.before, after=after, change=_signed(change)
    )


class PuzzleLines:
    """The line a person at the terminal reads for each event of a run of puzzles (None for those the
    live view shows enough of). ``typed``: the person types their moves here, so that the prompt already
    shows the move a verdict is about (``right``, ``not the move: 2 tries left``); ``letters``: ASCII
    marks for a console font without others."""

    def __init__(self, *, typed: bool, letters: bool = False) -> None:
        self.typed = typed
        self.letters = letters

    def line(self, event: Mapping[str, Any], game: Mapping[str, Any] | None = None) -> str | None:
        """The line for ``event`` (``game``: the live state's game part as the event was told)."""
        text = self._line(event, game)
        return None if text is None else _plain(text, self.letters)

    def _line(self, event: Mapping[str, Any], game: Mapping[str, Any] | None) -> str | None:
        kind = event.get("event")
        about = event.get("puzzle")
        if kind == "puzzle":
            return _heading(event) if event.get("state") == "setting up" else None
        if about == "start":
            return (
                _("White to play and win") if event.get("colour") == "white" else _("Black to play and win")
            )
        if about == "right":
            return _("right") if self.typed else str(event.get("message"))
        if about == "wrong":
            if not self.typed:
                return _("warning: {message}").format(message=event.get("message"))
            left = int(event.get("tries_left") or 0)
            return _("not the move: {tries}").format(tries=_tries(left))
        if about == "done":
            return None  # (the outcome's line says it, with the time and the rating's change)
        if kind == "move" and event.get("who") == "puzzle":
            event = {**event, "who": _("puzzle")}  # (the puzzle's own moves; a player's code otherwise)
        return describe_event(event, game)


def _heading(event: Mapping[str, Any]) -> str:
    """``puzzle 1 of 2: 00sHx, rated 1760 (Mate in 2 · Short puzzle)``."""
    which = _title(event.get("number"), event.get("of")) or _("puzzle")
    themes = [str(theme) for theme in event.get("themes") or ()]
    said = {
        "puzzle": which,
        "id": event.get("id"),
        "rating": event.get("rating"),
        "themes": theme_line(themes),
    }
    if themes:
        # TRANSLATORS: {puzzle} is "puzzle 1 of 2", {themes} the puzzle's themes in words
        return _("{puzzle}: {id}, rated {rating} ({themes})").format(**said)
    return _("{puzzle}: {id}, rated {rating}").format(**said)


# --- the prompt ------------------------------------------------------------------------------------


class PuzzlePrompt:
    """The keyboard player's ``read_line`` for puzzles: a puzzle's own words on the prompt of a
    :class:`~chessatron.game.players.keyboard.KeyboardPlayer`, which knows a game's.

    ``help`` (``?``) prints :func:`puzzle_help` (through ``write``) and asks again; ``solution`` (or ``give
    up``) is the game's ``resign``, which a puzzle takes for the solution; ``skip`` calls ``skip`` (the
    table's request) and reads as ``resign`` too, which the table then passes over. Tab completes the
    legal moves and :data:`WORDS`, not the game's words (``takeback``, ``draw``)."""

    def __init__(
        self,
        read_line: Callable[[str], str | None],
        write: Callable[[str], None],
        skip: Callable[[], None],
    ) -> None:
        self._read_line = read_line
        self._write = write
        self._skip = skip

    def __call__(self, prompt: str) -> str | None:
        # the player offered the game's words with the legal moves a moment ago: the puzzle's instead
        moves = [word for word in lineinput.completions("") if word not in _GAME_WORDS]
        lineinput.offer([*moves, *WORDS])
        while True:
            line = self._read_line(prompt)
            if line is None:
                return None
            word = " ".join(line.split()).lower()
            if word in ("help", "?"):
                self._write(puzzle_help())
                continue
            if word in ("solution", "give up", "show"):
                return "resign"
            if word == "skip":
                self._skip()
                return "resign"
            return line


def puzzle_keyboard(view: PlayView | None, as_json: bool, skip: Callable[[], None]) -> KeyboardPlayer:
    """The keyboard player of a run of puzzles: a game's (as :func:`~chessatron.game.players.keyboard.
    keyboard_for` makes it: through the live ``view`` when it shows; with ``as_json`` the prompts and
    refusals on stderr) with the puzzle's own words at its prompt (:class:`PuzzlePrompt`; ``skip``: the
    table's request)."""
    if view is not None:
        return KeyboardPlayer(PuzzlePrompt(view.read_line, view.print, skip), view.print, hold=view.suspend)
    if as_json:  # stdout carries only the events
        return KeyboardPlayer(PuzzlePrompt(_prompt_on_stderr, _say_on_stderr, skip), _say_on_stderr)
    return KeyboardPlayer(PuzzlePrompt(read_stdin_line, print, skip), print)


def _prompt_on_stderr(prompt: str) -> str | None:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    return read_stdin_line("")


def _say_on_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@contextlib.contextmanager
def typed_requests(table: PuzzleTable, kind: str, say: Callable[[str], None]) -> Iterator[None]:
    """While puzzles are played by a person at the board (or by voice, or with buttons), what they type at
    this terminal: ``hint``, ``solution``, ``skip``, ``quit`` or ``help`` (told through ``say``), read on
    a thread of its own. (A keyboard player's own prompt takes them; nothing is read from a pipe.)"""
    if kind == "keyboard" or not sys.stdin.isatty():
        yield
        return
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            line = sys.stdin.readline()
            if not line:
                return
            word = " ".join(line.split()).lower()
            if word in ("hint", "h"):
                table.request("hint")
            elif word in ("solution", "resign", "give up"):
                table.request("give up")
            elif word == "skip":
                table.request("skip")
            elif word in ("help", "?"):
                say(puzzle_help(at_board=True))  # (the moves are made at the board)
            elif word in ("quit", "q", "stop"):
                table.request("stop")
                return

    threading.Thread(target=read, name="chessatron-puzzle-commands", daemon=True).start()
    try:
        yield
    finally:
        done.set()
