"""The terminal view of a game shows a player the table, whose move it is, the clocks, the moves, the
robot's progress and the notices; live, it follows the game and steps aside for the keyboard prompt."""

from __future__ import annotations

import io
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable

import chess
import pytest
from rich.console import Console, RenderableType
from rich.file_proxy import FileProxy
from rich.style import Style

from chessatron.game.players.keyboard import KeyboardPlayer
from chessatron.game.telling.lineinput import Prompt
from chessatron.game.telling.live import LiveState
from chessatron.game.telling.screen import render_view
from chessatron.game.telling.view import PlayView
from chessatron.planning.layout import Layout
from chessatron.planning.planner import Planner
from chessatron.planning.table import Table
from chessatron.render import wants_letters

#: Black's queen checks after 1. e4 d5 2. exd5 Qxd5 3. Nc3 Qe5+: a pawn of each side is captured.
CHECK_LINE = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qe5+"]
FOOLS_MATE = ["f3", "e5", "g4", "Qh4#"]
CLOCK = {"white_ms": 299_400, "black_ms": 300_000, "running": "white", "paused": False, "control": "5+3"}


def board_after(sans: Iterable[str], start: chess.Board | None = None) -> chess.Board:
    board = start or chess.Board()
    for san in sans:
        board.push_san(san)
    return board


def fed(layout: Layout, board: chess.Board, **parts: object) -> LiveState:
    """A live state fed as the session feeds it: the game, the table standing as the board says."""
    live = LiveState(layout)
    live.show_board(board, players=("keyboard", "engine:5"))
    live.show_table(Table.from_board(layout, board), ())
    if parts:
        live.update(**parts)
    return live


def shown(live: LiveState, width: int = 80, *, engine: bool = False, letters: bool = False) -> str:
    console = Console(record=True, width=width, force_terminal=True, file=io.StringIO())
    console.print(render_view(live.snapshot(), *live.table(), width=width, engine=engine, letters=letters))
    return console.export_text()


def styles_of(live: LiveState, text: str, width: int = 80) -> list[Style]:
    """The styles the view prints ``text`` in."""
    console = Console(width=width, force_terminal=True, file=io.StringIO())
    renderable = render_view(live.snapshot(), *live.table(), width=width)
    return [s.style for s in console.render(renderable) if text in s.text and s.style is not None]


def line_with(text: str, picture: str) -> int:
    return next(n for n, line in enumerate(picture.splitlines()) if text in line)


# --- what the view shows ---------------------------------------------------------------------------


def test_the_side_to_move_its_check_and_the_players(layout: Layout) -> None:
    picture = shown(fed(layout, board_after(CHECK_LINE)))
    assert "White to move" in picture
    assert "CHECK" in picture
    assert "keyboard" in picture and "engine:5" in picture
    assert "Black to move" in shown(fed(layout, board_after(CHECK_LINE[:-1])))
    assert "CHECK" not in shown(fed(layout, board_after(CHECK_LINE[:-1])))


def test_the_last_moves_in_numbered_pairs(layout: Layout) -> None:
    picture = shown(fed(layout, board_after(CHECK_LINE)))
    assert "1. e4 d5" in picture
    assert "2. exd5 Qxd5" in picture
    assert "3. Nc3 Qe5+" in picture
    assert "no moves yet" in shown(fed(layout, chess.Board()))


def test_a_long_game_shows_its_last_moves_only(layout: Layout) -> None:
    shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"] * 6 + ["e4", "e5", "Bc4"]  # 27 plies: moves 1 to 14
    picture = shown(fed(layout, board_after(shuffle)), width=120)
    assert "14. Bc4" in picture
    assert "13. e4 e5" in picture
    assert "5. Nf3 Nf6" in picture  # the last ten moves
    assert not re.search(r"(?<!\d)4\. ", picture)


def test_moves_of_a_game_that_starts_with_black_to_move(layout: Layout) -> None:
    start = chess.Board("4k3/8/8/8/8/8/4P3/4K3 b - - 0 30")
    picture = shown(fed(layout, board_after(["Kd7", "e4"], start)))
    assert "30... Kd7" in picture
    assert "31. e4" in picture


