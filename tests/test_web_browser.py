"""The web page in a real browser: Debian's Chromium, driven by Playwright, plays a whole short game
against the engine on the simulator, from the page alone; the page on a phone-sized touch screen; the LEDs,
the clock, a takeback and the robot paused, as the page shows them; the table set up from the page and a
stopped game put back; saved games played through in the viewer (on a desktop and a phone) while a game
goes on, and a stopped one continued from there; and the page finding its server again after a restart.

Screenshots are kept as artifacts in ``test-artifacts/web/`` (or ``$CHESSATRON_ARTIFACTS/web/``). No
browser is ever downloaded: without ``/usr/bin/chromium`` these tests fail and say how to install it.
"""

from __future__ import annotations

import io
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Error, Locator, Page, expect, sync_playwright

from chessatron.game.record import GameRecord, Player, from_pgn
from chessatron.game.runner import GameRequest, GameRunner
from chessatron.game.store import save_record
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
#: The LEDs' default colours as the page shows them (chessatron.feedback.signals.SignalColours).
GREEN, YELLOW, WARM_WHITE, BLUE = (
    "rgb(0, 200, 0)",
    "rgb(255, 190, 0)",
    "rgb(255, 190, 120)",
    "rgb(0, 80, 255)",
)


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


def led(page: Page, square: str) -> Locator:
    """The LED under ``square`` on the page's LED grid."""
    return page.locator(f"#leds span[data-square={square}]")


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


def test_a_whole_game_against_the_engine_from_the_page(
    browser: Browser, served: ServerHandle, artifacts: Path
) -> None:
    watched = open_page(browser, served.url, 1280, 900)
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
    gantry = page.request.get(served.url + "api/v1/state").json()["gantry"]  # where the robot stopped
    expect(page.locator("#gantry-text")).to_contain_text(
        f"X {gantry['x']:.1f} Y {gantry['y']:.1f} mm, standing still"
    )
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
        page.click("[data-command=resign]")  # a second click, to be sure
        expect(page.locator("[data-command=resign]")).to_have_text("Really resign?")
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
    browser: Browser, served: ServerHandle, artifacts: Path
) -> None:
    watched = open_page(browser, served.url, 390, 844, touch=True)
    page = watched.page
    start_game(page, black_level=ENGINE_LEVEL, chess960="100")
    expect(page.locator("#status")).to_have_text("white to move")
    start = chess.Board.from_chess960_pos(100)
    expect(page.locator("#board svg")).to_have_attribute("data-fen", start.board_fen())
    expect(page.locator("#players")).to_contain_text("Chess960")
    expect(page.locator("#board")).to_be_in_viewport()  # brought back up from the form

    # nothing wider than the screen, the board as wide as it can be, the sections one under another
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    board = page.locator("#board").bounding_box()
    table = page.locator("#table").bounding_box()
    assert board is not None and table is not None
    assert board["x"] >= 0 and board["x"] + board["width"] <= 390 and board["width"] >= 320
    assert table["y"] > board["y"] + board["height"] and table["width"] >= 300
    # every control is big enough for a finger (44 px)
    small = page.evaluate(
        """() => [...document.querySelectorAll("button, input, select, a")]
          .filter((e) => e.getClientRects().length)
          .map((e) => [e.id || e.name || e.textContent.trim(), e.getBoundingClientRect().height])
          .filter(([, height]) => height < 44)"""
    )
    assert small == []

    page.tap("[data-command=hint]")
    expect(page.locator("#hint-text")).to_contain_text("Hint: ")
    expect(page.locator("#board svg .arrow").first).to_be_attached()
    # a move that cannot be played is refused in plain words, next to where it was typed
    page.fill("#move-form input[name=move]", "Ke2")
    page.tap("#move-form button")
    expect(page.locator("#error")).to_have_text(  # Chess960 start 100: the king stands on g1
        "'Ke2': the king on g1 cannot go to e2: the king steps one square, or castles"
    )
    expect(page.locator("#error")).to_be_in_viewport()
    # a new game waits until this one is stopped, and the page says so
    expect(page.locator("#new-game button[type=submit]")).to_be_disabled()
    expect(page.locator("#busy-note")).to_contain_text("Stop game")
    shot = screenshot(page, artifacts, "phone-hint")
    page.tap("#stop")
    expect(page.locator("#status")).to_contain_text("stopped")
    expect(page.locator("#games tr").first).to_contain_text("unfinished, 0 moves")
    expect(page.locator("#new-game button[type=submit]")).to_be_enabled()
    assert shot.exists() and shot.stat().st_size > 0
    assert watched.errors == [
        "Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)"
    ]


