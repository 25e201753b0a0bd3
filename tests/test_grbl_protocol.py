"""GRBL 1.1's messages and the streaming bookkeeping, without threads or ports."""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessatron.errors import GcodeError
from chessatron.grbl.charcount import HostAction, Outgoing, Streamer, host_action, strip_line
from chessatron.grbl.codes import ALARMS, ERRORS, alarm_info, error_text
from chessatron.grbl.protocol import (
    RX_BUFFER_BYTES,
    Alarm,
    Error,
    Feedback,
    Garbled,
    LineSplitter,
    MachineState,
    Ok,
    ParserState,
    PushMessage,
    Setting,
    StartupBlock,
    StartupExecution,
    Status,
    Welcome,
    format_status,
    parse_message,
)
from chessatron.grbl.settings import check_settings, layout_settings
from chessatron.planning.gcode_parse import parse_line
from chessatron.planning.layout import Layout

# --- the code tables -------------------------------------------------------------------------------


def test_every_error_code_of_grbl_1_1_has_its_own_meaning() -> None:
    assert set(ERRORS) == set(range(1, 39))
    assigned = [ERRORS[code] for code in ERRORS if code not in (18, 19)]
    assert len(set(assigned)) == len(assigned)
    assert error_text(22) == "the feed rate is not set"
    assert "99" in error_text(99)


def test_every_alarm_says_what_happened_and_what_to_do() -> None:
    assert set(ALARMS) == set(range(1, 11))
    for code, info in ALARMS.items():
        assert info.code == code and info.meaning and info.remedy
    assert ALARMS[1].position_lost and not ALARMS[2].position_lost
    assert "$H" in ALARMS[1].remedy
    assert alarm_info(42).name == "unknown alarm"


# --- messages ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("ok", Ok()),
        ("ok\r\n", Ok()),
        (b"ok\r\n", Ok()),
        ("error:9", Error(9)),
        ("error:38", Error(38)),
        ("ALARM:1", Alarm(1)),
        ("ALARM:10", Alarm(10)),
        ("Grbl 1.1h ['$' for help]", Welcome("1.1h", "Grbl 1.1h ['$' for help]")),
        ("Grbl 0.9j ['$' for help]", Welcome("0.9j", "Grbl 0.9j ['$' for help]")),
        ("[MSG:'$H'|'$X' to unlock]", Feedback("'$H'|'$X' to unlock")),
        ("[MSG:Caution: Unlocked]", Feedback("Caution: Unlocked")),
        (
            "[GC:G0 G54 G17 G21 G90 G94 M5 M9 T0 F0 S0]",
            ParserState(("G0", "G54", "G17", "G21", "G90", "G94", "M5", "M9", "T0", "F0", "S0")),
        ),
        ("[VER:1.1h.20190830:]", PushMessage("VER", "1.1h.20190830:")),
        ("[OPT:V,15,128]", PushMessage("OPT", "V,15,128")),
        ("[G54:0.000,0.000,0.000]", PushMessage("G54", "0.000,0.000,0.000")),
        ("[PRB:0.000,0.000,0.000:0]", PushMessage("PRB", "0.000,0.000,0.000:0")),
        ("[HLP:$$ $# $G $I $N $x=val $Nx=line $J=line $SLP $C $X $H ~ ! ? ctrl-x]", None),
        ("$130=630.000", Setting(130, "630.000")),
        ("$0=10", Setting(0, "10")),
        ("$N0=G21 G90", StartupBlock(0, "G21 G90")),
        ("$N1=", StartupBlock(1, "")),
        (">G54G20:ok", StartupExecution("G54G20", "ok")),
        (">G54G20:error:7", StartupExecution("G54G20", "error:7")),
    ],
)
def test_every_kind_of_message_parses(line: str | bytes, message: object) -> None:
    parsed = parse_message(line)
    if message is None:
        assert isinstance(parsed, PushMessage) and parsed.kind == "HLP"
    else:
        assert parsed == message


