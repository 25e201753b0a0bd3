"""``chessatron hw calibrate`` finding the board and the magnet at a terminal, on simulated tables built
wrong: a maker nudging the magnet with the arrow keys and h j k l (a wrong key told, Ctrl-C in the middle
leaving the layout as it was, run again to the end), and the simulated person (``--hand``) calibrating a
random wrong table whole, on which a game is then played: the table still built wrong, its pieces land
on the real squares (the twin's checks and the sensors say so)."""

from __future__ import annotations

import json
import math
import re
import time
import tomllib
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from chessatron.feedback.mapping import resolve
from chessatron.planning.layout import Layout
from chessatron.sensors.pinmap import PinMap
from chessatron.sim.wiring import Wiring

from .conftest import GAMES_DIR
from .journeys import Terminal, person_env

LAYOUT = Layout.default()
#: What the terminal says of the simulated magnet before each key: where the square's centre is from it.
LOOK = re.compile(
    r"centre of ([a-h][1-8]) is ([-+]\d+\.\d+) mm toward the h-file and ([-+]\d+\.\d+) mm toward the 8th rank"
)
#: The arrow keys as a terminal sends them.
ARROWS = {"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D"}
TOUR = re.compile(r"Is the magnet under the centre of [^?]+\? \[yes/no\]")


def truth(home: Path) -> Wiring:
    path = home / "state" / "chessatron" / "simulator-wiring.json"
    return Wiring.from_json(json.loads(path.read_text(encoding="utf-8")), LAYOUT, str(path))


def next_match(terminal: Terminal, pattern: re.Pattern[str], start: int) -> re.Match[str]:
    """The first match of ``pattern`` shown after ``start``, waited for."""
    deadline = time.monotonic() + 30
    while (found := pattern.search(terminal.text, start)) is None:
        assert terminal.child.isalive() and time.monotonic() < deadline, terminal.text[-2000:]
        time.sleep(0.01)
    return found


def centre(terminal: Terminal, start: int, vim: bool, *, keys: int | None = None) -> int:
    """Move the magnet under the square's centre as the terminal says where it is (from white's side),
    with the arrow keys or h j k l, finer steps once within a millimetre; Enter when there. With ``keys``,
    stop after that many keys without Enter. Returns where the terminal's text was read to."""
    moves = {"right": "l", "left": "h", "up": "k", "down": "j"}
    fine = False
    pressed = 0
    while True:
        found = next_match(terminal, LOOK, start)
        start = found.end()
        if keys is not None and pressed == keys:
            return start
        right, up = float(found.group(2)), float(found.group(3))
        pressed += 1
        if max(abs(right), abs(up)) <= 0.11:
            terminal.press("enter")
            return start
        if not fine and max(abs(right), abs(up)) < 0.5:
            terminal.type("-")
            fine = True
            continue
        along_files = abs(right) >= abs(up)
        key = ("right" if right > 0 else "left") if along_files else ("up" if up > 0 else "down")
        terminal.type(moves[key] if vim else ARROWS[key])


def test_a_maker_finds_the_board_with_the_keys_stops_half_way_and_runs_it_again(tmp_path: Path) -> None:
    config = tmp_path / "config" / "chessatron" / "chessatron.toml"
    wrong = ["--wrong", "board-offset,board-turned,board-scaled", "--seed", "4"]
    with Terminal(["hw", "calibrate", "board", *wrong], tmp_path) as terminal:
        terminal.expect(r"Keys: the arrows or h j k l move the magnet")
        seen = terminal.expect(LOOK.pattern).start()
        terminal.type("x")  # a wrong key: said, and nothing moves
        terminal.expect(r"'x' does not move the magnet")
        start = centre(terminal, seen, vim=False)  # a1
        centre(terminal, start, vim=True, keys=3)  # h8, half-way
        terminal.press("ctrl-c")
        terminal.expect(r"Stopped: nothing of the board part was written")
        assert terminal.exit_status() == 130
        terminal.assert_clean()
    assert not config.exists() and not (config.parent / "table.toml").exists()

    with Terminal(["hw", "calibrate", "board"], tmp_path) as terminal:  # the same table, kept
        start = centre(terminal, terminal.expect(LOOK.pattern).start(), vim=False)  # a1
        start = centre(terminal, start, vim=True)  # h8
        start = centre(terminal, start, vim=False)  # a8
        tour = re.compile(rf"{TOUR.pattern}|Written: \S+table\.toml")
        while not (asked := next_match(terminal, tour, start)).group(0).startswith("Written"):
            terminal.line("yes")  # the tour: the magnet is where it should be
            start = asked.end()
        assert terminal.exit_status() == 0
        terminal.assert_clean()
    real = truth(tmp_path).true_layout(LAYOUT)
    assert tomllib.loads(config.read_text(encoding="utf-8"))["layout"] == "table.toml"
    found = Layout.from_toml(config.parent / "table.toml")
    assert math.dist(found.origin_mm, real.origin_mm) <= 0.5
    assert abs(found.square_mm / real.square_mm - 1) <= 0.002
    assert abs(found.rotation_deg - real.rotation_deg) <= 0.05


def test_a_random_wrong_table_is_calibrated_by_hand_and_a_game_is_played_on_it(tmp_path: Path) -> None:
    config = tmp_path / "config" / "chessatron" / "chessatron.toml"
    with Terminal(["hw", "calibrate", "--hand", "--seed", "10"], tmp_path) as terminal:
        assert terminal.exit_status() == 0
        terminal.assert_clean()
    for part in ("sensors", "leds", "board", "magnet"):
        assert f" {part} " in terminal.text
    built = truth(tmp_path)
    assert any("weak magnet" in fault for fault in built.faults)
    settings = tomllib.loads(config.read_text(encoding="utf-8"))
    # the pin map and the LED chain exactly as the table was wired
    pins = PinMap.parse((config.parent / "pins.txt").read_text(encoding="utf-8"), LAYOUT)
    assert dict(pins.pins) == dict(built.sensors.pin_map().pins)
    options = dict(parse_qsl(urlsplit(settings["leds"]["url"]).query))
    chain = resolve(
        LAYOUT,
        options.get("order", "serpentine"),
        origin=options.get("origin", "a1"),
        along=options.get("along", "ranks"),
        cover=options.get("cover", "board"),
    )
    assert chain.cells == built.leds.cells
    # the board where it was built, the drag speed below the one at which the magnet drops pieces
    real = built.true_layout(LAYOUT)
    found = Layout.from_toml(config.parent / settings["layout"])
    assert math.dist(found.origin_mm, real.origin_mm) <= 0.5
    assert abs(found.square_mm / real.square_mm - 1) <= 0.002
    drop = built.gantry.pull.drop_feed_mm_min
    assert drop is not None and found.carry_feed_mm_min < drop < LAYOUT.carry_feed_mm_min

    # a game on the table still built wrong: every piece is where the magnet comes for it (the twin's
    # checks, shown with CHESSATRON_DEBUG) and where the sensors, wired as built, look for it
    script = f"script:{GAMES_DIR / 'engine-standard.pgn'}"
    args = ["play", "--white", script, "--black", script, "--max-plies", "8"]
    with Terminal(args, tmp_path, env=person_env(tmp_path, CHESSATRON_DEBUG="1")) as game:
        game.expect(r"4\.\.\. Nc6")
        assert game.exit_status() == 0
        game.assert_clean()
    assert "4. Qxc5" in game.text  # a capture: a piece to the capture zone too
    assert "twin:" not in game.text and "should be on" not in game.text
