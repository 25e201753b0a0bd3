"""Training, online games and the e-board in the pseudo-language (:data:`chessatron.i18n.PSEUDO`, every
message wrapped in ⟦ ⟧ and accented): what a person reads of them holds no English that escaped
translation. A puzzle played on the simulator (a wrong move, a hint, the mate) told as the terminal tells
it, with its prompt's help, its panel and its outcome's line; a saved game's review; an online game against
the fake lichess (a takeback both ways, a hint refused, a draw offered and accepted) and the words of its
ends; the e-board's status line and what it says of the app. Moves are shown with the language's piece
letters: a German puzzle's hint, wrong move and solution read ``Sf3``, not ``Nf3``."""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import chess
import chess.engine
import pytest
from rich.text import Text

from chessatron.config import Config
from chessatron.eboard.table import AppMover, EboardTable, Seats
from chessatron.game.players.keyboard import KeyboardPlayer
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.records.pgn import from_pgn
from chessatron.game.records.store import load_game, save_record
from chessatron.game.session import Session
from chessatron.i18n import PSEUDO, set_language, using
from chessatron.online.client import LichessClient
from chessatron.online.command import online_line
from chessatron.online.model import OnlineRequest, ServerState, ending_text
from chessatron.online.table import OnlineTable, Waits
from chessatron.training import telling
from chessatron.training.puzzle import Puzzle
from chessatron.training.review import review_game, review_lines
from chessatron.training.store import PuzzleStore
from chessatron.training.table import PuzzleTable
from chessatron.training.terminal import PuzzleLines, outcome_line, panel_rows, puzzle_help

from .fake_lichess import FakeLichess, Script

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
ANN = "lip_ann_token_1"

#: A move in SAN (any language's letters), a square, a move number, a UCI move.
_MOVE = re.compile(
    r"^(?:[KQRBNDTLSFCAP]?[a-h]?[1-8]?x?[a-h][1-8](?:=[A-Z])?[+#]?|O-O(?:-O)?[+#]?|[a-h][1-8][a-h][1-8][qrbn]?)$"
)