def test_codes_carry_their_meanings() -> None:
    error = parse_message("error:20")
    assert isinstance(error, Error) and error.text == "unsupported or invalid g-code command"
    alarm = parse_message("ALARM:2")
    assert isinstance(alarm, Alarm) and alarm.info.name == "soft limit"
    setting = parse_message("$11=0.010")
    assert isinstance(setting, Setting) and setting.number_value == 0.01
    assert Setting(1, "abc").number_value is None


def test_a_status_report_with_every_field() -> None:
    report = (
        "<Run|MPos:10.000,-20.500,0.000|Bf:12,100|Ln:99|FS:4000,1000|Pn:XP|WCO:1.000,2.000,0.000|Ov:100,50,120"
        "|A:SF>"
    )
    status = parse_message(report)
    assert status == Status(
        "Run",
        mpos=(10.0, -20.5, 0.0),
        planner_free=12,
        rx_free=100,
        line_number=99,
        feed=4000.0,
        spindle=1000.0,
        pins="XP",
        wco=(1.0, 2.0, 0.0),
        overrides=(100, 50, 120),
        accessories="SF",
    )
    assert format_status(status) == report


def test_a_status_report_with_work_position_and_feed_only() -> None:
    status = parse_message("<Hold:1|WPos:5.000,6.000,7.000|F:500|WCO:1.000,1.000,0.000>")
    assert isinstance(status, Status)
    assert (status.state, status.substate, status.feed, status.spindle) == ("Hold", 1, 500.0, None)
    assert status.mpos is None and status.wpos == (5.0, 6.0, 7.0)
    assert status.machine_position() == (6.0, 7.0, 7.0)
    assert Status("Idle", wpos=(1.0, 1.0, 0.0)).machine_position((2.0, 3.0, 0.0)) == (3.0, 4.0, 0.0)
    assert Status("Idle", wpos=(1.0, 1.0, 0.0)).machine_position() is None


@pytest.mark.parametrize(
    "state", ["Idle", "Run", "Jog", "Alarm", "Check", "Home", "Sleep", "Door:3", "Hold:0"]
)
def test_every_machine_state_parses(state: str) -> None:
    status = parse_message(f"<{state}|MPos:0.000,0.000,0.000>")
    assert isinstance(status, Status)
    assert status.state == state.split(":")[0]
    assert status.is_alarm == (state == "Alarm")


def test_fields_grbl_does_not_define_are_kept() -> None:
    status = parse_message("<Idle|MPos:0,0,0|Xtra:1,2>")
    assert isinstance(status, Status) and status.extra == (("Xtra", "1,2"),)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "oK",
        "okay",
        "error:",
        "error:x1",
        "ALARM:",
        "<>",
        "<Idle>",
        "<Walk|MPos:0,0,0>",
        "<Hold:7|MPos:0,0,0>",
        "<Idle:1|MPos:0,0,0>",
        "<Idle|MPos:0,0,x>",
        "<Idle|MPos:nan,0,0>",
        "<Idle|MPos:1e3,0,0>",
        "<Idle|MPos:0,0,0|MPos:0,0,0>",
        "<Idle|MPos:0,0,0|WPos:0,0,0>",
        "<Idle|MPos:0,0,0|FS:1,2|F:1>",
        "<Idle|MPos:0,0,0|FS:1>",
        "<Idle|MPos:0,0,0|Bf:15>",
        "<Idle|MPos:0,0,0|Ov:100,100>",
        "<Idle|MPos:0,0,0|Pn:Q>",
        "<Idle|MPos:0,0,0|A:>",
        "<Idle|MPos:0,0,0|Bf>",
        "<Idle|MPos:0,0,0|9x:1>",
        "[MSG",
        "[no kind]",
        "Grbl",
        "GrblHAL without a version",
        "$x=1",
        ">G54",
        "\ufffdk",
        "hello world",
    ],
)
def test_unknown_or_garbled_lines_are_garbled_messages(line: str) -> None:
    message = parse_message(line)
    assert isinstance(message, Garbled), message
    assert message.reason


def test_non_ascii_bytes_make_a_line_garbled() -> None:
    assert isinstance(parse_message(b"o\xfe"), Garbled)


