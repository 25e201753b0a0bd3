"""The command-line contracts: ``chessatron simulate``, ``setup`` and ``demo``."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from click.testing import CliRunner

from chessatron.cli import main

from .conftest import GAMES_DIR

DEFAULT_TOML = (Path(__file__).parents[1] / "src" / "chessatron" / "data" / "table.toml").read_text()
WORD = re.compile(r"([A-Z])(-?\d+(?:\.\d+)?)")


def first_game(name: str) -> Path:
    return GAMES_DIR / name


def replay(layout_json: dict[str, Any], program: str) -> tuple[dict[tuple[float, float], str], float]:
    """An independent reading of the two files, as a third-party checker would do it: pieces from
    LAYOUT.json, magnet from M3/M5, M8/M9 or the servo comments, drags checked for clearance."""
    pieces = {(p["x"], p["y"]): p["piece"] for p in layout_json["pieces"]}
    x = y = 0.0
    held: str | None = None
    worst = math.inf
    for raw in program.splitlines():
        line = raw.strip()
        command = line if line in ("(MAGNET ON)", "(MAGNET OFF)") else re.sub(r"\(.*?\)", "", line).strip()
        words = dict(WORD.findall(command)) if not command.startswith("(") else {}
        if command in ("(MAGNET ON)",) or words.get("M") in ("3", "8"):
            assert held is None
            key = min(pieces, key=lambda k: math.dist(k, (x, y)))
            assert math.dist(key, (x, y)) < 0.01, f"grab at {(x, y)} finds no piece"
            held = pieces.pop(key)
        elif command in ("(MAGNET OFF)",) or words.get("M") in ("5", "9"):
            assert held is not None
            pieces[(round(x, 3), round(y, 3))] = held
            held = None
        elif words.get("G") in ("0", "1") and ("X" in words or "Y" in words):
            nx, ny = float(words.get("X", x)), float(words.get("Y", y))
            if held is not None:
                assert words["G"] == "1", "rapid while carrying"
                for px, py in pieces:
                    for k in range(101):
                        t = k / 100
                        worst = min(worst, math.dist((x + t * (nx - x), y + t * (ny - y)), (px, py)))
            x, y = nx, ny
    assert held is None, "magnet left on"
    return pieces, worst


def test_simulate_writes_both_files_and_a_summary(tmp_path: Path) -> None:
    layout_out, gcode_out = tmp_path / "layout.json", tmp_path / "game.gcode"
    game_path = first_game("engine-chess960.pgn")
    result = CliRunner().invoke(
        main, ["simulate", str(game_path), "--layout-out", str(layout_out), "--gcode-out", str(gcode_out)]
    )
    assert result.exit_code == 0, result.output
    assert (
        "plies: " in result.output
        and "simulated seconds: " in result.output
        and "verdict: ok" in result.output
    )
    layout = json.loads(layout_out.read_text())
    assert layout["units"] == "mm" and layout["clearance"] == pytest.approx(25.4)
    assert sorted(layout["squares"]) == sorted(chess.SQUARE_NAMES)
    assert len(layout["pieces"]) == 42
    program = gcode_out.read_bytes().decode()
    assert "\r" not in program and program.endswith("\n")
    assert all(len(line) + 1 <= 80 for line in program.splitlines())
    with game_path.open() as handle:
        game = chess.pgn.read_game(handle)
    assert game is not None
    moves = list(game.mainline_moves())
    markers = re.findall(r"^\(MOVE (\d+) (\w+)\)$", program, flags=re.MULTILINE)
    assert [int(n) for n, _ in markers] == list(range(1, len(moves) + 1))
    # the file alone is enough for an outside checker to replay the game and find the final position
    pieces, closest = replay(layout, program)
    assert closest >= 25.4 - 0.01
    squares = {tuple(xy): name for name, xy in layout["squares"].items()}
    final = game.end().board()
    on_board = {squares[xy]: symbol for xy, symbol in pieces.items() if xy in squares}
    assert on_board == {chess.square_name(s): p.symbol() for s, p in final.piece_map().items()}


@pytest.mark.parametrize(
    ("option", "value"), [("--reset-to", "0"), ("--reset-to-fen", "8/8/8/4k3/8/8/8/4K3 w - - 0 1")]
)
def test_simulate_reset_to_other_targets(tmp_path: Path, option: str, value: str) -> None:
    result = CliRunner().invoke(
        main,
        [
            "simulate",
            str(first_game("engine-standard.pgn")),
            option,
            value,
            "--gcode-out",
            str(tmp_path / "g"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "(RESET)" in (tmp_path / "g").read_text()


@pytest.mark.parametrize(
    ("method", "on", "off"), [("coolant", "M8", "M9"), ("servo", "(MAGNET ON)", "(MAGNET OFF)")]
)
def test_magnet_methods_in_the_program(tmp_path: Path, method: str, on: str, off: str) -> None:
    layout_path = tmp_path / "table.toml"
    layout_path.write_text(DEFAULT_TOML.replace('method = "spindle"', f'method = "{method}"'))
    gcode_out = tmp_path / "g.gcode"
    result = CliRunner().invoke(
        main,
        [
            "simulate",
            str(first_game("engine-standard.pgn")),
            "--layout",
            str(layout_path),
            "--gcode-out",
            str(gcode_out),
        ],
    )
    assert result.exit_code == 0, result.output
    lines = gcode_out.read_text().splitlines()
    assert on in lines and off in lines and "M3 S1000" not in lines
    if method == "servo":
        for i, line in enumerate(lines):
            if line in (on, off):
                assert lines[i - 1] == "G4 P0"  # the sync point the host waits on


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("this is not a game", "no tags and no moves"),
        ('[Event "x"]\n\n1. e4 e5 2. Ke3 *', "illegal|not legal"),
        ('[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n[SetUp "1"]\n\n*', "invalid|king"),
    ],
)
def test_simulate_bad_games_exit_non_zero_with_one_line(tmp_path: Path, content: str, reason: str) -> None:
    path = tmp_path / "bad.pgn"
    path.write_text(content)
    result = CliRunner().invoke(main, ["simulate", str(path)])
    assert result.exit_code != 0
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert re.search(reason, result.output), result.output
    assert "Traceback" not in result.output


def test_simulate_missing_file_and_bad_layout(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["simulate", str(tmp_path / "none.pgn")])
    assert result.exit_code != 0 and "cannot read" in result.output
    bad = tmp_path / "t.toml"
    bad.write_text(DEFAULT_TOML.replace("columns = 12", "columns = 7"))
    result = CliRunner().invoke(
        main, ["simulate", str(first_game("engine-standard.pgn")), "--layout", str(bad)]
    )
    assert result.exit_code != 0 and "at least 8 x 8" in result.output


def test_setup_continues_from_the_saved_table(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    runner = CliRunner()
    first = runner.invoke(
        main, ["setup", "518", "--state", str(state), "--from-game", str(first_game("engine-standard.pgn"))]
    )
    assert first.exit_code == 0, first.output
    assert re.search(r"set up the standard start .*: \d+ pieces moved", first.output)
    again = runner.invoke(main, ["setup", "518", "--state", str(state)])
    assert "0 pieces moved" in again.output
    other = runner.invoke(main, ["setup", "0", "--state", str(state)])
    assert other.exit_code == 0 and "Chess960 start #0" in other.output
    saved = json.loads(state.read_text())
    assert saved["fen"].startswith("bbqnnrkr/pppppppp")


def test_setup_refuses_bad_targets_and_damaged_state(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    result = CliRunner().invoke(main, ["setup", "1000", "--state", str(state)])
    assert result.exit_code != 0 and "0 to 959" in result.output
    state.write_text("{not json")
    result = CliRunner().invoke(main, ["setup", "518", "--state", str(state)])
    assert result.exit_code != 0 and "--fresh" in result.output
    result = CliRunner().invoke(main, ["setup", "518", "--state", str(state), "--fresh"])
    assert result.exit_code == 0, result.output


def test_demo_rejects_a_bad_speed() -> None:
    result = CliRunner().invoke(main, ["demo", "--speed", "fast"])
    assert result.exit_code != 0 and "--speed" in result.output


@pytest.mark.parametrize(
    ("command", "default"),
    [(["play"], "max"), (["online"], "max"), (["puzzles"], "max"), (["serve"], "1"), (["demo"], "8")],
)
def test_every_speed_option_says_the_same_and_gives_its_default_with_its_reason(
    command: list[str], default: str
) -> None:
    result = CliRunner().invoke(main, [*command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    speed = " ".join(result.output.split()).split("--speed FACTOR|max ", 1)[1]
    assert speed.startswith("How fast the simulated robot moves: 1 is a real robot's pace, 2 twice as fast,")
    assert f"[default: {default}]" in speed
    if default == "max":
        assert "before they can be watched (--speed 1 to watch them)" in speed
