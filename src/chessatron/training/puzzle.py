"""A puzzle as lichess defines it: a position, the opponent's move that sets the puzzle, and the solution.

Lichess's puzzle database gives each puzzle as ``PuzzleId, FEN, Moves, Rating, RatingDeviation, Popularity,
NbPlays, Themes, GameUrl, OpeningTags``: the FEN is the position *before* the opponent's move, ``Moves``
the opponent's move and then the solution, in UCI, alternating; the person solves for the side not to
move in the FEN, and the line ends on one of their moves. Puzzles chessatron makes from games
(:mod:`.mining`) are written the same way; one mined from a Chess960 game carries the theme ``chess960``
(its castling moves are the king onto its rook, python-chess's Chess960 notation).

>>> puzzle = Puzzle("t1", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", ("g8f8", "d1d8"), rating=600)
>>> puzzle.colour == chess.WHITE, puzzle.position().fen()
(True, '5k2/5ppp/8/8/8/8/5PPP/3R2K1 w - - 1 2')
>>> puzzle.verdict(puzzle.position(), 1, chess.Move.from_uci("d1d8"))
'right'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import chess

from ..errors import PuzzleError
from ..i18n import N_, _

#: The side a puzzle's person plays has this many moves at most: longer lines are no puzzles.
MAX_PLIES = 40

#: The theme that marks a puzzle from a Chess960 game.
CHESS960_THEME = "chess960"

Verdict = Literal["right", "mate", "wrong"]
"""A move in a puzzle: the solution's, another that mates at once (accepted, as lichess does), or wrong."""

_ID = re.compile(r"[A-Za-z0-9_:.-]{1,64}")

# a hint's words, one sentence a piece (the article and the words around it agree with the piece's gender)
_MOVE_THE: dict[chess.PieceType, str] = {
    # TRANSLATORS: a puzzle's first hint: the piece to move and its square
    chess.PAWN: N_("move the pawn on {square}"),
    chess.KNIGHT: N_("move the knight on {square}"),
    chess.BISHOP: N_("move the bishop on {square}"),
    chess.ROOK: N_("move the rook on {square}"),
    chess.QUEEN: N_("move the queen on {square}"),
    chess.KING: N_("move the king on {square}"),
}
_GOES_TO: dict[chess.PieceType, str] = {
    # TRANSLATORS: a puzzle's second hint: the square the piece goes to
    chess.PAWN: N_("the pawn goes to {square}"),
    chess.KNIGHT: N_("the knight goes to {square}"),
    chess.BISHOP: N_("the bishop goes to {square}"),
    chess.ROOK: N_("the rook goes to {square}"),
    chess.QUEEN: N_("the queen goes to {square}"),
    chess.KING: N_("the king goes to {square}"),
}


@dataclass(frozen=True)
class Puzzle:
    """One puzzle (see the module docs). ``rating``/``rating_deviation`` are the puzzle's Glicko-2
    rating; ``source`` is where it came from (``lichess``, ``starter``, ``game``)."""

    puzzle_id: str
    fen: str
    moves: tuple[str, ...]
    rating: int = 1500
    rating_deviation: int = 350
    popularity: int = 0
    plays: int = 0
    themes: tuple[str, ...] = ()
    game_url: str = ""
    openings: tuple[str, ...] = ()
    source: str = "lichess"

    def __post_init__(self) -> None:
        if not _ID.fullmatch(self.puzzle_id):
            raise PuzzleError(
                _("puzzle id {id!r} is not a word of letters and digits").format(id=self.puzzle_id)
            )
        if len(self.moves) < 2 or len(self.moves) % 2 or len(self.moves) > MAX_PLIES:
            raise PuzzleError(
                _(
                    "puzzle {id!r} has {count} moves; a puzzle is the opponent's move and the solution, an "
                    "even number of moves, at least 2"
                ).format(id=self.puzzle_id, count=len(self.moves))
            )
        try:
            board = chess.Board(self.fen, chess960=self.chess960)
        except ValueError as exc:
            raise PuzzleError(
                _("puzzle {id!r} has a bad FEN {fen!r}: {reason}").format(
                    id=self.puzzle_id, fen=self.fen, reason=exc
                )
            ) from exc
        if board.status() & ~chess.STATUS_BAD_CASTLING_RIGHTS != chess.STATUS_VALID:
            raise PuzzleError(
                _("puzzle {id!r}: {fen!r} is not a position a game can reach").format(
                    id=self.puzzle_id, fen=self.fen
                )
            )
        for ply, text in enumerate(self.moves, start=1):
            try:
                board.push(board.parse_uci(text))
            except ValueError:
                raise PuzzleError(
                    _("puzzle {id!r}: move {ply} {move!r} is not legal in {fen!r}").format(
                        id=self.puzzle_id, ply=ply, move=text, fen=board.fen()
                    )
                ) from None

    @property
    def chess960(self) -> bool:
        return CHESS960_THEME in self.themes

    @property
    def colour(self) -> chess.Color:
        """The side the person plays: the one not to move in the FEN."""
        return not chess.Board(self.fen, chess960=self.chess960).turn

    def start_board(self) -> chess.Board:
        """The position before the opponent's move (what the table is set up to)."""
        return chess.Board(self.fen, chess960=self.chess960)

    def line(self) -> list[chess.Move]:
        """Every move: the opponent's first, then the solution."""
        board = self.start_board()
        moves = []
        for text in self.moves:
            move = board.parse_uci(text)
            moves.append(move)
            board.push(move)
        return moves

    def position(self) -> chess.Board:
        """The puzzle as the person sees it: after the opponent's move, the person to move."""
        board = self.start_board()
        board.push(board.parse_uci(self.moves[0]))
        return board

    @property
    def person_moves(self) -> int:
        """How many moves the person makes to solve it."""
        return len(self.moves) // 2

    def verdict(self, board: chess.Board, index: int, move: chess.Move) -> Verdict:
        """The person's ``move`` on ``board``, where the line's move ``index`` (from 0: the opponent's first)
        is due: the solution's move, another that mates at once (a mate ends a puzzle solved, as on
        lichess), or wrong. Castling counts whichever way the move names it."""
        expected = board.parse_uci(self.moves[index])
        if move == expected:
            return "right"
        after = board.copy(stack=False)
        after.push(move)
        return "mate" if after.is_checkmate() else "wrong"

    def hint(self, board: chess.Board, index: int, level: int) -> tuple[chess.Square, str]:
        """The hint for the line's move ``index`` on ``board``: at ``level`` 1 the piece to move (its
        square), from 2 on the square it goes to; and the words to say (in the current language)."""
        move = board.parse_uci(self.moves[index])
        piece = board.piece_at(move.from_square)
        kind = piece.piece_type if piece is not None else chess.PAWN
        if level <= 1:
            return move.from_square, _(_MOVE_THE[kind]).format(square=chess.square_name(move.from_square))
        target = move.to_square
        if board.is_castling(move):
            target = chess.square(6 if board.is_kingside_castling(move) else 2, chess.square_rank(target))
        return target, _(_GOES_TO[kind]).format(square=chess.square_name(target))

    @property
    def url(self) -> str:
        """Where to see it: lichess's page for a lichess puzzle, else its game's address (may be empty)."""
        if self.source == "lichess":
            return f"https://lichess.org/training/{self.puzzle_id}"
        return self.game_url
