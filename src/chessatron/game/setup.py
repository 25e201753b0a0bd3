"""A session's games begin: a new game checked and journaled with the table set up for it, or a saved
one resumed, the physical table rebuilt from its journal and the pieces put back where it stopped.

Set-ups go straight: from wherever the table stands (another game's end, a set-up that was stopped, a
crash that lost the simulator's table) one plan reaches the game's start
(:meth:`~chessatron.planning.reset.ResetPlanner.resume`), never the position a stopped set-up had
reached first.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import chess
import chess.engine

from ..errors import CannotResumeError, ChessatronError, ConfigError
from ..i18n import _
from ..planning.table import Table
from .players.spec import PlayerSpec, recorded
from .records.journal import GameMetadata, Journal, JournalState, read_journal
from .records.record import ClockSettings, Player
from .seats import Seats
from .statuses import PUTTING_BACK, SETTING_UP
from .tablecheck import checked_table
from .tablework import (
    _robot_entries,
    decode_relocation,
    decode_table,
    encode_table,
    hand_operations,
)

LOGGER = logging.getLogger(__name__)


def _made_by_hand(who: str) -> bool:
    try:
        return PlayerSpec.parse(who).moves_pieces
    except ConfigError:
        return False


class GameSetup(Seats):
    """New games and resumed ones (see the module docs)."""

    def new_game(
        self,
        white: PlayerSpec,
        black: PlayerSpec,
        start: chess.Board,
        clock: ClockSettings | None = None,
        *,
        players: tuple[Player, Player] | None = None,
        site: str = "",
        online: Mapping[str, Any] | None = None,
    ) -> Journal:
        """Journal a new game (with a chess clock of ``clock`` if given) and set the table up for it.

        ``players`` names them in the record (default: as their specs say), ``site`` is where the game is
        played, ``online`` what an online game's journal keeps about it on its server.

        The players are checked first (:meth:`check_players`), the sensors and LEDs a person at the board
        needs opened, and their engines started before anything moves: a game whose players cannot play
        leaves no journal behind."""
        engines = self.check_players(white, black)
        self._open_board_devices(white, black)
        # the table before the set-up: a set-up cut short resumes from it
        config: dict[str, Any] = {"white": white.spec, "black": black.spec, "table": encode_table(self.table)}
        if online is not None:
            config["online"] = dict(online)
        # the person here by their name ([player] name), unless the caller names everyone
        named = players or recorded(white, black, self.config.player.name)
        metadata = GameMetadata(
            white=named[0],
            black=named[1],
            start_fen=start.fen(),
            chess960=start.chess960,
            clock=clock,
            site=site,
            config=config,
        )
        journal = Journal.create(self.games_dir, metadata)
        try:
            self._start_engines(engines)
        except ChessatronError:
            try:
                journal.discard()  # the game never began: nothing for `play --resume` to pick up
            except ChessatronError as exc:  # the players' error is the one to tell
                LOGGER.warning("%s", exc)
            raise
        except BaseException:
            journal.close()  # stopped while the players started: the game can be resumed
            raise
        self._journal = journal
        shown = (white.spec, black.spec) if players is None else (metadata.white.name, metadata.black.name)
        names = (metadata.white.name, metadata.black.name)
        self.live.show_board(start, game_id=metadata.game_id, players=shown, names=names)
        self.live.update(status=_(SETTING_UP), hint=None, evaluation=None, notices=[])
        self.emit({"event": "game", "id": metadata.game_id, "fen": start.fen(), "chess960": start.chess960})
        try:
            self.set_up(start, "SETUP", journal)
        except BaseException:
            journal.close()  # unlocked: `play --resume` can take the game up
            raise
        return journal

    def resume(
        self, path: Path, *, players: Mapping[chess.Color, PlayerSpec] | None = None
    ) -> tuple[Journal, PlayerSpec, PlayerSpec]:
        """Rebuild the table from the journal (set-up arrangement, then every move's plan) and finish a
        robot move that was cut short. ``players`` hands a side to another player from now on (``play
        --resume --white engine:3``): checked first, then journaled and told."""
        state = read_journal(path)
        if state.is_finished:
            raise ChessatronError(
                _("the game in {path!r} is finished; start a new one").format(path=str(path))
            )
        online = state.metadata.config.get("online")
        if isinstance(online, dict) and self.referee is None:
            raise ChessatronError(
                _(
                    "game {game_id!r} is an online game on {url!r}; continue it with "
                    "`chessatron online --game {game}`"
                ).format(game_id=state.metadata.game_id, url=online.get("url"), game=online.get("game"))
            )
        config = state.metadata.config
        journaled = {colour: str(config.get(chess.COLOR_NAMES[colour], "engine")) for colour in chess.COLORS}
        changed = {colour: spec for colour, spec in (players or {}).items() if spec.spec != journaled[colour]}
        # (a side handed over is not parsed as journaled: a player that no longer parses is replaced so)
        white = changed.get(chess.WHITE) or PlayerSpec.parse(journaled[chess.WHITE])
        black = changed.get(chess.BLACK) or PlayerSpec.parse(journaled[chess.BLACK])
        self.start_players(white, black)
        if any(spec.moves_pieces for spec in changed.values()):
            self._open_board_devices(white, black)  # before the change is journaled
        repaired = self._rebuild_table(state, path)
        # a table before the set-up repaired from the robot's work goes into the journal's start line (the
        # file as it was kept beside it), so that the next resume reads it as it stands
        before_setup = {"table": encode_table(repaired)} if repaired is not None else None
        journal = Journal.open(path, start_config=before_setup)
        self._journal = journal
        try:
            now = recorded(white, black, self.config.player.name)
            for colour, spec in changed.items():
                journal.change_player(colour, now[0 if colour == chess.WHITE else 1], spec.spec)
        except BaseException:
            journal.close()
            raise
        metadata = journal.state.metadata
        self.live.show_board(
            journal.board(),
            game_id=state.metadata.game_id,
            players=(white.spec, black.spec),
            names=(metadata.white.name, metadata.black.name),
        )
        self.emit({"event": "resumed", "id": state.metadata.game_id, "plies": len(state.moves)})
        for colour, spec in changed.items():
            if colour == chess.WHITE:
                # TRANSLATORS: {player} and {was} are players as the command line names them (engine:3, web)
                handed = _("White is played by {player} from now on (was {was})")
            else:
                # TRANSLATORS: {player} and {was} are players as the command line names them (engine:3, web)
                handed = _("Black is played by {player} from now on (was {was})")
            message = handed.format(player=spec.spec, was=journaled[colour])
            self.emit({"event": "notice", "message": message})
        return journal, white, black

    def resume_at_table(
        self, path: Path, *, players: Mapping[chess.Color, PlayerSpec] | None = None
    ) -> tuple[Journal, PlayerSpec, PlayerSpec]:
        """Connect the machine and :meth:`resume` the game at ``path`` on it. On the simulator the table
        stands as it was last left (another game may have been played on it since): the robot puts its
        pieces back where the game stopped (:meth:`put_back`); a real machine is connected after the
        resume, its table rebuilt from the journal."""
        if not self.config.is_simulated:
            resumed = self.resume(path, players=players)
            self.connect()
            return resumed
        self.connect()
        standing = self.table
        journal, white, black = self.resume(path, players=players)
        try:
            self.put_back(standing)
        except BaseException:
            journal.close()
            raise
        return journal, white, black

    def put_back(self, standing: Table) -> None:
        """After :meth:`resume` the model is the table as the game left it; when the pieces stand
        elsewhere (``standing``: the table was set up for something else since, or another game was
        played on it), the robot puts them back there (the reset planner's arrangement). A game whose
        set-up was not finished is set up from ``standing`` when it goes on, in one plan. Needs the
        machine connected before the resume; nothing to do without a robot."""
        wanted = self.table
        if self.robot is None:
            return
        if self._setup_pending is not None:
            if standing.placement() != wanted.placement():
                target, _rest = self._setup_pending
                self._setup_pending = (target, [])  # the drags it had left start from elsewhere
                self.table = self.robot.table = standing
                self.live.show_table(standing, ())
            return
        plan = self.resetter.plan_arrangement(standing, wanted, self.gantry)
        if not plan.relocations:  # every piece stands where the game left it
            return
        self.table = self.robot.table = standing
        self.live.update(status=_(PUTTING_BACK))
        self.run_plan(plan, "RESUME", None)
        self.table = self.robot.table = wanted
        self.live.show_table(wanted, ())

    def _rebuild_table(self, state: JournalState, path: Path) -> Table | None:
        """The physical table as the journal says the robot left it: the table before the set-up, then all
        journaled robot work in order (the set-up, moves, tidying, takebacks), only the finished part of
        the last one; work journaled with the table it started from begins there (earlier work it left
        unfinished was given up). A game with no move yet has its set-up finished when it goes on
        (:meth:`_finish_setup`).

        The table before the set-up is checked against the robot's work first (:mod:`.tablecheck`): where
        a damaged start line says otherwise than the drags after it, the drags win; what was repaired is
        said (a warning) and that table returned (None: nothing was). A journal that cannot be rebuilt
        raises :class:`CannotResumeError` naming the file and the way on."""
        try:
            return self._rebuild(state, path)
        except ChessatronError as exc:
            game_id = state.metadata.game_id
            raise CannotResumeError(
                _(
                    "game {game_id} cannot be resumed: its journal {path!r} does not rebuild the table "
                    "({reason}); 'chessatron games --abandon {game_id}' sets it aside, 'chessatron play' "
                    "starts a new game"
                ).format(game_id=game_id, path=str(path), reason=exc)
            ) from exc

    def _rebuild(self, state: JournalState, path: Path) -> Table | None:
        start = chess.Board(state.metadata.start_fen, chess960=state.metadata.chess960)
        work = _robot_entries(state)
        before_setup = state.metadata.config.get("table")
        repaired: Table | None = None
        if before_setup is not None:
            # the set-up's drags start from it; checked against the drags journaled before any table of
            # their own (a set-up taken up again from the table as it stands); all of them, and a move
            # made (the set-up was done), also tell what the start's squares held
            checked = next((n for n, w in enumerate(state.robot_work) if w.table is not None), len(work))
            plies = [(ply, operations) for ply, operations, _done in work[:checked]]
            whole = checked == len(work) and state.moved
            table, repairs = checked_table(before_setup, self.layout, plies, start, whole=whole)
            if repairs:
                repaired = table.copy()
                message = _("the table before the set-up in {name!r} was damaged and is repaired: {repairs}")
                self.emit(
                    {
                        "event": "warning",
                        "message": message.format(name=path.name, repairs="; ".join(repairs)),
                    }
                )
        else:
            # (a journal that does not say: the set-up ended in the arrangement the table starts from)
            table = Table.from_board(self.layout, start)
            if work and work[0][0] == 0:
                work = work[1:]
        self._pending = None
        self._setup_pending = None
        self._unjournaled = []
        self._hand_done_unjournaled = []
        snapshots = [progress.table for progress in state.robot_work[len(state.robot_work) - len(work) :]]
        for number, (ply, operations, done) in enumerate(work):
            if snapshots[number] is not None:
                table = decode_table(list(snapshots[number] or ()), self.layout)
            scratch = table.copy()
            decoded = []
            for index, text in enumerate(operations):
                relocation = decode_relocation(text, scratch)
                scratch.relocate(relocation.piece.id, relocation.goal)
                decoded.append((index, relocation))
            if decoded and all(relocation.purpose == "hand" for _index, relocation in decoded):
                # people moved them all; only the writing stopped (journaled as done when the game goes on)
                if number == len(work) - 1:
                    self._hand_done_unjournaled = [
                        index for index, _relocation in decoded if index not in done
                    ]
                done = {index for index, _relocation in decoded}
            for index, relocation in decoded:
                if index in done:
                    table.relocate(relocation.piece.id, relocation.goal)
            if len(done) < len(decoded):
                if number != len(work) - 1:
                    if snapshots[number + 1] is not None:
                        continue  # given up: the next work starts from a table of its own
                    raise ChessatronError(
                        _(
                            "the journal's robot work for ply {ply} is incomplete; it cannot be resumed"
                        ).format(ply=ply)
                    )
                remaining = [(i, r) for i, r in decoded if i not in done]
                if state.moves:
                    self._pending = (state.moves[-1].move, remaining, False)
                else:
                    self._setup_pending = (start, remaining)
        planned_through = work[-1][0] if work else 0
        if state.moves and planned_through < len(state.moves) and self._pending is None:
            if _made_by_hand(state.moves[-1].who):
                # a person had made it (the process stopped before its pieces were journaled): the model
                # follows the move; the sensors check the table when the game goes on
                before = chess.Board(state.metadata.start_fen, chess960=state.metadata.chess960)
                for entry in state.moves[:-1]:
                    before.push(entry.move)
                placement = table.placement()
                self.planner.plan_move(table, before, state.moves[-1].move, at=self.gantry).apply(table)
                self._unjournaled = hand_operations(self.layout, placement, table)
            else:
                self._pending = (state.moves[-1].move, [], True)  # journaled, the robot had not begun
        if not state.moves and self._setup_pending is None:
            self._setup_pending = (start, [])  # finished, or never begun: the table is looked at again
        self.table = table
        if self.robot is not None:  # connected before the resume (a runner's session): it moves this one
            self.robot.table = table
        return repaired

    def _finish_setup(self, journal: Journal) -> None:
        """Finish the set-up of a game with no move yet from the table as it stands: the drags it had left
        when they still fit and are no slower, else one plan made afresh (journaled with the table it
        starts from); nothing when the table is set up already. Without a robot a set-up cut short is
        arranged by hand again (the LEDs show it)."""
        if self._setup_pending is None:
            return
        target, rest = self._setup_pending
        self._setup_pending = None
        if not self.has_robot:
            if rest:
                before = self.table.placement()
                self._arrange_by_hand(target, "resume")
                self._journal_by_hand(journal, before)
            return
        relocations = [relocation for _index, relocation in rest]
        plan = self.resetter.resume(self.table, target, relocations, at=self.gantry)
        if not plan.relocations:
            return
        self._say(_(SETTING_UP), robot=True)
        self.emit({"event": "setup", "relocations": len(plan.relocations)})
        if relocations and list(plan.relocations) == relocations:
            self.run_plan(plan, "SETUP (resumed)", journal, indices=[index for index, _relocation in rest])
        else:
            self.run_plan(plan, "SETUP (resumed)", journal, from_table=self.table)
