"""The page a player meets (issue 26), in Debian's Chromium at a phone's size (390 x 844, touch) and a
desktop's (1440 x 900): *Resume last game* takes the latest game with a move and takes a terminal
player's seat over, *Stop game* stops at once (during a set-up, at the robot's next safe point, saying
"stopping…") and says truthfully what was kept; on the desktop the board, the moves, both clocks and the
robot at work on the first screen, on the phone nothing cut; the first screen shows no material under
"No game"; and the machine's settings changed from the page. Checked with bounding boxes and scroll
widths (and screenshots kept as artifacts), not pixels."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import chess
import pytest
from playwright.sync_api import Browser, Page, expect

from chessatron.config import Config, default_config_text
from chessatron.config_keys import CONFIG_KEYS
from chessatron.game.records.record import ClockSettings
from chessatron.game.requests import GameRequest
from chessatron.game.runner import GameRunner
from chessatron.web.app import create_app
from chessatron.web.server import ServerHandle, start_in_thread

from .browser import artifacts_fixture, browser_fixture, open_page, screenshot  # noqa: F401 (fixtures)
from .made_games import ENGINE, cut_short_set_up, keyboard_game

PHONE = (390, 844)
DESKTOP = (1440, 900)
#: Black without its queen: White is 9 ahead from the first move on.
QUEENLESS = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def in_view(page: Page, selector: str) -> bool:
    """Whether the whole of ``selector``'s box is on the screen as it stands (nothing scrolled)."""
    box = page.locator(selector).bounding_box()
    width, height = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    return (
        box is not None
        and box["width"] > 0
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= width + 0.5
        and box["y"] + box["height"] <= height + 0.5
    )


#: What of a player's line is cut or wrapped: a name clipped (its text wider or taller than its box),
#: a clock on more than one line, anything past the screen's right edge.
CUT = """() => {
  const found = [];
  for (const place of ["top", "bottom"]) {
    const name = document.getElementById(`name-${place}`);
    if (name.scrollWidth > name.clientWidth + 1 || name.scrollHeight > name.clientHeight + 1) {
      found.push(`name-${place} clipped`);
    }
    const clock = document.getElementById(`clock-${place}`);
    const range = document.createRange();
    range.selectNodeContents(clock);
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    if (clock.textContent && lines.size !== 1) found.push(`clock-${place} on ${lines.size} lines`);
    for (const id of [`name-${place}`, `material-${place}`, `clock-${place}`]) {
      const box = document.getElementById(id).getBoundingClientRect();
      const off = box.left < 0 || box.right > window.innerWidth + 0.5;
      if (box.width && off) found.push(`${id} off the screen`);
    }
  }
  return found;
}"""

#: How many of the live move list's half-moves are wholly inside its box, as it stands.
PLIES_SHOWN = """() => {
  const list = document.getElementById("moves").getBoundingClientRect();
  return [...document.querySelectorAll("#moves .ply")].filter((ply) => {
    const box = ply.getBoundingClientRect();
    return box.top >= list.top - 0.5 && box.bottom <= list.bottom + 0.5;
  }).length;
}"""


def play_web_moves(runner: GameRunner, count: int) -> None:
    """The page's player makes ``count`` moves (quiet ones where it can), the engine answering each."""
    for _ in range(count):
        runner.live.wait(-1)
        deadline = 200
        while True:
            state = runner.live.snapshot()
            game = state["game"]
            if state["prompt"] is not None and game is not None and game["turn"] == "white":
                break
            runner.live.wait(state["version"], 0.2)
            deadline -= 1
            assert deadline > 0, f"gave up waiting; the state is {state['status']!r}"
        board = chess.Board(game["fen"])
        quiet = sorted((m for m in board.legal_moves if not board.is_capture(m)), key=lambda m: m.uci())
        move = (quiet or list(board.legal_moves))[len(game["uci"]) % max(1, len(quiet))]
        runner.move(move.uci())
        plies = len(game["uci"]) + 2
        while True:  # the engine's answer
            state = runner.live.snapshot()
            if state["game"] is None or len(state["game"]["uci"]) >= plies or state["game"]["result"]:
                break
            runner.live.wait(state["version"], 0.2)


