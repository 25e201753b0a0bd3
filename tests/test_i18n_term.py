"""The table in the player's language at the terminal: moves typed with the language's piece letters (and in
English), refusals, the terminal's view, the status display, the buttons' display and a game's announcements
in the pseudo-language (no English escapes translation) and in each language (the words of the catalogs)."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import pytest
from rich.console import Console

from chessatron.config import Config
from chessatron.feedback.display import SimDisplay
from chessatron.feedback.speaker import SimSpeaker
from chessatron.game.players.base import Command
from chessatron.game.players.cursor import Cursor
from chessatron.game.players.keyboard import KeyboardPlayer
from chessatron.game.players.notation import (
    COMMAND_WORDS,
    Rejection,
    local_commands,
    parse_command,
    typed_words,
)
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.session import Session
from chessatron.game.telling.announcer import Announcer, display_lines
from chessatron.game.telling.events import describe_event
from chessatron.game.telling.live import LiveState
from chessatron.game.telling.screen import render_view
from chessatron.game.telling.speech import spoken_event, spoken_san
from chessatron.i18n import LANGUAGES, PSEUDO, set_language, using
from chessatron.i18n.notation import letters
from chessatron.planning.layout import Layout
from chessatron.planning.planner import Planner
from chessatron.planning.table import Table

#: The languages besides English.
OTHERS = [code for code in LANGUAGES if code != "en"]
#: White: a pawn on e7 to promote, a knight on g1, the king on e1 with a rook on a1 (castling long allowed);
#: Black's king on h8.
POSITION = "7k/4P3/8/8/8/8/8/R3K1N1 w Q - 0 1"
#: The move each typed line is, with the language's letters (K Q R B N as the language writes them).
TYPED = {
    "{N}f3": "g1f3",  # a knight's move
    "e8={Q}": "e7e8q",  # a promotion
    "e8{R}": "e7e8r",  # a promotion without "=" (as English reads e8Q)
    "{K}d2": "e1d2",  # a king's move
    "{R}d1": "a1d1",  # a rook's move
    "O-O-O": "e1c1",  # castling
}
#: The languages whose king's letter is English's rook's (roi, rey, re).
KING_IS_R = [code for code in LANGUAGES if letters(code)[0] == "R"]

#: Words that may stand outside the pseudo-language's brackets: moves, squares, names, numbers, protocol.
NAMES = {"chessatron", "keyboard", "engine", "script", "Alarm", "SCRIPT", "PGN", "FEN"}
_BRACKETED = re.compile(r"⟦[^⟦⟧]*⟧")
_WORD = re.compile(r"[A-Za-z]{3,}")


def english_left(text: str) -> list[str]:
    """The runs of plain ASCII letters outside the pseudo-language's brackets that are no move, square or
    name: English that escaped translation."""
    while True:
        inner = _BRACKETED.sub("", text)
        if inner == text:
            break
        text = inner
    words = _WORD.findall(text)
    return [word for word in words if word not in NAMES and not _is_notation(word)]


def _is_notation(word: str) -> bool:
    """Letters of SAN or UCI glued to the digits around them (Nxf, exd, Qxf)."""
    return bool(re.fullmatch(r"[KQRBN]?[a-h]?x?[a-h]?|[KQRBN]+|[kqrbnp]+", word))


# --- the catalogs -------------------------------------------------------------------------------------


@pytest.fixture
def pseudo() -> Iterator[None]:
    """The process in the pseudo-language (the threads a game starts follow the process's language)."""
    set_language(PSEUDO)
    try:
        yield
    finally:
        set_language("en")


# --- moves typed --------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_moves_typed_with_the_languages_letters_and_in_english(language: str) -> None:
    board = chess.Board(POSITION)
    own = dict(zip("KQRBN", letters(language), strict=True))
    with using(language):
        for typed, uci in TYPED.items():
            assert parse_command(typed.format(**own), board) == chess.Move.from_uci(uci), typed
        # a capture, with the language's knight
        taking = chess.Board("7k/8/5p2/8/4N3/8/8/4K3 w - - 0 1")
        assert parse_command(f"{own['N']}xf6", taking) == chess.Move.from_uci("e4f6")
        # English SAN is understood in every language
        assert parse_command("Nf3", board) == chess.Move.from_uci("g1f3")
        assert parse_command("e8=Q", board) == chess.Move.from_uci("e7e8q")
        # and Tab completes the moves as the language writes them
        words = typed_words(board)
        assert f"{own['N']}f3" in words and "g1f3" in words


@pytest.mark.parametrize("language", KING_IS_R)
def test_r_is_the_king_where_the_language_says_so_and_the_rook_where_the_king_cannot_go(
    language: str,
) -> None:
    board = chess.Board(POSITION)
    with using(language):
        assert parse_command("Rd1", board) == chess.Move.from_uci("e1d1")  # the king (roi, rey, re)
        assert parse_command("Rb1", board) == chess.Move.from_uci("a1b1")  # no king's move: English's rook
        refused = parse_command("Rh5", board)  # neither: the reason is about the king, as the player meant
    assert isinstance(refused, Rejection) and "e1" in refused.reason
    assert parse_command("Rd1", board) == chess.Move.from_uci("a1d1")  # in English, the rook


def test_a_capital_piece_letter_of_the_language_is_never_a_pawns_file() -> None:
    board = chess.Board("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1")  # a d-pawn, no queen
    assert parse_command("D4", board) == chess.Move.from_uci("d2d4")  # English: a pawn move in capitals
    with using("de"):
        refused = parse_command("D4", board)  # German: D is the queen (Dame)
    assert isinstance(refused, Rejection) and not refused.is_move


def test_a_refusal_says_why_in_the_language() -> None:
    board = chess.Board()
    with using(PSEUDO):
        reasons = [parse_command(text, board) for text in ("e5", "Bb5", "e7e5", "Nd2", "O-O", "Ke2", "xyz")]
    for reason in reasons:
        assert isinstance(reason, Rejection)
        assert reason.reason.startswith("⟦") and not english_left(reason.reason), reason.reason


# --- what the terminal shows and the table says, in the pseudo-language ------------------------------


def test_the_terminal_view_shows_no_english(layout: Layout) -> None:
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6"):
        board.push_san(san)
    with using(PSEUDO):
        live = LiveState(layout)
        live.show_board(board, game_id="g1", players=("keyboard", "engine:3"))
        start = Table.from_board(layout, chess.Board())
        drags = Planner(layout).plan_move(start, chess.Board(), chess.Move.from_uci("g1f3")).relocations
        live.show_table(start, drags)
        live.update(
            clock={"white_ms": 100_000, "black_ms": 90_000, "running": "white", "control": "5+3"},
            evaluation={"cp": 35, "mate": None, "depth": 12, "pv": ["Bb5", "a6"], "fen": board.fen()},
            hint={"uci": "f1b5", "san": "Bb5", "fen": board.fen()},
        )
        pictures = []
        for work in ({"title": "MOVE 3 g1f3", "index": 0, "of": 1}, None):
            live.show_gantry(layout.home_mm, work=work, state="Alarm")
            console = Console(width=120, file=io.StringIO(), record=True)
            console.print(render_view(live.snapshot(), *live.table(), width=120, engine=True))
            pictures.append(console.export_text())
        mated = chess.Board()
        for san in ("f3", "e5", "g4", "Qh4#"):
            mated.push_san(san)
        live.show_board(mated, result="0-1", termination="checkmate")
        console = Console(width=120, file=io.StringIO(), record=True)
        console.print(render_view(live.snapshot(), *live.table(), width=120))
        pictures.append(console.export_text())
    for picture in pictures:
        assert not english_left(picture), picture


def _every_event() -> list[dict[str, Any]]:
    """An event of every kind the terminal prints or the table says, each in its variants."""
    return [
        {"event": "game", "id": "g1", "fen": chess.STARTING_FEN, "chess960": False},
        {"event": "game", "id": "g2", "fen": chess.Board.from_chess960_pos(100).fen(), "chess960": True},
        {"event": "resumed", "id": "g1", "plies": 2},
        {"event": "move", "ply": 3, "san": "Nxf3+", "uci": "g1f3", "who": "engine:3"},
        {"event": "move", "ply": 5, "san": "O-O-O#", "uci": "e1c1", "who": "keyboard"},
        {"event": "move", "ply": 7, "san": "exd8=N", "uci": "e7d8n", "who": "keyboard"},
        {"event": "hint", "uci": "b8c6", "san": "Nc6"},
        {"event": "takeback", "plies": 2},
        {"event": "takeback", "plies": 1, "by": "hand"},
        {"event": "takeback", "plies": 9},
        {"event": "your-hands", "uci": "g8f6", "san": "Nf6"},
        {"event": "question", "question": {"text": "Bxf3?", "options": [{"san": "Bxf3"}, {"san": "Bxh3"}]}},
        {"event": "question", "question": None},
        {"event": "revised", "san": ["Nh3"]},
        {"event": "revised", "san": []},
        {"event": "arrange", "why": "take back", "fen": "8/8/8/8/8/8/8/8"},
        {"event": "clock", "colour": "white", "seconds": 60},
        {"event": "clock", "colour": "black", "seconds": 10},
        {"event": "clock", "colour": "black", "seconds": 120},
        *(
            {"event": "result", "result": result, "termination": termination}
            for result, termination in (
                ("1-0", "checkmate"),
                ("0-1", "resignation"),
                ("0-1", "time forfeit"),
                ("1-0", "abandoned"),
                ("1/2-1/2", "agreed draw"),
                ("1/2-1/2", "stalemate"),
                ("1/2-1/2", "insufficient material"),
                ("1/2-1/2", "time forfeit"),
                ("*", None),
            )
        ),
    ]


def test_every_event_is_printed_and_said_without_english() -> None:
    game = {
        "white": "keyboard",
        "black": "engine:3",
        "start_fen": chess.STARTING_FEN,
        "san": ["e4", "e5"],
        "turn": "white",
    }
    with using(PSEUDO):
        lines = [describe_event(event, game) for event in _every_event()]
        said = [spoken_event(event, game) for event in _every_event()]
    for line in [*lines, *said]:
        assert line is None or not english_left(line), line


def test_a_game_is_announced_and_displayed_without_english(tmp_path: Path, pseudo: None) -> None:
    script = tmp_path / "game.pgn"
    script.write_text("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n", encoding="utf-8")
    spec = PlayerSpec.parse(f"script:{script}")
    config = Config.from_dict(
        {
            "grbl": {"url": "sim://i18n-term"},
            "sensors": {"url": "sim://i18n-term"},
            "speech": {"muted": False},
        }
    )
    # (a display of no size keeps the lines as they are, not as an LCD's ASCII shows them)
    live, display = LiveState(Layout.default()), SimDisplay()
    events: list[dict[str, Any]] = []
    with (
        Session(config, games_dir=tmp_path / "games", speed=None, live=live, emit=events.append) as session,
        Announcer(live, display=display, cols=16, rows=2, threaded=False),
    ):
        session.connect()
        journal = session.new_game(spec, spec, chess.Board())
        with journal:
            session.play(journal, spec, spec)
        speaker = session.speaker
        assert isinstance(speaker, SimSpeaker)
        said = speaker.texts()
    shown = [line for _at, lines in display.history for line in lines]
    printed = [describe_event(event, live.snapshot()["game"]) for event in events]
    assert len(said) == 9 and said[-1].startswith("⟦")  # the game, eight moves and the result
    for text in [*said, *printed, *shown]:
        assert text is None or not english_left(text.replace(str(script), "SCRIPT")), text


def test_the_buttons_show_no_english() -> None:
    board = chess.Board()
    board.push_san("e4")
    board.push_san("e5")
    with using(PSEUDO):
        cursor = Cursor(chess.WHITE)
        cursor.begin_turn(board)
        lines = [*cursor.view.lines]
        for button in ("up", "select", "up", "select", "down", "down", "down", "select", "back", "back"):
            cursor.press(button)
            lines += cursor.view.lines
        for _step in range(9):
            cursor.press("down")
            lines += [*cursor.view.lines, *cursor.view.menu]
    for line in lines:
        assert not english_left(line), line


# --- in each language -------------------------------------------------------------------------------


SAID = {
    "de": ("Springer schlägt f3, Schach", "kurze Rochade", "Remis"),
    "fr": ("cavalier prend f3, échec", "petit roque", "nulle"),
    "es": ("caballo captura en f3, jaque", "enroque corto", "tablas"),
    "nl": ("paard slaat f3, schaak", "korte rokade", "remise"),
    "it": ("cavallo prende in f3, scacco", "arrocco corto", "patta"),
}


@pytest.mark.parametrize("language", OTHERS)
def test_moves_are_said_in_the_languages_chess_words(language: str) -> None:
    knight, castling, draw = SAID[language]
    with using(language):
        assert spoken_san("Nxf3+") == knight
        assert spoken_san("O-O") == castling
        result = spoken_event({"event": "result", "result": "1/2-1/2", "termination": "stalemate"})
        assert result is not None and result.lower().startswith(draw.lower())


@pytest.mark.parametrize("language", OTHERS)
def test_commands_are_typed_in_the_language(language: str) -> None:
    draw, resign = {
        "de": ("remis", "aufgeben"),
        "fr": ("nulle", "abandonner"),
        "es": ("tablas", "rendirse"),
        "nl": ("remise", "opgeven"),
        "it": ("patta", "abbandona"),
    }[language]
    board = chess.Board()
    shown: list[str] = []
    lines = iter(["help", draw.upper(), resign, "draw"])
    player = KeyboardPlayer(lambda prompt: next(lines), shown.append)
    with using(language):
        assert [player.ask(board) for _ask in range(3)] == [Command.DRAW, Command.RESIGN, Command.DRAW]
        local = local_commands()
        words = typed_words(board)
    # the help names the language's usual word for each command, Tab completes it, and no word of the
    # language means another command in English
    for command, spelled in local.items():
        assert re.search(rf"\b{re.escape(spelled[0])}\b", shown[0]), (command, shown[0])
        assert spelled[0] in words
        assert all(COMMAND_WORDS.get(word, command) is command for word in spelled), spelled


@pytest.mark.parametrize("language", OTHERS)
def test_the_status_display_fits_sixteen_columns(language: str) -> None:
    game = {
        "san": ["e4", "Nf6"],
        "uci": ["e2e4", "g8f6"],
        "turn": "white",
        "check": False,
        "result": None,
        "start_fen": None,
    }
    clock = {"white_ms": 293_000, "black_ms": 300_000, "running": "white"}
    snapshots: list[dict[str, Any]] = [
        {"game": game, "clock": clock},
        {"game": {**game, "turn": "black", "check": True}},
        {
            "game": game,
            "gantry": {"work": {"title": "SETUP", "index": 3, "of": 25, "left_s": 160.0, "at": 0.0}},
        },
        {"game": game, "gantry": {"work": {"title": "MOVE 2 g8f6", "index": 0, "of": 1}}},
        {"game": None},
        *(
            {"game": {**game, "result": result, "termination": termination}}
            for result in ("1-0", "0-1", "1/2-1/2")
            for termination in (
                "checkmate",
                "resignation",
                "time forfeit",
                "agreed draw",
                "stalemate",
                "threefold repetition",
                "fifty moves",
                "seventy-five moves",
                "abandoned",
            )
        ),
    ]
    with using(language):
        lines = [line for snapshot in snapshots for line in display_lines(snapshot, cols=16, rows=2, now=0.0)]
    assert all(len(line) <= 16 for line in lines), [line for line in lines if len(line) > 16]
    assert lines[0] != "White to move"  # (translated)