@given(st.text(max_size=120) | st.binary(max_size=120))
def test_the_parser_never_raises(line: str | bytes) -> None:
    parse_message(line)


_coordinate = st.integers(-1_000_000, 1_000_000).map(lambda n: n / 1000)
_axes = st.tuples(_coordinate, _coordinate, _coordinate)
_rate = st.integers(0, 30_000).map(float)


@st.composite
def _statuses(draw: st.DrawFn) -> tuple[Status, list[str]]:
    state: MachineState = draw(st.sampled_from(get_args(MachineState)))
    substate = draw(st.integers(0, 1 if state == "Hold" else 3)) if state in ("Hold", "Door") else None
    machine = draw(st.booleans())
    position = draw(_axes)
    with_spindle = draw(st.booleans())
    buffers = draw(st.none() | st.tuples(st.integers(0, 15), st.integers(0, 128)))
    status = Status(
        state,
        substate,
        mpos=position if machine else None,
        wpos=None if machine else position,
        feed=draw(st.none() | _rate),
        spindle=None,
        planner_free=None if buffers is None else buffers[0],
        rx_free=None if buffers is None else buffers[1],
        line_number=draw(st.none() | st.integers(0, 9_999_999)),
        wco=draw(st.none() | _axes),
        overrides=draw(
            st.none() | st.tuples(st.integers(10, 200), st.integers(25, 100), st.integers(10, 200))
        ),
        pins=draw(st.none() | st.text("XYZPDHRS", min_size=1, max_size=8)),
        accessories=draw(st.none() | st.text("SCFM", min_size=1, max_size=4)),
    )
    if status.feed is not None and with_spindle:
        status = replace(status, spindle=draw(_rate))
    names = ["MPos" if machine else "WPos", "Bf", "Ln", "FS" if status.spindle is not None else "F"]
    names += ["Pn", "WCO", "Ov", "A"]
    return status, draw(st.permutations(names))


@given(_statuses())
def test_status_reports_parse_back_whatever_the_field_order(case: tuple[Status, list[str]]) -> None:
    status, order = case
    text = format_status(status, order)
    assert parse_message(text) == status


def test_the_line_splitter_reassembles_lines_and_drops_blank_ones() -> None:
    splitter = LineSplitter(max_line=16)
    assert splitter.feed(b"\r\nGrbl 1.1h ['$'") == []
    assert splitter.feed(b" for help]\r\nok\r") == ["Grbl 1.1h ['$' for help]"]
    assert splitter.feed(b"\nerr") == ["ok"]
    splitter.clear()
    assert splitter.feed(b"ok\n") == ["ok"]
    assert splitter.feed(b"x" * 20) == ["x" * 20]  # noise without a line end is cut off
    assert splitter.feed(b"\xfe\n") == ["\ufffd"]


# --- streaming bookkeeping -------------------------------------------------------------------------


def _drain(streamer: Streamer) -> list[Outgoing]:
    sent = []
    while (item := streamer.next_item()) is not None:
        streamer.mark_sent(item)
        sent.append(item)
    return sent


def test_lines_go_without_comments_or_spaces_and_keep_their_numbers() -> None:
    streamer = Streamer(["G21 G90", "(MOVE 1 e2e4)", "", "g0 x10 (travel) y20", "; done"], final_sync=False)
    sent = _drain(streamer)
    assert [(item.data, item.line) for item in sent] == [(b"G21G90\n", 1), (b"G0X10Y20\n", 4)]
    assert [streamer.state(n) for n in range(1, 6)] == ["sent", "pending", "pending", "sent", "pending"]
    streamer.acknowledge(Ok())
    assert [streamer.state(n) for n in range(1, 6)] == ["ok", "ok", "ok", "sent", "pending"]
    streamer.acknowledge(Error(20))
    assert streamer.states() == ("ok", "ok", "ok", "error", "ok")
    assert streamer.is_finished


