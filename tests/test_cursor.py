"""The button cursor's state machine on its own: what each press means in each mode, as a player with a
d-pad, select and back would find it."""

from __future__ import annotations

import random

import chess
import pytest

from chessatron.game.players.base import Command, Settings
from chessatron.game.players.cursor import Answer, Ask, Cursor, NewGame, Play, Promote
from chessatron.ports import Button


def press(cursor: Cursor, *buttons: Button) -> object:
    """Press ``buttons`` in order (``"up*3"`` style is not needed here); the last action."""
    action = None
    for button in buttons:
        action = cursor.press(button)
    return action


def at(square: str) -> chess.Square:
    return chess.parse_square(square)


def turn(fen: str = chess.STARTING_FEN, *, chess960: bool = False, moves: str = "") -> Cursor:
    board = chess.Board(fen, chess960=chess960)
    for uci in moves.split():
        board.push_uci(uci)
    cursor = Cursor(board.turn, Settings(level=5, chess960=None), rng=random.Random(7))
    cursor.begin_turn(board)
    return cursor


def test_a_turn_starts_on_the_players_king_and_then_where_they_last_moved() -> None:
    cursor = turn()
    assert cursor.view.mode == "new-turn" and cursor.view.square == chess.E1
    assert cursor.view.lines == ("White to move", "e1 white king")
    later = turn(moves="g1f3 e7e5")
    view = later.view
    assert view.square == chess.F3  # the knight moved last
    assert view.move == chess.Move.from_uci("e7e5")  # the opponent's move is shown
    assert view.lines == ("White to move", "last: 1...e5")
    press(later, "left")
    assert later.view.mode == "contemplating" and later.view.move is None  # gone once the cursor moves


def test_directions_are_seen_from_the_players_side_and_stop_at_the_edge() -> None:
    black = turn(moves="e2e4")
    assert black.view.square == chess.E8
    press(black, "up")  # away from Black: toward rank 1
    assert black.view.square == chess.E7
    press(black, "right")  # Black's right is White's left
    assert black.view.square == chess.D7
    white = turn()
    press(white, "down", "left", "left", "left", "left", "left")
    assert white.view.square == chess.A1


def test_select_on_nothing_of_the_players_is_refused_on_that_square() -> None:
    cursor = turn()
    press(cursor, "up", "up", "select")
    view = cursor.view
    assert view.mode == "contemplating" and view.refused == chess.E3
    assert view.lines[1] == "e3: nothing here"
    press(cursor, "up", "up", "up", "up", "up", "select")  # e8: Black's king
    assert cursor.view.lines[1] == "e8: not yours"
    press(cursor, "down", "down", "down", "down", "down", "down", "down", "select")  # e1: hemmed in
    assert cursor.view.refused == chess.E1 and cursor.view.lines[1] == "king e1: stuck"
    press(cursor, "up")
    assert cursor.view.refused is None  # the red goes with the next press


def test_a_piece_in_hand_shows_where_it_may_go_and_goes_there_on_select() -> None:
    cursor = turn("4k3/8/8/3p4/8/8/8/1N2K3 w - - 0 1")
    press(cursor, "left", "left", "left", "select")
    view = cursor.view
    assert view.mode == "in-hand" and view.held == chess.B1
    assert view.targets == {chess.A3: False, chess.C3: False, chess.D2: False}
    assert view.lines == ("knight b1 to", "select: put down")
    press(cursor, "up")  # b2: not a knight's square
    assert cursor.view.lines[1] == "b2: not legal"
    assert press(cursor, "select") is None and cursor.view.refused == chess.B2
    assert cursor.view.mode == "in-hand"  # still in hand
    press(cursor, "up", "right")
    assert cursor.view.lines[1] == "c3: Nc3"
    assert press(cursor, "select") == Play(chess.Move.from_uci("b1c3"))


def test_back_or_select_on_the_piece_puts_it_down_and_another_piece_is_picked_up_instead() -> None:
    cursor = turn()
    press(cursor, "up", "select")
    assert cursor.view.held == chess.E2
    press(cursor, "up", "back")
    assert cursor.view.mode == "contemplating" and cursor.view.square == chess.E2  # back on the piece
    press(cursor, "select", "select")
    assert cursor.view.mode == "contemplating"
    press(cursor, "select", "right", "select")  # holding e2, select the f2 pawn: it is taken instead
    assert cursor.view.held == chess.F2 and set(cursor.view.targets) == {chess.F3, chess.F4}


