"""The board's question, answered at the terminal.

When the sensors cannot tell two moves apart, the session asks which one the person at the board made
(its ``question`` event, the live state's ``question``). :class:`QuestionPrompt` asks it at the keyboard
prompt, ``Which move was made at the board: Nxb5 or Nxe6?``, with Tab completing the moves asked about,
and passes the typed answer (SAN or UCI) to the session (:meth:`~..session.Session.answer`). The prompt
goes as soon as the question is settled otherwise: the piece lifted and set down again, an answer from
the web page, or what followed on the board.

A simulated hand answers by itself (it lifts the piece again, unless the session's ``hand_answers`` is
off), so only a person's question is asked here; and once the input has ended (no terminal: a service, a
pipe) nothing is asked any more.

>>> question_prompt({"text": "Nxb5 or Nxe6?"})
'Which move was made at the board: Nxb5 or Nxe6? '
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

import chess

from ...i18n import _
from .keyboard import KeyboardPlayer

__all__ = ["QuestionPrompt", "question_prompt"]


def question_prompt(asked: Mapping[str, Any]) -> str:
    """The prompt for the live state's ``question``."""
    # TRANSLATORS: a prompt; {question}: the moves asked about ("Nxb5 or Nxe6?")
    return _("Which move was made at the board: {question} ").format(question=asked.get("text"))


def asker(asked: Mapping[str, Any], game: Mapping[str, Any] | None) -> str:
    """The kind of player the question is for (``board``: a person; ``hand``: a simulated one): the
    player whose move it was at the question's ``ply`` (counted from the game's start).

    >>> game = {"white": "board", "black": "hand:5", "start_fen": chess.STARTING_FEN}
    >>> asker({"ply": 0}, game), asker({"ply": 1}, game)
    ('board', 'hand')
    """
    if not game:
        return ""
    start = chess.Board(str(game.get("start_fen") or chess.STARTING_FEN))
    ply = int(asked.get("ply") or 0)
    mover = start.turn if ply % 2 == 0 else not start.turn
    spec = str(game.get("white" if mover == chess.WHITE else "black") or "")
    return spec.split(":", 1)[0]


class QuestionPrompt:
    """Asks the board's questions at the keyboard from a thread of its own, while the block runs.

    Feed it the session's events (:meth:`follow`); ``game()`` returns the live state's ``game`` (who
    plays), ``answer(text)`` is :meth:`Session.answer` (it raises, saying why, for a line that names
    none of the moves asked about: the reason is shown and the question asked again), and
    ``hands_answer()`` says whether a simulated hand answers its questions itself (the session's
    ``hand_answers``).
    """

    def __init__(
        self,
        keyboard: KeyboardPlayer,
        answer: Callable[[str], object],
        game: Callable[[], Mapping[str, Any] | None],
        *,
        hands_answer: Callable[[], bool] = lambda: True,
    ) -> None:
        self.keyboard = keyboard
        self._answer = answer
        self._game = game
        self._hands_answer = hands_answer
        self._changed = threading.Condition()
        self._open: Mapping[str, Any] | None = None
        self._closed = False
        #: The input ended (a pipe, /dev/null): nobody types here, nothing more is asked.
        self.ended = False
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        asking = self._open.get("text") if self._open else None
        return f"QuestionPrompt(asking={asking!r}, ended={self.ended})"

    def __enter__(self) -> QuestionPrompt:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def follow(self, event: Mapping[str, Any]) -> None:
        """Take note of a session event: a ``question`` opens the prompt, its settling (None) ends it."""
        if event.get("event") != "question":
            return
        asked = event.get("question") or None
        if asked is not None:
            kind = asker(asked, self._game())
            if kind != "board" and not (kind == "hand" and not self._hands_answer()):
                asked = None  # a simulated hand answers it itself
        with self._changed:
            self._open = asked
            if asked is not None and self._thread is None and not self.ended and not self._closed:
                self._thread = threading.Thread(target=self._run, name="chessatron-question", daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def close(self) -> None:
        """Stop asking (a prompt still waiting is given up). Idempotent."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=1.0)

    def _run(self) -> None:
        answered: list[Mapping[str, Any]] = []  # (the session settles it: not asked again meanwhile)

        def new_question() -> bool:
            return self._open is not None and all(self._open is not done for done in answered)

        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._closed or new_question())
                if self._closed:
                    return
                asked = self._open
            assert asked is not None
            try:
                if self._ask(asked):
                    answered[:] = [asked]
            except EOFError:
                self.ended = True
                return

    def _ask(self, asked: Mapping[str, Any]) -> bool:
        options = list(asked.get("options") or ())
        names = [str(option.get(key)) for key in ("san", "uci") for option in options]
        return self.keyboard.which(
            question_prompt(asked),
            names,
            self._answer,
            expired=lambda: self._closed or self._open is not asked,
        )
