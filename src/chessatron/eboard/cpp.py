"""The Chess Peripheral Protocol (CPP) board: the table as the peripheral of blichess and other CPP apps.

The app (the *central*) controls the game; the board (the *peripheral*) controls synchronisation. The app
asks which features and variants the board has (``feature <name>``, ``variant <name>``: ``ok``/``nok``),
chooses one (``set_variant``), and begins a round with its position (``begin <fen>``); the board answers
``sync <fen>`` when its pieces stand so, else ``unsync <fen>`` with what stands (``unsync_settable`` where
the app asked for ``set_state``: the robot sets the position up), ``state <fen>`` for each change while
they differ, and ``sync`` once they agree. The app's moves come as ``move <uci>`` (no answer: the robot
makes them, then ``moved`` if the app asked for it); the person's move goes out as ``move <uci>`` and the
app answers ``ok``, ``nok`` (rejected: the robot puts the position back) or ``promote <uci>``. Castling is
the king's move in ``standard`` and king onto rook in ``chess_960``. ``end`` closes the round,
``undo``/``redo`` shift it, ``get_state`` streams ``state`` until the next ``begin``.

Optional hooks the table may have (called when present): ``app_end(reason)``, ``app_message(text)``.
"""

from __future__ import annotations

import codecs
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import chess

from . import cpp_text
from .core import EboardProtocol, TableView

LOGGER = logging.getLogger(__name__)

#: The features this board says ``ok`` to: its pieces' state on demand (``get_state``) and as it changes
#: (``submove_state``), setting up the app's position (``set_state``), the app's last move, check and
#: messages, ``moved`` once the robot made the app's move, the person's side, takebacks, the end's reasons.
SUPPORTED_FEATURES = frozenset(
    {
        "get_state",
        "set_state",
        "submove_state",
        "last_move",
        "check",
        "moved",
        "msg",
        "side",
        "undo_redo",
        "draw_reason",
        "variant_reason",
    }
)
SUPPORTED_VARIANTS = frozenset({"standard", "chess_960"})
#: A partial command older than this (seconds of the app's silence) is taken as it stands.
QUIET_S = 0.3
#: More than this many characters that never make a command: a flood, dropped.
MAX_PENDING = 512

Key = tuple[str, bool]


def position_key(board: chess.Board) -> Key:
    """What must agree for the app and the table to be synchronised: the pieces and the side to move."""
    return board.board_fen(), board.turn


def move_to(board: chess.Board, target: chess.Board) -> chess.Move | None:
    """The legal move on ``board`` that leads to ``target``'s position, or None."""
    wanted = position_key(target)
    for move in board.legal_moves:
        after = board.copy(stack=False)
        after.push(move)
        if position_key(after) == wanted:
            return move
    return None


