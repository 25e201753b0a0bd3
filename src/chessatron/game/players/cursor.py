"""The button cursor: a whole game played with a d-pad, select and back, one piece in hand at a time.

A pure state machine over python-chess boards, with no devices and no clock: :class:`Cursor` takes the
presses and says what they mean (an :data:`Action`: a move to play, a command, a new game, an answer to
the board's prompt) and what to show (a :class:`CursorView`: the cursor's square, the piece in hand and
where it may go, the promotion choices, the position viewed, two short lines for a character display).
The buttons player (:mod:`.buttons`) connects it to the pad, the LEDs, the display and the web page.

Directions are seen from the player's side of the board: up goes toward the opponent. The modes:

``new-turn``
    The turn begins: the opponent's last move (or the hint asked for) is shown and the cursor waits on
    the square the player last moved to (their king at first; the hint's piece after a hint).
``contemplating``
    The arrows move the cursor; select picks up the piece under it; back opens the menu.
``in-hand``
    A piece is held: its legal squares are shown. Select on one plays the move; on another piece of
    the player's picks that one up instead; on the piece itself, or back, puts it down. Castling: pick
    up the king, then select its rook (the king's square after castling works too, when no plain king
    move goes there), as Chess960 is castled on physical chess computers.
``promoting``
    A pawn reaches the last rank: the pieces stand in a column from the promotion square toward the
    player, queen, knight, rook, bishop (as lichess shows them); up and down choose, select promotes,
    back takes the pawn in hand again.
``history``
    Left (or down) steps back through the game, right (or up) forward; the position viewed is on the
    display and the web page, its move on the LEDs. Select or back return.
``menu``
    Up and down go through the items (hint, take back, review moves, new game, the level, standard
    chess or a Chess960 number, puzzles, resign); left and right change the level and the Chess960 number
    (select on the number draws one at random); select does the rest; back returns.
``game-over``
    The result; select opens the menu (review, new game, level, Chess960), left reviews the game.
``question``
    A board with sensors fits several moves: the arrows go through them, select says which was made.
``waiting``
    Not the player's turn: nothing shown.

>>> cursor = Cursor(chess.WHITE)
>>> cursor.begin_turn(chess.Board())
>>> for button in ("up", "select", "up", "up"):
...     action = cursor.press(button)
>>> cursor.view.lines
('pawn e2 to', 'e4: e4')
>>> cursor.press("select")
Play(move=Move.from_uci('e2e4'))
"""

# One module on purpose (about 670 lines): the cursor is one pure state machine; its modes hand the
# cursor to each other, and their tests read it as one.

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import chess

from ...i18n import N_, _, pgettext
from ...i18n.notation import san_in
from ...planning.planner import castling_squares
from ...ports import Button
from ..telling.names import piece_name
from .base import Command, Settings

Mode = Literal[
    "waiting", "new-turn", "contemplating", "in-hand", "promoting", "history", "menu", "game-over", "question"
]

#: The promotion pieces from the promotion square toward the player, as lichess's chooser shows them.
PROMOTION_ORDER: tuple[chess.PieceType, ...] = (chess.QUEEN, chess.KNIGHT, chess.ROOK, chess.BISHOP)
#: The skill levels the menu offers (Stockfish's ``Skill Level``).
LEVELS = range(21)
#: What the menu's Chess960 item goes through: standard chess (None), then every Chess960 start.
CHESS960_NUMBERS = 960

_STEPS: Mapping[Button, tuple[int, int]] = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}

