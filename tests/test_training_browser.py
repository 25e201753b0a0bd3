"""The Training page as a player meets it (issue 37), in Debian's Chromium at a phone's size (390 x 844,
touch) and a desktop's (1440 x 900): a set of two puzzles solved on the page, the first right at once
(the success moment and the rating's change), a reload mid-set (the set goes on, its count kept), a
wrong move that goes back on the board at once with the right one taken straight after, hints drawn on
the board (a circle, then an arrow), the solution asked for and stepped through after the failure
moment; the robot's progress while it sets a puzzle up; a finished game reviewed from the game-over
banner (the board beside the graph, a click on the graph showing that position, the marked moves as
people write them) and its review shown in the saved-game viewer, which offers Review for a game not
reviewed yet. Screenshots are kept as artifacts (``test-artifacts/web/training-*.png``)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import chess
import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from chessatron.game.records.pgn import from_pgn
from chessatron.game.records.store import save_record
from chessatron.game.runner import GameRunner
from chessatron.game.telling.live import LiveState
from chessatron.planning.layout import Layout
from chessatron.training.puzzle import Puzzle
from chessatron.training.store import PuzzleStore
from chessatron.web.app import create_app
from chessatron.web.server import ServerHandle, start_in_thread

# the browser tests' fixtures: one Chromium for the module, the screenshots in the artifacts folder
from .browser import Watched, artifacts_fixture, browser_fixture, drag, screenshot  # noqa: F401 (fixtures)

#: Black's king steps into the corner; White mates on the back rank (the set's first puzzle: 700).
BACK_RANK = Puzzle(
    "backrank",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1",
    ("g8h8", "d1d8"),
    rating=700,
    themes=("mate", "mateIn1", "backRankMate", "oneMove"),
)
#: The queen given on d8, the rook mates after Rxd8 (the second: 1000, chosen once the first is done;
#: the store's starter set has no back rank mates).
QUEEN_GIVEN = Puzzle(
    "queengiven",
    "4r1k1/p4ppp/8/8/8/8/3Q1PPP/3R2K1 b - - 0 1",
    ("a7a6", "d2d8", "e8d8", "d1d8"),
    rating=1000,
    themes=("mate", "mateIn2", "backRankMate", "sacrifice", "short"),
)
FOOLS_MATE = ("f2f3", "e7e5", "g2g4", "d8h4")
#: The two screens the page is made for (issue 37): a phone's (touch) and a desktop's.
SIZES = {"phone": (390, 844, True), "desktop": (1440, 900, False)}
DESKTOP = SIZES["desktop"][:2]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PuzzleStore:
    path = tmp_path / "training.sqlite3"
    monkeypatch.setenv("CHESSATRON_TRAINING", str(path))
    kept = PuzzleStore(path, starter=False)
    kept.add([BACK_RANK, QUEEN_GIVEN])
    return kept


def open_training(browser: Browser, url: str, width: int, height: int, touch: bool) -> Watched:
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    watched = Watched(page)
    page.goto(url)
    return watched


def fen_after(puzzle: Puzzle, plies: int) -> str:
    board = puzzle.start_board()
    for move in puzzle.line()[:plies]:
        board.push(move)
    return board.board_fen()


def board(page: Page) -> Locator:
    return page.locator("#puzzle-board")


def shapes(page: Page, kind: str, where: str = "#puzzle-board") -> Locator:
    """The shapes chessground draws on a board: ``circle`` (a square ringed) or ``line`` (an arrow)."""
    return page.locator(f"{where} .cg-shapes {kind}")


def settled_shot(page: Page, folder: Path, name: str) -> Path:
    """The screen as it stands once the board's animation (180 ms) is over."""
    page.wait_for_timeout(200)
    return screenshot(page, folder, name, full_page=False)


