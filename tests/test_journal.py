"""The game journal survives a power cut at any byte, and the saved-games folder lists, resumes, exports
and imports games."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
import os
import random
import re
import threading
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import chess
import pytest

from chessatron.errors import (
    CannotResumeError,
    GameFileError,
    GameInUseError,
    GameNotFoundError,
    GameSaveError,
    IllegalMoveError,
    JournalError,
)
from chessatron.game.records import store
from chessatron.game.records.compact import encode_compact
from chessatron.game.records.journal import (
    GameMetadata,
    Journal,
    JournalState,
    RobotProgress,
    parse_journal,
    read_journal,
)
from chessatron.game.records.pgn import read_pgn_games, to_pgn
from chessatron.game.records.record import ClockSettings, GameRecord, Player

M = chess.Move.from_uci
START = dt.datetime(2024, 5, 12, 15, 30, 12, tzinfo=dt.UTC)


def ticking(start: dt.datetime = START) -> Callable[[], dt.datetime]:
    """A fake clock that moves on a second at every reading."""
    seconds = iter(range(1, 10**6))
    return lambda: start + dt.timedelta(seconds=next(seconds))


def metadata(**fields: object) -> GameMetadata:
    defaults: dict[str, object] = {
        "white": Player("Ann", "board"),
        "black": Player("Stockfish", "engine", "8"),
        "clock": ClockSettings(300, 2),
        "config": {"table": "default", "magnet": "grbl://"},
        "game_id": "3fa2b1c4",
        "started": START,
    }
    return GameMetadata(**{**defaults, **fields})  # type: ignore[arg-type]


def play(journal: Journal, *moves: str, who: str = "board") -> None:
    """Journal each move, then the robot's two relocations for it, as a session does."""
    for uci in moves:
        journal.record_move(M(uci), who, clock_ms=290_000)
        journal.robot_begin([f"lift {uci[:2]}", f"drop {uci[2:4]}"])
        journal.robot_done(0)
        journal.robot_done(1)


SCHOLARS_MATE = ("e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7")


@pytest.fixture
def finished(tmp_path: Path) -> Iterator[tuple[Path, list[JournalState]]]:
    """A finished game's journal, and the state after each of its lines."""
    states = []
    with Journal.create(tmp_path, metadata(), now=ticking()) as journal:
        states.append(journal.state)
        for uci in SCHOLARS_MATE:
            journal.record_move(M(uci), "board")
            states.append(journal.state)
            journal.robot_begin([f"lift {uci[:2]}", f"drop {uci[2:4]}"])
            states.append(journal.state)
            for index in (0, 1):
                journal.robot_done(index)
                states.append(journal.state)
        journal.finish("1-0", "checkmate")
        states.append(journal.state)
    yield journal.path, states


# --- writing and reading ---------------------------------------------------------------------------


def test_a_journal_reads_back_as_it_was_written(finished: tuple[Path, list[JournalState]]) -> None:
    path, states = finished
    state = read_journal(path)
    assert state == states[-1]
    assert [entry.move.uci() for entry in state.moves] == list(SCHOLARS_MATE)
    assert [entry.san for entry in state.moves][-1] == "Qxf7#"
    assert state.result == "1-0" and state.termination == "checkmate" and state.is_finished
    assert state.metadata == metadata()
    assert state.robot == RobotProgress(7, ("lift h5", "drop f7"), (0, 1)) and state.pending_robot is None
    assert path.name == "20240512T153012Z-3fa2b1c4.jsonl"
    record = state.to_record()
    assert record.board().is_checkmate() and record.date == dt.date(2024, 5, 12)
    assert record.white == Player("Ann", "board") and record.clock == ClockSettings(300, 2)


def test_every_line_is_one_json_record_of_the_documented_shape(
    finished: tuple[Path, list[JournalState]],
) -> None:
    lines = [json.loads(line) for line in finished[0].read_text(encoding="utf-8").splitlines()]
    assert [line["type"] for line in lines[:5]] == [
        "start",
        "move",
        "robot-begin",
        "robot-done",
        "robot-done",
    ]
    assert lines[0]["format"] == "chessatron-journal/1" and lines[0]["number"] == 518
    assert lines[0]["black"] == {"name": "Stockfish", "kind": "engine", "level": "8"}
    assert lines[1] == {
        "type": "move",
        "time": "2024-05-12T15:30:13+00:00",
        "ply": 1,
        "uci": "e2e4",
        "san": "e4",
        "who": "board",
        "crc": lines[1]["crc"],
    }
    assert lines[2]["operations"] == ["lift e2", "drop e4"]
    assert lines[-1] == {
        "type": "result",
        "time": lines[-1]["time"],
        "result": "1-0",
        "termination": "checkmate",
        "crc": lines[-1]["crc"],
    }
    # every line ends in its checksum: the CRC-32 of the line without it, as 8 hex digits
    for raw in finished[0].read_bytes().splitlines():
        body, crc = raw[: -len(b',"crc":"12345678"}')], raw[-len(b'12345678"}') : -2]
        assert zlib.crc32(body + b"}") == int(crc, 16), raw


