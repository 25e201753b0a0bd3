"""The hardware-facing commands on the simulator: run, sim-grbl --pty, hw test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial
from click.testing import CliRunner

import chessatron
from chessatron.cli import main
from chessatron.planning.layout import Layout
from chessatron.sim.world import get_world

from .conftest import GAMES_DIR
from .journeys import Terminal


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


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        (["G21 G90", "G0 X5000 Y-5000"], "line 2 'G0 X5000 Y-5000': its target X5000 Y-5000 lies outside"),
        (
            ["G0 X100 Y100", "M3 S1000", "G0 X200 Y100", "M5"],
            "line 3 'G0 X200 Y100': it moves at rapid (G0) with the magnet on",
        ),
    ],
    ids=["outside-the-envelope", "rapid-with-the-magnet-on"],
)
def test_run_refuses_an_unsafe_program_before_anything_moves(
    tmp_path: Path, lines: list[str], said: str
) -> None:
    path = tmp_path / "unsafe.gcode"
    path.write_text("\n".join(lines) + "\n")
    name = f"run-unsafe-{len(lines)}"
    world = get_world(name, Layout.default())
    before = world.twin.magnet_xy
    for home in ([], ["--no-home"]):  # checked before homing, or from where the gantry stands
        result = CliRunner().invoke(main, ["run", str(path), "--port", f"sim://{name}?speed=max", *home])
        assert result.exit_code == 2, result.output
        assert said in result.stderr and "nothing moved" in result.stderr and "--raw" in result.stderr
        assert world.twin.magnet_xy == before and not world.twin.violations
    # a maker who really wants it sends it as it is
    raw = CliRunner().invoke(main, ["run", str(path), "--raw", "--port", f"sim://{name}?speed=max"])
    assert "is not sent to the machine" not in raw.output
    if "M3 S1000" in lines:
        assert raw.exit_code == 0 and world.twin.magnet_xy == (200.0, 100.0), raw.output
    else:
        assert any(v.kind == "envelope" for v in world.twin.violations)  # the twin saw it try


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
    assert "9 of 9 steps ok" in result.output
    assert "sentence said" in result.output and "understood 'yes'" in result.output


def test_hw_test_listens_to_the_microphone_and_says_what_it_understood(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    args = ["hw", "test", "--yes", "--only", "microphone", "--only", "speech", "--config", str(config)]
    # the simulated person says "yes" in a room so loud that the word is lost
    config.write_text('[microphone]\nurl = "sim://?noise=8000"\n')
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "understood nothing clearly, not 'yes'" in result.output and "failed: microphone" in result.output
    config.write_text('[microphone]\nurl = "none://"\n[speech]\nurl = "none://"\n')
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "no microphone configured" in result.output and "no speaker configured" in result.output


def test_hw_test_has_each_button_pressed(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[buttons]\nurl = "sim://?script=up,down,left,select,right,select,back"\n')
    args = ["hw", "test", "--yes", "--only", "buttons", "--config", str(config)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "that was select; press right" in result.output and "all 6 buttons answer" in result.output
    config.write_text('[buttons]\nurl = "sim://?script=up,down"\n')
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "no left press within" in result.output and "failed: buttons" in result.output


def test_hw_test_walks_through_the_build_homing_and_the_step_idle_advice(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[grbl]\nurl = "sim://hwtest-grbl?speed=max&step_idle_delay_ms=25"\n')
    args = ["hw", "test", "--yes", "--only", "gantry", "--config", str(config)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())  # rich wraps long lines
    # the $I check: every option the table needs, each said
    assert "grbl 1.1h.20190830 [OPT:VCZ,15,128]: variable spindle, Core-XY kinematics" in said
    for option in (
        "ok C core-xy kinematics (COREXY)",
        "ok Z the origin at home after homing (HOMING_FORCE_SET_ORIGIN)",
        "ok no L locked at power-up until homed (HOMING_INIT_LOCK)",
        "ok 128 a receive buffer of 128 bytes",
        "ok V a variable spindle",
        "ok 15 15 planner blocks",
    ):
        assert option in said, option
    assert "$1=25: the motors go limp 25 ms after every stop; set $1=255" in said  # the $1 advice
    assert "homing ($H): grbl says nothing until it is done, which takes at most" in said
    assert "homed in" in said and "the magnet is at X0 Y0" in said
    assert "1 of 1 steps ok" in said


def test_hw_test_refuses_a_build_for_other_kinematics(tmp_path: Path) -> None:
    layout = tmp_path / "cartesian.toml"
    text = (Path(chessatron.__file__).parent / "data" / "table.toml").read_text()
    layout.write_text(text.replace('kinematics = "corexy"', 'kinematics = "cartesian"'))
    config = tmp_path / "c.toml"
    # the config's layout is Cartesian; the simulated board behind sim:// is built for the default table
    config.write_text(f'layout = "{layout}"\n[grbl]\nurl = "sim://hwtest-build?speed=max"\n')
    get_world("hwtest-build", Layout.default())
    result = CliRunner().invoke(main, ["hw", "test", "--yes", "--only", "gantry", "--config", str(config)])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "built for a core-xy machine" in said and "#define COREXY" in said and "failed: gantry" in said
    assert "FAIL no C cartesian kinematics (no COREXY): comment out #define COREXY" in said  # listed too


def test_config_grbl_settings_prints_what_to_flash_and_run_sends_it(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["config", "grbl-settings"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("(grbl 1.1h settings for a 12 x 10 table, corexy")
    settings = dict(line.split(" ", 1)[0].split("=") for line in lines[1:])
    assert settings["$1"] == "255" and settings["$22"] == "1" and settings["$23"] == "3"
    assert settings["$20"] == "1" and settings["$130"] == "630.000" and settings["$131"] == "530.000"
    assert lines.index(next(line for line in lines if line.startswith("$22="))) < lines.index(
        next(line for line in lines if line.startswith("$20="))
    )  # grbl refuses soft limits while homing is off
    program = tmp_path / "grbl-settings.txt"
    program.write_text(result.output)
    sent = CliRunner().invoke(
        main, ["run", str(program), "--no-home", "--port", "sim://flash?speed=max&homing=0"]
    )
    assert sent.exit_code == 0, sent.output


def test_play_homes_a_board_that_powers_up_locked_before_the_game(tmp_path: Path) -> None:
    # a sim:// URL with speed= keeps the simulated board's homing on: it boots locked, as GRBL does
    config = tmp_path / "c.toml"
    config.write_text('[grbl]\nurl = "sim://locked-board?speed=max"\n')
    script = str(GAMES_DIR / "engine-standard.pgn")
    args = ["play", "--white", f"script:{script}", "--black", f"script:{script}", "--max-plies", "4"]
    env = {"CHESSATRON_STATE": str(tmp_path / "sim.json"), "CHESSATRON_GAMES": str(tmp_path / "games")}
    result = CliRunner(env=env).invoke(main, [*args, "--config", str(config), "--json"])
    assert result.exit_code == 0, result.output
    assert "error:9" not in result.output
    events = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert sum(event["event"] == "move" for event in events) == 4


def test_hw_test_catches_a_stuck_sensor(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    # (a simulated table of its own: the default one may hold a piece on e4 from an earlier test)
    config.write_text('[sensors]\nurl = "sim://stuck-e4?stuck=e4:1"\n')
    result = CliRunner().invoke(main, ["hw", "test", "--yes", "--only", "sensors", "--config", str(config)])
    assert result.exit_code == 1
    assert "e4" in result.output and "failed: sensors" in result.output


# --- run: the line that failed, what ran, the time left, Ctrl-C --------------------------------------


def _write_program(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "program.gcode"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_run_names_the_line_beyond_the_soft_limits(tmp_path: Path) -> None:
    # sent raw (run refuses it otherwise, before anything moves), grbl's soft limits stop it
    lines = ["G21 G90", *(f"G0 X{20 * n} Y{10 * n}" for n in range(1, 9)), "G0 X9000 Y10", "G0 X20 Y20"]
    url = "sim://run-soft?speed=max&soft_limits=1"
    result = CliRunner().invoke(main, ["run", str(_write_program(tmp_path, lines)), "--raw", "--port", url])
    assert result.exit_code == 1
    assert "ALARM:2 (soft limit) at program line 10" in result.stderr
    assert "program line 1:" not in result.stderr and "stopped" not in result.stdout  # on stderr only
    assert "lines 1 to 9" in result.stderr


def test_run_says_no_line_ran_when_the_first_is_refused(tmp_path: Path) -> None:
    program_path = _write_program(tmp_path, ["G5", "G0 X20 Y20"])
    result = CliRunner().invoke(main, ["run", str(program_path), "--port", "sim://run-first?speed=max"])
    assert result.exit_code == 1
    assert "program line 1 'G5'" in result.stderr and "no line of the program ran" in result.stderr
    assert "1 to 0" not in result.output


def test_run_on_the_simulator_at_any_speed_with_the_machine_time(tmp_path: Path) -> None:
    program_path = _write_program(tmp_path, ["G21 G90", "G0 X100 Y100", "G4 P0.5", "G0 X20 Y20"])
    result = CliRunner().invoke(
        main, ["run", str(program_path), "--port", "sim://run-fast", "--speed", "max"]
    )
    assert result.exit_code == 0, result.output
    assert "4 lines, about 0:0" in result.stdout and "of machine time (as fast as it can go)" in result.stdout
    refused = CliRunner().invoke(main, ["run", str(program_path), "--port", "/dev/ttyUSB7", "--speed", "8"])
    assert refused.exit_code == 2 and "only the simulator (sim://) runs at another speed" in refused.output


def test_run_without_homing_on_a_locked_machine_says_so_before_sending(tmp_path: Path) -> None:
    program_path = _write_program(tmp_path, ["G21 G90", "G0 X100 Y100"])
    result = CliRunner().invoke(main, ["run", str(program_path), "--no-home", "--port", "sim://run-locked"])
    assert result.exit_code == 2
    assert "locked in its alarm state and --no-home leaves it so" in result.stderr
    assert "error:9" not in result.output


def test_ctrl_c_holds_the_machine_and_says_whether_the_magnet_is_on(tmp_path: Path) -> None:
    # a drag at real time: the magnet is on for seconds; Ctrl-C pressed at a real terminal, as a maker does
    lines = ["G21 G90", "G0 X137 Y86.2", "M3 S1000", "G4 P0.2", "G1 X400 Y300 F300", "M5", "G4 P0.2"]
    program_path = _write_program(tmp_path, lines)
    with Terminal(["run", str(program_path), "--port", "sim://ctrl-c?homing=0"], tmp_path) as terminal:
        terminal.expect(r"of machine time")
        time.sleep(2.0)  # into the drag (it takes more than a minute at 300 mm/min)
        terminal.press("ctrl-c")
        assert terminal.exit_status() == 130
        terminal.assert_clean()
    said = " ".join(terminal.text.split())  # rich wraps long lines
    assert "grbl is held where it stopped (feed hold" in said
    assert "the magnet may still be on with a piece on it" in said
    assert "chessatron: interrupted" not in said


# --- hw test: the extra to install, no library warnings ---------------------------------------------


def test_hw_test_names_the_extra_to_install_and_keeps_library_warnings_off_the_terminal(
    tmp_path: Path,
) -> None:
    config = tmp_path / "machine.toml"
    config.write_text('[display]\nurl = "lcd://1"\n[buzzer]\nurl = "buzzer://12"\n', encoding="utf-8")
    args = ["hw", "test", "--yes", "--only", "display", "--only", "buzzer", "--config", str(config)]
    # as a user runs it (this suite turns warnings into errors): gpiozero warns while it looks for pins
    done = subprocess.run(
        [sys.executable, "-m", "chessatron.cli", *args], capture_output=True, text=True, timeout=120
    )
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "pip install 'chessatron[pi]'" in " ".join(output.split())
    assert "PinFactoryFallback" not in output and "Falling back" not in output and "Traceback" not in output


def test_output_into_a_pipe_is_not_wrapped(tmp_path: Path) -> None:
    deep = tmp_path / ("a-folder-with-a-long-name-" * 4) / "program.gcode"
    deep.parent.mkdir(parents=True)
    deep.write_text("G21 G90\nG0 X100 Y100\n", encoding="utf-8")
    url = "sim://a-simulated-machine-with-a-long-name-to-fill-the-line?speed=max&homing=0"
    done = subprocess.run(
        [sys.executable, "-m", "chessatron.cli", "run", str(deep), "--port", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert f"grbl 1.1h on {url}\n" in done.stdout  # one line, however long: a path or URL stays whole
