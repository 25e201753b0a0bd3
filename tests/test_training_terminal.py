"""Training at a real terminal, as a person meets it (:mod:`tests.journeys`): puzzles with the table and
the puzzle's panel, the opponent's moves, a wrong move, a hint marked on the board, the puzzle's own help,
the solution played out, the end of input; a saved game's review read as a summary; puzzles mined from
saved games, with the reason a game gave none and a second run that analyses nothing again; a theme
mistyped, and a game that is not there, said before anything is drawn."""

from __future__ import annotations

import re
from pathlib import Path

from chessatron.game.records.pgn import from_pgn
from chessatron.game.records.store import save_record
from chessatron.training.puzzle import Puzzle
from chessatron.training.store import Filters, PuzzleStore

from .journeys import Terminal

#: Lichess's example: a mate in two for White after Black's king steps up (17... Kd7 18. Be6+ Kd8 19. Qf8#).
MATE_IN_TWO = Puzzle(
    "00sHx",
    "q3k1nr/1pp1nQpp/3p4/1P2p3/4P3/B1PP1b2/B5PP/5K2 b k - 0 17",
    ("e8d7", "a2e6", "d7d8", "f7f8"),
    rating=1760,
    rating_deviation=80,
    themes=("mate", "mateIn2", "middlegame", "short"),
)
#: The king steps into the corner; the rook mates on the back rank (30... Kg8 31. Rd8#).
BACK_RANK = Puzzle(
    "tBack",
    "5k2/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 30",
    ("f8g8", "d1d8"),
    rating=1200,
    rating_deviation=80,
    themes=("backRankMate", "mate", "mateIn1", "middlegame", "oneMove"),
)

#: Black's third move allows the mate in one that ends the game.
SCHOLARS_MATE = (
    '[White "Cy"]\n[Black "Di"]\n[WhiteKind "keyboard"]\n[BlackKind "keyboard"]\n\n'
    "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n"
)
#: The person (White) gives the queen away (3. Qxf7+??) where any quiet move would have kept it: no move
#: stood out, so no puzzle (the issue's "0 puzzles for a game that lost a queen", now with its reason).
QUEEN_GIVEN = (
    '[White "Ann"]\n[Black "Stockfish"]\n[WhiteKind "keyboard"]\n[BlackKind "engine"]\n\n'
    "1. e4 e5 2. Qh5 Nc6 3. Qxf7+ Kxf7 4. Bc4+ d5 0-1\n"
)
#: The engine (Black) puts its queen where the person's knight takes it; the person plays on as if
#: nothing had happened: the one move that stood out, missed.
MISSED_QUEEN = (
    '[White "Ann"]\n[Black "Stockfish"]\n[WhiteKind "keyboard"]\n[BlackKind "engine"]\n[BlackLevel "1"]\n\n'
    "1. e4 e5 2. Nf3 Qh4 3. d3 Qf6 4. Nc3 c6 0-1\n"
)


def store_in(home: Path) -> PuzzleStore:
    """The person's training store, where ``chessatron`` finds it in their home."""
    return PuzzleStore(home / "data" / "chessatron" / "training.sqlite3")


def games_in(home: Path) -> Path:
    return home / "data" / "chessatron" / "games"


def square_at(terminal: Terminal, square: str) -> tuple[int, int]:
    """Where ``square``'s piece is drawn on the screen, in the last table picture shown."""
    lines = terminal.screen().splitlines()
    files = max(row for row, line in enumerate(lines) if " a  b  c  d  e  f  g  h" in line)
    column = lines[files].index(" a  b  c") + 1 + 3 * "abcdefgh".index(square[0])
    rank = max(row for row in range(files) if lines[row].startswith(f"│ {square[1]:>2} "))
    return rank, column


