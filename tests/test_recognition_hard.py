"""The hard cases of recognition, exhaustively: both castlings of every Chess960 start in every order a
person makes them, and every capture geometry in which a piece has rivals leaving the same occupancy,
each capture in each order. Traces come from the simulated hand (``chessatron.sim``), pauses between
the actions from 50 ms to 3 s."""

from __future__ import annotations

import random
from dataclasses import replace

import chess
import pytest

from chessatron.planning.layout import Layout
from chessatron.recognition import Ambiguous, Committed, Recognizer, RecognizerEvent, Revised
from chessatron.sim.cases import capture_geometries, castling_case
from chessatron.sim.hand_style import GROUPS, Behaviour, HandStyle
from chessatron.sim.scenario import GeneratedTrace, trace_for_moves
from chessatron.sim.trace import MoveChoice, Snapshot

PAUSES_S = (0.05, 0.5, 3.0)
#: The board goes on being scanned after the trace, as a real one does.
AFTER_S = 4.0
CHUNKS = 12


def paused(behaviour: Behaviour, pause_s: float) -> HandStyle:
    return replace(HandStyle.only(behaviour), hesitate=1.0, hesitate_s=(pause_s, pause_s))


def replay(
    trace: GeneratedTrace, answer: chess.Move | None = None
) -> tuple[Recognizer, list[RecognizerEvent]]:
    """Feed the trace and a few seconds more of its last scan; a question is answered with ``answer``
    two seconds after it is asked."""
    recognizer = Recognizer(chess.Board(trace.game_fen, chess960=trace.chess960))
    events: list[RecognizerEvent] = []
    last = trace.entries[-1]
    assert isinstance(last, Snapshot)
    more = [Snapshot(round(last.t + 0.02 * k, 4), last.occupied) for k in range(1, round(AFTER_S / 0.02))]
    asked_t: float | None = None
    for entry in [*trace.entries, *more]:
        if answer is not None and asked_t is not None and entry.t >= asked_t + 2.0:
            events += recognizer.feed(MoveChoice(entry.t, answer))
            asked_t = None
        new = recognizer.feed(entry)
        events += new
        if any(isinstance(e, Ambiguous) for e in new):
            asked_t = entry.t
    return recognizer, events


# --- castling --------------------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_chess960_castling_in_every_order_is_seen(layout: Layout, chunk: int) -> None:
    orders: tuple[Behaviour, ...] = GROUPS["castling"]
    for number in range(chunk, 960, CHUNKS):
        colour = chess.WHITE if number % 2 == 0 else chess.BLACK
        for side in ("O-O", "O-O-O"):
            case = castling_case(number, colour, side)
            for k, order in enumerate(orders):
                pause = PAUSES_S[(number + k) % len(PAUSES_S)]
                trace = trace_for_moves(
                    case.board(),
                    [case.move],
                    rng=random.Random(f"{number}{side}{order}"),
                    style=paused(order, pause),
                    layout=layout,
                )
                recognizer, events = replay(trace)
                what = f"start {number} {side} ({case.kind()}) {order}, pauses of {pause} s"
                assert recognizer.board.move_stack == [case.move], what
                assert not recognizer.is_asking, what
                both_lifted = "both" in trace.plies[0].behaviours[0] if trace.plies[0].behaviours else False
                if both_lifted:
                    # king and rook in the air together: castling's signature; never a king step or a
                    # rook move in its place, not even for a moment
                    assert [e.moves for e in events if isinstance(e, Committed | Revised)] == [
                        (case.move,)
                    ], what


# --- captures with same-occupancy rivals -----------------------------------------------------------


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_capture_geometry_in_every_order_is_seen_or_asked(layout: Layout, chunk: int) -> None:
    geometries = capture_geometries()
    for index in range(chunk, len(geometries), CHUNKS):
        geometry = geometries[index]
        board, captures = geometry.position()
        for move in captures:
            for k, order in enumerate(GROUPS["capture"]):
                pause = PAUSES_S[(index + k) % len(PAUSES_S)]
                trace = trace_for_moves(
                    board,
                    [move],
                    rng=random.Random(f"{geometry}{move}{order}"),
                    style=paused(order, pause),
                    layout=layout,
                )
                what = f"{geometry}: {board.san(move)} {order}, pauses of {pause} s"
                recognizer, events = replay(trace, answer=move)
                assert recognizer.board.move_stack == [move], what
                questions = [e for e in events if isinstance(e, Ambiguous)]
                commits = [e for e in events if isinstance(e, Committed | Revised)]
                assert all(c.moves == (move,) for c in commits), f"{what}: a wrong move was committed"
                if order == "displacement":
                    # only the capturing piece's square emptied: any of its captures fits, so it asks
                    rivals = {m for m in board.legal_moves if m.from_square == move.from_square}
                    # (promotions to the piece meant when nobody names one: a queen)
                    rivals = {m for m in rivals if board.is_capture(m) and m.promotion in (None, chess.QUEEN)}
                    assert questions, what
                    assert set(questions[0].options) == rivals, what
                    assert questions[0].question.endswith("?")
                else:
                    assert not questions, f"{what}: the victim was seen leaving; no need to ask"


def test_lifting_the_capturing_piece_and_setting_it_down_again_answers_the_question(
    layout: Layout,
) -> None:
    geometries = capture_geometries()
    for geometry in geometries[:: max(1, len(geometries) // 25)]:
        board, captures = geometry.position()
        for move in captures:
            trace = trace_for_moves(
                board,
                [move],
                rng=random.Random(str(geometry)),
                style=HandStyle.only("displacement"),
                layout=layout,
            )
            recognizer, events = replay(trace)
            assert recognizer.is_asking and recognizer.board.move_stack == []
            # the player lifts the piece that captured and sets it down: its square seen emptied and
            # filled again after the mover left is the capture's own evidence
            t = trace.entries[-1].t + AFTER_S
            occupied = recognizer.stable
            bit = chess.BB_SQUARES[move.to_square]
            for k in range(60):
                events += recognizer.feed_occupancy(
                    t + 0.02 * k, occupied & ~bit if 10 <= k < 30 else occupied
                )
            assert recognizer.board.move_stack == [move], f"{geometry}: {board.san(move)}"
            assert not recognizer.is_asking