def test_a_power_cut_at_any_byte_loses_at_most_the_line_being_written(
    finished: tuple[Path, list[JournalState]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path, states = finished
    data = path.read_bytes()
    first_line = data.index(b"\n") + 1
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data)
    for offset in range(len(data), -1, -1):
        os.truncate(cut, offset)  # as the disk holds it after the power cut
        if offset < first_line:
            with pytest.raises(GameFileError, match="no complete start line"):
                read_journal(cut)
            continue
        with caplog.at_level(logging.WARNING):
            caplog.clear()
            state = read_journal(cut)
        whole = data[:offset].count(b"\n")
        torn = not data[:offset].endswith(b"\n")
        assert dataclasses.replace(state, torn=False) == states[whole - 1]
        assert state.torn == torn and ("torn last line" in caplog.text) == torn
        played = [entry.move.uci() for entry in state.moves]
        assert played == list(SCHOLARS_MATE[: len(played)])


def test_a_crash_with_takebacks_and_draw_offers_still_reads_as_some_earlier_moment(tmp_path: Path) -> None:
    with Journal.create(tmp_path, metadata(), now=ticking()) as journal:
        states = [journal.state]
        steps: list[Callable[[], object]] = [
            lambda: journal.record_move(M("e2e4"), "board"),
            lambda: journal.offer_draw(chess.BLACK),
            lambda: journal.record_move(M("e7e5"), "engine:8"),
            lambda: journal.take_back(2),
            lambda: journal.robot_begin(["e5 to e7", "e4 to e2"]),
            lambda: journal.robot_done(1),
            lambda: journal.record_move(M("d2d4"), "keyboard"),
            lambda: journal.resign(chess.BLACK),
        ]
        for step in steps:
            step()
            states.append(journal.state)
    data = journal.path.read_bytes()
    ends = [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    for offset in range(ends[0], len(data) + 1):
        state = parse_journal(data[:offset])
        whole = sum(end <= offset for end in ends)
        assert dataclasses.replace(state, torn=False) == states[whole - 1]
    final = states[-1]
    assert (
        [e.san for e in final.moves] == ["d4"]
        and final.result == "1-0"
        and final.termination == "resignation"
    )


def flip(line: bytes, old: bytes, new: bytes) -> bytes:
    """``line`` with one byte of ``old`` changed, as one flipped bit of a failing card changes it."""
    assert len(old) == len(new) and sum(a != b for a, b in zip(old, new, strict=True)) == 1
    assert old in line
    return line.replace(old, new)


def unsealed(data: bytes) -> bytes:
    """A journal as chessatron wrote them before every line had its checksum."""
    return re.sub(rb',"crc":"[0-9a-f]{8}"\}$', b"}", data, flags=re.MULTILINE)


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda line: b'{"type": "move", "ply"', "is damaged (it is not valid JSON"),  # a torn block
        (lambda line: b"\x00" * len(line), "is damaged (it is not UTF-8"),  # a block of zeros
        (lambda line: flip(line, b'"san":"Bc4"', b'"san":"Bb4"'), "is damaged (its checksum does not match)"),
        (lambda line: flip(line, b'"ply":3', b'"ply":2'), "is damaged (its checksum does not match)"),
    ],
    ids=["garbage", "zeros", "flipped san", "flipped ply"],
)
def test_damage_before_the_last_line_keeps_every_move_before_it_and_says_what_was_dropped(
    finished: tuple[Path, list[JournalState]],
    caplog: pytest.LogCaptureFixture,
    damage: Callable[[bytes], bytes],
    why: str,
) -> None:
    """A failing SD card damaged the line of 2. Bc4: the game reads up to 1... e5, listed and resumable."""
    path = finished[0]
    lines = path.read_bytes().split(b"\n")
    number = next(i for i, line in enumerate(lines, start=1) if b'"san":"Bc4"' in line)
    lines[number - 1] = damage(lines[number - 1])
    path.write_bytes(b"\n".join(lines))
    with caplog.at_level(logging.WARNING):
        state = read_journal(path)
    assert [entry.san for entry in state.moves] == ["e4", "e5"] and not state.is_finished
    (warning,) = [r.getMessage() for r in caplog.records]
    assert f"line {number} {why}" in warning and "kept the game up to 1... e5" in warning
    # what the dropped lines still say, to play it again (not what the damaged line says)
    assert "dropped 21 lines from there, which held" in warning and "(Nc6 Qh5 Nf6 Qxf7#)" in warning
    (listed,) = store.list_games(path.parent)
    assert listed.plies == 2 and listed.is_open
    resumable = store.latest_resumable(path.parent)
    assert resumable is not None and resumable.game_id == "3fa2b1c4"


