"""A Chess Peripheral Protocol app (the central), as blichess and the ``chess_peripheral_driver`` talk.

On connecting it asks for each feature and each variant in turn, waiting for ``ok``/``nok`` before the
next; then it begins its round: ``set_variant``, ``side`` (where supported), ``begin <board> <side>``,
``last_move`` and ``check`` (where supported and known). Its own moves go out as ``move <uci>`` (king onto
rook in ``chess_960``) with no answer awaited; the board's moves are answered ``ok`` when legal in the
app's game (``promote <uci>`` where the board left the promotion out), else ``nok``. One command a write,
no terminator. What the app sees of the board: the pieces of its last ``sync``/``unsync``/``state``, its
game's after a move it accepted or a ``moved``.
"""

from __future__ import annotations

import time

import chess

from .base import AppClient, Link

#: The features a CPP app asks for, in the driver's order.
FEATURES = (
    "get_state",
    "set_state",
    "submove_state",
    "last_move",
    "check",
    "moved",
    "msg",
    "resign",
    "undo_redo",
    "undo_offer",
    "draw_offer",
    "side",
    "time",
    "score",
    "option",
    "draw_reason",
    "variant_reason",
)
#: blichess's own list (its ``CppConstants``).
BLICHESS_FEATURES = ("last_move", "check", "msg", "side", "set_state", "option")
VARIANTS = (
    "standard",
    "chess_960",
    "3_check",
    "atomic",
    "king_of_the_hill",
    "anti_chess",
    "horde",
    "racing_kings",
    "crazy_house",
)


class CppClient(AppClient):
    """A CPP app playing ``board``'s game (the standard start by default; a Chess960 start makes it a
    ``chess_960`` round), the person at the board playing ``person`` (None: both sides, over the board)."""

    def __init__(
        self,
        link: Link,
        board: chess.Board | None = None,
        *,
        person: chess.Color | None = chess.WHITE,
        features: tuple[str, ...] = FEATURES,
    ) -> None:
        super().__init__(link)
        self.game = board.copy() if board is not None else chess.Board()
        self.person = person
        self.asked = features
        self.features: set[str] = set()
        self.variants: set[str] = set()
        self.heard: list[str] = []
        self.pieces: str | None = None  # what the board reported last (a FEN board part)
        self.synchronized = False
        self.rejected: list[str] = []  # the board's moves this app refused
        self.moved = 0

    @property
    def variant(self) -> str:
        return "chess_960" if self.game.chess960 else "standard"

    # --- the link --------------------------------------------------------------------------------------

    def send(self, command: str) -> None:
        self.link.write(command.encode(), "")

    def _next(self, timeout: float) -> str | None:
        chunk = self.link.read(timeout)
        if chunk is None:
            return None
        command = chunk[1].decode()
        self.heard.append(command)
        return command

    def _ask(self, command: str, timeout: float = 5.0) -> str:
        """Send ``command`` and wait for its ``ok``/``nok``, handling what comes before it."""
        self.send(command)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            answer = self._next(max(0.01, deadline - time.monotonic()))
            if answer in ("ok", "nok"):
                return answer
            if answer is not None:
                self._handle(answer)
        raise AssertionError(f"no answer to {command!r} (heard {self.heard[-5:]})")

    def drain(self, wait: float = 0.02) -> None:
        """Handle what the board has sent (waiting ``wait`` seconds for the first)."""
        command = self._next(wait)
        while command is not None:
            self._handle(command)
            command = self._next(0)

    def _handle(self, command: str) -> None:
        word, _, argument = command.partition(" ")
        if word in ("sync", "unsync", "unsync_settable", "state"):
            self.pieces = argument.split(" ")[0]
            if word != "state":
                self.synchronized = word == "sync"
        elif word == "move":
            self._board_move(argument)
        elif word == "moved":
            self.moved += 1
            self.pieces = self.game.board_fen()
        # msg, err: shown to the person (a toast); options_end: none

    def _board_move(self, uci: str) -> None:
        """The board's move (the person's): ``ok`` where legal and the person's to make, else ``nok``."""
        promote = False
        try:
            move: chess.Move | None = self.game.parse_uci(uci)
        except ValueError:
            move = None
            if len(uci) == 4:  # the board left the promotion out: the app promotes (to a queen)
                try:
                    move, promote = self.game.parse_uci(uci + "q"), True
                except ValueError:
                    move = None
        if move is None or (self.person is not None and self.game.turn != self.person):
            self.rejected.append(uci)
            self.send("nok")
            return
        written = self._uci(self.game, move)
        self.game.push(move)
        self.pieces = self.game.board_fen()
        self.send(f"promote {written}" if promote else "ok")
        self._check()

    def _uci(self, board: chess.Board, move: chess.Move) -> str:
        return board.uci(move, chess960=self.variant == "chess_960")

    def _check(self) -> None:
        if "check" in self.features and self.game.is_check():
            king = self.game.king(self.game.turn)
            assert king is not None
            self.send(f"check {chess.square_name(king)}")

    # --- what an app does --------------------------------------------------------------------------------

    def connect(self) -> None:
        for feature in self.asked:
            if self._ask(f"feature {feature}") == "ok":
                self.features.add(feature)
        for variant in VARIANTS:
            if self._ask(f"variant {variant}") == "ok":
                self.variants.add(variant)
        self.begin(self.game)

    def begin(self, board: chess.Board) -> str:
        """Begin a round from ``board`` (its last move and check told where supported); the board's
        answer (``sync``/``unsync``...)."""
        self.game = board.copy()
        self.send(f"set_variant {self.variant}")
        if "side" in self.features:
            self.send(f"side {'?' if self.person is None else 'wb'[self.person == chess.BLACK]}")
        turn = "w" if board.turn == chess.WHITE else "b"
        self.send(f"begin {board.board_fen()} {turn}")
        answer = self._next(5.0)
        assert answer is not None and answer.partition(" ")[0] in ("sync", "unsync", "unsync_settable"), (
            answer
        )
        self._handle(answer)
        if "last_move" in self.features and board.move_stack:
            before = board.copy()
            last = before.pop()
            self.send(f"last_move {self._uci(before, last)}")
        self._check()
        return answer

    def board_fen(self, timeout: float = 5.0) -> str:
        self.drain(min(timeout, 0.02))
        return self.pieces if self.pieces is not None else ""

    def show_move(self, board: chess.Board, move: chess.Move) -> None:
        self.drain(0)
        self.send(f"move {self._uci(board, move)}")
        self.game = board.copy()
        self.game.push(move)
        self._check()
