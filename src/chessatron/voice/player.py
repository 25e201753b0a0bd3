"""The voice player: moves and commands said aloud, read back, and carried out only once confirmed.

A :class:`VoiceMover` listens for what the player to move may say (:func:`~.grammar.move_grammar`),
reads the move it understood back ("knight takes f3. Yes or no?") and returns it only after a yes, by
voice or through :attr:`VoiceMover.confirmations` (buttons: select for yes, back for no). Words that fit
several moves ask which piece ("Which knight: from b1, or from f1?"); anything not understood, or a no,
asks again. Nothing is guessed: the robot never touches a piece for a move the player did not confirm.
What is acted on without a read-back (a yes or no, a hint, help) must fit the sound clearly
(:meth:`~.recognizer.SpeechRecognizer.hear`), or be heard the same twice in a row: a cough is not a yes.

The next game's settings are said as the buttons' menu sets them (:attr:`VoiceMover.settings`): "level
five" sets the engine's level, "standard chess" or "chess nine sixty" (then its number, or random) the
start, and "new game", read back and confirmed, stops the game under way (saved) and begins the next one
(:class:`~chessatron.game.players.base.NewGameRequested`, as the menu's *new game* does).

Every question goes to :attr:`VoiceMover.on_prompt` as a :class:`Prompt` (the session says it and shows
it; on the simulator a simulated person hears it and answers).

Voice input understands English only (the recogniser's model and grammar are English), so the conversation
is in English whatever the table's language: a player asked to run in another language first says, in that
language, that it understands English only and goes on in English (:data:`ENGLISH_ONLY`).
"""

from __future__ import annotations

import logging
import queue
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

import chess

from ..game.players.base import Command, NewGameRequested, Settings
from ..game.telling.speech import confirm_words, help_words, spoken_move, which_words
from ..i18n import N_, _, current_language, using
from ..ports import Microphone
from .grammar import Grammar, answer_grammar, move_grammar, number_grammar, which_grammar
from .meaning import (
    Answer,
    CommandHeard,
    Heard,
    MoveHeard,
    RequestHeard,
    SettingHeard,
    Unclear,
    number_of,
    understand,
    which,
)
from .recognizer import Hearing, SpeechRecognizer

__all__ = ["Prompt", "PromptKind", "VoiceMover"]

LOGGER = logging.getLogger(__name__)

PromptKind = Literal["move", "again", "confirm", "which", "answer", "help", "repeat", "setting"]
#: How long one wait for an utterance lasts before the player's clock and a stop are looked at (s).
LISTEN_S = 0.25
#: Commands read back before they are done (a hint is harmless; quitting is the keyboard's).
CONFIRMED_COMMANDS = {
    # TRANSLATORS: read back to the player before it is done ("take back. Yes or no?"); the voice player
    # speaks English only, so these are shown in the table's language only where its words are listed
    Command.TAKEBACK: N_("take back"),
    Command.DRAW: N_("offer a draw"),
    Command.RESIGN: N_("resign"),
}
#: Said, in the table's language, by a voice player asked to run in another language than English.
ENGLISH_ONLY = N_("Voice input understands English only, so the voice player goes on in English.")


@dataclass(frozen=True)
class Prompt:
    """What the voice player says, and what it then waits for.

    ``kind``: ``move`` (the player's turn: say a move; said only on a screen), ``again`` (not
    understood, or a no: say it again), ``confirm`` (``moves`` or ``command`` read back: yes or no?),
    ``which`` (the words fit the ``moves``: which piece? With no ``moves``: which Chess960 number?),
    ``answer`` (yes or no, please), ``help``, ``repeat`` (the last move said again), ``setting`` (the next
    game's settings said back: say a move, or new game). ``heard`` is what the recogniser made of the
    last utterance.
    """

    kind: PromptKind
    text: str
    board: chess.Board = field(compare=False, repr=False)
    moves: tuple[chess.Move, ...] = ()
    command: Command | None = None
    heard: str | None = None


