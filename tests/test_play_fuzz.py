"""Fuzzed keyboard input to ``chessatron play --white keyboard --black engine``: never a traceback.

Whatever arrives on stdin (random text, control characters and escape sequences, tabs and carriage
returns, very long lines, bytes that are not UTF-8, moves and commands between the junk, the end of input
anywhere, Ctrl-C), the game ends as a game ends or stops saved at a ``quit`` or the end of input (0), or
at Ctrl-C (130), and its journal can be read and resumed. Every typed line is checked against the journal
the way the player would: each line the keyboard grammar reads as a legal move in the position it was
typed in was played, in order; each command did what it says (a take-back, a draw offer, a resignation),
and nothing else happened.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from chessatron.cli import main
from chessatron.game.players.base import Command
from chessatron.game.players.notation import Rejection, parse_command
from chessatron.game.records.journal import read_journal
from chessatron.game.records.store import list_games, load_game

ENGINE = "engine:20:depth=1"
#: ``friendly`` in cli/common.py: 0 when a game ended or stopped as asked (``quit``, the end of input);
#: 130 when Ctrl-C stopped it. A stopped game stays journaled for ``play --resume``.
EXIT_STOPPED = 130
_JOURNAL = re.compile(r"\d{8}T\d{6}Z-[0-9a-z]{1,32}\.jsonl")

#: Moves White can type; legal or not depending on the position they reach.
MOVES = [
    "e4", "d4", "c4", "f4", "e3", "d3", "g3", "b3", "a3", "h3", "a4", "b4", "g4", "h4", "c3", "f3",
    "Nf3", "Nc3", "Na3", "Nh3", "Nd2", "Ne2", "Rb1", "Rg1", "Kf1", "Qe2", "Bd3", "Bg2", "Bb2", "Bh3",
    "e2e4", "d2d4", "g1f3", "b1c3", "Bc4", "Bb5", "Be2", "Qh5", "Ke2", "O-O", "0-0", "exd5", "dxe5",
    "nf3", "E4", "e4!?", "  d4  ", "♘c3", "Ｎｆ３", "e2-e4",
]  # fmt: skip
COMMANDS = [
    "hint", "takeback", "undo", "u", "draw", "help", "?", "resign", "quit", "q", "exit",
    " Help ", "TAKEBACK", "give up", "HINT!", "commands",
]  # fmt: skip
CONTROL = [
    "\x00", "\x03", "\x04", "\x1a", "\x1b", "\x1b[A", "\x1b[B", "\x1b[D", "\x1b[2~", "\x1bOP", "\t",
    "\x7f", "\x08", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\ufeff", "\u200b", "\u202e",
]  # fmt: skip
#: Bytes that are not UTF-8: stray continuation bytes, a truncated sequence, an encoded surrogate, an
#: over-long slash, a five-byte form.
INVALID_UTF8 = [
    b"\xff",
    b"\xfe\xff",
    b"\x80",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xf8\x88\x80\x80\x80",
]


def environment(folder: Path) -> dict[str, str]:
    return {"CHESSATRON_STATE": str(folder / "sim.json"), "CHESSATRON_GAMES": str(folder / "games")}


def players(chess960: int | None) -> list[str]:
    start = ["--chess960", str(chess960)] if chess960 is not None else []
    return ["play", "--white", "keyboard", "--black", ENGINE, *start]


# --- what the journal must say, given the lines typed ----------------------------------------------


def journals(folder: Path) -> list[Path]:
    """The session's journals in the order the games started (the start line has the time)."""
    found = [p for p in (folder / "games").glob("*.jsonl") if _JOURNAL.fullmatch(p.name)]
    return sorted(found, key=lambda p: json.loads(p.read_bytes().split(b"\n", 1)[0])["time"])


def entries(path: Path) -> list[dict[str, Any]]:
    """The journal's game entries (moves, take-backs, draws, resignations, results), not robot work."""
    read_journal(path)  # readable, or GameFileError naming the line
    found = []
    for raw in path.read_bytes().splitlines()[1:]:
        entry = json.loads(raw)
        if not str(entry["type"]).startswith("robot-"):
            found.append(entry)
    return found


