"""Puzzles played on the table: the robot sets each one up and makes the opponent's moves, the person
solves it at the board, by keyboard, on the web page, with the buttons or by voice.

:class:`PuzzleTable` works on a connected :class:`~chessatron.game.session.Session` (the machine, the
sensors and LEDs, the players the session makes) without journaling a game: a puzzle is no game to
resume. For each puzzle:

1. the robot sets the position up from wherever the pieces stand (the reset planner, as ``chessatron
   setup`` does; without a robot the LEDs show the squares to fill and to clear);
2. it makes the opponent's move that sets the puzzle (without a robot: the LEDs show it, the person makes
   it);
3. the person moves. The solution's move (or any move that mates at once) is answered with the line's
   next move; a wrong one is shown red on the LEDs, said, and put back by the robot when it was made on
   the board (on a table without a robot the LEDs show the person where the pieces go back). A wrong
   move typed, clicked, said or chosen with the buttons is never carried out: the LEDs show its squares
   red. After :data:`MAX_WRONG` wrong moves, or when the person gives up, the robot plays the solution
   out;
4. hints: the first shows the piece to move, the second its square (LEDs, words).

The attempt is saved with its time (from the puzzle ready on the board to solved or failed), its wrong
moves and hints, and the person's rating after it (:mod:`.rating`). Solved means without a wrong move
and without a hint, as the rating counts it.

The session's players are made by its own layers (``Session._mover``, its board movers, its set-up and
hand helpers): a puzzle's player is the very player a game would have, so everything a person at the
board meets in a game (the recognizer, the LEDs, questions, the reply hold) they meet here too.
"""

# One module on purpose (about 600 lines): a puzzle's steps (the set-up, the opponent's move, the person's,
# a wrong move put back, hints, the solution played out) share its board and the person's mover, and the
# web page's requests reach it at any step; the puzzles, their store and the ratings are apart.

from __future__ import annotations

import datetime as dt
import logging
import queue
import random
import re
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, cast

import chess

from ..errors import ConfigError
from ..feedback.signals import LedSignals
from ..game.commands import QuitRequested
from ..game.engine.player import EnginePlayer
from ..game.players.base import Command, Mover, NewGameRequested, Revision
from ..game.players.board import BoardMover
from ..game.players.buttons import ButtonMover
from ..game.players.keyboard import KeyboardMover
from ..game.players.spec import PlayerSpec
from ..game.players.web import InboxMover
from ..game.seats import reply_hold_s
from ..game.session import Session
from ..game.statuses import IDLE, ROBOT_MOVING
from ..i18n import _
from ..i18n.notation import san_in
from ..voice.player import VoiceMover
from . import telling
from .choice import Choice, UpNext
from .puzzle import Puzzle
from .rating import Rating
from .store import NO_FILTERS, Attempt, Filters, PuzzleStore, is_person

LOGGER = logging.getLogger(__name__)

#: Wrong moves after which the robot shows the solution.
MAX_WRONG: Final = 3
#: How long a wrong move stays red on the LEDs before the pieces go back (seconds of wall time; the
#: simulated hand does not wait).
RED_S: Final = 1.0
#: The players a puzzle can have.
PUZZLE_PLAYERS: Final = ("board", "hand", "keyboard", "web", "buttons", "voice")

Request = Literal["hint", "give up", "skip", "stop"]

#: How a puzzle ended: solved (no wrong move, no hint), solved with help (counted as failed), failed (the
#: solution played out), skipped (counted as failed; its solution told, not played).
Ending = Literal["solved", "with help", "failed", "skipped"]


class Brain(Protocol):
    """What a simulated person (a ``hand`` player) plays: its engine, or in a test a person who errs."""

    def best_move(self, board: chess.Board) -> chess.Move: ...


