"""The Chess Peripheral Protocol board, in process: a CPP app (``CppClient``) plays the robot's side of
whole games while the person plays the other at the table; special moves, new games, set-ups, takebacks,
refusals, Chess960, and every kind of bad input, each followed by a good command that still works."""

from __future__ import annotations

import logging
import random

import chess
import pytest

from chessatron.eboard.core import TableView
from chessatron.eboard.cpp import Cpp
from chessatron.eboard.registry import protocol_class
from tests.eboard_clients.base import FakeTable, InProcessLink, wire
from tests.eboard_clients.cpp import BLICHESS_FEATURES, FEATURES, CppClient


def connected(
    board: chess.Board | None = None,
    *,
    person: chess.Color | None = chess.WHITE,
    features: tuple[str, ...] = FEATURES,
) -> tuple[Cpp, FakeTable, InProcessLink, CppClient]:
    board = board or chess.Board()
    protocol, table, link = wire(Cpp, board)
    assert isinstance(protocol, Cpp)
    client = CppClient(link, board, person=person, features=features)
    client.connect()
    return protocol, table, link, client


def heard(link: InProcessLink) -> list[str]:
    """What the board sent since last asked."""
    out = []
    while (chunk := link.read(0)) is not None:
        out.append(chunk[1].decode())
    return out


def test_registered_with_its_settings() -> None:
    assert protocol_class("cpp") is Cpp
    assert Cpp.transports == ("ble",)
    assert set(Cpp.ble_channels) == {""}


def test_handshake_answers_every_feature_and_variant() -> None:
    _, table, _, client = connected()
    assert client.features >= {
        "get_state",
        "set_state",
        "submove_state",
        "last_move",
        "check",
        "moved",
        "msg",
    }
    assert not client.features & {"resign", "undo_offer", "draw_offer", "time", "score", "option"}
    assert client.variants == {"standard", "chess_960"}
    assert client.synchronized
    assert table.connected == ["CPP app"]


@pytest.mark.parametrize(
    ("chess960", "features"),
    [(None, FEATURES), (None, BLICHESS_FEATURES), (123, FEATURES)],
    ids=["standard", "blichess-features", "chess960"],
)
def test_whole_game_robot_makes_every_app_move(chess960: int | None, features: tuple[str, ...]) -> None:
    """The person plays White at the table (a piece in the air before each move), the app Black."""
    board = chess.Board.from_chess960_pos(chess960) if chess960 is not None else chess.Board()
    board.chess960 = chess960 is not None
    protocol, table, _, client = connected(board, features=features)
    rng = random.Random(38)
    lean = "submove_state" not in features
    for _ in range(44):
        if board.is_game_over():
            break
        move = rng.choice(sorted(board.legal_moves, key=lambda m: m.uci()))
        if board.turn == chess.WHITE:  # the person
            if not lean:
                protocol.report(TableView.of(board, lifted=frozenset({move.from_square})))
                lifted = board.copy()
                lifted.remove_piece_at(move.from_square)
                assert client.board_fen() == lifted.board_fen()
            board.push(move)
            protocol.report(TableView.of(board))
            assert client.board_fen() == board.board_fen()
            assert client.game.board_fen() == board.board_fen()
        else:  # the app: the robot makes it
            client.show_move(board, move)
            assert table.moves[-1] == move
            assert table.lit[-1] == {move.from_square, move.to_square}
            board.push(move)
            protocol.report(TableView.of(board))
            client.clear()
            assert table.lit[-1] == frozenset()
            if not lean:
                assert client.board_fen() == board.board_fen()
    assert not client.rejected and not table.positions and not table.new_games
    assert len(table.moves) == 22
    assert client.moved == (0 if lean else 22)


CASTLE = "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R"