@dataclass
class Game:
    """One game's journal entries, replayed against the lines the keyboard read."""

    path: Path
    entries: list[dict[str, Any]]
    at: int = 0

    def take(self, kind: str, **fields: object) -> dict[str, Any]:
        assert self.at < len(self.entries), f"the journal ends where {kind} {fields} was due"
        entry = self.entries[self.at]
        expected = {"type": kind, **fields}
        assert {k: entry.get(k) for k in expected} == expected, (
            f"journal entry {self.at + 1} of {self.path.name} is {entry}, expected {expected}"
        )
        self.at += 1
        return entry

    def peek(self) -> dict[str, Any] | None:
        return self.entries[self.at] if self.at < len(self.entries) else None

    def done(self) -> None:
        assert self.at == len(self.entries), f"unexplained journal entries: {self.entries[self.at :]}"


def replay_game(game: Game, lines: deque[str]) -> str:
    """Walk one game: White's decisions come from ``lines`` (consumed as the keyboard reads them),
    Black's moves from the journal. Returns ``"stopped"`` (end of input or quit) or ``"over"``."""
    start = read_journal(game.path).metadata
    board = chess.Board(start.start_fen, chess960=start.chess960)
    while True:
        if board.turn == chess.WHITE:
            action: chess.Move | Command | None = None
            while lines:
                typed = parse_command(lines.popleft(), board)
                if not isinstance(typed, Rejection) and typed is not Command.HELP:
                    action = typed
                    break
            if action is None or action is Command.QUIT:
                game.done()
                return "stopped"
            if isinstance(action, chess.Move):
                game.take("move", uci=board.uci(action), who="keyboard")
                board.push(action)
            elif action is Command.TAKEBACK and board.move_stack:
                plies = min(2, len(board.move_stack))  # the engine's answer goes back too
                game.take("takeback", plies=plies)
                for _ in range(plies):
                    board.pop()
            elif action is Command.DRAW:
                game.take("draw-offer", by="white")
                if (entry := game.peek()) is not None and entry["type"] == "draw-accept":
                    game.take("draw-accept", by="black")
                    game.done()
                    return "over"
            elif action is Command.RESIGN:
                game.take("resign", by="white")
                game.done()
                return "over"
        else:
            entry = game.take("move", who=ENGINE)
            board.push(board.parse_uci(entry["uci"]))
        if (entry := game.peek()) is not None and entry["type"] == "result":
            game.take("result")
            game.done()
            return "over"


def stopped_before_the_first_move(start: chess.Board, lines: deque[str]) -> str:
    """Walk a game that left no journal: nothing typed before ``quit`` or the end of input was a move or
    a resignation (a game stopped before its first move is not kept). Returns ``"unkept"``."""
    while lines:
        typed = parse_command(lines.popleft(), start)
        assert not isinstance(typed, chess.Move) and typed is not Command.RESIGN, (
            f"{typed} was typed first, but the game left no journal"
        )
        if typed is Command.QUIT:
            break
    return "unkept"


def check_session(
    folder: Path, lines: Sequence[str], *, as_json: bool, exit_code: int, start: chess.Board | None = None
) -> None:
    """The journals tell exactly what the typed ``lines`` asked for, and the exit code fits (``start``:
    where each game starts, the standard start by default)."""
    queue = deque(lines)
    games = journals(folder)

    def next_game(kept: int) -> str:
        if kept < len(games):
            return replay_game(Game(games[kept], entries(games[kept])), queue)
        return stopped_before_the_first_move(start or chess.Board(), queue)

    ending = next_game(0)
    played = 1
    while ending == "over" and not as_json:
        # after each game a person at the keyboard is asked "Another game? [y/N]"; y or yes plays one more
        answer = queue.popleft() if queue else None
        if answer is None or answer.strip().lower() not in ("y", "yes"):
            break
        ending = next_game(played)
        played += 1
    kept = played - (ending == "unkept")
    assert len(games) == kept, f"{len(games)} games journaled, {kept} with a move asked for"
    assert exit_code == 0, f"exit {exit_code} after {ending}"
    if ending == "stopped":
        assert_resumes(folder, games[-1])


def assert_resumes(folder: Path, path: Path) -> None:
    """A stopped game continues with ``play --resume`` from its moves: the engine answers if it was
    its turn, then White (typing ``resign``) resigns."""
    state = read_journal(path)
    before = [entry.move.uci() for entry in state.moves]
    result = CliRunner(env=environment(folder)).invoke(main, ["play", "--resume"], input="resign\n")
    assert_no_traceback(result)
    assert result.exit_code == 0, result.output
    summary = next(s for s in list_games(folder / "games") if s.path == path)
    moves = [m.uci() for m in load_game(summary.game_id, folder / "games").moves]
    answered = 0 if state.board().turn == chess.WHITE else 1
    assert moves[: len(before)] == before and len(moves) == len(before) + answered, (before, moves)
    assert read_journal(path).result == "0-1"