def test_the_buffer_is_filled_but_never_overfilled() -> None:
    program = [f"G1 X{i:03d}.123 Y{i:03d}.456 F4000" for i in range(40)]  # 24 bytes a line
    streamer = Streamer(program, final_sync=False)
    sent = _drain(streamer)
    assert len(sent) == RX_BUFFER_BYTES // 24
    assert streamer.in_flight_bytes == sum(len(item.data) for item in sent) <= RX_BUFFER_BYTES
    ack = streamer.acknowledge(Ok())
    assert ack is not None and ack.item is sent[0]
    assert [item.line for item in _drain(streamer)] == [len(sent) + 1]


def test_system_commands_go_alone_after_a_sync() -> None:
    streamer = Streamer(["G0 X1", "$H", "G0 X2", "$J=G91 X1 F100"], final_sync=False)
    assert [item.data for item in _drain(streamer)] == [b"G0X1\n", b"G4P0\n"]
    streamer.acknowledge(Ok())
    assert _drain(streamer) == []  # the sync must be answered first
    streamer.acknowledge(Ok())
    assert [item.data for item in _drain(streamer)] == [b"$H\n"]
    streamer.acknowledge(Ok())
    assert [item.data for item in _drain(streamer)] == [b"G0X2\n", b"$J=G91X1F100\n"]


def test_a_marker_after_a_dwell_runs_when_the_dwell_is_answered() -> None:
    streamer = Streamer(["G0 X10", "G4 P0", "(note)", "(MAGNET ON)", "G4 P0.2", "G1 X20 F4000"])
    sent = _drain(streamer)
    assert [(item.data, item.line) for item in sent] == [(b"G0X10\n", 1), (b"G4P0\n", 2)]
    assert sent[1].action == HostAction("magnet-on", "MAGNET ON", 4)
    first, second = streamer.acknowledge(Ok()), streamer.acknowledge(Ok())
    assert first is not None and first.action is None
    assert second is not None and second.action == sent[1].action
    assert streamer.state(4) == "pending"  # until the host says the magnet is on


def test_host_actions_block_the_stream_until_they_are_done() -> None:
    streamer = Streamer(["G0 X10", "G4 P0", "(MAGNET ON)", "G4 P0.2", "G1 X20 F4000"])
    _drain(streamer)
    streamer.acknowledge(Ok())
    ack = streamer.acknowledge(Ok())
    assert ack is not None and ack.action == HostAction("magnet-on", "MAGNET ON", 3)
    assert _drain(streamer) == []  # the servo is still turning
    streamer.host_done(ack.action, ran=True)
    assert streamer.state(3) == "ok" and streamer.host_magnet_on
    sent = []
    while items := _drain(streamer):  # the magnet is on: one accepted line at a time
        sent += [item.data for item in items]
        assert len(items) == 1
        streamer.acknowledge(Ok())
    assert sent == [b"G4P0.2\n", b"G1X20F4000\n", b"G4P0\n"]


def test_a_marker_without_a_dwell_gets_one_of_the_streamers_own() -> None:
    streamer = Streamer(["G1 X20 F4000", "(MAGNET OFF)"], final_sync=False)
    sent = _drain(streamer)
    assert [(item.data, item.line) for item in sent] == [(b"G1X20F4000\n", 1), (b"G4P0\n", None)]
    assert sent[1].action == HostAction("magnet-off", "MAGNET OFF", 2)


def test_a_magnet_is_switched_on_only_after_every_line_before_is_accepted() -> None:
    streamer = Streamer(["G0 X10", "M8", "G1 X20 F4000", "M9"])
    assert [item.data for item in _drain(streamer)] == [b"G0X10\n"]
    streamer.acknowledge(Ok())
    assert [item.data for item in _drain(streamer)] == [b"M8\n"]
    streamer.acknowledge(Ok())
    assert [item.data for item in _drain(streamer)] == [b"G1X20F4000\n"]
    streamer.acknowledge(Ok())
    assert [item.data for item in _drain(streamer)] == [b"M9\n"]
    # nothing goes past a release until GRBL has accepted it (a refused M9 leaves the magnet on)
    assert _drain(streamer) == []
    streamer.acknowledge(Ok())
    assert [item.data for item in _drain(streamer)] == [b"G4P0\n"]


