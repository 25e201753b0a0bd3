"""Every file chessatron reads, broken every way a person, a failing SD card or a wrong path can break it,
through the real commands: never a traceback, never an internal error, and a broken file ends in one
line on stderr that names it, with a non-zero exit.

The readers (:data:`READERS`) cover each kind in :data:`chessatron.files.KINDS`: the machine config, a
table layout, the simulator's saved table, a game journal, a PGN (played and imported), a compact
record, a sensor trace, a G-code program, a pin map, an LED mapping and a press script. Each meets
the same broken inputs (:data:`BROKEN`: bytes that are not UTF-8, nesting thousands deep, 400-digit and
infinite numbers, wrong types, a folder, ``/dev/zero``, a pipe, a missing file...), then random bytes and
random damage to a good file (hypothesis; ``CHESSATRON_FUZZ_EXAMPLES`` examples per reader).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import chess
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessatron import files
from chessatron.cli import EXIT_INTERNAL, main
from chessatron.config import default_config_text
from chessatron.game.records.compact import encode_compact
from chessatron.game.records.journal import GameMetadata, Journal
from chessatron.game.records.pgn import from_pgn
from chessatron.game.records.record import Player
from chessatron.planning.layout import Layout
from chessatron.sensors.pinmap import PinMap
from chessatron.sim.state import SimulatorState

LAYOUT = Layout.default()
EXAMPLES = int(os.environ.get("CHESSATRON_FUZZ_EXAMPLES", "25"))
GAME_ID = "fuzz"
JOURNAL_NAME = f"20240101T120000Z-{GAME_ID}.jsonl"
FOOLS_MATE = "1. f3 e5 2. g4 Qh4# 0-1\n"

Command = Callable[[Path, Path], list[str]]
"""The command line that makes chessatron read the file at the first path (a scratch folder second)."""


# --- good files of every kind, the seeds of the damage ---------------------------------------------


def _journal() -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        started = dt.datetime(2024, 1, 1, 12, tzinfo=dt.UTC)
        metadata = GameMetadata(white=Player("Ann", "keyboard"), game_id=GAME_ID, started=started)
        with Journal.create(Path(folder), metadata) as journal:
            for uci in ("e2e4", "e7e5", "g1f3"):
                journal.record_move(chess.Move.from_uci(uci), "keyboard")
        return (Path(folder) / JOURNAL_NAME).read_bytes()


def _led_mapping() -> bytes:
    squares = [
        chess.square(file if rank % 2 == 0 else 7 - file, rank) for rank in range(8) for file in range(8)
    ]
    return (" ".join(chess.square_name(s) for s in squares) + "\n").encode()


def _trace() -> bytes:
    lines = [
        {
            "t": 0.0,
            "occupied": f"0x{chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_7 | chess.BB_RANK_8:016x}",
        },
        {"t": 1.0, "move": "e2e4"},
        {"t": 2.0, "promote": "q"},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


# --- how each kind is read ---------------------------------------------------------------------------


def _config_with(folder: Path, text: str) -> Path:
    config = folder / "chessatron.toml"
    config.write_text(text)
    return config


def _journal_command(path: Path, folder: Path) -> list[str]:
    return ["games", "--games-dir", str(path.parent), "--export", GAME_ID]


@dataclass(frozen=True)
class Reader:
    """A kind of file, a good one of it, and a command that reads it."""

    name: str
    kind: files.FileKind
    good: bytes
    command: Command
    filename: str
    empty_ok: bool = False
    """An empty file is a fine one of this kind (no config: the defaults; no trace: no moves)."""
    missing_ok: bool = False
    """A missing file is fine too (no saved simulator state: a fresh table)."""
    structured: str = ""
    """``toml``, ``json``, ``jsonl`` or ``pgn``: the format the structural damage is written in."""
    damage_ok: bool = True
    """Random damage may leave a good file, which the command then runs (exit 0)."""
    content_fatal: bool = True
    """Damage to the content is an error; a game journal instead keeps what it can of a damaged game."""


READERS = [
    Reader(
        "config",
        files.CONFIG,
        default_config_text().encode(),
        lambda path, folder: ["config", "check", str(path)],
        "fuzz-config.toml",
        empty_ok=True,
        structured="toml",
    ),
    Reader(
        "layout",
        files.LAYOUT,
        (resources.files("chessatron") / "data" / "table.toml").read_bytes(),
        lambda path, folder: ["config", "check", str(_config_with(folder, f"layout = {str(path)!r}\n"))],
        "fuzz-layout.toml",
        empty_ok=True,  # every key has a default: the classic table
        structured="toml",
    ),
    Reader(
        "simulator state",
        files.SIMULATOR_STATE,
        json.dumps(SimulatorState.fresh(LAYOUT).to_json()).encode(),
        lambda path, folder: ["setup", "518", "--state", str(path)],
        "fuzz-simulator.json",
        missing_ok=True,
        structured="json",
    ),
    Reader(
        "game journal",
        files.JOURNAL,
        _journal(),
        _journal_command,
        JOURNAL_NAME,
        structured="jsonl",
        content_fatal=False,
    ),
    Reader(
        "PGN played",
        files.PGN,
        FOOLS_MATE.encode(),
        lambda path, folder: ["simulate", str(path)],
        "fuzz-game.pgn",
        structured="pgn",
    ),
    Reader(
        "PGN imported",
        files.PGN,
        FOOLS_MATE.encode(),
        lambda path, folder: ["games", "--games-dir", str(folder / "games"), "--import", str(path)],
        "fuzz-import.pgn",
        structured="pgn",
    ),
    Reader(
        "compact record",
        files.COMPACT_RECORD,
        encode_compact(from_pgn(FOOLS_MATE)),
        lambda path, folder: ["games", "--games-dir", str(folder / "games"), "--import", str(path)],
        "fuzz-record.bin",
    ),
    Reader(
        "sensor trace",
        files.TRACE,
        _trace(),
        lambda path, folder: ["recognize", str(path)],
        "fuzz-trace.jsonl",
        empty_ok=True,
        structured="jsonl",
    ),
    Reader(
        "g-code program",
        files.PROGRAM,
        b"G21\nG90\nG0 X20 Y20\n",
        lambda path, folder: [
            "run",
            str(path),
            "--config",
            str(_config_with(folder, "")),
            "--port",
            "sim://fuzz-run?speed=max&homing=0",
            "--no-home",
        ],
        "fuzz-program.gcode",
        empty_ok=True,
        damage_ok=False,  # damaged g-code is GRBL's to refuse, line by line: not a file error
    ),
    Reader(
        "pin map",
        files.PIN_MAP,
        PinMap.default(LAYOUT).to_text(LAYOUT).encode(),
        lambda path, folder: [
            "config",
            "check",
            str(_config_with(folder, f'[sensors]\nurl = "mcp23017://1?map={path}"\n')),
        ],
        "fuzz-pins.txt",
    ),
    Reader(
        "LED mapping",
        files.LED_MAPPING,
        _led_mapping(),
        lambda path, folder: [
            "config",
            "check",
            str(_config_with(folder, f'[leds]\nurl = "sim://?order={path}"\n')),
        ],
        "fuzz-leds.txt",
    ),
    Reader(
        "press script",
        files.PRESS_SCRIPT,
        b"# to the pawn\nup*2, select\nup select\n",
        lambda path, folder: [
            "config",
            "check",
            str(_config_with(folder, f'[buttons]\nurl = "sim://?file={path}"\n')),
        ],
        "fuzz-presses.txt",
        empty_ok=True,  # no presses: a pad that is finished at once
    ),
    Reader(
        "kept online tokens",
        files.ONLINE_TOKENS,
        b'{"http://127.0.0.1:9": "lip_fuzzfuzzfuzz"}',
        lambda path, folder: [
            "online",
            "logout",
            "--url",
            "http://127.0.0.1:9",
            "--config",
            str(_config_with(folder, "")),
        ],
        "fuzz-tokens.json",
        missing_ok=True,
        structured="json",
    ),
]


def test_every_kind_of_file_is_fuzzed() -> None:
    """A new kind of file in :mod:`chessatron.files` needs a reader here."""
    assert {reader.kind for reader in READERS} == set(files.KINDS)


# --- the broken inputs -------------------------------------------------------------------------------

DIGITS = "9" * 400


def _nested(reader: Reader) -> bytes | None:
    deep = 5000
    if reader.structured == "toml":
        return ("a = " + "[" * deep + "]" * deep + "\n").encode()
    if reader.structured == "json":
        return ("[" * deep + "]" * deep).encode()
    if reader.structured == "jsonl":  # not the last line: a journal's last line may be torn by a crash
        first, rest = reader.good.split(b"\n", 1)
        return first + ("\n" + "[" * deep + "]" * deep + "\n").encode() + rest
    if reader.structured == "pgn":
        return ("1. e4 " + "(1. d4 " * deep + ")" * deep + " e5 *\n").encode()
    return None


def _huge(reader: Reader) -> bytes | None:
    text = reader.good.decode(errors="replace")
    if reader.name == "config":
        return f"[grbl]\nbaudrate = {DIGITS}\n".encode()
    if reader.name == "layout":
        return text.replace("columns = 12", f"columns = {DIGITS}").encode()
    if reader.name == "simulator state":
        return text.replace('"gantry_mm": [0.0, 0.0]', f'"gantry_mm": [{DIGITS}, 1e400]').encode()
    if reader.name == "kept online tokens":
        return f'{{"http://127.0.0.1:9": {DIGITS}}}'.encode()
    if reader.name == "game journal":
        return reader.good + f'{{"type": "move", "ply": {DIGITS}, "uci": "b8c6"}}\n{{}}\n'.encode()
    if reader.name == "sensor trace":
        return f'{{"t": {DIGITS}, "occupied": "0x0000000000000000"}}\n'.encode() + reader.good
    if reader.structured == "pgn":
        return f"{DIGITS}. e4 e5 *\n".encode()
    return None


def _wrong_types(reader: Reader) -> bytes | None:
    return {
        "config": b'[grbl]\nurl = 3\nhome = "yes"\n',
        "layout": b'[table]\ncolumns = "twelve"\n',
        "simulator state": b'{"format": "chessatron-simulator/1", "fen": 3, "pieces": "all"}',
        "game journal": b'{"type": "start", "white": 1}\n',
        "sensor trace": b'{"t": "now", "occupied": 65535}\n',
        "PGN played": b'[FEN "not a position"]\n\n1. e4 *\n',
        "PGN imported": b'[FEN "not a position"]\n\n1. e4 *\n',
        "pin map": b"0A: a1 a1 a1 a1 a1 a1 a1 a1\n",
        "LED mapping": b"a1 z9 -\n",
    }.get(reader.name)


@dataclass(frozen=True)
class Broken:
    """A way to break a file: ``make`` writes it at ``path`` (or puts something else there) and says
    whether it applies to the reader; with ``fatal`` the command must fail, else only behave (a damaged
    file may still hold a good one)."""

    name: str
    make: Callable[[Reader, Path], bool]
    fatal: Callable[[Reader], bool]


def _content_fatal(reader: Reader) -> bool:
    return reader.content_fatal


def _write(data: bytes | None) -> Callable[[Reader, Path], bool]:
    def make(reader: Reader, path: Path) -> bool:
        path.write_bytes(data)  # type: ignore[arg-type]
        return True

    return make


def _content(build: Callable[[Reader], bytes | None]) -> Callable[[Reader, Path], bool]:
    def make(reader: Reader, path: Path) -> bool:
        data = build(reader)
        if data is None:
            return False
        path.write_bytes(data)
        return True

    return make


def _not_utf8(reader: Reader) -> bytes | None:
    if reader.name == "compact record":
        return None  # bytes are all it holds
    middle = len(reader.good) // 2
    return reader.good[:middle] + b"\xff\xfe\xc3(" + reader.good[middle:]


def _truncated(reader: Reader) -> bytes | None:
    return reader.good[: len(reader.good) // 2] if reader.damage_ok else None


def _folder(reader: Reader, path: Path) -> bool:
    path.mkdir()
    return True


def _dev_zero(reader: Reader, path: Path) -> bool:
    path.symlink_to("/dev/zero")
    return True


def _missing(reader: Reader, path: Path) -> bool:
    path.symlink_to(path.parent / "nowhere")  # a dangling link, so that the games folder lists it
    return True


def _pipe(reader: Reader, path: Path) -> bool:
    os.mkfifo(path)  # nobody writes to it: read as empty, never a hang
    return True


def _too_large(reader: Reader, path: Path) -> bool:
    if reader.kind.max_bytes > 16 * files.MiB:
        return False  # too slow to write for a test
    with path.open("wb") as out:
        out.truncate(reader.kind.max_bytes + 1)  # sparse: no disk space
    return True


BROKEN = [
    Broken("not UTF-8", _content(_not_utf8), _content_fatal),
    Broken(
        "nested 5000 deep",
        _content(_nested),
        lambda reader: _content_fatal(reader) and reader.structured != "pgn",
    ),
    # a PGN's move numbers are only for people (python-chess ignores them), but 400 digits are damage
    Broken("a 400-digit number", _content(_huge), _content_fatal),
    Broken("wrong types", _content(_wrong_types), lambda reader: True),
    Broken("truncated", _content(_truncated), lambda reader: False),
    Broken("empty", _write(b""), lambda reader: not reader.empty_ok),
    Broken("a folder", _folder, lambda reader: True),
    Broken("/dev/zero", _dev_zero, lambda reader: True),
    Broken("missing", _missing, lambda reader: not reader.missing_ok),
    Broken("a pipe with no writer", _pipe, lambda reader: not reader.empty_ok),
    Broken("too large", _too_large, lambda reader: True),
]


# --- what every run must show ------------------------------------------------------------------------


def run(reader: Reader, folder: Path, path: Path) -> Result:
    env = {
        "CHESSATRON_STATE": str(folder / "state.json"),
        "CHESSATRON_GAMES": str(folder / "games"),
        "CHESSATRON_CONFIG": str(folder / "no-config.toml"),
        "CHESSATRON_ONLINE_TOKENS": str(folder / "fuzz-tokens.json"),
        "LICHESS_TOKEN": "",
    }
    return CliRunner(env=env).invoke(main, reader.command(path, folder))


def check(result: Result, reader: Reader, path: Path, *, must_fail: bool) -> None:
    """No traceback and no internal error; a failure is one line on stderr naming the file, or (a config
    with several problems, all told at once) that line followed by one indented line a problem."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output, result.output
    assert result.exit_code != EXIT_INTERNAL, result.stderr
    if must_fail:
        assert result.exit_code != 0, f"{reader.name}: a broken file passed: {result.output[-500:]}"
    if result.exit_code != 0:
        lines = result.stderr.splitlines()
        several = re.match(r"chessatron: (\d+) problems in ", lines[0]) if lines else None
        expected = 1 + int(several.group(1)) if several else 1
        assert len(lines) == expected, f"{reader.name}: {result.stderr}"
        assert all(line.startswith("  ") for line in lines[1:]), result.stderr
        assert lines[0].startswith("chessatron: ") and path.name in lines[0], lines[0]