def assert_no_traceback(result: Result) -> None:
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        assert result.exc_info is not None
        raise AssertionError("".join(traceback.format_exception(*result.exc_info)))
    assert "Traceback" not in result.output


# --- in process, hypothesis-generated text ---------------------------------------------------------

junk = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\r\n"), max_size=30)
decorated = st.builds(
    lambda before, move, after: before + move + after,
    st.sampled_from(["", "", " ", "\t", *CONTROL]),
    st.sampled_from(MOVES),
    st.sampled_from(["", "", " ", "\t", "!", "+", *CONTROL]),
)
line = st.one_of(
    st.sampled_from(MOVES),
    st.sampled_from(MOVES),
    st.sampled_from(MOVES),
    st.sampled_from(MOVES),
    decorated,
    st.sampled_from(COMMANDS),
    junk,
    st.lists(st.sampled_from(CONTROL), min_size=1, max_size=6).map("".join),
    st.integers(41, 5000).map(lambda n: ("e4" * n)[:n]),
)
# CliRunner's stdin reads universal newlines, as a terminal's Enter may send any of them
script = st.lists(st.tuples(line, st.sampled_from(["\n", "\r\n", "\r"])), min_size=6, max_size=40)


def typed_lines(text: str) -> list[str]:
    """The lines ``input()`` returns from ``text`` on a universal-newlines stdin, then end of input."""
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if lines[-1] == "" else lines


