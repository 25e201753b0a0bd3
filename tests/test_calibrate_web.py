"""Calibration from the web page (issue 40): a maker at a phone (390 x 844, touch) beside a simulated table
built wrong at random goes through the sensors' part in Chromium, the table's simulated hands putting the
pieces where each step says: an answer from a second phone that lags behind is refused, Stop mid-way
leaves the config untouched, a reload shows the step under way again, and run again to its end the map
written is the one the table was wired with. The LEDs' part is answered by tapping the square the
simulated LEDs light. The board under the gantry, built offset, is found with the page's arrows (the step
says where the centre really is, as on the terminal) and a game then starts from the page on the machine
the runner took back. At the API: no calibration while a game runs, and no game while one does.
"""

from __future__ import annotations

import math
import os
import random
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import chess
import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from chessatron.calibrate.person import Nudge, Person
from chessatron.config import Config
from chessatron.game.requests import GameRequest
from chessatron.game.runner import GameRunner
from chessatron.planning.layout import Layout
from chessatron.sensors.pinmap import PinMap
from chessatron.sim.wiring import Wiring, build_wrong, save_wiring
from chessatron.web.app import create_app
from chessatron.web.calibrate import CalibrationApi
from chessatron.web.server import ServerHandle, start_in_thread

from .browser import TIMEOUT_MS, Watched, artifacts_fixture, browser_fixture, screenshot  # noqa: F401

LAYOUT = Layout.default()
#: The usual ways a table is wired wrong (sim/wiring.py), a few drawn from the seed.
WIRINGS = ("ports-swapped", "rank-reversed", "ranks-shuffled", "files")
SEED = 29


class Table:
    """The simulated table built wrong, its runner and page, its config file."""

    def __init__(
        self,
        folder: Path,
        runner: GameRunner,
        server: ServerHandle,
        wiring: Wiring,
        calibration: CalibrationApi,
    ) -> None:
        self.folder = folder
        self.calibration = calibration
        self.config = folder / "chessatron.toml"
        self.runner = runner
        self.server = server
        self.wiring = wiring


@pytest.fixture(scope="module", name="table")
def table_fixture() -> Iterator[Table]:
    rng = random.Random(SEED)
    faults = ",".join(
        [*rng.sample(WIRINGS, 2), rng.choice(("leds-serpentine", "leds-mirrored")), "board-offset"]
    )
    wiring = build_wrong(LAYOUT, faults, seed=SEED)
    before = os.environ.get("CHESSATRON_STATE")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        # the runner's games see the simulated table as it was built, as a served table does
        os.environ["CHESSATRON_STATE"] = str(folder / "simulator.json")
        config = folder / "chessatron.toml"
        config.write_text('[grbl]\nurl = "sim://"\n', encoding="utf-8")
        save_wiring(wiring, LAYOUT, folder / "simulator-wiring.json")
        with GameRunner(
            Config.load(config), games_dir=folder / "games", speed=None, state_path=folder / "simulator.json"
        ) as runner:
            app = create_app(runner, runner.live, token=None, games_dir=runner.games_dir, config_path=config)
            with start_in_thread(app) as server:
                yield Table(folder, runner, server, wiring, app.state.calibration)
    if before is None:
        os.environ.pop("CHESSATRON_STATE", None)
    else:
        os.environ["CHESSATRON_STATE"] = before


def phone(browser: Browser, url: str) -> Watched:
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    watched = Watched(page)
    page.goto(url + "calibrate")
    expect(page.locator("#calibrate-status")).not_to_have_text("connecting…")
    return watched


def step(page: Page) -> str:
    """The question on the page, once its answers can be tapped."""
    page.locator("#answers button:enabled, #squares:visible button:enabled").first.wait_for()
    return page.locator("#step-text").inner_text()


#: The page has moved on from the step it showed (its id in ``data-step``): to another, or to the end.
MOVED_ON = """(shown) => document.getElementById("step-text").dataset.step !== shown
  || document.getElementById("calibrate-step").hidden"""