def cases() -> list[tuple[Reader, Broken]]:
    """Every kind of damage that applies to each kind of file (tried on a scratch file)."""
    found = []
    with tempfile.TemporaryDirectory() as scratch:
        for n, (reader, broken) in enumerate((r, b) for r in READERS for b in BROKEN):
            (Path(scratch) / str(n)).mkdir()
            if broken.make(reader, Path(scratch) / str(n) / reader.filename):
                found.append((reader, broken))
    return found


CASES = cases()


@pytest.mark.parametrize(("reader", "broken"), CASES, ids=[f"{r.name}-{b.name}" for r, b in CASES])
def test_a_broken_file_is_one_line_naming_it(tmp_path: Path, reader: Reader, broken: Broken) -> None:
    path = tmp_path / reader.filename
    assert broken.make(reader, path)
    check(run(reader, tmp_path, path), reader, path, must_fail=broken.fatal(reader))


@pytest.mark.parametrize("reader", READERS, ids=[r.name for r in READERS])
def test_the_good_file_of_each_kind_is_read(tmp_path: Path, reader: Reader) -> None:
    """The seeds of the damage are good files: the fuzzing starts from something that works."""
    path = tmp_path / reader.filename
    path.write_bytes(reader.good)
    result = run(reader, tmp_path, path)
    assert result.exit_code == 0, result.output


