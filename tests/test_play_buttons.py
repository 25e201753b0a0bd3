"""Playing with buttons: a whole game played with scripted presses of a d-pad, select and back, the square
LEDs and a 16x2 display checked after every press; the buttons answering a sensor board's prompts (which
move was made, which piece a pawn became); ``chessatron play --white buttons`` with a new game chosen from
the menu."""

from __future__ import annotations

import contextlib
import io
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import pytest
from click.testing import CliRunner
from rich.console import Console

from chessatron.buttons import SimButtons
from chessatron.cli import main
from chessatron.config import Config
from chessatron.feedback.colours import NAMED_COLOURS, hex_colour
from chessatron.feedback.display import SimDisplay, fit_lines
from chessatron.feedback.leds import SimLedStrip
from chessatron.game.commands import QuitRequested
from chessatron.game.players.base import Settings
from chessatron.game.players.buttons import ButtonPanel
from chessatron.game.players.cursor import Cursor, CursorView
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.records.journal import Journal
from chessatron.game.session import Session
from chessatron.game.telling.live import LiveState
from chessatron.game.telling.screen import render_view
from chessatron.planning.layout import Cell, Layout
from chessatron.planning.table import Table
from chessatron.ports import RGB, Button
from chessatron.sim.hand import HandAction, perform
from chessatron.sim.hand_style import HandStyle

ENGINE = "engine:20:depth=1"
#: A Chess960 position (the white king on f1 castles with its rook on h1) with a capture, a castling and
#: a promotion to come in three moves.
START = "3k4/1P6/8/8/3p4/8/2N5/5K1R w H - 0 1"
BLACK_MOVES = "1. Nxd4 Ke7 2. O-O Kd6 3. b8=N Kc5 *"
#: A simulated table of these tests' own (others find the ``default`` one as they expect it).
CONFIG = {
    "grbl": {"url": "sim://buttons"},
    "sensors": {"url": "sim://buttons"},
    "buttons": {"url": "sim://"},
    "display": {"url": "sim://?cols=16&rows=2"},
}


@dataclass(frozen=True)
class Step:
    """What the player saw after a press (None: a turn, or the game's end, began)."""

    button: Button | None
    view: CursorView
    lit: dict[str, str]
    """The LEDs as the strip shows them: square name to #rrggbb."""
    dark: dict[str, str]
    """The same with the cursor blinked off."""
    display: tuple[str, ...]
    live: dict[str, Any] | None


def named(colours: dict[str, str]) -> dict[str, str]:
    """Square to colour name, the way the tests write what the LEDs should show."""
    names = {hex_colour(rgb): name for name, rgb in NAMED_COLOURS.items() if name not in ("off", "black")}
    return {square: names.get(colour, colour) for square, colour in colours.items()}


def by_square(layout: Layout, colours: dict[Cell, RGB]) -> dict[str, str]:
    found = {}
    for cell, rgb in colours.items():
        square = layout.node_square(layout.cell_node(cell))
        assert square is not None, f"the buttons lit a cell off the board: {cell}"
        found[chess.square_name(square)] = hex_colour(rgb)
    return found


def recorder(
    session: Session, panel: ButtonPanel, steps: list[Step]
) -> Callable[[Button | None, CursorView], None]:
    leds = session.led_strip()
    strip = getattr(leds, "strip", None)
    assert isinstance(strip, SimLedStrip) and isinstance(panel.display, SimDisplay)
    display = panel.display

    def record(button: Button | None, view: CursorView) -> None:
        steps.append(
            Step(
                button,
                view,
                by_square(session.layout, strip.colours),
                by_square(session.layout, panel.colours(view, lit=False)),
                tuple(line.rstrip() for line in display.lines),
                session.live.snapshot()["cursor"],
            )
        )

    return record


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Session]:
    with Session(Config.from_dict(CONFIG), games_dir=tmp_path / "games", speed=None) as session:
        session.connect()
        yield session


