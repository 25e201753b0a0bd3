"""Every behaviour of people moving pieces, as snapshot scripts through the recognizer."""

from __future__ import annotations

import chess
import pytest

from chessatron.planning.layout import Layout
from chessatron.recognition import (
    Ambiguous,
    Committed,
    HumanModel,
    Illegal,
    NewGame,
    PieceLifted,
    Recognizer,
    Resolved,
    Revised,
)

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


@pytest.mark.parametrize("when", ["after the landing", "in flight"])
def test_a_victim_taken_off_first_is_not_a_piece_held_across_the_lift(when: str) -> None:
    # the knight on f3 can take on e5 or d4; the player takes e5 off, lifts the knight, sets it on e5 and
    # straightens d4 (after the knight landed, or with the other hand while it is in the air). Nxd4 would
    # fit the squares only with e5 held off its square across the knight's lift and d4 taken
    s = script(TWO_TARGETS).lift("e5", 1.0).lift("f3", 0.6)
    if when == "after the landing":
        s.place("e5", 1.0).lift("d4", 0.1).place("d4")
    else:
        s.lift("d4", 0.1).place("d4", 0.3).place("e5")
    s.settle(HumanModel().held_s + 3.0)
    assert s.moves() == ["f3e5"] and s.committed == ["f3e5"]
    assert not s.of(Ambiguous)


def test_capture_by_displacement() -> None:
    # the victim is pushed off as the mover arrives: its square never reads empty. Until the board has
    # been still for long, that looks exactly like a piece held in the air: no move yet.
    s = script(AFTER_E4_D5).lift("e4").settle(4.5)
    assert s.moves() == [] and not s.of(Illegal)
    s.settle(1.0)
    assert s.moves() == ["e4d5"]


def test_a_piece_held_in_the_air_is_no_capture() -> None:
    # held for four seconds, as people hold a piece while they think, and then set down on e5
    s = script(AFTER_E4_D5).lift("e4", 4.0).place("e5").settle()
    assert s.moves() == ["e4e5"]
    assert s.committed == ["e4e5"]  # never the capture, not for a moment
    assert not s.of(Illegal)  # holding a piece while thinking is no error: no red under the squares


def test_abandoned_capture_is_no_move_and_a_missing_victim_gets_guidance() -> None:
    s = script(TWO_TARGETS).lift("e5").lift("f3").place("f3").place("e5").settle()
    assert s.moves() == [] and not s.of(Illegal)
    # the victim taken off: a capture begun, perhaps a pause to think; left for long, it is missing
    s = script(TWO_TARGETS).lift("e5").settle(3.0)
    assert not s.of(Illegal)
    s.settle(8.0)
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
    s = script().move("e2", "e4").settle().move("e4", "e2").settle(3.0)
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
    s.settle(3.0)
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
    s = script("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1").move("e1", "d1").settle(3.0)  # d1 is attacked by the rook
    errors = s.of(Illegal)
    assert errors and "check" in errors[0].reason


# --- whole windows: several plies, revisions, displacement, ambiguity ------------------------------


def test_three_plies_inside_one_settle_window() -> None:
    s = script().move("e2", "e4", 0.06).move("e7", "e5", 0.06).move("g1", "f3", 0.06).settle()
    assert s.moves() == ["e2e4", "e7e5", "g1f3"]


def test_a_paused_slide_goes_on_and_the_reply_comes_inside_the_settle_window() -> None:
    s = script("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").lift("a1").place("a3").settle(0.6)
    assert s.moves() == ["a1a3"]
    s.lift("a3", 0.04).place("a4", 0.04).lift("a4", 0.04).place("a6", 0.06).move("e8", "d7").settle()
    assert s.moves() == ["a1a6", "e8d7"]
    (revised,) = s.of(Revised)
    assert revised.undone == chess.Move.from_uci("a1a3")


def test_a_paused_slide_revised_into_a_capture_beyond() -> None:
    s = script("4k3/8/8/8/6q1/8/4P3/K7 b - - 0 1").lift("g4").place("f3").settle(0.6)
    assert s.moves() == ["g4f3"]
    s.lift("f3").lift("e2").place("e2").settle()  # the queen goes on and takes, mover first
    assert s.moves() == ["g4e2"] and s.of(Revised)