def test_a_pawn_promoted_from_the_page_becomes_the_piece_chosen(
    browser: Browser, served: ServerHandle, artifacts: Path
) -> None:
    fen = "8/4P1k1/8/8/8/8/7P/4K3 w - - 0 1"  # the h-pawn keeps a knight's game going
    watched = open_page(browser, served.url, 1024, 768)
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


def test_the_leds_the_clock_a_takeback_and_the_robot_paused_as_the_page_shows_them(
    browser: Browser, served: ServerHandle, artifacts: Path
) -> None:
    watched = open_page(browser, served.url, 1280, 900)
    page = watched.page
    start_game(page, black_level=ENGINE_LEVEL, clock="5+3")
    expect(page.locator("#status")).to_have_text("white to move")

    # the clock: both sides' time, White's running down
    white, black = page.locator("#clock-bottom"), page.locator("#clock-top")
    expect(black).to_have_text("Black 5:00")
    expect(white).to_have_class(has_class("running"))
    expect(white).to_have_text(re.compile(r"White (5:00|4:5\d)"))
    expect(white).not_to_have_text(white.inner_text())  # within a second

    # a piece picked on the page lights the LEDs under where it may go, on the LED grid and the board
    page.click("#board rect.square.g1")
    expect(led(page, "g1")).to_have_css("background-color", WARM_WHITE)
    expect(led(page, "f3")).to_have_css("background-color", GREEN)
    expect(led(page, "h3")).to_have_css("background-color", GREEN)
    expect(page.locator("#leds span.on")).to_have_count(3)
    expect(page.locator("#board svg rect[fill='#00c800']")).to_have_count(2)  # the LEDs shine through
    shots = [screenshot(page, artifacts, "desktop-leds-picked")]
    page.click("#board rect.square.g2")  # another piece: its own squares
    expect(led(page, "g3")).to_have_css("background-color", GREEN)
    expect(page.locator("#leds span.on")).to_have_count(3)
    page.click("#board rect.square.g2")  # put down again: the LEDs go out
    expect(page.locator("#leds span.on")).to_have_count(0)
    page.click("#board rect.square.g1")
    page.click("#board rect.square.f3")

    # the engine's answer, lit blue where it came from and went
    expect(page.locator("#moves .ply")).to_have_count(2)
    expect(page.locator("#status")).to_have_text("white to move")
    reply = board_after(shown_moves(page)).peek()
    for square in (reply.from_square, reply.to_square):
        expect(led(page, chess.square_name(square))).to_have_css("background-color", BLUE)
    expect(page.locator("#leds span.on")).to_have_count(2)
    expect(page.locator("#eval-words")).to_contain_text(re.compile(r"equal|better|winning"))
    expect(white).to_have_class(has_class("running"))
    expect(black).to_have_text(re.compile(r"Black 5:0[0-3]"))  # the increment
    shots.append(screenshot(page, artifacts, "desktop-leds-engine-move"))

    # the robot paused while White thinks: the page says so until it goes on
    page.click("#pause")
    expect(page.locator("#status")).to_have_text("robot paused")
    expect(page.locator("#robot")).to_have_text("Robot paused: press Resume robot to go on")
    expect(page.locator("#pause")).to_be_disabled()
    shots.append(screenshot(page, artifacts, "desktop-paused"))
    page.click("#continue")
    expect(page.locator("#status")).to_have_text("white to move")
    expect(page.locator("#robot")).to_be_hidden()

    # taken back: the robot puts both moves back, the LEDs go out
    page.click("[data-command=takeback]")
    expect(page.locator("#moves .ply")).to_have_count(0)
    expect(page.locator("#board svg")).to_have_attribute("data-fen", chess.STARTING_BOARD_FEN)
    expect(page.locator("#leds span.on")).to_have_count(0)
    expect(page.locator("[data-command=hint]")).to_be_enabled()  # White is to move again
    page.click("[data-command=resign]")
    page.click("[data-command=resign]")
    expect(page.locator("#status")).to_have_text("0-1 (resignation)")
    expect(white).not_to_have_class(has_class("running"))  # the clocks stop with the game
    for shot in shots:
        assert shot.exists() and shot.stat().st_size > 0, shot
    assert watched.errors == []