def test_the_result_and_how_the_game_ended(layout: Layout) -> None:
    live = fed(layout, chess.Board())
    board = board_after(FOOLS_MATE)
    live.show_board(board, result="0-1", termination="checkmate")
    live.update(status="0-1 (checkmate)")
    picture = shown(live)
    assert "Black wins by checkmate (0-1)" in picture
    assert "to move" not in picture
    assert picture.count("checkmate") == 1  # the status line says the same, so it is not repeated


def test_both_clocks_and_the_running_one_highlighted(layout: Layout) -> None:
    live = fed(layout, board_after(CHECK_LINE), clock=CLOCK)
    picture = shown(live)
    assert "4:59" in picture and "5:00" in picture
    assert "clock 5+3" in picture
    assert any(style.reverse for style in styles_of(live, "4:59"))
    assert not any(style.reverse for style in styles_of(live, "5:00"))


def test_low_time_shows_in_red_with_tenths(layout: Layout) -> None:
    live = fed(layout, board_after(CHECK_LINE), clock={**CLOCK, "white_ms": 9_850})
    assert "0:09.8" in shown(live)
    assert any(style.color is not None and style.color.name == "red" for style in styles_of(live, "0:09.8"))
    assert not any(style.color is not None and style.color.name == "red" for style in styles_of(live, "5:00"))


def test_no_clock_no_times(layout: Layout) -> None:
    assert not re.search(r"\d:\d\d", shown(fed(layout, chess.Board())))


def test_the_evaluation_from_whites_side(layout: Layout) -> None:
    evaluation = {"cp": 35, "mate": None, "depth": 18, "pv": ["Nf3", "Nc6"]}
    picture = shown(fed(layout, board_after(["e4"]), evaluation=evaluation), width=120, engine=True)
    assert "+0.35" in picture and "depth 18" in picture and "Nf3 Nc6" in picture
    mate: dict[str, object] = {"cp": None, "mate": -3, "depth": 22, "pv": []}
    assert "-M3" in shown(fed(layout, board_after(["e4"]), evaluation=mate), engine=True)
    assert "eval" not in shown(fed(layout, board_after(["e4"])), engine=True)


def test_no_free_hints_while_a_person_plays_the_engine(layout: Layout) -> None:
    # after 1. e4 the engine (Black) answers c5 and expects 2. Nf3: White's best move, on the screen
    evaluation = {"cp": 35, "mate": None, "depth": 18, "pv": ["Nf3", "e6", "d4"]}
    board = board_after(["e4", "c5"])
    against_engine = fed(layout, board, evaluation=evaluation)
    assert "Nf3" not in shown(against_engine, width=120) and "+0.35" not in shown(against_engine, width=120)
    assert "Nf3 e6 d4" in shown(fed(layout, board, evaluation=evaluation), width=120, engine=True)  # asked
    engines = fed(layout, board, evaluation=evaluation)
    engines.show_board(board, players=("engine:3", "engine:8"))
    assert "+0.35" in shown(engines, width=120)  # nobody to give a hint to
    hinted = fed(layout, board, evaluation=evaluation, hint={"uci": "g1f3", "san": "Nf3", "fen": board.fen()})
    picture = shown(hinted, width=120)
    assert "hint: Nf3" in picture and "+0.35" not in picture  # a hint asked for is a hint, not the line


def test_the_robots_progress_in_a_players_words(layout: Layout) -> None:
    board = board_after([*CHECK_LINE, "Be2"])  # White's 4. Be2, the 7th ply, being carried out
    live = fed(layout, board)
    live.show_gantry(layout.home_mm, state="Run", work={"title": "MOVE 7 f1e2", "index": 0, "of": 1})
    picture = shown(live)
    assert "4. Be2" in picture and "0/1" in picture and "MOVE 7" not in picture
    assert "Robot making White's move" in picture
    assert "to move" not in picture  # nobody's turn while the robot carries the move out
    live.show_gantry(layout.home_mm, state="Idle", work=None)
    assert "0/1" not in shown(live) and "Black to move" in shown(live)
    live.show_gantry(layout.home_mm, work={"title": "MOVE 7 f1e2 (resumed)", "index": 0, "of": 1})
    live.update(status="idle")
    resumed = shown(live)
    assert "Robot finishing White's move" in resumed and "idle" not in resumed