def tap_and_wait(page: Page, selector: str) -> None:
    shown = page.locator("#step-text").get_attribute("data-step")
    page.locator(selector).tap()
    page.wait_for_function(MOVED_ON, arg=shown)


def answer_as_the_table_is(page: Page, table: Table) -> None:
    """Tap the answer a person looking at the table gives."""
    text = step(page)
    answers = page.locator("#answers button").evaluate_all("(all) => all.map((b) => b.dataset.answer)")
    if "quick" in answers:
        chosen = "quick"
    elif text.startswith("Are there sensors under the cells beside the board"):
        board = set(LAYOUT.board_cells())
        chosen = "yes" if any(cell not in board for cell in table.wiring.sensors.pins) else "no"
    else:
        chosen = answers[0]
    tap_and_wait(page, f"#answers button[data-answer={chosen}]")


def until(page: Page, table: Table, question: str) -> None:
    while not step(page).startswith(question):
        answer_as_the_table_is(page, table)


def test_a_maker_calibrates_the_sensors_on_a_phone(browser: Browser, table: Table, artifacts: Path) -> None:
    before = table.config.read_bytes()
    page = phone(browser, table.server.url).page
    page.locator("#parts button[data-part=sensors]").tap()
    until(page, table, "Quick path")
    # a second phone whose page lags behind (its updates held up) answers a question already answered
    other = phone(browser, table.server.url).page
    expect(other.locator("#answers button[data-answer=quick]")).to_be_enabled()
    other.route("**/api/v1/calibrate", lambda route: route.abort())
    page.locator("#answers button[data-answer=quick]").tap()
    expect(page.locator("#step-text")).to_have_text("Are the pieces set up?")
    other.locator("#answers button[data-answer=quick]").tap()
    expect(other.locator("#calibrate-error")).to_contain_text("answered already")
    other.unroute("**/api/v1/calibrate")
    expect(other.locator("#step-text")).to_have_text("Are the pieces set up?")
    other.context.close()
    # stopped mid-way: nothing written
    page.locator("#stop").tap()
    expect(page.locator("#outcome")).to_contain_text("Stopped: nothing of this part was written")
    assert table.config.read_bytes() == before
    assert not (table.folder / "pins.txt").exists()
    # again, a reload in the middle, to the end
    page.locator("#parts button[data-part=sensors]").tap()
    until(page, table, "Are the pieces set up?")
    page.reload()
    expect(page.locator("#step-text")).to_have_text("Are the pieces set up?")
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while page.locator("#outcome.done").count() == 0:
        assert time.monotonic() < deadline, page.locator("#calibrate-step").inner_text()
        if page.locator("#answers button:enabled").count():
            answer_as_the_table_is(page, table)
        else:
            page.wait_for_timeout(50)
    pins = table.folder / "pins.txt"
    expect(page.locator("#outcome")).to_contain_text(f"{pins} written.")
    expect(page.locator("#outcome")).to_contain_text("the previous one is kept as")
    screenshot(page, artifacts, "calibrate-sensors-phone")
    written = PinMap.parse(pins.read_text(encoding="utf-8"), LAYOUT)
    assert dict(written.pins) == dict(table.wiring.sensors.pin_map().pins), table.wiring.faults
    assert f"map={pins}" in Config.load(table.config).urls["sensors"]