def escaped(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """The English words of ``text`` outside the pseudo-language's ⟦ ⟧: runs of three letters or more that
    are no move, square or UCI move, nor one of ``allowed`` (names, ids, commands and protocol words)."""
    outside = text
    while "⟦" in outside:  # (a message inside another's placeholder: the innermost first)
        outside, count = re.subn(r"⟦[^⟦⟧]*⟧", " ", outside)
        if not count:
            break
    words = re.findall(r"[A-Za-z][A-Za-z0-9_+#=-]*", outside)
    keep = set(allowed)
    return [
        word
        for word in words
        if len(re.sub(r"[^A-Za-z]", "", word)) >= 3 and word not in keep and not _MOVE.match(word)
    ]


def plain(rows: Iterable[object]) -> list[str]:
    """The text of the panel's rows (rich Texts)."""
    return [row.plain for row in rows if isinstance(row, Text)]


@pytest.fixture
def pseudo() -> Iterator[None]:
    """The process in the pseudo-language (threads too: the session's, the feed's), English again after."""
    set_language(PSEUDO)
    try:
        yield
    finally:
        set_language("en")


class Erring:
    """A simulated person who tries a wrong move and asks for a hint, then mates."""

    def __init__(self, table: list[PuzzleTable]) -> None:
        self.table = table
        self.moves = [chess.Move.from_uci("d1d7"), chess.Move.from_uci("d1d8")]

    def best_move(self, board: chess.Board) -> chess.Move:
        if len(self.moves) == 2:
            self.table[0].request("hint")  # (taken once the wrong move is put back)
        return self.moves.pop(0)


def test_a_puzzle_at_the_terminal_speaks_the_pseudo_language(tmp_path: Path, pseudo: None) -> None:
    store = PuzzleStore(tmp_path / "training.sqlite3", starter=False)
    store.add([BACK_RANK])
    events: list[dict[str, Any]] = []
    tables: list[PuzzleTable] = []
    with Session(Config.default(), games_dir=tmp_path / "games", speed=None, emit=events.append) as session:
        session.connect()
        statuses: list[str] = []
        session.live.listen(
            lambda version: statuses.append(
                ""
                if session.live.snapshot().get("status_kind") == "idle"
                else str(session.live.snapshot().get("status") or "")
            )
        )
        hand = PlayerSpec.parse("hand")
        table = PuzzleTable(session, store, hand, rng=random.Random(1), brain=Erring(tables))
        tables.append(table)
        (outcome,) = table.play(1)
        training = session.live.snapshot()["training"]
    lines = PuzzleLines(typed=False)
    said = [line for event in events if (line := lines.line(event)) is not None]
    assert any("Rd7" in line for line in said) and any("d1" in line for line in said), said  # wrong, hint
    typed = PuzzleLines(typed=True)
    said += [line for event in events if (line := typed.line(event)) is not None]
    said += [str(event["message"]) for event in events if event["event"] in ("notice", "warning")]
    said += [outcome_line(outcome), outcome.line(), puzzle_help(), puzzle_help(at_board=True)]
    said += plain(panel_rows(training))
    for state in ("setting up", "wrong", "solution", "failed", "stopped", "solving"):
        said += plain(panel_rows({**training, "state": state, "hints": 2}))
    said += [telling.solution_notice("skipped", "30... Kg8 31. Rd8#"), telling.no_such_command("draw")]
    said += [status for status in statuses if status not in ("", "idle", "robot moving")]  # (codes)
    allowed = {"tBack", "hand", "draw", "Kg8", "Rd8#", "g1f3"}
    leaks = {line: escaped(line, allowed) for line in said}
    assert not {line: words for line, words in leaks.items() if words}, leaks


def test_a_puzzles_moves_are_shown_with_the_languages_letters() -> None:
    with using("de"):
        assert telling.wrong_move("Nf3", 2, "robot").startswith("Sf3 ")
        assert "Txd8#" in telling.solution_notice("failed", "30... Kg8 31. Rxd8#")
        assert "Sf3" in puzzle_help() and "e8=D" in puzzle_help()
    with using("fr"):
        assert telling.moves_in("17... Nf3+ 18. Kh1 Qg1#") == "17... Cf3+ 18. Rh1 Dg1#"


def test_a_review_speaks_the_pseudo_language(tmp_path: Path) -> None:
    games, store = tmp_path / "games", PuzzleStore(tmp_path / "training.sqlite3", starter=False)
    game_id = save_record(from_pgn(SCHOLARS_MATE), games)
    reviewed = review_game(game_id, games, store, limit=chess.engine.Limit(depth=4))
    record = load_game(game_id, games)
    with using(PSEUDO):
        lines = review_lines(reviewed.summary, record, game_id)
    assert any("Nf6" in line for line in lines)  # Black's losing move, marked
    leaks = {line: escaped(line, {"Cy", "Di", "keyboard", "Stockfish"}) for line in lines}
    assert not {line: words for line, words in leaks.items() if words}, leaks


def test_an_online_game_speaks_the_pseudo_language(tmp_path: Path, pseudo: None) -> None:
    """Takebacks both ways, a hint refused, the opponent's draw offer accepted: every line the table
    says of the server's game, and how games end without a result."""
    lines = iter(["e4", "takeback", "d4", "Nf3", "takeback", "hint", "g3", "draw"])
    done = threading.Event()

    def read(prompt: str) -> str | None:
        line = next(lines, None)
        if line is None:
            done.wait(30)
        return line

    config = Config.from_dict({"grbl": {"url": "sim://online"}, "sensors": {"url": "sim://online"}})
    said: list[dict[str, Any]] = []
    said_aside: list[str] = []  # (what the keyboard player writes: the game's words, not this area's)
    with FakeLichess() as fake:
        fake.add_user("Ann", ANN)
        fake.script = Script(propose_takeback_at=4, offer_draw_at=6, accepts_takeback=True, accepts_draw=True)
        with (
            LichessClient(fake.url, ANN, sleep=lambda s: None) as client,
            Session(
                config,
                games_dir=tmp_path / "games",
                speed=None,
                keyboard=KeyboardPlayer(read, said_aside.append),
            ) as session,
        ):

            def emit(event: dict[str, Any]) -> None:
                said.append(event)
                session.emit(event)

            waits = Waits(game_s=10.0, challenge_s=20.0)
            table = OnlineTable(session, client, PlayerSpec.parse("keyboard"), emit=emit, waits=waits)
            record = table.play(table.start(OnlineRequest(ai=1, color="white")))
        done.set()
    assert (record.result, record.termination) == ("1/2-1/2", "agreed draw")
    texts = [str(event["message"]) for event in said if event["event"] in ("notice", "warning")]
    texts += [line for event in said if event["event"] == "online" and (line := online_line(event))]
    assert len(texts) >= 5, texts
    texts += [ending_text(ServerState(status=status)) for status in ("aborted", "noStart", "cheat")]
    leaks = {text: escaped(text, {"https", "lichess", "org", "draw", "takeback", "cheat"}) for text in texts}
    assert not {text: words for text, words in leaks.items() if words}, leaks


def test_the_eboards_status_line_speaks_the_pseudo_language(tmp_path: Path) -> None:
    said: list[dict[str, Any]] = []
    with using(PSEUDO), Session(Config.default(), games_dir=tmp_path / "games", speed=None) as session:
        statuses: list[str] = []
        session.live.listen(
            lambda version: statuses.append(
                ""
                if session.live.snapshot().get("status_kind") == "idle"
                else str(session.live.snapshot().get("status") or "")
            )
        )
        table = EboardTable(
            session, Seats.of(None, None), protocol_name="cpp", transport="ble", where="cpp", emit=said.append
        )
        session.stop_requested.set()  # (each wait gives up at once)
        with pytest.raises(KeyboardInterrupt):
            table._wait_for_the_app()
        assert AppMover(table, chess.BLACK).choose(chess.Board()) is None
        table.app_message("Hello")
        table.app_end("resign")
    shown = [status for status in statuses if status] + [str(e["message"]) for e in said]
    assert len(shown) == 4, shown
    leaks = {text: escaped(text, {"Hello", "resign"}) for text in shown}
    assert not {text: words for text, words in leaks.items() if words}, leaks