# --- random bytes and random damage ------------------------------------------------------------------

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,  # the same examples on every run: a test that fails, fails again
)


def _damage(good: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    data = bytearray(good)
    for where, drop, insert in edits:
        at = where % (len(data) + 1)
        data[at : at + drop] = insert
    return bytes(data)


EDITS = st.lists(
    st.tuples(st.integers(0, 10_000), st.integers(0, 8), st.binary(max_size=8)), min_size=1, max_size=4
)


@pytest.mark.parametrize("reader", [r for r in READERS if r.damage_ok], ids=lambda r: r.name)
@FUZZ
@given(data=st.binary(max_size=600))
def test_random_bytes_never_make_a_traceback(reader: Reader, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        path = folder / reader.filename
        path.write_bytes(data)
        check(run(reader, folder, path), reader, path, must_fail=False)


@pytest.mark.parametrize("reader", [r for r in READERS if r.damage_ok], ids=lambda r: r.name)
@FUZZ
@given(edits=EDITS)
def test_a_damaged_good_file_never_makes_a_traceback(
    reader: Reader, edits: list[tuple[int, int, bytes]]
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        path = folder / reader.filename
        path.write_bytes(_damage(reader.good, edits))
        check(run(reader, folder, path), reader, path, must_fail=False)


# --- hostile PGN text: bounded work, then a clear refusal --------------------------------------------


class _Hung(BaseException):
    """A command ran past its time (a BaseException: no ``except Exception`` on the way swallows it)."""


@contextlib.contextmanager
def _within(seconds: float) -> Iterator[None]:
    """Fail the block if it runs longer than ``seconds``: a hang becomes a failure, not a stuck suite
    (the regular-expression engine looks at signals as it works)."""

    def hung(signum: int, frame: object) -> None:
        raise _Hung(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


HOSTILE_PGN: dict[str, tuple[str, str]] = {
    # the fuzz's find: a pattern that split the run of digits every way hung every command (24: 6 s)
    "a run of 40 digits": ("1. e4 e5 " + "9" * 40 + "-0 *\n", "is not a move"),
    "a run of 90,000 digits": ("1. e4 e5 " + "9" * 90_000 + "-0 *\n", "is not a move"),
    "blank lines by the thousands": ("\n \n" * 50_000 + "x\n", ""),
    "a 7-digit move number": ("1234567. e4 e5 *\n", "move number '1234567' (7 digits) is past any game"),
    "a line of 200,000 characters": (
        "1. e4 " + "e5 " * 66_667 + "*\n",
        "characters long, longer than a PGN line may be (100,000)",
    ),
    "a variant chessatron does not play": (
        '[Variant "Crazyhouse"]\n\n1. e4 e5 2. Nf3 Nc6 *\n',
        "[Variant 'Crazyhouse'] is a variant chessatron does not play; it plays standard chess and Chess960",
    ),
}
#: What only an import reads (a game that is played or simulated needs its moves, not its clocks).
HOSTILE_RECORDS = {
    "a clock past a year": ("1. e4 { [%clk 99999:00:00] } e5 *\n", "is not a time a clock shows"),
    "a clock of 5000 digits": ("1. e4 { [%clk " + "9" * 5000 + ":00:00] } e5 *\n", "is not a time a clock"),
}

PGN_COMMANDS: dict[str, Command] = {
    "simulate": lambda path, folder: ["simulate", str(path)],
    "games --import": lambda path, folder: ["games", "--import", str(path)],
    "play --white script:": lambda path, folder: [
        "play",
        "--config",
        str(_config_with(folder, "")),
        "--white",
        f"script:{path}",
        "--black",
        "engine:1",
        "--speed",
        "max",
    ],
}


@pytest.mark.parametrize(
    ("hostile", "command"),
    [(hostile, command) for hostile in HOSTILE_PGN for command in PGN_COMMANDS]
    + [(hostile, "games --import") for hostile in HOSTILE_RECORDS],
)
def test_hostile_pgn_text_is_refused_at_once_by_every_command_that_reads_pgn(
    tmp_path: Path, hostile: str, command: str
) -> None:
    text, reason = {**HOSTILE_PGN, **HOSTILE_RECORDS}[hostile]
    path = tmp_path / "hostile.pgn"
    path.write_text(text)
    reader = Reader(command, files.PGN, b"", PGN_COMMANDS[command], path.name)
    started = time.monotonic()
    with _within(20.0):
        result = run(reader, tmp_path, path)
    assert time.monotonic() - started < 10.0
    check(result, reader, path, must_fail=True)
    assert reason in result.stderr, result.stderr
    if command == "games --import":
        assert not list((tmp_path / "games").glob("*.pgn"))  # nothing half-imported