def test_the_table_is_set_up_from_the_page_and_a_stopped_game_put_back(
    browser: Browser, runner: GameRunner, served: ServerHandle, artifacts: Path
) -> None:
    watched = open_page(browser, served.url, 1024, 768)
    page = watched.page
    start_game(page, black_level=ENGINE_LEVEL)
    expect(page.locator("#status")).to_have_text("white to move")
    page.click("#board rect.square.e2")
    page.click("#board rect.square.e4")
    expect(page.locator("#moves .ply")).to_have_count(2)
    game = board_after(shown_moves(page))
    page.click("#stop")
    expect(page.locator("#status")).to_contain_text("stopped")

    # Chess960 #0 set up from the page. At full speed the robot would be done in a blink: it is held
    # first, so that the page can be seen showing its work; the page's Resume robot lets it go on.
    gantry = page.locator("#gantry-text")
    runner.pause()
    page.fill("#reset input[name=target]", "0")
    page.click("#reset button")
    expect(gantry).to_contain_text("held (paused). The robot is setting the table up (1 of ")
    expect(page.locator("#status")).to_have_text("robot paused")
    expect(page.locator("#busy-note")).to_contain_text("setting the table up")
    expect(page.locator("#new-game button[type=submit]")).to_be_disabled()
    shots = [screenshot(page, artifacts, "desktop-set-up-held")]
    page.click("#continue")
    expect(page.locator("#status")).to_have_text("idle")
    chess960 = chess.Board.from_chess960_pos(0)
    expect(page.locator("#board svg")).to_have_attribute("data-fen", chess960.board_fen())
    expect(page.locator("#moves .ply")).to_have_count(0)
    expect(page.locator("#eval-line")).to_be_hidden()  # no game, no evaluation
    expect(gantry).not_to_contain_text("The robot is")

    # the stopped game resumed: the robot first puts its pieces back, which the sensors see
    runner.pause()
    page.click("#resume")
    expect(gantry).to_contain_text("The robot is putting the pieces back where the game stopped (1 of ")
    shots.append(screenshot(page, artifacts, "desktop-putting-back"))
    page.click("#continue")
    expect(page.locator("#status")).to_have_text("white to move")
    expect(page.locator("#board svg")).to_have_attribute("data-fen", game.board_fen())
    occupied = sorted(chess.square_name(square) for square in chess.SquareSet(game.occupied))
    expect(page.locator("#sensors span.on")).to_have_count(len(occupied))
    assert (
        sorted(page.locator("#sensors span.on").evaluate_all("cells => cells.map(c => c.title)")) == occupied
    )

    # a set-up that cannot be is refused under the set-up form, in plain words
    page.click("#stop")
    expect(page.locator("#status")).to_contain_text("stopped")
    page.fill("#reset input[name=target]", "960")
    page.click("#reset button")
    expect(page.locator("#reset-error")).to_contain_text("960")
    expect(page.locator("#reset-error")).to_be_visible()
    for shot in shots:
        assert shot.exists() and shot.stat().st_size > 0, shot
    assert watched.errors == [
        "Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)"
    ]


def test_the_page_finds_its_server_again_after_a_restart(
    browser: Browser, runner: GameRunner, artifacts: Path
) -> None:
    app = create_app(runner, runner.live, token=None, games_dir=runner.games_dir)
    first = start_in_thread(app)
    port = int(first.url.rsplit(":", 1)[1].strip("/"))
    watched = open_page(browser, first.url, 1024, 768)
    page = watched.page
    first.stop()
    expect(page.locator("#connection")).to_have_text("offline")
    expect(page.locator("#offline")).to_contain_text("reconnects by itself")
    expect(page.locator("#new-game button[type=submit]")).to_be_disabled()
    shot = screenshot(page, artifacts, "desktop-offline")
    started = time.monotonic()
    with start_in_thread(app, port=port):
        expect(page.locator("#connection")).to_have_text("live")
        expect(page.locator("#info")).to_have_text("Connected to the server again.")
        expect(page.locator("#offline")).to_be_hidden()
        expect(page.locator("#new-game button[type=submit]")).to_be_enabled()
        assert time.monotonic() - started < 10
    assert shot.exists() and shot.stat().st_size > 0
    # while the server was away the browser could not reach it (refused, or a socket cut), nothing else;
    # Chromium says so as a resource that failed to load or as a WebSocket that failed to connect
    assert all("net::ERR_" in error for error in watched.errors), watched.errors


