"""The web page in a real browser: Debian's Chromium, driven by Playwright, plays a whole short game
against the engine on the simulator, from the page alone; and the page on a phone-sized screen.

Screenshots are kept as artifacts in ``test-artifacts/web/`` (or ``$CHESSATRON_ARTIFACTS/web/``). No
browser is ever downloaded: without ``/usr/bin/chromium`` these tests fail and say how to install it.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Error, Page, expect, sync_playwright

from chessatron.config import Config
from chessatron.game.runner import GameRunner
from chessatron.web.app import create_app
from chessatron.web.server import ServerHandle, start_in_thread

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPO = Path(__file__).resolve().parents[1]
ENGINE_LEVEL = "20:depth=1"  # full strength, one ply deep: the same answers every time
TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"Debian's Chromium is missing at {CHROMIUM}: `scripts/debian-packages` (run by `make test`) "
            "installs it, or `sudo apt-get install chromium`; the tests never download a browser"
        )
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def artifacts() -> Path:
    folder = Path(os.environ.get("CHESSATRON_ARTIFACTS") or REPO / "test-artifacts") / "web"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerHandle]:
    with GameRunner(
        Config.default(), games_dir=tmp_path / "games", speed=None, state_path=tmp_path / "sim.json"
    ) as runner:
        app = create_app(runner, runner.live, token=None, games_dir=runner.games_dir)
        with start_in_thread(app) as handle:
            yield handle


class Watched:
    """A page whose script errors and console errors (a refused resource, a CSP violation) are kept."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", self._failed)
        page.on("console", self._logged)

    def _failed(self, error: Error) -> None:
        self.errors.append(str(error))

    def _logged(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)


def open_page(browser: Browser, url: str, width: int, height: int) -> Watched:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(TIMEOUT_MS)
    watched = Watched(page)
    page.goto(url)
    expect(page.locator("#connection")).to_have_text("live")
    return watched


def start_game(page: Page, *, black_level: str, chess960: str | None = None) -> None:
    page.select_option("select[name=white-kind]", "web")
    page.select_option("select[name=black-kind]", "engine")
    page.fill("input[name=black-level]", black_level)
    if chess960 is not None:
        page.select_option("select[name=start]", "number")
        page.fill("input[name=number]", chess960)
    page.click("#new-game button[type=submit]")


def shown_moves(page: Page) -> list[str]:
    return page.locator("#moves .ply").all_inner_texts()


def board_after(sans: list[str], start: chess.Board | None = None) -> chess.Board:
    board = (start or chess.Board()).copy()
    for san in sans:
        board.push_san(san)
    return board


def has_class(name: str) -> re.Pattern[str]:
    return re.compile(rf"(^|\s){name}(\s|$)")


def screenshot(page: Page, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=True)
    return path


def test_a_whole_game_against_the_engine_from_the_page(
    browser: Browser, server: ServerHandle, artifacts: Path
) -> None:
    watched = open_page(browser, server.url, 1280, 900)
    page = watched.page
    shots = [screenshot(page, artifacts, "desktop-0-idle")]
    expect(page.locator("#status")).to_have_text("idle")
    expect(page.locator("#board svg")).to_have_attribute("data-fen", chess.STARTING_BOARD_FEN)

    start_game(page, black_level=ENGINE_LEVEL)
    expect(page.locator("#status")).to_have_text("white to move")
    expect(page.locator("#players")).to_contain_text(f"Black: engine:{ENGINE_LEVEL}")
    assert shown_moves(page) == []

    # 1. f3, clicked: the pawn is picked up and its two squares offered
    page.click("#board rect.square.f2")
    expect(page.locator("#board rect.square.f2")).to_have_class(has_class("selected"))
    expect(page.locator("#board rect.dest")).to_have_count(2)
    expect(page.locator("#board rect.square.f4")).to_have_class(has_class("dest"))
    page.click("#board rect.square.f3")
    expect(page.locator("#moves .ply")).to_have_count(2)  # and the engine's answer
    moves = shown_moves(page)
    assert moves[0] == "f3"
    expect(page.locator("#status")).to_have_text("white to move")
    expect(page.locator("#board svg")).to_have_attribute("data-fen", board_after(moves).board_fen())
    expect(page.locator("#eval-text")).not_to_have_text("–")  # the engine's evaluation
    gantry = page.request.get(server.url + "api/v1/state").json()["gantry"]  # where the robot stopped
    expect(page.locator("#gantry-text")).to_contain_text(f"X {gantry['x']:.1f} Y {gantry['y']:.1f} mm, Idle")
    expect(page.locator("#table svg #gantry")).to_be_attached()
    shots.append(screenshot(page, artifacts, "desktop-1-f3"))

    # 2. g4, typed this time; the engine mates if it can (1... e5 2... Qh4#), else White resigns
    page.fill("#move-form input[name=move]", "g4")
    page.click("#move-form button")
    expect(page.locator("#moves .ply").nth(3)).to_be_visible()
    moves = shown_moves(page)
    assert moves[:3] == ["f3", moves[1], "g4"]
    final = board_after(moves)
    expect(page.locator("#board svg")).to_have_attribute("data-fen", final.board_fen())
    shots.append(screenshot(page, artifacts, "desktop-2-g4"))
    if final.is_checkmate():
        expect(page.locator("#status")).to_have_text("0-1 (checkmate)")
        expect(page.locator("#moves .result")).to_have_text("0-1 checkmate")
        assert moves[-1].endswith("#")
    else:
        expect(page.locator("#status")).to_have_text("white to move")
        page.click("[data-command=resign]")
        expect(page.locator("#status")).to_have_text("0-1 (resignation)")
    expect(page.locator("[data-command=hint]")).to_be_disabled()  # the game is over
    shots.append(screenshot(page, artifacts, "desktop-3-over"))

    # the saved game, downloaded as PGN from the list
    row = page.locator("#games tr").first
    expect(row).to_contain_text("0-1")
    with page.expect_download() as download_info:
        row.locator("a").click()
    text = Path(download_info.value.path()).read_text(encoding="utf-8")
    pgn = chess.pgn.read_game(io.StringIO(text))
    assert pgn is not None and pgn.headers["Result"] == "0-1" and text.split("\n\n")[1].startswith("1. f3")
    assert pgn.end().board().board_fen() == final.board_fen()

    for shot in shots:
        assert shot.exists() and shot.stat().st_size > 0, shot
    assert watched.errors == []


