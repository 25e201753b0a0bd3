"""``chessatron hw calibrate`` as a maker runs it at a terminal, on a simulated table built wrong: typed
answers (a wrong one refused), Ctrl-C in the middle leaving the config as it was, run again to the end;
the config written is then checked by ``config check`` and matches the wiring the table was built with."""

from __future__ import annotations

import json
import re
import time
import tomllib
from pathlib import Path

import chess

from chessatron.feedback.mapping import LedMapping
from chessatron.planning.layout import Layout
from chessatron.sensors.pinmap import PinMap
from chessatron.sim.wiring import Wiring

from .journeys import Terminal

WRONG = ["--wrong", "ranks-shuffled,leds-mirrored", "--seed", "12"]
LAYOUT = Layout.default()


def truth(home: Path) -> Wiring:
    path = home / "state" / "chessatron" / "simulator-wiring.json"
    return Wiring.from_json(json.loads(path.read_text(encoding="utf-8")), LAYOUT, str(path))


def answer_the_sensors(terminal: Terminal) -> None:
    terminal.expect(r"beside the board too .*\[yes/no\]")
    terminal.line("perhaps")
    terminal.expect(r"'perhaps' is not an answer here; type one of: yes, no")
    terminal.line("yes")
    terminal.expect(r"Is the table empty\? \[ready\]")
    terminal.press("enter")
    terminal.expect(r"\[quick/each\]")
    terminal.line("quick")
    terminal.expect(r"Are the pieces set up\? \[ready\]")
    terminal.press("enter")
    terminal.expect(r"Are the pieces on ranks 3 to 6\? \[ready\]")
    terminal.press("enter")
    terminal.expect(r"Written: \S+pins\.txt")


def answer_the_leds(terminal: Terminal, home: Path, *, stop_after: int | None = None) -> None:
    """Type the square under each LED lit, as the LEDs really light (the picture drawn on the terminal);
    with sensors calibrated first, choose to type rather than touch."""
    chain = truth(home).leds
    start = 0
    if stop_after is not None:
        start = terminal.expect(r"or by typing its square\? \[touch/type\]").end()
        terminal.line("type")
    answered = 0
    question = re.compile(r"LED (\d+) is lit: which square .*?\)|\[yes/no\]")
    while True:
        deadline = time.monotonic() + 30
        while (found := question.search(terminal.text, start)) is None:
            assert time.monotonic() < deadline, terminal.text[-2000:]
            time.sleep(0.05)
        start = found.end()
        if found.group(0) == "[yes/no]":
            terminal.line("yes")
            return
        if stop_after is not None and answered == stop_after:
            terminal.press("ctrl-c")
            return
        cell = chain.cells[int(found.group(1))]
        square = None if cell is None else LAYOUT.node_square(LAYOUT.cell_node(cell))
        if answered == 0:
            terminal.line("z9")
            refused = re.compile(
                r"'z9' is not a square: type one such as e4, or none\.\s*LED \d+ is lit: .*?\)"
            )
            while (again := refused.search(terminal.text, start)) is None:
                assert time.monotonic() < deadline, terminal.text[-2000:]
                time.sleep(0.05)
            start = again.end()
        terminal.line("none" if square is None else chess.square_name(square))
        answered += 1


def test_a_maker_calibrates_the_sensors_and_leds_stops_half_way_and_runs_it_again(tmp_path: Path) -> None:
    config = tmp_path / "config" / "chessatron" / "chessatron.toml"
    # Ctrl-C at the first question: nothing written, not even a config
    with Terminal(["hw", "calibrate", "sensors", "leds", *WRONG], tmp_path) as terminal:
        terminal.expect(r"beside the board too")
        terminal.press("ctrl-c")
        terminal.expect(r"Stopped: nothing of the sensors part was written")
        assert terminal.exit_status() == 130
        terminal.assert_clean()
    assert not config.exists()
    # the sensors to the end, then Ctrl-C among the LEDs: the sensors' map is kept, the LEDs as they were
    with Terminal(["hw", "calibrate", "sensors", "leds", *WRONG], tmp_path) as terminal:
        answer_the_sensors(terminal)
        answer_the_leds(terminal, tmp_path, stop_after=1)
        terminal.expect(r"Stopped: nothing of the leds part was written")
        assert terminal.exit_status() == 130
        terminal.assert_clean()
    written = tomllib.loads(config.read_text(encoding="utf-8"))
    assert written["sensors"]["url"].endswith("pins.txt") and written["leds"]["url"] == "sim://"
    # the LEDs again, on the same table (kept between commands), to the end
    with Terminal(["hw", "calibrate", "leds"], tmp_path) as terminal:
        answer_the_leds(terminal, tmp_path)
        terminal.expect(r"The previous one is kept as \S+chessatron\.toml\.bak")
        assert terminal.exit_status() == 0
        terminal.assert_clean()
    with Terminal(["config", "check"], tmp_path) as check:
        check.expect(r"leds: sim://\?order=rows&origin=h")
        assert check.exit_status() == 0
    built = truth(tmp_path)
    pins = PinMap.parse((config.parent / "pins.txt").read_text(encoding="utf-8"), LAYOUT)
    assert dict(pins.pins) == dict(built.sensors.pin_map().pins)
    options = dict(
        re.findall(r"(\w+)=(\w+)", tomllib.loads(config.read_text(encoding="utf-8"))["leds"]["url"])
    )
    chain = LedMapping.grid(LAYOUT, "rows", origin=options["origin"], along=options["along"])  # type: ignore[arg-type,unused-ignore]
    assert chain.cells == built.leds.cells
