"""Playing with buttons: the ``buttons`` player, and buttons that answer a sensor board's prompts.

:class:`ButtonPanel` connects the pure :class:`~.cursor.Cursor` to a d-pad (:mod:`chessatron.buttons`),
the square LEDs, a status display and the live state (the terminal view and the web page draw it). The
cursor blinks magenta over whatever its square shows (:data:`BLINK_S` lit, as long showing the square
beneath; lit at once after every press); the piece in hand shows in the *selected* colour, its legal
squares green, its captures yellow; the opponent's last move, a hint and a move reviewed show as the
engine's move does (blue); a select that did nothing shows red on its square until the next press.

:class:`ButtonMover` is the ``buttons`` player of a game: its whole turn is played on the panel. On a
board with sensors, the panel answers the board's prompts instead (:meth:`ButtonPanel.poll`): which of
several moves was made, and which piece a pawn became.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

import chess

from ...feedback.signals import LedSignals
from ...i18n import _
from ...i18n.notation import san_in
from ...planning.layout import Cell, Layout
from ...ports import RGB, Button, ButtonPad, LedStrip, StatusDisplay
from ..engine.settings import parse_level
from ..telling.live import LiveState
from .base import Command, NewGameRequested, Settings
from .board import BoardMover
from .cursor import Action, Answer, Ask, Cursor, CursorView, NewGame, Play, Promote
from .spec import PlayerSpec

LOGGER = logging.getLogger(__name__)

#: The cursor blinks: this long lit, as long showing what its square shows beneath it (seconds).
BLINK_S = 0.3
#: The longest a wait for a press goes without looking whether the player must stop (seconds).
POLL_S = 0.1


class ButtonPanel:
    """The d-pad and what shows its cursor: ``leds`` (None: none), ``display`` (None: none) and
    ``live`` (the terminal view's and the web page's state, part ``cursor``).

    ``on_step`` is told of every view once it is shown: the press that led to it, None when a turn, the
    game's end or a prompt brought it.
    """

    def __init__(
        self,
        pad: ButtonPad,
        layout: Layout,
        *,
        leds: LedStrip | None = None,
        display: StatusDisplay | None = None,
        live: LiveState | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pad = pad
        self.layout = layout
        self.leds = leds
        self.display = display
        self.live = live
        self.signals = LedSignals(layout)
        self.cursor = Cursor(chess.WHITE)
        self.on_step: Callable[[Button | None, CursorView], None] = lambda button, view: None
        self._clock = clock
        self._lit_since = clock()
        self._prompt: tuple[object, ...] | None = None

    # --- the buttons player ------------------------------------------------------------------------

    def play_turn(
        self,
        board: chess.Board,
        *,
        hint: chess.Move | None = None,
        expired: Callable[[], bool] = lambda: False,
    ) -> Action | None:
        """The player's turn on ``board``, played with the buttons: the move, a command from the menu,
        a new game; None when ``expired`` says to stop waiting (the flag fell, the game is stopped). A
        pad that will never be pressed again (a script run out) asks to quit, as the end of typed input
        does."""
        self.cursor.begin_turn(board, hint=hint)
        action = self._run(expired)
        self.cursor.stop()
        self._show()
        if isinstance(action, Play):
            # TRANSLATORS: the buttons' display, at most 16 columns: the move just played (Nf3)
            self._show_lines((_("played {move}").format(move=san_in(board.san(action.move))), ""))
        return action

    def after_game(self, board: chess.Board, result: str) -> Settings | None:
        """The game on ``board`` is over (``result`` says how): the player may review it and starts the
        next one from the menu. Its settings; None when the pad will never be pressed again."""
        self.cursor.game_over(board, result)
        action = self._run(lambda: False)
        self.cursor.stop()
        self._show()
        return action.settings if isinstance(action, NewGame) else None

    def _run(self, expired: Callable[[], bool]) -> Action | None:
        self._lit_since = self._clock()
        self._show()
        self.on_step(None, self.cursor.view)
        while True:
            if expired():
                return None
            button = self.pad.read(self._until_blink())
            if button is None:
                if self.pad.is_finished:
                    return Ask(Command.QUIT)
                self._show_leds()  # the cursor blinks
                continue
            action = self.cursor.press(button)
            self._lit_since = self._clock()
            self._show()
            self.on_step(button, self.cursor.view)
            if action is not None and not isinstance(action, Answer | Promote):
                return action

    def _until_blink(self) -> float:
        elapsed = self._clock() - self._lit_since
        return min(POLL_S, BLINK_S - elapsed % BLINK_S + 1e-3)

    # --- a board with sensors: its prompts -----------------------------------------------------------

    def poll(self, mover: BoardMover) -> None:
        """One scan of a board player's sensors: an open question or promotion is put to the buttons
        (presses made before it are no answers to it), and their answer handed to ``mover``. Presses
        while nothing is asked are dropped."""
        recognizer = mover.recognizer
        question, promoting = recognizer.question, mover.promoting
        key: tuple[object, ...] | None = None
        if promoting is not None:
            key = ("promotion", promoting[0].fen(), promoting[1])
        elif question is not None:
            key = ("question", question.ply, question.options)
        if key != self._prompt:
            self._prompt = key
            self._drain()
            if promoting is not None:
                self.cursor.promote(*promoting)
            elif question is not None:
                board = recognizer.board.copy()
                while len(board.move_stack) > question.ply:
                    board.pop()
                self.cursor.ask(board, question.options, question.option_sans)
            else:
                self.cursor.stop()
            self._lit_since = self._clock()
            self._show(leds=False)  # the board player lights the LEDs, with :meth:`overlay` on top
            self.on_step(None, self.cursor.view)
        if key is None:
            self._drain()
            return
        while (button := self.pad.read(0)) is not None:
            action = self.cursor.press(button)
            self._lit_since = self._clock()
            self._show(leds=False)
            self.on_step(button, self.cursor.view)
            if isinstance(action, Answer):
                mover.answers.put(action.move)
            elif isinstance(action, Promote):
                mover.promotions.put(chess.piece_symbol(action.piece))

    def overlay(self) -> dict[Cell, RGB]:
        """What the buttons add to a board player's LEDs while a prompt is open: the promotion choices,
        the cursor."""
        view = self.cursor.view
        if view.mode not in ("promoting", "question"):
            return {}
        return self.colours(view, lit=self._is_lit(), prompt=True)

    def _drain(self) -> None:
        while self.pad.read(0) is not None:
            pass

    # --- showing it ----------------------------------------------------------------------------------

    def colours(self, view: CursorView, *, lit: bool = True, prompt: bool = False) -> dict[Cell, RGB]:
        """The LEDs for ``view``, the cursor ``lit`` or not (blinking). With ``prompt`` only what the
        buttons add to a board player's own signals."""
        signals, colours = self.signals, self.signals.colours
        cell = self.layout.square_cell
        lit_cells: dict[Cell, RGB] = {}
        if not prompt and view.mode in ("new-turn", "contemplating", "in-hand", "promoting"):
            lit_cells.update(signals.show_check(view.board))
        if not prompt and view.move is not None and view.move_board is not None:
            lit_cells.update(signals.show_engine_move(view.move, view.move_board))
        if not prompt and view.held is not None:
            lit_cells[cell(view.held)] = colours.selected
        for square, capture in view.targets.items():
            lit_cells[cell(square)] = colours.capture if capture else colours.destination
        if view.mode == "promoting":
            lit_cells.update(dict.fromkeys(map(cell, view.choices), colours.destination))
        if view.refused is not None:
            lit_cells[cell(view.refused)] = colours.illegal
        if lit and view.square is not None:
            lit_cells[cell(view.square)] = colours.cursor
        return lit_cells

    def _is_lit(self) -> bool:
        return int((self._clock() - self._lit_since) / BLINK_S) % 2 == 0

    def _show(self, *, leds: bool = True) -> None:
        """Show the cursor's view everywhere (when it goes, the LEDs go dark)."""
        view = self.cursor.view
        if view.mode != "waiting":
            self._show_lines(view.lines)
        if self.live is not None:
            self.live.update(cursor=view.to_dict() if view.mode != "waiting" else None)
        if leds:
            self._show_leds()

    def _show_lines(self, lines: tuple[str, str]) -> None:
        if self.display is not None:
            self.display.show(list(lines))

    def _show_leds(self) -> None:
        if self.leds is not None:
            view = self.cursor.view
            self.leds.show(self.colours(view, lit=self._is_lit()) if view.mode != "waiting" else {})

    def reset(self) -> None:
        """The game is over or stopped: no prompt is open, the cursor is gone."""
        self._prompt = None
        if self.cursor.mode != "waiting":
            self.cursor.stop()
            self._show(leds=False)

    def __repr__(self) -> str:
        return f"<ButtonPanel {self.pad!r} {self.cursor!r}>"