def test_the_leds_are_named_by_tapping_the_lit_square(
    browser: Browser, table: Table, artifacts: Path
) -> None:
    page = phone(browser, table.server.url).page
    page.locator("#parts button[data-part=leds]").tap()
    expect(page.locator("#calibrate-step")).to_be_visible()
    asked = 0
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while page.locator("#outcome.done").count() == 0:
        assert time.monotonic() < deadline, page.locator("#calibrate-step").inner_text()
        squares = page.locator("#squares:visible button.lit:enabled")
        if squares.count() == 1:
            if asked == 0:
                screenshot(page, artifacts, "calibrate-leds-phone")
            tap_and_wait(page, "#squares button.lit")
            asked += 1
        elif page.locator("#answers button[data-answer=type]:enabled").count():
            tap_and_wait(page, "#answers button[data-answer=type]")  # (after the sensors: or a piece on it)
        elif page.locator("#answers button[data-answer=yes]:enabled").count():
            # the check pattern: a1 red, h1 green, a8 blue, h8 white, as the page shows the LEDs lit
            lit = page.locator("#square-grid button.lit").evaluate_all(
                "(all) => all.map((b) => b.dataset.square).sort()"
            )
            assert lit == ["a1", "a8", "h1", "h8"]
            tap_and_wait(page, "#answers button[data-answer=yes]")
        else:
            page.wait_for_timeout(50)
    assert 1 <= asked <= 6  # a few LEDs tell the chain's order
    expect(page.locator("#outcome")).to_contain_text("chessatron.toml written")
    url = Config.load(table.config).urls["leds"]
    assert "order=" in url


def test_no_calibration_while_a_game_runs_and_no_game_while_one_does(table: Table) -> None:
    runner = table.runner
    with httpx.Client(base_url=table.server.url, timeout=30) as client:
        runner.start_game(GameRequest(white="engine:1:depth=1", black="engine:1:depth=1"))
        try:
            refused = client.post("/api/v1/calibrate/start", json={"part": "sensors"})
            assert refused.status_code == 409
            assert "busy with a game" in refused.json()["error"]
        finally:
            runner.stop()
            assert runner.wait(60)
        assert client.post("/api/v1/calibrate/start", json={"part": "sensors"}).status_code == 202
        try:
            game = client.post("/api/v1/game", json={"white": "engine", "black": "engine"})
            assert game.status_code == 409 and "being calibrated" in game.json()["error"]
            state = client.get("/api/v1/calibrate").json()
            while state["step"] is None or state["step"]["kind"] != "ask":
                state = client.get("/api/v1/calibrate").json()
            wrong = client.post(
                "/api/v1/calibrate/answer", json={"step": state["step"]["id"], "answer": "maybe"}
            )
            assert wrong.status_code == 422 and "'maybe' is not an answer here" in wrong.json()["error"]
            board = client.post("/api/v1/calibrate/start", json={"part": "board"})
            assert board.status_code == 409 and "a calibration is under way" in board.json()["error"]
        finally:
            assert client.post("/api/v1/calibrate/stop", json={}).status_code == 202
        while client.get("/api/v1/calibrate").json()["running"]:
            pass
        assert client.get("/api/v1/calibrate").json()["outcome"]["state"] == "stopped"


def test_the_magnet_is_nudged_with_the_arrows_and_a_square_tapped(
    browser: Browser, table: Table, artifacts: Path
) -> None:
    """The page's arrows, Finer, Coarser and Done, and its board, as a part that nudges the magnet and asks
    for a square receives them (a stand-in: the gantry's parts run at the terminal for now)."""
    heard: list[Nudge | str | None] = []

    def stand_in(person: Person, stack: ExitStack) -> list[str]:
        person.tell("Homing the gantry.")
        while (key := person.nudge("Nudge the magnet under the centre of a1.")) != "done":
            heard.append(key)
        heard.append("done")
        square = person.ask_square("Which square is the magnet under now?")
        heard.append(None if square is None else chess.square_name(square))
        return ["table.toml written."]

    table.calibration.given_parts = {"nudging": stand_in}
    try:
        page = phone(browser, table.server.url).page
        page.locator("#parts button[data-part=nudging]").tap()
        expect(page.locator("#nudges")).to_be_visible()
        screenshot(page, artifacts, "calibrate-nudge-phone")
        for key in ("left", "up", "finer", "right", "coarser", "down"):
            tap_and_wait(page, f"#nudges button[data-nudge={key}]")
        page.keyboard.press("ArrowLeft")  # a desktop's keys too
        expect(page.locator("#step-text")).to_have_text("Nudge the magnet under the centre of a1.")
        page.wait_for_function("() => document.querySelector('#nudges button[data-nudge=done]:enabled')")
        tap_and_wait(page, "#nudges button[data-nudge=done]")
        expect(page.locator("#squares")).to_be_visible()
        tap_and_wait(page, "#square-grid button[data-square=c3]")
        expect(page.locator("#outcome.done")).to_contain_text("table.toml written.")
    finally:
        table.calibration.given_parts = None
    assert heard == ["left", "up", "finer", "right", "coarser", "down", "left", "done", "c3"]