@settings(
    max_examples=int(os.environ.get("CHESSATRON_FUZZ_EXAMPLES", "10")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    # each example plays a game; shrinking a failure would take minutes (the input is in the message)
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(
    typed=script,
    cut=st.integers(0, 3),
    as_json=st.booleans(),
    chess960=st.one_of(st.none(), st.integers(0, 959)),
)
def test_fuzzed_keyboard_input_plays_what_was_typed(
    typed: list[tuple[str, str]], cut: int, as_json: bool, chess960: int | None
) -> None:
    text = "".join(line + end for line, end in typed)
    text = text[: len(text) - cut] if typed else text  # the end of input in the middle of a line
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        args = players(chess960) + (["--json"] if as_json else [])
        result = CliRunner(env=environment(folder)).invoke(main, args, input=text)
        assert_no_traceback(result)
        start = chess.Board.from_chess960_pos(chess960) if chess960 is not None else chess.Board()
        try:
            check_session(folder, typed_lines(text), as_json=as_json, exit_code=result.exit_code, start=start)
        except AssertionError as exc:
            raise AssertionError(f"{exc}\ninput: {text!r}\noutput:\n{result.output[-3000:]}") from exc
        # what the examples reached (pytest --hypothesis-show-statistics)
        plies = sum(len(read_journal(path).moves) for path in journals(folder))
        event(f"exit {result.exit_code}")
        event(f"plies: {'0' if not plies else '1-4' if plies < 5 else '5-9' if plies < 10 else '10+'}")


# --- its own process: raw bytes on a pipe -----------------------------------------------------------


def raw_input(rng: random.Random, count: int) -> bytes:
    """``count`` lines of moves, commands and junk as bytes, some not UTF-8, the last one cut off at a
    random byte."""
    lines: list[bytes] = []
    for _ in range(count):
        kinds = ["move", "control", "invalid", "command", "bytes", "long"]
        kind = rng.choices(kinds, [12, 3, 3, 1, 2, 1])[0]
        if kind == "move":
            text = rng.choice(MOVES).encode()
        elif kind == "command":
            # hint and draw make the engine think for half a second: keep them rare
            text = rng.choice([c for c in COMMANDS if c.strip().lower() not in ("hint", "hint!")]).encode()
        elif kind == "control":
            text = "".join(rng.choices(CONTROL, k=rng.randint(1, 4))).encode() + rng.choice(MOVES).encode()
        elif kind == "invalid":
            text = rng.choice(MOVES).encode() + rng.choice(INVALID_UTF8)
            if rng.random() < 0.5:
                text = rng.choice(INVALID_UTF8) + b" " + rng.choice(MOVES).encode()
        elif kind == "bytes":
            text = bytes(rng.choice([b for b in range(256) if b != 0x0A]) for _ in range(rng.randint(1, 30)))
        else:
            text = b"Nf3" * rng.randint(14, 30000)
        lines.append(text + rng.choice([b"\n", b"\n", b"\r\n", b"\r\r\n"]))
    data = b"".join(lines)
    return data[: len(data) - rng.randint(0, len(lines[-1]))]


def process_lines(data: bytes) -> list[str]:
    """The lines ``input()`` returns in a process whose stdin decodes UTF-8 with surrogateescape: split
    at ``\\n`` only (``\\r`` stays in the line), then end of input."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return [raw.decode("utf-8", "surrogateescape") for raw in lines]


def run_process(folder: Path, args: list[str], data: bytes, stdin_errors: str) -> tuple[int, str, str]:
    env = {
        **os.environ,
        **environment(folder),
        # how a terminal's bytes are decoded depends on the locale: C and C.UTF-8 escape what is not
        # UTF-8, en_US.UTF-8 and most desktop locales are strict
        "PYTHONIOENCODING": f"utf-8:{stdin_errors}",
    }
    completed = subprocess.run(
        [sys.executable, "-m", "chessatron.cli", *args],
        input=data,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    return (
        completed.returncode,
        completed.stdout.decode(errors="replace"),
        completed.stderr.decode(errors="replace"),
    )


def check_raw_bytes(tmp_path: Path, seed: int, stdin_errors: str) -> None:
    rng = random.Random(seed)
    data = raw_input(rng, rng.randint(20, 60))
    as_json = seed % 2 == 0
    args = players(None) + (["--json"] if as_json else [])
    code, out, err = run_process(tmp_path, args, data, stdin_errors)
    assert "Traceback" not in out + err, err[-3000:]
    check_session(tmp_path, process_lines(data), as_json=as_json, exit_code=code)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_raw_bytes_on_a_pipe_play_what_was_typed(tmp_path: Path, seed: int) -> None:
    check_raw_bytes(tmp_path, seed, "surrogateescape")


def test_bytes_that_are_not_utf8_in_a_strict_locale_are_refused_not_a_traceback(tmp_path: Path) -> None:
    # with a strict stdin (en_US.UTF-8 and most desktop locales) such a byte must not end in a traceback
    # or lose the lines read with it
    check_raw_bytes(tmp_path, 3, "strict")


# --- Ctrl-C at random moments ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ctrl_c_at_a_random_moment_stops_the_game_saved(tmp_path: Path, seed: int) -> None:
    """Ctrl-C reaches the whole foreground process group (chessatron and its engine) while the engine
    thinks, the robot moves or the keyboard waits; the game stops saved and resumes."""
    rng = random.Random(seed)
    moves = b"".join(m.encode() + b"\n" for m in rng.sample(MOVES, 8))
    env = {**os.environ, **environment(tmp_path)}
    command = [sys.executable, "-m", "chessatron.cli", *players(None), "--json"]
    with subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    ) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.write(moves)  # and no end of input: the keyboard waits for more
        process.stdin.flush()
        stderr = process.stderr
        errors: list[bytes] = []
        reader = threading.Thread(target=lambda: errors.append(stderr.read()))
        reader.start()
        for raw in process.stdout:
            if b'"connected"' in raw:
                break
        time.sleep(rng.uniform(0.0, 0.4))
        os.killpg(process.pid, signal.SIGINT)
        stdout = process.stdout
        outs: list[bytes] = []
        out_reader = threading.Thread(target=lambda: outs.append(stdout.read()))
        out_reader.start()
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            pytest.fail("the game did not stop within 60 s of Ctrl-C")
        out_reader.join(timeout=60)
        reader.join(timeout=60)
        process.stdin.close()
        out = b"".join(outs).decode(errors="replace")
    err = b"".join(errors).decode(errors="replace")
    assert "Traceback" not in out + err, err[-3000:]
    assert code == EXIT_STOPPED and "interrupted" in err, (code, err[-2000:])
    for path in journals(tmp_path):
        if not read_journal(path).is_finished:
            assert_resumes(tmp_path, path)


# --- --json stays machine-readable -----------------------------------------------------------------


def test_json_output_is_one_json_object_a_line_with_a_keyboard_player(tmp_path: Path) -> None:
    # prompts and the reasons for refused lines go to stderr, never among the events
    typed = "e4\nnonsense\nhelp\nresign\n"
    result = CliRunner(env=environment(tmp_path)).invoke(main, [*players(None), "--json"], input=typed)
    assert_no_traceback(result)
    assert result.exit_code == 0
    not_json = []
    for text in result.stdout.splitlines():
        try:
            json.loads(text)
        except ValueError:
            not_json.append(text)
    assert not not_json, not_json