#: The game, press by press (``left*3``: three presses, checked after the last), with what the player
#: sees then: the mode, the display's two lines, LEDs lit (``only``: nothing else is), the LEDs while the
#: cursor blinks off. ``None``: a turn (or the game's end) begins.
PLAN: list[tuple[str | None, dict[str, Any]]] = [
    (
        None,
        {
            "mode": "new-turn",
            "lines": ("White to move", "f1 white king"),
            "lit": {"f1": "magenta"},
            "only": 1,
        },
    ),
    ("up", {"mode": "contemplating", "lines": ("White to move", "f2 empty"), "lit": {"f2": "magenta"}}),
    # nothing of White's on f2: red under the blinking cursor
    ("select", {"lines": ("White to move", "f2: nothing here"), "dark": {"f2": "red"}}),
    ("left*3", {"lines": ("White to move", "c2 white knight")}),
    (
        "select",
        {
            "mode": "in-hand",
            "lines": ("knight c2 to", "select: put down"),
            "lit": {
                "c2": "magenta",
                "d4": "yellow",
                "b4": "green",
                "a3": "green",
                "a1": "green",
                "e1": "green",
            },
            "dark": {"c2": "warm-white"},
        },
    ),
    ("right", {"lines": ("knight c2 to", "d2: not legal"), "lit": {"d2": "magenta", "c2": "warm-white"}}),
    ("up*2", {"lines": ("knight c2 to", "d4: Nxd4"), "lit": {"d4": "magenta"}, "dark": {"d4": "yellow"}}),
    ("select", {}),  # the capture; the robot carries it out, Black answers
    # the opponent's move shows blue until the cursor moves
    (
        None,
        {
            "mode": "new-turn",
            "lines": ("White to move", "last: 1...Ke7"),
            "lit": {"d8": "blue", "e7": "blue"},
        },
    ),
    ("right*2", {"mode": "contemplating", "lit": {"f4": "magenta"}, "only": 1}),
    ("down*3", {"lines": ("White to move", "f1 white king")}),
    # the king in hand: its plain moves, and its rook for castling
    (
        "select",
        {"lit": {"g1": "green", "h1": "green", "e2": "green", "g2": "green"}, "dark": {"f1": "warm-white"}},
    ),
    ("right", {"lines": ("king f1 to", "g1: Kg1")}),
    ("right", {"lines": ("king f1 to", "h1: O-O"), "lit": {"h1": "magenta", "g1": "green"}}),
    ("select", {}),  # castled: the king stays... on g1, the rook to f1
    (
        None,
        {"lines": ("White to move", "last: 2...Kd6"), "lit": {"g1": "magenta", "e7": "blue", "d6": "blue"}},
    ),
    ("left*5", {"lines": ("White to move", "b1 empty")}),
    ("up*6", {"lines": ("White to move", "b7 white pawn")}),
    ("select", {"mode": "in-hand", "lit": {"b7": "magenta", "b8": "green"}, "only": 1}),
    ("up", {"lines": ("pawn b7 to", "b8: b8=Q+")}),
    # the promotion column: queen on b8, then knight, rook, bishop toward White
    (
        "select",
        {
            "mode": "promoting",
            "lines": ("promote to", "queen b8=Q+"),
            "lit": {"b8": "magenta", "b7": "green", "b6": "green", "b5": "green"},
            "only": 1,
        },
    ),
    ("down", {"lines": ("promote to", "knight b8=N"), "lit": {"b7": "magenta", "b8": "green"}}),
    ("select", {}),
    (None, {"mode": "new-turn", "lines": ("White to move", "last: 3...Kc5"), "lit": {"b8": "magenta"}}),
    ("back", {"mode": "menu", "lines": ("menu", "> hint"), "only": 1}),
    ("select", {}),
    (None, {"mode": "new-turn", "hint": True}),
    ("back", {"mode": "menu"}),
    ("down", {"lines": ("menu", "> take back")}),
    ("select", {}),  # Black's answer and the knight go back: White's move again, before the promotion
    (None, {"lines": ("White to move", "last: 2...Kd6"), "lit": {"g1": "magenta"}}),
    ("left*5", {}),
    ("up*6", {"lines": ("White to move", "b7 white pawn")}),
    ("select", {}),
    ("up", {}),
    ("select", {"mode": "promoting"}),
    ("select", {"lines": ("promote to", "queen b8=Q+")}),
    (None, {"lines": ("White to move", "last: 3...Kc5")}),
    ("back", {}),
    ("down*2", {"lines": ("menu", "> review moves")}),
    # reviewing: the move that led to the position shown, blue; the web page's board shows the position
    (
        "select",
        {
            "mode": "history",
            "lines": ("review 6/6", "3... Kc5"),
            "lit": {"d6": "blue", "c5": "blue"},
            "only": 1,
        },
    ),
    ("left", {"lines": ("review 5/6", "3. b8=Q+"), "lit": {"b7": "blue", "b8": "blue"}, "only": 1}),
    ("left", {"lines": ("review 4/6", "2... Kd6"), "fen": "8/1P6/3k4/8/3N4/8/8/5RK1 w - - 3 3"}),
    ("right", {"lines": ("review 5/6", "3. b8=Q+")}),
    (
        "back",
        {"mode": "contemplating", "lines": ("White to move", "b8 white queen"), "lit": {"b8": "magenta"}},
    ),
    ("right*4", {}),
    ("down*7", {"lines": ("White to move", "f1 white rook")}),
    ("select", {}),
    ("up*4", {"lines": ("rook f1 to", "f5: Rf5+")}),
    ("select", {}),  # Black's script has no more moves: it resigns
    (None, {"mode": "game-over", "lines": ("stopped", "select: menu"), "only": 1}),
    ("left", {"mode": "history", "lines": ("review 6/7", "3... Kc5")}),
    ("back", {"mode": "game-over"}),
    ("select", {"mode": "menu", "lines": ("menu", "> review moves")}),
    ("down*2", {"lines": ("menu", "> standard chess")}),
    ("right*2", {"lines": ("menu", "> chess960 #1")}),
    ("up", {"lines": ("menu", "> new game")}),
    ("select", {}),
]