def is_marked(terminal: Terminal, square: str, plain: str) -> bool:
    """Whether ``square`` stands out on the table: drawn on another colour than ``plain``, a square of
    the same colour that nothing marks."""
    return terminal.background(*square_at(terminal, square)) != terminal.background(
        *square_at(terminal, plain)
    )


def test_puzzles_at_a_terminal_show_the_table_the_moves_and_each_outcome(tmp_path: Path) -> None:
    home = tmp_path / "person"
    store_in(home).add([MATE_IN_TWO, BACK_RANK])
    args = ["puzzles", "--player", "keyboard", "--count", "3", "--seed", "7", "--rating", "1700"]
    with Terminal([*args, "--theme", "middlegame"], home) as terminal:
        # the first puzzle: the table and the puzzle's panel, the move that sets it, whose move it is
        terminal.expect(r"White to move: $")
        # (the panel is drawn as the prompt shows: wait for its last line)
        screen = terminal.expect_screen(r"your rating 1500\?").string
        assert "puzzle 1 of 3" in screen  # the panel's title
        assert "chessatron table" in screen and "00sHx · rated 1760" in screen
        assert "Checkmate · Mate in 2 · Middlegame · Short puzzle" in screen, screen  # the themes in words
        assert re.search(r"17\.\.\. Kd7 +puzzle", screen)  # the move that sets it, as a move line
        assert "White to play and win" in screen and "3 tries left" in screen
        assert "your rating 1500?" in screen
        terminal.mark()
        terminal.line("Be6+")
        terminal.expect(r"right\n")
        terminal.expect(r"18\.\.\. Kd8 +puzzle")  # the opponent's reply, on which the next move depends
        terminal.expect(r"White to move: $")
        terminal.mark()
        terminal.type("Qf8")
        terminal.press("tab", "enter")  # Tab completes the move: Qf8#
        solved = terminal.expect(r"solved in \d+\.\d s, rating 1500\? → (\d+)\?? \(\+(\d+)\)")
        assert int(solved[1]) == 1500 + int(solved[2]) > 1500

        # the second: the puzzle's own help, a hint marked on the board, a wrong move, the solution
        terminal.expect(r"puzzle 2 of 3: tBack, rated 1200 \(Back rank mate · Checkmate · Mate in 1")
        terminal.expect(r"30\.\.\. Kg8 +puzzle")
        terminal.expect(r"White to move: $")
        assert not is_marked(terminal, "d1", "f1")
        terminal.mark()
        terminal.line("help")
        terminal.expect(r"skip: on to the next puzzle")
        terminal.expect(r"White to move: $")
        terminal.mark()
        terminal.line("hint")
        terminal.expect(r"hint: move the rook on d1")
        terminal.expect(r"White to move: $")
        assert is_marked(terminal, "d1", "f1")  # the piece to move stands out
        terminal.mark()
        terminal.line("hint")
        terminal.expect(r"hint: the rook goes to d8")
        terminal.expect(r"White to move: $")
        assert is_marked(terminal, "d1", "f1") and is_marked(terminal, "d8", "f8")  # and where it goes
        terminal.mark()
        terminal.line("Rd2")
        terminal.expect(r"not the move: 2 tries left\n")
        terminal.expect(r"White to move: $")
        terminal.mark()
        terminal.type("sol")
        terminal.press("tab", "enter")  # Tab completes the puzzle's words too
        terminal.expect(r"failed: the solution is 31\. Rd8#")
        terminal.expect(r"failed in \d+\.\d s \(1 wrong move, 2 hints\), rating \d+\?? → \d+\?? \(−\d+\)")

        # the third (the first again, the others all tried): the end of input stops, nothing lost
        terminal.expect(r"puzzle 3 of 3: 00sHx")
        terminal.expect(r"White to move: $")
        terminal.mark()
        terminal.press("ctrl-d")
        terminal.expect(r"puzzle 00sHx stopped before its end: not counted")
        terminal.expect(r"1 of 2 solved; your puzzle rating: \d+")
        assert terminal.exit_status() == 0
        text = terminal.text
        assert "try another" not in text and "here is the solution" not in text
        assert "takeback" not in text and "play --resume" not in text  # never the game's help
        terminal.assert_clean()
    attempts = store_in(home).attempts()
    assert [(a.puzzle_id, a.solved, a.wrong, a.hints) for a in attempts] == [
        ("00sHx", True, 0, 0),
        ("tBack", False, 1, 2),
    ]


