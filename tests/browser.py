"""What the browser tests share: Debian's Chromium driven by Playwright (one browser a module, never a
downloaded one), a page opened at a screen's size and watched for script and console errors, a person's
clicks, taps and drags on the live board, and screenshots kept as artifacts in ``test-artifacts/web/`` (or
``$CHESSATRON_ARTIFACTS/web/``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Error, Page, expect, sync_playwright

from chessatron.game.runner import GameRunner

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


@pytest.fixture(scope="module", name="browser")
def browser_fixture() -> Iterator[Browser]:
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


@pytest.fixture(scope="module", name="artifacts")
def artifacts_fixture() -> Path:
    folder = Path(os.environ.get("CHESSATRON_ARTIFACTS") or REPO / "test-artifacts") / "web"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


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


def open_page(browser: Browser, url: str, width: int, height: int, *, touch: bool = False) -> Watched:
    """The page at ``url`` in a new window, ``touch``: a phone's (a touch screen, a coarse pointer)."""
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    watched = Watched(page)
    page.goto(url)
    expect(page.locator("#connection")).to_have_text("live")
    return watched


def start_game(
    page: Page, *, black_level: str, chess960: str | None = None, clock: str | None = None
) -> None:
    page.select_option("select[name=white-kind]", "web")
    page.select_option("select[name=black-kind]", "engine")
    page.fill("input[name=black-level]", black_level)
    if chess960 is not None:
        page.select_option("select[name=start]", "number")
        page.fill("input[name=number]", chess960)
    if clock is not None:
        page.fill("input[name=clock]", clock)
    page.click("#new-game button[type=submit]")


#: The centre of a square on a chessground board, in page pixels, as the board is turned.
SQUARE_AT = """([board, square]) => {
  const wrap = document.querySelector(board);
  const box = wrap.querySelector("cg-board").getBoundingClientRect();
  const black = wrap.classList.contains("orientation-black");
  const file = square.charCodeAt(0) - 97, rank = Number(square[1]) - 1;
  const x = black ? 7 - file : file, y = black ? rank : 7 - rank;
  return [box.x + ((x + 0.5) * box.width) / 8, box.y + ((y + 0.5) * box.height) / 8];
}"""


def square_at(page: Page, square: str, board: str = "#board") -> tuple[float, float]:
    """Where ``square`` is on the screen, the board scrolled into view first (and the scroll's event
    delivered: chessground keeps the board's place until it hears of a scroll)."""
    page.locator(board).scroll_into_view_if_needed()
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    x, y = page.evaluate(SQUARE_AT, [board, square])
    return float(x), float(y)


def click_square(page: Page, square: str, *, touch: bool = False, board: str = "#board") -> None:
    """A click on ``square`` of the live board (a finger's tap on a touch screen)."""
    x, y = square_at(page, square, board)
    if touch:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)


def drag(page: Page, start: str, end: str, *, touch: bool = False, board: str = "#board") -> None:
    """A piece dragged from ``start`` to ``end`` with the mouse, or with a finger on a touch screen."""
    (x1, y1), (x2, y2) = square_at(page, start, board), square_at(page, end, board)
    if not touch:
        page.mouse.move(x1, y1)
        page.mouse.down()
        page.mouse.move(x2, y2, steps=10)
        page.mouse.up()
        return
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x1, "y": y1}]})
    for step in range(1, 11):
        x, y = x1 + (x2 - x1) * step / 10, y1 + (y2 - y1) * step / 10
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def shown_moves(page: Page) -> list[str]:
    return page.locator("#moves .ply").all_inner_texts()


def board_after(sans: list[str], start: chess.Board | None = None) -> chess.Board:
    board = (start or chess.Board()).copy()
    for san in sans:
        board.push_san(san)
    return board


def has_class(name: str) -> re.Pattern[str]:
    return re.compile(rf"(^|\s){name}(\s|$)")


def screenshot(page: Page, folder: Path, name: str, *, full_page: bool = True) -> Path:
    """The whole page, or with ``full_page=False`` the screen as it is (a dialog over the page)."""
    path = folder / f"{name}.png"
    if full_page:
        page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=full_page)
    return path


def resign(page: Page, *, touch: bool = False) -> None:
    """Resign from the page: the question near the board, answered."""
    (page.tap if touch else page.click)("[data-command=resign]")
    expect(page.locator("#question")).to_contain_text("Resign this game?")
    (page.tap if touch else page.click)("#question button[data-answer=true]")


def idle(runner: GameRunner) -> None:
    """Nothing runs on ``runner`` (a game a test left is stopped)."""
    runner.stop()
    assert runner.wait(60)