def test_a_page_on_the_network_shows_a_phone_its_link(
    browser: Browser, runner: GameRunner, artifacts: Path
) -> None:
    token = "a-token-for-the-test"
    app = create_app(
        runner,
        runner.live,
        token=token,
        games_dir=runner.games_dir,
        link=f"http://10.0.0.7:8960/?token={token}",
    )
    with start_in_thread(app, token=token) as handle:
        watched = open_page(browser, handle.url, 1280, 900)  # the link with its token, as printed
        page = watched.page
        expect(page.locator("#phone")).to_be_visible()
        image = page.locator("#phone-link")
        expect(image).to_be_visible()
        # the picture came (the page's own requests carry the token in its cookie) and is square
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while not image.evaluate("(img) => img.complete && img.naturalWidth > 0"):
            assert time.monotonic() < deadline, "the QR code never loaded"
            time.sleep(0.05)
        width, height = image.evaluate("(img) => [img.naturalWidth, img.naturalHeight]")
        assert width == height and width >= 100
        shot = screenshot(page, artifacts, "desktop-phone-link")
        assert shot.exists() and watched.errors == []
    # on this machine only, there is nothing to show a phone
    with start_in_thread(create_app(runner, runner.live, token=None, games_dir=runner.games_dir)) as local:
        page = open_page(browser, local.url, 1280, 900).page
        expect(page.locator("#phone")).to_be_hidden()


# --- the saved-game viewer -------------------------------------------------------------------------

FOOLS_MATE = '[White "Ann"]\n[Black "Bob"]\n[Date "2023.04.01"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'


def viewer_fen(page: Page) -> Locator:
    return page.locator("#viewer-board svg")


def open_saved(page: Page, text: str) -> None:
    """Click the saved game whose row shows ``text``; its viewer opens at its last position."""
    page.locator("#games tr", has_text=text).click()
    expect(page.locator("#viewer")).to_be_visible()


