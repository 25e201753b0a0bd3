"""The one way chessatron reads a file (:mod:`chessatron.files`): what it accepts, and how it says no."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from chessatron import files
from chessatron.errors import ConfigError, GameFileError


def test_a_pipe_is_read_to_its_end() -> None:
    """``chessatron recognize <(zcat trace.jsonl.gz)``: process substitution hands over /dev/fd/N, a pipe
    whose writer is still writing (more than the pipe holds)."""
    read_end, write_end = os.pipe()

    def write() -> None:
        with os.fdopen(write_end, "w") as out:
            for i in range(5000):
                out.write(f'{{"t": {i}, "promote": "q"}}\n')

    writer = threading.Thread(target=write)
    writer.start()
    try:
        lines = list(files.json_lines(f"/dev/fd/{read_end}", files.TRACE))
    finally:
        writer.join()
        os.close(read_end)
    assert len(lines) == 5000 and lines[-1] == (5000, '{"t": 4999, "promote": "q"}')


def test_a_file_larger_than_its_kind_allows_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    with path.open("wb") as out:
        out.truncate(files.LAYOUT.max_bytes + 1)
    with pytest.raises(ConfigError, match=r"cannot read layout .*table\.toml': it is larger than 1 MiB"):
        files.load_toml(path, files.LAYOUT)
    path.write_bytes(b"x" * files.LAYOUT.max_bytes)  # exactly the limit is fine to read
    assert len(files.read_bytes(path, files.LAYOUT)) == files.LAYOUT.max_bytes


def test_each_kind_raises_its_own_category(tmp_path: Path) -> None:
    with pytest.raises(GameFileError, match=r"cannot read PGN file .*: no such file; check the path"):
        files.read_text(tmp_path / "game.pgn", files.PGN)
    with pytest.raises(ConfigError, match=r"cannot read simulator state .*: it is a folder, not a file"):
        files.load_json(tmp_path, files.SIMULATOR_STATE)
    (tmp_path / "program.gcode").write_bytes("G0 X10 ; déjà\n".encode())
    with pytest.raises(
        ConfigError, match=r"not ASCII text \(byte 0xc3 at offset 10\); give a g-code text file"
    ):
        files.read_text(tmp_path / "program.gcode", files.PROGRAM)


def test_a_byte_order_mark_is_no_error(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_bytes(b'\xef\xbb\xbf[grbl]\nurl = "sim://"\n')  # as some Windows editors save it
    assert files.load_toml(path, files.CONFIG) == {"grbl": {"url": "sim://"}}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 33 + "]" * 33, "nests objects or lists more than 32 deep"),
        ("[" * 100_000 + "]" * 100_000, "nests objects or lists more than 32 deep"),
        ('{"a": [1, ' + "9" * 400 + "]}", "a[1] is a number of 400 digits, out of range"),
        ("9" * 5000, "a number of thousands of digits"),
        ('{"x": 1e400}', "x is inf, not a finite number"),
        ('{"x": NaN}', "x is nan, not a finite number"),
        ('{"x": ', "not valid JSON (Expecting value at line 1 column 7)"),
        (b'{"x": "\xff"}', "not UTF-8 text (byte 0xff)"),
    ],
)
def test_json_values_no_file_of_ours_holds_are_refused(text: str | bytes, words: str) -> None:
    with pytest.raises(ValueError, match=None) as caught:
        files.parse_json(text)
    assert words in str(caught.value)


def test_thirty_two_levels_and_64_bit_numbers_are_fine() -> None:
    assert files.parse_json("[" * 32 + str(2**64 - 1) + "]" * 32) is not None
    assert files.parse_json('{"t": NaN}', finite=False)["t"] != 0  # a trace checks its times itself


def test_is_missing_only_for_nothing_there(tmp_path: Path) -> None:
    assert files.is_missing(tmp_path / "nothing")
    assert not files.is_missing(tmp_path)
    assert not files.is_missing("/dev/zero")
    assert not files.is_missing("bad\0path")  # reading it says why