def test_an_error_inside_a_drag_stops_it_at_the_last_accepted_line() -> None:
    # GRBL runs whatever is in its buffer behind a line it rejects: a drag must never be there ahead of
    # its acceptance, or the piece would travel on after the error
    drag = [f"G1 X{i:03d}.123 Y{i:03d}.456 F4000" for i in range(10)]
    streamer = Streamer(["G0 X10", "M3 S1000", "G4 P0.2", *drag, "M5", "G4 P0.2", "G0 X0"])
    _drain(streamer)
    streamer.acknowledge(Ok())
    for expected in (2, 3, 4, 5):  # the engage, the settle dwell, two drag lines: one at a time
        assert [item.line for item in _drain(streamer)] == [expected]
        assert streamer.magnet_engaged  # as sent: M3 went, M5 not yet
        if expected < 5:
            streamer.acknowledge(Ok())
    ack = streamer.acknowledge(Error(33))
    assert ack is not None and ack.item.line == 5
    streamer.halt()
    assert [item.data for item in _drain(streamer)] == [b"M5\n", b"G4P0\n"]  # nothing of the drag after it
    while streamer.in_flight:
        streamer.acknowledge(Ok())
    assert streamer.is_finished and not streamer.magnet_engaged
    states = streamer.states()
    assert states[:5] == ("ok", "ok", "ok", "ok", "error")
    assert set(states[5:]) == {"pending"}
    assert streamer.result(None, 1.0).completed_through == 4


def test_a_halt_with_the_host_magnet_on_releases_it_at_a_sync() -> None:
    streamer = Streamer(["G4 P0", "(MAGNET ON)", "G1 X20 F4000", "G4 P0", "(MAGNET OFF)"])
    _drain(streamer)
    ack = streamer.acknowledge(Ok())
    assert ack is not None and ack.action is not None
    streamer.host_done(ack.action, ran=True)
    streamer.halt()
    (release,) = [item for item in _drain(streamer) if item.action is not None]
    assert release.action is not None and release.action.is_release


@pytest.mark.parametrize("line", ["G1 X1 ?", "G0 X1!", "G0 ~X1", "G0 X1\x85", "G0 X1 é"])
def test_real_time_characters_in_a_line_are_refused_before_anything_is_sent(line: str) -> None:
    with pytest.raises(GcodeError, match="real-time"):
        Streamer(["G0 X0", line])


def test_comments_may_hold_any_character() -> None:
    assert strip_line("G0 X1 (what? now!)") == ("G0X1", ("what? now!",))
    Streamer(["G0 X1 (what? now!)"])


def test_lines_go_out_as_grbl_reads_them_and_as_the_program_check_reads_them() -> None:
    # protocol.c: block delete ignored, only a-z upper-cased, an open comment runs to the end of the line
    assert strip_line("g1 /x10 y2 (open") == ("G1X10Y2", ("open",))
    assert parse_line("g1 /x10 y2").words == (("G", 1.0), ("X", 10.0), ("Y", 2.0))
    with pytest.raises(GcodeError, match="unclosed"):
        parse_line("g1 x10 (open")


def test_lines_too_long_for_grbl_are_refused() -> None:
    with pytest.raises(GcodeError, match="79"):
        Streamer(["G1 " + " ".join(f"X{i}" for i in range(30))])
    with pytest.raises(GcodeError, match="line break"):
        Streamer(["G0 X1\nG0 X2"])


def test_host_markers() -> None:
    assert host_action("MAGNET  off") == HostAction("magnet-off", "MAGNET OFF", 0)
    assert host_action("host beep") == HostAction("host", "BEEP", 0)
    assert host_action("HOST") is None and host_action("magnet") is None
    with pytest.raises(GcodeError, match="two host actions"):
        Streamer(["(MAGNET ON) (MAGNET OFF)"])