class VoiceMover:
    """A player who says their moves (see the module docstring)."""

    def __init__(self, microphone: Microphone, recognizer: SpeechRecognizer, *, listen_s: float = LISTEN_S):
        self.microphone = microphone
        self.recognizer = recognizer
        self.listen_s = listen_s
        #: Answers to "yes or no?" from elsewhere (buttons: True for yes, False for no).
        self.confirmations: queue.Queue[bool] = queue.Queue()
        #: Told every question, to say and show it.
        self.on_prompt: Callable[[Prompt], None] = lambda prompt: None
        #: Whether the player's time is up or the game is being stopped (the session sets it).
        self.expired: Callable[[], bool] = lambda: False
        #: The next game's settings, as the buttons' menu keeps them (the session sets where they start:
        #: the level None when no engine plays).
        self.settings = Settings()
        #: Draws a Chess960 number when the player asks for a random one.
        self.rng = random.Random()
        self._doubted: Heard | None = None  # an answer or a command last heard, unclearly
        self._told_english_only = False

    def choose(self, board: chess.Board) -> chess.Move | Command | None:
        """The move (or command) the player said and confirmed; None when their time ran out or the game
        is being stopped first. The conversation is in English (voice input understands English only);
        in another language the player first says so, once, in that language."""
        if current_language() != "en" and not self._told_english_only:
            self._told_english_only = True
            self._prompt("help", _(ENGLISH_ONLY), board)
        with using("en"):
            return self._choose(board)

    def _choose(self, board: chess.Board) -> chess.Move | Command | None:
        grammar = move_grammar(board)
        self._doubted = None
        if board.turn == chess.WHITE:
            self._prompt("move", _("White to move: say your move."), board)
        else:
            self._prompt("move", _("Black to move: say your move."), board)
        while True:
            heard = self._hear(grammar, board)
            if heard is None:
                return None
            words = heard.words
            if isinstance(heard, RequestHeard):
                self._request(heard, board)
                continue
            if isinstance(heard, SettingHeard):
                if self._setting(heard, board):
                    raise NewGameRequested(self.settings)  # (the game under way stays saved)
                if self.expired():
                    return None
                continue
            if isinstance(heard, CommandHeard):
                if heard.command not in CONFIRMED_COMMANDS:
                    return heard.command
                confirmed = self._confirm(
                    board, _(CONFIRMED_COMMANDS[heard.command]), words, command=heard.command
                )
                if confirmed is None:
                    return None
                if confirmed:
                    return heard.command
                self._prompt("again", _("Say your move."), board)
                continue
            if not isinstance(heard, MoveHeard) or not heard.moves:
                text = (
                    _("Sorry, I did not understand. Say your move again.")
                    if not isinstance(heard, MoveHeard)
                    else _("Sorry, I heard no legal move. Say your move again.")
                )
                self._prompt("again", text, board, heard=words)
                continue
            move = heard.moves[0] if len(heard.moves) == 1 else self._which(board, heard.moves, words)
            if move is None:
                if self.expired():
                    return None
                self._prompt("again", _("Say your move again."), board)
                continue
            confirmed = self._confirm(board, spoken_move(board, move), words, move=move)
            if confirmed is None:
                return None
            if confirmed:
                return move
            self._prompt("again", _("Say your move again."), board)

    def _hear(self, grammar: Grammar, board: chess.Board) -> Heard | None:
        """The meaning of the next utterance; None once :attr:`expired`."""
        while True:
            pcm = self.microphone.listen(self.listen_s)
            if pcm is not None:
                hearing = self.recognizer.hear(pcm, grammar, checked=lambda said: _unread(said, board))
                return self._understand(hearing, board)
            if self.expired():
                return None

    def _understand(self, hearing: Hearing, board: chess.Board) -> Heard:
        """What ``hearing`` means; words heard unclearly (:class:`~.recognizer.Hearing`) are not
        understood the first time, only when the next utterance means the same: a cough heard as a yes
        is not heard twice, while a voice the model fits poorly says its yes again."""
        LOGGER.info("heard %r%s", hearing.words, "" if hearing.clear else " (unclearly)")
        heard = understand(hearing.words, board)
        doubted, self._doubted = self._doubted, None
        if hearing.clear or _same(heard, doubted):
            return heard
        self._doubted = heard
        return Unclear(hearing.words)

    def _confirm(
        self,
        board: chess.Board,
        what: str,
        words: str,
        *,
        move: chess.Move | None = None,
        command: Command | None = None,
    ) -> bool | None:
        """Read ``what`` back and wait for yes or no (by voice, or in :attr:`confirmations`); None once
        :attr:`expired`."""
        while not self.confirmations.empty():  # a press meant for an earlier question
            self.confirmations.get_nowait()
        moves = (move,) if move is not None else ()
        self._prompt("confirm", confirm_words(what), board, moves=moves, command=command, heard=words)
        grammar = answer_grammar()
        while True:
            try:
                return self.confirmations.get_nowait()
            except queue.Empty:
                pass
            pcm = self.microphone.listen(self.listen_s)
            if pcm is None:
                if self.expired():
                    return None
                continue
            # every answer is acted on as heard: a cough taken for a yes would play a move not meant
            heard = self._understand(self.recognizer.hear(pcm, grammar, checked=lambda said: True), board)
            if isinstance(heard, Answer):
                return heard.yes
            text = confirm_words(what) if isinstance(heard, RequestHeard) else _("Please say yes or no.")
            self._prompt("answer", text, board, moves=moves, command=command, heard=heard.words)

    def _which(self, board: chess.Board, moves: tuple[chess.Move, ...], words: str) -> chess.Move | None:
        """Ask which of ``moves`` was meant; None for a no (or once :attr:`expired`)."""
        question = which_words(board, moves)
        self._prompt("which", question, board, moves=moves, heard=words)
        grammar = which_grammar(board, moves)
        while True:
            heard = self._hear(grammar, board)
            if heard is None or (isinstance(heard, Answer) and not heard.yes):
                return None
            chosen = which(heard.words, board, moves)
            if chosen is not None:
                return chosen
            self._prompt(
                "which",
                _("Sorry. {question}").format(question=question),
                board,
                moves=moves,
                heard=heard.words,
            )

    def _setting(self, heard: SettingHeard, board: chess.Board) -> bool:
        """A setting of the next game said (see the module docs): True once a new game is confirmed."""
        settings = self.settings
        if heard.setting == "new game":
            confirmed = self._confirm(
                board, _("a new game, {settings}").format(settings=_described(settings)), heard.words
            )
            if confirmed:
                return True
            if confirmed is not None:
                self._prompt("again", _("Say your move."), board)
            return False
        if heard.setting == "level":
            if settings.level is None:
                self._prompt("again", _("No engine plays here to set a level for. Say your move."), board)
                return False
            settings = replace(settings, level=heard.value)
        elif heard.setting == "standard":
            settings = replace(settings, chess960=None)
        else:
            number = self._chess960_number(board)
            if number is None:
                if not self.expired():
                    self._prompt("again", _("Say your move."), board)
                return False
            settings = replace(settings, chess960=number)
        self.settings = settings
        # TRANSLATORS: "new game" is what the player says (voice input is English): keep it English
        text = _("The next game: {settings}. Say new game to begin it, or your move.").format(
            settings=_described(settings)
        )
        self._prompt("setting", text, board, heard=heard.words)
        return False

    def _chess960_number(self, board: chess.Board) -> int | None:
        """Ask which Chess960 start: its number, or a random one; None for a no (or once expired)."""
        # TRANSLATORS: "random" is what the player says (voice input is English): keep it English
        question = _("Which Chess960 start? Say its number, zero to nine hundred fifty nine, or random.")
        self._prompt("which", question, board)
        grammar = number_grammar()
        while True:
            heard = self._hear(grammar, board)
            if heard is None or (isinstance(heard, Answer) and not heard.yes):
                return None
            if isinstance(heard, RequestHeard):
                self._prompt("which", question, board, heard=heard.words)
                continue
            number = number_of(heard.words)
            if number is not None:
                return self.rng.randrange(960) if number == "random" else number
            self._prompt("which", _("Sorry. {question}").format(question=question), board, heard=heard.words)

    def _request(self, heard: RequestHeard, board: chess.Board) -> None:
        if heard.request == "help":
            self._prompt("help", help_words(), board, heard=heard.words)
            return
        if board.move_stack:
            last = board.copy()
            move = last.pop()
            text = _("The last move was {move}. Say your move.").format(move=spoken_move(last, move))
        else:
            text = _("No move has been made yet. Say your move.")
        self._prompt("repeat", text, board, heard=heard.words)

    def _prompt(
        self,
        kind: PromptKind,
        text: str,
        board: chess.Board,
        *,
        moves: tuple[chess.Move, ...] = (),
        command: Command | None = None,
        heard: str | None = None,
    ) -> None:
        self.on_prompt(Prompt(kind, text, board.copy(), moves, command, heard))

    def __repr__(self) -> str:
        return f"<VoiceMover {self.microphone!r}>"


def _described(settings: Settings) -> str:
    """The next game's settings in words: "level 5, Chess960 number 100", "standard chess"."""
    if settings.chess960 is None:
        start = _("standard chess")
    else:
        start = _("Chess960 number {number}").format(number=settings.chess960)
    if settings.level is None:
        return start
    return _("level {level}, {start}").format(level=settings.level, start=start)


def _same(heard: Heard, other: Heard | None) -> bool:
    """Whether ``heard`` means what ``other`` meant (the same answer, command or request)."""
    if isinstance(heard, Answer) and isinstance(other, Answer):
        return heard.yes == other.yes
    if isinstance(heard, CommandHeard) and isinstance(other, CommandHeard):
        return heard.command == other.command
    if isinstance(heard, RequestHeard) and isinstance(other, RequestHeard):
        return heard.request == other.request
    return False


def _unread(words: str, board: chess.Board) -> bool:
    """Whether ``words`` are acted on without being read back first: a hint, help, the last move again
    (a move and the other commands are read back, and a no undoes a mishearing)."""
    heard = understand(words, board)
    return isinstance(heard, RequestHeard) or (
        isinstance(heard, CommandHeard) and heard.command not in CONFIRMED_COMMANDS
    )