def fills_the_screen(page: Page, width: int, height: int) -> None:
    """Nothing wider than the screen; the board as wide as a phone, as high as a desktop's window."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = board(page).bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    if width < 600:
        assert box["width"] >= width - 32
    else:
        assert box["y"] + box["height"] <= height and box["height"] >= 0.85 * height


@pytest.mark.parametrize("screen", ["phone", "desktop"])
def test_a_set_of_puzzles_on_the_page_from_a_right_move_to_a_solution_stepped_through(
    browser: Browser, served: ServerHandle, store: PuzzleStore, artifacts: Path, screen: str
) -> None:
    width, height, touch = SIZES[screen]
    watched = open_training(browser, served.url + "training", width, height, touch)
    page = watched.page
    tap = page.tap if touch else page.click
    page.fill("#puzzle-form input[name=count]", "2")
    page.fill("#puzzle-form input[name=rating]", "700")
    page.fill("#puzzle-form input[name=theme]", "Back rank mate")  # the theme as the page names it
    tap("#puzzle-form button[type=submit]")

    # the first puzzle, its themes as lichess names them, solved at once: the success moment
    expect(page.locator("#puzzle-about")).to_have_text("Puzzle 1 of 2")
    expect(page.locator("#puzzle-themes")).to_contain_text("Mate in 1 · Back rank mate · One-move puzzle")
    expect(page.locator("#puzzle-state")).to_have_text("White to play: find the best move.")
    expect(board(page)).to_have_attribute("data-fen", fen_after(BACK_RANK, 1))
    fills_the_screen(page, width, height)
    shots = [settled_shot(page, artifacts, f"training-{screen}-1-puzzle")]
    drag(page, "d1", "d8", touch=touch, board="#puzzle-board")
    solved = page.locator("#result-text")
    expect(solved).to_have_text(re.compile(r"^Right! Solved in \d+\.\d s — rating 1500 → \d{4} \(\+\d+\)$"))
    expect(page.locator("#puzzle-about")).to_have_text("Puzzle 2 of 2")
    expect(page.locator("#puzzle-state")).to_have_text("White to play: find the best move.")

    # a reload mid-set: the set goes on where it was, its count kept in the form
    page.reload()
    expect(page.locator("#puzzle-about")).to_have_text("Puzzle 2 of 2")
    expect(page.locator("#puzzle-form input[name=count]")).to_have_value("2")
    expect(page.locator("#puzzle-done li")).to_have_count(1)
    expect(page.locator("#puzzle-done li")).to_contain_text("#backrank: solved")
    expect(solved).to_contain_text("rating 1500 → ")
    expect(page.locator("#puzzle-themes")).to_contain_text("Mate in 2")
    start = fen_after(QUEEN_GIVEN, 1)
    expect(board(page)).to_have_attribute("data-fen", start)

    # a wrong move goes back on the board at once (the robot's red second not over), and the right one
    # made straight after it is taken: the robot answers
    drag(page, "d2", "d7", touch=touch, board="#puzzle-board")
    expect(page.locator("#puzzle-state")).to_have_text(re.compile("^Not the move: it goes back"))
    expect(board(page)).to_have_attribute("data-fen", start, timeout=1000)
    expect(board(page)).to_have_attribute("data-pending", "")
    shots.append(settled_shot(page, artifacts, f"training-{screen}-2-wrong"))
    drag(page, "d2", "d8", touch=touch, board="#puzzle-board")
    expect(board(page)).to_have_attribute("data-fen", fen_after(QUEEN_GIVEN, 3))
    expect(page.locator("#puzzle-state")).to_have_text("Right! Keep going: find the next move.")

    # hints on the board: the piece ringed, then an arrow to its square
    tap("#hint")
    expect(page.locator("#puzzle-state")).to_have_text("Hint: move the rook on d1.")
    expect(shapes(page, "circle")).to_have_count(1)
    tap("#hint")
    expect(page.locator("#puzzle-state")).to_have_text("Hint: the rook goes to d8.")
    expect(shapes(page, "line")).to_have_count(1)
    expect(shapes(page, "circle")).to_have_count(0)
    shots.append(settled_shot(page, artifacts, f"training-{screen}-3-hint"))

    # the solution asked for: the failure moment, then the solution stepped through on the board
    tap("#give-up")
    failed = re.compile(r"^Failed \(1 wrong move, 2 hints\) in \d+\.\d s — rating (\d+) → (\d+) \(−(\d+)\)$")
    expect(solved).to_have_text(failed)
    figures = failed.match(solved.inner_text())
    assert figures is not None
    before, after, change = (int(n) for n in figures.groups())
    assert before - after == change > 0
    expect(page.locator("#solution-line")).to_have_text("The solution: 2. Qd8 Rxd8 3. Rxd8#")
    expect(board(page)).to_have_attribute("data-fen", start)  # the puzzle as it was set...
    expect(shapes(page, "line")).to_have_count(1)  # ...and the move to find
    expect(page.locator("#solution-step")).to_contain_text("(0 of 3)")
    fills_the_screen(page, width, height)
    shots.append(settled_shot(page, artifacts, f"training-{screen}-4-solution"))
    tap("[data-solution=forward]")
    expect(board(page)).to_have_attribute("data-fen", fen_after(QUEEN_GIVEN, 2))
    expect(page.locator("#solution-step")).to_have_text(re.compile(r"^After Qd8, yours \(1 of 3\)"))
    if not touch:
        page.keyboard.press("ArrowRight")
        expect(board(page)).to_have_attribute("data-fen", fen_after(QUEEN_GIVEN, 3))
        page.keyboard.press("End")
    else:
        tap("[data-solution=last]")
    expect(board(page)).to_have_attribute("data-fen", fen_after(QUEEN_GIVEN, 4))
    expect(shapes(page, "line")).to_have_count(0)
    tap("[data-solution=back]")
    expect(board(page)).to_have_attribute("data-fen", fen_after(QUEEN_GIVEN, 3))
    tap("#solution-close")
    expect(board(page)).to_have_attribute("data-fen", fen_after(QUEEN_GIVEN, 4))  # the table, as it stands
    assert [(a.puzzle_id, a.solved, a.wrong, a.hints) for a in store.attempts()] == [
        ("backrank", True, 0, 0),
        ("queengiven", False, 1, 2),
    ]
    for shot in shots:
        assert shot.stat().st_size > 0
    assert watched.errors == []


def test_the_robot_s_progress_shows_while_it_sets_a_puzzle_up(
    browser: Browser, tmp_path: Path, store: PuzzleStore
) -> None:
    live = LiveState(Layout.default())
    board_ = QUEEN_GIVEN.start_board()
    live.show_board(board_, game_id="puzzle-queengiven", players=("you", "puzzle"))
    live.update(
        training={
            "id": "queengiven",
            "rating": 1000,
            "themes": ["mateIn2"],
            "url": "",
            "source": "starter",
            "colour": "white",
            "moves": 2,
            "number": 9,
            "of": 20,
            "your_rating": 1500,
            "provisional": True,
            "state": "setting up",
            "wrong": 0,
            "hints": 0,
            "hint": None,
            "wrong_move": None,
            "done": [],
        }
    )
    work = {
        "title": "PUZZLE SETUP",
        "index": 8,
        "of": 20,
        "estimate_s": 80.0,
        "left_s": 36.4,
        "at": time.time(),
    }
    live.show_gantry((100.0, 100.0), state="Run", work=work)
    app = create_app(None, live, token=None, games_dir=tmp_path / "games")
    with start_in_thread(app) as server:
        watched = open_training(browser, server.url + "training", *DESKTOP, False)
        page = watched.page
        expect(page.locator("#puzzle-state")).to_have_text("The robot sets the puzzle up…")
        expect(page.locator("#puzzle-progress")).to_have_text(
            re.compile(r"^The robot sets the puzzle up \(9 of 20\): about 0:3[0-6]$")
        )
        expect(page.locator("#puzzle-about")).to_have_text("Puzzle 9 of 20")
        live.show_gantry((100.0, 100.0), state="Idle", work=None)
        expect(page.locator("#puzzle-progress")).to_be_hidden()
        assert watched.errors == []


def play_through(client: httpx.Client, moves: tuple[str, ...]) -> dict[str, object]:
    """A game between two web players, its moves posted as the page posts them, to its end."""
    assert client.post("/api/v1/game", json={"white": "web", "black": "web"}).status_code == 202
    for index, move in enumerate(moves):
        deadline = time.monotonic() + 30
        while True:
            state = client.get("/api/v1/state").json()
            if state.get("prompt") and state["game"] and len(state["game"]["uci"]) == index:
                break
            assert time.monotonic() < deadline, state["status"]
            time.sleep(0.05)
        assert client.post("/api/v1/move", json={"move": move}).status_code == 202
    deadline = time.monotonic() + 30
    while (state := client.get("/api/v1/state").json())["runner"]["job"] is not None:
        assert time.monotonic() < deadline, state["status"]
        time.sleep(0.05)
    return dict(state)


def graph_point(page: Page, ply: int, plies: int) -> tuple[float, float]:
    """Where the evaluation graph shows half-move ``ply`` of a game of ``plies`` (its move axis)."""
    box = page.locator("#eval-plot").bounding_box()
    assert box is not None
    x = 16 + (588 - 16) * ply / plies  # (the plot area in the graph's viewBox, 600 wide)
    return box["x"] + x * box["width"] / 600, box["y"] + box["height"] / 2


def test_a_game_is_reviewed_from_its_end_and_its_review_shown_in_the_viewer(
    browser: Browser, runner: GameRunner, served: ServerHandle, store: PuzzleStore, artifacts: Path
) -> None:
    with httpx.Client(base_url=served.url, timeout=30) as client:
        game = play_through(client, FOOLS_MATE)["game"]
    assert isinstance(game, dict) and game["result"] == "0-1"
    watched = open_training(browser, served.url, *DESKTOP, False)
    page = watched.page
    expect(page.locator("#banner-result")).to_have_text("0-1 · Black won by checkmate")
    page.click("#banner-review")

    # the training page reviews it: the board beside the graph, the marked moves as people write them
    expect(page).to_have_url(re.compile(rf"/training#review={game['id']}$"))
    expect(page.locator("#review-body")).to_be_visible()
    blunder = page.locator("#mistakes li.blunder button.mistake")
    expect(blunder).to_have_text(re.compile(r"^2\. g4\?\? — \S+ was best \(#−1\)$"))
    white = page.locator("#review-sides tr[data-side=white] td")
    expect(white.nth(2)).to_have_text("1")  # one blunder
    expect(white.nth(3)).to_have_text(re.compile(r"^\d+%$"))  # lichess's accuracy, as English writes a share
    review_board = page.locator("#review-board")
    expect(review_board).to_have_attribute("data-ply", "3")  # the blunder shown first, and its better move
    expect(shapes(page, "line", "#review-board")).to_have_count(1)
    expect(page.locator("#eval-plot .move-axis text").first).to_have_text("1")
    board_box, plot_box = review_board.bounding_box(), page.locator("#eval-plot").bounding_box()
    assert board_box is not None and plot_box is not None
    assert plot_box["x"] >= board_box["x"] + board_box["width"]  # beside it on a desktop
    x, y = graph_point(page, 2, 4)
    page.mouse.click(x, y)
    after_e5 = chess.Board()
    for uci in FOOLS_MATE[:2]:
        after_e5.push_uci(uci)
    expect(review_board).to_have_attribute("data-ply", "2")
    expect(review_board).to_have_attribute("data-fen", after_e5.board_fen())
    expect(page.locator("#review-ply")).to_have_text(re.compile(r"^After 1… e5 \(2 of 4\)"))
    page.keyboard.press("ArrowRight")
    expect(review_board).to_have_attribute("data-ply", "3")
    shot = settled_shot(page, artifacts, "training-desktop-5-review")

    # the saved-game viewer shows the review; a game not reviewed yet offers Review
    other = save_record(from_pgn('[WhiteKind "web"]\n[BlackKind "web"]\n\n1. e4 e5 *\n'), runner.games_dir)
    page.goto(served.url + f"#game={game['id']}")
    expect(page.locator("#viewer-moves button.ply.blunder")).to_have_text("g4??")
    expect(page.locator("#viewer-reviewed")).to_contain_text(
        re.compile(r"White: \d+ inaccurac\w+, \d+ mistakes?, 1 blunder, accuracy \d+%")
    )
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#viewer-comment")).to_have_text(re.compile(r"^2\. g4\?\? — \S+ was best \(#−1\)$"))
    expect(shapes(page, "line", "#viewer-board")).to_have_count(1)
    page.goto(served.url + f"#game={other}")
    expect(page.locator("#viewer-reviewed")).to_have_text(
        "Not reviewed yet: Review has Stockfish go through it."
    )
    expect(page.locator("#viewer-review")).to_have_text("Review")
    expect(page.locator("#viewer-review")).to_have_attribute("href", f"/training#review={other}")
    page.goto(served.url + f"#game={game['id']}")
    expect(page.locator("#viewer-review")).to_have_text("Open the review")
    page.click("#viewer-review")
    expect(page.locator("#review-state")).to_contain_text(re.compile(r"depth 14, \d moves? marked"))  # kept
    expect(review_board).to_have_attribute("data-ply", "3")
    assert watched.errors == []

    # on a phone: the board over the graph, nothing wider than the screen, a tap on the graph
    phone = open_training(browser, served.url + f"training#review={game['id']}", *SIZES["phone"])
    page = phone.page
    review_board = page.locator("#review-board")
    expect(review_board).to_have_attribute("data-ply", "3")
    page.locator("#eval-plot").scroll_into_view_if_needed()
    x, y = graph_point(page, 1, 4)
    page.touchscreen.tap(x, y)
    expect(review_board).to_have_attribute("data-ply", "1")
    expect(page.locator("#review-ply")).to_have_text(re.compile(r"^After 1\. f3 \(1 of 4\): 1\. f3\S* — "))
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    board_box, plot_box = review_board.bounding_box(), page.locator("#eval-plot").bounding_box()
    assert board_box is not None and plot_box is not None
    assert board_box["width"] >= 350 and plot_box["y"] >= board_box["y"] + board_box["height"]
    shots = [shot, settled_shot(page, artifacts, "training-phone-5-review")]
    for taken in shots:
        assert taken.stat().st_size > 0
    assert phone.errors == []
