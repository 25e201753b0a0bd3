"""What a player may say: the grammars the recogniser listens with.

The recogniser is told exactly what may be said, as a finite-state grammar (pocketsphinx's FSG, built
from the :class:`Grammar`'s word sequences): :func:`move_grammar` lists every legal move of the position
in the ways people say them ("knight f three", "knight to f three", "knight from g one to f three",
"pawn takes d five", "e takes d five", "castle kingside", "e eight queen", with "check" or "mate" after
a move that gives it), the commands ("hint please", "take back", "offer a draw", "resign",
"repeat", "help") and the next game's settings, as the buttons' menu has them ("level five", "standard
chess", "chess nine sixty", then its number in a grammar of its own: :func:`number_grammar`, "new
game"). Listening only for what is legal lets a small offline model hear a move among a few
hundred phrases instead of every word of English. Files may be letters or the spelling alphabet
("foxtrot"): "b", "d", "e" and "g" sound alike, and when both are legal only the alphabet tells them
apart reliably.

The words are :mod:`~chessatron.voice.words`'; what the words heard mean is
:mod:`~chessatron.voice.meaning`'s (:func:`~chessatron.voice.meaning.understand`).

>>> "knight to f three" in move_grammar(chess.Board()).phrases
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

import chess

from .words import (
    CAPTURE_WORDS,
    CASTLE_WORDS,
    CHECK_WORDS,
    COMMAND_PHRASES,
    FILE_WORDS,
    KINGSIDE_WORDS,
    NO_WORDS,
    NUMBER_PHRASES,
    PIECE_WORDS,
    QUEENSIDE_WORDS,
    RANDOM_WORDS,
    RANK_WORDS,
    REQUEST_PHRASES,
    SETTING_PHRASES,
    YES_WORDS,
)

__all__ = [
    "FILES",
    "Automaton",
    "FileWords",
    "Grammar",
    "answer_grammar",
    "expand",
    "move_grammar",
    "number_grammar",
    "which_grammar",
]

Slot: TypeAlias = str | tuple[str, ...]
"""One place in a phrase: a word (or words), or alternatives (``""`` among them: it may be left out)."""


@dataclass(frozen=True)
class Grammar:
    """Everything that may be said at one moment, as the word sequences allowed (lower case, one space
    apart). The recogniser compiles it into the smallest automaton that accepts exactly these
    (:meth:`automaton`): shared beginnings and endings are listened for once, which keeps decoding quick
    even for a position with fifty legal moves said in a dozen ways each."""

    name: str
    phrases: frozenset[str]

    def automaton(self) -> Automaton:
        return Automaton.of(self.phrases)

    def __repr__(self) -> str:
        return f"<Grammar {self.name!r} of {len(self.phrases)} phrases>"


@dataclass(frozen=True)
class Automaton:
    """A word automaton: ``transitions`` ``(from state, to state, word, probability)`` from state 0 to
    :attr:`final`. Every transition takes a word (pocketsphinx's search does not follow empty ones): a
    word that may end a phrase leads both on and straight into the final state.

    The probabilities make every phrase equally likely, however long: a transition's share is the
    number of phrases that go through it. (Shares of one per word would make a long phrase as cheap as a
    short one, and the recogniser would hear four short words in one long one: "echo two e four" in
    "hotel four".)

    >>> automaton = Automaton.of(["e four", "e four check", "d four"])
    >>> [(a, b, word, round(share, 2)) for a, b, word, share in sorted(automaton.transitions)]
    [(0, 1, 'd', 0.33), (0, 2, 'e', 0.67), (1, 5, 'four', 1.0), (2, 4, 'four', 0.5), (2, 5, 'four', 0.5), \
(4, 5, 'check', 1.0)]
    """

    states: int
    final: int
    transitions: tuple[tuple[int, int, str, float], ...]

    @classmethod
    def of(cls, phrases: Iterable[str]) -> Automaton:
        """The smallest automaton accepting exactly ``phrases`` (a trie whose states with the same
        future and the same share of phrases through each word are merged, deepest first)."""
        trie: list[dict[str, int]] = [{}]
        ends: set[int] = set()
        for phrase in phrases:
            state = 0
            for word in phrase.split():
                following = trie[state].get(word)
                if following is None:
                    following = len(trie)
                    trie.append({})
                    trie[state][word] = following
                state = following
            ends.add(state)
        # a state's signature: whether a phrase ends there, and where each word leads (children merged
        # first, so equal futures have equal signatures); with the phrases counted, so that merging
        # keeps every transition's share
        Key = tuple[bool, tuple[tuple[str, int], ...]]
        registry: dict[Key, int] = {}
        count: list[int] = []  # phrases from each merged state on

        def visit(state: int) -> int:
            arcs = tuple(sorted((word, visit(child)) for word, child in trie[state].items()))
            key = (state in ends, arcs)
            if key not in registry:
                registry[key] = len(registry)
                count.append(int(state in ends) + sum(count[child] for _, child in arcs))
            return registry[key]

        start = visit(0)
        by_id = {state_id: key for key, state_id in registry.items()}
        # number the states from the start (0) and add one final state
        number: dict[int, int] = {}
        pending = [start]
        while pending:
            state_id = pending.pop(0)
            if state_id not in number:
                number[state_id] = len(number)
                pending += [child for _, child in by_id[state_id][1]]
        final = len(number)
        transitions: list[tuple[int, int, str, float]] = []
        for state_id, index in number.items():
            arcs = by_id[state_id][1]
            leaving = sum(count[child] for _, child in arcs)
            for word, child in arcs:
                is_end, onward = by_id[child]
                if onward:
                    transitions.append((index, number[child], word, (count[child] - is_end) / leaving))
                if is_end:
                    transitions.append((index, final, word, 1 / leaving))
        return cls(final + 1, final, tuple(transitions))


def expand(*slots: Slot) -> list[str]:
    """Every phrase the ``slots`` make, one word sequence each.

    >>> expand("knight", ("", "to"), ("f three", "foxtrot three"))
    ['knight f three', 'knight foxtrot three', 'knight to f three', 'knight to foxtrot three']
    """
    phrases = [""]
    for slot in slots:
        choices = (slot,) if isinstance(slot, str) else slot
        phrases = [f"{phrase} {choice}" for phrase in phrases for choice in choices]
    return [" ".join(phrase.split()) for phrase in phrases]


def move_grammar(board: chess.Board) -> Grammar:
    """Everything the player to move may say on ``board``: each legal move in the ways people say it,
    the commands, the requests and the next game's settings."""
    phrases: set[str] = set(COMMAND_PHRASES) | set(REQUEST_PHRASES) | set(SETTING_PHRASES)
    for move in board.legal_moves:
        phrases.update(_move_phrases(board, move))
    return Grammar(f"moves {board.fen()}", frozenset(phrases))


def which_grammar(board: chess.Board, options: Iterable[chess.Move]) -> Grammar:
    """An answer to "which piece?": the start square of each option (``from g one``, ``the knight on g
    one``), the whole move, or no."""
    phrases: set[str] = set(NO_WORDS) | set(REQUEST_PHRASES)
    for move in options:
        piece = PIECE_WORDS[board.piece_type_at(move.from_square) or chess.PAWN]
        squares = tuple(_square(move.from_square, files) for files in FILES)
        phrases.update(expand(("", piece), ("", "from", "on"), squares))
        phrases.update(_move_phrases(board, move))
    return Grammar(f"which {board.fen()}", frozenset(phrases))


def number_grammar() -> Grammar:
    """An answer to "which Chess960 start?": its number (0-959), random, or no."""
    return Grammar(
        "chess960 number", frozenset({*NUMBER_PHRASES, *RANDOM_WORDS, *NO_WORDS, *REQUEST_PHRASES})
    )


def answer_grammar() -> Grammar:
    """An answer to "yes or no?" (or a request to hear the question again)."""
    return Grammar("answer", frozenset({*YES_WORDS, *NO_WORDS, *REQUEST_PHRASES}))


#: How files are said: as letters ("f three") or in the spelling alphabet ("foxtrot three").
FileWords: TypeAlias = Literal["letters", "alphabet"]
FILES: Final[tuple[FileWords, ...]] = ("letters", "alphabet")


def _file(file: int, files: FileWords) -> str:
    return FILE_WORDS[chess.FILE_NAMES[file]][1 if files == "alphabet" else 0]


def _square(square: chess.Square, files: FileWords) -> str:
    return f"{_file(chess.square_file(square), files)} {RANK_WORDS[chess.square_rank(square)]}"


def _move_phrases(board: chess.Board, move: chess.Move) -> list[str]:
    """The ways of saying ``move`` on ``board``; "check" (or "mate") may follow a move that gives it.

    A phrase says every file one way, as letters or in the spelling alphabet: people keep to one within
    a move ("knight golf one to foxtrot three", not "knight g one to foxtrot three"), and each phrase
    mixing them would be one more that a misheard move could fit.

    >>> board = chess.Board()
    >>> phrases = _move_phrases(board, chess.Move.from_uci("g1f3"))
    >>> "knight golf one to foxtrot three" in phrases, "knight g one to foxtrot three" in phrases
    (True, False)
    """
    return [phrase for files in FILES for phrase in _move_phrases_saying(board, move, files)]


def _move_phrases_saying(board: chess.Board, move: chess.Move, files: FileWords) -> list[str]:
    """The ways of saying ``move`` with its files said one way."""
    after = board.copy(stack=False)
    after.push(move)
    check: Slot = ("", "check") if after.is_check() else ""
    if after.is_checkmate():
        check = ("", *CHECK_WORDS)
    if board.is_castling(move):
        side = KINGSIDE_WORDS if board.is_kingside_castling(move) else QUEENSIDE_WORDS
        return expand(CASTLE_WORDS, side, check) + expand(side, CASTLE_WORDS, check)
    piece_type = board.piece_type_at(move.from_square) or chess.PAWN
    piece = PIECE_WORDS[piece_type]
    start, to = _square(move.from_square, files), _square(move.to_square, files)
    file = _file(chess.square_file(move.from_square), files)
    capture = board.is_capture(move)
    go: Slot = ("", *CAPTURE_WORDS, "to") if capture else ("", "to")
    promotion: Slot = ""
    if move.promotion is not None:
        named = PIECE_WORDS[move.promotion]
        promotion = tuple(f"{word} {named}" for word in ("", "promote to", "promotes to", "equals"))
        if move.promotion == chess.QUEEN:
            promotion = ("", *promotion)  # a pawn on the last rank is a queen unless said otherwise
    ending = (promotion, check)
    phrases = expand(("", piece), ("", "from"), start, go, to, *ending)
    if piece_type == chess.PAWN:
        if capture:
            phrases += expand(("", "pawn"), file, CAPTURE_WORDS, to, *ending)
            phrases += expand("pawn", CAPTURE_WORDS, to, *ending)
        else:
            phrases += expand(("", "pawn"), ("", "to"), to, *ending)
        return phrases
    phrases += expand(piece, go, to, *ending) + expand(piece, file, go, to, *ending)
    if re.match(r"^[NBRQK][a-h]?[1-8]x?[a-h][1-8]", board.san(move)):  # SAN tells this piece by its rank
        phrases += expand(piece, RANK_WORDS[chess.square_rank(move.from_square)], go, to, *ending)
    return phrases
