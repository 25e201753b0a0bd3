"""``python -m bench.memory``: how much memory ``chessatron play --games N`` keeps per game.

The command runs as a person runs it (a program of its own, both sides Stockfish at a weak, shallow level,
the simulator at ``--speed max``, ``--json`` events), each game to its end and the robot setting the table
up again before the next. After each game's result the program's resident memory (``VmRSS`` in
``/proc/PID/status``) is read; the slope of a least-squares line through those readings, leaving out the
first games (the engines, caches and the allocator's arenas fill up there), is what a game keeps: the figure
printed, in MiB a game. Target: <= 0.2 MiB a game over 50 games.

``--games`` plays another number, ``--warm-up`` leaves out another number of first games.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: MiB a game, at most (issue 36).
TARGET_MIB = 0.2
LEVEL = "engine:20:depth=1"


def resident_mib(pid: int) -> float:
    """The resident memory of process ``pid`` (MiB), from ``/proc``."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def slope(values: list[float]) -> float:
    """The least-squares slope of ``values`` over their index (per step)."""
    n = len(values)
    if n < 2:
        return 0.0
    mean_x, mean_y = (n - 1) / 2, sum(values) / n
    top = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values))
    return top / sum((x - mean_x) ** 2 for x in range(n))


def play(games: int, folder: Path, white: str = LEVEL, black: str = LEVEL) -> list[float]:
    """Run ``play --games`` in a program of its own; its resident memory after each game (MiB)."""
    env = {
        **os.environ,
        "CHESSATRON_STATE": str(folder / "sim.json"),
        "CHESSATRON_GAMES": str(folder / "games"),
        "CHESSATRON_LOG": str(folder / "chessatron.log"),
        "XDG_CONFIG_HOME": str(folder / "config"),  # no config: the simulator, never the user's machine
    }
    command = [sys.executable, "-m", "chessatron.cli", "play", "--json", "--speed", "max"]
    command += ["--white", white, "--black", black, "--games", str(games), "--fresh"]
    readings: list[float] = []
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True) as program:
        assert program.stdout is not None
        for line in program.stdout:
            event = json.loads(line)
            if event.get("event") == "result":
                readings.append(resident_mib(program.pid))
                print(f"  game {len(readings):2d}: {readings[-1]:7.1f} MiB", flush=True)
        if program.wait() != 0:
            raise SystemExit(f"play exited {program.returncode}; see {folder / 'chessatron.log'}")
    return readings


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--white", default=LEVEL, help=f"White's player (default {LEVEL}).")
    parser.add_argument("--black", default=LEVEL, help=f"Black's player (default {LEVEL}).")
    parser.add_argument("--warm-up", type=int, default=5, help="First games left out of the slope.")
    options = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as folder:
        readings = play(options.games, Path(folder), options.white, options.black)
    counted = readings[options.warm_up :]
    per_game = slope(counted)
    verdict = "ok" if per_game <= TARGET_MIB else "over"
    print(
        f"play --games {options.games}: {per_game:.3f} MiB a game over games {options.warm_up + 1} to "
        f"{len(readings)} (target <= {TARGET_MIB}: {verdict}); {readings[0]:.1f} MiB after the first game, "
        f"{readings[-1]:.1f} after the last; {time.monotonic() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