def test_a_reply_after_a_capture_by_displacement_waits_for_the_still_board() -> None:
    # exd5 by displacement and ...Nf6 at once: the pawn on e4 may as well still be in the air, and what
    # follows be the same hand at work (a slow slide reads like the victim moving), so nothing is
    # committed until the board has been still as long as a piece is held (the model's held_s)
    s = script(AFTER_E4_D5).lift("e4", 0.5).move("g8", "f6").settle()
    assert s.moves() == []
    s.settle(HumanModel().held_s)
    assert s.moves() == ["e4d5", "g8f6"] and not s.of(Ambiguous)


def test_a_reply_that_begins_with_a_piece_held_is_no_capture_by_displacement() -> None:
    # black's pawn on d5 could take on e4; lifted inside the settle window after Nf3 and held, it is a
    # piece in the air, not a capture whose victim was pushed off
    s = script(AFTER_E4_D5).move("g1", "f3", 0.06).lift("d5", 1.0).place("d4").settle()
    assert s.moves() == ["g1f3", "d5d4"]
    assert "d5e4" not in s.committed


def test_a_displacement_that_could_have_taken_either_piece_is_asked_not_guessed() -> None:
    # the knight on f3 can take on e5 or d4; pushed off, either victim leaves the same board behind
    s = script(TWO_TARGETS).lift("f3").settle(4.5)
    assert s.moves() == [] and not s.of(Illegal) and not s.of(Ambiguous)  # perhaps still in hand
    s.settle(1.0)
    (asked,) = s.of(Ambiguous)
    assert set(asked.candidates) == {
        (chess.Move.from_uci("f3e5"),),
        (chess.Move.from_uci("f3d4"),),
    }
    assert asked.ply == 0 and asked.question in ("Nxd4 or Nxe5?", "Nxe5 or Nxd4?")
    assert s.recognizer.is_asking
    s.lift("e5").place("e5").settle()  # the player lifts the capturing piece to show where it stands
    assert s.moves() == ["f3e5"] and s.of(Resolved) and not s.recognizer.is_asking


def test_the_player_answers_which_capture_they_made() -> None:
    s = script(TWO_TARGETS).lift("f3").settle(5.0)
    assert len(s.of(Ambiguous)) == 1
    with pytest.raises(ValueError, match="not one of the moves asked about"):
        s.recognizer.choose_move(s.t, chess.Move.from_uci("f3g5"))
    s.events += s.recognizer.choose_move(s.t, chess.Move.from_uci("f3d4"))
    assert s.moves() == ["f3d4"] and s.of(Resolved)
    assert s.of(Committed)[-1].sans == ("Nxd4",)


def test_a_move_legal_in_only_one_branch_settles_the_question() -> None:
    # Bxf3 or Bxh3 by displacement (the bishop on g4 had both); white replies Nf3-e5, which only a knight
    # still on f3 can play: the bishop took on h3
    fen = "r2qkbnr/pppnpppp/8/3p4/6b1/5NPP/PPPPPPB1/RNBQK2R b KQkq - 0 5"
    s = script(fen).lift("g4").settle(0.5).move("f3", "e5").settle(HumanModel().held_s + 0.5)
    assert s.moves() == ["g4h3", "f3e5"] and not s.of(Ambiguous)
    assert [m.uci() for e in s.of(Committed) for m in e.moves] == ["g4h3", "f3e5"]


def test_a_piece_held_so_long_it_looked_like_a_capture_is_withdrawn_when_it_comes_back() -> None:
    # the bishop could take only on b4 (by displacement): after a long hold that is taken as the move, but
    # the bishop is set back on f8 and another piece moves
    fen = "rnbqkbnr/pppp1ppp/4p3/8/1N6/8/PPPPPPPP/R1BQKBNR b KQkq - 0 1"
    s = script(fen).lift("f8").settle(HumanModel().held_s + 0.5)
    assert s.moves() == ["f8b4"]
    s.place("f8").settle().move("d7", "d5").settle()
    assert s.moves() == ["d7d5"]
    withdrawn = s.of(Revised)[0]
    assert withdrawn.undone == chess.Move.from_uci("f8b4") and withdrawn.moves == ()
    assert s.of(Committed)[-1].sans == ("d5",)