def test_a_capture_says_where_the_captured_piece_goes(layout: Layout) -> None:
    board = board_after(CHECK_LINE[:2])  # 1. e4 d5: 2. exd5 takes the pawn on d5
    table = Table.from_board(layout, board)
    plan = Planner(layout).plan_move(table, board, board.parse_san("exd5"))
    live = fed(layout, board_after(CHECK_LINE[:3]))
    live.show_table(table, plan.relocations)
    live.show_gantry(layout.home_mm, work={"title": "MOVE 3 e4d5", "index": 0, "of": len(plan.relocations)})
    picture = shown(live, width=120)
    assert "2. exd5" in picture
    assert "the captured pawn on d5 goes to Black's capture zone" in picture
    assert "bP" not in picture and "cell(" not in picture


def test_a_machine_in_alarm_is_shown(layout: Layout) -> None:
    live = fed(layout, chess.Board())
    live.show_gantry(layout.home_mm, state="Alarm")
    assert "machine: Alarm" in shown(live)


def test_the_capture_zones_show_the_captured_pieces(layout: Layout) -> None:
    board = board_after(CHECK_LINE)
    table = Table.from_board(layout, board)
    picture = shown(fed(layout, board)).splitlines()
    files = line_with(" a  b  c  d  e  f  g  h ", "\n".join(picture))
    # table_text: three characters a cell after three for the rank labels; the files line names the board
    left = picture[files].index(" a ") - 3 * layout.board_cell[0] - 3
    captured = []
    for piece in table:
        cell = layout.node_cell(table.node_of(piece.id))
        assert cell is not None
        if layout.cell_kind(cell).startswith("capture"):
            glyph = picture[files - 1 - cell[1]][left + 3 + 3 * cell[0] + 1]
            captured.append((glyph, layout.cell_kind(cell)))
    assert sorted(captured) == [("♙", "capture-white"), ("♟", "capture-black")]


def test_the_status_and_the_last_notices(layout: Layout) -> None:
    live = fed(layout, board_after(["e4"]), status="robot moving")
    for n in range(5):
        live.notice(f"old news {n}")
    live.notice("the engine declines the draw")
    live.notice("sensor e4 does not answer", "warning")
    picture = shown(live)
    assert "robot moving" in picture
    assert "the engine declines the draw" in picture
    assert "sensor e4 does not answer" in picture
    assert "old news 0" not in picture
    assert any(s.color is not None and s.color.name == "yellow" for s in styles_of(live, "sensor e4"))


@pytest.mark.parametrize("width", [60, 80, 120])
def test_fits_the_terminal(layout: Layout, width: int) -> None:
    live = fed(layout, board_after(CHECK_LINE), clock=CLOCK)
    live.notice("a notice long enough to need wrapping in a narrow panel beside the table, surely")
    picture = shown(live, width)
    assert max(len(line) for line in picture.splitlines()) <= width
    beside = line_with("to move", picture) < line_with(" a  b  c ", picture)
    assert beside is (width >= 80)  # stacked under the table only when the terminal is narrow


def test_before_the_table_is_known(layout: Layout) -> None:
    live = LiveState(layout)
    picture = shown(live)
    assert "no game yet" in picture and "the table is not known yet" in picture


# --- live ------------------------------------------------------------------------------------------


def terminal(width: int = 80) -> Console:
    return Console(record=True, width=width, force_terminal=True, file=io.StringIO())


