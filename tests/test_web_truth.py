"""The main page tells the truth (issue 36), in Debian's Chromium at a phone's size (390 x 844, touch) and a
desktop's (1440 x 900), as a person uses it: *Resume last game* names the game it would continue and asks
before the robot moves a piece (continue it, another stopped game, or a new one instead); the turn line
never says the page is to move while the engine or the robot is (sampled at every change during the
engine's replies and a draw offer), and *Again* starts the same game anew; a reload in the middle of a
set-up and of a game shows them as they are; after a stop, the next action leaves no word of the stop
behind, and a phone's header shows the status whole. And the terminal that serves the page tells a stop
the person asked for as a notice, not a warning."""

from __future__ import annotations

import re
import time
from pathlib import Path

import chess
import httpx
from playwright.sync_api import Browser, Page, expect

from chessatron.game.records import store
from chessatron.game.runner import GameRunner
from chessatron.web.server import ServerHandle

from .browser import (  # noqa: F401 (the fixtures browser and artifacts)
    ENGINE_LEVEL,
    artifacts_fixture,
    browser_fixture,
    click_square,
    drag,
    idle,
    open_page,
    resign,
    screenshot,
    shown_moves,
    start_game,
)
from .journeys import Terminal, person_env
from .made_games import ENGINE, keyboard_game

PHONE = (390, 844)
DESKTOP = (1440, 900)

#: Every change of the turn line, the header's status and the move list, as the page showed it: [turn,
#: status, the moves the server has, the page's own moves on their way].
RECORD = """() => { window.said = [];
  const note = () => window.said.push([
    document.getElementById("turn").textContent, document.getElementById("status").textContent,
    document.querySelectorAll("#moves .ply:not(.pending)").length,
    document.querySelectorAll("#moves .ply.pending").length]);
  for (const id of ["turn", "status", "moves"]) {
    new MutationObserver(note).observe(document.getElementById(id),
                                       { subtree: true, childList: true, characterData: true });
  }
}"""

#: What of the header's status is cut: wider than its box, or past the screen's edge.
HEADER_CUT = """() => {
  const status = document.getElementById("status");
  const box = status.getBoundingClientRect();
  const found = [];
  if (status.scrollWidth > status.clientWidth + 1) found.push(`wider than its box: ${status.textContent}`);
  if (box.left < 0 || box.right > window.innerWidth + 0.5) found.push("past the screen's edge");
  if (getComputedStyle(status).textOverflow === "ellipsis") found.push("cut with an ellipsis");
  return found;
}"""


def settled(page: Page) -> None:
    """The page has the table's state (what a person waits for before reaching for a button)."""
    expect(page.locator("#turn")).not_to_have_text(re.compile("Offline|^$"))


def test_resume_names_the_game_and_asks_before_the_robot_moves_a_piece(
    browser: Browser, runner: GameRunner, served: ServerHandle, artifacts: Path
) -> None:
    older = keyboard_game(runner.games_dir, ["e4"])
    latest = keyboard_game(runner.games_dir, ["g3", "b3"], start=chess.Board.from_chess960_pos(100))
    standing = runner.session.table.placement()
    watched = open_page(browser, served.url, *PHONE, touch=True)
    page = watched.page
    settled(page)
    # the button names the game it would continue
    about = page.locator("#resume-about")
    expect(about).to_have_text("keyboard – engine:20:depth=1 · Chess960 #100 · 2 moves · stopped just now")
    page.tap("#resume")
    question = page.locator("#question")
    expect(question).to_contain_text(
        "Continue White keyboard vs Black engine:20:depth=1, Chess960 #100, 2 moves, stopped just now, "
        "started at the terminal? White is played on this page from now on (was keyboard). "
        "The robot will set the table up ("
    )
    expect(question).to_be_in_viewport()
    shot = screenshot(page, artifacts, "phone-resume-asked", full_page=False)

    # not that one: a new game instead; nothing moved, nothing started
    page.tap("#question button[data-answer=new]")
    expect(question).to_be_hidden()
    expect(page.locator("#new-game button[type=submit]")).to_be_focused()
    assert not runner.busy and runner.live.snapshot()["game"] is None
    assert runner.session.table.placement() == standing

    # another stopped game: the older one, named and asked about in turn, and continued
    page.tap("#resume")
    page.tap("#question button[data-answer=other]")
    expect(question).to_contain_text("Which stopped game?")
    page.locator("#question button", has_text="standard chess · 1 move").tap()
    expect(question).to_contain_text(
        "Continue White keyboard vs Black engine:20:depth=1, standard chess, 1 move"
    )
    assert not runner.busy
    page.tap("#question button[data-answer=continue]")
    expect(page.locator("#turn")).to_have_text("Your move")
    expect(page.locator("#moves .ply")).to_have_count(2)
    assert runner.live.snapshot()["game"]["id"] == older
    # the one not chosen still waits, the latest begun: named on the button once this one is stopped
    page.tap("#stop")
    expect(page.locator("#banner-result")).to_contain_text("Stopped after 2 half-moves")
    expect(about).to_contain_text("keyboard – engine:20:depth=1 · Chess960 #100 · 2 moves")
    assert {s.game_id for s in store.list_games(runner.games_dir) if s.is_open} == {older, latest}
    assert shot.exists() and watched.errors == []