@pytest.mark.parametrize(
    ("fen", "uci", "written"),
    [
        (f"{CASTLE} w KQkq - 0 1", "e1g1", "e1g1"),
        (f"{CASTLE} w KQkq - 0 1", "e1c1", "e1c1"),
        (f"{CASTLE} b KQkq - 0 1", "e8g8", "e8g8"),
        (f"{CASTLE} b KQkq - 0 1", "e8c8", "e8c8"),
        ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "e5f6", "e5f6"),
        ("rnbqkbnr/ppp1pppp/8/8/3pP3/5N2/PPPP1PPP/RNBQKB1R b KQkq e3 0 3", "d4e3", "d4e3"),
        ("8/4P1k1/8/8/8/8/6K1/8 w - - 0 1", "e7e8q", "e7e8q"),
        ("8/6K1/8/8/8/8/1k2p3/8 b - - 0 1", "e2e1n", "e2e1n"),
        (f"960:{CASTLE} w KQkq - 0 1", "e1h1", "e1h1"),  # Chess960: king onto rook
        (f"960:{CASTLE} b KQkq - 0 1", "e8a8", "e8a8"),
        ("960:1r2k1r1/1p4p1/8/8/8/8/1P4P1/1R2K1R1 w KQkq - 0 1", "e1g1", "e1g1"),  # Chess960: king onto rook
        ("960:1r2k1r1/1p4p1/8/8/8/8/1P4P1/1R2K1R1 w KQkq - 0 1", "e1b1", "e1b1"),
        ("960:1r2k1r1/1p4p1/8/8/8/8/1P4P1/1R2K1R1 b KQkq - 0 1", "e8b8", "e8b8"),
    ],
)
@pytest.mark.parametrize("maker", ["person", "app"])
def test_special_moves(fen: str, uci: str, written: str, maker: str) -> None:
    chess960 = fen.startswith("960:")
    board = chess.Board(fen.removeprefix("960:"), chess960=chess960)
    move = board.parse_uci(uci)
    mover = board.turn
    protocol, table, link, client = connected(board, person=mover if maker == "person" else not mover)
    heard(link)
    if maker == "person":
        board.push(move)
        protocol.report(TableView.of(board))
        client.drain()
        assert client.heard[-1] == f"move {written}"
        assert client.game.board_fen() == board.board_fen()
    else:
        client.show_move(board, move)
        assert table.moves[-1] == move
        board.push(move)
        protocol.report(TableView.of(board))
        client.drain()
        assert client.heard[-1] == "moved"
    assert client.board_fen() == board.board_fen()
    assert not client.rejected


def test_begin_start_position_is_a_new_game() -> None:
    board = chess.Board()
    for uci in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(uci)
    protocol, table, link, client = connected(board, person=chess.BLACK)
    assert client.begin(chess.Board()).startswith("unsync_settable ")
    assert table.new_games == [None]
    protocol.report(TableView.of(chess.Board()))
    assert heard(link) == ["sync rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"]


def test_begin_chess960_start_is_a_chess960_game() -> None:
    _, table, _, client = connected()
    start = chess.Board.from_chess960_pos(
        300,
    )
    start.chess960 = True
    client.begin(start)
    assert table.new_games == [300]


def test_begin_other_positions() -> None:
    protocol, table, link, client = connected()
    later = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    assert client.begin(later).startswith("unsync")
    assert table.positions[-1].board_fen() == later.board_fen()
    # the table sets it up piece by piece: state, then sync
    protocol.report(TableView.of(later, lifted=frozenset({chess.C6})))
    protocol.report(TableView.of(later))
    assert heard(link) == [f"state {later.board_fen()}".replace("2n5", "8"), f"sync {later.board_fen()} w"]
    one_on = later.copy()
    one_on.push_uci("f1b5")
    client.begin(one_on)
    assert table.moves[-1] == chess.Move.from_uci("f1b5")


def test_begin_with_full_fen_and_board_only() -> None:
    protocol, _, link, client = connected()
    client.send(f"begin {chess.STARTING_FEN}")
    assert heard(link) == [f"sync {chess.STARTING_BOARD_FEN} w"]
    client.send(f"begin {chess.STARTING_BOARD_FEN}")  # after get_state: no side: taken once the app is quiet
    assert heard(link) == []
    protocol.tick(0.0)
    protocol.tick(1.0)
    assert heard(link) == [f"sync {chess.STARTING_BOARD_FEN} w"]


def test_refused_move_is_put_back() -> None:
    board = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    protocol, table, link, client = connected(board, person=chess.BLACK)  # the app takes only Black's
    before = board.copy()
    board.push_uci("g1f3")
    protocol.report(TableView.of(board))
    client.drain()
    assert client.rejected == ["g1f3"]
    assert table.positions[-1].board_fen() == before.board_fen()
    protocol.report(TableView.of(before))  # the robot put it back
    assert heard(link) == [f"state {before.board_fen()}"]  # the pieces as they stand: no unsync, no moved
    board = before
    board.push_uci("d2d4")
    protocol.report(TableView.of(board))
    assert heard(link)[-1] == "move d2d4"


