"""The game runner: games in a background thread, driven by commands as the web page sends them."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import chess
import pytest

from chessatron.errors import CannotResumeError, ConfigError, GameNotFoundError, IllegalMoveError
from chessatron.game.jobs import BusyError
from chessatron.game.ponder.ponderer import Ponderer
from chessatron.game.records.pgn import from_pgn
from chessatron.game.records.store import list_games, load_game, save_record
from chessatron.game.requests import GameRequest
from chessatron.game.runner import GameRunner, NotYourTurnError

from .conftest import wait_for as wait_live

ENGINE = "engine:20:depth=1"


def wait_for(
    runner: GameRunner, condition: Callable[[dict[str, Any]], bool], timeout_s: float = 60
) -> dict[str, Any]:
    return wait_live(runner.live, condition, timeout_s)


def my_turn(plies: int) -> Callable[[dict[str, Any]], bool]:
    return lambda s: s["prompt"] is not None and len(s["game"]["uci"]) == plies


def test_a_web_player_moves_takes_back_asks_for_a_hint_and_resigns(runner: GameRunner) -> None:
    runner.start_game(GameRequest(white="web", black=ENGINE))
    snapshot = wait_for(runner, my_turn(0))
    assert "e4" in snapshot["prompt"]["legal"]["e2"]
    with pytest.raises(IllegalMoveError, match="e2e5"):
        runner.move("e2e5")
    runner.move("e4")
    snapshot = wait_for(runner, my_turn(2))
    assert snapshot["game"]["san"][0] == "e4" and snapshot["evaluation"] is not None
    # the robot made the engine's move: the physical table matches the game
    table, _ = runner.live.table()
    assert table is not None and table.board_fen() == chess.Board(snapshot["game"]["fen"]).board_fen()
    runner.command("hint")
    snapshot = wait_for(runner, lambda s: s["hint"] is not None)
    assert chess.Move.from_uci(snapshot["hint"]["uci"]) in chess.Board(snapshot["game"]["fen"]).legal_moves
    runner.command("takeback")
    snapshot = wait_for(runner, my_turn(0))
    table, _ = runner.live.table()
    assert table is not None and table.board_fen() == chess.STARTING_BOARD_FEN
    runner.command("resign")
    assert runner.wait(30)
    snapshot = runner.live.snapshot()
    assert snapshot["game"]["result"] == "0-1" and snapshot["game"]["termination"] == "resignation"
    (summary,) = list_games(runner.games_dir)
    assert summary.result == "0-1"


def hint_then_takeback(runner: GameRunner) -> None:
    """White on the page plays e4, asks for a hint, and takes the moves back the moment the hint shows."""
    runner.start_game(GameRequest(white="web", black=ENGINE))
    wait_for(runner, my_turn(0))
    runner.move("e4")
    wait_for(runner, my_turn(2))
    runner.command("hint")
    wait_for(runner, lambda s: s["hint"] is not None)
    runner.command("takeback")
    wait_for(runner, my_turn(0))
    runner.stop()
    assert runner.wait(30)


def test_watchers_are_told_what_the_table_is_doing_for_a_hint_and_a_takeback(runner: GameRunner) -> None:
    statuses: list[str] = []
    runner.live.listen(lambda version: statuses.append(runner.live.snapshot()["status"]))
    hint_then_takeback(runner)
    said = list(dict.fromkeys(statuses))  # each status once, in the order first seen
    assert said.index("finding a hint for white") < said.index("taking back the last 2 moves")
    assert said.index("robot moving") < said.index("finding a hint for white")


def test_after_a_hint_the_page_may_take_back_at_once(
    runner: GameRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hint leaves the player to move: a takeback clicked the moment the hint shows is taken (it was
    refused as out of turn), however long the game takes to ask again (here half a second more)."""
    before = Ponderer.before

    def slow(self: Ponderer, *args: Any, **kwargs: Any) -> None:
        time.sleep(0.5)
        before(self, *args, **kwargs)

    monkeypatch.setattr(Ponderer, "before", slow)
    hint_then_takeback(runner)