#: A piece that has no legal move, on the buttons' display.
_STUCK: Mapping[chess.PieceType, str] = {
    # TRANSLATORS: the buttons' display, at most 16 columns: the piece on {square} has no legal move
    chess.PAWN: N_("pawn {square}: stuck"),
    chess.KNIGHT: N_("knight {square}: stuck"),
    chess.BISHOP: N_("bishop {square}: stuck"),
    chess.ROOK: N_("rook {square}: stuck"),
    chess.QUEEN: N_("queen {square}: stuck"),
    chess.KING: N_("king {square}: stuck"),
}
#: The square under the cursor in words, by the piece's colour and kind.
_DESCRIBED: Mapping[tuple[chess.Color, chess.PieceType], str] = {
    # TRANSLATORS: the buttons' display, at most 16 columns: the square under the cursor and its piece
    (chess.WHITE, chess.PAWN): N_("{square} white pawn"),
    (chess.WHITE, chess.KNIGHT): N_("{square} white knight"),
    (chess.WHITE, chess.BISHOP): N_("{square} white bishop"),
    (chess.WHITE, chess.ROOK): N_("{square} white rook"),
    (chess.WHITE, chess.QUEEN): N_("{square} white queen"),
    (chess.WHITE, chess.KING): N_("{square} white king"),
    (chess.BLACK, chess.PAWN): N_("{square} black pawn"),
    (chess.BLACK, chess.KNIGHT): N_("{square} black knight"),
    (chess.BLACK, chess.BISHOP): N_("{square} black bishop"),
    (chess.BLACK, chess.ROOK): N_("{square} black rook"),
    (chess.BLACK, chess.QUEEN): N_("{square} black queen"),
    (chess.BLACK, chess.KING): N_("{square} black king"),
}


@dataclass(frozen=True)
class Play:
    """The player's move."""

    move: chess.Move


@dataclass(frozen=True)
class Ask:
    """A command from the menu: a hint, a takeback, resigning."""

    command: Command


@dataclass(frozen=True)
class NewGame:
    """A new game with these settings (the game under way stays saved)."""

    settings: Settings


@dataclass(frozen=True)
class Answer:
    """The move the player made at the board, answering the question."""

    move: chess.Move


@dataclass(frozen=True)
class Promote:
    """The piece the player's pawn became at the board (a prompt of the sensor board)."""

    piece: chess.PieceType


Action = Play | Ask | NewGame | Answer | Promote


@dataclass(frozen=True)
class CursorView:
    """What the cursor shows, for the LEDs, a display and the web page."""

    mode: Mode
    board: chess.Board
    """The position shown: the game's, or in history mode the one viewed."""
    square: chess.Square | None = None
    """The cursor (None: hidden)."""
    held: chess.Square | None = None
    """The square of the piece in hand (promoting: the pawn's)."""
    targets: Mapping[chess.Square, bool] = field(default_factory=dict)
    """Where the piece in hand may go, each with whether it captures there."""
    choices: tuple[chess.Square, ...] = ()
    """The squares to choose among: the promotion column, or the squares of the moves asked about."""
    move: chess.Move | None = None
    """A move to show: the opponent's last one, the hint, the move that led to the position viewed."""
    move_board: chess.Board | None = None
    """The position ``move`` is played in."""
    refused: chess.Square | None = None
    """A square where select did nothing: shown as illegal until the next press."""
    lines: tuple[str, str] = ("", "")
    """Two lines for a character display (16 columns is enough for the first), in the player's language."""
    menu: tuple[str, ...] = ()
    menu_index: int = 0

    def to_dict(self) -> dict[str, object]:
        """The live state's ``cursor``."""
        name = chess.square_name
        return {
            "mode": self.mode,
            "square": name(self.square) if self.square is not None else None,
            "held": name(self.held) if self.held is not None else None,
            "targets": {name(square): capture for square, capture in self.targets.items()},
            "choices": [name(square) for square in self.choices],
            "refused": name(self.refused) if self.refused is not None else None,
            "lines": list(self.lines),
            "fen": self.board.fen() if self.mode == "history" else None,
            "move": self.move.uci() if self.move is not None else None,
            "menu": {"items": list(self.menu), "index": self.menu_index} if self.mode == "menu" else None,
        }


