"""The person at the terminal during ``hw calibrate``: what the table says printed as lines, answers typed
(a wrong one refused with what to type instead, and asked again), the magnet nudged with the arrow keys or
h j k l, and Ctrl-C (or the end of input) as :class:`~.person.Stopped`.

On the simulator the person cannot look at the table: ``picture`` draws what they would see (the LEDs as
they really light) before each question about it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence

import chess
from rich.console import Console, RenderableType

from ..game.telling.lineinput import read_line
from ..i18n import _
from .person import Nudge, Stopped

__all__ = ["TerminalPerson", "key_nudge"]

#: The keys that nudge the magnet, as a terminal sends them.
KEYS: dict[str, Nudge] = {
    "\x1b[D": "left",
    "\x1b[C": "right",
    "\x1b[A": "up",
    "\x1b[B": "down",
    "h": "left",
    "l": "right",
    "k": "up",
    "j": "down",
    "-": "finer",
    "f": "finer",
    "+": "coarser",
    "c": "coarser",
    "\r": "done",
    "\n": "done",
}


def key_nudge(key: str) -> Nudge | None:
    """The nudge a key (or a typed word: ``left``, ``done``) stands for; None for any other key.

    >>> key_nudge("\\x1b[D"), key_nudge("k"), key_nudge("done"), key_nudge("x")
    ('left', 'up', 'done', None)
    """
    if key in KEYS:
        return KEYS[key]
    word = key.strip().lower()
    if word in ("left", "right", "up", "down", "finer", "coarser", "done"):
        return word  # type: ignore[return-value]
    return None


class TerminalPerson:
    """A :class:`~.person.Person` at the terminal of ``console``; ``picture`` (optional) draws what the
    person would see of the table before a question about a square."""

    def __init__(
        self, console: Console, *, picture: Callable[[], RenderableType | None] | None = None
    ) -> None:
        self.console = console
        self.picture = picture

    def tell(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False)

    def _line(self, prompt: str) -> str:
        try:
            line = read_line(prompt)
        except (KeyboardInterrupt, EOFError):
            raise Stopped(_("stopped at the terminal")) from None
        if line is None:
            raise Stopped(_("the end of input at the terminal"))
        return line.strip()

    def ask(self, question: str, answers: Sequence[str]) -> str:
        while True:
            line = self._line(f"{question} [{'/'.join(answers)}] ").lower()
            if not line and len(answers) == 1:
                return answers[0]
            for answer in answers:
                if line == answer.lower():
                    return answer
            self.tell(
                _("{typed!r} is not an answer here; type one of: {answers}.").format(
                    typed=line, answers=", ".join(answers)
                )
            )

    def ask_square(self, question: str) -> chess.Square | None:
        if self.picture is not None:
            shown = self.picture()
            if shown is not None:
                self.console.print(shown)
        while True:
            line = self._line(f"{question} ").lower()
            if line in ("none", "-"):
                return None
            if line in chess.SQUARE_NAMES:
                return chess.parse_square(line)
            self.tell(_("{typed!r} is not a square: type one such as e4, or none.").format(typed=line))

    def nudge(self, question: str) -> Nudge:
        self.tell(question)
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            while True:
                found = key_nudge(self._line("> "))
                if found is not None:
                    return found
        while True:
            with _keys() as read:
                key = read()
            found = key_nudge(key)
            if found is not None:
                return found


@contextlib.contextmanager
def _keys() -> Iterator[Callable[[], str]]:
    """Single keys from the terminal (cbreak: no Enter needed, Ctrl-C still a signal)."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    before = termios.tcgetattr(fd)

    def read() -> str:
        key = os.read(fd, 1).decode("utf-8", "replace")
        if key == "\x1b":
            key += os.read(fd, 2).decode("ascii", "replace")
        return key

    try:
        tty.setcbreak(fd)
        yield read
    except KeyboardInterrupt:
        raise Stopped(_("stopped at the terminal")) from None
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, before)
