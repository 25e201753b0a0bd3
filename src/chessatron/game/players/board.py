"""A person at the board: their moves seen through the sensors (:class:`BoardMover`), the LEDs showing
what the board sees, a correction made before the robot answers (:class:`Revision`), the board's
questions answered by hand or by a :class:`Prompter` (buttons)."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Mapping
from typing import IO, Protocol

import chess
import chess.engine

from ...errors import HardwareError
from ...feedback.signals import LedSignals, combine
from ...i18n import _
from ...planning.layout import Cell, Layout
from ...ports import RGB, LedStrip, OccupancySensor
from ...recognition import (
    Ambiguous,
    Committed,
    Illegal,
    NewGame,
    PieceLifted,
    Recognizer,
    RecognizerEvent,
    Resolved,
    Revised,
    TookBack,
)
from ...sim.hand import HandAction, SimulatedHand, perform
from ...sim.trace import KnownMove, MoveChoice, PromotionChoice, TableSnapshot, entry_line
from ...sim.world import SimWorld
from ..engine.player import EnginePlayer
from .base import Command, Revision

#: A question's squares blink this fast (seconds on, as many off).
BLINK_S = 0.4


class Prompter(Protocol):
    """Something that answers a board player's prompts besides the page and the terminal: the buttons
    (:class:`~chessatron.game.players.buttons.ButtonPanel`)."""

    def poll(self, mover: BoardMover) -> None:
        """One scan: read the presses, put an answer in ``mover.answers`` or ``mover.promotions``."""
        ...

    def overlay(self) -> Mapping[Cell, RGB]:
        """What it adds to the LEDs while a prompt is open (its cursor)."""
        ...


class BoardMover:
    """A person at the table: the sensors see pieces leave and arrive, the recognizer names the move.

    With a simulated ``hand`` (and a brain to choose its moves), the hand moves the pieces in the
    simulated world the way people do, in simulated time; otherwise this waits for a real person.

    When the board fits several moves (a capture by displacement that could have taken either of two
    pieces) nothing is guessed: the question goes to :attr:`on_question` (the terminal, the web page, the
    display say it), the LEDs blink the candidates' squares, and an answer put in :attr:`answers` (or
    the capturing piece lifted and set down again) settles it. A simulated person answers by lifting
    the piece again, unless ``hand_answers`` is off (then the page or a test answers).

    With buttons beside the board (:attr:`prompter`), they answer the question too, and a pawn that
    reaches the last rank waits for its piece to be chosen with them (:attr:`promoting`) before the move
    counts: the sensors cannot tell a knight from a queen.
    """

    def __init__(
        self,
        layout: Layout,
        sensors: OccupancySensor,
        board: chess.Board,
        *,
        hand: SimulatedHand | None = None,
        brain: EnginePlayer | None = None,
        world: SimWorld | None = None,
        scan_s: float = 0.02,
        give_up_s: float = 120.0,
        leds: LedStrip | None = None,
        log: IO[str] | None = None,
        hand_answers: bool = True,
        clock: Callable[[], float] = time.monotonic,
        sides: frozenset[chess.Color] = frozenset(chess.COLORS),
    ) -> None:
        self.layout = layout
        self.leds = leds
        self.log = log
        self.signals = LedSignals(layout)
        self.sensors = sensors
        # a person may set moves back by hand; a simulated hand never does
        self.recognizer = Recognizer(board.copy(), layout=layout, takebacks=hand is None, sides=sides)
        self.hand = hand
        self.brain = brain
        self.world = world
        self.scan_s = scan_s
        self.give_up_s = give_up_s
        self.hand_answers = hand_answers
        self._clock = clock
        self._started = clock()
        self.t = 0.0
        self.events: list[object] = []
        #: Plies the player set back on the board (when :meth:`choose` answered a takeback).
        self.took_back = 0
        #: Both players are at this board (a takeback of one ply hands the move to the other person).
        self.both_sides = False
        #: Whether the player's time is up (the session sets it when a clock runs).
        self.expired: Callable[[], bool] = lambda: False
        #: Answers to a question, from the page, the terminal or buttons: the move the player made.
        self.answers: queue.Queue[chess.Move] = queue.Queue()
        #: Told of every question (an :class:`Ambiguous`) and of its end (None).
        self.on_question: Callable[[Ambiguous | None], None] = lambda question: None
        #: Told when an answer is not one of the moves asked about.
        self.on_notice: Callable[[str], None] = lambda message: None
        #: Told when the still board fits no legal move: why, and what to put back (for the terminal, the
        #: web page, the buzzer and the speaker; the LEDs show it under the squares).
        self.on_illegal: Callable[[str], None] = lambda message: None
        #: The buttons that answer the board's prompts, if any (the session sets them).
        self.prompter: Prompter | None = None
        #: The promotion whose piece the player is asked for (the position and the move as the sensors
        #: guess it), while it is asked.
        self.promoting: tuple[chess.Board, chess.Move] | None = None
        #: The piece chosen for it (``q``, ``r``, ``b``, ``n``), from the buttons.
        self.promotions: queue.Queue[str] = queue.Queue()
        self._chosen: str | None = None
        """The promotion piece the buttons chose last."""
        self._played: chess.Move | None = None
        """The move a simulated hand made last (it knows what it did when asked)."""
        self._answered_t: float | None = None
        #: Told of every scan's occupied cells (an e-board reports a lifted piece as it is lifted).
        self.on_scan: Callable[[frozenset[Cell]], None] | None = None
        self._logged_scan()  # the log starts from the position the player sits down to

    @property
    def sides(self) -> frozenset[chess.Color]:
        """The colours whose moves are made at this board (the recognizer explains no other)."""
        return self.recognizer.sides

    @sides.setter
    def sides(self, colours: frozenset[chess.Color]) -> None:
        self.recognizer.sides = colours

    @property
    def real_time(self) -> bool:
        """Scans follow the wall clock: a real person, or a simulated one whose question (or promotion)
        waits for an answer from outside (the page, the buttons)."""
        asked = self.recognizer.is_asking or self.promoting is not None
        return self.hand is None or (asked and not self.hand_answers)

    def apply(self, move: chess.Move) -> None:
        """The robot (or a typed move) changed the board: the next scan is the new baseline."""
        self.recognizer.apply(move)
        if self.log is not None:
            self.log.write(entry_line(KnownMove(round(self.t, 4), move)) + "\n")
        if move.promotion is not None:
            # the log alone must replay: say which piece the coming promotion brings
            self._log_promotion(chess.piece_symbol(move.promotion))
        self._light(None)

    def _logged_scan(self) -> frozenset[Cell]:
        cells = frozenset(self.sensors.scan())
        if self.log is not None:
            self.log.write(entry_line(TableSnapshot(round(self.t, 4), cells)) + "\n")
        return cells

    def observe(self, seconds: float) -> None:
        """The robot is at work: record what the sensors see (for the log only; the recognizer learns
        the robot's move from :meth:`apply`)."""
        self.t += seconds
        self._logged_scan()

    def _log_promotion(self, piece: str) -> None:
        if self.log is not None:
            self.log.write(entry_line(PromotionChoice(round(self.t, 4), piece)) + "\n")

    def _light(self, event: object) -> None:
        """Guidance under the squares: legal destinations of a lifted piece, red for an illegal
        action, violet for check, the candidates of a question blinking."""
        if self.leds is None:
            return
        board = self.recognizer.board
        check = self.signals.show_check(board) if board.is_check() else {}
        if isinstance(event, PieceLifted):
            self._show(combine(check, self.signals.show_legal_moves(board, event.square)))
        elif isinstance(event, Illegal):
            squares = [*event.guidance.missing, *event.guidance.extra]
            self._show(combine(check, self.signals.show_illegal(squares)))
        elif isinstance(event, Ambiguous):
            self._blink(event, lit=True)
        elif event is None or isinstance(event, Committed | Revised | Resolved | TookBack | NewGame):
            self._show(check)

    def _show(self, colours: Mapping[Cell, RGB]) -> None:
        """Light ``colours``, the buttons' cursor on top while they are asked something."""
        if self.leds is not None:
            self.leds.show(combine(colours, self.prompter.overlay() if self.prompter is not None else {}))

    def _blink(self, question: Ambiguous, *, lit: bool) -> None:
        if self.leds is not None:
            board = self.recognizer.board.copy()
            while len(board.move_stack) > question.ply:
                board.pop()
            self._show(self.signals.show_question(board, question.options, lit=lit))

    def restart(self, board: chess.Board) -> None:
        """The position was set back (a takeback): recognise from ``board`` on."""
        self.recognizer = Recognizer(
            board.copy(), layout=self.layout, takebacks=self.hand is None, sides=self.sides
        )
        self._light(None)

    def _scan(self) -> list[RecognizerEvent]:
        """One scan period on: the sensors read, what the recognizer made of them kept and lit; answers
        to a question passed on."""
        if self.real_time:
            time.sleep(self.scan_s)
            self.t = max(self.t + 1e-4, self._clock() - self._started)
        else:
            self.t += self.scan_s
        cells = self._logged_scan()
        if self.on_scan is not None:
            self.on_scan(cells)
        events = self.recognizer.feed_table(self.t, cells)
        if self.prompter is not None:
            self.prompter.poll(self)
        while not self.promotions.empty():
            piece = self.promotions.get_nowait()
            self._log_promotion(piece)
            events += self.recognizer.choose_promotion(self.t, piece)
            self._chosen = piece
        asked = self.recognizer.question
        while asked is not None and not self.answers.empty():
            answer = self.answers.get_nowait()
            try:
                events += self.recognizer.choose_move(self.t, answer)
            except ValueError as exc:
                self.on_notice(str(exc))
            else:
                if self.log is not None:
                    self.log.write(entry_line(MoveChoice(round(self.t, 4), answer)) + "\n")
            asked = self.recognizer.question
        for event in events:
            self.events.append(event)
            self._light(event)
            if isinstance(event, Illegal):
                self.on_illegal(illegal_message(event, self.recognizer.board))
            if isinstance(event, Ambiguous):
                self.on_question(event)
            elif isinstance(event, Resolved | Committed | Revised) and asked is None:
                self.on_question(None)
        if asked is not None and self.leds is not None:
            self._blink(asked, lit=int(self.t / BLINK_S) % 2 == 0)
        elif self.promoting is not None and self.leds is not None:
            board = self.recognizer.board
            self._show(self.signals.show_check(board) if board.is_check() else {})  # the cursor blinks
        return events

    @property
    def may_go_on(self) -> bool:
        """The person's last move looks unfinished (a slide stopped where its line goes on)."""
        return self.recognizer.may_go_on()

    def ahead(self, board: chess.Board) -> chess.Move | Revision | None:
        """What the sensors have seen beyond ``board`` (the game as the session has it): the next move, a
        revision of its last move, or nothing."""
        mine, theirs = self.recognizer.board.move_stack, board.move_stack
        common = 0
        while common < min(len(mine), len(theirs)) and mine[common] == theirs[common]:
            common += 1
        if common == len(theirs) and len(mine) > common:
            return mine[common]
        if common == len(theirs) - 1 and len(mine) >= common:
            return Revision(theirs[-1], tuple(mine[common:]))
        return None

    def confirm(self, board: chess.Board, hold_s: float) -> Revision | None:
        """Before the robot answers the person's last move on ``board``: scan until that move has stood
        untouched for ``hold_s`` (a paused slide or rook-first castling goes on within that), and
        return a revision of it found meanwhile. The robot waits as long as the board is not settled
        (a piece off its square is shown red until it is put back)."""
        while True:
            outcome = self.ahead(board)
            if isinstance(outcome, Revision):
                return outcome
            if self.recognizer.settled_for(self.t) >= hold_s:
                return None
            self._scan()

    def carry_out(self, board: chess.Board, move: chess.Move) -> None:
        """A player makes ``move`` (the engine's, on a board without a robot) as the LEDs show it; returns
        once the recognizer has seen exactly that move. A wrong move shows red until it is put right.
        With a simulated hand, the hand makes it."""
        ply = len(board.move_stack)

        def made() -> bool:
            stack = self.recognizer.board.move_stack
            return len(stack) == ply + 1 and stack[-1] == move

        def wrong() -> bool:
            stack = self.recognizer.board.move_stack
            return len(stack) > ply and stack[ply:] != [move]

        def watch(seconds: float) -> None:
            end = self.t + seconds
            while self.t < end:
                self._scan()

        if self.leds is not None:
            self.leds.show(self.signals.show_engine_move(move, board))
        if self.hand is not None and self.world is not None:
            watch(self.recognizer.settle_s + 0.1)
            self._played = move
            step = self.hand.play(board, move, self.t + 0.3)
            perform(self.world, step.actions, realtime=True, sleep=watch)
            if step.promotion_choice is not None:
                self._log_promotion(step.promotion_choice.piece)
                self.recognizer.choose_promotion(self.t, step.promotion_choice.piece)
        deadline = self.t + self.give_up_s
        showing_wrong = False
        while not made():
            if self.hand is not None and self.t > deadline:
                raise HardwareError(
                    # TRANSLATORS: {move}: the move in UCI (e2e4)
                    _("the move {move} was not seen on the board; check the sensors").format(move=move.uci())
                )
            if self.hand is None and self.expired():
                raise KeyboardInterrupt  # stopped while waiting: the game stays journaled
            if self.recognizer.is_asking and self.answers.empty():
                # the board fits the engine's move and another: it is the engine's move
                self.answers.put(move)
            if wrong() != showing_wrong and self.leds is not None:
                showing_wrong = not showing_wrong
                squares = [move.from_square, move.to_square]
                self.leds.show(
                    self.signals.show_illegal(squares)
                    if showing_wrong
                    else self.signals.show_engine_move(move, board)
                )
            if move.promotion is not None and self.recognizer.board.move_stack[ply:] == [
                chess.Move(move.from_square, move.to_square, chess.QUEEN)
            ] != [move]:
                self.recognizer.choose_promotion(self.t, chess.piece_symbol(move.promotion))
            self._scan()
        self._light(None)

    def choose(self, board: chess.Board) -> chess.Move | Command | Revision | None:
        """The move the player makes on the board; :attr:`Command.TAKEBACK` when they set the position
        back instead (:attr:`took_back` says by how many plies); a :class:`Revision` when the last move
        turns out to have been another (both players at the board: the opponent's last move)."""
        found: list[chess.Move | Revision] = []
        self.took_back = 0
        outcome = self.ahead(board)
        if outcome is not None:
            return outcome  # seen already: a quick reply in the same breath, or a revision

        def watch(seconds: float, *, to_the_end: bool = False) -> None:
            """Let ``seconds`` pass, scanning the sensors every scan period (until a move is seen, unless
            ``to_the_end``: a simulated hand finishing what it does)."""
            end = self.t + seconds
            while self.t < end and (to_the_end or (not found and not self.took_back)):
                for event in self._scan():
                    if isinstance(event, Committed | Revised) and (outcome := self.ahead(board)) is not None:
                        found[:] = [outcome]
                    elif isinstance(event, TookBack):
                        plies = len(board.move_stack) - len(self.recognizer.board.move_stack)
                        # against a player off the board, only a takeback that gives this player the
                        # move again is complete (the opponent's move first, then their own)
                        if self.both_sides or plies % 2 == 0:
                            self.took_back = plies

        # the board as it stands before anyone touches it, still long enough that the log alone shows the
        # robot's last move as a move (a person does not start the instant the robot stops, either)
        watch(self.recognizer.settle_s + 0.1)
        if self.hand is not None and self.brain is not None and self.world is not None and not found:
            self._played = self.brain.best_move(board)
            step = self.hand.play(board, self._played, self.t + 0.3)
            # the hand moves in simulated time; the sensors are read while it does, to its last action
            perform(self.world, step.actions, realtime=True, sleep=lambda s: watch(s, to_the_end=True))
            if step.promotion_choice is not None and (self.hand_answers or self.prompter is None):
                # the player answers the promotion prompt (the sensors cannot tell a knight from a queen)
                self._log_promotion(step.promotion_choice.piece)
                for event in self.recognizer.choose_promotion(self.t, step.promotion_choice.piece):
                    self.events.append(event)
                    if isinstance(event, Committed | Revised) and (outcome := self.ahead(board)) is not None:
                        found[:] = [outcome]
        deadline = self.t + self.give_up_s
        while not found and not self.took_back and (self.t < deadline or self.hand is None):
            if self.hand is None and self.expired():
                return None  # the flag fell while the player thought
            if self.recognizer.is_asking:
                if self.hand is not None and self.hand_answers:
                    self._answer_by_hand()
                deadline = self.t + self.give_up_s  # waiting for an answer is no silence of the sensors
            watch(self.scan_s)
        if found:
            return self._promotion_piece(board, found[0])
        if self.took_back > 0:
            return Command.TAKEBACK
        raise HardwareError(_("no move was recognised on the board; check the sensors (chessatron hw test)"))

    def _promotion_piece(self, board: chess.Board, outcome: chess.Move | Revision) -> chess.Move | Revision:
        """A pawn the person moved to the last rank: with buttons, the move counts once its piece is
        chosen with them (the cursor starts on the piece the sensors guess, the queen unless a reserve
        slot told another). A simulated person that answers its own prompts has chosen already."""
        if (
            not isinstance(outcome, chess.Move)
            or outcome.promotion is None
            or self.prompter is None
            or (self.hand is not None and self.hand_answers)
        ):
            return outcome
        self.promoting = (board.copy(), outcome)
        self._chosen = None
        try:
            while self._chosen is None:
                if self.expired():
                    return outcome  # stopped while asked: the piece the sensors guess
                self._scan()
                now = self.ahead(board)
                if isinstance(now, Revision) or (isinstance(now, chess.Move) and now.promotion is None):
                    return now  # the person did something else meanwhile
                if now is not None and now != self.promoting[1]:  # (None: the piece is held a moment)
                    self.promoting = (board.copy(), now)
            now = self.ahead(board)
            if now is not None:
                return now
            piece = chess.Piece.from_symbol(self._chosen).piece_type
            return chess.Move(outcome.from_square, outcome.to_square, piece)
        finally:
            self.promoting = None
            self._light(None)

    def _answer_by_hand(self) -> None:
        """The simulated person answers the question: a capture by lifting the capturing piece and setting
        it down again (its square seen emptied and filled again tells), anything else at the prompt."""
        question, move = self.recognizer.question, self._played
        if question is None or move is None or self.world is None or move not in question.options:
            return
        if self._answered_t is not None and self.t < self._answered_t + 3.0:
            return  # answered a moment ago: let the board settle first
        self._answered_t = self.t
        board = self.recognizer.board.copy()
        while len(board.move_stack) > question.ply:
            board.pop()
        if not board.is_capture(move) or board.is_castling(move):
            self.answers.put(move)
            return
        cell = self.layout.square_cell(move.to_square)
        symbol = board.piece_at(move.from_square)
        assert symbol is not None
        start = self.t + 1.0
        actions = [
            HandAction(round(start, 3), "lift", cell, symbol.symbol(), "answer: lifts the capturing piece"),
            HandAction(
                round(start + 0.4, 3), "place", cell, symbol.symbol(), "answer: and sets it down again"
            ),
        ]

        def watch(seconds: float) -> None:
            end = self.t + seconds
            while self.t < end:
                self._scan()

        perform(self.world, actions, realtime=True, sleep=watch)


def illegal_message(event: Illegal, board: chess.Board) -> str:
    """What a person is told when the board shows no legal move: why, and how to put it right.

    >>> from chessatron.recognition.guidance import guidance
    >>> board = chess.Board()
    >>> occupied = board.occupied & ~chess.BB_E2 | chess.BB_E5
    >>> illegal_message(Illegal(0.0, "that is not a legal move", guidance(board.occupied, occupied)), board)
    'that is not a legal move: put the pawn from e5 back on e2'
    """
    steps = event.guidance.instructions(board)
    if not steps:
        return event.reason
    # TRANSLATORS: {reason}: why the board shows no legal move; {steps}: what to do, separated by ";"
    return _("{reason}: {steps}").format(reason=event.reason, steps="; ".join(steps))