class ButtonMover:
    """The ``buttons`` player: each turn is played on the panel (see :class:`ButtonPanel`)."""

    def __init__(self, panel: ButtonPanel, colour: chess.Color, settings: Settings | None = None) -> None:
        self.panel = panel
        self.colour = colour
        if settings is not None:
            panel.cursor.settings = settings
        #: Whether the player must stop waiting (the session sets it: the flag fell, the game stops).
        self.expired: Callable[[], bool] = lambda: False
        #: The hint the session found for a position (``{"uci", "fen"}``), read at the turn's start.
        self.hint: Callable[[], Mapping[str, object] | None] = lambda: None

    def choose(self, board: chess.Board) -> chess.Move | Command | None:
        """The player's move or command; raises :class:`NewGameRequested` for a new game."""
        hint = None
        shown = self.hint()
        if shown is not None and shown.get("fen") == board.fen():
            hint = chess.Move.from_uci(str(shown.get("uci")))
        action = self.panel.play_turn(board, hint=hint, expired=self.expired)
        if isinstance(action, Play):
            return action.move
        if isinstance(action, Ask):
            return action.command
        if isinstance(action, NewGame):
            raise NewGameRequested(action.settings)
        return None


def settings_for(opponent: PlayerSpec, start: chess.Board) -> Settings:
    """The menu's settings for a game against ``opponent`` from ``start``: the engine's skill level
    (full strength, 20, when it plays by elo or unweakened; None against anyone else) and the start's
    Chess960 number (None: standard chess, or a position that is no Chess960 start)."""
    level = None
    if opponent.kind == "engine":
        skill = parse_level(opponent.spec).skill
        level = 20 if skill is None else skill
    number = start.chess960_pos() if start.chess960 else None
    return Settings(level=level, chess960=number)


