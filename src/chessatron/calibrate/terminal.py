"""The person at the terminal during ``hw calibrate``: what the table says printed as lines, answers typed
(a wrong one refused with what to type instead, and asked again), the magnet nudged with the arrow keys or
h j k l, and Ctrl-C (or the end of input) as :class:`~.person.Stopped`.

On the simulator the person cannot look at the table: ``picture`` draws what they would see (the LEDs as
they really light) before each question about it, and ``look`` says where the magnet really is from the
square it is to be moved under, before each key.
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
    person would see of the table before a question about a square, ``look`` (optional) what they would
    see of the magnet before each key of a nudge (given the question; None: nothing to say)."""

    def __init__(
        self,
        console: Console,
        *,
        picture: Callable[[], RenderableType | None] | None = None,
        look: Callable[[str], str | None] | None = None,
    ) -> None:
        self.console = console
        self.picture = picture
        self.look = look
        self._keys_told = False

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
        seen = self.look(question) if self.look is not None else None
        if seen is not None:
            self.tell(seen)
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            while True:
                typed = self._line("> ")
                found = key_nudge(typed)
                if found is not None:
                    return found
                self.tell(
                    _(
                        "{typed!r} does not move the magnet; type left, right, up, down, finer, coarser or "
                        "done."
                    ).format(typed=typed)
                )
        if not self._keys_told:
            self._keys_told = True
            self.tell(
                _(
                    "Keys: the arrows or h j k l move the magnet, - or f makes the steps finer, + or c "
                    "coarser, Enter when it is there; Ctrl-C stops."
                )
            )
        while True:
            with _keys() as read:
                key = read()
            found = key_nudge(key)
            if found is not None:
                return found
            self.tell(
                _(
                    "{key!r} does not move the magnet: the arrows or h j k l move it, - and + change the "
                    "step, Enter when it is there."
                ).format(key=key)
            )


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
        tty.setcbreak(fd, termios.TCSANOW)  # (not the default TCSAFLUSH: keys typed ahead are kept)
        yield read
    except KeyboardInterrupt:
        raise Stopped(_("stopped at the terminal")) from None
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, before)