def test_replies_that_never_leave_the_board_still_are_seen_one_by_one() -> None:
    # blitz at the board: each move starts before the board has been still for the settle time
    s = script(chess.STARTING_FEN)
    for origin, target in [("e2", "e4"), ("e7", "e5"), ("g1", "f3"), ("b8", "c6"), ("f1", "c4")]:
        s.move(origin, target, 0.08).hold(0.1)
    assert s.committed[:3] == ["e2e4", "e7e5", "g1f3"]  # while the board was still busy
    s.settle()
    assert s.moves() == ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]


def test_replies_between_captures_by_displacement_are_seen_one_by_one() -> None:
    # the rook takes pawn after pawn by pushing it off (only its lift is seen), each answered at once by a
    # king move: every capture but the latest has the game go on after it, so the board commits them as
    # it goes, and never holds more plies than it can explain (it had stalled on a board fit only to be
    # called illegal)
    s = script("k7/3ppppp/8/8/8/8/8/K6R w - - 0 1")
    for k, rook in enumerate(["h1", "h7", "g7", "f7", "e7"]):
        s.lift(rook, 0.6)  # and it lands on the pawn's square, pushing the pawn off
        s.move(*(("a8", "b8") if k % 2 == 0 else ("b8", "a8")), 0.6)
    assert len(s.committed) >= 4  # while the board was still busy
    s.settle(HumanModel().held_s + 0.5)
    assert s.moves() == ["h1h7", "a8b8", "h7g7", "b8a8", "g7f7", "a8b8", "f7e7", "b8a8", "e7d7", "a8b8"]
    assert not s.of(Ambiguous) and not s.of(Illegal)


def test_the_opponent_lifting_the_piece_just_moved_does_not_revise_it() -> None:
    # Nd4 is committed; white takes the knight victim first and pauses the bishop's slide on e3: until
    # the bishop lands, that must not read as the knight having taken on f4 by displacement
    s = script("4k3/8/4n3/8/5P2/8/5B2/4K3 b - - 0 1").move("e6", "d4").settle(0.5)
    s.lift("d4", 0.6).lift("f2").place("e3", 0.6).lift("e3", 0.04).place("d4").settle()
    assert s.moves() == ["e6d4", "f2d4"]
    assert not s.of(Revised) and s.committed == ["e6d4", "f2d4"]


def test_a_rival_victim_straightened_while_or_after_the_piece_lands_is_asked_about() -> None:
    # mover first onto e5, then the pawn on d4 (which the knight could also have taken) is straightened:
    # the same events as mover first onto d4 with the pawn on e5 straightened meanwhile, so the board
    # asks rather than guess
    s = script(TWO_TARGETS).lift("f3").lift("e5").place("e5").lift("d4", 0.1).place("d4").settle(5.0)
    (asked,) = s.of(Ambiguous)
    assert set(asked.options) == {chess.Move.from_uci("f3e5"), chess.Move.from_uci("f3d4")}
    assert not s.committed


def test_a_neighbour_straightened_after_a_capture_is_not_the_victim() -> None:
    # the pawn on d4 takes on e5 victim first; then the bishop beside it (which could not have been taken)
    # is straightened: no question
    s = script("4k3/8/8/4n3/3P4/2B5/8/4K3 w - - 0 1").lift("e5").lift("d4").place("e5")
    s.lift("c3", 0.1).place("c3").settle()
    assert s.moves() == ["d4e5"] and not s.of(Ambiguous)


def test_the_promotion_piece_decides_whether_the_reply_is_legal() -> None:
    # a queen on d8 would give check, so Bg5 only follows an under-promotion to a rook
    fen = "3r4/2P1k3/5b2/8/8/8/8/7K w - - 0 1"
    s = script(fen).lift("d8").lift("c7")
    s.events += s.recognizer.choose_promotion(s.t, "r")
    s.place("d8", 0.06).move("f6", "g5").settle()
    assert s.moves() == ["c7d8r", "f6g5"]
    # the pawn set down first and exchanged after the default was committed, answered late, then Bg5
    s = script(fen).lift("d8").lift("c7").place("d8").settle(0.5)
    assert s.moves() == ["c7d8q"]
    s.lift("d8").place("d8")
    s.events += s.recognizer.choose_promotion(s.t, "r")
    s.move("f6", "g5").settle()
    assert s.moves() == ["c7d8r", "f6g5"]


