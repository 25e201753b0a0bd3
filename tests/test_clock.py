"""The chess clock: time controls as players type them, increments, pauses that charge nobody, flag falls
at exactly zero and what they mean for the result, and a clock rebuilt from a journal after a crash."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chessatron.errors import ChessatronError, ClockError, ConfigError
from chessatron.game.clock import (
    MAX_INCREMENT_S,
    MAX_INITIAL_S,
    ChessClock,
    flag_outcome,
    format_clock,
    format_control,
    parse_clock,
)
from chessatron.game.records.journal import GameMetadata, Journal, read_journal
from chessatron.game.records.record import ClockSettings

W, B = chess.WHITE, chess.BLACK


class FakeTime:
    """A monotonic clock that only moves when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def fake() -> FakeTime:
    return FakeTime()


def clock_of(text: str, fake: FakeTime) -> ChessClock:
    return ChessClock(parse_clock(text), now=fake)


# --- parse_clock -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "initial_s", "increment_s"),
    [
        ("5+3", 300, 3),
        ("5", 300, 0),
        ("90+30", 5400, 30),
        ("1+0", 60, 0),
        ("0.5+0", 30, 0),
        ("0.5+1", 30, 1),
        ("3m+2s", 180, 2),
        ("300s+2s", 300, 2),
        ("300s+2", 300, 2),
        ("300m+2", 18000, 2),
        (" 15 + 10 ", 900, 10),
        ("5|3", 300, 3),
        ("1h+30s", 3600, 30),
        ("2min+1sec", 120, 1),
        ("3M+2S", 180, 2),
        ("45s", 45, 0),
        ("1+0.5m", 60, 30),
    ],
)
def test_parse_clock_reads_the_forms_players_write(text: str, initial_s: int, increment_s: int) -> None:
    assert parse_clock(text) == ClockSettings(initial_s, increment_s)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", r"such as 5\+3"),
        ("blitz", r"such as 5\+3"),
        ("5+", r"such as 5\+3"),
        ("+3", r"such as 5\+3"),
        ("-5+3", r"such as 5\+3"),
        ("5+-3", r"such as 5\+3"),
        ("5x+3", r"such as 5\+3"),
        ("5+3+2", r"such as 5\+3"),
        ("40/7200", r"such as 5\+3"),
        ("0+2", "no time to start with"),
        ("0", "no time to start with"),
        ("0.0s+0", "no time to start with"),
        ("1.5s+0", "not a whole number of seconds"),
        ("5+0.5", "not a whole number of seconds"),
        ("0.01+0", "not a whole number of seconds"),
        (
            "300+2",
            r"write 300s\+2 for seconds .* or 300m\+2",
        ),  # the PGN form: 300 bare minutes is five hours, ask which was meant
        ("25h", "at most 24 hours"),
        ("5+2h", "1 hour a move"),
        ("1" * 40, r"such as 5\+3"),
    ],
)
def test_parse_clock_rejects_with_an_example(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says) as info:
        parse_clock(text)
    assert repr(text) in str(info.value)


@given(st.text())
def test_parse_clock_never_raises_anything_but_config_error(text: str) -> None:
    try:
        settings = parse_clock(text)
    except ConfigError:
        return
    assert 0 < settings.initial_s <= MAX_INITIAL_S
    assert 0 <= settings.increment_s <= MAX_INCREMENT_S


@given(st.from_regex(r"[0-9.+|hmins ]{0,14}", fullmatch=True))
def test_parse_clock_near_misses_are_config_errors_or_valid(text: str) -> None:
    try:
        settings = parse_clock(text)
    except ConfigError:
        return
    assert settings.initial_s > 0


@given(st.integers(1, MAX_INITIAL_S), st.integers(0, MAX_INCREMENT_S))
def test_format_control_reads_back(initial_s: int, increment_s: int) -> None:
    settings = ClockSettings(initial_s, increment_s)
    assert parse_clock(format_control(settings)) == settings


# --- format_clock ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ms", "shown"),
    [
        (300_000, "5:00"),
        (59_999, "0:59"),
        (59_000, "0:59"),
        (10_000, "0:10"),
        (9_999, "0:09.9"),
        (9_850, "0:09.8"),
        (100, "0:00.1"),
        (99, "0:00.0"),
        (0, "0:00.0"),
        (-500, "0:00.0"),
        (3_599_999, "59:59"),
        (3_600_000, "1:00:00"),
        (3_723_000, "1:02:03"),
        (36_000_000, "10:00:00"),
    ],
)
def test_format_clock(ms: int, shown: str) -> None:
    assert format_clock(ms) == shown


# --- running the clock -----------------------------------------------------------------------------