_lines = st.one_of(
    st.builds(lambda x, y: f"G1 X{x} Y{y} F4000", st.integers(0, 99999), st.integers(0, 99999)),
    st.builds(lambda n: "G0 X" + "1" * n, st.integers(1, 70)),
    st.sampled_from(["(comment)", "", "M3 S1000", "M5", "G4 P0.2", "G4 P0", "(MAGNET ON)", "(MAGNET OFF)"]),
    st.sampled_from(["$H", "$X", "M8", "M9", "(HOST beep)"]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_lines, max_size=60), st.lists(st.sampled_from(["send", "ok", "error", "ok", "send"])))
def test_streaming_bookkeeping_keeps_the_buffer_the_order_and_the_answers(
    program: list[str], events: list[str]
) -> None:
    streamer = Streamer(program)
    in_flight: deque[Outgoing] = deque()
    sent: list[Outgoing] = []
    waiting: HostAction | None = None
    for event in [*events, *["send", "ok"] * 200]:
        if event == "send":
            for item in _drain(streamer):
                in_flight.append(item)
                sent.append(item)
        elif in_flight:
            ack = streamer.acknowledge(Ok() if event == "ok" else Error(20))
            assert ack is not None and ack.item is in_flight.popleft()  # answers pop the oldest
            if ack.action is not None:
                waiting = ack.action
                assert streamer.next_item() is None  # nothing goes out while the host acts
                streamer.host_done(waiting, ran=True)
        assert streamer.in_flight_bytes == sum(len(item.data) for item in in_flight) <= RX_BUFFER_BYTES
        if streamer.magnet_engaged:
            assert len(in_flight) <= 1  # a drag: only the line GRBL is being asked to accept
    assert streamer.is_finished
    # Every program line with g-code went out exactly once, in program order.
    assert [item.line for item in sent if item.line is not None] == [
        line.number for line in streamer.program if line.block is not None
    ]
    assert all(item.data.endswith(b"\n") and b"\r" not in item.data for item in sent)
    assert all(state in ("ok", "error") for state in streamer.states())


# --- settings --------------------------------------------------------------------------------------


def _numbers(settings: dict[int, str]) -> dict[int, float]:
    return {number: float(value) for number, value in settings.items()}


def test_settings_made_for_a_layout_raise_no_warning() -> None:
    layout = Layout.default()
    assert check_settings(_numbers(layout_settings(layout)), layout) == []


@pytest.mark.parametrize(
    ("number", "value", "words"),
    [
        (130, 400.0, "$130"),
        (131, 100.0, "$131"),
        (32, 1.0, "laser mode"),
        (22, 0.0, "homing is off"),
        (110, 6000.0, "$110"),
        (111, 6000.0, "$111"),
        (120, 100.0, "$120"),
        (121, 100.0, "$121"),
        (11, 0.05, "$11"),
    ],
)
def test_settings_that_disagree_with_the_layout_are_named(number: int, value: float, words: str) -> None:
    layout = Layout.default()
    settings = _numbers(layout_settings(layout))
    settings[number] = value
    (warning,) = check_settings(settings, layout)
    assert words in warning


def test_without_a_layout_only_laser_mode_is_checked() -> None:
    assert check_settings({32: 1.0, 110: 1.0}, None)[0].startswith("laser mode")
    assert check_settings({32: 0.0, 110: 1.0}, None) == []


def test_a_rejected_release_still_gets_the_magnet_released() -> None:
    """GRBL refusing the M5 that ends a drag leaves the magnet on: halting must queue a release."""
    from chessatron.grbl.charcount import Streamer
    from chessatron.grbl.protocol import Error, Ok

    streamer = Streamer(["G0 X10 Y10", "M3 S1000", "G1 X20 Y10 F4000", "M5", "G4 P0.2"])
    sent_after_halt: list[bytes] = []
    halted = False
    for _ in range(20):
        item = streamer.next_item()
        if item is not None:
            streamer.mark_sent(item)
            if halted:
                sent_after_halt.append(item.data)
            continue
        if not streamer.in_flight:
            break
        oldest = streamer.in_flight[0]
        refused = oldest.data == b"M5\n" and not halted
        streamer.acknowledge(Error(20) if refused else Ok())
        if refused:
            streamer.halt()
            halted = True
    assert halted and sent_after_halt[:1] == [b"M5\n"]
