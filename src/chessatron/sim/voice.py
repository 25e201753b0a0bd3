"""A simulated person who plays by voice: says a move the way people do, through espeak-ng into the
simulated microphone, and answers the table's questions truthfully (yes when the move read back is the one
meant, no otherwise; which piece, by its square).

It keeps the score of the conversation: moves understood at the first try, tries, and moves carried out
that were not meant (the benchmark's figures: ``python -m bench.voice``).

>>> phrase_move(chess.Board(), chess.Move.from_uci("g1f3"), random.Random(2))
'knight f three'
>>> phrase_move(chess.Board(), chess.Move.from_uci("g1f3"), random.Random(2), "alphabet")
'knight foxtrot three'
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import chess

from ..feedback.espeak import EspeakVoice
from ..game.players.base import Command
from ..voice.microphone import SimMicrophone
from ..voice.player import Prompt
from ..voice.words import FILE_WORDS, PIECE_WORDS, RANK_WORDS

__all__ = ["Files", "SimulatedVoice", "VoiceScore", "phrase_move"]

#: How a person says files: as letters ("f three"), in the spelling alphabet ("foxtrot three"), or either.
Files = Literal["letters", "alphabet", "mixed"]


def phrase_move(board: chess.Board, move: chess.Move, rng: random.Random, files: Files = "letters") -> str:
    """``move`` as a person might say it: read from its SAN ("knight f three", "e takes d five",
    "rook a d one", "castle kingside"), with "to" ("knight to f three"), or from square to square
    ("knight g one to f three"); "check" when it gives check."""
    alphabet = files == "alphabet" or (files == "mixed" and rng.random() < 0.5)

    def square(sq: chess.Square) -> str:
        return f"{file_word(chess.square_file(sq))} {RANK_WORDS[chess.square_rank(sq)]}"

    def file_word(file: int) -> str:
        return FILE_WORDS[chess.FILE_NAMES[file]][1 if alphabet else 0]

    after = board.copy(stack=False)
    after.push(move)
    check = " checkmate" if after.is_checkmate() else " check" if after.is_check() else ""
    if board.is_castling(move):
        side = rng.choice(
            ("kingside", "short") if board.is_kingside_castling(move) else ("queenside", "long")
        )
        return f"{rng.choice(('castle', 'castles'))} {side}{check}"
    piece = board.piece_type_at(move.from_square) or chess.PAWN
    promotion = f" {PIECE_WORDS[move.promotion]}" if move.promotion else ""
    capture = board.is_capture(move)
    style = rng.random()
    if style < 0.15:  # from square to square
        words = [PIECE_WORDS[piece]] if piece != chess.PAWN or rng.random() < 0.5 else []
        words += [square(move.from_square), "takes" if capture else "to", square(move.to_square)]
        return " ".join(words) + promotion + check
    words = []
    if piece == chess.PAWN:
        if capture:
            words += [file_word(chess.square_file(move.from_square)), "takes"]
        elif style < 0.35:
            words.append("pawn")
    else:
        words.append(PIECE_WORDS[piece])
        # as SAN tells the piece apart: by its file, else its rank, else its square
        others = [
            other
            for other in board.legal_moves
            if other.to_square == move.to_square
            and other.from_square != move.from_square
            and board.piece_type_at(other.from_square) == piece
        ]
        if others:
            same_file = any(
                chess.square_file(o.from_square) == chess.square_file(move.from_square) for o in others
            )
            same_rank = any(
                chess.square_rank(o.from_square) == chess.square_rank(move.from_square) for o in others
            )
            if not same_file:
                words.append(file_word(chess.square_file(move.from_square)))
            elif not same_rank:
                words.append(RANK_WORDS[chess.square_rank(move.from_square)])
            else:
                words.append(square(move.from_square))
        if capture:
            words.append("takes")
        elif style < 0.5:
            words.append("to")
    words.append(square(move.to_square))
    return " ".join(words) + promotion + check


@dataclass
class VoiceScore:
    """How the conversation went, move by move."""

    moves: int = 0
    """Moves (and commands) the person meant and saw carried out."""
    first_try: int = 0
    """...of which the first thing read back was what they meant."""
    tries: int = 0
    """Utterances it took, answers included."""
    wrong: int = 0
    """Moves carried out that the person did not mean (a yes misheard): must stay 0."""
    misheard: list[tuple[str, str]] = field(default_factory=list)
    """(what was said, what was read back or asked) for every first try that went wrong."""


class SimulatedVoice:
    """Speaks for one side into ``microphone`` when the table waits for it (see the module docstring).

    ``choose`` picks the move meant in a position (default: a random legal move); ``voice`` is espeak-ng's;
    ``files`` how this person says files.
    """

    def __init__(
        self,
        microphone: SimMicrophone,
        rng: random.Random,
        *,
        choose: Callable[[chess.Board], chess.Move | Command] | None = None,
        voice: EspeakVoice | None = None,
        files: Files = "letters",
        patience: int | None = None,
    ) -> None:
        self.microphone = microphone
        self.rng = rng
        self.choose = choose or (lambda board: rng.choice(list(board.legal_moves)))
        self.voice = voice
        self.files = files
        #: Utterances this person spends on one move at most; then they fall silent (None: no end).
        self.patience = patience
        self.score = VoiceScore()
        self._prompt: Prompt | None = None
        self._answered = True
        self._intent: tuple[str, chess.Move | Command] | None = None
        self._first = True
        self._misses = 0
        self._spoken = 0  # utterances for the move meant now
        self._said = ""
        microphone.person = self._speak

    def heard(self, prompt: Prompt) -> None:
        """The table said ``prompt``: the person answers it when the table next listens."""
        if prompt.kind == "move" and self._intent is not None and self._intent[0] != prompt.board.fen():
            self._intent = None
        self._prompt, self._answered = prompt, False

    def intent(self, board: chess.Board) -> chess.Move | Command:
        """The move (or command) the person means on ``board`` (chosen once per position)."""
        if self._intent is None or self._intent[0] != board.fen():
            self._intent = (board.fen(), self.choose(board))
            self._first = True
            self._misses = 0
            self._spoken = 0
        return self._intent[1]

    @property
    def gave_up(self) -> bool:
        """Whether the person has run out of patience with the move meant now."""
        return self.patience is not None and self._spoken >= self.patience

    def _speak(self) -> None:
        prompt = self._prompt
        if prompt is None or self._answered:
            return
        self._answered = True
        board = prompt.board
        meant = self.intent(board)
        if self.gave_up:
            return
        if prompt.kind in ("move", "again", "help", "repeat", "setting"):
            if prompt.kind == "again":
                self._missed(prompt)
            self._say(self._words(board, meant))
        elif prompt.kind in ("confirm", "answer"):
            right = prompt.moves == (meant,) if isinstance(meant, chess.Move) else prompt.command == meant
            if prompt.kind == "confirm":
                if not right:
                    self._missed(prompt)
                elif self._first:
                    self.score.first_try += 1
            self._say(
                self.rng.choice(("yes", "yes", "yeah")) if right else self.rng.choice(("no", "no", "nope"))
            )
            if right:
                self._first = False
        elif prompt.kind == "which":
            if isinstance(meant, chess.Move) and meant in prompt.moves:
                sq = meant.from_square
                name = chess.square_name(sq)
                file = FILE_WORDS[name[0]][1 if self.files == "alphabet" else 0]
                self._say(f"{self.rng.choice(('from', 'on', ''))} {file} {RANK_WORDS[chess.square_rank(sq)]}")
            else:
                self._missed(prompt)
                self._say("no")

    def _words(self, board: chess.Board, meant: chess.Move | Command) -> str:
        if isinstance(meant, Command):
            return {
                Command.TAKEBACK: "take back",
                Command.DRAW: "offer a draw",
                Command.HINT: "hint please",
            }.get(meant, meant.value)
        # misheard twice, people spell the files out ("foxtrot" for f) and speak plainly
        files: Files = "alphabet" if self._misses >= 2 else self.files
        return phrase_move(board, meant, self.rng, files)

    def _say(self, text: str) -> None:
        self.score.tries += 1
        self._spoken += 1
        self._said = text
        self.microphone.say(" ".join(text.split()), self.voice)

    def _missed(self, prompt: Prompt) -> None:
        self._misses += 1
        if self._first:
            self._first = False
            self.score.misheard.append((self._said, prompt.text))

    def carried_out(self, board: chess.Board, move: chess.Move) -> None:
        """The session played ``move`` for this person on ``board``: count one not meant."""
        meant = self._intent[1] if self._intent is not None and self._intent[0] == board.fen() else None
        self.score.moves += 1
        if meant != move:
            self.score.wrong += 1
