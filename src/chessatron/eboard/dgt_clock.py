"""What a DGT clock shows, read as the app's move: the text of a DGT 3000 or a Revelation II (``e2e4``,
``e2-e4``, ``Nf3``, ``NF3``, PicoChess's translated piece letters such as ``Sf3``, a move number before it)
and the six 7-segment digits of a DGT XL (``e2 e4 ``). Apps show their engine's move there, since the DGT
board protocol has no message for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import chess

# What a DGT XL shows: six 7-segment digits, as the apps draw letters and digits on them.
_SEGMENTS = dict(
    zip(
        "0123456789abcdefghknqr -",
        bytes.fromhex("3f065b4f666d7d077f6f 5f7c585e7b713d74 75546750 0040"),
        strict=True,
    )
)
_CHAR_OF_SEGMENTS = {code: ch for ch, code in _SEGMENTS.items()}

#: The letters apps write for king, queen, rook, bishop, knight, in the languages PicoChess speaks.
PIECE_LETTERS = ("KQRBN", "KDTLS", "KDTLP", "RDTFC", "RDTAC")
_NOISE = re.compile(r"[\s+#!?]")
_MOVE_NUMBER = re.compile(r"^\d+\.+")


def xl_text(segments: Iterable[int]) -> str:
    """The text of a DGT XL display command's six segment bytes (C B A F E D order), '?' where unknown."""
    c, b, a, f, e, d = segments
    return "".join(_CHAR_OF_SEGMENTS.get(code & 0x7F, "?") for code in (a, b, c, d, e, f))


def _texts(board: chess.Board, move: chess.Move) -> set[str]:
    """How apps write ``move`` in English: UCI (with or without hyphen or 'x'), SAN, long algebraic;
    a promotion also without its piece (the queen's is chosen)."""
    uci = board.uci(move)
    texts = {uci, f"{uci[:2]}-{uci[2:]}", f"{uci[:2]}x{uci[2:]}", board.san(move), board.lan(move)}
    if board.is_castling(move) and not board.chess960:
        texts.add(board.uci(move, chess960=True))  # king onto rook
    if move.promotion:
        texts |= {uci[:4]} | {text.split("=", 1)[0] for text in texts if "=" in text}
    return {_NOISE.sub("", text) for text in texts}


def _translated(text: str, letters: str) -> str:
    table = str.maketrans("KQRBN", letters)
    return text.translate(table)


def move_in_text(board: chess.Board, text: str) -> chess.Move | None:
    """The one legal move ``text`` names on ``board`` (as a clock shows it: ``e2e4``, ``e2-e4``,
    ``E2E4``, ``Nf3``, ``NF3``, ``Sf3``, `` 12...Nf3``, ``e7e8`` for the queen), or None.

    >>> move_in_text(chess.Board(), "  Nf3   ")
    Move.from_uci('g1f3')
    >>> move_in_text(chess.Board(), "ok usb") is None
    True
    """
    wanted = _MOVE_NUMBER.sub("", _NOISE.sub("", text))
    if re.fullmatch(r"0-0(-0)?", wanted):
        wanted = wanted.replace("0", "O")
    if len(wanted) < 2:
        return None
    english = {move: _texts(board, move) for move in board.legal_moves}
    for letters in PIECE_LETTERS:
        written = {move: {_translated(text, letters) for text in texts} for move, texts in english.items()}
        for fold in (False, True):
            key = wanted.upper() if fold else wanted
            found = [
                move for move, texts in written.items() if key in {t.upper() if fold else t for t in texts}
            ]
            if found:
                if len({(move.from_square, move.to_square) for move in found}) != 1:
                    return None  # the text names several moves: the app's move is not told
                found.sort(key=lambda move: 0 if move.promotion in (None, chess.QUEEN) else 1)
                return found[0]
    return None