@dataclass
class Cpp(EboardProtocol):
    """The peripheral side of CPP over one Bluetooth LE service (one channel each way, both ``""``)."""

    name: ClassVar[str] = "cpp"
    transports: ClassVar[tuple[str, ...]] = ("ble",)
    ble_channels: ClassVar[dict[str, str]] = {
        "": "the app writes one command a write to rx (write); the board notifies one a value on tx "
        "(notify, read); text, no terminator"
    }
    #: The identifiers of the specification and ArduinoBleChess (rx: the app writes; tx: the board notifies).
    ble_uuids: ClassVar[dict[str, str]] = {
        "service": "f5351050-b2c9-11ec-a0c0-b3bc53b08d33",
        "rx": "f53513ca-b2c9-11ec-a0c1-639b8957db99",
        "tx": "f535147e-b2c9-11ec-a0c2-8bbd706ec4e6",
    }

    #: The features the app asked for that this board has.
    features: set[str] = field(default_factory=set)
    variant: str = "standard"
    #: The person's side as the app said it (``side``): a colour, or None for both or unsaid.
    side: chess.Color | None = None
    #: The app's last move and the checked king's square, as it told them (for the table to show).
    last_move: str | None = None
    check_square: chess.Square | None = None

    _buffer: str = ""
    _decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )
    _quiet: tuple[float, str] | None = None
    _connected: bool = False
    _err_sent: bool = False
    _round: bool = False
    _streaming: bool = False
    _central: chess.Board = field(default_factory=chess.Board)
    _synced: bool = False
    _pending: chess.Move | None = None  # the person's move sent, not yet answered
    _awaiting: Key | None = None  # the table makes the app's move (or shift) from this position
    _announce: bool = False  # then ``moved`` once it stands (where the app asked for it)
    _told: str | None = None  # the placement the app last heard of

    # --- bytes in -----------------------------------------------------------------------------------------

    def received(self, data: bytes, channel: str = "") -> None:
        """A chunk of what the app wrote (on the one channel)."""
        self._quiet = None
        for char in self._decoder.decode(bytes(data)):
            if char in cpp_text.TERMINATORS:
                self._consume(final=True)
            else:
                self._buffer += char
        self._consume(final=False)
        if len(self._buffer) > MAX_PENDING:
            self._drop(len(self._buffer), "a flood")

    def tick(self, now: float) -> None:
        """Take a partial command as it stands once the app has been quiet for :data:`QUIET_S`."""
        if not self._buffer:
            self._quiet = None
        elif self._quiet is None or self._quiet[1] != self._buffer:
            self._quiet = (now, self._buffer)
        elif now - self._quiet[0] >= QUIET_S:
            self._quiet = None
            self._consume(final=True)

    def _consume(self, *, final: bool) -> None:
        """Handle the whole commands at the front of the buffer (``final``: the buffer ends one)."""
        while self._buffer:
            text = self._buffer
            status = cpp_text.scan(text, self._central)
            if status == "partial" and not final:
                return
            if status == "invalid":
                self._drop(cpp_text.resync(text), "not a command")
                continue
            self._buffer = ""
            self._command(text)

    def _drop(self, length: int, why: str) -> None:
        dropped, self._buffer = self._buffer[:length], self._buffer[length:]
        LOGGER.warning("cpp: dropped %r from the app (%s)", dropped[:80], why)
        if not self._err_sent:  # one err until the next good command: a flood gets one answer
            self._err_sent = True
            word = "".join(
                char for char in dropped.split(" ")[0][:20] if char.isascii() and char.isprintable()
            )
            self._send(f"err unknown command {word}")

    # --- commands -----------------------------------------------------------------------------------------

    def _command(self, text: str) -> None:
        word, _, argument = text.partition(" ")
        handler = self._handlers().get(word)
        if handler is None or (word not in cpp_text.BARE and not argument):
            LOGGER.warning("cpp: %r from the app is not a whole command", text)
            self._err(f"unsupported command {word}")
            return
        LOGGER.debug("cpp: app says %r", text)
        if not self._connected:
            self._connected = True
            self.table.app_connected("CPP app")
        self._err_sent = False
        handler(argument)

    def _handlers(self) -> dict[str, Callable[[str], None]]:
        return {
            "ok": lambda _: self._answered(True),
            "nok": lambda _: self._answered(False),
            "feature": self._feature,
            "variant": lambda name: self._send("ok" if name in SUPPORTED_VARIANTS else "nok"),
            "set_variant": self._set_variant,
            "side": self._side,
            "begin": self._begin,
            "move": self._app_move,
            "promote": self._promote,
            "end": self._end,
            "undo": self._shift,
            "redo": self._shift,
            "get_state": lambda _: self._get_state(),
            "set_state": lambda _: self._set_state(),
            "last_move": self._last_move,
            "check": self._check,
            "msg": self._msg,
            "err": lambda text: LOGGER.warning("cpp: the app reports an error: %s", text),
            "state": lambda fen: LOGGER.debug("cpp: the app's pieces: %s", fen),
            "undo_offer": lambda _: self._send("nok"),  # the person cannot be asked through the table
            "draw_offer": lambda _: self._send("nok"),
            "options_begin": lambda _: self._send("options_end"),  # no options
        }

    def _err(self, message: str) -> None:
        if not self._err_sent:
            self._err_sent = True
            self._send(f"err {message}")

    def _feature(self, name: str) -> None:
        if name in SUPPORTED_FEATURES:
            self.features.add(name)
            self._send("ok")
        else:
            self._send("nok")

    def _set_variant(self, name: str) -> None:
        if name in SUPPORTED_VARIANTS:
            self.variant = name
        else:
            LOGGER.warning("cpp: the app chose variant %r, which this board does not play", name)
            self._err(f"unsupported variant {name}")

    def _side(self, side: str) -> None:
        self.side = {"w": chess.WHITE, "b": chess.BLACK}.get(side)

    def _last_move(self, uci: str) -> None:
        self.last_move = uci

    def _check(self, square: str) -> None:
        self.check_square = chess.parse_square(square) if len(square) == 2 else None

    def _msg(self, text: str) -> None:
        LOGGER.info("cpp: the app says %r", text)
        self._hook("app_message", text)

    def _hook(self, name: str, *args: Any) -> None:
        hook = getattr(self.table, name, None)
        if callable(hook):
            hook(*args)

    # --- the round ----------------------------------------------------------------------------------------

    def _begin(self, fen: str) -> None:
        board = self._board_from(fen)
        if board is None:
            return
        self._round, self._streaming = True, False
        self._central, self._pending, self._awaiting = board, None, None
        self.last_move = self.check_square = None
        self.table.app_lit(frozenset())
        self._synced = position_key(self.view.board) == position_key(board)
        self._told = self.view.board_fen()
        if self._synced:
            self._send(f"sync {self._fen()}")
            return
        self._ask(board)  # the robot sets it up: then sync
        self._send(f"{self._unsync()} {self._fen()}")

    def _app_move(self, uci: str) -> None:
        if not self._round:  # a move without begin: the table's game is the app's
            self._round, self._central, self._synced = True, self.view.board.copy(), True
        central = self._central
        if self._pending is not None:
            try:
                central.parse_uci(uci)
                self._pending = None  # the app moved after the person's move: it took it
            except ValueError:
                central.pop()  # the app went on without the person's move: it refused it
                self._pending = None
        try:
            move = central.parse_uci(uci)
        except ValueError:
            try:  # the app and the table agree where this board lost track of the app's game
                move = self.view.board.parse_uci(uci)
                self._central = central = self.view.board.copy()
            except ValueError:
                LOGGER.warning("cpp: the app's move %r is not legal in %s", uci, central.fen())
                self._err(f"illegal move {uci}")
                return
        self._central.push(move)
        self.check_square = None
        self._await(central, announce=True)
        self._settle()

    def _answered(self, accepted: bool) -> None:
        """The app's ``ok``/``nok`` to the person's move."""
        if self._pending is None:
            LOGGER.info(
                "cpp: the app said %s with no move of the board's to answer", "ok" if accepted else "nok"
            )
            return
        self._pending = None
        if not accepted:
            LOGGER.info("cpp: the app refused the person's move %s", self._central.peek().uci())
            self._central.pop()
            self._await(self._central, announce=False)  # the robot puts the app's position back
        self._settle()

    def _promote(self, uci: str) -> None:
        if self._pending is None:
            LOGGER.info("cpp: the app promoted %r with no move of the board's to answer", uci)
            return
        self._pending = None
        made = self._central.pop()
        try:
            move = self._central.parse_uci(uci)
        except ValueError:
            move = made
        if (move.from_square, move.to_square) != (made.from_square, made.to_square):
            move = made
        self._central.push(move)
        self._await(self._central, announce=False)  # the piece the app chose, where it differs
        self._settle()

    def _shift(self, fen: str) -> None:
        """``undo``/``redo``: the app's game shifted to ``fen``."""
        board = self._board_from(fen, history=self._central)
        if board is None:
            return
        self._round, self._central, self._pending = True, board, None
        self.check_square = None
        self._await(board, announce=True)
        self._settle()

    def _end(self, reason: str) -> None:
        LOGGER.info("cpp: the app ended the round: %s", reason)
        self._round, self._pending, self._awaiting = False, None, None
        self.table.app_lit(frozenset())
        self._hook("app_end", reason)

    def _get_state(self) -> None:
        self._round, self._streaming, self._pending, self._awaiting = False, True, None, None
        self._told = None
        self._state()

    def _set_state(self) -> None:
        if not self._round:
            self._err("no round to set up: begin first")
            return
        if position_key(self.view.board) != position_key(self._central):
            self._ask(self._central)
        self._settle()

    # --- the table ------------------------------------------------------------------------------------------

    def report(self, view: TableView) -> None:
        """The table's view changed: tell the app what the protocol tells (see :meth:`_settle`)."""
        self.view = view
        self._settle()

    def _settle(self) -> None:
        """Tell the app what changed between the table's view and the app's game."""
        if not self._round:
            if self._streaming:
                self._state()
            return
        view, central = self.view, self._central
        here = position_key(view.board)
        if here == position_key(central):
            if self._awaiting is not None:
                self._awaiting = None
                self.table.app_lit(frozenset())
                self._submove_state()
                if self._announce and "moved" in self.features:
                    self._send("moved")
            if not self._synced:
                if view.lifted:  # the position, some of its pieces still in the air
                    self._state()
                    return
                self._synced = True
                self._told = view.board_fen()
                self._send(f"sync {self._fen()}")
            else:
                self._submove_state()
            return
        if self._awaiting is not None and here == self._awaiting:
            self._submove_state()  # the robot at work, or a piece in the air before it
            return
        if self._synced and self._pending is None and self._awaiting is None:
            move = move_to(central, view.board)
            if move is not None:  # the person's move
                self._submove_state()
                self._pending = move
                self._send(f"move {central.uci(move, chess960=self.variant == 'chess_960')}")
                central.push(move)
                self._told = view.board_fen()
                return
        if self._synced:
            self._synced, self._awaiting = False, None
            self._told = view.board_fen()
            self._send(f"{self._unsync()} {self._fen()}")
        else:
            self._state()

    def _await(self, board: chess.Board, *, announce: bool) -> None:
        """Ask the table for ``board`` where it stands elsewhere, and wait quietly while it stands still."""
        if position_key(self.view.board) != position_key(board):
            self._awaiting, self._announce = position_key(self.view.board), announce
            self._ask(board)

    def _ask(self, board: chess.Board) -> None:
        """Ask the table for ``board``'s position: the app's move where it is one move on, a new game from
        a start position, else the position set up."""
        move = move_to(self.view.board, board)
        if move is not None:
            squares = frozenset((move.from_square, move.to_square))
            self.table.app_lit(squares)
            self.table.app_move(move)
            return
        if not board.move_stack:
            if self.variant == "chess_960":
                number = board.chess960_pos(ignore_castling=True)
                if number is not None:
                    self.table.app_new_game(number)
                    return
            elif board.board_fen() == chess.STARTING_BOARD_FEN and board.turn == chess.WHITE:
                self.table.app_new_game(None)
                return
        self.table.app_position(board)

    def _unsync(self) -> str:
        return "unsync_settable" if "set_state" in self.features else "unsync"

    def _fen(self) -> str:
        return f"{self.view.board_fen()} {'w' if self.view.board.turn == chess.WHITE else 'b'}"

    def _state(self) -> None:
        placement = self.view.board_fen()
        if placement != self._told:
            self._told = placement
            self._send(f"state {placement}")

    def _submove_state(self) -> None:
        if "submove_state" in self.features:
            self._state()
        else:
            self._told = self.view.board_fen()

    def _board_from(self, fen: str, history: chess.Board | None = None) -> chess.Board | None:
        """The app's game from its ``fen`` (often the board and the side alone): the table's game or one
        in ``history`` where it stands so (keeping the moves and the castling rights), else a board whose
        castling rights are those the pieces at home allow."""
        fields = fen.split()
        if not fields:
            self._err("begin without a position")
            return None
        chess960 = self.variant == "chess_960"
        for known in (self.view.board, history):
            if known is None:
                continue
            candidate = known.copy()
            while True:
                if candidate.board_fen() == fields[0] and (
                    len(fields) < 2 or fields[1] == ("w" if candidate.turn else "b")
                ):
                    return candidate
                if not candidate.move_stack:
                    break
                candidate.pop()
        try:
            board = chess.Board(" ".join(fields[:6]), chess960=chess960)
            if len(fields) < 3:
                board.set_castling_fen("KQkq")
                board.castling_rights = board.clean_castling_rights()
        except ValueError as exc:
            LOGGER.warning("cpp: the app's position %r is not a FEN: %s", fen, exc)
            self._err(f"invalid fen {fen}")
            return None
        if not board.is_valid():  # no kings, pawns on the back rank...: nothing to set up
            LOGGER.warning("cpp: the app's position %r cannot be played (%s)", fen, board.status())
            self._err(f"invalid position {fen}")
            return None
        return board

    def _send(self, text: str) -> None:
        LOGGER.debug("cpp: board says %r", text)
        self.send(text.encode(), "")
