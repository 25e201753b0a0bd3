"""Who plays each side of a session: engines started and shared, movers made from player specs, a person at
the board seen through the sensors (the reply held while they may still correct a move, the board's
questions asked and answered, moves taken back or revised on the board).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import IO, Literal

import chess
import chess.engine

from ..errors import ConfigError, IllegalMoveError
from ..i18n import _
from ..i18n.formats import either
from ..i18n.notation import san_in
from ..planning.planner import castling_squares
from ..recognition import Ambiguous
from ..sim.hand import SimulatedHand
from ..voice.player import Prompt, VoiceMover
from .engine.player import EnginePlayer
from .engine.settings import find_engine, parse_level
from .players.base import Mover, Revision
from .players.board import BoardMover
from .players.buttons import ButtonMover, settings_for
from .players.engine import EngineMover
from .players.keyboard import KeyboardMover
from .players.script import ScriptMover
from .players.spec import PlayerSpec, engine_level
from .players.web import InboxMover
from .records.journal import Journal
from .statuses import make_move_for
from .tablework import TableWork
from .telling.live import colour_name

#: The robot answers a person's move once it has stood untouched this long: a slide paused on a square,
#: or a piece set down on the wrong one, mostly goes on within a second or so. (On the recognition bench's
#: human traces, revisions after the hold: 81 in 10,395 plies at 1 s, 52 at 1.5 s, 29 at 2.5 s; the rest
#: are pauses of seconds mid-move. The engine thinks meanwhile.)
REPLY_HOLD_S = 1.5


#: The same for a piece seen gliding that stopped where its line goes on: people pause on the way.
GLIDE_HOLD_S = 4.0


#: The same for a king or rook move that could be the first half of castling done by hand, one piece at a
#: time: the piece landed on its own castling square and the other may follow. People pause between king
#: and rook, though seldom longer than they hold a piece in mid-move (the recognizer's ``held_s``); with
#: both in hand together the board sees castling itself and no hold is needed.
CASTLING_HOLD_S = 5.0


def reply_hold_s(board: chess.Board, *, may_go_on: bool = False, ordinary_s: float = REPLY_HOLD_S) -> float:
    """How long the person's last move on ``board`` must stand before the robot answers it; ``may_go_on``:
    the sensors saw it glide and stop where it could go on (:meth:`Recognizer.may_go_on`); ``ordinary_s``:
    the hold after any other move.

    >>> board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    >>> board.push(chess.Move.from_uci("h1f1"))  # the rook where O-O puts it: the king may follow
    >>> reply_hold_s(board)
    5.0
    >>> board.pop(); board.push(chess.Move.from_uci("h1g1"))  # no castling ends with the rook on g1
    Move.from_uci('h1f1')
    >>> reply_hold_s(board)
    1.5
    """
    if is_half_castling(board):
        return CASTLING_HOLD_S
    return GLIDE_HOLD_S if may_go_on else ordinary_s


def is_half_castling(board: chess.Board) -> bool:
    """Whether the last move on ``board`` could be the first half of a castling made one piece at a time:
    a king or rook landed on its own square of a castling that was legal before it, the other piece not
    yet where that castling puts it."""
    move = board.peek()
    before = board.copy()
    before.pop()
    piece = before.piece_type_at(move.from_square)
    if piece not in (chess.KING, chess.ROOK) or before.is_castling(move):
        return False
    for castling in before.generate_castling_moves():
        king_from, king_to, rook_from, rook_to = castling_squares(before, castling)
        if piece == chess.KING and (move.from_square, move.to_square) == (king_from, king_to):
            return rook_from != rook_to
        if piece == chess.ROOK and (move.from_square, move.to_square) == (rook_from, rook_to):
            return king_from != king_to
    return False


def option_named(question: Ambiguous, text: str) -> chess.Move:
    """The option of a question the player named, in UCI or SAN: in the language's piece letters first
    (``Sxe6`` in German), then in English's. Raises :class:`~chessatron.errors.IllegalMoveError` naming
    the options for anything else. Typed in lower case (``nxe6``) it names the one option it can only
    mean.

    >>> from chessatron.i18n import using
    >>> moves = (chess.Move.from_uci("a1b3"), chess.Move.from_uci("h1g3"))
    >>> asked = Ambiguous(0.0, (), (), options=moves, option_sans=("Nb3", "Ng3"))
    >>> with using("de"):
    ...     option_named(asked, "Sg3"), option_named(asked, "Nb3"), option_named(asked, "sb3")
    (Move.from_uci('h1g3'), Move.from_uci('a1b3'), Move.from_uci('a1b3'))
    """
    wanted = text.strip()
    options = list(zip(question.options, question.option_sans, strict=True))
    for names in (san_in, str):  # the language's letters, then English's
        for move, san in options:
            if wanted in (move.uci(), names(san), names(san).rstrip("+#")):
                return move
    for names in (san_in, str):
        folded = [
            move
            for move, san in options
            if wanted.lower() in (names(san).lower(), names(san).rstrip("+#").lower())
        ]
        if len(folded) == 1:
            return folded[0]
    answers = either([san_in(san) for san in question.option_sans])
    raise IllegalMoveError(
        _("{text!r} is not one of the moves asked about: answer {moves}").format(text=text, moves=answers)
    )


class Seats(TableWork):
    """The players of a session's games (see the module docs)."""

    #: How long an ordinary move of the person's stands before the robot answers it (a half castling or a
    #: glide that may go on holds longer, :func:`reply_hold_s`). An e-board's app has the move as soon as
    #: it is committed, so waiting there changes nothing it heard: :mod:`chessatron.eboard` holds none.
    ordinary_hold_s: float = REPLY_HOLD_S

    def reply_hold(self, board: chess.Board, person: BoardMover) -> float:
        """The hold before the robot answers ``person``'s last move on ``board`` (:func:`reply_hold_s`)."""
        return reply_hold_s(board, may_go_on=person.may_go_on, ordinary_s=self.ordinary_hold_s)

    def check_players(self, white: PlayerSpec, black: PlayerSpec) -> list[tuple[chess.Color, str]]:
        """Whether the players can play here, without starting anything: a hand or board player has the
        table it needs, a script's game file reads, the engine program is there. Returns the engine levels
        they need, by colour.

        Raises :class:`~chessatron.errors.ConfigError`, :class:`~chessatron.errors.EngineMissingError`.
        """
        sensors = self.config.urls["sensors"]
        wanted: list[tuple[chess.Color, str]] = []
        for colour, spec in ((chess.WHITE, white), (chess.BLACK, black)):
            if spec.kind == "hand" and not sensors.startswith("sim"):
                raise ConfigError(
                    _(
                        "the hand player needs the simulator, but the sensors are {url!r}; use the "
                        "simulator's config or play with --white board"
                    ).format(url=sensors)
                )
            if spec.kind == "app" and self.app_seat is None:
                raise ConfigError(_("an e-board app plays through `chessatron eboard`"))
            if spec.kind == "online" and self.referee is None:
                raise ConfigError(
                    _(
                        "an online opponent plays through its server: start or continue online games with "
                        "`chessatron online`"
                    )
                )
            if spec.kind == "buttons" and self.config.urls["buttons"].startswith("none"):
                raise ConfigError(
                    _(
                        "the buttons player needs buttons, but the [buttons] url is 'none://'; name them in "
                        "the config (buttons://?up=5&down=6&left=13&right=19&select=26&back=21, or "
                        "sim://?script=… on the simulator) or play with --white keyboard"
                    )
                )
            if spec.kind == "voice" and self.config.urls["microphone"].startswith("none"):
                raise ConfigError(
                    _(
                        "the voice player needs a microphone, but the [microphone] url is 'none://'; "
                        'set it in the config, e.g. url = "mic://"'
                    )
                )
            if spec.kind == "board" and sensors.startswith("none"):
                raise ConfigError(
                    _(
                        "a board player needs sensors, but the [sensors] url is {url!r}; set it in the "
                        "config (chessatron config init) or play with --white keyboard"
                    ).format(url=sensors)
                )
            if spec.kind == "board" and sensors.startswith("sim") and self.board_needs_real_sensors:
                raise ConfigError(
                    # TRANSLATORS: {side} is the option's word, white or black (--white, --black)
                    _(
                        "a board player needs a person moving the pieces over real sensors, but the "
                        "sensors are the simulator's ({url!r}), whose pieces nobody moves here; play "
                        "--{side} hand (a simulated person at the board) or keyboard, or set [sensors] url "
                        "in the config (chessatron config init)"
                    ).format(url=sensors, side=colour_name(colour))
                )
            if spec.kind == "script":
                assert spec.path is not None
                ScriptMover(spec.path)  # a missing or broken file is said now, before a game is saved
            level = engine_level(spec)
            if level is not None:
                parse_level(level)
                wanted.append((colour, level))
        if wanted:
            find_engine(self.engine_path)
        self._voice_game = "voice" in (white.kind, black.kind)
        if self._speaker is not None:
            self._speaker.muted = not self.config.speaks(voice_player=self._voice_game)
        return wanted

    def start_players(self, white: PlayerSpec, black: PlayerSpec) -> None:
        """Get the players ready (:meth:`check_players`, then start the engine of an engine player or of a
        simulated hand, so that an engine that does not run or a level it cannot play is said before
        the game goes on). Engines stay running for the next game with the same players.

        Raises :class:`~chessatron.errors.ConfigError` and the engine's errors
        (:class:`~chessatron.errors.EngineMissingError`...).
        """
        self._start_engines(self.check_players(white, black))

    def _start_engines(self, wanted: list[tuple[chess.Color, str]]) -> None:
        """Run the engines ``wanted`` (by colour and level, as :meth:`check_players` says); close others."""
        for key in [key for key in self._engines if key not in wanted]:
            self._engines.pop(key).close()
        for colour, level in wanted:
            self._engine(colour, level)

    def _engine(self, colour: chess.Color, level: str) -> EnginePlayer:
        """The running engine that plays (or moves the hand of) ``colour`` at ``level``."""
        engine = self._engines.get((colour, level))
        if engine is None:
            engine = EnginePlayer(parse_level(level), engine=self.engine_path)
            self._engines[(colour, level)] = engine
        return engine

    def _forget_players(self) -> None:
        """The game is over: its board players (their LEDs and sensor logs close with it) and inboxes go."""
        self._board_movers.clear()
        self.inboxes = {}
        self.voices = {}
        if self._buttons is not None:
            self._buttons.reset()
        if self.live.snapshot().get("question") is not None:
            self.live.update(question=None)

    def _move_by_hand(self, board: chess.Board, move: chess.Move, stack: ExitStack) -> None:
        """No robot: the LEDs show the move (from and to), a player makes it, the sensors confirm it."""
        san = board.san(move)
        self.emit({"event": "your-hands", "uci": move.uci(), "san": san})
        self.live.update(status=make_move_for(board.turn, san))
        carrier = self._carrier(stack, board)
        if carrier is None:
            self.planner.plan_move(self.table, board, move, at=self.gantry).apply(self.table)
            return  # no sensors: nothing to confirm
        if carrier.hand is None:
            # a real person: where the captured piece went the zone sensors tell, once the move is made
            self.planner.plan_move(self.table, board, move, at=self.gantry).apply(self.table)
        carrier.carry_out(board, move)
        if carrier.hand is None:
            self._follow_zone_sensors()

    def _carrier(self, stack: ExitStack, board: chess.Board) -> BoardMover | None:
        """Who carries out moves on a board without a robot: the board's recognizer (with a simulated
        hand on the simulator), None without sensors."""
        if self._board_movers:
            return self._board_movers[0]
        if self._table_sensors() is None:
            return None
        kind: Literal["hand", "board"] = "hand" if self.world is not None else "board"
        return self._board_mover(PlayerSpec(kind), stack, board, board.turn, carrier=True)

    def _mover(self, spec: PlayerSpec, colour: chess.Color, stack: ExitStack, board: chess.Board) -> Mover:
        if spec.kind == "app":
            if self.app_seat is None:
                raise ConfigError(_("an e-board app plays through `chessatron eboard`"))
            return self.app_seat(colour)
        if spec.kind == "online":
            if self.referee is None:
                raise ConfigError(_("an online opponent plays through its server: use `chessatron online`"))
            return self.referee.mover(colour)
        if spec.moves_pieces:
            return self._board_mover(spec, stack, board, colour)
        if spec.kind == "engine":
            return EngineMover(self._engine(colour, spec.spec))
        if spec.kind == "script":
            assert spec.path is not None
            script = ScriptMover(spec.path)
            script.on_notice = lambda message: self.emit({"event": "notice", "message": message})
            return script
        if spec.kind == "web":
            inbox = InboxMover(colour, self.live)
            self.inboxes[colour] = inbox
            return inbox
        if spec.kind == "buttons":
            panel = self.button_panel()
            if panel is None:
                raise ConfigError(_("the buttons player needs buttons: set [buttons] url in the config"))
            opponent = self._specs.get(not colour, PlayerSpec("keyboard"))
            return ButtonMover(panel, colour, settings_for(opponent, board.root()))
        if spec.kind == "voice":
            voice = self._voice_mover(board)
            opponent = self._specs.get(not colour, PlayerSpec("keyboard"))
            voice.settings = settings_for(opponent, board.root())  # the next game's, as the menu's
            self.voices[colour] = voice
            return voice
        return KeyboardMover(self.keyboard)

    def _voice_mover(self, board: chess.Board) -> VoiceMover:
        """A player who speaks their moves into the microphone (on the simulator: a simulated person,
        choosing at random, speaks through espeak-ng)."""
        from ..voice.microphone import SimMicrophone, open_microphone
        from ..voice.recognizer import SpeechRecognizer

        if self._recognizer is None:
            self._recognizer = SpeechRecognizer(wide_voices=self.config.wide_voices)
        if self._microphone is None:
            self._microphone = self._stack.enter_context(open_microphone(self.config.urls["microphone"]))
        mover = VoiceMover(self._microphone, self._recognizer)
        person = None
        if isinstance(self._microphone, SimMicrophone):
            from ..sim.voice import SimulatedVoice

            person = SimulatedVoice(self._microphone, random.Random(len(board.move_stack)))

        def prompt(asked: Prompt) -> None:
            self.emit({"event": "voice", "prompt": asked.kind, "text": asked.text, "heard": asked.heard})
            if person is not None:
                person.heard(asked)

        mover.on_prompt = prompt
        return mover

    def _open_board_devices(self, white: PlayerSpec, black: PlayerSpec) -> None:
        """A person at the board (a board or hand player) needs the table's sensors and LEDs: they are
        opened now (and stay open with the session), so that a missing library or device is said before
        the game is journaled, not after."""
        if not (white.moves_pieces or black.moves_pieces):
            return
        if self._table_sensors() is None:
            raise ConfigError(
                _("a board player needs sensors; [sensors] url is {url!r}").format(
                    url=self.config.urls["sensors"]
                )
            )
        self.led_strip()

    def _board_mover(
        self,
        spec: PlayerSpec,
        stack: ExitStack,
        board: chess.Board,
        colour: chess.Color,
        *,
        carrier: bool = False,
    ) -> BoardMover:

        for mover in self._board_movers:
            mover.sides = frozenset(chess.COLORS)
            return mover  # one table, one recognizer: both sides at the board share it
        url = self.config.urls["sensors"]
        sim = url.startswith("sim")
        if spec.kind == "hand" and (not sim or self.world is None):
            raise ConfigError(_("the hand player needs the simulator (sim:// GRBL and sensors)"))
        world = self.world if sim else None
        sensors = self._table_sensors()
        if sensors is None:
            raise ConfigError(_("a board player needs sensors; [sensors] url is {url!r}").format(url=url))
        hand = brain = None
        if spec.kind == "hand":
            hand = SimulatedHand(
                random.Random(len(board.move_stack)), self.hand_style, table=self.table, table_visible=True
            )
            level = engine_level(spec)
            if not carrier and level is not None:
                brain = self._engine(colour, level)
        leds = self.led_strip()
        log = stack.enter_context(self._sensor_log())
        mover = BoardMover(
            self.layout,
            sensors,
            board,
            hand=hand,
            brain=brain,
            world=world,
            leds=leds,
            log=log,
            hand_answers=self.hand_answers,
            # the robot's moves are told, not seen: the person's hand going on is never its reply; a
            # table without a robot has the players carry out the engine's moves by hand too
            sides=frozenset(chess.COLORS) if carrier or not self.has_robot else frozenset({colour}),
        )
        mover.on_question = self._ask
        mover.on_scan = self.on_occupancy
        mover.on_notice = lambda message: self.emit({"event": "notice", "message": message})
        mover.on_illegal = lambda message: self.emit({"event": "warning", "message": message})
        mover.prompter = self.button_panel()  # buttons beside the board answer its prompts
        self._board_movers.append(mover)
        return mover

    def _ask(self, question: Ambiguous | None) -> None:
        """The board fits several moves: say so wherever the player looks, until it is settled."""
        if question is None:
            if self.live.snapshot().get("question") is not None:
                self.live.update(question=None)
                self.emit({"event": "question", "question": None})
            return
        options = [
            {"uci": move.uci(), "san": san}
            for move, san in zip(question.options, question.option_sans, strict=True)
        ]
        asked = {"text": question.question, "ply": question.ply, "options": options}
        self.live.update(question=asked)
        self.emit({"event": "question", "question": asked})

    @property
    def question(self) -> Ambiguous | None:
        """The question a person at the board is asked, if any."""
        return next((m.recognizer.question for m in self._board_movers if m.recognizer.is_asking), None)

    def answer(self, text: str) -> chess.Move:
        """The player says which move they made (UCI or SAN, e.g. ``Bxf3``), answering the open question.
        Raises :class:`~chessatron.errors.IllegalMoveError` with what to do when there is no question or
        the move is not one of those asked about."""
        for mover in self._board_movers:
            question = mover.recognizer.question
            if question is None:
                continue
            move = option_named(question, text)
            mover.answers.put(move)
            return move
        raise IllegalMoveError(_("no question is open: the board shows a move, or none yet"))

    @contextmanager
    def _sensor_log(self) -> Iterator[IO[str]]:
        """Every game with a board player records its raw snapshots (JSON lines, ``recognize`` replays
        them) beside its journal."""
        self.games_dir.mkdir(parents=True, exist_ok=True)
        name = self._journal_stem or "session"
        with (self.games_dir / f"{name}.sensors.jsonl").open("a", encoding="utf-8") as handle:
            yield handle

    def _adviser(self) -> EnginePlayer:
        """An engine for hints and draw offers: a player's, when one runs (one process less on a Pi; hints
        and evaluations search at full strength whatever its level), else one of its own."""
        for engine in self._engines.values():
            return engine
        if self._hints is None:
            self._hints = self._stack.enter_context(
                EnginePlayer(parse_level("engine"), engine=self.engine_path)
            )
        return self._hints

    def _taken_back_on_board(self, board: chess.Board, journal: Journal, plies: int) -> None:
        """The player set the last ``plies`` back with their own hands: journal it; the pieces stand
        where they stood (captured ones back from the zones, as the sensors show)."""
        if plies > len(board.move_stack):
            return
        target = board.copy()
        for _ply in range(plies):
            target.pop()
        journal.take_back(plies)
        self.emit({"event": "takeback", "plies": plies, "by": "hand"})
        before = self.table.placement()
        self.resetter.plan(self.table, target, at=self.gantry).apply(self.table)
        self._follow_zone_sensors()
        self._journal_by_hand(journal, before)
        self.table.check_matches(target)
        self.live.show_board(target)
        self.live.show_table(self.table, ())

    def _revised_on_board(self, board: chess.Board, journal: Journal, revision: Revision) -> None:
        """The person's last move was another (or none): journal it so, the pieces as the sensors see
        them. The robot has not answered it yet."""
        target = board.copy()
        target.pop()
        journal.take_back(1)
        before = self.table.placement()
        sans = []
        for move in revision.moves:
            who = self._specs[target.turn].spec
            entry = journal.record_move(move, who=who)
            sans.append(entry.san)
            target.push(move)
        self.emit(
            {
                "event": "revised",
                "undone": revision.undone.uci(),
                "uci": [m.uci() for m in revision.moves],
                "san": sans,
            }
        )
        self.resetter.plan(self.table, target, at=self.gantry).apply(self.table)
        self._follow_zone_sensors()
        self._journal_by_hand(journal, before)
        self.table.check_matches(target)
        self.live.show_board(target)
        self.live.show_table(self.table, ())