def eventually(condition: Callable[[], bool], timeout_s: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def test_the_view_is_wanted_on_terminals_only() -> None:
    assert PlayView.wanted(terminal())
    assert not PlayView.wanted(Console(file=io.StringIO()))


def test_off_a_terminal_nothing_is_shown_live_but_lines_are_printed(layout: Layout) -> None:
    output = io.StringIO()
    console = Console(file=output, width=80)
    live = fed(layout, board_after(CHECK_LINE))
    with PlayView(live, console) as view:
        live.update(status="robot moving")
        with view.suspend():
            pass
        view.print("1. e4 keyboard")
        assert not view.is_showing
    assert output.getvalue() == "1. e4 keyboard\n"


def test_it_follows_the_game_live(layout: Layout) -> None:
    console = terminal()
    live = fed(layout, board_after(CHECK_LINE))
    with PlayView(live, console) as view:
        assert view.is_showing
        assert "White to move" in console.export_text(clear=False)
        live.update(status="the robot is moving a piece")
        assert eventually(lambda: "the robot is moving a piece" in console.export_text(clear=False))
        view.print("[not markup] a line above the view")
    assert not view.is_showing
    assert "[not markup] a line above the view" in console.export_text()
    assert not any(thread.name == "chessatron-view" for thread in threading.enumerate())
    view.close()  # again: nothing happens


def test_it_steps_aside_while_the_keyboard_prompt_waits(layout: Layout) -> None:
    console = terminal()
    live = fed(layout, board_after(CHECK_LINE[:2]))
    seen: list[tuple[bool, bool]] = []

    def read_line(prompt: str) -> str:
        seen.append((view.is_showing, isinstance(sys.stdout, FileProxy)))
        live.update(status="typed while the view waits")
        return "e4e6" if len(seen) == 1 else "exd5"

    view = PlayView(live, console, read_line=read_line)
    with view:
        assert isinstance(sys.stdout, FileProxy)  # while the view shows, printed lines go above it
        move = KeyboardPlayer(view.read_line, view.print).ask(live_board(live))
        assert view.is_showing
    assert move == chess.Move.from_uci("e4d5")
    assert seen == [(False, False), (False, False)]  # input() would write its prompt to the real stdout
    text = console.export_text()
    assert "the pawn on e4 cannot go to e6" in text
    assert "typed while the view waits" in text  # drawn again, up to date, after the prompt


def live_board(live: LiveState) -> chess.Board:
    game = live.snapshot()["game"]
    board = chess.Board(game["start_fen"])
    for uci in game["uci"]:
        board.push_uci(uci)
    return board


def test_nothing_is_drawn_while_suspended(layout: Layout) -> None:
    console = terminal()
    live = fed(layout, board_after(CHECK_LINE))
    with PlayView(live, console) as view:
        with view.suspend():
            assert not view.is_showing
            live.update(status="changed behind the prompt")
            time.sleep(0.2)  # time enough for a view that would draw (at 20 frames a second)
            assert "changed behind the prompt" not in console.export_text(clear=False)
        assert view.is_showing
        assert "changed behind the prompt" in console.export_text(clear=False)


def test_the_prompt_shows_the_running_clock(layout: Layout) -> None:
    now = [100.0]
    prompts: list[str] = []

    def read_line(prompt: str) -> str:
        prompts.append(prompt)
        return "e4"

    live = fed(layout, chess.Board(), clock={**CLOCK, "white_ms": 300_000})
    with PlayView(live, terminal(), read_line=read_line, now=lambda: now[0]) as view:
        now[0] += 7.0  # the player thinks; the picture stands still while the prompt waits
        KeyboardPlayer(view.read_line, view.print).ask(chess.Board())
        live.update(clock={**CLOCK, "running": None})
        view.read_line("Another game? [y/N] ")
    assert prompts == ["[4:53] White to move: ", "Another game? [y/N] "]


def test_a_running_clock_ticks_between_snapshots(layout: Layout) -> None:
    console = terminal()
    now = [100.0]
    live = fed(layout, board_after(CHECK_LINE), clock=CLOCK)
    with PlayView(live, console, now=lambda: now[0]) as view:
        assert "4:59" in console.export_text()
        now[0] += 2.0
        view.redraw()
        text = console.export_text()
        assert "4:57" in text and "5:00" in text  # only the running side's time goes down


def test_renderable_is_printable_anywhere(layout: Layout) -> None:
    renderable: RenderableType = render_view(fed(layout, chess.Board()).snapshot(), None, width=40)
    console = Console(record=True, width=40, file=io.StringIO())
    console.print(renderable)
    assert "White to move" in console.export_text()


def test_an_error_while_the_prompt_waits_closes_the_view(layout: Layout) -> None:
    console = terminal()
    live = fed(layout, chess.Board())
    view = PlayView(live, console)
    with pytest.raises(KeyboardInterrupt), view, view.suspend():
        raise KeyboardInterrupt
    assert not view.is_showing
    assert not any(thread.name == "chessatron-view" for thread in threading.enumerate())
    with view:  # and it can show again
        assert view.is_showing


# --- a console without chess glyphs, the prompt, the first frame ---------------------------------------

GLYPHS = set("♔♕♖♗♘♙♚♛♜♝♞♟▶✗→╭╮╰╯━")


def test_letters_for_a_console_font_without_chess_glyphs(layout: Layout) -> None:
    live = fed(layout, board_after(CHECK_LINE), clock=CLOCK)
    live.show_gantry(layout.home_mm, work={"title": "MOVE 6 d5e5", "index": 0, "of": 1})
    live.notice("an error", "error")
    picture = shown(live, letters=True)
    assert not GLYPHS & set(picture), GLYPHS & set(picture)
    assert " K " in picture and " k " in picture  # FEN letters
    assert GLYPHS & set(shown(live))  # by default the glyphs


def test_letters_chosen_for_the_linux_console_and_other_encodings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    assert not wants_letters(Console(file=io.StringIO(), force_terminal=True))
    monkeypatch.setenv("TERM", "linux")  # the Raspberry Pi's console: its fonts have no chess symbols
    assert wants_letters(Console(file=io.StringIO(), force_terminal=True))
    monkeypatch.setenv("TERM", "xterm")
    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    assert wants_letters(Console(file=latin, force_terminal=True))


def test_nothing_is_drawn_before_the_table_is_known(layout: Layout) -> None:
    console = terminal()
    live = LiveState(layout)
    with PlayView(live, console) as view:
        view.print("resumed game 1234")
        live.update(status="resuming")
        time.sleep(0.2)  # time enough for a view that would draw (at 20 frames a second)
        assert not view.is_showing and "chessatron table" not in console.export_text(clear=False)
        live.show_board(chess.Board(), players=("keyboard", "engine"))
        live.show_table(Table.from_board(layout, chess.Board()), ())
        assert eventually(lambda: view.is_showing)
    text = console.export_text()
    assert text.count("chessatron table") >= 1
    assert text.index("resumed game 1234") < text.index("chessatron table")  # no empty frame above it


def test_a_typo_does_not_print_the_table_again(layout: Layout) -> None:
    def frames_printed(typed: list[str]) -> int:
        console = terminal()
        lines = iter(typed)
        with PlayView(fed(layout, chess.Board()), console, read_line=lambda prompt: next(lines)) as view:
            keyboard = KeyboardPlayer(view.read_line, view.print, hold=view.suspend)
            assert keyboard.ask(chess.Board()) == chess.Move.from_uci("e2e4")
            text = console.export_text()
        return text.count("chessatron table")

    # the view steps aside once for the prompt and comes back once, however many typos come between
    assert frames_printed(["e9", "Nf9", "Ke2", "e4"]) == frames_printed(["e4"])


def test_the_prompts_clock_counts_down_while_the_player_thinks(layout: Layout) -> None:
    now = [100.0]
    seen: list[str] = []

    def read_line(prompt: str) -> str:
        assert isinstance(prompt, Prompt)
        seen.append(prompt.current())
        now[0] += 1.0
        seen.append(prompt.current())
        now[0] += 60.0
        seen.append(prompt.current())
        return "e4"

    live = fed(layout, chess.Board(), clock={**CLOCK, "white_ms": 300_000})
    with PlayView(live, terminal(), read_line=read_line, now=lambda: now[0]) as view:
        KeyboardPlayer(view.read_line, view.print).ask(chess.Board())
    assert seen == ["[5:00] White to move: ", "[4:59] White to move: ", "[3:59] White to move: "]


def test_a_dragged_piece_is_drawn_with_the_magnet_not_on_the_square_it_left(layout: Layout) -> None:
    board = chess.Board()
    table = Table.from_board(layout, board)
    (drag,) = Planner(layout).plan_move(table, board, board.parse_san("Nf3")).relocations
    live = fed(layout, board_after(["Nf3"]))
    live.show_table(table, (drag,))  # the table as it stood: the knight still on g1 until it is set down
    work = {"title": "MOVE 1 g1f3", "index": 0, "of": 1}
    pictures = []
    for node in drag.path:  # the magnet under the knight on g1, then along the drag's path to f3
        live.show_gantry(layout.node_mm(node), work=work)
        pictures.append(shown(live, width=120, letters=True))
    for picture in pictures:
        # the knight rides in the magnet's brackets (an arrow where it stands between squares), once:
        # never also left behind on g1, and "[ ]" is said under the picture
        assert re.search(r"\[N[\]\\/|<>^v-]", picture), picture
        table_lines = [line[:43] for line in picture.splitlines() if line.startswith("│ ")]
        assert sum(line.count("N") for line in table_lines) == 3  # the spare, b1 and the one dragged
        assert "[ ] the magnet" in picture
    rank = {
        n: next(line for line in pictures[-1].splitlines() if line.startswith(f"│  {n} ")) for n in (1, 3)
    }
    assert "N  B  Q  K  B     R" in rank[1] and "[N]" in rank[3]  # set down on f3 with it


def test_the_prompt_given_up_as_the_flag_falls_keeps_the_time_it_fell_at(layout: Layout) -> None:
    now = [100.0]
    prompts: list[Prompt] = []
    answered = threading.Event()

    def read_line(prompt: str) -> str:
        assert isinstance(prompt, Prompt)
        prompts.append(prompt)
        answered.wait(5)  # the player types nothing before the flag falls
        return "e4"

    live = fed(layout, chess.Board(), clock={**CLOCK, "white_ms": 54_000})
    seen: list[str] = []

    def flag_fell() -> bool:
        # readline's input hook redraws the prompt as its text changes: ask it, as the hook does
        if not prompts:
            return False
        seen.append(prompts[0].current())
        if len(seen) == 2:
            now[0] += 53.7  # the player thinks on...
        if len(seen) == 4:  # ...until White's flag falls: the session stops the clock at 0
            live.update(clock={**CLOCK, "white_ms": 0, "running": None})
        return len(seen) >= 5

    with PlayView(live, terminal(), read_line=read_line, now=lambda: now[0]) as view:
        assert KeyboardPlayer(view.read_line, view.print).ask(chess.Board(), expired=flag_fell) is None
        (prompt,) = prompts
        assert seen[0] == "[0:54] White to move: " and seen[2] == "[0:00.3] White to move: "
        # once the flag has fallen the prompt never changes again, so that nothing is redrawn over the
        # lines that follow (the line reading "Black wins on time"): not the time it began with, not the
        # next game's clock
        assert seen[3:] == ["[0:00.3] White to move: "] * 2
        live.update(clock={**CLOCK, "white_ms": 300_000})
        now[0] += 1.0
        assert prompt.current() == "[0:00.3] White to move: "
        answered.set()


def test_a_chess960_game_shows_its_start_number(layout: Layout) -> None:
    start = chess.Board.from_chess960_pos(100)
    live = fed(layout, board_after(["e4"], start))
    assert "game: Chess960 #100" in shown(live)
    assert "Chess960" not in shown(fed(layout, board_after(["e4"])))