def test_a_flicker_inside_a_lift_keeps_the_slide_in_order() -> None:
    # the rook leaves f1, f1 flickers back for one scan, and the rook shows on e1 in the same scan as f1
    # empties again: the lift must still come before the landing
    s = script("k7/8/8/8/8/8/8/5R1K w - - 0 1")
    s.occupied &= ~chess.BB_F1
    s.scan()
    s.scan(s.occupied | chess.BB_F1)
    s.occupied |= chess.BB_E1
    s.hold(0.08).lift("e1", 0.04).place("d1", 0.06).lift("d1", 0.04).place("b1").settle()
    assert s.moves() == ["f1b1"] and not s.of(Illegal)


def test_thinking_with_a_piece_in_hand_is_no_error() -> None:
    s = script().lift("g1", 3.0).place("g1").settle()
    assert s.moves() == [] and not s.of(Illegal)
    s = script().lift("g1", 3.0).place("f3").settle()
    assert s.moves() == ["g1f3"] and not s.of(Illegal)


def test_a_capture_with_check_then_a_reply_paused_mid_slide_is_not_another_capture() -> None:
    # Nxd3+ is seen landing; white's queen then pauses on d2 on its way to take back on d3. Nxd3+ and Qd2
    # is no legal pair (check), but Nxa2 pushing the pawn off unseen and Qd2 would be: not to be believed
    # while the events up to the knight's landing fit a capture nobody had to imagine
    s = script("4k3/8/8/8/1n6/3B4/P7/3QK3 b - - 0 1").lift("b4").lift("d3").place("d3", 0.06)
    s.lift("d1").place("d2", 0.6).lift("d2").settle(HumanModel().held_s + 0.5)  # pushes the knight off
    assert s.moves() == ["b4d3", "d1d3"]
    assert "b4a2" not in s.committed


def test_the_opponent_taking_a_rook_that_slid_in_does_not_revise_its_move() -> None:
    # Rd4 is committed; white lifts the rook to take it with the bishop, which pauses on e3: the rook
    # sliding on over d4 to push the pawn off d2 unseen would fit, but only by revising Rd4
    s = script("3rk3/8/8/8/8/8/3P1B2/4K3 b - - 0 1").move("d8", "d4").settle(0.5)
    s.lift("d4", 0.6).lift("f2").place("e3", 0.6).lift("e3", 0.04).place("d4").settle()
    assert s.moves() == ["d8d4", "f2d4"] and not s.of(Revised)


def test_a_square_the_mover_passed_is_not_visited_after_it_landed() -> None:
    # Qf3+ and a nudge of the pawn on e3; then white lifts the queen on f3 to take it. Qxe3 (passing f3,
    # e3 lifted and refilled) would fit the squares, but f3 empties after e3 was filled: not the queen
    s = script("7k/8/8/8/4Q3/4P1q1/8/5K2 b - - 0 1").lift("g3").place("f3").lift("e3", 0.1).place("e3")
    s.settle(0.5)
    assert s.moves() == ["g3f3"]
    s.lift("f3", 0.6).lift("e4").place("f3").settle()
    assert s.moves() == ["g3f3", "e4f3"] and not s.of(Revised)


def test_a_piece_taken_off_inside_the_settle_window_is_not_a_detour() -> None:
    # Nf3, and black at once lifts the knight to take it with the bishop, which pauses on e4: the knight
    # set down on f3, lifted again and pushing the pawn off h3 unseen would fit, and is not to be believed
    s = script("4k3/8/2b5/8/8/7p/8/4K1N1 w - - 0 1").move("g1", "f3", 0.06)
    s.lift("f3", 0.5).lift("c6").place("e4", 0.6).lift("e4", 0.04).place("f3").settle()
    assert s.moves() == ["g1f3", "c6f3"]
    assert "g1h3" not in s.committed