def test_the_turn_line_never_says_the_page_is_to_move_while_the_engine_or_the_robot_is(
    browser: Browser, runner: GameRunner, served: ServerHandle
) -> None:
    watched = open_page(browser, served.url, *DESKTOP)
    page = watched.page
    start_game(page, black_level=ENGINE_LEVEL)
    expect(page.locator("#turn")).to_have_text("Your move")
    page.evaluate(RECORD)
    click_square(page, "e2")
    click_square(page, "e4")
    expect(page.locator("#moves .ply:not(.pending)")).to_have_count(2)
    expect(page.locator("#turn")).to_have_text("Your move")
    drag(page, "d2", "d3")
    expect(page.locator("#moves .ply:not(.pending)")).to_have_count(4)
    expect(page.locator("#turn")).to_have_text("Your move")
    # a draw offer: declined in words, and the turn is the page's again
    page.click("[data-command=draw]")
    expect(page.locator("#info")).to_contain_text("declines the draw")
    expect(page.locator("#turn")).to_have_text("Your move")
    said = page.evaluate("window.said")
    assert said, "the page never changed its turn line"
    for turn, status, plies, pending in said:
        assert "to move on the page" not in turn, said
        if plies % 2:  # the engine's turn, or the robot carrying out the page's move
            assert turn != "Your move" and status != "white to move", said
        if pending:  # the page's move on its way (the server has not heard of it yet)
            assert turn != "Your move", said
    shown = {turn for turn, *_ in said}
    assert shown & {"Engine thinking", "Robot moving", "White played e4", "White played d3"}, shown

    # resigned, then Again: the same players, a new game, the page to move
    resign(page)
    expect(page.locator("#banner-result")).to_have_text("0-1 · Black won by resignation")
    first = runner.live.snapshot()["game"]["id"]
    page.click("#again")
    expect(page.locator("#banner")).to_be_hidden()
    expect(page.locator("#turn")).to_have_text("Your move")
    expect(page.locator("#moves .ply")).to_have_count(0)
    game = runner.live.snapshot()["game"]
    assert game["id"] != first and (game["white"], game["black"]) == ("web", f"engine:{ENGINE_LEVEL}")
    idle(runner)
    assert watched.errors == []


def test_a_reload_in_a_set_up_and_in_a_game_shows_them_as_they_are(
    browser: Browser, runner: GameRunner, served: ServerHandle, artifacts: Path
) -> None:
    runner.reset_table("standard")  # connects the machine (nothing to move), so that it can be held
    assert runner.wait(30)
    watched = open_page(browser, served.url, *PHONE, touch=True)
    page = watched.page
    settled(page)
    # a Chess960 game's set-up, the robot held at its first drag; the page reloaded meanwhile
    runner.pause()
    start_game(page, black_level=ENGINE_LEVEL, chess960="100")
    gantry = page.locator("#gantry-text")
    expect(gantry).to_contain_text(
        re.compile(r"held \(paused\)\. The robot is setting up the game \(1 of \d+\)")
    )
    page.reload()
    expect(page.locator("#connection")).to_have_text("live")
    expect(page.locator("#status")).to_have_text("robot paused")
    expect(page.locator("#turn")).to_have_text("Robot paused")
    expect(page.locator("#robot")).to_have_text("Robot paused: press Resume robot to go on")
    expect(gantry).to_contain_text(re.compile(r"The robot is setting up the game \(1 of \d+\)"))
    expect(page.locator("#new-game")).to_be_hidden()
    expect(page.locator("#stop")).to_be_enabled()
    shot = screenshot(page, artifacts, "phone-reloaded-in-set-up", full_page=False)
    page.tap("#continue")
    expect(page.locator("#turn")).to_have_text("Your move")
    start = chess.Board.from_chess960_pos(100)
    expect(page.locator("#board")).to_have_attribute("data-fen", start.board_fen())

    # in the game: the page's move made, the robot held carrying it out; reloaded
    runner.pause()
    click_square(page, "g2", touch=True)
    click_square(page, "g3", touch=True)
    expect(page.locator("#moves .ply:not(.pending)")).to_have_count(1)
    expect(page.locator("#turn")).to_have_text("Robot paused")
    page.reload()
    expect(page.locator("#connection")).to_have_text("live")
    after = start.copy()
    after.push_san("g3")
    expect(page.locator("#board")).to_have_attribute("data-fen", after.board_fen())
    assert shown_moves(page) == ["g3"]
    expect(page.locator("#turn")).to_have_text("Robot paused")
    expect(gantry).to_contain_text("The robot is making White's move 1. g3")
    expect(page.locator("#name-bottom")).to_have_text("White: web page (you)")
    page.tap("#continue")
    expect(page.locator("#moves .ply:not(.pending)")).to_have_count(2)
    expect(page.locator("#turn")).to_have_text("Your move")
    idle(runner)
    assert shot.exists() and watched.errors == []