def test_a_new_clock_is_stopped_at_the_initial_time(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    fake.advance(60)
    assert clock.remaining_ms(W) == clock.remaining_ms(B) == 300_000
    assert clock.running is None and clock.turn is None and not clock.paused
    assert clock.flagged() is None and clock.seconds_until_flag() is None


def test_the_running_side_counts_down_live(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    clock.start(W)
    fake.advance(1.25)
    assert clock.running == W
    assert clock.remaining_ms(W) == 298_750
    assert clock.remaining_ms(B) == 300_000
    assert clock.seconds_until_flag() == pytest.approx(298.75)


def test_press_adds_the_increment_and_starts_the_other_side(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    clock.start(W)
    fake.advance(10)
    assert clock.press(W) == 293_000  # 300 - 10 + 3 s
    assert clock.running == B
    fake.advance(4)
    assert clock.remaining_ms(W) == 293_000  # white's time stands still on black's turn
    assert clock.press(B) == 299_000
    fake.advance(0.5)
    assert clock.press(W) == 295_500
    assert clock.to_dict() == {
        "white_ms": 295_500,
        "black_ms": 299_000,
        "running": "black",
        "paused": False,
        "control": "5+3",
    }


def test_a_fast_mover_gains_time_with_increments(fake: FakeTime) -> None:
    clock = clock_of("1+2", fake)
    clock.start(W)
    for _ in range(10):
        fake.advance(0.1)
        clock.press(W)
        fake.advance(0.1)
        clock.press(B)
    assert clock.remaining_ms(W) == clock.remaining_ms(B) == 60_000 + 10 * 1_900


def test_many_tiny_moves_do_not_drift(fake: FakeTime) -> None:
    clock = clock_of("1+0", fake)
    clock.start(W)
    for _ in range(500):
        fake.advance(0.1)
        clock.press(W)
        clock.press(B)
    assert clock.remaining_ms(W) == 10_000
    assert clock.remaining_ms(B) == 60_000


def test_press_for_the_side_not_on_turn_is_refused(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    clock.start(W)
    fake.advance(5)
    with pytest.raises(ClockError, match="pressed for black but it is white's turn"):
        clock.press(B)
    assert isinstance(ClockError("x"), ChessatronError)
    assert clock.running == W and clock.remaining_ms(W) == 295_000  # nothing changed


def test_press_before_the_start_is_refused(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    with pytest.raises(ClockError, match="before it was started; call start"):
        clock.press(W)


def test_start_is_idempotent_but_cannot_take_over_the_other_sides_time(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    clock.start(W)
    fake.advance(2)
    clock.start(W)
    assert clock.remaining_ms(W) == 298_000
    with pytest.raises(ClockError, match="while white's is running; press the clock for white"):
        clock.start(B)


def test_pause_charges_nobody(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    clock.start(W)
    fake.advance(10)
    clock.pause()
    assert clock.running is None and clock.paused and clock.turn == W
    assert clock.seconds_until_flag() is None
    assert clock.to_dict()["running"] is None
    fake.advance(600)  # the robot resets the table for ten minutes
    assert clock.remaining_ms(W) == 290_000
    assert clock.flagged() is None
    clock.pause()  # twice is fine
    clock.resume()
    assert clock.running == W and not clock.paused
    fake.advance(5)
    assert clock.remaining_ms(W) == 285_000
    clock.resume()  # resuming a running clock changes nothing
    assert clock.remaining_ms(W) == 285_000
    assert clock.remaining_ms(B) == 300_000


def test_press_while_paused_hands_over_the_turn_and_stays_paused(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    clock.start(W)
    fake.advance(10)
    clock.pause()
    fake.advance(100)
    assert clock.press(W) == 293_000
    assert clock.paused and clock.turn == B
    fake.advance(100)
    assert clock.remaining_ms(B) == 300_000
    clock.resume()
    fake.advance(1)
    assert clock.remaining_ms(B) == 299_000


def test_resume_before_the_start_is_refused(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    clock.pause()  # nothing running: nothing to do
    with pytest.raises(ClockError, match="never started; call start"):
        clock.resume()


# --- flag falls ------------------------------------------------------------------------------------


def test_the_flag_falls_at_exactly_zero(fake: FakeTime) -> None:
    clock = clock_of("1+0", fake)
    clock.start(W)
    fake.advance(59.999)
    assert clock.flagged() is None
    assert clock.remaining_ms(W) == 1
    assert clock.seconds_until_flag() == pytest.approx(0.001)
    fake.advance(0.001)
    assert clock.flagged() == W
    assert clock.remaining_ms(W) == 0
    assert clock.seconds_until_flag() == 0.0
    fake.advance(30)
    assert clock.remaining_ms(W) == 0  # never below zero
    assert clock.flagged() == W


def test_a_press_after_the_flag_fell_adds_nothing_and_stops_the_clock(fake: FakeTime) -> None:
    clock = clock_of("1+5", fake)
    clock.start(W)
    fake.advance(61)
    assert clock.press(W) == 0
    assert clock.flagged() == W  # the increment does not raise a fallen flag
    assert clock.running is None
    fake.advance(100)
    assert clock.remaining_ms(B) == 60_000


def test_black_can_flag_too(fake: FakeTime) -> None:
    clock = clock_of("0.5+0", fake)
    clock.start(W)
    clock.press(W)
    fake.advance(30)
    assert clock.flagged() == B


def test_flag_loses_for_the_flagged_side() -> None:
    board = chess.Board()
    assert flag_outcome(board, W) == ("0-1", "time forfeit")
    assert flag_outcome(board, B) == ("1-0", "time forfeit")


def test_flag_with_a_bare_king_loses_to_a_queen() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")  # black has only its king
    assert flag_outcome(board, B) == ("1-0", "time forfeit")


def test_flag_against_a_bare_king_is_a_draw() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")  # white has a queen, black cannot mate
    assert flag_outcome(board, W) == ("1/2-1/2", "time forfeit")


@pytest.mark.parametrize(
    ("fen", "flagged", "result"),
    [
        ("4k3/8/8/8/8/8/8/2BQK3 w - - 0 1", W, "1/2-1/2"),  # black: bare king
        ("4kn2/8/8/8/8/8/8/3QK3 w - - 0 1", W, "1/2-1/2"),  # a lone knight cannot force or help mate
        ("4kr2/8/8/8/8/8/8/3QK3 w - - 0 1", W, "0-1"),  # a rook can mate
        ("4k3/4p3/8/8/8/8/8/3QK3 w - - 0 1", W, "0-1"),  # a pawn may promote
        ("4kb2/8/8/8/8/8/8/3QK3 w - - 0 1", W, "1/2-1/2"),  # a lone bishop cannot mate a king and queen
        ("4kb2/8/8/8/8/8/8/2NQK3 w - - 0 1", W, "0-1"),  # ...but can when a knight may block its king
    ],
)
def test_flag_outcome_asks_whether_the_opponent_could_mate(
    fen: str, flagged: chess.Color, result: str
) -> None:
    assert flag_outcome(chess.Board(fen), flagged)[0] == result


# --- restoring -------------------------------------------------------------------------------------


def test_restore_sets_times_and_waits_for_resume(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    clock.start(W)
    fake.advance(20)
    clock.restore(100_000, 200_000, B)
    assert clock.running is None and clock.turn == B
    fake.advance(50)
    assert (clock.remaining_ms(W), clock.remaining_ms(B)) == (100_000, 200_000)
    clock.resume()
    fake.advance(1)
    assert (clock.remaining_ms(W), clock.remaining_ms(B)) == (100_000, 199_000)


def test_restore_refuses_negative_times(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    with pytest.raises(ClockError, match="-1"):
        clock.restore(-1, 0, W)


def test_a_side_restored_at_zero_has_flagged(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    clock.restore(0, 1000, W)
    assert clock.flagged() == W


def test_from_readings_takes_each_sides_last_reading(fake: FakeTime) -> None:
    settings = ClockSettings(300, 2)
    clock = ChessClock.from_readings(settings, [290_000, 295_500, None, 280_000, None], now=fake)
    # white moved at plies 1, 3, 5 (last reading 290 s), black at 2 and 4
    assert (clock.remaining_ms(W), clock.remaining_ms(B)) == (290_000, 280_000)
    assert clock.turn == B and clock.paused
    fake.advance(3600)  # the outage is charged to nobody
    clock.resume()
    fake.advance(1)
    assert clock.remaining_ms(B) == 279_000


def test_from_readings_of_no_moves_is_a_fresh_clock(fake: FakeTime) -> None:
    clock = ChessClock.from_readings(ClockSettings(60), [], first=B, now=fake)
    assert (clock.remaining_ms(W), clock.remaining_ms(B), clock.turn) == (60_000, 60_000, B)


def test_from_readings_follows_the_first_mover(fake: FakeTime) -> None:
    clock = ChessClock.from_readings(ClockSettings(60), [50_000], first=B, now=fake)
    assert (clock.remaining_ms(W), clock.remaining_ms(B), clock.turn) == (60_000, 50_000, W)


def test_a_journaled_game_resumes_with_its_clock(tmp_path: Path, fake: FakeTime) -> None:
    settings = parse_clock("5+3")
    clock = ChessClock(settings, now=fake)
    meta = GameMetadata(clock=settings, started=dt.datetime(2024, 5, 12, tzinfo=dt.UTC))
    with Journal.create(tmp_path, meta) as journal:
        clock.start(W)
        for uci, mover, think_s in (("e2e4", W, 4.0), ("e7e5", B, 7.5), ("g1f3", W, 1.0)):
            fake.advance(think_s)
            journal.record_move(chess.Move.from_uci(uci), "board", clock_ms=clock.press(mover))
        before = clock.to_dict()
    state = read_journal(journal.path)  # ...the power went off for an hour
    fake.advance(3600)
    resumed = ChessClock.from_journal(state, now=fake)
    assert resumed.to_dict() == {**before, "running": None, "paused": True}
    resumed.resume()
    assert resumed.to_dict() == before


def test_from_journal_refuses_a_game_without_a_clock(tmp_path: Path) -> None:
    with Journal.create(tmp_path, GameMetadata()) as journal:
        pass
    with pytest.raises(ClockError, match="without a clock"):
        ChessClock.from_journal(read_journal(journal.path))


def test_repr_shows_the_times(fake: FakeTime) -> None:
    clock = clock_of("5+3", fake)
    clock.start(W)
    fake.advance(0.5)
    assert repr(clock) == "ChessClock('5+3', white='4:59', black='5:00', running='white')"