def presses(plan: list[tuple[str | None, dict[str, Any]]]) -> list[Button]:
    found: list[Button] = []
    for spec, _ in plan:
        if spec is not None:
            name, _, count = spec.partition("*")
            found += [name] * int(count or 1)  # type: ignore[list-item]
    return found


def test_a_game_played_with_buttons_alone(table: Session, tmp_path: Path) -> None:
    session = table
    script = tmp_path / "black.pgn"
    script.write_text(
        f'[FEN "{START}"]\n[SetUp "1"]\n[Variant "Chess960"]\n\n{BLACK_MOVES}\n', encoding="utf-8"
    )
    white, black = PlayerSpec.parse("buttons"), PlayerSpec.parse(f"script:{script}")
    events: list[dict[str, Any]] = []
    session._emit_out = events.append
    panel = session.button_panel()
    assert panel is not None and isinstance(panel.pad, SimButtons)
    pad = panel.pad
    pad.press(*presses(PLAN))
    steps: list[Step] = []
    panel.on_step = recorder(session, panel, steps)
    journal = session.new_game(white, black, chess.Board(START, chess960=True))
    # Black's script runs out after its last move: the game stops there, saved to go on with
    with journal, pytest.raises(QuitRequested):
        session.play(journal, white, black)
    assert not journal.state.is_finished
    assert session.live.snapshot()["cursor"] is None  # not the player's turn: no cursor anywhere
    chosen = panel.after_game(journal.board(), "stopped")
    assert chosen == Settings(level=None, chess960=1)
    assert pad.pending == 0

    # the moves made: a capture, Chess960 castling (king onto rook), promotions, a takeback
    ucis = [move.uci() for move in journal.board().move_stack]
    assert ucis == ["c2d4", "d8e7", "f1h1", "e7d6", "b7b8q", "d6c5", "f1f5"]
    assert [e["plies"] for e in events if e["event"] == "takeback"] == [2]
    assert [e["uci"] for e in events if e["event"] == "move"][:6] == [*ucis[:4], "b7b8n", "d6c5"]
    hint = next(e for e in events if e["event"] == "hint")
    assert session.world is not None and not session.world.twin.violations

    # every press, as the player saw it
    index = 0
    for spec, expected in PLAN:
        name, _, count = (spec or "").partition("*")
        for _ in range(int(count or 1)):
            step = steps[index]
            index += 1
            assert step.button == (name or None), f"step {index}: {step.button} for {spec}"
            # the LEDs, the display and the web page's state all show the cursor's view
            assert named(step.lit) == named(by_square(session.layout, panel.colours(step.view))), index
            assert step.display == tuple(line.rstrip() for line in fit_lines(step.view.lines, 16, 2)), index
            assert step.live == step.view.to_dict(), index
            if step.view.square is not None:
                assert named(step.lit)[chess.square_name(step.view.square)] == "magenta", index
        where = f"after {spec} (step {index}): {step.view.lines}, LEDs {named(step.lit)}"
        if "mode" in expected:
            assert step.view.mode == expected["mode"], where
        if "lines" in expected:
            assert step.display == expected["lines"], where
        for square, colour in expected.get("lit", {}).items():
            assert named(step.lit).get(square) == colour, f"{square} {where}"
        if expected.get("only"):
            assert set(step.lit) == set(expected.get("lit", {})), where
        for square, colour in expected.get("dark", {}).items():
            assert named(step.dark).get(square) == colour, f"{square} {where}"
        if "fen" in expected:
            assert step.live is not None and step.live["fen"] == expected["fen"], where
        if expected.get("hint"):
            move = chess.Move.from_uci(hint["uci"])
            assert step.display == ("White to move", f"hint: {hint['san']}"), where
            assert step.view.square == move.from_square  # the cursor on the piece to move
            assert named(step.lit)[chess.square_name(move.to_square)] == "blue", where
    assert index == len(steps)