def with_level(spec: PlayerSpec, level: int | None) -> PlayerSpec:
    """``spec`` playing at skill ``level`` (its other options kept); anyone but an engine as they are.

    >>> from .spec import PlayerSpec
    >>> with_level(PlayerSpec.parse("engine:1500elo:depth=12"), 5).spec
    'engine:5:depth=12'
    """
    if spec.kind != "engine" or level is None:
        return spec
    fields = [f for f in (spec.level or "").split(":") if f]
    kept = [f for f in fields if "=" in f]
    return type(spec)("engine", level=":".join([str(level), *kept]))


def players_for(white: PlayerSpec, black: PlayerSpec, settings: Settings) -> tuple[PlayerSpec, PlayerSpec]:
    """The players of a new game chosen from the buttons' menu (or by voice): the same, an engine that
    plays the person choosing (``buttons`` or ``voice``) at the level they chose.

    >>> from .spec import PlayerSpec
    >>> [p.spec for p in players_for(PlayerSpec("voice"), PlayerSpec.parse("engine:3"), Settings(level=7))]
    ['voice', 'engine:7']
    """
    choosing = ("buttons", "voice")
    return (
        with_level(white, settings.level) if black.kind in choosing else white,
        with_level(black, settings.level) if white.kind in choosing else black,
    )


def start_for(settings: Settings) -> chess.Board:
    """The start position the menu chose: standard chess, or the Chess960 start of its number."""
    if settings.chess960 is None:
        return chess.Board()
    return chess.Board.from_chess960_pos(settings.chess960)


__all__ = [
    "BLINK_S",
    "ButtonMover",
    "ButtonPanel",
    "players_for",
    "settings_for",
    "start_for",
    "with_level",
]