#: The simulator's line under a nudge: where the centre really is from the magnet (mm, table axes).
HINT = re.compile(r"centre of ([a-h][1-8]) is ([-+][\d.]+) mm toward the h-file and ([-+][\d.]+) mm toward")
STEP = re.compile(r"steps of ([\d.]+) mm")


def nudge_as_the_hint_says(page: Page) -> str:
    """Tap the arrow (or Finer, or Done) a maker chooses from the line that says where the centre is."""
    text = page.locator("#step-text").inner_text()
    found, size = HINT.search(text), STEP.search(text)
    assert found is not None and size is not None, text
    right, up, step_mm = float(found.group(2)), float(found.group(3)), float(size.group(1))
    if max(abs(right), abs(up)) <= 0.1:
        key = "done"
    elif max(abs(right), abs(up)) < step_mm / 2:
        key = "finer"
    elif abs(right) >= abs(up):
        key = "right" if right > 0 else "left"
    else:
        key = "up" if up > 0 else "down"
    tap_and_wait(page, f"#nudges button[data-nudge={key}]")
    return key


def test_the_board_built_offset_is_found_with_the_arrows_and_a_game_starts_after(
    browser: Browser, table: Table, artifacts: Path
) -> None:
    page = phone(browser, table.server.url).page
    page.locator("#parts button[data-part=board]").tap()
    expect(page.locator("#calibrate-step")).to_be_visible()
    keys: list[str] = []
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while page.locator("#outcome.done, #outcome.failed").count() == 0:
        assert time.monotonic() < deadline, page.locator("#calibrate-step").inner_text()
        if page.locator("#nudges:visible button:enabled").count():
            if not keys:
                screenshot(page, artifacts, "calibrate-board-phone")
            keys.append(nudge_as_the_hint_says(page))
        elif page.locator("#answers button[data-answer=yes]:enabled").count():
            tap_and_wait(page, "#answers button[data-answer=yes]")  # the tour: the magnet is over each place
        else:
            page.wait_for_timeout(30)
    assert page.locator("#outcome.done").count(), page.locator("#outcome").inner_text()
    assert keys.count("done") == 3 and len(keys) > 3  # a1, h8, a8, each moved from where the layout said
    layout_file = table.folder / "table.toml"
    expect(page.locator("#outcome.done")).to_contain_text(f"{layout_file} written.")
    found = Layout.from_toml(layout_file)
    truth = table.wiring.true_layout(LAYOUT)
    assert math.dist(found.origin_mm, truth.origin_mm) <= 0.5, table.wiring.faults
    assert abs(found.square_mm / truth.square_mm - 1) <= 0.002
    assert Config.load(table.config).layout == found
    # the runner has its machine back: a game starts from the page and the robot moves on the board found
    runner = table.runner
    with httpx.Client(base_url=table.server.url, timeout=30) as client:
        game = client.post("/api/v1/game", json={"white": "engine:1:depth=1", "black": "web"})
        assert game.status_code == 202, game.text
        try:
            deadline = time.monotonic() + TIMEOUT_MS / 1000
            while not (runner.live.snapshot()["game"] or {}).get("uci"):
                assert runner.busy and time.monotonic() < deadline, runner.last_error
                time.sleep(0.05)
            assert runner.config.layout.origin_mm == found.origin_mm
        finally:
            runner.stop()
            assert runner.wait(60)
    assert runner.last_error is None
