"""The manual's machine journeys (GRBL and the machine tools, On a Raspberry Pi: the parts a maker tries on
the simulator first), each taken at a real terminal (:mod:`tests.journeys`): GRBL's settings printed and
run, a game simulated and its program streamed, a stream held with Ctrl-C, the simulated GRBL on a
pseudo-terminal for another sender, and the hardware walk-through."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import serial

from tests.conftest import GAMES_DIR
from tests.journeys import Terminal
from tests.test_cli import replay


def test_grbl_s_settings_printed_then_run_on_the_machine(tmp_path: Path) -> None:
    """``config grbl-settings > grbl-settings.txt`` then ``run grbl-settings.txt --no-home``."""
    with Terminal(["config", "grbl-settings"], tmp_path) as printed:
        printed.expect(r"\$22=1 \(homing cycle")
        assert printed.exit_status() == 0
    settings = [line for line in printed.text.splitlines() if line.startswith(("$", "("))]
    assert len(settings) > 20
    (tmp_path / "grbl-settings.txt").write_text("\n".join(settings) + "\n", encoding="utf-8")
    with Terminal(["run", "grbl-settings.txt", "--no-home"], tmp_path) as run:
        run.expect(r"ran \d+ lines")
        assert run.exit_status() == 0
        run.assert_clean()


def test_a_game_simulated_then_its_program_streamed(tmp_path: Path) -> None:
    """``simulate game.pgn --layout-out --gcode-out --reset``, then ``run game.gcode`` to its end (Ctrl-C
    during a run: :mod:`tests.test_cli_hardware`)."""
    game = tmp_path / "game.pgn"
    game.write_text((GAMES_DIR / "engine-standard.pgn").read_text(encoding="utf-8"), encoding="utf-8")
    args = ["simulate", "game.pgn", "--layout-out", "layout.json", "--gcode-out", "game.gcode", "--reset"]
    with Terminal(args, tmp_path) as simulate:
        simulate.expect(r"verdict: ok")
        assert simulate.exit_status() == 0
        simulate.assert_clean()
    # the program holds one reset, which an outside checker replays to every piece back on its start
    program = (tmp_path / "game.gcode").read_text(encoding="utf-8")
    layout = json.loads((tmp_path / "layout.json").read_text(encoding="utf-8"))
    assert program.count("(RESET)") == 1
    pieces, _ = replay(layout, program)
    assert pieces == {(piece["x"], piece["y"]): piece["piece"] for piece in layout["pieces"]}
    with Terminal(["run", "game.gcode", "--speed", "max"], tmp_path) as run:
        run.expect(r"ran \d+ lines", timeout_s=120)
        assert run.exit_status(120) == 0
        run.assert_clean()


def test_the_simulated_grbl_answers_another_sender(tmp_path: Path) -> None:
    """``sim-grbl --pty --no-homing``: a device path, which a GRBL sender (pyserial here) opens and talks to
    as to GRBL; Ctrl-C ends it."""
    with Terminal(["sim-grbl", "--pty", "--no-homing", "--speed", "max"], tmp_path) as terminal:
        device = terminal.expect(r"(/dev/pts/\d+)").group(1)
        with serial.Serial(device, 115200, timeout=5) as port:
            port.write(b"\r\n\r\n")
            time.sleep(0.3)
            port.reset_input_buffer()
            port.write(b"?")
            status = port.read_until(b">").decode("ascii", "replace")
            assert re.search(r"<Idle\|MPos:[-\d.]+,[-\d.]+,[-\d.]+", status), status
            port.write(b"G0 X10 Y10\n")
            assert port.read_until(b"ok\r\n").endswith(b"ok\r\n")
        terminal.press("ctrl-c")
        assert terminal.exit_status() in (0, 130)
        terminal.assert_clean()


def test_the_config_written_then_the_hardware_walk_through_on_the_simulator(tmp_path: Path) -> None:
    """``config init`` writes the commented config (every device simulated), ``config check`` reads it,
    and ``hw test`` walks through every step of the build on the simulated devices, each ok (the
    simulated GRBL, as a maker may set it, at full speed: homing at a real machine's pace takes a while)."""
    with Terminal(["config", "init"], tmp_path) as init:
        written = init.expect(r"(/\S+chessatron\.toml)").group(1)
        assert init.exit_status() == 0
    config = Path(written)
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('url = "sim://"', 'url = "sim://?speed=max"', 1), encoding="utf-8")
    with Terminal(["config", "check"], tmp_path) as check:
        check.expect(r"layout: 12 × 10 squares")
        assert check.exit_status() == 0
    with Terminal(["hw", "test", "--seconds", "0"], tmp_path) as terminal:
        terminal.expect(r"(\d+) of \1 steps ok", timeout_s=120)
        assert terminal.exit_status() == 0
        terminal.assert_clean()
        for step in ("gantry", "magnet", "leds", "sensors", "display", "buzzer", "buttons", "speech"):
            assert re.search(rf"─ {step} ─", terminal.text), step