def test_after_freeze_the_last_move_is_no_longer_revised() -> None:
    s = script("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").lift("a1").place("a3").settle(0.6)
    s.recognizer.freeze()  # the robot has started answering
    s.lift("a3").place("a6").settle(3.0)
    assert s.moves() == ["a1a3"] and not s.of(Revised)
    (error,) = s.of(Illegal)
    assert "black's move" in error.reason


def test_a_move_applied_for_the_robot_is_the_new_baseline() -> None:
    s = script().move("e2", "e4").settle()
    s.recognizer.apply(chess.Move.from_uci("e7e5"))  # the robot moves its pawn
    s.occupied = int(s.recognizer.board.occupied)
    s.settle()
    assert s.moves() == ["e2e4", "e7e5"] and not s.of(Illegal)
    s.move("g1", "f3").settle()
    assert s.moves() == ["e2e4", "e7e5", "g1f3"]


def test_a_known_move_in_a_trace_is_applied_and_an_illegal_one_is_refused() -> None:
    from chessatron.errors import IllegalMoveError
    from chessatron.sim.trace import KnownMove

    recognizer = Recognizer(chess.Board())
    assert recognizer.feed(KnownMove(0.1, chess.Move.from_uci("e2e4"))) == []
    assert recognizer.board.move_stack == [chess.Move.from_uci("e2e4")]
    with pytest.raises(IllegalMoveError, match="e2e4"):
        recognizer.feed(KnownMove(0.2, chess.Move.from_uci("e2e4")))


def test_a_piece_seen_gliding_that_stopped_where_its_line_goes_on_may_go_on() -> None:
    # the bishop pushed along the board from f1 and resting on e2 may glide on to d3 or c4; lifted and
    # carried to e2 it was set down there
    fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    glided = script(fen).lift("f1", 0.04).place("e2").settle()
    assert glided.moves() == ["f1e2"] and glided.recognizer.may_go_on()
    carried = script(fen).lift("f1", 0.4).place("e2").settle()
    assert carried.moves() == ["f1e2"] and not carried.recognizer.may_go_on()
    # over several squares: seen on the way, stopped on d3, with c4 and beyond still open
    slid = script(fen).lift("f1", 0.04).place("e2", 0.06).lift("e2", 0.04).place("d3").settle()
    assert slid.moves() == ["f1d3"] and slid.recognizer.may_go_on()
    # a knight never glides on
    knight = script(fen).lift("g1", 0.04).place("f3").settle()
    assert knight.moves() == ["g1f3"] and not knight.recognizer.may_go_on()


def test_the_square_that_went_empty_settles_a_capture_with_a_same_occupancy_rival() -> None:
    # 1.Nf3 d5 2.g3 Bg4 3.Bg2 Nd7 4.h3 Bxf3: bishop lifted from g4, the knight from f3, the bishop set on f3.
    # Bxh3 would leave the same board, but h3 never went empty: Bxf3 explains every change
    board = chess.Board()
    for san in ["Nf3", "d5", "g3", "Bg4", "Bg2", "Nd7", "h3"]:
        board.push_san(san)
    s = script(board.fen()).lift("g4", 0.3).lift("f3", 0.3).place("f3").settle()
    assert s.moves() == ["g4f3"] and not s.of(Ambiguous)


@pytest.mark.parametrize("pause", [0.05, 0.5, 3.0])
def test_chess960_castling_onto_the_rook_square_with_both_lifted_is_castling(pause: float) -> None:
    # king e8, rook g8: O-O puts the king on g8 and the rook on f8; both lifted, the rook set down first
    fen = "r3k1r1/pppppppp/8/8/8/8/PPPPPPPP/R3K1R1 b KQkq - 0 1"
    s = script(fen, chess960=True).lift("e8", 0.1).lift("g8", 0.1).place("f8", pause).place("g8").settle()
    assert s.moves() == ["e8g8"] and s.committed == ["e8g8"]  # never Kf8, not even for a moment


def test_chess960_castling_where_king_and_rook_swap_squares() -> None:
    # king d1, rook c1: O-O-O swaps them; the occupancy before and after is the same
    fen = "1rk5/pppppppp/8/8/8/8/PPPPPPPP/2RK4 w Cb - 0 1"
    s = script(fen, chess960=True).lift("d1", 0.2).lift("c1", 0.2).place("d1", 0.5).place("c1").settle()
    assert s.moves() == ["d1c1"] and not s.of(Ambiguous)


