"""A :class:`~.record.GameRecord` in the compact form of tiny chess computers: the start and the moves, two
bytes a move.

>>> record = GameRecord(moves=(chess.Move.from_uci("e2e4"),))
>>> decode_compact(encode_compact(record)).moves == record.moves
True

The compact form
----------------
Big-endian 16-bit words.

* Word 0, the start: ``0``–``959`` is that Chess960 start position with white to move, full castling
  rights and fresh counters; ``518`` is the standard start *played as standard chess*, every other number
  is played as Chess960. ``0xFFFF`` (standard rules) or ``0xFFFE`` (Chess960 rules) means "not a numbered
  start": one length byte and that many ASCII bytes of FEN follow (X-FEN or Shredder-FEN for Chess960). A
  Chess960 game from position 518 therefore uses ``0xFFFE`` and a FEN. ``960``–``0xFFFD`` are invalid.
* Then one word a move (bit 15 is the most significant)::

      bit  15      0 (the spare bit; 1 marks the end word below)
      bits 14..12  special: 0 none, 1 knight, 2 bishop, 3 rook, 4 queen (promotions),
                   5 kingside castling (O-O), 6 queenside castling (O-O-O), 7 invalid
      bits 11..9   to rank   (0 = rank 1)
      bits  8..6   to file   (0 = file a)
      bits  5..3   from rank
      bits  2..0   from file

  so bits 0–5 and 6–11 are python-chess square numbers (a1 = 0, h8 = 63). Castling is written as the king's
  own journey in standard terms — from the king's square to the g- or c-file of its rank, with special 5
  or 6 — which reads the same without a board, whatever the rules; the decoder turns it into the board's
  own move (``e1g1`` in standard chess, king-onto-rook such as ``b1a1`` in Chess960) and checks it is
  legal. Encoders always use 5 and 6 for castling; decoders also accept a plain word that is a legal move in
  the board's own notation.
* Optionally, last, one end word with bit 15 set: bits 1..0 the result (0 ``*``, 1 ``1-0``, 2 ``0-1``,
  3 ``1/2-1/2``), bits 5..2 the termination (0 unknown, else 1 + its index in :data:`TERMINATIONS`),
  bits 14..6 zero. Readers that do not know it can stop at the first word with bit 15 set.

Players, dates, clocks and other headers are not part of the compact form.
"""

from __future__ import annotations

import chess

from ...errors import GameFileError
from ...i18n import _
from .record import (
    RESULTS,
    STANDARD_START_NUMBER,
    TERMINATIONS,
    GameRecord,
    Result,
    Termination,
    canonical_board,
    numbered_start,
)

__all__ = ["decode_compact", "encode_compact"]


_FEN_STANDARD = 0xFFFF
_FEN_CHESS960 = 0xFFFE
_END = 0x8000
_KINGSIDE, _QUEENSIDE, _RESERVED = 5, 6, 7


def encode_compact(record: GameRecord) -> bytes:
    """The compact form (see the module docstring): players, dates, clocks and tags are dropped."""
    out = bytearray()
    number = record.start_number
    if number is not None and (number != STANDARD_START_NUMBER) == record.chess960:
        out += number.to_bytes(2, "big")
    else:
        fen = record.start_fen.encode("ascii")
        out += (_FEN_CHESS960 if record.chess960 else _FEN_STANDARD).to_bytes(2, "big")
        out += bytes([len(fen)]) + fen
    board = record.start_board()
    for move in record.moves:
        out += _encode_move(board, move).to_bytes(2, "big")
        board.push(move)
    if record.result != "*" or record.termination is not None:
        ended = 0 if record.termination is None else 1 + TERMINATIONS.index(record.termination)
        out += (_END | ended << 2 | RESULTS.index(record.result)).to_bytes(2, "big")
    return bytes(out)


def _encode_move(board: chess.Board, move: chess.Move) -> int:
    if board.is_castling(move):
        kingside = board.is_kingside_castling(move)
        king_to = chess.square(6 if kingside else 2, chess.square_rank(move.from_square))
        return move.from_square | king_to << 6 | (_KINGSIDE if kingside else _QUEENSIDE) << 12
    special = 0 if move.promotion is None else move.promotion - 1
    return move.from_square | move.to_square << 6 | special << 12