@dataclass(frozen=True)
class Outcome:
    """How a puzzle went: the attempt saved, the rating before it, and how it ended (by default as the
    attempt says: solved or failed)."""

    puzzle: Puzzle
    attempt: Attempt
    before: Rating
    ending: Ending | None = None

    @property
    def how(self) -> Ending:
        if self.ending is not None:
            return self.ending
        return "solved" if self.attempt.solved else "failed"

    def line(self) -> str:
        """``puzzle 00sHx (1320): solved in 14.2 s, rating 1500 -> 1580`` (in the current language)."""
        attempt = self.attempt
        how = "solved" if attempt.solved else "skipped" if self.how == "skipped" else "failed"
        return telling.outcome_text(
            self.puzzle.puzzle_id,
            self.puzzle.rating,
            how,
            attempt.seconds,
            (attempt.wrong, attempt.hints),
            (self.before, attempt.rating),
            None if is_person(attempt.player) else attempt.player,
        )


class PuzzleTable:
    """Puzzles from ``store`` on ``session`` (connected) for a person playing as ``player`` (see the
    module docs). ``rating``: puzzles near this rating instead of the person's; ``filters``: a theme, an
    opening. Requests from elsewhere (the web page, a terminal beside a board player) go through
    :meth:`request`. ``brain``: what a simulated person chooses (default: the engine of its level)."""

    def __init__(
        self,
        session: Session,
        store: PuzzleStore,
        player: PlayerSpec,
        *,
        filters: Filters = NO_FILTERS,
        rating: float | None = None,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
        brain: Brain | None = None,
    ) -> None:
        if player.kind not in PUZZLE_PLAYERS:
            raise ConfigError(
                _("a {player!r} player cannot solve puzzles; use one of {players}").format(
                    player=player.spec, players=", ".join(PUZZLE_PLAYERS)
                )
            )
        self.session = session
        self.store = store
        self.player = player
        self.filters = filters
        self.target = rating
        self.rng = rng or random.Random()
        self._clock = clock
        self._now = now
        self.requests: queue.Queue[Request] = queue.Queue()
        self.outcomes: list[Outcome] = []
        #: Told of every puzzle's outcome as it ends (the command prints it).
        self.on_outcome: Callable[[Outcome], None] = lambda outcome: None
        self._signals = LedSignals(session.layout)
        self._brain = brain
        #: The next puzzle, chosen while the person solves the current one.
        self.up_next = UpNext(store, session.layout, filters)
        self._ready: Choice | None = None

    def request(self, what: Request) -> None:
        """Ask from another thread: a ``hint``, to ``give up`` (the robot shows the solution), to ``skip``
        (on to the next puzzle, counted as failed), to ``stop``."""
        self.requests.put(what)
        if what == "stop":
            self.session.stop_requested.set()

    # --- a run of puzzles ----------------------------------------------------------------------------

    def check(self) -> None:
        """Whether the player can play here (a hand needs the simulator...), before anything moves."""
        self.session.check_players(self.player, PlayerSpec("keyboard"))
        if self.player.moves_pieces:
            self.session._open_board_devices(self.player, PlayerSpec("keyboard"))

    def play(self, count: int | None = None) -> list[Outcome]:
        """Play ``count`` puzzles (None: until stopped), each chosen near the person's rating. Stops
        early on ``quit`` (:class:`~chessatron.game.commands.QuitRequested`), Ctrl-C or :meth:`request`
        ``stop``; the puzzles finished are saved either way."""
        self.check()
        played = 0
        try:
            while count is None or played < count:
                puzzle = self.next_puzzle()
                self.play_puzzle(puzzle, number=played + 1, of=count)
                played += 1
        except (QuitRequested, NewGameRequested):
            pass
        finally:
            self.session.live.update(status=_(IDLE), prompt=None)
        return self.outcomes

    def next_puzzle(self) -> Puzzle:
        """The next puzzle: near the rating, not tried before (while others are left), one the table has
        the pieces for, and of those the one cheapest to set up from where the pieces stand
        (:mod:`.choice`): chosen while the last puzzle was being solved, when it could be."""
        target = self.target if self.target is not None else self.store.rating(self.player.kind).rating
        choice = self.up_next.take(target)
        if choice is None:
            done = [outcome.puzzle.puzzle_id for outcome in self.outcomes]
            session = self.session
            choice = self.up_next.choose(
                session.table, target, at=session.gantry, rng=self.rng, avoid=done, plan=session.has_robot
            )
        self._ready = choice
        return choice.puzzle

    # --- one puzzle --------------------------------------------------------------------------------

    def play_puzzle(self, puzzle: Puzzle, *, number: int = 1, of: int | None = None) -> Outcome:
        """Set ``puzzle`` up, play it through with the person, save the attempt."""
        session = self.session
        line = puzzle.line()
        board = puzzle.start_board()
        colour = puzzle.colour
        before = self.store.rating(self.player.kind)  # a simulated player's own: never the person's
        self._drain()
        about = _about(puzzle, number, of, before)
        self._show(about, "setting up", board)
        session.emit(
            {
                "event": "puzzle",
                "id": puzzle.puzzle_id,
                "rating": puzzle.rating,
                "state": "setting up",
                "number": number,
                "of": of,
                "themes": list(puzzle.themes),
                "colour": chess.COLOR_NAMES[colour],
            }
        )
        with ExitStack() as stack:
            stack.callback(session._forget_players)
            session._specs = {colour: self.player, not colour: PlayerSpec("keyboard")}
            self._set_up(board)
            mover = session._mover(self.player, colour, stack, board)
            if self._brain is not None and isinstance(mover, BoardMover) and mover.hand is not None:
                mover.brain = cast(EnginePlayer, self._brain)  # (the mover only asks it for moves)
            self._configure(mover)
            self._tell_move(board, line[0])
            self._opponent(board, line[0], mover, stack)
            board.push(line[0])
            ready = self._clock()
            if of is None or number < of:
                done = [outcome.puzzle.puzzle_id for outcome in self.outcomes]
                self.up_next.prepare(
                    puzzle,
                    board,
                    session.table,
                    session.gantry,
                    before,
                    self.target,
                    self.rng,
                    done,
                    plan=session.has_robot,
                )
            session.emit(
                {
                    "event": "notice",
                    "message": telling.start_notice(puzzle.puzzle_id, colour),
                    "puzzle": "start",
                    "colour": chess.COLOR_NAMES[colour],
                }
            )
            state = _Solving()
            self._show(about, "solving", board, state)
            index = 1
            while index < len(line):
                if session.stop_requested.is_set():
                    raise KeyboardInterrupt
                request = self._pending()
                if request == "stop":
                    raise QuitRequested
                if request == "hint":
                    self._hint(puzzle, board, index, state, about)
                    continue
                if request == "skip":
                    self._drain()  # (the prompt's word for it may have asked for the solution too)
                    state.skipped = True
                    self._tell_solution(puzzle, "skipped")
                    break
                if request == "give up" or state.wrong >= MAX_WRONG:
                    self._tell_solution(puzzle, "failed")
                    self._solution(board, line[index:], mover, stack, about, state)
                    break
                session.live.update(status=telling.find_status(colour))
                choice = mover.choose(board)
                if isinstance(choice, Revision):
                    self._put_back(board, mover)  # the last move changed on the board: as it was
                    continue
                if choice is None:
                    continue  # a request came (hint, give up, stop), or the flag of a waiting mover
                if isinstance(choice, Command):
                    self._command(choice)
                    continue
                if isinstance(mover, BoardMover):
                    played = board.copy()
                    played.push(choice)
                    revised = mover.confirm(played, reply_hold_s(played, may_go_on=mover.may_go_on))
                    if revised is not None:
                        if not revised.moves:
                            continue  # withdrawn: the person moves again
                        choice = revised.moves[0]
                verdict = puzzle.verdict(board, index, choice)
                if verdict == "wrong":
                    state.wrong += 1
                    self._wrong(board, choice, mover, state, about)
                    continue
                self._person_moved(board, choice, mover, stack)
                board.push(choice)
                san = _san_before(board)
                right = _("{san} is right").format(san=san_in(san))
                session.emit({"event": "notice", "message": right, "puzzle": "right", "san": san})
                state.hint = None  # (the hint was for this move)
                if verdict == "mate" or index + 1 >= len(line):
                    state.solved_board = True
                    break
                reply = line[index + 1]
                self._tell_move(board, reply)
                self._robot(board, reply, mover, f"PUZZLE {puzzle.puzzle_id} {reply.uci()}")
                board.push(reply)
                index += 2
                self._show(about, "solving", board, state)
            seconds = self._clock() - ready
        solved = state.solved_board and state.wrong == 0 and state.hints == 0
        after = before.after(puzzle.rating, puzzle.rating_deviation, solved=solved)
        attempt = Attempt(
            puzzle.puzzle_id,
            self._now().replace(microsecond=0),
            seconds,
            solved,
            state.wrong,
            state.hints,
            puzzle.rating,
            after,
            self.player.kind,
        )
        self.store.record(attempt)
        if puzzle.source != "lichess" and is_person(self.player.kind):
            # a puzzle mined here has only a guess for a rating: it learns from every attempt, as the
            # person's does (lichess rates its own puzzles so)
            guess = Rating(puzzle.rating, puzzle.rating_deviation)
            self.store.rerate(
                puzzle.puzzle_id, guess.after(before.rating, before.deviation, solved=not solved)
            )
        ending: Ending = "solved" if solved else "with help" if state.solved_board else "failed"
        if state.skipped:
            ending = "skipped"
        outcome = Outcome(puzzle, attempt, before, ending)
        self.outcomes.append(outcome)
        session.emit(
            {
                "event": "puzzle",
                "id": puzzle.puzzle_id,
                "state": "solved" if solved else "failed",
                "seconds": round(seconds, 1),
                "rating": round(after.rating),
            }
        )
        session.emit(
            {
                "event": "notice",
                "message": telling.done_notice(
                    ending, after, None if is_person(self.player.kind) else self.player.kind
                ),
                "puzzle": "done",
            }
        )
        ended = {"rating_after": round(after.rating), "gave_up": state.gave_up}
        self._show(about | ended, "solved" if solved else "failed", board, state)
        self.on_outcome(outcome)
        return outcome

    def _configure(self, mover: Mover) -> None:
        """A mover waiting for the person gives up the wait when a request comes (or the game stops)."""

        def asked() -> bool:
            return not self.requests.empty() or self.session.stop_requested.is_set()

        if isinstance(mover, BoardMover | InboxMover | VoiceMover | ButtonMover):
            mover.expired = asked
        elif isinstance(mover, KeyboardMover):
            mover.expired = None  # the prompt itself takes hint, give up (resign) and quit

    # --- the table's work --------------------------------------------------------------------------

    def _set_up(self, board: chess.Board) -> None:
        session = self.session
        if session.has_robot:
            ready, self._ready = self._ready, None
            if (
                ready is not None
                and ready.plan is not None
                and ready.puzzle.start_board().board_fen() == board.board_fen()
                and ready.fits(session.table)
            ):
                plan = ready.plan  # planned while the last puzzle was solved, from this very table
            else:
                plan = session.resetter.plan(session.table, board, at=session.gantry)
            session.live.update(status=_("setting the puzzle up"))
            session.run_plan(plan, "PUZZLE SETUP", None)
        else:
            session._arrange_by_hand(board, "set up the puzzle")  # (a code: the game's telling words it)
        session.table.check_matches(board)
        session.live.show_table(session.table, ())

    def _opponent(self, board: chess.Board, move: chess.Move, mover: Mover, stack: ExitStack) -> None:
        session = self.session
        if session.has_robot:
            self._robot(board, move, mover, f"PUZZLE {move.uci()}")
        else:
            session._move_by_hand(board, move, stack)

    def _robot(self, board: chess.Board, move: chess.Move, mover: Mover, title: str) -> None:
        """The robot makes ``move`` (an opponent's move, the solution shown); without a robot the LEDs
        show it and the person makes it."""
        session = self.session
        shown = board.copy()
        shown.push(move)
        session.live.show_board(shown)
        if not session.has_robot:
            with ExitStack() as stack:
                session._move_by_hand(board, move, stack)
            return
        plan = session.planner.plan_move(session.table, board, move, at=session.gantry)
        session.live.update(status=_(ROBOT_MOVING))
        session.run_plan(plan, title, None)
        session.table.check_matches(shown)
        if isinstance(mover, BoardMover):
            mover.apply(move)
        session.live.show_table(session.table, ())

    def _person_moved(self, board: chess.Board, move: chess.Move, mover: Mover, stack: ExitStack) -> None:
        """The person's right move on the table: made by them on the board (the model follows), else by
        the robot (or, without one, by them as the LEDs show)."""
        session = self.session
        if isinstance(mover, BoardMover):
            if mover.hand is None:
                session.planner.plan_move(session.table, board, move, at=session.gantry).apply(session.table)
                session._follow_zone_sensors()
            after = board.copy()
            after.push(move)
            session.live.show_board(after)
            session.live.show_table(session.table, ())
            return
        self._robot(board, move, mover, f"PUZZLE {move.uci()}")

    def _wrong(
        self, board: chess.Board, move: chess.Move, mover: Mover, state: _Solving, about: dict[str, Any]
    ) -> None:
        """Not the move: red on the LEDs, said, and the pieces back where they stood."""
        session = self.session
        san = board.san(move)
        tries = max(0, MAX_WRONG - state.wrong)
        # a move typed, clicked, said or chosen with the buttons was never made
        by: telling.PutBack = "none"
        if isinstance(mover, BoardMover):
            by = "robot" if session.has_robot else "hand"
        message = telling.wrong_move(san, tries, by)
        session.emit(
            {"event": "warning", "message": message, "puzzle": "wrong", "san": san, "tries_left": tries}
        )
        self._show(about, "wrong", board, state, wrong_move=move)
        leds = session.led_strip()
        leds.show(self._signals.show_illegal([move.from_square, move.to_square]))
        if isinstance(mover, BoardMover):
            if mover.hand is None:
                time.sleep(RED_S)  # a person sees the red before the robot reaches in
                session.planner.plan_move(session.table, board, move, at=session.gantry).apply(session.table)
                session._follow_zone_sensors()
            self._put_back(board, mover)
        elif not isinstance(mover, KeyboardMover):
            time.sleep(RED_S)  # (typed moves are refused at the prompt at once)
        leds.show({})
        self._show(about, "solving", board, state)

    def _put_back(self, board: chess.Board, mover: Mover) -> None:
        """The pieces back as ``board`` shows (the robot, or the person as the LEDs ask)."""
        session = self.session
        if session.has_robot:
            plan = session.resetter.plan(session.table, board, at=session.gantry)
            if plan.relocations:
                session.live.update(status=_("putting the pieces back"))
                session.run_plan(plan, "PUZZLE PUT BACK", None)
        else:
            session._arrange_by_hand(board, "put it back")  # (a code: the game's telling words it)
        session.table.check_matches(board)
        session.live.show_board(board)
        session.live.show_table(session.table, ())
        if isinstance(mover, BoardMover):
            mover.restart(board)

    def _solution(
        self,
        board: chess.Board,
        rest: list[chess.Move],
        mover: Mover,
        stack: ExitStack,
        about: dict[str, Any],
        state: _Solving,
    ) -> None:
        """The robot plays the rest of the line, the person's moves too (they watch)."""
        state.hint = None  # (its move is played now)
        for move in rest:
            self._robot(board, move, mover, f"SOLUTION {move.uci()}")
            board.push(move)
            self._show(about, "solution", board, state)
        state.gave_up = True

    def _tell_move(self, board: chess.Board, move: chess.Move) -> None:
        """The puzzle's own move (the one that sets it, a reply), as a game's move is told."""
        ply = len(board.move_stack) + 1
        self.session.emit(
            {"event": "move", "ply": ply, "san": board.san(move), "uci": move.uci(), "who": "puzzle"}
        )

    def _tell_solution(self, puzzle: Puzzle, ending: Literal["failed", "skipped"]) -> None:
        """The whole solution, numbered (``failed: the solution is 17... Nf3+ 18. Kh1 Qg1#``)."""
        # (python-chess writes "17...Nf3+"; the move lines, as people do, "17... Nf3+")
        solution = re.sub(r"(\d+)\.\.\.(?=\S)", r"\1... ", puzzle.position().variation_san(puzzle.line()[1:]))
        message = telling.solution_notice(ending, solution)
        self.session.emit({"event": "notice", "message": message, "puzzle": "solution", "ending": ending})

    def _hint(
        self, puzzle: Puzzle, board: chess.Board, index: int, state: _Solving, about: dict[str, Any]
    ) -> None:
        state.hints += 1
        square, words = puzzle.hint(board, index, state.hints)
        colour = self._signals.colours.selected if state.hints <= 1 else self._signals.colours.destination
        self.session.led_strip().show({self._signals.cell(square): colour})
        self.session.emit(
            {"event": "notice", "message": _("hint: {hint}").format(hint=words), "puzzle": "hint"}
        )
        piece, _words = puzzle.hint(board, index, 1)
        marked = (
            [chess.square_name(piece)]
            if state.hints <= 1
            else [chess.square_name(piece), chess.square_name(square)]
        )
        # the terminal marks the piece's square, then its target too; the page draws the second hint as
        # an arrow from the piece ("from"); the LEDs show the latest
        state.hint = {
            "square": chess.square_name(square),
            "from": chess.square_name(piece),
            "text": words,
            "squares": list(dict.fromkeys(marked)),
        }
        self._show(about, "solving", board, state)

    def _command(self, command: Command) -> None:
        """What a person typed, said or chose from the buttons' menu instead of a move."""
        if command == Command.HINT:
            self.requests.put("hint")
        elif command == Command.RESIGN:
            self.requests.put("give up")  # (resign in a puzzle: show me the solution)
        elif command == Command.QUIT:
            raise QuitRequested
        else:
            self.session.emit({"event": "notice", "message": telling.no_such_command(command.value)})

    def _pending(self) -> Request | None:
        try:
            return self.requests.get_nowait()
        except queue.Empty:
            return None

    def _drain(self) -> None:
        while self._pending() is not None:
            pass

    def _show(
        self,
        about: dict[str, Any],
        state_name: str,
        board: chess.Board,
        state: _Solving | None = None,
        *,
        hint: dict[str, str] | None = None,
        wrong_move: chess.Move | None = None,
    ) -> None:
        """The puzzle on the live state: the board (the terminal view, the page) and ``training``."""
        live = self.session.live
        live.show_board(board, game_id=f"puzzle-{about['id']}", players=_players(about["colour"]))
        shown = dict(about)
        if hint is None and state is not None:
            hint = state.hint  # shown until the move it is for is made
        shown.update(
            state=state_name,
            wrong=state.wrong if state else 0,
            hints=state.hints if state else 0,
            hint=hint,
            wrong_move=wrong_move.uci() if wrong_move is not None else None,
            done=[outcome.attempt.to_json() for outcome in self.outcomes[-20:]],
        )
        live.update(training=shown)