def test_a_saved_game_is_played_through_in_the_viewer_while_a_game_goes_on(
    browser: Browser, runner: GameRunner, served: ServerHandle, artifacts: Path
) -> None:
    save_record(from_pgn(FOOLS_MATE), runner.games_dir)
    watched = open_page(browser, served.url, 1280, 900)
    page = watched.page
    start_game(page, black_level=ENGINE_LEVEL)
    expect(page.locator("#status")).to_have_text("white to move")
    page.click("#board rect.square.e2")
    page.click("#board rect.square.e4")
    expect(page.locator("#moves .ply")).to_have_count(2)
    live = board_after(shown_moves(page))

    open_saved(page, "Ann – Bob")
    expect(page.locator("#viewer-title")).to_have_text("Ann – Bob")
    expect(page.locator("#viewer-about")).to_have_text(
        "White: Ann · Black: Bob · played 2023-04-01 · standard chess"
    )
    expect(page.locator("#viewer-result")).to_have_text("0-1 · Black won by checkmate")
    expect(page.locator("#viewer-continue")).to_be_hidden()  # a finished game
    sans = ["f3", "e5", "g4", "Qh4#"]
    positions = [board_after(sans[:ply]).board_fen() for ply in range(5)]
    expect(viewer_fen(page)).to_have_attribute("data-fen", positions[4])
    expect(page.locator("#viewer-ply")).to_have_text("After 2… Qh4# (4 of 4)")
    expect(page.locator("#viewer-moves button[aria-current]")).to_have_text("Qh4#")
    expect(page.locator("[data-step=forward]")).to_be_disabled()
    shots = [screenshot(page, artifacts, "viewer-desktop-end", full_page=False)]

    # the buttons, the arrow keys, and a click on a move; the last move marked on every board
    steps: list[tuple[Callable[[], None], int]] = [
        (lambda: page.click("[data-step=first]"), 0),
        (lambda: page.click("[data-step=forward]"), 1),
        (lambda: page.click("[data-step=forward]"), 2),
        (lambda: page.click("[data-step=back]"), 1),
        (lambda: page.keyboard.press("ArrowRight"), 2),
        (lambda: page.click("#viewer-moves button.ply >> text=g4"), 3),
        (lambda: page.keyboard.press("ArrowLeft"), 2),
        (lambda: page.keyboard.press("End"), 4),
        (lambda: page.keyboard.press("Home"), 0),
        (lambda: page.click("[data-step=last]"), 4),
    ]
    for step, ply in steps:
        step()
        expect(viewer_fen(page)).to_have_attribute("data-fen", positions[ply])
        expect(viewer_fen(page).locator("rect.lastmove")).to_have_count(2 if ply else 0)
        if ply == 2:
            expect(page.locator("#viewer-ply")).to_have_text("After 1… e5 (2 of 4)")
            expect(page.locator("#viewer-moves button[aria-current]")).to_have_text("e5")
    expect(page.locator("[data-step=first]")).to_be_enabled()
    a1 = viewer_fen(page).locator("rect.square.a1")
    expect(a1).to_have_attribute("x", "15")  # bottom left
    page.click("#viewer-flip")  # turned round: the same position from Black's side
    expect(a1).to_have_attribute("x", "330")  # top right
    expect(viewer_fen(page)).to_have_attribute("data-fen", positions[4])
    page.click("[data-step=back]")
    expect(viewer_fen(page)).to_have_attribute("data-fen", positions[3])  # the board caught up
    expect(page.locator("#viewer-ply")).to_contain_text("(3 of 4)")
    shots.append(screenshot(page, artifacts, "viewer-desktop-stepped", full_page=False))
    # the live board never followed the viewer
    expect(page.locator("#board svg")).to_have_attribute("data-fen", live.board_fen())

    page.click("#viewer-close")
    expect(page.locator("#viewer")).to_be_hidden()
    expect(page.locator("#status")).to_have_text("white to move")
    page.click("#board rect.square.g1")  # the live game goes on
    page.click("#board rect.square.f3")
    expect(page.locator("#moves .ply")).to_have_count(4)
    expect(page.locator("#board svg")).to_have_attribute(
        "data-fen", board_after(shown_moves(page)).board_fen()
    )
    # Esc and the browser's back button (a phone's) close the viewer too
    open_saved(page, "Ann – Bob")
    page.keyboard.press("Escape")
    expect(page.locator("#viewer")).to_be_hidden()
    open_saved(page, "Ann – Bob")
    page.go_back()
    expect(page.locator("#viewer")).to_be_hidden()
    assert page.url == served.url
    for shot in shots:
        assert shot.exists() and shot.stat().st_size > 0, shot
    assert watched.errors == []


def test_on_a_phone_a_saved_game_fills_the_screen_and_steps_by_touch(
    browser: Browser, runner: GameRunner, served: ServerHandle, artifacts: Path
) -> None:
    start = chess.Board.from_chess960_pos(100)
    board = start.copy()
    board.chess960 = True
    for san in ["g3", "g6", "Nc3", "Nc6", "b3", "b6", "Bb2", "Bb7", "f4", "f5"]:
        board.push_san(san)
    record = GameRecord.from_board(
        board, white=Player("", "web"), black=Player("", "engine", ENGINE_LEVEL), result="1/2-1/2"
    )
    save_record(record, runner.games_dir)
    watched = open_page(browser, served.url, 390, 844, touch=True)
    page = watched.page
    page.locator("#games tr", has_text="(960)").locator("button.view").tap()
    expect(page.locator("#viewer")).to_be_visible()
    expect(page.locator("#viewer-about")).to_contain_text("Chess960 #100")
    expect(page.locator("#viewer-result")).to_have_text("½-½ · Draw")
    expect(viewer_fen(page)).to_have_attribute("data-fen", board.board_fen())

    # the whole screen, nothing wider than it, the board as wide as it can be, every control for a finger
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate("document.getElementById('viewer').scrollWidth") <= 390
    shown = page.locator("#viewer-board").bounding_box()
    forward = page.locator("[data-step=forward]").bounding_box()
    assert shown is not None and forward is not None
    assert shown["x"] >= 0 and shown["x"] + shown["width"] <= 390 and shown["width"] >= 360
    assert forward["y"] + forward["height"] <= 844  # the steps under the board, without scrolling
    small = page.evaluate(
        """() => [...document.querySelectorAll("#viewer button, #viewer a")]
          .filter((e) => e.getClientRects().length)
          .map((e) => [e.id || e.textContent.trim(), e.getBoundingClientRect().height])
          .filter(([, height]) => height < 44)"""
    )
    assert small == []

    page.tap("[data-step=first]")
    expect(viewer_fen(page)).to_have_attribute("data-fen", start.board_fen())
    page.tap("[data-step=forward]")
    expect(viewer_fen(page)).to_have_attribute("data-fen", board_after(["g3"], start).board_fen())
    page.locator("#viewer-moves button.ply", has_text="Nc3").tap()
    expect(page.locator("#viewer-ply")).to_have_text("After 2. Nc3 (3 of 10)")
    third = board_after(["g3", "g6", "Nc3"], start)
    expect(viewer_fen(page)).to_have_attribute("data-fen", third.board_fen())
    shot = screenshot(page, artifacts, "viewer-phone", full_page=False)
    page.tap("#viewer-close")
    expect(page.locator("#viewer")).to_be_hidden()
    expect(page.locator("#board")).to_be_visible()
    assert shot.exists() and shot.stat().st_size > 0
    assert watched.errors == []


