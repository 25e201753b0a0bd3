"""The ``keyboard`` player: a person at a terminal typing moves and commands (read as :mod:`.notation`
says), every refused line explained and asked again, on a prompt with line editing
(:mod:`..telling.lineinput`), through the terminal view when it shows (:func:`keyboard_for`)."""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Final

import chess

from ...errors import ChessatronError
from ...i18n import N_, _, pgettext
from ..telling import lineinput
from ..telling.view import PlayView
from .base import Command
from .notation import Rejection, parse_command, typed_words

# TRANSLATORS: the help at the move prompt, three lines: write the moves with your language's piece letters
# (Sf3, e8=D, Kxh1) and the commands as your words for them (the first of each in "typed command"); UCI
# (e2e4, e7e8q) and "chessatron play --resume" stay as they are
HELP_TEXT: Final = N_("""\
type a move: e2e4, e7e8q, Nf3, exd5, e8=Q, O-O (castling also as the king onto its rook: Kxh1, e1h1)
or a command: hint (h), takeback (undo), draw (offers a draw, or accepts one), resign, help (?),
quit (q: the game is saved; chessatron play --resume continues it)""")
#: The prompt for a move, by the side to move and whether it is in check.
_PROMPTS: Final = {
    # TRANSLATORS: the prompt for a move at the terminal (the player types after it)
    (chess.WHITE, False): N_("White to move: "),
    (chess.BLACK, False): N_("Black to move: "),
    (chess.WHITE, True): N_("White to move (in check): "),
    (chess.BLACK, True): N_("Black to move (in check): "),
}

#: How often a prompt that can be given up checks whether it must be (seconds).
GIVE_UP_POLL_S: Final = 0.05
#: What :meth:`KeyboardPlayer._read` returns for a prompt given up.
_GAVE_UP: Final = object()


def read_stdin_line(prompt: str) -> str | None:
    """``input()`` with end of input (Ctrl-D) as None; on a terminal with line editing, history (the Up
    arrow) and Tab completion of the moves and commands offered (:mod:`..telling.lineinput`), and a
    :class:`~..telling.lineinput.Prompt` redrawn as it changes. Bytes that are not text (in any locale) become
    U+FFFD and so an unknown move, never an exception that would lose the lines read with them."""
    return lineinput.read_line(prompt)