@dataclass
class _Solving:
    """How the person is doing with the puzzle under way."""

    wrong: int = 0
    hints: int = 0
    solved_board: bool = False
    """The line reached its end with the person's moves (with help or not)."""
    gave_up: bool = False
    skipped: bool = False
    hint: dict[str, Any] | None = None
    """The hint shown for the move due (``{"square", "text", "squares"}``), None before one is asked."""


def _about(puzzle: Puzzle, number: int, of: int | None, rating: Rating) -> dict[str, Any]:
    return {
        "id": puzzle.puzzle_id,
        "rating": puzzle.rating,
        "themes": list(puzzle.themes),
        "url": puzzle.url,
        "source": puzzle.source,
        "colour": chess.COLOR_NAMES[puzzle.colour],
        "moves": puzzle.person_moves,
        "number": number,
        "of": of,
        "your_rating": round(rating.rating),
        "provisional": rating.is_provisional,
    }


def _players(colour: str) -> tuple[str, str]:
    # TRANSLATORS: the two sides' names while a puzzle is on the table: the person and the puzzle
    you, puzzle = _("you"), _("puzzle")
    return (you, puzzle) if colour == "white" else (puzzle, you)


def _san_before(board: chess.Board) -> str:
    before = board.copy()
    move = before.pop()
    return before.san(move)