@pytest.mark.parametrize(
    ("old", "new"),
    [(b'"san":"Bc4"', b'"san":"Bb4"'), (b'"uci":"f1c4"', b'"uci":"f1c5"'), (b'"ply":3', b'"ply":2')],
)
def test_a_journal_without_checksums_is_read_up_to_a_line_that_does_not_follow(
    finished: tuple[Path, list[JournalState]], caplog: pytest.LogCaptureFixture, old: bytes, new: bytes
) -> None:
    """Journals written before lines had checksums: damage is seen where it breaks the game."""
    path, states = finished
    lines = unsealed(path.read_bytes()).split(b"\n")
    assert parse_journal(b"\n".join(lines)) == states[-1]
    number = next(i for i, line in enumerate(lines, start=1) if old in line)
    lines[number - 1] = flip(lines[number - 1], old, new)
    path.write_bytes(b"\n".join(lines))
    with caplog.at_level(logging.WARNING):
        state = read_journal(path)
    assert [entry.san for entry in state.moves] == ["e4", "e5"]
    assert f"line {number} does not follow from the game" in caplog.text


def test_a_start_line_that_does_not_read_is_rebuilt_and_keeps_every_move(
    finished: tuple[Path, list[JournalState]], caplog: pytest.LogCaptureFixture
) -> None:
    """The fuzz's find: one damaged key in the start line hid a whole game whose moves were all intact."""
    path, states = finished
    lines = path.read_bytes().split(b"\n")
    for damage, said in [
        ((b'"white"', b'"whhte"'), "its checksum does not match: 'white' is None, not dict"),
        ((b'"format"', b'"format '), "it is not valid JSON"),
        ((b'"format"', b'"formot"'), "its checksum does not match: format None is not"),
    ]:
        path.write_bytes(b"\n".join([flip(lines[0], *damage), *lines[1:]]))
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            state = read_journal(path)
        assert state.moves == states[-1].moves and state.result == states[-1].result
        assert state.metadata.game_id == "3fa2b1c4" and state.metadata.start_fen == chess.STARTING_FEN
        assert f"line 1 is damaged ({said}" in caplog.text
        assert "its start was rebuilt from what it, the file's name and the lines after it still say" in (
            caplog.text
        )
    assert state.metadata.white == Player("Ann", "board")  # what the damaged line still says is kept
    path.write_bytes(b"\n".join([unsealed(lines[0]).replace(b'"format"', b'"formot"'), *lines[1:]]))
    assert read_journal(path).moves == states[-1].moves  # a journal from before checksums, likewise


def test_a_start_line_rebuilt_says_what_it_lost_and_the_repair_keeps_the_damaged_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with Journal.create(tmp_path, metadata(), now=ticking()) as journal:
        play(journal, "e2e4", "e7e5", "g1f3")
    path = journal.path
    data = path.read_bytes()
    damaged = data.replace(b'"white"', b'"whhte"', 1)
    path.write_bytes(damaged)
    with caplog.at_level(logging.WARNING):
        assert len(store.load_game("3fa2b1c4", tmp_path).moves) == 3  # exported, listed: all there
    assert "(lost: white)" in caplog.text
    with Journal.open(path, now=ticking()) as journal:  # going on with it repairs the file
        assert [e.san for e in journal.state.moves] == ["e4", "e5", "Nf3"]
        play(journal, "b8c6")
    assert path.with_name(path.name + ".damaged").read_bytes() == damaged
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        state = read_journal(path)
    assert [e.san for e in state.moves] == ["e4", "e5", "Nf3", "Nc6"] and not caplog.records  # sealed
    assert state.metadata.white == Player() and state.metadata.black == metadata().black