def test_after_a_stop_the_next_action_leaves_no_word_of_it_and_a_phone_header_shows_the_status_whole(
    browser: Browser, runner: GameRunner, served: ServerHandle, artifacts: Path
) -> None:
    watched = open_page(browser, served.url, *PHONE, touch=True)
    page = watched.page
    settled(page)
    page.select_option("select[name=start]", "random")  # a Chess960 start chosen at random
    page.select_option("select[name=black-kind]", "engine")
    page.fill("input[name=black-level]", ENGINE_LEVEL)
    page.tap("#new-game button[type=submit]")
    expect(page.locator("#turn")).to_have_text("Your move")
    expect(page.locator("#variant")).to_have_text(re.compile(r"^Chess960 #\d+$"))
    expect(page.locator("#status")).to_have_text("white to move")
    assert page.evaluate(HEADER_CUT) == []
    click_square(page, "b2", touch=True)  # b3 is free in every Chess960 start
    click_square(page, "b3", touch=True)
    expect(page.locator("#moves .ply:not(.pending)")).to_have_count(2)

    page.tap("#stop")
    banner = page.locator("#banner-result")
    expect(banner).to_have_text("Stopped after 2 half-moves; the game is saved: Resume continues it.")
    status = page.locator("#status")
    expect(status).to_have_text("stopped after 2 half-moves")  # whole, the rest under the board
    assert page.evaluate(HEADER_CUT) == []
    shot = screenshot(page, artifacts, "phone-header-stopped", full_page=False)
    # the banner's Resume goes on with it at once (it is the game on the board), and a stop again
    page.tap("#banner-resume")
    expect(page.locator("#turn")).to_have_text("Your move")
    expect(page.locator("#banner")).to_be_hidden()
    page.tap("#stop")
    expect(banner).to_contain_text("Stopped after 2 half-moves")

    # the next action: the table set up for the standard start; nothing of the stop is said any more
    page.fill("#reset input[name=target]", "standard")
    page.tap("#reset button")
    expect(status).to_have_text("idle")
    expect(page.locator("#banner")).to_be_hidden()
    expect(page.locator("#turn")).to_have_text("No game: start one")
    for line in ("#status", "#turn", "#info", "#error", "#machine-error", "#reset-note"):
        expect(page.locator(line)).not_to_contain_text(re.compile("stop", re.IGNORECASE))
    expect(page.locator("#board")).to_have_attribute("data-fen", chess.STARTING_BOARD_FEN)
    assert page.evaluate(HEADER_CUT) == []
    assert shot.exists() and watched.errors == []


def test_serve_tells_a_stop_the_person_asked_for_as_a_notice_not_a_warning(tmp_path: Path) -> None:
    with Terminal(["serve", "--port", "0", "--speed", "20"], tmp_path, env=person_env(tmp_path)) as terminal:
        url = terminal.expect(r"the page: (http://127\.0\.0\.1:\d+/)").group(1)
        with httpx.Client(base_url=url, timeout=30) as page:  # what the page sends, clicked
            body = {"white": "web", "black": ENGINE, "chess960": "959"}
            assert page.post("/api/v1/game", json=body).status_code == 202
            deadline = time.monotonic() + 60
            while (page.get("/api/v1/state").json()["gantry"]["work"] or {}).get("index", 0) < 2:
                assert time.monotonic() < deadline, "the set-up never began"
                time.sleep(0.05)
            assert page.post("/api/v1/stop", json={}).status_code == 202
        told = terminal.expect(
            r"notice: setup stopped at your request after (\d+) of (\d+) moves; no game was kept"
        )
        assert 2 <= int(told.group(1)) < int(told.group(2))
        assert "warning" not in terminal.text
        terminal.press("ctrl-c")
        assert terminal.exit_status() == 0
        terminal.assert_clean()