def decode_compact(data: bytes) -> GameRecord:
    """A record from its compact form, players unknown. Raises :class:`GameFileError` naming the byte
    offset of truncated or invalid data: a bad start number, an illegal or malformed move, bytes after
    the end word."""
    if len(data) < 2:
        raise GameFileError(
            _("compact record truncated at byte {offset}: {data!r} lacks a start word").format(
                offset=len(data), data=bytes(data)
            )
        )
    start = int.from_bytes(data[0:2], "big")
    offset = 2
    if start in (_FEN_STANDARD, _FEN_CHESS960):
        if len(data) < 3 or len(data) < 3 + data[2]:
            raise GameFileError(
                _("compact record truncated at byte {offset}: the start FEN is cut short").format(
                    offset=len(data)
                )
            )
        try:
            fen = data[3 : 3 + data[2]].decode("ascii")
            board = canonical_board(fen, start == _FEN_CHESS960)
        except (UnicodeDecodeError, GameFileError) as exc:
            raise GameFileError(
                _("compact record has a bad start FEN at byte 3: {reason}").format(reason=exc)
            ) from exc
        offset = 3 + data[2]
    elif start <= 959:
        board = numbered_start(start)
    else:
        raise GameFileError(
            _("compact record starts with {word} at byte 0; use 0–959, 0xfffe or 0xffff").format(
                word=f"{start:#06x}"
            )
        )
    start_fen, chess960 = board.fen(), board.chess960
    result: Result = "*"
    termination: Termination | None = None
    while offset < len(data):
        if offset + 2 > len(data):
            raise GameFileError(
                _("compact record truncated at byte {offset}: half a move word {data!r}").format(
                    offset=offset, data=data[offset:]
                )
            )
        word = int.from_bytes(data[offset : offset + 2], "big")
        if word & _END:
            result, termination = _decode_end(word, offset)
            if offset + 2 != len(data):
                raise GameFileError(
                    _("compact record has {count} bytes after its end word").format(
                        count=len(data) - offset - 2
                    )
                )
            break
        board.push(_decode_move(board, word, offset))
        offset += 2
    return GameRecord(
        start_fen=start_fen,
        chess960=chess960,
        moves=tuple(board.move_stack),
        result=result,
        termination=termination,
    )


def _decode_end(word: int, offset: int) -> tuple[Result, Termination | None]:
    ended = word >> 2 & 0xF
    if word & 0x7FC0 or ended > len(TERMINATIONS) or (word & 3 == 0 and ended):
        raise GameFileError(
            _("compact record has a bad end word {word} at byte {offset}").format(
                word=f"{word:#06x}", offset=offset
            )
        )
    return RESULTS[word & 3], None if ended == 0 else TERMINATIONS[ended - 1]


def _decode_move(board: chess.Board, word: int, offset: int) -> chess.Move:
    from_square, to_square, special = word & 0x3F, word >> 6 & 0x3F, word >> 12 & 7
    where = {"ply": board.ply() + 1, "offset": offset, "word": f"{word:#06x}", "fen": board.fen()}
    if special in (_KINGSIDE, _QUEENSIDE):
        kingside = special == _KINGSIDE
        king_to = chess.square(6 if kingside else 2, chess.square_rank(from_square))
        for move in board.generate_castling_moves():
            same_side = board.is_kingside_castling(move) == kingside
            if same_side and move.from_square == from_square and to_square == king_to:
                return move
        if kingside:
            castling = _(
                "compact record: kingside castling {move} is not legal in {fen!r}, ply {ply} at byte "
                "{offset} ({word})"
            )
        else:
            castling = _(
                "compact record: queenside castling {move} is not legal in {fen!r}, ply {ply} at byte "
                "{offset} ({word})"
            )
        move_text = chess.square_name(from_square) + chess.square_name(to_square)
        raise GameFileError(castling.format(move=move_text, **where))
    if special == _RESERVED:
        raise GameFileError(
            _("compact record: special code 7 is reserved, ply {ply} at byte {offset} ({word})").format(
                **where
            )
        )
    move = chess.Move(from_square, to_square, None if special == 0 else special + 1)
    try:
        legal = board.parse_uci(move.uci()) if from_square != to_square else chess.Move.null()
    except ValueError:
        legal = chess.Move.null()
    if not legal:
        raise GameFileError(
            _("compact record: {uci!r} is not legal in {fen!r}, ply {ply} at byte {offset} ({word})").format(
                uci=move.uci(), **where
            )
        )
    return legal