def test_a_lost_chess960_start_is_found_by_its_moves(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    start = chess.Board.from_chess960_pos(412)
    meta = dataclasses.replace(metadata(), start_fen=start.fen(), chess960=True)
    choose = random.Random(1)
    with Journal.create(tmp_path, meta, now=ticking()) as journal:
        board = start.copy()
        for _ in range(24):  # enough pieces' moves to tell the start from the 959 others
            move = choose.choice(list(board.legal_moves))
            journal.record_move(move, "keyboard")
            board.push(move)
    path = journal.path
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([b"\x00" * len(lines[0]), *lines[1:]]))  # nothing of the line is left
    with caplog.at_level(logging.WARNING):
        state = read_journal(path)
    assert state.metadata.start_fen == start.fen() and state.metadata.chess960
    assert [e.move for e in state.moves] == board.move_stack
    assert (state.metadata.game_id, state.metadata.started) == ("3fa2b1c4", START)  # from the file's name
    assert "lost: white, black, the session's settings, the start position" in caplog.text
    with Journal.open(path, now=ticking()) as journal:  # going on with it: repaired, its name kept
        assert journal.state.metadata.game_id == "3fa2b1c4" and len(journal.state.moves) == 24
    assert read_journal(path).metadata.start_fen == start.fen()


def test_a_first_line_that_says_nothing_of_a_game_leaves_nothing_to_read(tmp_path: Path) -> None:
    path = tmp_path / "20240512T153012Z-3fa2b1c4.jsonl"
    path.write_bytes(b"not a journal\nnor this\n")
    with pytest.raises(GameFileError, match="line 1 is damaged \\(it is not valid JSON"):
        read_journal(path)


def test_a_damaged_start_line_that_still_reads_keeps_the_game_and_is_sealed_again(
    finished: tuple[Path, list[JournalState]], caplog: pytest.LogCaptureFixture
) -> None:
    """A flipped byte in a player's name: the game is all there, the damage said."""
    path, states = finished
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join([flip(lines[0], b'"Ann"', b'"Aon"'), *lines[1:]]))
    with caplog.at_level(logging.WARNING):
        state = read_journal(path)
    assert state.moves == states[-1].moves and state.result == "1-0"
    assert state.metadata.white.name == "Aon"
    assert "line 1 is damaged (its checksum does not match): the game's start is read as it stands" in (
        caplog.text
    )
    state = dataclasses.replace(state, result="*", termination=None)  # (a finished game is not reopened)
    path.write_bytes(b"\n".join([flip(lines[0], b'"Ann"', b'"Aon"'), *lines[1:-2], b""]))  # no result
    with Journal.open(path) as journal:
        assert journal.state.moves == states[-1].moves
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert read_journal(path).metadata.white.name == "Aon"
    assert not caplog.records  # repaired: sealed again


def test_a_line_written_twice_is_skipped_and_nothing_is_lost(
    finished: tuple[Path, list[JournalState]], caplog: pytest.LogCaptureFixture
) -> None:
    path, states = finished
    lines = path.read_bytes().split(b"\n")
    done = lines[5]  # the robot's first relocation of 1... e5 done: twice would be a wrong journal
    block = lines[2:6]  # and a block of lines written again further on
    path.write_bytes(b"\n".join([*lines[:6], done, done, *lines[6:9], *block, *lines[9:]]))
    with caplog.at_level(logging.WARNING):
        state = read_journal(path)
    assert dataclasses.replace(state, lines=states[-1].lines) == states[-1]
    assert "lines 7, 8, 12, 13, 14, 15 repeat an earlier line (written twice): skipped" in caplog.text


def test_every_flipped_byte_keeps_the_game_up_to_the_line_before_it(
    finished: tuple[Path, list[JournalState]],
) -> None:
    """One flipped bit anywhere after the start line: the game read is exactly the game as it stood
    before the damaged line (the moves, the robot's work), never a move or a path that was not written;
    a flip in the last line reads as a crash tore it."""
    path, states = finished
    data = path.read_bytes()
    for offset in range(data.index(b"\n") + 1, len(data) - 1, 3):
        line = data[:offset].count(b"\n") + 1
        for bit in (0x01, 0x20):
            damaged = bytearray(data)
            damaged[offset] ^= bit
            state = parse_journal(bytes(damaged))
            assert dataclasses.replace(state, torn=False) == states[line - 2], (offset, bit)