def test_the_buttons_player_needs_buttons_in_the_config(tmp_path: Path) -> None:
    env = {"CHESSATRON_STATE": str(tmp_path / "sim.json"), "CHESSATRON_GAMES": str(tmp_path / "games")}
    config = tmp_path / "chessatron.toml"
    config.write_text("", encoding="utf-8")
    result = CliRunner().invoke(main, ["play", "--white", "buttons", "--config", str(config)], env=env)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "the buttons player needs buttons" in lines[0] and "[buttons] url" in lines[0]


def test_play_with_buttons_and_a_new_game_from_the_menu(tmp_path: Path) -> None:
    env = {"CHESSATRON_STATE": str(tmp_path / "sim.json"), "CHESSATRON_GAMES": str(tmp_path / "games")}
    script = tmp_path / "black.pgn"
    script.write_text("1. e4 e5 *\n", encoding="utf-8")
    presses = [
        "up,select,up*2,select",  # e4
        "back,down*4,right,up,select",  # the menu: Chess960 start 0, a new game
        "up,select,up,select",  # BBQNNRKR: the king on g1, g2-g3
        "down,left,select,up,select",  # f3; Black's script has no more moves: it resigns
    ]
    config = tmp_path / "chessatron.toml"
    config.write_text(
        '[grbl]\nurl = "sim://buttons-cli"\n[sensors]\nurl = "sim://buttons-cli"\n'
        f'[buttons]\nurl = "sim://?script={",".join(presses)}"\n[display]\nurl = "none://"\n',
        encoding="utf-8",
    )
    args = ["play", "--white", "buttons", "--black", f"script:{script}", "--config", str(config), "--json"]
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]  # stdout holds events only
    games = [e for e in events if e["event"] == "game"]
    assert [g["chess960"] for g in games] == [False, True]
    assert games[1]["fen"] == chess.Board.from_chess960_pos(0).fen()
    assert [e["uci"] for e in events if e["event"] == "move"] == ["e2e4", "e7e5", "g2g3", "e7e5", "f2f3"]
    assert [e["result"] for e in events if e["event"] == "result"] == []  # both games stay to go on with
    # both games stay saved, unfinished
    listed = CliRunner().invoke(main, ["games"], env=env)
    rows = [line for line in listed.output.splitlines() if line.rstrip().endswith("in progress")]
    assert len(rows) == 2, listed.output


def test_the_terminal_view_says_what_the_display_says() -> None:
    live = LiveState(Layout.default())
    board = chess.Board()
    live.show_board(board, players=("buttons", "engine:5"))
    live.show_table(Table.from_board(live.layout, board))
    cursor = Cursor(chess.WHITE)
    cursor.begin_turn(board)
    cursor.press("up")
    cursor.press("select")
    live.update(cursor=cursor.view.to_dict())
    console = Console(width=120, file=io.StringIO(), record=True)
    console.print(render_view(live.snapshot(), *live.table(), width=120))
    assert "buttons: pawn e2 to · select: put down" in console.export_text()


# --- a board with sensors: the buttons answer its prompts ----------------------------------------


