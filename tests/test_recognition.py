"""Every behaviour of people moving pieces, as snapshot scripts through the recognizer."""

from __future__ import annotations

import chess
import pytest

from chessatron.layout import Layout
from chessatron.recognition import Committed, Illegal, NewGame, PieceLifted, Recognizer, Resolved, Revised

from .recognition_script import Script


def script(fen: str = chess.STARTING_FEN, *, chess960: bool = False, **options: object) -> Script:
    return Script(Recognizer(chess.Board(fen, chess960=chess960), **options))  # type: ignore[arg-type]


def test_quiet_move_with_a_slide_over_other_squares() -> None:
    s = script().lift("e2").place("e3", 0.05).lift("e3", 0.04).place("e4").settle()
    assert s.moves() == ["e2e4"]


def test_commit_waits_for_the_settle_time_and_no_longer() -> None:
    s = script(settle_s=0.3).lift("g1").place("f3", 0.0)
    placed_at = s.t - 0.02
    s.settle(1.0)
    (commit,) = s.of(Committed)
    assert commit.t - placed_at == pytest.approx(0.3, abs=0.021)


def test_a_slide_that_paused_on_a_legal_square_is_revised() -> None:
    s = script("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    s.lift("a1").place("a3").settle(0.6)  # paused long enough to commit Ra3
    assert s.moves() == ["a1a3"]
    s.lift("a3", 0.05).place("a4", 0.05).lift("a4", 0.05).place("a6").settle()
    assert s.moves() == ["a1a6"]
    assert any(isinstance(e, Revised) for e in s.events)


def test_two_plies_inside_one_settle_window() -> None:
    s = script().move("e2", "e4", 0.06).move("e7", "e5", 0.06).settle()
    assert s.moves() == ["e2e4", "e7e5"]


def test_a_piece_lifted_and_put_back_is_no_move() -> None:
    s = script().lift("g1", 0.5).place("g1").settle()
    assert s.moves() == [] and not s.of(Illegal)
    lifted = s.of(PieceLifted)
    assert lifted and lifted[0].square == chess.G1
    assert lifted[0].destinations == {chess.F3, chess.H3}


def test_one_scan_flicker_is_ignored() -> None:
    s = script().blip("d4").settle().blip("e2").settle()
    assert s.moves() == [] and not s.events
    s.lift("e2").blip("e4").blip("e3").place("e4").settle()
    assert s.moves() == ["e2e4"]


AFTER_E4_D5 = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2"


@pytest.mark.parametrize("victim_first", [True, False])
def test_captures_in_either_order(victim_first: bool) -> None:
    s = script(AFTER_E4_D5)
    if victim_first:
        s.lift("d5").lift("e4").place("d5")
    else:
        s.lift("e4").lift("d5").place("d5")
    s.settle()
    assert s.moves() == ["e4d5"]


TWO_TARGETS = "rnbqkb1r/pppp1ppp/8/4p3/3p4/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1"


def test_a_nudged_piece_does_not_become_a_capture() -> None:
    # the knight on f3 can take on e5 or d4; the player straightens d4, then takes on e5
    s = script(TWO_TARGETS).lift("d4", 0.1).place("d4", 0.1).lift("f3").lift("e5").place("e5").settle()
    assert s.moves() == ["f3e5"]
    # and a nudge of a capturable piece before a quiet move stays a quiet move
    s = script(TWO_TARGETS).lift("e5", 0.1).place("e5", 0.1).move("f3", "g5").settle()
    assert s.moves() == ["f3g5"]


def test_capture_by_displacement() -> None:
    # the victim is pushed off as the mover arrives: its square never reads empty. Until the board has
    # been still for long, that looks exactly like a piece held in the air: no move yet.
    s = script(AFTER_E4_D5).lift("e4").settle(1.5)
    assert s.moves() == [] and not s.of(Illegal)
    s.settle(1.5)
    assert s.moves() == ["e4d5"]


def test_a_piece_held_in_the_air_is_no_capture() -> None:
    s = script(AFTER_E4_D5).lift("e4", 2.0).place("e5").settle()
    assert s.moves() == ["e4e5"]


def test_abandoned_capture_is_no_move_and_a_missing_victim_gets_guidance() -> None:
    s = script(TWO_TARGETS).lift("e5").lift("f3").place("f3").place("e5").settle()
    assert s.moves() == [] and not s.of(Illegal)
    s = script(TWO_TARGETS).lift("e5").settle(1.5)
    (error,) = s.of(Illegal)
    assert error.guidance.missing == (chess.E5,)
    s.place("e5").settle()
    assert s.of(Resolved) and s.moves() == []


CASTLE = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize("order", ["king first", "rook first", "both in hand"])
@pytest.mark.parametrize(
    ("side", "squares"), [("O-O", ("e1", "g1", "h1", "f1")), ("O-O-O", ("e1", "c1", "a1", "d1"))]
)
def test_castling_in_every_order(order: str, side: str, squares: tuple[str, str, str, str]) -> None:
    king_from, king_to, rook_from, rook_to = squares
    s = script(CASTLE)
    if order == "king first":
        s.move(king_from, king_to, 0.5).move(rook_from, rook_to)
    elif order == "rook first":
        s.move(rook_from, rook_to).settle(0.6).move(
            king_from, king_to
        )  # the rook move is shown, then revised
    else:
        s.lift(king_from).lift(rook_from).place(king_to).place(rook_to)
    s.settle()
    assert [s.recognizer.board.copy().root().san(m) for m in s.recognizer.board.move_stack] == [side]


def test_black_castles_too() -> None:
    s = script(CASTLE.replace(" w ", " b ")).move("e8", "g8").move("h8", "f8").settle()
    assert s.moves() == ["e8g8"]


def test_chess960_castling_that_leaves_the_occupancy_unchanged() -> None:
    fen = "1k6/pppppppp/8/8/8/8/PPPPPPPP/5KR1 w G - 0 1"  # king f1, rook g1: O-O swaps them
    s = script(fen, chess960=True).lift("f1").lift("g1").place("g1").place("f1").settle()
    assert s.moves() == ["f1g1"]
    # lifting only the king and putting it back is no castling
    s = script(fen, chess960=True).lift("f1").place("f1").settle()
    assert s.moves() == []


def test_chess960_castling_that_looks_like_a_rook_move() -> None:
    fen = "1k6/pppppppp/8/8/8/8/PPPPPPPP/5K1R w H - 0 1"  # king f1, rook h1: O-O = Kg1 + Rf1
    s = script(fen, chess960=True).lift("f1").lift("h1").place("g1").place("f1").settle()
    assert s.moves() == ["f1h1"]  # king-onto-rook: castling
    s = script(fen, chess960=True).move("h1", "g1").settle()
    assert s.moves() == ["h1g1"]  # the king never left: a rook move


EP = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"


@pytest.mark.parametrize(
    "steps",
    [
        [("lift", "d5"), ("lift", "e5"), ("place", "d6")],
        [("lift", "e5"), ("place", "d6"), ("lift", "d5")],
        [("lift", "e5"), ("lift", "d5"), ("place", "d6")],
    ],
)
def test_en_passant_in_every_order(steps: list[tuple[str, str]]) -> None:
    s = script(EP)
    for action, square in steps:
        getattr(s, action)(square)
    s.settle()
    assert s.moves() == ["e5d6"]


PROMOTE = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"


def test_promotion_uses_the_configured_default() -> None:
    assert script(PROMOTE).move("e7", "e8").settle().moves() == ["e7e8q"]
    assert script(PROMOTE, promotion_default="n").move("e7", "e8").settle().moves() == ["e7e8n"]


def test_promotion_chosen_at_a_prompt() -> None:
    s = script(PROMOTE).lift("e7")
    s.events += s.recognizer.choose_promotion(s.t, "r")
    s.place("e8").settle()
    assert s.moves() == ["e7e8r"]


def test_a_prompt_answered_after_the_board_settled_changes_the_piece() -> None:
    s = script(PROMOTE).move("e7", "e8").settle()
    assert s.moves() == ["e7e8q"]
    s.events += s.recognizer.choose_promotion(s.t, "n")
    assert s.moves() == ["e7e8n"] and s.of(Revised)


def test_promotion_piece_taken_from_a_sensed_reserve_slot() -> None:
    layout = Layout.default()
    board = chess.Board(PROMOTE)
    recognizer = Recognizer(board, layout=layout)
    cells = {layout.square_cell(s) for s in chess.SquareSet(board.occupied)}
    cells |= {slot.cell for slot in layout.reserve}
    knight_slot = next(slot.cell for slot in layout.reserve if slot.symbol == "N")
    t = 0.0
    timeline = [(0.5, cells), (0.5, cells - {layout.square_cell(chess.E7)})]
    timeline += [(0.5, cells - {layout.square_cell(chess.E7), knight_slot})]
    timeline += [
        (1.0, (cells - {layout.square_cell(chess.E7), knight_slot}) | {layout.square_cell(chess.E8)})
    ]
    for duration, state in timeline:
        for _ in range(round(duration / 0.02)):
            recognizer.feed_table(t, state)
            t += 0.02
    assert [m.uci() for m in recognizer.board.move_stack] == ["e7e8n"]


def test_capture_promotion_under_promotes_when_asked() -> None:
    s = script("3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1").lift("d8").lift("e7")
    s.events += s.recognizer.choose_promotion(s.t, "n")
    s.place("d8").settle()
    assert s.moves() == ["e7d8n"]


def test_takebacks_when_enabled() -> None:
    s = script(takebacks=True).move("e2", "e4").settle().move("e7", "e5").settle()
    s.move("e5", "e7").settle()
    assert s.moves() == ["e2e4"] and s.took_back == 1
    s.move("e4", "e2").settle()
    assert s.moves() == []
    # without takebacks the same action is an illegal one
    s = script().move("e2", "e4").settle().move("e4", "e2").settle(1.5)
    assert s.moves() == ["e2e4"] and s.of(Illegal)


def test_takeback_of_two_plies_at_once() -> None:
    s = script(takebacks=True).move("e2", "e4").settle().move("e7", "e5").settle()
    s.move("e5", "e7", 0.06).move("e4", "e2").settle()
    assert s.moves() == [] and s.took_back == 2


def test_knights_out_and_back_are_moves_not_takebacks() -> None:
    s = script(takebacks=True)
    for origin, target in [("g1", "f3"), ("g8", "f6"), ("f3", "g1"), ("f6", "g8")]:
        s.move(origin, target).settle()
    assert s.moves() == ["g1f3", "g8f6", "f3g1", "f6g8"] and s.took_back == 0


def test_the_start_arrangement_after_a_finished_game_starts_a_new_one() -> None:
    s = script()
    for origin, target in [("f2", "f3"), ("e7", "e5"), ("g2", "g4"), ("d8", "h4")]:
        s.move(origin, target).settle()
    assert s.recognizer.board.is_checkmate()
    for origin, target in [("h4", "d8"), ("g4", "g2"), ("e5", "e7"), ("f3", "f2")]:
        s.move(origin, target, 0.05)
    s.settle()
    assert s.of(NewGame) and s.moves() == []


@pytest.mark.parametrize(
    ("actions", "reason"),
    [
        ([("move", "e2", "e5")], "not a legal move"),
        ([("move", "e7", "e5")], "white's move"),
        ([("lift", "a2"), ("lift", "b2"), ("lift", "c2"), ("lift", "d2"), ("lift", "f2")], "several pieces"),
    ],
)
def test_illegal_actions_get_guidance_until_the_board_matches(
    actions: list[tuple[str, ...]], reason: str
) -> None:
    s = script()
    for action, *squares in actions:
        getattr(s, action)(*squares)
    s.settle(1.5)
    (error,) = s.of(Illegal)
    assert reason in error.reason
    assert s.moves() == []
    if actions[0][0] == "move":
        assert error.guidance.pairs == (
            (chess.parse_square(actions[0][2]), chess.parse_square(actions[0][1])),
        )


def test_into_check_is_explained() -> None:
    s = script("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1").move("e1", "f1", 0.1)
    s.events.clear()
    s = script("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1").move("e1", "d1").settle(1.5)  # d1 is attacked by the rook
    errors = s.of(Illegal)
    assert errors and "check" in errors[0].reason
