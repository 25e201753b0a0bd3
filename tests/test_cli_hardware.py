"""The hardware-facing commands on the simulator: run, sim-grbl --pty, hw test."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import serial
from click.testing import CliRunner

from chessatron.cli import main

from .conftest import GAMES_DIR


def program(tmp_path: Path) -> Path:
    out = tmp_path / "game.gcode"
    result = CliRunner().invoke(
        main, ["simulate", str(GAMES_DIR / "engine-standard.pgn"), "--gcode-out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def test_run_streams_a_program_to_the_end(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["run", str(program(tmp_path)), "--port", "sim://run-ok?speed=max"])
    assert result.exit_code == 0, result.output
    assert "ran " in result.output


def test_run_stops_on_an_error_and_names_the_line(tmp_path: Path) -> None:
    url = "sim://run-error?speed=max&error_line=120"
    result = CliRunner().invoke(main, ["run", str(program(tmp_path)), "--port", url])
    assert result.exit_code == 1
    assert "error:" in result.output and "line" in result.output and "released" in result.output
    assert "Traceback" not in result.output


def test_run_reports_an_alarm(tmp_path: Path) -> None:
    url = "sim://run-alarm?speed=max&alarm_line=80"
    result = CliRunner().invoke(main, ["run", str(program(tmp_path)), "--port", url])
    assert result.exit_code == 1 and "alarm" in result.output.lower()


def test_run_refuses_a_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["run", str(tmp_path / "nothing.gcode"), "--port", "sim://?speed=max"])
    assert result.exit_code != 0 and "Traceback" not in result.output


def test_sim_grbl_on_a_pty_speaks_grbl_to_any_sender() -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "chessatron.cli", "sim-grbl", "--pty", "--speed", "max"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    ) as process:
        try:
            assert process.stdout is not None
            device = process.stdout.readline().strip()
            assert device.startswith("/dev/")
            with serial.Serial(device, 115200, timeout=2) as port:
                port.write(b"\x18")
                deadline = time.monotonic() + 5
                banner = b""
                while b"Grbl 1.1" not in banner and time.monotonic() < deadline:
                    banner += port.read(64)
                assert b"Grbl 1.1" in banner
                port.reset_input_buffer()
                port.write(b"$X\n")
                assert port.readline().strip() in (b"ok", b"[MSG:Caution: Unlocked]")
        finally:
            process.terminate()
            process.wait(timeout=10)


def test_hw_test_passes_on_the_simulator(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[grbl]\nurl = "sim://hwtest?speed=max"\n')
    result = CliRunner().invoke(main, ["hw", "test", "--yes", "--seconds", "0", "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert "6 of 6 steps ok" in result.output


def test_hw_test_catches_a_stuck_sensor(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[sensors]\nurl = "sim://?stuck=e4:1"\n')
    result = CliRunner().invoke(main, ["hw", "test", "--yes", "--only", "sensors", "--config", str(config)])
    assert result.exit_code == 1
    assert "e4" in result.output and "failed: sensors" in result.output