def test_app_promotes_to_its_piece() -> None:
    board = chess.Board("8/4P1k1/8/8/8/8/6K1/8 w - - 0 1")
    protocol, table, link, client = connected(board)
    board.push_uci("e7e8q")
    protocol.report(TableView.of(board))
    assert heard(link)[-1] == "move e7e8q"
    client.send("promote e7e8n")
    assert table.positions[-1].piece_at(chess.E8) == chess.Piece(chess.KNIGHT, chess.WHITE)


def test_undo_takes_back_and_says_moved() -> None:
    board = chess.Board()
    protocol, table, link, client = connected(board)
    board.push_uci("e2e4")
    protocol.report(TableView.of(board))
    client.drain()
    client.show_move(board, chess.Move.from_uci("c7c5"))
    board.push_uci("c7c5")
    protocol.report(TableView.of(board))
    heard(link)
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    client.send(f"undo {after_e4.board_fen()} b")
    assert table.positions[-1].move_stack == [chess.Move.from_uci("e2e4")]
    board.pop()
    protocol.report(TableView.of(board))
    assert heard(link)[-1] == "moved"


def test_get_state_streams_until_begin_and_end_is_silent() -> None:
    protocol, table, link, client = connected()
    client.send("end resign")
    assert heard(link) == [] and table.lit[-1] == frozenset()
    client.send("get_state")
    assert heard(link) == [f"state {chess.STARTING_BOARD_FEN}"]
    board = chess.Board()
    protocol.report(TableView.of(board, lifted=frozenset({chess.E2})))
    assert heard(link) == [f"state {chess.STARTING_BOARD_FEN.replace('PPPPPPPP', 'PPPP1PPP')}"]
    protocol.report(TableView.of(board))
    heard(link)
    client.begin(board)
    protocol.report(TableView.of(board, lifted=frozenset({chess.E2})))  # in a round: submove state only
    assert heard(link)[-1].startswith("state ")


BAD = {
    "unknown command": [b"hello"],
    "unknown feature": [b"feature teleport"],
    "truncated": [b"mov", b""],
    "parity bits": [bytes(byte | 0x80 for byte in b"variant standard")],
    "control bytes": [b"\x00\x01\x02\x1b[2J"],
    "illegal move": [b"move e2e5"],
    "not a square": [b"move z9z9"],
    "bad fen": [b"begin rnbqkbnr/ppppppppp/8 w"],
    "no kings": [b"begin 8/8/8/8/8/8/8/8 w"],
    "flood": [random.Random(1).randbytes(3000)],
    "chunks of garbage": [b"\xff" * 40] * 50,
    "a move without its argument": [b"move", b""],
}


@pytest.mark.parametrize("chunks", BAD.values(), ids=BAD.keys())
def test_bad_input_then_a_good_command(chunks: list[bytes], caplog: pytest.LogCaptureFixture) -> None:
    protocol, table, link, client = connected()
    heard(link)
    with caplog.at_level(logging.INFO, logger="chessatron.eboard.cpp"):
        for chunk in chunks:
            if chunk:
                link.write(chunk)
            else:  # the app falls quiet
                protocol.tick(10.0)
                protocol.tick(11.0)
    answers = heard(link)
    assert sum(answer.startswith("err") for answer in answers) <= 1  # a flood gets one answer
    assert answers == ["nok"] or any(record.name == "chessatron.eboard.cpp" for record in caplog.records)
    assert not table.moves and not table.positions and not table.new_games
    client.send("variant standard")
    assert heard(link) == ["ok"]
    board = chess.Board()
    client.show_move(board, chess.Move.from_uci("e2e4"))
    assert table.moves == [chess.Move.from_uci("e2e4")]


@pytest.mark.parametrize("command", ["move e2e4", f"begin {chess.STARTING_BOARD_FEN} w", "feature last_move"])
def test_commands_fed_a_byte_at_a_time(command: str) -> None:
    _, table, link, _ = connected(person=chess.BLACK)
    heard(link)
    for byte in command.encode():
        link.write(bytes([byte]))
    if command.startswith("move"):
        assert table.moves == [chess.Move.from_uci("e2e4")]
    else:
        assert len(heard(link)) == 1


@pytest.mark.parametrize("split", range(1, 58))
def test_begin_split_anywhere(split: int) -> None:
    board = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    _, _, link, _ = connected(board)
    heard(link)
    message = f"begin {board.board_fen()} b\n".encode()
    link.write(message[:split])
    link.write(message[split:])
    assert heard(link) == [f"sync {board.board_fen()} b"]