class Cursor:
    """The piece-in-hand state machine of one player (``colour``); see the module's description.

    ``settings`` are the menu's values to start from; ``rng`` draws a Chess960 number on request.
    """

    def __init__(
        self, colour: chess.Color, settings: Settings | None = None, *, rng: random.Random | None = None
    ) -> None:
        self.colour = colour
        self.settings = settings or Settings()
        self._rng = rng or random.Random()
        self.mode: Mode = "waiting"
        self.board = chess.Board()
        self.square: chess.Square = chess.E1 if colour == chess.WHITE else chess.E8
        self.held: chess.Square | None = None
        self.hint: chess.Move | None = None
        self.result = ""
        self._before: Mode = "contemplating"
        """Where history and the menu return to."""
        self._ply = 0
        self._choice = 0
        self._menu = 0
        self._sure = False
        self._refused: chess.Square | None = None
        self._note = ""
        self._pending: chess.Move | None = None
        """The promotion whose piece is being chosen (its piece is the queen until then)."""
        self._prompt = False
        """Promoting for the sensor board: the pawn is on the last rank already, there is no going back."""
        self._options: tuple[chess.Move, ...] = ()
        self._option_sans: tuple[str, ...] = ()

    # --- what starts a mode ------------------------------------------------------------------------

    def begin_turn(self, board: chess.Board, *, hint: chess.Move | None = None) -> None:
        """The player's turn on ``board`` (with its moves from the start) begins."""
        self.board = board.copy()
        self.colour = board.turn
        self.hint = hint if hint is not None and board.is_legal(hint) else None
        self.held = None
        self._reset("new-turn")
        if self.hint is not None:
            self.square = self.hint.from_square
        else:
            # where the player last moved to, if a piece of theirs still stands there; else their king
            own = [move.to_square for move in _own_moves(board)]
            king = board.king(board.turn)
            if own and board.color_at(own[0]) == board.turn:
                self.square = own[0]
            elif king is not None:
                self.square = king

    def game_over(self, board: chess.Board, result: str) -> None:
        """The game on ``board`` is over: ``result`` says how (``1-0 checkmate``)."""
        self.board = board.copy()
        self.result = result
        self.held = None
        self._reset("game-over")

    def ask(self, board: chess.Board, options: Sequence[chess.Move], sans: Sequence[str]) -> None:
        """A board with sensors fits several moves made on ``board``: which one was it?"""
        self.board = board.copy()
        self.colour = board.turn
        self._options, self._option_sans = tuple(options), tuple(sans)
        self._reset("question")
        self._choice = 0

    def promote(self, board: chess.Board, move: chess.Move) -> None:
        """A pawn reached the last rank at a board with sensors (``move`` on ``board``, its piece as the
        sensors guess it): which piece is it?"""
        self.board = board.copy()
        self.colour = board.turn
        self._reset("promoting")
        self._prompt = True
        self._pending = chess.Move(move.from_square, move.to_square, chess.QUEEN)
        self.held = move.from_square
        self._choice = PROMOTION_ORDER.index(move.promotion) if move.promotion in PROMOTION_ORDER else 0

    def stop(self) -> None:
        """Nothing to choose now (the opponent's turn, a prompt settled)."""
        self.held = None
        self._reset("waiting")

    def _reset(self, mode: Mode) -> None:
        self.mode = mode
        self._before = "game-over" if mode == "game-over" else "contemplating"
        self._ply = len(self.board.move_stack)
        self._menu = 0
        self._sure = False
        self._refused = None
        self._note = ""
        self._pending = None
        self._prompt = False

    # --- presses -----------------------------------------------------------------------------------

    def press(self, button: Button) -> Action | None:
        """Act on one press; the action it completes, if any (the view shows the rest)."""
        self._refused = None
        self._note = ""
        handler = {
            "waiting": lambda b: None,
            "new-turn": self._on_board,
            "contemplating": self._on_board,
            "in-hand": self._in_hand,
            "promoting": self._promoting,
            "history": self._history,
            "menu": self._on_menu,
            "game-over": self._game_over,
            "question": self._question,
        }[self.mode]
        action: Action | None = handler(button)
        return action

    def _move(self, button: Button) -> None:
        df, dr = _STEPS[button]
        if self.colour == chess.BLACK:
            df, dr = -df, -dr
        file = min(7, max(0, chess.square_file(self.square) + df))
        rank = min(7, max(0, chess.square_rank(self.square) + dr))
        self.square = chess.square(file, rank)

    def _on_board(self, button: Button) -> Action | None:
        if button in _STEPS:
            self._move(button)
            self.mode = "contemplating"
        elif button == "select":
            self._pick_up(self.square)
        elif button == "back":
            self._open_menu()
        return None

    def _pick_up(self, square: chess.Square) -> bool:
        piece = self.board.piece_at(square)
        name = chess.square_name(square)
        if piece is None or piece.color != self.colour:
            self._refused = square
            # TRANSLATORS: the buttons' display, at most 16 columns; {square}: where the cursor is (e3)
            self._note = (_("{square}: nothing here") if piece is None else _("{square}: not yours")).format(
                square=name
            )
            return False
        if not any(move.from_square == square for move in self.board.legal_moves):
            self._refused = square
            self._note = _(_STUCK[piece.piece_type]).format(square=name)
            return False
        self.held = square
        self.mode = "in-hand"
        return True

    def targets(self) -> dict[chess.Square, chess.Move]:
        """Where the piece in hand may go, and the move each square stands for: a castling king also goes
        to its rook (always) and to its square after castling (unless a plain king move goes there)."""
        held = self.held
        if held is None:
            return {}
        found: dict[chess.Square, chess.Move] = {}
        castlings = []
        for move in self.board.legal_moves:
            if move.from_square != held:
                continue
            if self.board.is_castling(move):
                castlings.append(move)
            elif move.to_square not in found or move.promotion == chess.QUEEN:
                found[move.to_square] = move
        for move in castlings:
            _king_from, king_to, rook_from, _rook_to = castling_squares(self.board, move)
            found[rook_from] = move
            if king_to != held:
                found.setdefault(king_to, move)
        return found

    def _in_hand(self, button: Button) -> Action | None:
        assert self.held is not None
        if button in _STEPS:
            self._move(button)
            return None
        if button == "back" or (button == "select" and self.square == self.held):
            self.square = self.held
            self.held = None
            self.mode = "contemplating"
            return None
        targets = self.targets()
        move = targets.get(self.square)
        if move is None:
            piece = self.board.piece_at(self.square)
            if piece is not None and piece.color == self.colour:
                held = self.held
                if not self._pick_up(self.square):
                    self.held = held  # a stuck piece: the one in hand stays there
                return None
            self._refused = self.square
            self._note = _("{square}: not legal").format(square=chess.square_name(self.square))
            return None
        if move.promotion is not None:
            self._pending = move
            self._choice = 0
            self.mode = "promoting"
            return None
        return Play(move)

    def _column(self) -> tuple[chess.Square, ...]:
        """The promotion choices' squares: from the promotion square toward the player."""
        assert self._pending is not None
        to = self._pending.to_square
        step = -1 if self.colour == chess.WHITE else 1
        return tuple(
            chess.square(chess.square_file(to), chess.square_rank(to) + step * k)
            for k in range(len(PROMOTION_ORDER))
        )

    def _promoting(self, button: Button) -> Action | None:
        assert self._pending is not None
        if button in ("up", "down"):
            # down: toward the player, along the column
            toward = button == "down"
            self._choice = min(len(PROMOTION_ORDER) - 1, max(0, self._choice + (1 if toward else -1)))
            self.square = self._column()[self._choice]
        elif button == "select":
            piece = PROMOTION_ORDER[self._choice]
            if self._prompt:
                self.stop()
                return Promote(piece)
            move = chess.Move(self._pending.from_square, self._pending.to_square, piece)
            return Play(move)
        elif button == "back" and not self._prompt:
            self.square = self._pending.to_square
            self._pending = None
            self.mode = "in-hand"
        return None

    def _history(self, button: Button) -> Action | None:
        if button in ("left", "down"):
            self._ply = max(0, self._ply - 1)
        elif button in ("right", "up"):
            self._ply = min(len(self.board.move_stack), self._ply + 1)
        else:
            self.mode = self._before
            self._ply = len(self.board.move_stack)
        return None

    def menu_items(self) -> tuple[str, ...]:
        """The menu as it reads now (in the player's language)."""
        return tuple(_menu_label(item) for item in self._menu_keys())

    def _menu_keys(self) -> tuple[str, ...]:
        """The menu's items by their own (English) names, which the presses go by."""
        over = self._before == "game-over"
        items = [] if over else ["hint", "take back"]
        items += ["review moves", "new game"]
        if self.settings.level is not None:
            items.append(f"level {self.settings.level}")
        number = self.settings.chess960
        items.append("standard chess" if number is None else f"chess960 #{number}")
        items.append("puzzles")
        if not over:
            items.append("resign? select" if self._sure else "resign")
        return tuple(items)

    def _open_menu(self) -> None:
        self._before = self.mode if self.mode == "game-over" else "contemplating"
        self.mode = "menu"
        self._menu = 0
        self._sure = False

    def _on_menu(self, button: Button) -> Action | None:
        items = self._menu_keys()
        item = items[self._menu]
        sure, self._sure = self._sure, False
        if button in ("up", "down"):
            self._menu = (self._menu + (1 if button == "down" else -1)) % len(items)
        elif button in ("left", "right"):
            self._change(item, 1 if button == "right" else -1)
        elif button == "back":
            self.mode = self._before
        elif item == "hint":
            return Ask(Command.HINT)
        elif item == "take back":
            return Ask(Command.TAKEBACK)
        elif item == "review moves":
            self.mode = "history"
            self._ply = len(self.board.move_stack)
        elif item == "new game":
            return NewGame(self.settings)
        elif item == "puzzles":
            return NewGame(Settings(self.settings.level, self.settings.chess960, puzzles=True))
        elif item.startswith(("standard", "chess960")):
            self.settings = Settings(self.settings.level, self._rng.randrange(CHESS960_NUMBERS))
        elif item.startswith("resign"):
            if sure:
                return Ask(Command.RESIGN)
            self._sure = True
        return None

    def _change(self, item: str, step: int) -> None:
        level, number = self.settings.level, self.settings.chess960
        if item.startswith("level") and level is not None:
            level = min(LEVELS[-1], max(LEVELS[0], level + step))
        elif item.startswith(("standard", "chess960")):
            # standard chess, then 0 to 959, round again
            index = (-1 if number is None else number) + step
            index = (index + 1) % (CHESS960_NUMBERS + 1) - 1
            number = None if index == -1 else index
        self.settings = Settings(level, number)

    def _game_over(self, button: Button) -> Action | None:
        if button == "select":
            self._open_menu()
        elif button in ("left", "down") and self.board.move_stack:
            self._before, self.mode = "game-over", "history"
            self._ply = len(self.board.move_stack) - 1
        return None

    def _question(self, button: Button) -> Action | None:
        if button in _STEPS:
            step = 1 if button in ("right", "up") else -1
            self._choice = (self._choice + step) % len(self._options)
        elif button == "select":
            move = self._options[self._choice]
            self.stop()
            return Answer(move)
        return None

    # --- the view ----------------------------------------------------------------------------------

    @property
    def view(self) -> CursorView:
        """What to show now."""
        board = self.board
        mode = self.mode
        if mode == "waiting":
            return CursorView(mode, board)
        if mode == "game-over":
            # TRANSLATORS: the buttons' display, at most 16 columns: select opens the menu
            return CursorView(mode, board, lines=(self.result, _("select: menu")))
        if mode == "history":
            shown = board.copy()
            while len(shown.move_stack) > self._ply:
                shown.pop()
            total = len(board.move_stack)
            move = shown.move_stack[-1] if shown.move_stack else None
            before = shown.copy()
            # TRANSLATORS: the buttons' display, at most 16 columns: reviewing the game, at its start
            label = _("the start")
            if move is not None:
                before.pop()
                number = before.fullmove_number
                label = f"{number}{'.' if before.turn == chess.WHITE else '...'} {san_in(before.san(move))}"
            # TRANSLATORS: the buttons' display, at most 16 columns: the move reviewed of all ({ply}/{total})
            review = _("review {ply}/{total}").format(ply=self._ply, total=total)
            return CursorView(mode, shown, move=move, move_board=before, lines=(review, label))
        if mode == "menu":
            items = self.menu_items()
            # TRANSLATORS: the buttons' display, at most 16 columns: the menu's title
            title = _("menu")
            return CursorView(
                mode, board, lines=(title, f"> {items[self._menu]}"), menu=items, menu_index=self._menu
            )
        if mode == "question":
            move = self._options[self._choice]
            squares = {m.to_square for m in self._options}
            square = move.to_square if len(squares) == len(self._options) else move.from_square
            return CursorView(
                mode,
                board,
                square=square,
                choices=tuple(sorted({s for m in self._options for s in (m.from_square, m.to_square)})),
                # TRANSLATORS: the buttons' display, at most 16 columns: which move was made at the board?
                lines=(_("which move?"), f"> {san_in(self._option_sans[self._choice])}"),
            )
        if mode == "promoting":
            assert self._pending is not None
            column = self._column()
            piece = PROMOTION_ORDER[self._choice]
            move = chess.Move(self._pending.from_square, self._pending.to_square, piece)
            san = board.san(move) if board.is_legal(move) else move.uci()
            return CursorView(
                mode,
                board,
                square=column[self._choice],
                held=self._pending.from_square,
                choices=column,
                # TRANSLATORS: the buttons' display, at most 16 columns: the piece a pawn becomes follows
                lines=(_("promote to"), f"{piece_name(piece)} {san_in(san)}"),
            )
        if mode == "in-hand":
            assert self.held is not None
            targets = self.targets()
            in_hand = board.piece_at(self.held)
            target = targets.get(self.square)
            here = chess.square_name(self.square)
            if self.square == self.held:
                # TRANSLATORS: the buttons' display, at most 16 columns: select puts the piece in hand down
                second = _("select: put down")
            elif target is not None:
                second = f"{here}: {san_in(board.san(target))}"
            else:
                second = self._note or _("{square}: not legal").format(square=here)
            name = piece_name(in_hand.piece_type) if in_hand is not None else "?"
            # TRANSLATORS: the buttons' display, at most 16 columns: the piece in hand, where it goes next
            first = _("{piece} {square} to").format(piece=name, square=chess.square_name(self.held))
            return CursorView(
                mode,
                board,
                square=self.square,
                held=self.held,
                targets={square: _captures(board, move) for square, move in targets.items()},
                refused=self._refused,
                lines=(first, second),
            )
        # new turn, contemplating
        if self.colour == chess.WHITE:
            side = pgettext("status display", "White to move")
        else:
            side = pgettext("status display", "Black to move")
        first = side + (" +" if board.is_check() else "")
        move, move_board = None, None
        if self.hint is not None:
            move, move_board = self.hint, board
            second = _("hint: {move}").format(move=san_in(board.san(self.hint)))
        elif mode == "new-turn" and board.move_stack:
            move = board.move_stack[-1]
            move_board = board.copy()
            move_board.pop()
            number = move_board.fullmove_number
            dots = "." if move_board.turn == chess.WHITE else "..."
            # TRANSLATORS: the buttons' display, at most 16 columns: the opponent's last move (1...e5)
            second = _("last: {move}").format(move=f"{number}{dots}{san_in(move_board.san(move))}")
        else:
            second = _describe(board, self.square)
        if self._note:
            second = self._note
        if mode == "contemplating" and self.hint is None:
            move, move_board = None, None
        return CursorView(
            mode,
            board,
            square=self.square,
            move=move,
            move_board=move_board,
            refused=self._refused,
            lines=(first, second),
        )

    def __repr__(self) -> str:
        return f"<Cursor {self.mode} at {chess.square_name(self.square)}>"