def test_opening_a_damaged_journal_repairs_it_and_keeps_the_damaged_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with Journal.create(tmp_path, metadata(), now=ticking()) as journal:
        play(journal, "e2e4", "e7e5", "g1f3")
    path = journal.path
    lines = path.read_bytes().split(b"\n")
    damaged = b"\n".join([*lines[:5], b"garbage", *lines[6:]])  # the move 1... e5 is lost
    path.write_bytes(damaged)
    with caplog.at_level(logging.WARNING), Journal.open(path, now=ticking()) as journal:
        assert [e.san for e in journal.state.moves] == ["e4"]
        play(journal, "d7d5")  # the game goes on from there
    assert "repaired" in caplog.text and ".damaged" in caplog.text
    kept = path.with_name(path.name + ".damaged")
    assert kept.read_bytes() == damaged
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        state = read_journal(path)
    assert [e.san for e in state.moves] == ["e4", "d5"] and not caplog.records  # clean now
    assert [game.game_id for game in store.list_games(tmp_path)] == ["3fa2b1c4"]  # the copy is no game
    path.write_bytes(path.read_bytes() + b"more garbage\n" + lines[1] + b"\n")
    with Journal.open(path) as journal:  # damaged again: a second copy, the first one kept
        assert [e.san for e in journal.state.moves] == ["e4", "d5"]
    assert kept.read_bytes() == damaged and path.with_name(path.name + ".damaged-2").exists()


def test_an_abandoned_game_is_no_longer_offered_and_goes_on_when_taken_up(tmp_path: Path) -> None:
    day = dt.timedelta(days=1)
    with Journal.create(tmp_path, metadata(game_id="older", started=START), now=ticking()) as journal:
        play(journal, "e2e4")
    with Journal.create(tmp_path, metadata(game_id="newer", started=START + day), now=ticking()) as journal:
        play(journal, "d2d4")
    assert store.abandon_game("newer", tmp_path) == "abandoned"
    assert store.abandon_game("newer", tmp_path) == "abandoned already"
    latest = store.latest_resumable(tmp_path)
    assert latest is not None and latest.game_id == "older"
    newer = store.resumable_game("newer", tmp_path)  # by its id, still
    assert newer.abandoned and not newer.is_open and newer.in_progress
    with Journal.open(newer.path) as journal:
        assert journal.state.abandoned
        play(journal, "d7d5")
        assert not journal.state.abandoned
    latest = store.latest_resumable(tmp_path)
    assert latest is not None and latest.game_id == "newer"


def test_games_that_cannot_be_abandoned_say_why(tmp_path: Path) -> None:
    with Journal.create(tmp_path, metadata(game_id="mate"), now=ticking()) as journal:
        play(journal, *SCHOLARS_MATE)
        journal.finish("1-0", "checkmate")
    with pytest.raises(CannotResumeError, match="'mate' is over \\(1-0, checkmate\\)"):
        store.abandon_game("mate", tmp_path)
    imported = store.save_record(GameRecord(moves=(M("e2e4"),)), tmp_path)
    with pytest.raises(CannotResumeError, match="was imported"):
        store.abandon_game(imported, tmp_path)
    with pytest.raises(GameNotFoundError, match="no saved game 'nope'"):
        store.abandon_game("nope", tmp_path)
    with Journal.create(tmp_path, metadata(game_id="busy", started=START + dt.timedelta(days=1))) as journal:
        journal.record_move(M("e2e4"), "keyboard")
        with pytest.raises(GameInUseError, match="open in another session"):
            store.abandon_game("busy", tmp_path)


def test_a_game_with_nothing_to_go_on_with_is_forgotten_one_cut_short_in_its_set_up_is_kept(
    tmp_path: Path,
) -> None:
    with Journal.create(tmp_path, metadata(game_id="nothing"), now=ticking()) as journal:
        journal.robot_begin(["lift a1", "drop a2"])
        journal.robot_done(0)
        journal.robot_done(1)  # set up, and stopped before the first move
    later = START + dt.timedelta(days=1)
    with Journal.create(tmp_path, metadata(game_id="cutshort", started=later), now=ticking()) as journal:
        journal.robot_begin(["lift a1", "drop a2"])
        journal.robot_done(0)  # the power went off in the set-up: the journal says where the pieces stand
    with Journal.create(tmp_path, metadata(game_id="takenback"), now=ticking()) as journal:
        play(journal, "e2e4")
        journal.take_back(1)  # back at the start, but a game was played: it is kept
    listed = {game.game_id: game for game in store.list_games(tmp_path)}
    assert not listed["nothing"].has_begun and listed["cutshort"].has_begun
    assert listed["takenback"].plies == 0 and listed["takenback"].has_begun
    assert not store.forget_unplayed("takenback", tmp_path)
    store.abandon_game("takenback", tmp_path)
    latest = store.latest_resumable(tmp_path)
    assert latest is not None and latest.game_id == "cutshort"
    assert store.forget_unplayed("nothing", tmp_path) and not store.forget_unplayed("cutshort", tmp_path)
    listed = {game.game_id: game for game in store.list_games(tmp_path)}
    assert list(listed) == ["takenback", "cutshort"] and listed["takenback"].abandoned
    assert store.abandon_game("cutshort", tmp_path) == "abandoned"
    assert store.latest_resumable(tmp_path) is None