def test_resume_takes_the_latest_game_with_a_move_over_to_the_page_and_stop_stops_it(
    browser: Browser,
    runner: GameRunner,
    served: ServerHandle,
    artifacts: Path,
) -> None:
    # a game typed at a terminal (8 half-moves, a clock), quit; later a Chess960 set-up cut short
    typed = keyboard_game(runner.games_dir, ["e4", "d4", "a3", "h3"], clock=ClockSettings(300, 2))
    cut_short_set_up(runner.games_dir, 100)
    watched = open_page(browser, served.url, *DESKTOP)
    page = watched.page
    expect(page.locator("#turn")).to_have_text("No game: start one")  # the page as it stands
    expect(page.locator("#resume-about")).to_contain_text("keyboard – engine:20:depth=1 · standard chess")
    page.click("#resume")
    # the latest game with a move, named and asked about; then played on this page: its move box, not
    # the server's terminal
    expect(page.locator("#question")).to_contain_text("Continue White keyboard vs Black engine:20:depth=1")
    page.click("#question button[data-answer=continue]")
    expect(page.locator("#turn")).to_have_text("Your move")
    expect(page.locator("#moves .ply")).to_have_count(8)
    expect(page.locator("#move-form")).to_be_visible()
    expect(page.locator("#name-bottom")).to_have_text("White: web page (you)")
    expect(page.locator("#notices")).to_contain_text("White is played by web from now on (was keyboard)")
    assert runner.live.snapshot()["game"]["id"] == typed
    # the desktop's first screen: the board, the moves, both clocks and the robot's table and state
    for part in ("#board", "#moves", "#clock-top", "#clock-bottom", "#table svg", "#gantry-text", "#stop"):
        assert in_view(page, part), part
    expect(page.locator("#clock-bottom")).to_have_text(re.compile(r"^White \d:\d\d$"))
    shot = screenshot(page, artifacts, "desktop-1440-resumed", full_page=False)

    page.click("#stop")
    expect(page.locator("#banner-result")).to_have_text(
        "Stopped after 8 half-moves; the game is saved: Resume continues it."
    )
    expect(page.locator("#turn")).to_have_text("The game is stopped (saved)")
    expect(page.locator("#banner-resume")).to_be_visible()
    assert runner.wait(1)  # at once, not after someone types quit at the server's terminal
    assert shot.exists() and watched.errors == []


def test_a_stop_in_a_set_up_says_stopping_until_the_robot_has_put_its_piece_down(
    browser: Browser,
    artifacts: Path,
) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        GameRunner(
            Config.default(), games_dir=Path(folder) / "g", speed=20.0, state_path=Path(folder) / "s.json"
        ) as runner,
    ):
        app = create_app(runner, runner.live, token=None, games_dir=runner.games_dir)
        with start_in_thread(app) as server:
            watched = open_page(browser, server.url, *PHONE, touch=True)
            page = watched.page
            page.evaluate(
                """() => { window.said = [];
                  new MutationObserver(() => window.said.push(document.getElementById("status").textContent))
                    .observe(document.getElementById("status"), { childList: true, characterData: true,
                                                                   subtree: true }); }"""
            )
            runner.start_game(GameRequest(white="web", black=ENGINE, chess960="959"))
            setting_up = re.compile(r"setting up the game \([2-9] of 1\d\)")  # a drag or more done
            expect(page.locator("#robot")).to_contain_text(setting_up)
            page.tap("#stop")
            expect(page.locator("#banner-result")).to_have_text(
                "Stopped before the first move: no game was kept (a game is saved from its first move)."
            )
            said = page.evaluate("window.said")
            assert "stopping…" in said, said  # said at once, until the robot had put its piece down
            assert said[-1].startswith("stopped before the first move"), said
            expect(page.locator("#games tr")).to_have_count(0)
            expect(page.locator("#banner-resume")).to_be_hidden()
            world = runner.session.world
            assert world is not None and not world.twin.magnet_on
            table, _ = runner.live.table()
            assert table is not None and table.board_fen() != chess.Board.from_chess960_pos(959).board_fen()
            screenshot(page, artifacts, "phone-stopped-in-set-up", full_page=False)
            assert watched.errors == []