def wait_for(session: Session, mode: str, timeout_s: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        cursor: dict[str, Any] | None = session.live.snapshot()["cursor"]
        if cursor is not None and cursor["mode"] == mode:
            return cursor
        assert time.monotonic() < deadline, (
            f"no {mode} prompt; the state is {session.live.snapshot()['status']!r}"
        )
        time.sleep(0.02)


def play_beside(
    session: Session, journal: Journal, players: tuple[PlayerSpec, PlayerSpec], person: Callable[[], None]
) -> None:
    """Two plies of the game, with ``person`` at the table in a thread of their own; what went wrong
    there fails the test (and stops the game, saved, rather than leave it waiting for ever)."""
    failures: list[BaseException] = []

    def at_the_table() -> None:
        try:
            person()
        except BaseException as exc:
            failures.append(exc)
            session.stop_requested.set()

    helper = threading.Thread(target=at_the_table)
    helper.start()
    with journal, contextlib.suppress(KeyboardInterrupt):
        session.play(journal, *players, max_plies=2)
    helper.join()
    assert not failures, failures


def test_buttons_answer_which_capture_was_made_at_the_board(table: Session) -> None:
    # White's knight on d4 set on the queen on e6, pushing it off: the board fits Nxe6 and Nxb5
    session = table
    session.hand_style = HandStyle.only("displacement")
    session.hand_answers = False  # the simulated person leaves the answer to the buttons
    white, black = PlayerSpec.parse("hand"), PlayerSpec.parse(ENGINE)
    journal = session.new_game(white, black, chess.Board("6k1/8/4q3/1p6/3N4/8/8/6K1 w - - 0 1"))
    panel = session.button_panel()
    assert panel is not None and isinstance(panel.pad, SimButtons) and isinstance(panel.display, SimDisplay)
    pad, display = panel.pad, panel.display
    seen: list[dict[str, Any]] = []

    def person() -> None:
        pad.press("select")  # a press before anything is asked answers nothing
        asked = wait_for(session, "question")
        seen.append(asked)
        pad.press("right")
        while session.live.snapshot()["cursor"]["square"] == asked["square"]:
            time.sleep(0.02)
        seen.append(session.live.snapshot()["cursor"])
        seen.append({"display": display.text, "leds": session.live.snapshot()["leds"]})
        if seen[-2]["square"] != "e6":
            pad.press("right")
        pad.press("select")

    play_beside(session, journal, (white, black), person)
    first, moved, shown = seen
    assert first["lines"][0] == "which move?" and first["lines"][1] in ("> Nxe6", "> Nxb5")
    assert set(first["choices"]) == {"d4", "e6", "b5"}
    assert moved["square"] != first["square"] and moved["lines"][1] != first["lines"][1]
    assert shown["display"].splitlines()[0] == "which move?"
    # the candidates blink cyan (or dark), the cursor magenta over them
    assert set(shown["leds"]) <= {"d4", "e6", "b5"}
    assert shown["leds"].get(moved["square"]) in (hex_colour(NAMED_COLOURS["magenta"]), "#000000")
    assert journal.board().move_stack[0].uci() == "d4e6"
    assert session.live.snapshot()["question"] is None


def test_buttons_choose_the_piece_a_pawn_became_at_the_board(table: Session, tmp_path: Path) -> None:
    session = table
    start = "8/p3P3/7k/8/8/8/8/4K3 w - - 0 1"
    script = tmp_path / "black.pgn"
    script.write_text(f'[FEN "{start}"]\n[SetUp "1"]\n\n1. e8=N Kh5 *\n', encoding="utf-8")
    white, black = PlayerSpec.parse("board"), PlayerSpec.parse(f"script:{script}")
    journal = session.new_game(white, black, chess.Board(start))
    panel = session.button_panel()
    assert panel is not None and isinstance(panel.pad, SimButtons)
    pad = panel.pad
    world, layout = session.world, session.layout
    assert world is not None
    knight = next(slot.cell for slot in layout.reserve if slot.symbol == "N")
    aside = next(
        cell
        for cell in layout.cells()
        if layout.cell_kind(cell) == "capture-white" and cell not in world.occupied_cells()
    )
    seen: list[dict[str, Any]] = []

    def cell(square: str) -> Cell:
        return layout.square_cell(chess.parse_square(square))

    def person() -> None:
        # the person takes the pawn off and sets a spare knight on e8; the sensors see a piece arrive
        while session.live.snapshot()["status"] != "white to move":
            time.sleep(0.02)
        time.sleep(0.5)  # a person sits down before moving (the sensors' first scan sees the board)
        steps = [
            (0.0, "lift", cell("e7"), "P"),
            (0.3, "place", aside, "P"),
            (0.6, "lift", knight, "N"),
            (1.0, "place", cell("e8"), "N"),
        ]
        perform(world, [HandAction(t, k, c, p, "person") for t, k, c, p in steps], realtime=True)  # type: ignore[arg-type]
        asked = wait_for(session, "promoting")
        seen.append({**asked, "leds": session.live.snapshot()["leds"]})
        pad.press("up")  # the queen...
        while session.live.snapshot()["cursor"]["square"] == asked["square"]:
            time.sleep(0.02)
        seen.append(session.live.snapshot()["cursor"])
        pad.press("down", "select")  # ...no: the knight it is

    play_beside(session, journal, (white, black), person)
    asked, moved = seen
    # the cursor starts on the piece taken from the reserve, in the column from e8 toward White
    assert asked["choices"] == ["e8", "e7", "e6", "e5"] and asked["square"] == "e7"
    assert asked["lines"] == ["promote to", "knight e8=N"]
    assert named(asked["leds"]) == {"e8": "green", "e7": "magenta", "e6": "green", "e5": "green"}
    assert moved["square"] == "e8" and moved["lines"] == ["promote to", "queen e8=Q"]
    assert [move.uci() for move in journal.board().move_stack] == ["e7e8n", "h6h5"]
    session.table.check_matches(journal.board())