def stopped_game(runner: GameRunner, first_move: str) -> dict[str, Any]:
    """A game with a web player as White: its first move, the engine's answer, stopped (saved)."""
    runner.start_game(GameRequest(white="web", black=f"engine:{ENGINE_LEVEL}"))
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while True:
        state = runner.live.snapshot()
        game = state["game"]
        if state["prompt"] is not None and game is not None and game["result"] is None:
            if len(game["uci"]) == 0:
                runner.move(first_move)
            elif len(game["uci"]) == 2:
                break
        assert time.monotonic() < deadline, f"gave up waiting; the state is {state['status']!r}"
        runner.live.wait(state["version"], 0.5)
    runner.stop()
    assert runner.wait(30)
    stopped: dict[str, Any] = game
    return stopped


def test_a_stopped_game_is_continued_from_the_viewer(
    browser: Browser, runner: GameRunner, served: ServerHandle, artifacts: Path
) -> None:
    older = stopped_game(runner, "e4")
    newer = stopped_game(runner, "d4")
    watched = open_page(browser, served.url, 1024, 768)
    page = watched.page
    expect(page.locator("#games tr", has_text="unfinished")).to_have_count(2)
    page.locator(f"#games tr[data-id='{older['id']}']").click()
    expect(viewer_fen(page)).to_have_attribute("data-fen", chess.Board(older["fen"]).board_fen())
    expect(page.locator("#viewer-result")).to_have_text("Unfinished after 1 move")
    expect(page.locator("#viewer-continue")).to_be_enabled()
    expect(page.locator("#viewer-note")).to_contain_text("puts the pieces back")
    shots = [screenshot(page, artifacts, "viewer-continue", full_page=False)]

    # the older game, not the latest: the robot puts its pieces back, and it goes on on the live board
    page.click("#viewer-continue")
    expect(page.locator("#viewer")).to_be_hidden()
    expect(page.locator("#status")).to_have_text("white to move")
    expect(page.locator("#board svg")).to_have_attribute("data-fen", chess.Board(older["fen"]).board_fen())
    assert shown_moves(page)[0] == "e4"
    table = page.request.get(served.url + "api/v1/state").json()["table"]
    assert runner.live.snapshot()["game"]["id"] == older["id"] and table is not None

    # while it runs, the viewer says why no other game can be continued
    page.locator(f"#games tr[data-id='{newer['id']}']").click()
    expect(page.locator("#viewer-continue")).to_be_disabled()
    expect(page.locator("#viewer-note")).to_contain_text("The table is busy")
    page.keyboard.press("Escape")
    page.locator(f"#games tr[data-id='{older['id']}']").click()
    expect(page.locator("#viewer-note")).to_contain_text("being played on the table now")
    shots.append(screenshot(page, artifacts, "viewer-busy", full_page=False))
    page.click("#viewer-close")
    page.click("#board rect.square.d2")
    page.click("#board rect.square.d4")
    expect(page.locator("#moves .ply")).to_have_count(4)
    for shot in shots:
        assert shot.exists() and shot.stat().st_size > 0, shot
    assert watched.errors == []