def test_commands_out_of_turn_or_while_busy_are_refused(runner: GameRunner) -> None:
    with pytest.raises(NotYourTurnError):
        runner.move("e4")
    runner.start_game(GameRequest(white=ENGINE, black="web"))
    with pytest.raises(BusyError):
        runner.start_game(GameRequest())
    with pytest.raises(BusyError):
        runner.reset_table("standard")
    wait_for(runner, my_turn(1))
    with pytest.raises(ConfigError):
        runner.command("castle")
    runner.stop()
    assert runner.wait(30)
    assert "stopped" in runner.live.snapshot()["status"]
    (summary,) = list_games(runner.games_dir)
    assert summary.in_progress  # a stopped game stays saved, to be resumed


@pytest.mark.parametrize(
    "request_",
    [
        GameRequest(white="script:/etc/passwd"),
        GameRequest(white="robot"),
        GameRequest(chess960="960"),
        GameRequest(fen="not a fen"),
        GameRequest(clock="0+0"),
    ],
)
def test_bad_game_requests_never_start_anything(runner: GameRunner, request_: GameRequest) -> None:
    with pytest.raises(ConfigError):
        runner.start_game(request_)
    assert not runner.busy and runner.session.robot is None


def test_a_stopped_game_resumes_with_the_same_moves(runner: GameRunner) -> None:
    runner.start_game(GameRequest(white="web", black=ENGINE, chess960="100"))
    wait_for(runner, my_turn(0))
    start = runner.live.snapshot()["game"]["start_fen"]
    runner.move("g2g3")
    wait_for(runner, my_turn(2))
    runner.stop()
    assert runner.wait(30)
    runner.resume_game()
    snapshot = wait_for(runner, my_turn(2))
    assert snapshot["game"]["start_fen"] == start and snapshot["game"]["uci"][0] == "g2g3"
    runner.command("resign")
    assert runner.wait(30)


def test_a_game_is_resumed_by_its_id_not_only_the_latest(runner: GameRunner) -> None:
    ids = []
    for first in ("e4", "d4"):
        runner.start_game(GameRequest(white="web", black=ENGINE))
        wait_for(runner, lambda s: my_turn(0)(s) and s["game"]["result"] is None)
        runner.move(first)
        ids.append(wait_for(runner, my_turn(2))["game"]["id"])
        runner.stop()
        assert runner.wait(30)
    older, newer = ids
    assert runner.resume_game(older) == older
    snapshot = wait_for(runner, lambda s: s["game"]["id"] == older and my_turn(2)(s))
    assert snapshot["game"]["san"][0] == "e4"
    table, _ = runner.live.table()  # the robot put the older game's pieces back
    assert table is not None and table.board_fen() == chess.Board(snapshot["game"]["fen"]).board_fen()
    with pytest.raises(BusyError):
        runner.resume_game(newer)
    runner.command("resign")
    assert runner.wait(30)

    with pytest.raises(CannotResumeError, match="is over"):
        runner.resume_game(older)
    with pytest.raises(GameNotFoundError):
        runner.resume_game("0123456789abcdef")
    imported = save_record(from_pgn("1. e4 *"), runner.games_dir)
    with pytest.raises(CannotResumeError, match="imported"):
        runner.resume_game(imported)
    assert not runner.busy
    assert runner.resume_game() == newer  # no id: the latest unfinished game played here
    runner.stop()
    assert runner.wait(30)


def test_the_flag_falls_for_a_web_player_who_does_not_move(runner: GameRunner) -> None:
    runner.start_game(GameRequest(white="web", black=ENGINE, clock="1s+0"))
    assert runner.wait(30)
    snapshot = runner.live.snapshot()
    assert (snapshot["game"]["result"], snapshot["game"]["termination"]) == ("0-1", "time forfeit")
    assert snapshot["clock"]["white_ms"] == 0
    (summary,) = list_games(runner.games_dir)
    assert load_game(summary.game_id, runner.games_dir).clock is not None


def test_the_table_is_reset_to_a_chess960_start_in_the_background(runner: GameRunner) -> None:
    runner.reset_table("0")
    assert runner.wait(120) and runner.last_error is None
    table, _ = runner.live.table()
    assert table is not None and table.board_fen() == chess.Board.from_chess960_pos(0).board_fen()
    assert runner.live.snapshot()["status"] == "idle"