def test_another_player_takes_a_side_over_and_the_record_says_who(tmp_path: Path) -> None:
    with Journal.create(tmp_path, metadata(config={"white": "board", "black": "engine:8"})) as journal:
        play(journal, "e2e4", "e7e5")
        journal.change_player(chess.BLACK, Player("Stockfish", "engine", "3"), "engine:3")
        play(journal, "g1f3")
    state = read_journal(journal.path)
    assert state.metadata.black == Player("Stockfish", "engine", "3")
    assert state.metadata.config["black"] == "engine:3" and state.metadata.config["white"] == "board"
    assert state.to_record().black.level == "3"
    assert [entry.who for entry in state.moves] == ["board", "board", "board"]


def test_a_last_line_whose_pages_never_reached_the_disk_is_ignored(
    finished: tuple[Path, list[JournalState]],
) -> None:
    path, states = finished
    data = path.read_bytes()
    last = data.rstrip(b"\n").rsplit(b"\n", 1)[1]
    path.write_bytes(data[: -len(last) - 1] + b"\0" * len(last) + b"\n")
    state = read_journal(path)
    assert state.torn and dataclasses.replace(state, torn=False) == states[-2]


def test_opening_a_torn_journal_cuts_the_tear_off_before_appending(tmp_path: Path) -> None:
    with Journal.create(tmp_path, metadata(), now=ticking()) as journal:
        play(journal, "e2e4")
    path = journal.path
    path.write_bytes(path.read_bytes() + b'{"type":"move","time":"2024-05-12T1')
    with Journal.open(path, now=ticking()) as journal:
        assert not journal.state.torn
        play(journal, "e7e5")
    state = read_journal(path)
    assert not state.torn and [e.san for e in state.moves] == ["e4", "e5"]


def test_every_line_is_fsynced_before_the_call_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[tuple[int, int]] = []  # (inode, size) of every file fsynced, when it was
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        real_fsync(fd)
        synced.append((os.fstat(fd).st_ino, os.fstat(fd).st_size))

    monkeypatch.setattr(os, "fsync", spy)
    with Journal.create(tmp_path, metadata(), now=ticking()) as journal:
        inode = journal.path.stat().st_ino
        assert synced[0][0] == inode  # the start line, before the file got its name
        actions: list[Callable[[], object]] = [
            lambda: journal.record_move(M("e2e4"), "board"),
            lambda: journal.robot_begin(["lift e2"]),
            lambda: journal.robot_done(0),
        ]
        for step, action in enumerate(actions):
            before = len(synced)
            action()
            # exactly one fsync, of the journal, with the whole new line already written
            assert synced[before:] == [(inode, journal.path.stat().st_size)], step


