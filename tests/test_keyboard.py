"""What a player types, read against the position: moves in every usual spelling, commands, reasons."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessatron.game.players.base import Command
from chessatron.game.players.keyboard import HELP_TEXT, KeyboardPlayer
from chessatron.game.players.notation import (
    MAX_INPUT_CHARS,
    KeyboardInput,
    MoveSpellings,
    Rejection,
    parse_command,
)

START = chess.STARTING_FEN
PROMOTION = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"
CASTLING = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
PINNED = "4k3/8/8/b7/8/8/3N4/4K3 w - - 0 1"
IN_CHECK = "4k3/8/8/8/8/8/4r3/4K2R w K - 0 1"
TWO_KNIGHTS = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"
PAWN_OR_BISHOP = "4k3/8/8/8/8/2p5/1P1P4/2B1K3 w - - 0 1"
# Chess960: king b1 with a rook on each side; castling long is mate (king c1, rook d1).
C960 = "2rkr3/2p1p3/8/8/8/8/8/RK5R w AH - 0 1"

MOVES: list[tuple[str, str, str]] = [
    (START, "e2e4", "e2e4"),
    (START, "E2E4", "e2e4"),
    (START, "e4", "e2e4"),
    (START, "E4", "e2e4"),
    (START, "Nf3", "g1f3"),
    (START, "nf3", "g1f3"),
    (START, "NF3", "g1f3"),
    (START, "g1f3", "g1f3"),
    (START, "Ng1-f3", "g1f3"),
    (START, "e2-e4", "e2e4"),
    (START, "  e4  ", "e2e4"),
    (START, "Nf3!?", "g1f3"),
    (START, "e4!!", "e2e4"),
    (START, "e4+", "e2e4"),
    (START, "♘f3", "g1f3"),
    (START, "Ｎｆ３", "g1f3"),  # full-width letters from an East Asian keyboard
    ("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "exd5", "e4d5"),
    ("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "e×d5", "e4d5"),
    (PROMOTION, "e8=Q", "e7e8q"),
    (PROMOTION, "e8Q", "e7e8q"),
    (PROMOTION, "e8=N+", "e7e8n"),
    (PROMOTION, "e7e8q", "e7e8q"),
    (PROMOTION, "E7E8R", "e7e8r"),
    (CASTLING, "O-O", "e1g1"),
    (CASTLING, "o-o", "e1g1"),
    (CASTLING, "0-0", "e1g1"),
    (CASTLING, "O–O", "e1g1"),  # an en dash, as word processors make of "O-O"
    (CASTLING, "O-O-O", "e1c1"),
    (CASTLING, "0-0-0+", "e1c1"),
    (CASTLING, "e1g1", "e1g1"),
    (CASTLING, "e1h1", "e1g1"),  # king onto rook on a standard board
    (CASTLING, "e1a1", "e1c1"),
    (PAWN_OR_BISHOP, "bxc3", "b2c3"),  # SAN is case-sensitive: lower-case b is the pawn
    (PAWN_OR_BISHOP, "dxc3", "d2c3"),
    (IN_CHECK, "Kxe2", "e1e2"),
    (TWO_KNIGHTS, "Nbd2", "b1d2"),
    (TWO_KNIGHTS, "Nfd2", "f1d2"),
    (TWO_KNIGHTS, "b1d2", "b1d2"),
    (CASTLING, "Kg1", "e1g1"),  # the king two squares along its rank: castling
    (CASTLING, "Kxh1", "e1g1"),  # the king onto its rook, as Chess960 players write it
    (CASTLING, "Kxa1", "e1c1"),
]

C960_MOVES: list[tuple[str, str, str]] = [
    (C960, "O-O-O", "b1a1"),
    (C960, "b1a1", "b1a1"),  # king onto rook
    (C960, "O-O", "b1h1"),
    (C960, "b1h1", "b1h1"),
    (C960, "b1g1", "b1h1"),  # the king onto its castled square: no plain king move goes there
    (C960, "b1c1", "b1c1"),  # a plain king step, as UCI says, although castling long also ends there
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "e1h1"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "O-O", "e1h1"),
    (C960, "Kxh1", "b1h1"),
    (C960, "Kxa1", "b1a1"),
    ("qbbnrnk1/pppppppp/8/8/8/8/PPPPPPPP/QBBNR1KR w KQkq - 0 1", "Kxh1", "g1h1"),
    ("qbbnrnk1/pppppppp/8/8/8/8/PPPPPPPP/QBBNR1KR w KQkq - 0 1", "Kh1", "g1h1"),
]

#: After 1. e4 e5 2. Nf3 Nc6: both sides' castling still blocked by their own pieces.
OPENING = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
#: Black's bishop on c4 watches f1: White may not castle kingside through it.
THROUGH_CHECK = "r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1"
NO_RIGHTS = "4k3/8/8/8/8/8/8/4K2R w - - 0 1"
# Chess960 start 100: QBBNRNKR, the king on g1 beside its rook on h1, a knight on f1 in the way.
C960_100 = "qbbnrnkr/pppppppp/8/8/8/8/PPPPPPPP/QBBNRNKR w KQkq - 0 1"

REJECTIONS: list[tuple[str, str, str]] = [
    (START, "xyz", "unknown input 'xyz'; type a move like e2e4 or Nf3, or 'help'"),
    (START, "", "type a move like e2e4 or Nf3, or 'help'"),
    # the side to move, the piece, and what stops it
    (START, "e5", "no white pawn can go to e5 (it is White's move)"),
    (START, "Nf6", "no white knight can go to f6 (it is White's move)"),
    (START, "e7e5", "the pawn on e7 is Black's, and it is White's move"),
    (
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "d2d4",
        "the pawn on d2 is White's, and it is Black's move",
    ),
    (START, "e3e4", "there is no piece on e3"),
    (
        START,
        "e2e5",
        "the pawn on e2 cannot go to e5: a pawn moves one square forward, or two from its starting square",
    ),
    (START, "Bb5", "the bishop on f1 cannot get to b5: the way is blocked at e2"),
    (START, "f1b5", "the bishop on f1 cannot get to b5: the way is blocked at e2"),
    (START, "Qh5", "the queen on d1 cannot get to h5: the way is blocked at e2"),
    (START, "Ra3", "the rook on a1 cannot get to a3: the way is blocked at a2"),
    (START, "Nd2", "the knight on b1 cannot go to d2: your own pawn stands there"),
    (START, "Ke2", "the king on e1 cannot go to e2: your own pawn stands there"),
    (START, "Nc4", "no white knight can go to c4"),
    (START, "exd5", "there is nothing to take on d5"),
    (START, "Ba4", "no white bishop can go to a4"),
    (START, "Ba3", "the bishop on c1 cannot get to a3: the way is blocked at b2"),
    (START, "Kd1e2", "you have no king on d1"),
    (NO_RIGHTS, "Qd4", "you have no queen"),
    (NO_RIGHTS, "Rh9", "unknown input 'Rh9'; type a move like e2e4 or Nf3, or 'help'"),
    (START, "b1d2q", "the knight on b1 cannot go to d2: your own pawn stands there"),
    (START, "e2e4q", "only a pawn reaching the last rank is promoted; type e2e4"),
    (START, "e4=Q", "only a pawn reaching the last rank is promoted; type e4"),
    (START, "e2e2", "e2e2 does not move the piece; type where it goes as well, like e2e4"),
    (START, "--", "unknown input '--'; type a move like e2e4 or Nf3, or 'help'"),
    (START, "0000", "unknown input '0000'; type a move like e2e4 or Nf3, or 'help'"),
    (TWO_KNIGHTS, "Nd2", "Nd2 is ambiguous: Nbd2 or Nfd2?"),
    # promotions
    (PROMOTION, "e7e8", "say which piece the pawn becomes: e7e8q (queen), r, b or n"),
    (PROMOTION, "e8", "say which piece the pawn becomes: e8=Q, e8=R, e8=B or e8=N"),
    (PROMOTION, "e8=K", "a pawn becomes a queen, rook, bishop or knight: e8=Q"),
    (PROMOTION, "e7e8k", "a pawn becomes a queen, rook, bishop or knight: e7e8q, r, b or n"),
    # pins, check and the king
    (PINNED, "Nf3", "the knight on d2 is pinned: Nf3 would leave your king in check"),
    (PINNED, "d2f3", "the knight on d2 is pinned: d2f3 would leave your king in check"),
    (IN_CHECK, "Rh2", "you are in check, and Rh2 does not get your king out of it"),
    (IN_CHECK, "h1h2", "you are in check, and h1h2 does not get your king out of it"),
    (IN_CHECK, "Kf2", "your king cannot go to f2: Black's rook on e2 attacks it"),
    (THROUGH_CHECK, "Kf1", "your king cannot go to f1: Black's bishop on c4 attacks it"),
    # a king stepping away along the line of the rook that checks it is still in its line
    ("4k3/8/8/8/8/8/8/r3K3 w - - 0 1", "Kf1", "your king cannot go to f1: Black's rook on a1 attacks it"),
    # castling
    (START, "O-O", "you cannot castle kingside yet: f1 and g1 must be empty first"),
    (START, "e1h1", "you cannot castle kingside yet: f1 and g1 must be empty first"),
    (START, "Kg1", "you cannot castle kingside yet: f1 and g1 must be empty first"),
    (OPENING, "O-O-O", "you cannot castle queenside yet: b1, c1 and d1 must be empty first"),
    (IN_CHECK, "O-O", "you cannot castle while you are in check"),
    (NO_RIGHTS, "O-O", "you can no longer castle kingside: your king or that rook has moved"),
    (NO_RIGHTS, "e1g1", "you can no longer castle kingside: your king or that rook has moved"),
    (
        THROUGH_CHECK,
        "O-O",
        "you cannot castle kingside now: your king would pass through or land on f1, which Black attacks",
    ),
    (
        START,
        "x" * (MAX_INPUT_CHARS + 1),
        "that is too long (41 characters); type a move like e2e4 or Nf3, or 'help'",
    ),
    (
        START,
        "abcdefghijklmnopqrstuvwxyz",
        "unknown input 'abcdefghijklmno…'; type a move like e2e4 or Nf3, or 'help'",
    ),
]

C960_REJECTIONS: list[tuple[str, str, str]] = [
    (C960_100, "Nf3", "no white knight can go to f3"),
    (C960_100, "O-O", "you cannot castle kingside yet: f1 must be empty first"),
    (C960_100, "Kxh1", "you cannot castle kingside yet: f1 must be empty first"),
    (C960_100, "g1h1", "you cannot castle kingside yet: f1 must be empty first"),
    (C960_100, "O-O-O", "you cannot castle queenside yet: c1, d1 and f1 must be empty first"),
]

COMMANDS: list[tuple[str, Command]] = [
    ("hint", Command.HINT),
    ("H", Command.HINT),
    ("takeback", Command.TAKEBACK),
    ("take  back", Command.TAKEBACK),
    ("Undo", Command.TAKEBACK),
    ("u", Command.TAKEBACK),
    ("draw", Command.DRAW),
    ("draw?", Command.DRAW),
    ("offer draw", Command.DRAW),
    ("accept", Command.DRAW),
    ("d", Command.DRAW),
    ("resign", Command.RESIGN),
    ("Give up", Command.RESIGN),
    ("quit", Command.QUIT),
    ("q", Command.QUIT),
    ("EXIT", Command.QUIT),
    ("help", Command.HELP),
    ("?", Command.HELP),
]


@pytest.mark.parametrize(("fen", "text", "uci"), MOVES)
def test_moves_in_every_usual_spelling(fen: str, text: str, uci: str) -> None:
    assert parse_command(text, chess.Board(fen)) == chess.Move.from_uci(uci)


@pytest.mark.parametrize(("fen", "text", "uci"), C960_MOVES)
def test_chess960_castling_comes_back_king_onto_rook(fen: str, text: str, uci: str) -> None:
    board = chess.Board(fen, chess960=True)
    move = parse_command(text, board)
    assert move == chess.Move.from_uci(uci)
    assert isinstance(move, chess.Move) and board.is_legal(move)


@pytest.mark.parametrize(("fen", "text", "reason"), REJECTIONS)
def test_rejections_say_why(fen: str, text: str, reason: str) -> None:
    rejection = parse_command(text, chess.Board(fen))
    assert isinstance(rejection, Rejection) and (rejection.text, rejection.reason) == (text, reason)
    # a move that cannot be played, or text that is no move at all (then the reason says how to type one)
    assert rejection.is_move == ("type a move like" not in reason)


@pytest.mark.parametrize(("fen", "text", "reason"), C960_REJECTIONS)
def test_chess960_rejections_say_why(fen: str, text: str, reason: str) -> None:
    rejection = parse_command(text, chess.Board(fen, chess960=True))
    assert isinstance(rejection, Rejection) and (rejection.text, rejection.reason) == (text, reason)


@pytest.mark.parametrize(("text", "command"), COMMANDS)
def test_commands_and_their_short_forms(text: str, command: Command) -> None:
    assert parse_command(text, chess.Board()) is command


def test_resign_has_no_one_letter_form() -> None:
    assert isinstance(parse_command("r", chess.Board()), Rejection)


# --- properties ----------------------------------------------------------------------------------


@st.composite
def boards(draw: st.DrawFn) -> chess.Board:
    """Positions from random games, standard or Chess960, some of them finished."""
    chess960 = draw(st.booleans())
    board = chess.Board.from_chess960_pos(draw(st.integers(0, 959))) if chess960 else chess.Board()
    for _ in range(draw(st.integers(0, 40))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(draw(st.sampled_from(moves)))
    return board


def check_result(result: KeyboardInput, board: chess.Board) -> None:
    if isinstance(result, chess.Move):
        assert board.is_legal(result)
    elif isinstance(result, Rejection):
        assert result.reason and len(result.reason) < 120
    else:
        assert isinstance(result, Command)


@settings(max_examples=150, deadline=None)
@given(board=boards(), text=st.text())
def test_any_text_is_a_legal_move_a_command_or_a_rejection(board: chess.Board, text: str) -> None:
    check_result(parse_command(text, board), board)


NOTATION = "abcdefgh12345678KQRBNkqrbnOo0-x=+#!? "


@settings(max_examples=150, deadline=None)
@given(board=boards(), text=st.text(alphabet=NOTATION, max_size=12))
def test_text_that_looks_like_notation_never_raises(board: chess.Board, text: str) -> None:
    check_result(parse_command(text, board), board)


@settings(max_examples=50, deadline=None)
@given(
    board=boards(),
    text=st.one_of(
        st.text(alphabet=st.characters(codec="utf-8"), min_size=MAX_INPUT_CHARS - 5, max_size=5000),
        st.text(alphabet=st.characters(categories=["Cc", "Cf", "Zs", "Zl", "Zp", "Co"]), max_size=50),
    ),
)
def test_long_lines_and_control_characters_are_rejected(board: chess.Board, text: str) -> None:
    check_result(parse_command(text, board), board)


@settings(max_examples=100, deadline=None)
@given(board=boards(), data=st.data())
def test_every_legal_move_reads_back_from_its_san_and_uci(board: chess.Board, data: st.DataObject) -> None:
    moves = list(board.legal_moves)
    if not moves:
        return
    move = data.draw(st.sampled_from(moves))
    assert parse_command(board.san(move), board) == move
    assert parse_command(move.uci(), board) == move
    assert parse_command(move.uci().upper(), board) == move


# --- a line not yet finished ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fen", "text", "ucis"),
    [
        (START, "N", {"b1a3", "b1c3", "g1f3", "g1h3"}),
        (START, "Nf", {"g1f3"}),  # one knight can go to the f-file: that one is being moved
        (START, "nf", {"g1f3"}),
        (START, "e2", {"e2e3", "e2e4"}),  # UCI: the piece on e2
        (START, "e", {"e2e3", "e2e4"}),  # the e-pawn in SAN, or the e-file's pieces in UCI
        (START, "g1-", {"g1f3", "g1h3"}),
        (START, "Nf3+", {"g1f3"}),
        (TWO_KNIGHTS, "Nd", {"b1d2", "f1d2"}),
        (TWO_KNIGHTS, "Nfd", {"f1d2"}),
        (PAWN_OR_BISHOP, "b", {"b2b3", "b2b4", "b2c3"}),  # lower-case b: the b-pawn first ...
        (PAWN_OR_BISHOP, "Bx", set()),  # ... a capital B the bishop, hemmed in
        (CASTLING, "O-O-", {"e1c1"}),
        (CASTLING, "0-0", {"e1g1", "e1c1"}),
        (CASTLING, "Kxh", {"e1g1"}),
        (PROMOTION, "e8=", {"e7e8q", "e7e8r", "e7e8b", "e7e8n"}),
        # nothing fits a typo, a square no piece of the side to move can leave, a command
        (START, "Nf9", set()),
        (START, "Q", set()),
        (START, "e7", set()),
        (START, "hint", set()),
    ],
)
def test_a_line_not_yet_finished_fits_the_moves_it_may_become(fen: str, text: str, ucis: set[str]) -> None:
    fitting = MoveSpellings(chess.Board(fen)).fitting(text)
    assert {move.uci() for move in fitting} == ucis


SPELLINGS = [(f, text, False) for f, text, _ in MOVES] + [(f, text, True) for f, text, _ in C960_MOVES]


@pytest.mark.parametrize(("fen", "text", "chess960"), SPELLINGS)
def test_each_spelling_read_as_a_move_fits_it_from_its_first_key(fen: str, text: str, chess960: bool) -> None:
    board = chess.Board(fen, chess960=chess960)
    move = parse_command(text, board)
    assert isinstance(move, chess.Move)
    spellings = MoveSpellings(board)
    for end in range(1, len(text) + 1):
        if text[:end].strip():
            assert move in spellings.fitting(text[:end]), text[:end]


def test_an_empty_line_fits_every_move() -> None:
    board = chess.Board(OPENING)
    assert MoveSpellings(board).fitting(" ") == frozenset(board.legal_moves)


@settings(max_examples=100, deadline=None)
@given(board=boards(), data=st.data())
def test_every_legal_move_fits_each_start_of_its_san_and_uci(board: chess.Board, data: st.DataObject) -> None:
    moves = list(board.legal_moves)
    if not moves:
        return
    move = data.draw(st.sampled_from(moves))
    spellings = MoveSpellings(board)
    for text in (board.san(move), board.san(move).lower(), move.uci(), move.uci().upper()):
        if parse_command(text, board) != move:
            continue  # (a lower-case b-pawn's move also read as a bishop's, say)
        for end in range(1, len(text) + 1):
            assert move in spellings.fitting(text[:end]), (text, end)


# --- the player at the keyboard ------------------------------------------------------------------


class Terminal:
    """A scripted keyboard and a screen that records what it showed."""

    def __init__(self, *lines: str | type[BaseException] | None) -> None:
        self.lines: Iterator[str | type[BaseException] | None] = iter(lines)
        self.shown: list[str] = []
        self.prompts: list[str] = []

    def read_line(self, prompt: str) -> str | None:
        self.prompts.append(prompt)
        line = next(self.lines)
        if isinstance(line, type):
            raise line
        return line

    def player(self) -> KeyboardPlayer:
        return KeyboardPlayer(self.read_line, self.shown.append)


def test_a_session_reprompts_with_the_reason_until_a_legal_move() -> None:
    terminal = Terminal("", "xyz", "e2e5", "help", "Nf6", "  E4 ")
    assert terminal.player().ask(chess.Board()) == chess.Move.from_uci("e2e4")
    assert terminal.shown == [
        "type a move like e2e4 or Nf3, or 'help'",
        "unknown input 'xyz'; type a move like e2e4 or Nf3, or 'help'",
        "the pawn on e2 cannot go to e5: a pawn moves one square forward, or two from its starting square",
        HELP_TEXT,
        "no white knight can go to f6 (it is White's move)",
    ]
    assert terminal.prompts == ["White to move: "] * 6


def test_a_session_returns_commands_to_the_caller() -> None:
    board = chess.Board()
    board.push_san("e4")
    terminal = Terminal("e5?!", "hint", "takeback", "draw", "resign")
    player = terminal.player()
    assert player.ask(board) == chess.Move.from_uci("e7e5")
    assert [player.ask(board) for _ in range(4)] == [
        Command.HINT,
        Command.TAKEBACK,
        Command.DRAW,
        Command.RESIGN,
    ]
    assert terminal.prompts == ["Black to move: "] * 5
    assert terminal.shown == []


@pytest.mark.parametrize("end", [None, EOFError])
def test_the_end_of_input_quits(end: type[BaseException] | None) -> None:
    terminal = Terminal("e2e2", end)
    assert terminal.player().ask(chess.Board()) is Command.QUIT
    assert terminal.shown == ["e2e2 does not move the piece; type where it goes as well, like e2e4", ""]


def test_ctrl_c_at_the_prompt_interrupts_on_a_line_of_its_own() -> None:
    # the session stops the game saved, and `play` says it was interrupted (a typed quit is not)
    terminal = Terminal("e2e2", KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        terminal.player().ask(chess.Board())
    assert terminal.shown == ["e2e2 does not move the piece; type where it goes as well, like e2e4", ""]


def test_the_default_keyboard_reads_stdin_and_quits_at_its_end(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("Nc3\n"))
    player = KeyboardPlayer()
    assert player.ask(chess.Board()) == chess.Move.from_uci("b1c3")
    assert player.ask(chess.Board()) is Command.QUIT
    assert capsys.readouterr().out == "White to move: White to move: \n"


def test_a_prompt_function_may_be_any_callable() -> None:
    replies: Callable[[str], str | None] = {"White to move: ": "d4"}.get
    assert KeyboardPlayer(replies, print).ask(chess.Board()) == chess.Move.from_uci("d2d4")


def test_a_prompt_is_given_up_when_the_flag_falls_and_the_late_line_answers_the_next_prompt() -> None:
    import threading

    came = threading.Event()
    prompts: list[str] = []

    def read_line(prompt: str) -> str | None:
        prompts.append(prompt)
        came.wait(timeout=60)
        return "e4"

    shown: list[str] = []
    player = KeyboardPlayer(read_line, shown.append)
    checks = iter([False, False, True])
    assert player.ask(chess.Board(), expired=lambda: next(checks, True)) is None
    came.set()
    assert player.ask(chess.Board()) == chess.Move.from_uci("e2e4")
    assert prompts == ["White to move: "]  # one line read, for both prompts
    assert shown == ["", "White to move:"]  # the given-up prompt's line ended; the next one asked again


def test_without_a_clock_the_prompt_is_read_on_the_callers_thread() -> None:
    import threading

    threads: list[threading.Thread] = []

    def read_line(prompt: str) -> str | None:
        threads.append(threading.current_thread())
        return "d4"

    assert KeyboardPlayer(read_line, print).ask(chess.Board()) == chess.Move.from_uci("d2d4")
    assert threads == [threading.current_thread()]


def test_the_prompt_says_when_the_player_is_in_check() -> None:
    terminal = Terminal("Kd1")
    board = chess.Board(IN_CHECK)
    assert terminal.player().ask(board) == chess.Move.from_uci("e1d1")
    assert terminal.prompts == ["White to move (in check): "]