def test_on_a_phone_nothing_is_cut_once_a_side_is_ahead_and_the_moves_fill_their_box(
    browser: Browser,
    runner: GameRunner,
    served: ServerHandle,
    artifacts: Path,
) -> None:
    runner.start_game(GameRequest(white="web", black=ENGINE, fen=QUEENLESS, clock="5+3"))
    play_web_moves(runner, 9)
    watched = open_page(browser, served.url, *PHONE, touch=True)
    page = watched.page
    expect(page.locator(".player .material", has_text="+")).to_have_count(1)  # a side is ahead
    expect(page.locator("#clock-top")).to_have_text(re.compile(r"^Black \d:\d\d$"))
    assert page.evaluate(CUT) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    for part in ("#board", "#player-top", "#player-bottom"):
        assert in_view(page, part), part
    # the moves run on as on a score sheet: at least six full moves in the list's box, not two or three
    page.locator("#moves").scroll_into_view_if_needed()
    assert page.evaluate(PLIES_SHOWN) >= 12
    shot = screenshot(page, artifacts, "phone-ahead-in-material", full_page=False)
    runner.stop()
    assert runner.wait(30) and shot.exists() and watched.errors == []


def test_the_first_screen_shows_the_table_as_it_stands_without_a_score(
    browser: Browser,
    runner: GameRunner,
    served: ServerHandle,
) -> None:
    runner.reset_table(QUEENLESS)  # a game's leftovers: a queen short
    assert runner.wait(60)
    watched = open_page(browser, served.url, *PHONE, touch=True)
    page = watched.page
    expect(page.locator("#board")).to_have_attribute("data-fen", chess.Board(QUEENLESS).board_fen())
    expect(page.locator("#turn")).to_have_text("No game: start one")
    expect(page.locator("#name-top")).to_have_text("No game: the pieces as they stand on the table")
    expect(page.locator("#material-top")).to_be_empty()
    expect(page.locator("#material-bottom")).to_be_empty()
    assert watched.errors == []


#: What the page's server says (in the console) of a save it refused: the refusal itself is the page's.
REFUSED = "Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)"