def test_a_failed_write_leaves_the_journal_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Journal.create(tmp_path, metadata(), now=ticking()) as journal:
        play(journal, "e2e4")
        before, state = journal.path.read_bytes(), journal.state

        def full_disk(fd: int) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "fsync", full_disk)
        with pytest.raises(GameSaveError, match="No space left on device"):
            journal.record_move(M("e7e5"), "engine:8")
        monkeypatch.undo()
        assert journal.path.read_bytes() == before and journal.state == state
        journal.record_move(M("e7e5"), "engine:8")
    assert [e.san for e in read_journal(journal.path).moves] == ["e4", "e5"]


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    with Journal.create(tmp_path, metadata(), now=ticking()) as journal:
        with pytest.raises(GameInUseError, match="open in another session"):
            Journal.open(journal.path)
        # Threads of the one writer share it safely.
        journal.robot_begin([f"step {i}" for i in range(40)])
        threads = [threading.Thread(target=journal.robot_done, args=(i,)) for i in range(40)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    state = read_journal(journal.path)
    assert sorted(state.robot.completed if state.robot else ()) == list(range(40))
    with Journal.open(journal.path) as again:
        assert again.state.robot == state.robot


def test_the_writer_refuses_entries_that_do_not_follow_and_writes_nothing(tmp_path: Path) -> None:
    with Journal.create(tmp_path, metadata(), now=ticking()) as journal:
        size = journal.path.stat().st_size
        with pytest.raises(IllegalMoveError, match="illegal in"):
            journal.record_move(M("e2e5"), "board")
        with pytest.raises(JournalError, match="take-back of 1 plies; 0 were played"):
            journal.take_back(1)
        with pytest.raises(JournalError, match="robot step 0 of ply -1"):
            journal.robot_done(0)
        with pytest.raises(JournalError, match="accepts a draw nobody offered"):
            journal.accept_draw(chess.WHITE)
        assert journal.path.stat().st_size == size
        journal.resign(chess.WHITE)
        assert journal.state.result == "0-1"
        with pytest.raises(IllegalMoveError, match="after the game ended 0-1"):
            journal.record_move(M("e2e4"), "board")
    journal.close()  # twice is fine
    with pytest.raises(JournalError, match="is closed"):
        journal.resign(chess.BLACK)


def test_draw_offers_stand_until_the_opponent_moves_and_takebacks_reopen_a_game(tmp_path: Path) -> None:
    with Journal.create(tmp_path, metadata(), now=ticking()) as journal:
        journal.offer_draw(chess.WHITE)
        journal.record_move(M("e2e4"), "board")
        assert journal.state.draw_offer == chess.WHITE
        journal.record_move(M("e7e5"), "engine:8")
        assert journal.state.draw_offer is None
        journal.offer_draw(chess.WHITE)
        journal.accept_draw(chess.BLACK)
        assert (journal.state.result, journal.state.termination) == ("1/2-1/2", "agreed draw")
        journal.take_back(1)
        assert journal.state.result == "*" and journal.board().move_stack == [M("e2e4")]


def test_a_half_done_robot_move_is_what_a_resumed_session_must_finish(tmp_path: Path) -> None:
    with Journal.create(
        tmp_path, GameMetadata.numbered(412, game_id="abc", started=START), now=ticking()
    ) as journal:
        entry = journal.record_move(M("e1f3"), "board")
        journal.robot_begin(["capture nothing", "e1 to f3", "tidy"])
        journal.robot_done(0)
    assert entry.san == "Nf3" and entry.ply == 1
    state = read_journal(journal.path)
    assert state.metadata.chess960 and state.metadata.start_number == 412
    assert state.pending_robot == RobotProgress(1, ("capture nothing", "e1 to f3", "tidy"), (0,))
    assert state.pending_robot.remaining == (1, 2)


def test_bad_metadata_is_refused() -> None:
    with pytest.raises(JournalError, match="bad game id 'A-1'"):
        metadata(game_id="A-1")
    with pytest.raises(JournalError, match="no timezone"):
        metadata(started=dt.datetime(2024, 1, 1))
    with pytest.raises(JournalError, match="not JSON data"):
        metadata(config={"f": object()})


# --- the saved-games folder ------------------------------------------------------------------------


def test_the_games_folder_comes_from_the_argument_the_environment_or_xdg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHESSATRON_GAMES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert store.resolve_games_dir() == tmp_path / "data" / "chessatron" / "games"
    monkeypatch.setenv("CHESSATRON_GAMES", str(tmp_path / "mine"))
    assert store.resolve_games_dir() == tmp_path / "mine"
    assert store.resolve_games_dir(tmp_path / "arg") == tmp_path / "arg"


def test_listing_shows_every_game_and_resume_picks_the_latest_unfinished(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert store.list_games(tmp_path / "nothing-yet") == [] and store.latest_unfinished(tmp_path) is None
    day = dt.timedelta(days=1)
    with Journal.create(tmp_path, metadata(game_id="old", started=START), now=ticking()) as journal:
        play(journal, "e2e4")
    with Journal.create(tmp_path, metadata(game_id="newer", started=START + day), now=ticking()) as journal:
        play(journal, "d2d4", "d7d5", "c2c4")
    with Journal.create(
        tmp_path, metadata(game_id="done", started=START + 2 * day), now=ticking()
    ) as journal:
        play(journal, *SCHOLARS_MATE)
        journal.finish("1-0", "checkmate")
    store.save_record(GameRecord(moves=(M("g1f3"),)), tmp_path, now=lambda: START + 3 * day)
    (tmp_path / "20240520T000000Z-broken.jsonl").write_text("not json\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a game", encoding="utf-8")

    with caplog.at_level(logging.WARNING):
        games = store.list_games(tmp_path)
    assert "skipping a damaged saved game" in caplog.text and "broken" in caplog.text
    assert [(g.game_id, g.plies, g.moves, g.result, g.in_progress) for g in games] == [
        ("old", 1, 1, "*", True),
        ("newer", 3, 2, "*", True),
        ("done", 7, 4, "1-0", False),
        (games[3].game_id, 1, 1, "*", False),  # imported, so not resumable
    ]
    assert games[0].white == Player("Ann", "board") and games[0].variant == "standard"
    assert games[0].date == dt.date(2024, 5, 12)
    latest = store.latest_unfinished(tmp_path)
    assert latest is not None and latest.game_id == "newer"
    with Journal.open(latest.path) as resumed:
        assert [e.san for e in resumed.state.moves] == ["d4", "d5", "c4"]


def test_pgn_import_and_export_round_trip(tmp_path: Path) -> None:
    games = tmp_path / "games"
    records = [
        GameRecord(
            moves=(M("e2e4"), M("e7e5")),
            white=Player("A"),
            black=Player("B"),
            result="1/2-1/2",
            termination="agreed draw",
        ),
        GameRecord(chess.Board.from_chess960_pos(7).fen(), True, (M("d1e3"),), date=dt.date(2023, 1, 2)),
    ]
    source = tmp_path / "club.pgn"
    source.write_text("\n".join(to_pgn(r) for r in records), encoding="utf-8")
    ids = store.import_pgn(source, games).stored
    assert len(ids) == 2 and sorted(g.game_id for g in store.list_games(games)) == sorted(ids)
    assert read_pgn_games(store.export_pgn(ids, games)) == records
    assert read_pgn_games(store.export_pgn(reversed(ids), games)) == records[::-1]
    bad = tmp_path / "bad.pgn"
    bad.write_text(to_pgn(records[0]) + "\n1. e4 e5 2. Ke3 *\n", encoding="utf-8")
    with pytest.raises(GameFileError, match=r"game 2 of .*bad\.pgn"):
        store.import_pgn(bad, games)
    assert len(store.list_games(games)) == 2  # nothing of the bad file was stored


def test_compact_import_and_export_round_trip(tmp_path: Path) -> None:
    with Journal.create(
        tmp_path, GameMetadata.numbered(100, game_id="c960", started=START), now=ticking()
    ) as journal:
        board = journal.board()
        for _ in range(12):
            journal.record_move(sorted(board.legal_moves, key=lambda m: m.uci())[0], "board")
            board = journal.board()
        journal.finish("0-1", "time forfeit")
    data = store.export_compact("c960", tmp_path)
    assert data[:2] == (100).to_bytes(2, "big") and len(data) == 2 + 2 * 12 + 2
    compact = tmp_path / "game.bin"
    compact.write_bytes(data)
    (game_id,) = store.import_compact(compact, tmp_path).stored
    assert store.export_compact(game_id, tmp_path) == data
    imported = store.load_game(game_id, tmp_path)
    assert imported.white == Player() and imported.termination == "time forfeit"
    assert encode_compact(imported) == data
    compact.write_bytes(data[:-3])
    with pytest.raises(GameFileError, match=r"game\.bin.*truncated at byte"):
        store.import_compact(compact, tmp_path)


def test_a_finished_journal_is_archived_as_pgn_and_still_listed_once(tmp_path: Path) -> None:
    with Journal.create(tmp_path, metadata(game_id="mate"), now=ticking()) as journal:
        play(journal, *SCHOLARS_MATE)
        journal.finish("1-0", "checkmate")
    pgn = store.archive_pgn("mate", tmp_path)
    assert pgn.name == "20240512T153012Z-mate.pgn"
    assert "4. Qxf7# { [%clk 0:04:50] } 1-0" in pgn.read_text(encoding="utf-8")
    assert [g.game_id for g in store.list_games(tmp_path)] == ["mate"]
    assert store.find_game("mate", tmp_path).suffix == ".jsonl"
    with pytest.raises(GameNotFoundError, match="no saved game 'nope'"):
        store.load_game("nope", tmp_path)


def test_a_game_that_never_began_can_be_discarded_one_that_did_cannot(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, metadata(game_id="never"), now=ticking())
    journal.discard()
    assert journal.closed and not list(tmp_path.iterdir()) and store.latest_unfinished(tmp_path) is None
    with Journal.create(tmp_path, metadata(game_id="began"), now=ticking()) as journal:
        journal.record_move(chess.Move.from_uci("e2e4"), "keyboard")
        with pytest.raises(GameSaveError, match="it is kept"):
            journal.discard()
    assert [game.game_id for game in store.list_games(tmp_path)] == ["began"]