def test_on_a_phone_the_page_is_one_column_and_still_plays(
    browser: Browser, server: ServerHandle, artifacts: Path
) -> None:
    watched = open_page(browser, server.url, 390, 844)
    page = watched.page
    start_game(page, black_level=ENGINE_LEVEL, chess960="100")
    expect(page.locator("#status")).to_have_text("white to move")
    start = chess.Board.from_chess960_pos(100)
    expect(page.locator("#board svg")).to_have_attribute("data-fen", start.board_fen())
    expect(page.locator("#players")).to_contain_text("chess960")

    # nothing wider than the screen, the board as wide as it can be, the sections one under another
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    board = page.locator("#board").bounding_box()
    table = page.locator("#table").bounding_box()
    assert board is not None and table is not None
    assert board["x"] >= 0 and board["x"] + board["width"] <= 390 and board["width"] >= 300
    assert table["y"] > board["y"] + board["height"] and table["width"] >= 300

    page.click("[data-command=hint]")
    expect(page.locator("#hint-text")).to_contain_text("Hint: ")
    expect(page.locator("#board svg .arrow").first).to_be_attached()
    shot = screenshot(page, artifacts, "phone-hint")
    page.click("#stop")
    expect(page.locator("#status")).to_contain_text("stopped")
    expect(page.locator("#games tr").first).to_contain_text("in progress")
    assert shot.exists() and shot.stat().st_size > 0
    assert watched.errors == []


def test_a_pawn_promoted_from_the_page_becomes_the_piece_chosen(
    browser: Browser, server: ServerHandle, artifacts: Path
) -> None:
    fen = "8/4P1k1/8/8/8/8/7P/4K3 w - - 0 1"  # the h-pawn keeps a knight's game going
    watched = open_page(browser, server.url, 1024, 768)
    page = watched.page
    page.select_option("select[name=black-kind]", "engine")
    page.fill("input[name=black-level]", ENGINE_LEVEL)
    page.select_option("select[name=start]", "fen")
    page.fill("input[name=fen]", fen)
    page.click("#new-game button[type=submit]")
    expect(page.locator("#status")).to_have_text("white to move")
    expect(page.locator("#board svg")).to_have_attribute("data-fen", chess.Board(fen).board_fen())
    page.click("#board rect.square.e7")
    page.click("#board rect.square.e8")
    expect(page.locator("#promotion")).to_be_visible()  # which piece? nothing is sent yet
    shot = screenshot(page, artifacts, "promotion-chooser")
    page.click("#promotion button[data-piece=n]")
    expect(page.locator("#promotion")).to_be_hidden()
    expect(page.locator("#moves .ply").first).to_have_text("e8=N+")
    expect(page.locator("#moves .ply")).to_have_count(2)  # the king steps out of check
    final = board_after(shown_moves(page), chess.Board(fen))
    assert final.piece_at(chess.E8) == chess.Piece.from_symbol("N")
    expect(page.locator("#board svg")).to_have_attribute("data-fen", final.board_fen())
    assert shot.exists() and shot.stat().st_size > 0
    assert watched.errors == []