@pytest.mark.parametrize("screen", ["phone", "desktop"])
def test_the_settings_tell_the_truth_and_take_the_player_s_name(
    browser: Browser,
    artifacts: Path,
    tmp_path: Path,
    screen: str,
) -> None:
    """Issue 36: the player's settings first; letters in a number field refused where they are typed; two
    wrong values each told beside its field and both at the button, no "Saved", nothing written; mended,
    saved with the comments kept; the name then beside the board in the next game."""
    path = tmp_path / "chessatron.toml"
    path.write_text(default_config_text(), encoding="utf-8")
    touch = screen == "phone"
    with GameRunner(
        Config.load(path), games_dir=tmp_path / "g", speed=None, state_path=tmp_path / "s.json"
    ) as runner:
        app = create_app(runner, runner.live, token=None, games_dir=runner.games_dir, config_path=path)
        with start_in_thread(app) as server:
            watched = open_page(browser, server.url, *(PHONE if touch else DESKTOP), touch=touch)
            page = watched.page
            press = page.tap if touch else page.click
            posts: list[str] = []
            page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
            save = "#settings-form button[type=submit]"
            note, summary = page.locator("#settings-note"), page.locator("#settings-error")
            press("#settings summary")
            expect(page.locator("#settings-list .setting")).to_have_count(len(CONFIG_KEYS))
            # yours first, above the machine's
            legends = page.locator("#settings-list legend")
            expect(legends).to_have_text(["You", "The machine"])
            first = page.locator("#settings-list .setting").first
            expect(first.locator("input")).to_have_attribute("name", "player.name")

            # the name and the board's colours: saved, and the board turns blue at once
            page.fill("[name='player.name']", "Ann Example")
            page.fill("[name='player.level']", "20:depth=1")
            page.select_option("[name='player.board']", "blue")
            press(save)
            expect(note).to_contain_text(f"Saved to {path}.")
            expect(page.locator("body")).to_have_attribute("data-board", "blue")
            background = page.evaluate(
                "getComputedStyle(document.querySelector('#board cg-board')).backgroundImage"
            )
            assert "conic-gradient" in background, background
            named = path.read_text(encoding="utf-8")
            assert 'name = "Ann Example"' in named and 'board = "blue"' in named

            # letters typed into a number field: kept as typed, refused beside it, nothing sent
            baudrate = page.locator("[name='grbl.baudrate']")
            baudrate.fill("")
            baudrate.press_sequentially("12abc")
            expect(baudrate).to_have_value("12abc")  # never quietly 12
            beside = page.locator(".field-error[data-field='grbl.baudrate']")
            expect(beside).to_have_text(
                '[grbl] baudrate = "12abc" is not a whole number: digits only, e.g. 115200'
            )
            expect(baudrate).to_have_attribute("aria-invalid", "true")
            expect(baudrate).to_have_attribute("inputmode", "numeric")
            sent = len(posts)
            press(save)
            expect(summary).to_have_text("1 setting needs fixing: [grbl] baudrate; nothing was sent.")
            expect(note).to_be_empty()  # the save before is not this one's
            assert len(posts) == sent

            # two values the config's checker refuses: both beside their fields, both at the button
            baudrate.fill("0")
            page.fill("[name='training.watcher_loss']", "5")
            press(save)
            expect(summary).to_have_text(
                "2 settings need fixing: [grbl] baudrate and [training] watcher_loss; nothing was saved."
            )
            expect(beside).to_have_text(
                "[grbl] baudrate = 0 must be a whole number from 1 to 4000000 (GRBL 1.1 talks at 115200)"
            )
            expect(page.locator(".field-error[data-field='training.watcher_loss']")).to_contain_text(
                "[training] watcher_loss = 5 must be a number above 0 and at most 2"
            )
            expect(note).not_to_contain_text("Saved")
            expect(baudrate).to_be_focused()  # the first, brought into view
            assert in_view(page, "[name='grbl.baudrate']")
            assert str(path) not in (summary.text_content() or "") + (beside.text_content() or "")
            assert path.read_text(encoding="utf-8") == named  # nothing written
            assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]  # type: ignore[index]
            screenshot(page, artifacts, f"{screen}-settings-refused", full_page=False)

            # mended: saved, the file changed with its comments kept
            baudrate.fill("57600")
            expect(beside).to_be_empty()  # a field being mended loses its error
            page.fill("[name='training.watcher_loss']", "0.2")
            press(save)
            expect(note).to_contain_text(f"Saved to {path}.")
            expect(note).to_contain_text(f"kept as {path}.bak")
            expect(summary).to_be_empty()
            saved = Config.load(path)
            assert (saved.baudrate, saved.watcher_loss, saved.player.name) == (57600, 0.2, "Ann Example")
            assert "# online games (chessatron online)" in path.read_text(encoding="utf-8")
            assert (tmp_path / "chessatron.toml.bak").read_text(encoding="utf-8") == named

            # the next game names the player beside the board, as its record does; its engine, named
            # without a level, plays at the player's
            runner.start_game(GameRequest(white="web", black="engine"))
            expect(page.locator("#name-bottom")).to_have_text("White: Ann Example (you)")
            expect(page.locator("#name-top")).to_have_text(f"Black: Stockfish ({ENGINE})")
            runner.stop()
            assert runner.wait(30)
            assert runner.last_error is None
            assert set(watched.errors) <= {REFUSED}, watched.errors