def test_a_captured_piece_set_down_for_a_moment_on_its_way_off_the_board_does_not_stall() -> None:
    # the victim is put on an empty square while the capturing pawn has not yet moved, then taken away
    s = script(AFTER_E4_D5).lift("d5", 0.2).place("c6", 0.5).lift("c6", 0.3).lift("e4", 0.3).place("d5")
    s.settle(3.0)  # an oddity like that is taken once the board has been still for a couple of seconds
    assert s.moves() == ["e4d5"]


def test_a_board_that_reports_only_its_changes_is_read_as_well_as_a_scanned_one() -> None:
    # one report a change, a second apart: a square emptied in one report and filled in the next was
    # empty for that second, not a flicker (mover first: the bishop, then the knight it takes)
    board = chess.Board("r2qkbnr/pppnpppp/8/3p4/6b1/5NPP/PPPPPPB1/RNBQK2R b KQkq - 0 4")
    recognizer = Recognizer(board)
    occupied = int(board.occupied)
    events = list(recognizer.feed_occupancy(0.0, occupied))
    for t, square in ((1.0, chess.G4), (2.0, chess.F3), (3.0, chess.F3)):
        occupied ^= chess.BB_SQUARES[square]
        events += recognizer.feed_occupancy(t, occupied)
    events += recognizer.feed_occupancy(4.0, occupied)
    assert [m.uci() for m in recognizer.board.move_stack] == ["g4f3"]
    assert not [e for e in events if isinstance(e, Ambiguous)]
    # a flicker is still a flicker: 10 ms is no change, however the board reports it
    events = list(recognizer.feed_occupancy(5.0, occupied ^ chess.BB_A7))
    events += recognizer.feed_occupancy(5.01, occupied)
    events += recognizer.feed_occupancy(6.0, occupied)
    assert not [e for e in events if isinstance(e, PieceLifted | Illegal)]


def test_with_one_side_at_the_board_the_hand_going_on_is_never_the_robots_reply() -> None:
    # white at the board, the robot plays black: Bxe5 mover first, then the person's hand moves black's
    # bishop. Only white's plies are explained: that is no reply, it is a piece out of place
    fen = "4k3/8/8/4n3/3B4/8/6b1/K7 w - - 0 1"
    s = script(fen, sides=frozenset({chess.WHITE}))
    s.lift("d4").lift("e5").place("e5").settle(0.8)
    assert s.moves() == ["d4e5"]
    s.lift("g2", 0.8).place("f3", 0.8).settle(3.0)
    assert s.moves() == ["d4e5"]
    assert s.of(Illegal)
    # both sides at the board: the same is black's reply
    s = script(fen)
    s.lift("d4").lift("e5").place("e5").settle(0.8).lift("g2", 0.8).place("f3", 0.8).settle()
    assert s.moves() == ["d4e5", "g2f3"]


def test_castling_one_piece_at_a_time_is_held_only_when_it_could_be_half_of_it() -> None:
    from chessatron.game.seats import CASTLING_HOLD_S, REPLY_HOLD_S, reply_hold_s

    board = chess.Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    holds = {}
    for uci in ("h1f1", "h1g1", "a1d1", "a1c1", "e1f1", "e1d1"):
        board.push(chess.Move.from_uci(uci))
        holds[uci] = reply_hold_s(board)
        board.pop()
    # the rook where castling puts it: the king may follow; anything else is answered as usual
    assert holds == {
        "h1f1": CASTLING_HOLD_S,
        "h1g1": REPLY_HOLD_S,
        "a1d1": CASTLING_HOLD_S,
        "a1c1": REPLY_HOLD_S,
        "e1f1": REPLY_HOLD_S,
        "e1d1": REPLY_HOLD_S,
    }
    # Chess960: a king step onto its castling square (b1 to c1, rook on a1) may be half of O-O-O
    board = chess.Board("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1", chess960=True)
    board.push(chess.Move.from_uci("b1c1"))
    assert reply_hold_s(board) == CASTLING_HOLD_S
