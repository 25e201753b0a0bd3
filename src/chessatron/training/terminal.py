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
from ..planning.planner import Relocation
from ..planning.table import Table
from .attempts import is_person
from .table import MAX_WRONG, Outcome, PuzzleTable
from .themes import theme_line

__all__ = [
    "FINISHED",
    "PUZZLE_HELP",
    "WORDS",
    "PuzzleLines",
    "PuzzlePrompt",
    "outcome_line",
    "puzzle_keyboard",
    "puzzle_view",
    "typed_requests",
]

#: What ``help`` (or ``?``) prints at a puzzle's prompt.
PUZZLE_HELP: Final = """\
type your move: Nf3, exd5, e8=Q, O-O, or from and to squares: g1f3
hint (h): the piece to move, then the square it goes to (marked on the board)
solution: the robot plays the solution out (the puzzle counts as failed)
skip: on to the next puzzle (it counts as failed; its solution is printed)
quit (q): stop here; the puzzles done are saved
help (?): this help"""

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
    title = f"puzzle {number} of {of}" if of else f"puzzle {number}"
    hint = training.get("hint") or {}
    marked = [str(square) for square in hint.get("squares") or [hint.get("square")] if square]
    # the lines printed above say what the notices say; the panel keeps to the puzzle
    shown = {**snapshot, "notices": []}
    if snapshot.get("status") == "idle":
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
    head.append(_plain(f" · rated {training.get('rating')}", letters))
    rows.append(head)
    themes = [str(theme) for theme in training.get("themes") or ()]
    if themes:
        rows.append(Text(_plain(theme_line(themes), letters), style="dim"))
    rows.append(_progress(training, letters))
    hint = training.get("hint") or {}
    if hint.get("text"):
        rows.append(Text(f"hint: {hint['text']}", style="bold cyan"))
    mark = "?" if training.get("provisional") else ""
    rating = Text(f"your rating {training.get('your_rating')}{mark}")
    after = training.get("rating_after")
    if after is not None:
        change = int(after) - int(training.get("your_rating") or 0)
        sign = "+" if change >= 0 else "−"
        rating.append(_plain(f" → {after} ({sign}{abs(change)})", letters), style="bold")
    rows.append(rating)
    return rows


def _progress(training: Mapping[str, Any], letters: bool) -> Text:
    """How the person is doing: whose move and the tries left, or the verdict."""
    state = str(training.get("state") or "")
    wrong, hints = int(training.get("wrong") or 0), int(training.get("hints") or 0)
    left = max(0, MAX_WRONG - wrong)
    tries = f"{left or 'no'} tr{'y' if left == 1 else 'ies'} left"
    helped = f" · {hints} hint{'s' if hints != 1 else ''}" if hints else ""
    if state == "setting up":
        return Text("the robot sets the puzzle up", style="cyan")
    if state == "wrong":
        return Text(_plain(f"not the move · {tries}{helped}", letters), style="bold yellow")
    if state == "solution":
        return Text("the robot plays the solution", style="cyan")
    if state == "solved":
        return Text(_plain("solved ✓", letters), style="bold green")
    if state == "failed":
        return Text(_plain(f"not solved{helped}", letters), style="bold red")
    if state == "stopped":
        return Text("stopped before its end: not counted", style="bold")
    return Text(_plain(f"{tries}{helped}", letters), style="bold")


# --- the lines -------------------------------------------------------------------------------------


def outcome_line(outcome: Outcome) -> str:
    """The line a person at the terminal reads as a puzzle ends: ``solved in 8.4 s, rating 1281 → 1297
    (+16)``, ``failed in 31.0 s (3 wrong moves), rating 1500? → 1431? (−69)``, ``skipped after 4.0 s,
    which counts as failed, …``."""
    attempt = outcome.attempt
    seconds = f"{attempt.seconds:.1f} s"
    given = []
    if attempt.wrong:
        given.append(f"{attempt.wrong} wrong move{'s' if attempt.wrong > 1 else ''}")
    if attempt.hints:
        given.append(f"{attempt.hints} hint{'s' if attempt.hints > 1 else ''}")
    detail = ", ".join(given)
    how = outcome.how
    if how == "solved":
        said = f"solved in {seconds}"
    elif how == "with help":
        said = f"solved with help ({detail}) in {seconds}, which counts as failed"
    elif how == "skipped":
        said = f"skipped after {seconds}, which counts as failed"
    else:
        said = f"failed in {seconds}" + (f" ({detail})" if detail else "")
    after = attempt.rating
    change = round(after.rating) - round(outcome.before.rating)
    sign = "+" if change >= 0 else "−"
    if not is_person(attempt.player):  # a simulated solver: its own rating, never the person's
        return f"{said}, the simulated {attempt.player}'s rating {outcome.before} → {after}, not yours"
    return f"{said}, rating {outcome.before} → {after} ({sign}{abs(change)})"


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
            return f"{str(event.get('colour')).capitalize()} to play and win"
        if about == "right":
            return "right" if self.typed else str(event.get("message"))
        if about == "wrong":
            if not self.typed:
                return f"warning: {event.get('message')}"
            left = int(event.get("tries_left") or 0)
            return f"not the move: {left or 'no'} tr{'y' if left == 1 else 'ies'} left"
        if about == "done":
            return None  # (the outcome's line says it, with the time and the rating's change)
        return describe_event(event, game)


def _heading(event: Mapping[str, Any]) -> str:
    """``puzzle 1 of 2: 00sHx, rated 1760 (Mate in 2 · Short puzzle)``."""
    number, of = event.get("number"), event.get("of")
    which = f"puzzle {number} of {of}" if of else f"puzzle {number}" if number else "puzzle"
    themes = [str(theme) for theme in event.get("themes") or ()]
    named = f" ({theme_line(themes)})" if themes else ""
    return f"{which}: {event.get('id')}, rated {event.get('rating')}{named}"


# --- the prompt ------------------------------------------------------------------------------------


class PuzzlePrompt:
    """The keyboard player's ``read_line`` for puzzles: a puzzle's own words on the prompt of a
    :class:`~chessatron.game.players.keyboard.KeyboardPlayer`, which knows a game's.

    ``help`` (``?``) prints :data:`PUZZLE_HELP` (through ``write``) and asks again; ``solution`` (or ``give
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
                self._write(PUZZLE_HELP)
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
                say(PUZZLE_HELP.split("\n", 1)[1])  # (the moves are made at the board)
            elif word in ("quit", "q", "stop"):
                table.request("stop")
                return

    threading.Thread(target=read, name="chessatron-puzzle-commands", daemon=True).start()
    try:
        yield
    finally:
        done.set()