def test_captures_are_marked_as_such() -> None:
    cursor = turn("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    press(cursor, "up", "up", "up", "select")
    assert cursor.view.targets == {chess.E5: False, chess.D5: True}


@pytest.mark.parametrize(
    ("fen", "chess960", "king", "rook", "castling"),
    [
        # standard chess: the king onto its rook, or its two-square step
        ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", False, "e1", "h1", "e1g1"),
        ("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", False, "e1", "a1", "e1c1"),
        # Chess960: the king on b1 and its rook on a1 castle long: the king to c1, the rook to d1
        ("6k1/8/8/8/8/8/8/RK5R w HA - 0 1", True, "b1", "a1", "b1a1"),
        # the king does not move at all: g1 with its rook on h1 castles short, the rook to f1
        ("4k3/8/8/8/8/8/8/R5KR w HA - 0 1", True, "g1", "h1", "g1h1"),
    ],
)
def test_castling_is_the_king_then_its_rook(
    fen: str, chess960: bool, king: str, rook: str, castling: str
) -> None:
    board = chess.Board(fen, chess960=chess960)
    cursor = Cursor(chess.WHITE)
    cursor.begin_turn(board)
    cursor.square = at(king)
    press(cursor, "select")
    assert cursor.view.held == at(king) and at(rook) in cursor.view.targets
    assert cursor.view.targets[at(rook)] is False  # the rook is no capture
    cursor.square = at(rook)
    action = press(cursor, "select")
    assert isinstance(action, Play) and board.is_castling(action.move)
    assert action.move == board.parse_uci(castling)


def test_the_kings_castled_square_castles_too_unless_a_plain_king_move_goes_there() -> None:
    standard = turn("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    press(standard, "select", "right", "right")  # g1
    assert standard.view.lines[1] == "g1: O-O"
    chess960 = turn("4k3/8/8/8/8/8/8/5K1R w H - 0 1", chess960=True)
    chess960.square = chess.F1
    press(chess960, "select", "right")  # g1: a plain king move, the king also ends there castling
    assert chess960.view.lines[1] == "g1: Kg1"
    press(chess960, "right")
    assert chess960.view.lines[1] == "h1: O-O"


def test_a_promotion_is_chosen_along_the_file_toward_the_player() -> None:
    cursor = turn("8/1P6/7k/8/8/8/8/4K3 w - - 0 1")
    cursor.square = chess.B7
    press(cursor, "select", "up", "select")
    view = cursor.view
    assert view.mode == "promoting" and view.choices == (chess.B8, chess.B7, chess.B6, chess.B5)
    assert view.square == chess.B8 and view.lines == ("promote to", "queen b8=Q")
    press(cursor, "down", "down")
    assert cursor.view.square == chess.B6 and cursor.view.lines[1] == "rook b8=R"
    press(cursor, "down", "down")  # the column ends at the bishop
    assert cursor.view.lines[1] == "bishop b8=B"
    press(cursor, "back")
    assert cursor.view.mode == "in-hand" and cursor.view.held == chess.B7  # the pawn in hand again
    press(cursor, "select", "down")
    assert press(cursor, "select") == Play(chess.Move.from_uci("b7b8n"))


def test_black_promotes_toward_its_own_side() -> None:
    cursor = turn("4k3/8/8/8/8/8/6p1/4K3 b - - 0 1")
    cursor.square = chess.G2
    press(cursor, "select", "up", "select")
    assert cursor.view.choices == (chess.G1, chess.G2, chess.G3, chess.G4)


def test_history_steps_through_the_game_and_returns() -> None:
    cursor = turn(moves="e2e4 e7e5 g1f3 b8c6")
    press(cursor, "back", "down", "down")
    assert cursor.view.lines[1] == "> review moves"
    press(cursor, "select")
    view = cursor.view
    assert view.mode == "history" and view.lines == ("review 4/4", "2... Nc6") and view.square is None
    press(cursor, "left", "left")
    view = cursor.view
    assert view.lines == ("review 2/4", "1... e5") and view.move == chess.Move.from_uci("e7e5")
    assert (
        view.board.fen() == chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").fen()
    )
    press(cursor, "left", "left", "left")
    assert cursor.view.lines == ("review 0/4", "the start")
    press(cursor, "right")
    assert cursor.view.lines[0] == "review 1/4"
    press(cursor, "select")
    assert cursor.view.mode == "contemplating" and len(cursor.view.board.move_stack) == 4


def test_the_menu_asks_for_hints_takebacks_and_resigns_only_when_sure() -> None:
    cursor = turn(moves="e2e4 e7e5")
    press(cursor, "back")
    assert cursor.view.menu == (
        "hint",
        "take back",
        "review moves",
        "new game",
        "level 5",
        "standard chess",
        "puzzles",
        "resign",
    )
    assert press(cursor, "select") == Ask(Command.HINT)
    cursor.begin_turn(cursor.board)
    assert press(cursor, "back", "down", "select") == Ask(Command.TAKEBACK)
    cursor.begin_turn(cursor.board)
    press(cursor, "back", "up")  # round to the last item
    assert cursor.view.lines[1] == "> resign"
    assert press(cursor, "select") is None and cursor.view.lines[1] == "> resign? select"
    press(cursor, "up", "down")  # anything else: not sure after all
    assert cursor.view.lines[1] == "> resign"
    assert press(cursor, "select", "select") == Ask(Command.RESIGN)
    cursor.begin_turn(cursor.board)
    press(cursor, "back", "back")
    assert cursor.view.mode == "contemplating"


def test_the_menu_sets_the_level_and_the_start_of_a_new_game() -> None:
    cursor = turn()
    press(cursor, "back", "down", "down", "down", "down")
    assert cursor.view.lines[1] == "> level 5"
    press(cursor, "right", "right", "right")
    assert cursor.view.lines[1] == "> level 8"
    press(cursor, "down")
    assert cursor.view.lines[1] == "> standard chess"
    press(cursor, "left")  # round: standard chess, then 0 to 959
    assert cursor.view.lines[1] == "> chess960 #959"
    press(cursor, "right", "right", "right")
    assert cursor.view.lines[1] == "> chess960 #1"
    press(cursor, "select")  # a number at random
    number = cursor.settings.chess960
    assert number is not None and cursor.view.lines[1] == f"> chess960 #{number}"
    assert press(cursor, "up", "up", "select") == NewGame(Settings(level=8, chess960=number))


def test_no_level_to_set_without_an_engine() -> None:
    cursor = Cursor(chess.WHITE, Settings(level=None))
    cursor.begin_turn(chess.Board())
    press(cursor, "back")
    assert not any(item.startswith("level") for item in cursor.view.menu)


def test_after_the_game_the_result_then_a_review_or_the_menu() -> None:
    board = chess.Board()
    for san in ("f3", "e5", "g4", "Qh4#"):
        board.push_san(san)
    cursor = Cursor(chess.WHITE, Settings(level=3))
    cursor.game_over(board, "0-1 checkmate")
    assert cursor.view.lines == ("0-1 checkmate", "select: menu") and cursor.view.square is None
    press(cursor, "left")
    assert cursor.view.mode == "history" and cursor.view.lines == ("review 3/4", "2. g4")
    press(cursor, "back")
    assert cursor.view.lines[1] == "select: menu"  # the game's end again
    press(cursor, "select")
    assert cursor.view.menu == ("review moves", "new game", "level 3", "standard chess", "puzzles")
    assert press(cursor, "down", "select") == NewGame(Settings(level=3))


def test_a_question_goes_through_the_moves_asked_about() -> None:
    board = chess.Board("6k1/8/4q3/1p6/3N4/8/8/6K1 w - - 0 1")
    options = [chess.Move.from_uci("d4b5"), chess.Move.from_uci("d4e6")]
    cursor = Cursor(chess.WHITE)
    cursor.ask(board, options, ["Nxb5", "Nxe6"])
    view = cursor.view
    assert view.mode == "question" and view.square == chess.B5 and view.lines == ("which move?", "> Nxb5")
    press(cursor, "right")
    assert cursor.view.square == chess.E6 and cursor.view.lines[1] == "> Nxe6"
    press(cursor, "right")  # round again
    assert cursor.view.lines[1] == "> Nxb5"
    assert press(cursor, "left", "select") == Answer(options[1])
    assert cursor.view.mode == "waiting"


def test_a_promotion_at_the_sensor_board_starts_on_the_sensors_guess_and_has_no_way_back() -> None:
    board = chess.Board("8/4P3/7k/8/8/8/8/4K3 w - - 0 1")
    cursor = Cursor(chess.WHITE)
    cursor.promote(board, chess.Move.from_uci("e7e8r"))
    assert cursor.view.square == chess.E6 and cursor.view.lines[1] == "rook e8=R"
    press(cursor, "back")
    assert cursor.view.mode == "promoting"  # the pawn is on the last rank already
    assert press(cursor, "up", "select") == Promote(chess.KNIGHT)


def test_the_menu_turns_the_table_to_puzzles() -> None:
    cursor = turn(moves="e2e4 e7e5")
    action = press(cursor, "back", "up", "up", "select")  # (round: the last but one, before resign)
    assert action == NewGame(Settings(level=5, chess960=None, puzzles=True))