class KeyboardPlayer:
    """A person at a terminal: prompts, explains every refused line and asks again.

    ``read_line(prompt)`` returns a line, or None at the end of input; ``write`` shows a line of text.
    ``help`` is answered here with :data:`HELP_TEXT` (in the player's language); every other command goes
    back to the caller.
    ``hold()`` is held while one prompt is asked again and again (the reason for a refused line shown
    between): a terminal view steps aside once, not after every typo (``PlayView.suspend``).
    The end of input (None or ``EOFError`` from ``read_line``) is :attr:`Command.QUIT`; Ctrl-C at a
    prompt goes on up as the ``KeyboardInterrupt`` it is (the game stops saved either way).

    >>> lines = iter(["Bb5", "e4"])
    >>> KeyboardPlayer(lambda prompt: next(lines), print).ask(chess.Board())
    the bishop on f1 cannot get to b5: the way is blocked at e2
    Move.from_uci('e2e4')
    """

    def __init__(
        self,
        read_line: Callable[[str], str | None] = read_stdin_line,
        write: Callable[[str], None] = print,
        *,
        hold: Callable[[], contextlib.AbstractContextManager[None]] | None = None,
    ) -> None:
        self._read_line = read_line
        self._write = write
        self._hold = hold or contextlib.nullcontext
        # the answer of a prompt that was given up (a flag fell) while its line was still being read
        self._pending: queue.Queue[str | BaseException | None] | None = None
        # one prompt at a time: the board's question (asked from a thread of its own) and the next move's
        self._reading = threading.RLock()

    def confirm(self, question: str) -> bool:
        """A yes/no question (``"Another game?"``): True for y/yes (or the language's word for it); no,
        anything else or the end of input is False. Ctrl-C goes on up as the ``KeyboardInterrupt`` it is:
        the command stops, as at any prompt."""
        # TRANSLATORS: the words for yes at a yes/no prompt, separated by commas, the usual one first
        yes = [word.strip().lower() for word in pgettext("typed answer", "yes, y").split(",") if word.strip()]
        # TRANSLATORS: the usual word for no at a yes/no prompt
        lineinput.offer([*yes[:1], pgettext("typed answer", "no")])
        try:
            # TRANSLATORS: a yes/no question; y and N: the first letters of your words for yes and no
            line = self._read(_("{question} [y/N] ").format(question=question), None)
        except EOFError:
            line = None
        except KeyboardInterrupt:
            self._write("")  # end the prompt's line
            raise
        if line is None or line is _GAVE_UP:
            self._write("")
            return False
        return str(line).strip().lower() in ("y", "yes", *yes)

    def ask(
        self,
        board: chess.Board,
        *,
        expired: Callable[[], bool] | None = None,
        typing: Callable[[str], None] | None = None,
    ) -> chess.Move | Command | None:
        """The legal move or the command (never :attr:`Command.HELP`) of the player to move on ``board``.

        With ``expired`` (the player's flag fell, say), the prompt is given up as soon as it is true:
        None. The line is read on a thread of its own then, and a line typed after that answers the next
        prompt or question. ``typing`` is told the line typed so far while the prompt waits for keys
        (:func:`..telling.lineinput.follow`; at a terminal with readline only)."""
        prompt = _(_PROMPTS[board.turn, board.is_check()])
        lineinput.offer(typed_words(board))
        lineinput.follow(typing)
        try:
            with self._hold():
                return self._ask(board, prompt, expired)
        finally:
            lineinput.follow(None)

    def _ask(
        self, board: chess.Board, prompt: str, expired: Callable[[], bool] | None
    ) -> chess.Move | Command | None:
        while True:
            try:
                line = self._read(prompt, expired)
            except EOFError:
                line = None
            except KeyboardInterrupt:
                self._write("")  # end the prompt's line
                raise
            if line is _GAVE_UP:
                self._write("")  # end the prompt's line
                return None
            if line is None:
                self._write("")  # end the prompt's line, so that what follows starts on its own
                return Command.QUIT
            result = parse_command(str(line), board)
            if isinstance(result, Rejection):
                self._write(result.reason)
            elif result is Command.HELP:
                self._write(_(HELP_TEXT))
            else:
                return result

    def which(
        self,
        prompt: str,
        names: Iterable[str],
        answer: Callable[[str], object],
        *,
        expired: Callable[[], bool],
    ) -> bool:
        """Ask which of several moves a person made (the board's question, :class:`~.answers.QuestionPrompt`):
        ``names`` (the moves' SAN and UCI) are what Tab completes; ``answer(line)`` takes a typed line
        and raises :class:`~chessatron.errors.ChessatronError` saying why for one that names none of
        them (shown, and the question asked again). True once answered; False as soon as ``expired()``
        (the question was settled elsewhere). Raises ``EOFError`` at the end of input.

        >>> asked = iter(["Nf3", "Nxe6"])
        >>> def answer(line):
        ...     if line != "Nxe6":
        ...         raise ChessatronError(f"{line!r} is not one of the moves asked about")
        >>> KeyboardPlayer(lambda prompt: next(asked), print).which("Nxb5 or Nxe6? ", ["Nxb5", "Nxe6"],
        ...                                                          answer, expired=lambda: False)
        'Nf3' is not one of the moves asked about
        True
        """
        lineinput.offer(names)
        with self._hold():
            while True:
                line = self._read(prompt, expired)
                if line is _GAVE_UP:
                    self._write("")  # end the prompt's line
                    return False
                if line is None:
                    self._write("")
                    raise EOFError
                if expired():
                    return False  # typed as the question was settled elsewhere: it answers nothing
                text = str(line).strip()
                if not text:
                    continue
                try:
                    answer(text)
                except ChessatronError as exc:
                    self._write(str(exc))
                else:
                    return True

    def _read(self, prompt: str, expired: Callable[[], bool] | None) -> str | object | None:
        """A line, None at the end of input, or :data:`_GAVE_UP` once ``expired()``."""
        with self._reading:
            return self._read_one(prompt, expired)

    def _read_one(self, prompt: str, expired: Callable[[], bool] | None) -> str | object | None:
        if expired is None and self._pending is None:
            return self._read_line(prompt)
        if self._pending is None:
            answers: queue.Queue[str | BaseException | None] = queue.Queue(maxsize=1)

            def read() -> None:
                try:
                    answers.put(self._read_line(prompt))
                except BaseException as exc:  # handed to the asking thread, which raises it
                    answers.put(exc)

            threading.Thread(target=read, name="chessatron-keyboard", daemon=True).start()
            self._pending = answers
        else:
            self._write(prompt.rstrip())  # the earlier prompt's line is still being read: it answers this
        while True:
            try:
                answer = self._pending.get(timeout=GIVE_UP_POLL_S)
            except queue.Empty:
                if expired is not None and expired():
                    return _GAVE_UP
                continue
            self._pending = None
            if isinstance(answer, BaseException):
                raise answer
            return answer


class KeyboardMover:
    def __init__(self, keyboard: KeyboardPlayer) -> None:
        self.keyboard = keyboard
        #: Whether the player's time is up (the session sets it when a clock runs): the prompt gives up.
        self.expired: Callable[[], bool] | None = None
        #: Told the line typed so far while the prompt waits, Enter not yet pressed (the session sets it:
        #: the robot's magnet heads for the piece being typed).
        self.typing: Callable[[str], None] | None = None

    def choose(self, board: chess.Board) -> chess.Move | Command | None:
        return self.keyboard.ask(board, expired=self.expired, typing=self.typing)


def keyboard_for(view: PlayView | None, *, as_json: bool) -> KeyboardPlayer:
    """The keyboard player of a command at a terminal (``play``, ``online``): through the live view when
    it shows; with ``as_json``, prompts and refusals on stderr (stdout carries only events); else lines."""
    if view is not None:
        return KeyboardPlayer(view.read_line, view.print, hold=view.suspend)
    if as_json:
        return KeyboardPlayer(_prompt_on_stderr, _say_on_stderr)
    return KeyboardPlayer()


def _prompt_on_stderr(prompt: str) -> str | None:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    return read_stdin_line("")


def _say_on_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