def test_a_mistyped_theme_is_said_with_the_closest_before_anything_moves(tmp_path: Path) -> None:
    home = tmp_path / "person"
    store_in(home).add([MATE_IN_TWO, BACK_RANK])
    with Terminal(["puzzles", "--player", "keyboard", "--theme", "midlegame"], home) as terminal:
        assert terminal.exit_status() == 2
        text = terminal.text
    assert "no puzzle in the store has the theme 'midlegame'; did you mean 'middlegame'?" in text
    assert "chessatron table" not in text and "Traceback" not in text


def test_review_prints_each_sides_summary_and_the_marked_moves(tmp_path: Path) -> None:
    home = tmp_path / "person"
    game_id = save_record(from_pgn(SCHOLARS_MATE), games_in(home))
    with Terminal(["review", "nosuchgame", "--depth", "6"], home) as terminal:
        assert terminal.exit_status() == 2
        assert "no saved game 'nosuchgame'" in terminal.text
        assert "reviewing" not in terminal.text  # said before any progress bar is drawn
    with Terminal(["review", "--depth", "6"], home) as terminal:  # the latest finished game
        assert terminal.exit_status() == 0
        terminal.assert_clean()
        text = terminal.text
    assert f"game {game_id}: White Cy (keyboard) vs Black Di (keyboard); White wins (1-0); 4 moves" in text
    black = re.search(r"Black Di \(keyboard\): (.*)", text)
    assert black is not None and "1 blunder;" in black[1], text
    figures = re.search(r"average loss (\d+) cp, accuracy (\d+)%", black[1])
    assert figures is not None and int(figures[1]) > 100 and int(figures[2]) < 100
    assert re.search(r"^3\.\.\. Nf6\?\? — \S+ was best \(#1\)$", text, re.MULTILINE), text
    assert "[%eval" not in text  # the summary, not the PGN
    with Terminal(["review", game_id, "--depth", "6", "--pgn"], home) as terminal:
        assert terminal.exit_status() == 0
        assert "3... Nf6??" in terminal.text and "[%eval" in terminal.text  # the annotated PGN, kept


def test_puzzles_mine_says_why_a_game_gave_none_and_mines_each_game_once(tmp_path: Path) -> None:
    depth = "6"
    home = tmp_path / "person"
    queen = save_record(from_pgn(MISSED_QUEEN), games_in(home))
    given = save_record(from_pgn(QUEEN_GIVEN), games_in(home))
    with Terminal(["puzzles", "mine", "--depth", depth], home) as terminal:
        assert terminal.exit_status() == 0
        terminal.assert_clean()
        text = terminal.text
    assert f"game {queen}: 1 puzzle\n" in text
    rule = (
        f"game {given}: no puzzle: no move of yours lost 0.2 or more of winning chances where one move "
        "clearly stood out (0.3 above the next); "
    )
    assert rule in text and "lost that much, but in" in text
    assert "1 puzzle from 2 games in " in text
    with Terminal(["puzzles", "mine", "--depth", depth], home) as terminal:
        assert terminal.exit_status() == 0
        again = terminal.text
    assert f"game {queen}: already mined: 1 puzzle" in again
    assert f"game {given}: already mined: no puzzle: no move of yours lost 0.2" in again
    assert (
        "0 puzzles from 0 games in " in again and "2 games mined before (--again mines them again)" in again
    )
    assert "mining game" not in again  # nothing analysed again
    assert store_in(home).count(Filters(source="game")) == 1
