"""Issue 40's figures: ``chessatron hw calibrate --hand --seed N`` (every part, the simulated maker following
the steps) on tables built wrong at random, each compared with the truth it was built with: the pin map and
the LED chain exactly, the board's origin (target: within 0.5 mm) and square size (within 0.2 %), the drag
speed written against the speed at which the simulated magnet drops a piece (target: below it).

    python -m bench.calibration [TABLES]
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from chessatron.feedback.mapping import resolve
from chessatron.planning.layout import Layout
from chessatron.sensors.pinmap import PinMap
from chessatron.sim.wiring import Wiring

LAYOUT = Layout.default()


def _environment(home: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("CHESSATRON_")}
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_STATE_HOME": str(home / "state"),
            "CHESSATRON_LOG": str(home / "chessatron.log"),
            "LANG": "C.UTF-8",
        }
    )
    return env


def calibrate(seed: int) -> dict[str, float | bool | str]:
    """One table built wrong from ``seed``, calibrated by the simulated maker, against its truth."""
    with tempfile.TemporaryDirectory(prefix="bench-calibration-") as folder:
        home = Path(folder)
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "chessatron.cli", "hw", "calibrate", "--hand", "--seed", str(seed)],
            env=_environment(home),
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        seconds = time.monotonic() - started
        if done.returncode != 0:
            return {"seed": seed, "ok": False, "why": (done.stderr or done.stdout).strip()[-300:]}
        state = home / "state" / "chessatron" / "simulator-wiring.json"
        built = Wiring.from_json(json.loads(state.read_text(encoding="utf-8")), LAYOUT, str(state))
        config = home / "config" / "chessatron" / "chessatron.toml"
        settings = tomllib.loads(config.read_text(encoding="utf-8"))
        pins = PinMap.parse((config.parent / "pins.txt").read_text(encoding="utf-8"), LAYOUT)
        leds = config.parent / "leds.txt"
        options = dict(parse_qsl(urlsplit(settings["leds"]["url"]).query))
        if leds.exists() and "leds.txt" in settings["leds"]["url"]:
            chain_cells = resolve(LAYOUT, str(leds)).cells
        else:
            chain_cells = resolve(
                LAYOUT,
                options.get("order", "serpentine"),
                origin=options.get("origin", "a1"),
                along=options.get("along", "ranks"),
                cover=options.get("cover", "board"),
            ).cells
        real = built.true_layout(LAYOUT)
        found = Layout.from_toml(config.parent / settings["layout"])
        drop = built.gantry.pull.drop_feed_mm_min
        return {
            "seed": seed,
            "ok": True,
            "seconds": seconds,
            "pins": dict(pins.pins) == dict(built.sensors.pin_map().pins),
            "leds": chain_cells == built.leds.cells,
            "origin_mm": math.dist(found.origin_mm, real.origin_mm),
            "square_pct": 100 * abs(found.square_mm / real.square_mm - 1),
            "feed_share": found.carry_feed_mm_min / drop if drop else math.nan,
        }


def main() -> None:
    tables = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    results = [calibrate(seed) for seed in range(1000, 1000 + tables)]
    good = [result for result in results if result["ok"]]
    last = 999 + tables
    print(f"calibration: {tables} tables built wrong at random (seeds 1000-{last}), all parts by hand")
    for result in results:
        if not result["ok"]:
            print(f"  seed {result['seed']}: the calibration failed: {result['why']}")
    if not good:
        return
    origin = max(float(r["origin_mm"]) for r in good)
    square = max(float(r["square_pct"]) for r in good)
    weak = [float(r["feed_share"]) for r in good if not math.isnan(float(r["feed_share"]))]
    print(f"  calibrated to the end: {len(good)}/{tables}")
    print(f"  pin map exactly as wired: {sum(bool(r['pins']) for r in good)}/{len(good)}")
    print(f"  LED chain exactly as wired: {sum(bool(r['leds']) for r in good)}/{len(good)}")
    print(f"  board origin, worst error: {origin:.3f} mm (target 0.5 mm: {origin / 0.5:.2f}x)")
    print(f"  square size, worst error: {square:.3f} % (target 0.2 %: {square / 0.2:.2f}x)")
    if weak:
        print(
            f"  drag speed written / the weak magnet's drop speed, on {len(weak)} weak magnets: "
            f"{min(weak):.2f} to {max(weak):.2f} (target below 1)"
        )
    print(f"  one table, median: {sorted(float(r['seconds']) for r in good)[len(good) // 2]:.1f} s")


if __name__ == "__main__":
    main()