def _own_moves(board: chess.Board) -> list[chess.Move]:
    """The moves of the side to move on ``board``, latest first."""
    stack = board.move_stack
    return [stack[i] for i in range(len(stack) - 2, -1, -2)]


def _captures(board: chess.Board, move: chess.Move) -> bool:
    return board.is_capture(move) and not board.is_castling(move)


def _describe(board: chess.Board, square: chess.Square) -> str:
    """The cursor's square in words: ``e2 white pawn``, ``e5 empty``."""
    piece = board.piece_at(square)
    name = chess.square_name(square)
    if piece is None:
        # TRANSLATORS: the buttons' display, at most 16 columns: the square under the cursor is empty
        return _("{square} empty").format(square=name)
    return _(_DESCRIBED[piece.color, piece.piece_type]).format(square=name)


def _menu_label(key: str) -> str:
    """A menu item as shown: ``key`` (its own name) in the player's language."""
    if key.startswith("level "):
        # TRANSLATORS: the buttons' menu, at most 14 columns: the engine's skill level (0-20)
        return pgettext("buttons menu", "level {level}").format(level=key.removeprefix("level "))
    if key.startswith("chess960 #"):
        # TRANSLATORS: the buttons' menu, at most 14 columns: the Chess960 start's number
        return pgettext("buttons menu", "chess960 #{number}").format(number=key.removeprefix("chess960 #"))
    labels = {
        # TRANSLATORS: an item of the buttons' menu, at most 14 columns
        "hint": pgettext("buttons menu", "hint"),
        "take back": pgettext("buttons menu", "take back"),
        "review moves": pgettext("buttons menu", "review moves"),
        "new game": pgettext("buttons menu", "new game"),
        "standard chess": pgettext("buttons menu", "standard chess"),
        "puzzles": pgettext("buttons menu", "puzzles"),
        "resign": pgettext("buttons menu", "resign"),
        # TRANSLATORS: the menu's resign item once selected: select again to resign (at most 14 columns)
        "resign? select": pgettext("buttons menu", "resign? select"),
    }
    return labels.get(key, key)
