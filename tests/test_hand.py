"""The simulated hand: trace files, whole games by calm and human hands, and every behaviour when forced."""

from __future__ import annotations

import io
import random
from dataclasses import replace
from pathlib import Path

import chess
import chess.pgn
import pytest

from chessatron.errors import ConfigError, GameFileError, IllegalMoveError, StateError
from chessatron.planning.layout import Cell, Layout
from chessatron.planning.table import Table
from chessatron.sim.hand import SimulatedHand, displacement_is_decidable
from chessatron.sim.hand_style import BEHAVIOURS, CATALOGUE, Behaviour, HandStyle, IllegalKind
from chessatron.sim.scenario import (
    GeneratedTrace,
    Scenario,
    trace_for_moves,
)
from chessatron.sim.trace import (
    KnownMove,
    PromotionChoice,
    Snapshot,
    TableSnapshot,
    TraceEntry,
    bits_board,
    board_bits,
    cell_name,
    parse_cell_name,
    read_trace,
    write_trace,
)
from chessatron.sim.world import SimWorld

from .conftest import GAMES_DIR

SQ = chess.parse_square


def games(name: str) -> list[chess.pgn.Game]:
    found = []
    with (GAMES_DIR / name).open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            found.append(game)
    return found


def ucis(*moves: str) -> list[chess.Move]:
    return [chess.Move.from_uci(m) for m in moves]


def play(
    moves: list[chess.Move],
    style: HandStyle,
    layout: Layout,
    *,
    seed: int = 1,
    fen: str = chess.STARTING_FEN,
    table_trace: bool = False,
) -> GeneratedTrace:
    return trace_for_moves(
        chess.Board(fen), moves, rng=random.Random(seed), style=style, layout=layout, table_trace=table_trace
    )


def snaps(result: GeneratedTrace) -> list[Snapshot]:
    return [e for e in result.entries if isinstance(e, Snapshot)]


def tables(result: GeneratedTrace) -> list[TableSnapshot]:
    return [e for e in result.entries if isinstance(e, TableSnapshot)]


def last_board(result: GeneratedTrace, layout: Layout) -> int:
    """The board occupancy of the last scan, whichever kind of scan the trace holds."""
    last = [e for e in result.entries if isinstance(e, Snapshot | TableSnapshot)][-1]
    return board_bits(last.cells, layout) if isinstance(last, TableSnapshot) else last.occupied


def shows(snapshot: Snapshot, square: str) -> bool:
    return bool(snapshot.occupied & chess.BB_SQUARES[SQ(square)])


def first(result: GeneratedTrace, square: str, occupied: bool, after: float = 0.0) -> float:
    """The first scan at or after ``after`` that shows ``square`` occupied (or empty)."""
    return next(s.t for s in snaps(result) if s.t >= after and shows(s, square) == occupied)


def during(result: GeneratedTrace, ply: int) -> list[Snapshot]:
    truth = result.plies[ply]
    return [s for s in snaps(result) if truth.start_t <= s.t <= truth.last_change_t + 0.1]


def blips(result: GeneratedTrace) -> list[float]:
    """Scans that differ from both neighbours, which agree, in exactly one square."""
    bits = [s.occupied for s in snaps(result)]
    times = [s.t for s in snaps(result)]
    return [
        times[k]
        for k in range(1, len(bits) - 1)
        if bits[k - 1] == bits[k + 1] and (bits[k] ^ bits[k - 1]).bit_count() == 1
    ]


# --- the trace format ------------------------------------------------------------------------------


def test_a_trace_round_trips_through_json_lines_byte_exactly(tmp_path: Path, layout: Layout) -> None:
    generated = play(ucis("e2e4", "d7d5", "e4d5"), HandStyle.human(), layout, seed=4, table_trace=True)
    entries: list[TraceEntry] = [
        Snapshot(0.0, chess.BB_ALL),
        Snapshot(0.02, 0),
        PromotionChoice(0.1 + 0.2, "n"),
        TableSnapshot(0.3000001, frozenset({(0, 9), (11, 0), (2, 1)})),
        TableSnapshot(1e-3 + 7, frozenset()),
        KnownMove(7.5, chess.Move.from_uci("e7e8q")),
        *generated.entries,
    ]
    entries = sorted(entries, key=lambda e: e.t)
    path = tmp_path / "game.jsonl"
    write_trace(path, entries)
    first_bytes = path.read_bytes()
    assert read_trace(path) == entries
    write_trace(path, read_trace(path))
    assert path.read_bytes() == first_bytes
    stream = io.StringIO()
    write_trace(stream, entries)
    assert stream.getvalue().encode("utf-8") == first_bytes
    assert first_bytes.splitlines()[0] == b'{"t": 0.0, "occupied": "0xffffffffffffffff"}'
    assert b'{"t": 0.30000000000000004, "promote": "n"}' in first_bytes
    assert b'{"t": 0.3000001, "cells": ["c0r9", "c2r1", "c11r0"]}' in first_bytes
    assert b'{"t": 7.5, "move": "e7e8q"}' in first_bytes


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ('{"t": 0.1, "occupied": ', "not valid JSON"),
        ('[0.1, "0x0000000000000000"]', "JSON object"),
        ('{"occupied": "0x0000000000000000"}', "needs 't'"),
        ('{"t": 0.1}', "needs 't'"),
        ('{"t": 0.1, "occupied": "0x0000000000000000", "promote": "q"}', "exactly one"),
        ('{"t": 0.1, "occupied": "0x0000000000000000", "who": 1}', "unknown keys"),
        ('{"t": 0.1, "occupied": "0x000000000000000"}', "16 hex digits"),
        ('{"t": 0.1, "occupied": "0x00000000000000000"}', "16 hex digits"),
        ('{"t": 0.1, "occupied": "ffffffffffffffff"}', "16 hex digits"),
        ('{"t": 0.1, "occupied": 65535}', "16 hex digits"),
        ('{"t": -0.1, "occupied": "0x0000000000000000"}', "time"),
        ('{"t": NaN, "occupied": "0x0000000000000000"}', "time"),
        ('{"t": "1", "occupied": "0x0000000000000000"}', "time"),
        ('{"t": 0.0, "occupied": "0x0000000000000000"}', "earlier"),
        ('{"t": 0.1, "promote": "k"}', "promotion piece"),
        ('{"t": 0.1, "promote": "Q"}', "promotion piece"),
        ('{"t": 0.1, "cells": ["c0r9", "a1"]}', "cell name"),
        ('{"t": 0.1, "cells": "c0r9"}', "list of names"),
        ('{"t": 0.1, "cells": ["c0r9", "c0r9"]}', "twice"),
        ('{"t": 0.1, "move": "e2"}', "UCI move"),
        ('{"t": 0.1, "move": 42}', "UCI move"),
    ],
)
def test_read_trace_rejects_a_malformed_line_naming_it(bad: str, why: str) -> None:
    text = '{"t": 0.05, "occupied": "0xffff00000000ffff"}\n' + bad + "\n"
    with pytest.raises(GameFileError, match=f"trace line 2: .*{why}"):
        read_trace(io.StringIO(text))


def test_read_trace_skips_blank_lines_and_accepts_equal_times() -> None:
    text = '{"t": 1.0, "occupied": "0xFFFF00000000FFFF"}\n\n{"t": 1.0, "promote": "b"}\n'
    assert read_trace(io.StringIO(text)) == [Snapshot(1.0, 0xFFFF00000000FFFF), PromotionChoice(1.0, "b")]


def test_board_bits_and_bits_board_translate_cells_and_squares(layout: Layout) -> None:
    cells = [layout.square_cell(chess.A1), layout.square_cell(chess.H8), (0, 9), (11, 0)]
    assert board_bits(cells, layout) == chess.BB_A1 | chess.BB_H8
    assert bits_board(chess.BB_A1 | chess.BB_H8) == {chess.A1, chess.H8}
    assert board_bits((layout.square_cell(s) for s in chess.SQUARES), layout) == chess.BB_ALL
    assert parse_cell_name(cell_name((11, 9))) == (11, 9)
    with pytest.raises(GameFileError, match="64 squares"):
        bits_board(1 << 64)
    with pytest.raises(GameFileError, match="64 squares"):
        Snapshot(0.0, -1)


# --- whole games -----------------------------------------------------------------------------------


def test_a_calm_game_ends_with_the_occupancy_of_the_final_position(layout: Layout) -> None:
    game = games("engine-standard.pgn")[0]
    moves = list(game.mainline_moves())
    result = trace_for_moves(game.board(), moves, rng=random.Random(7), style=HandStyle.calm(), layout=layout)
    final = game.end().board()
    assert snaps(result)[-1].occupied == final.occupied
    assert result.moves == tuple(moves) and result.board().fen() == final.fen()
    assert [p.san for p in result.plies] == [p.san() for p in game.mainline()]
    # calm: every ply starts from the position before it, with no noise and no slides
    board = game.board()
    by_time = {s.t: s.occupied for s in snaps(result)}
    for ply, move in zip(result.plies, moves, strict=True):
        before = max(t for t in by_time if t <= ply.start_t)
        assert by_time[before] == board.occupied, ply.san
        board.push(move)
    assert not blips(result)
    assert all("slide" not in p.behaviours for p in result.plies)
    # 44... h1=Q: the calm player answers the prompt
    assert [e.piece for e in result.entries if isinstance(e, PromotionChoice)] == ["q"]


@pytest.mark.parametrize("pgn", ["engine-standard.pgn", "engine-chess960.pgn"])
def test_human_hands_play_every_shared_game_to_its_final_position(layout: Layout, pgn: str) -> None:
    for seed, game in enumerate(games(pgn)):
        moves = list(game.mainline_moves())
        table_trace = seed % 2 == 1
        result = trace_for_moves(
            game.board(),
            moves,
            rng=random.Random(seed),
            style=HandStyle.human(),
            layout=layout,
            table_trace=table_trace,
        )
        assert last_board(result, layout) == game.end().board().occupied, (pgn, seed)
        starts = [p.start_t for p in result.plies]
        assert starts == sorted(starts) and all(p.last_change_t > p.start_t for p in result.plies)
        times = [e.t for e in result.entries]
        assert times == sorted(times)


def test_the_same_seed_gives_the_same_trace(layout: Layout) -> None:
    moves = ucis("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6", "e1g1")
    one, two = (play(moves, HandStyle.human(), layout, seed=11) for _ in range(2))
    assert one == two
    assert play(moves, HandStyle.human(), layout, seed=12).entries != one.entries


def test_hand_style_presets_and_validation() -> None:
    assert HandStyle.calm().slide == 0 and HandStyle.calm().flicker == 0
    assert HandStyle.human().slide > 0 and HandStyle.human().displacement > 0
    for behaviour in BEHAVIOURS:
        assert HandStyle.only(behaviour).weight(behaviour) > 0
    assert HandStyle.only("pause").slide == 1.0
    with pytest.raises(ConfigError, match="unknown behaviour"):
        HandStyle.only("juggle")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="lift_s"):
        HandStyle(lift_s=(0.3, 0.1))
    with pytest.raises(ConfigError, match="probability"):
        HandStyle(slide=1.5)
    with pytest.raises(ConfigError, match="castling weights"):
        HandStyle(castle_king_first=0.0)
    with pytest.raises(ConfigError, match="default_promotion"):
        HandStyle(default_promotion="k")


# --- behaviours, one at a time ---------------------------------------------------------------------

EXD5 = ucis("e2e4", "d7d5", "e4d5")


def test_displacement_never_leaves_the_target_empty(layout: Layout) -> None:
    result = play(EXD5, HandStyle.only("displacement"), layout)
    assert result.plies[2].behaviours == ("displacement",)
    after_d5 = result.plies[1].last_change_t
    assert all(shows(s, "d5") for s in snaps(result) if s.t >= after_d5)
    assert not shows(snaps(result)[-1], "e4")
    # the victim first, by contrast, leaves d5 empty for a while
    calm = play(EXD5, HandStyle.calm(), layout)
    assert calm.plies[2].behaviours == ("capture-victim-first",)
    victim_off = first(calm, "d5", False, calm.plies[2].start_t)
    assert victim_off < first(calm, "e4", False, victim_off) < first(calm, "d5", True, victim_off)


def test_mover_first_lifts_the_mover_before_the_victim(layout: Layout) -> None:
    result = play(EXD5, HandStyle.only("capture-mover-first"), layout)
    start = result.plies[2].start_t
    mover_up, victim_up = first(result, "e4", False, start), first(result, "d5", False, start)
    assert mover_up < victim_up < first(result, "d5", True, victim_up)


def test_mover_first_after_a_slide_leaves_the_victim_square_empty_long_enough_to_sense(
    layout: Layout,
) -> None:
    # the rook slides a1-a2-a3 and takes on a4: the pawn must be cleared before the rook comes down,
    # or the scans (every 20 ms) would see no gap and the capture would read as a displacement
    style = replace(HandStyle.only("capture-mover-first"), slide=1.0)
    for seed in range(5):
        result = play(ucis("a1a4"), style, layout, seed=seed, fen="4k3/8/8/8/p7/8/8/R3K3 w - - 0 1")
        assert "slide" in result.plies[0].behaviours
        empty = [s.t for s in snaps(result) if not shows(s, "a4")]
        assert len(empty) >= 3  # past a 30 ms debounce at 20 ms scans


def test_displacement_happens_even_where_occupancy_cannot_tell_the_victim(layout: Layout) -> None:
    # the pawn on d4 can take on c5 or e5: pushed off, either victim leaves the same board behind; people
    # do it all the same, and only what follows (or the player, asked) can tell which it was
    fen = "4k3/8/8/2p1p3/3P4/8/8/4K3 w - - 0 1"
    result = play(ucis("d4e5"), HandStyle.only("displacement"), layout, fen=fen)
    assert result.plies[0].behaviours == ("displacement",)
    assert all(shows(s, "e5") and shows(s, "c5") for s in snaps(result))
    assert displacement_is_decidable(chess.Board(fen), chess.Move.from_uci("d4e5")) is False
    assert displacement_is_decidable(chess.Board(), chess.Move.from_uci("e2e4")) is False
    single = chess.Board("4k3/8/8/4p3/3P4/8/8/4K3 w - - 0 1")
    assert displacement_is_decidable(single, chess.Move.from_uci("d4e5"))


def test_captured_pieces_go_to_their_colours_zone(layout: Layout) -> None:
    result = play(EXD5, HandStyle.calm(), layout, table_trace=True)
    before, after = tables(result)[0].cells, tables(result)[-1].cells
    assert after - before == {layout.square_cell(SQ("d5"))} | {layout.capture_cells[chess.BLACK][0]}
    assert before - after == {layout.square_cell(s) for s in (SQ("e2"), SQ("d7"))}


CASTLE = ucis("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1")


def test_rook_first_castling_fills_f1_before_e1_empties(layout: Layout) -> None:
    result = play(CASTLE, HandStyle.only("castle-rook-first"), layout)
    assert "castle-rook-first" in result.plies[6].behaviours
    start = result.plies[6].start_t
    assert first(result, "f1", True, start) < first(result, "e1", False, start)
    calm = play(CASTLE, HandStyle.calm(), layout)
    start = calm.plies[6].start_t
    assert first(calm, "g1", True, start) < first(calm, "h1", False, start)


@pytest.mark.parametrize(
    ("behaviour", "down_first"),
    [("castle-both-king-down-first", "g1"), ("castle-both-rook-down-first", "f1")],
)
def test_castling_with_both_in_hand_empties_both_squares_at_once(
    layout: Layout, behaviour: Behaviour, down_first: str
) -> None:
    result = play(CASTLE, HandStyle.only(behaviour), layout)
    assert behaviour in result.plies[6].behaviours
    assert any(not any(shows(s, sq) for sq in ("e1", "f1", "g1", "h1")) for s in during(result, 6)), (
        "king and rook should be in the air together"
    )
    other = "f1" if down_first == "g1" else "g1"
    start = result.plies[6].start_t
    assert first(result, down_first, True, start) < first(result, other, True, start)
    assert snaps(result)[-1].occupied == result.board().occupied


def test_chess960_castling_onto_each_others_squares_lifts_both(layout: Layout) -> None:
    # king f1, rook g1: each lands where the other stands, so whichever goes first, both are lifted
    board = chess.Board("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", chess960=True)
    forced: list[tuple[Behaviour, Behaviour]] = [
        ("castle-king-first", "castle-both-king-down-first"),
        ("castle-rook-first", "castle-both-rook-down-first"),
    ]
    for behaviour, used in forced:
        hand = SimulatedHand(random.Random(2), HandStyle.only(behaviour), layout=layout)
        step = hand.play(board, chess.Move.from_uci("f1g1"), 0.0)
        assert used in step.behaviours
        assert hand.table is not None and hand.table.board_fen() == "4k3/8/8/8/8/8/8/5RK1"
    # castling where the king stays: only the rook moves
    board = chess.Board("4k3/8/8/8/8/8/8/1RK5 w B - 0 1", chess960=True)
    hand = SimulatedHand(random.Random(2), HandStyle.only("castle-rook-first"), layout=layout)
    step = hand.play(board, chess.Move.from_uci("c1b1"), 0.0)
    assert [(a.kind, a.piece_symbol) for a in step.actions] == [("lift", "R"), ("place", "R")]
    assert step.behaviours == ()


def test_a_slide_is_seen_on_the_intermediate_squares(layout: Layout) -> None:
    moves = ucis("e2e4", "e7e5", "d1h5")
    result = play(moves, HandStyle.only("slide"), layout)
    assert any(shows(s, "e3") for s in during(result, 0))
    assert all(any(shows(s, sq) for s in during(result, 2)) for sq in ("f3", "g4"))
    calm = play(moves, HandStyle.calm(), layout)
    assert not any(shows(s, "e3") for s in snaps(calm))


def test_a_paused_slide_rests_on_a_legal_intermediate_square(layout: Layout) -> None:
    result = play(ucis("e2e4", "e7e5", "d1h5"), HandStyle.only("pause"), layout, seed=3)
    assert result.plies[2].behaviours == ("slide", "pause")
    longest = max(
        sum(1 for s in during(result, 2) if shows(s, sq)) for sq in ("e2", "f3", "g4")
    )  # scans of 20 ms
    assert longest >= 5


def test_flicker_makes_single_scan_blips(layout: Layout) -> None:
    result = play(ucis("e2e4", "e7e5"), HandStyle.only("flicker"), layout)
    assert blips(result)
    assert any("flicker" in p.behaviours for p in result.plies)


def refilled(window: list[Snapshot]) -> set[chess.Square]:
    """Squares seen occupied, then empty, then occupied again."""
    found = set()
    for square in chess.SQUARES:
        seen = [bool(s.occupied & chess.BB_SQUARES[square]) for s in window]
        runs = [on for i, on in enumerate(seen) if i == 0 or seen[i - 1] != on]
        if any(runs[i : i + 3] == [True, False, True] for i in range(len(runs))):
            found.add(square)
    return found


@pytest.mark.parametrize("behaviour", ["nudge-before", "nudge-after", "touch"])
def test_nudges_and_touches_lift_and_put_back_a_piece(layout: Layout, behaviour: Behaviour) -> None:
    moves = ucis("e2e4", "e7e5", "g1f3")
    for seed in range(4):
        result = play(moves, HandStyle.only(behaviour), layout, seed=seed)
        assert behaviour in result.plies[2].behaviours
        assert refilled(during(result, 2)), "a piece should be lifted and put back"
        assert snaps(result)[-1].occupied == result.board().occupied
    assert not refilled(during(play(moves, HandStyle.calm(), layout), 2))


def test_a_hesitation_pauses_between_actions_from_50_ms_to_seconds(layout: Layout) -> None:
    moves = ucis("e2e4", "e7e5", "g1f3")
    calm = play(moves, HandStyle.calm(), layout)
    hesitant = play(moves, replace(HandStyle.only("hesitate"), hesitate_s=(2.0, 2.0)), layout)
    assert all("hesitate" in ply.behaviours for ply in hesitant.plies)
    # every action waits two seconds more: each ply takes far longer than a calm one
    for slow, quick in zip(hesitant.plies, calm.plies, strict=True):
        assert slow.last_change_t - slow.start_t > quick.last_change_t - quick.start_t + 2.0


def test_a_nudge_during_the_move_happens_with_the_mover_in_the_air(layout: Layout) -> None:
    moves = ucis("e2e4", "e7e5", "g1f3")
    for seed in range(4):
        result = play(moves, HandStyle.only("nudge-during"), layout, seed=seed)
        assert "nudge-during" in result.plies[2].behaviours
        start = result.plies[2].start_t
        up, down = first(result, "g1", False, start), first(result, "f3", True, start)
        window = [s for s in snaps(result) if up <= s.t < down]
        assert refilled(window), "a piece near f3 should be lifted and put back while the knight is in hand"


def test_a_misplaced_piece_rests_on_a_square_next_to_its_target_then_moves_on(layout: Layout) -> None:
    moves = ucis("e2e4", "e7e5", "g1f3")
    result = play(moves, HandStyle.only("misplace"), layout)
    assert "misplace" in result.plies[2].behaviours
    start = result.plies[2].start_t
    f3 = SQ("f3")
    near = [s for s in chess.SQUARES if chess.square_distance(s, f3) == 1]
    visited = [
        s
        for s in near
        if any(shows(snap, chess.square_name(s)) for snap in during(result, 2) if snap.t > start)
        and not (chess.Board().occupied & chess.BB_SQUARES[s])
    ]
    assert visited, "the knight should first be set on an empty square next to f3"
    assert snaps(result)[-1].occupied == result.board().occupied


def test_bounce_reads_a_changed_square_back_for_one_scan(layout: Layout) -> None:
    moves = ucis("e2e4", "e7e5")
    result = play(moves, HandStyle.only("bounce"), layout)
    assert all("bounce" in ply.behaviours for ply in result.plies)
    # a square that changes reads its old state once more at the next scan, then the new one again
    assert len(blips(result)) >= 4  # each ply lifts and places at least once
    assert not blips(play(moves, HandStyle.calm(), layout))
    assert snaps(result)[-1].occupied == result.board().occupied


def test_every_behaviour_of_the_catalogue_can_be_forced_and_is_described() -> None:
    assert set(CATALOGUE) == set(BEHAVIOURS)
    for behaviour in BEHAVIOURS:
        assert HandStyle.only(behaviour).weight(behaviour) > 0 and CATALOGUE[behaviour]


EN_PASSANT = ucis("e2e4", "a7a6", "e4e5", "d7d5", "e5d6")


@pytest.mark.parametrize(
    ("behaviour", "order"),
    [
        ("ep-victim-before", ["d5-", "e5-", "d6+"]),
        ("ep-victim-between", ["e5-", "d5-", "d6+"]),
        ("ep-victim-after", ["e5-", "d6+", "d5-"]),
    ],
)
def test_en_passant_in_every_order(layout: Layout, behaviour: Behaviour, order: list[str]) -> None:
    result = play(EN_PASSANT, HandStyle.only(behaviour), layout)
    assert result.plies[4].behaviours == (behaviour,)
    start = result.plies[4].start_t
    times = [first(result, event[:2], event[2] == "+", start) for event in order]
    assert times == sorted(times) and len(set(times)) == 3
    assert snaps(result)[-1].occupied == result.board().occupied


PROMOTE = "8/P6k/8/8/8/8/8/K7 w - - 0 1"


@pytest.mark.parametrize("piece", ["q", "n"])
def test_a_promotion_piece_taken_from_the_reserve_empties_its_slot(layout: Layout, piece: str) -> None:
    result = play(
        ucis(f"a7a8{piece}"), HandStyle.only("promote-reserve"), layout, fen=PROMOTE, table_trace=True
    )
    assert result.plies[0].behaviours == ("promote-reserve",)
    assert not [e for e in result.entries if isinstance(e, PromotionChoice)]
    slots = [slot.cell for slot in layout.reserve if slot.symbol == piece.upper()]
    before, after = tables(result)[0].cells, tables(result)[-1].cells
    assert set(slots) & (before - after)
    assert layout.square_cell(chess.A8) in after and layout.square_cell(chess.A7) not in after


def test_an_under_promotion_the_sensors_cannot_see_is_chosen_at_the_prompt(layout: Layout) -> None:
    for behaviour in ("promote-reserve", "promote-default"):
        result = play(ucis("a7a8n"), HandStyle.only(behaviour), layout, fen=PROMOTE)
        assert result.plies[0].behaviours == ("promote-prompt",)
        assert next(e for e in result.entries if isinstance(e, PromotionChoice)).piece == "n"


def test_promotion_at_a_prompt_and_by_default(layout: Layout) -> None:
    prompt = play(ucis("a7a8r"), HandStyle.only("promote-prompt"), layout, fen=PROMOTE)
    choice = [e for e in prompt.entries if isinstance(e, PromotionChoice)]
    assert [c.piece for c in choice] == ["r"] and choice[0].t >= prompt.plies[0].last_change_t - 1e-9
    default = play(ucis("a7a8q"), HandStyle.only("promote-default"), layout, fen=PROMOTE)
    assert default.plies[0].behaviours == ("promote-default",)
    assert not [e for e in default.entries if isinstance(e, PromotionChoice)]
    assert snaps(default)[-1].occupied == chess.BB_A8 | chess.BB_H7 | chess.BB_A1


@pytest.mark.parametrize("capture", ["capture-victim-first", "capture-mover-first", "displacement"])
def test_a_capture_promotion_sends_both_pieces_to_their_zones(layout: Layout, capture: Behaviour) -> None:
    style = HandStyle.only(capture)
    result = play(ucis("a7b8q"), style, layout, fen="1r5k/P7/8/8/8/8/8/K7 w - - 0 1", table_trace=True)
    assert capture in result.plies[0].behaviours
    after = tables(result)[-1].cells
    assert board_bits(after, layout) == chess.BB_B8 | chess.BB_H8 | chess.BB_A1
    assert layout.capture_cells[chess.BLACK][0] in after and layout.capture_cells[chess.WHITE][0] in after
    hand = SimulatedHand(random.Random(1), style, layout=layout)
    step = hand.play(chess.Board("1r5k/P7/8/8/8/8/8/K7 w - - 0 1"), chess.Move.from_uci("a7b8q"), 0.0)
    on_b8 = [(a.kind, a.piece_symbol) for a in step.actions if a.cell == layout.square_cell(chess.B8)]
    first_lift = next(a.cell for a in step.actions if a.kind == "lift")
    if capture == "displacement":  # the pawn arrives and pushes the rook off: b8 never reads empty then
        assert on_b8[:2] == [("place", "P"), ("lift", "r")]
    else:
        assert on_b8[:2] == [("lift", "r"), ("place", "P")]
        assert first_lift == layout.square_cell(chess.B8 if capture == "capture-victim-first" else chess.A7)


def test_a_quick_reply_starts_inside_the_settle_window(layout: Layout) -> None:
    result = play(ucis("e2e4", "e7e5", "g1f3"), HandStyle.only("quick-reply"), layout)
    assert [p.behaviours for p in result.plies] == [(), ("quick-reply",), ("quick-reply",)]
    for before, ply in zip(result.plies, result.plies[1:], strict=False):
        changes = [
            s.t for a, s in zip(snaps(result), snaps(result)[1:], strict=False) if a.occupied != s.occupied
        ]
        first_change = min(t for t in changes if t > before.last_change_t + 1e-9)
        assert first_change - before.last_change_t < 0.35
        assert ply.start_t < before.last_change_t + 0.35


# --- takebacks, illegal actions and a new game -----------------------------------------------------


@pytest.mark.parametrize("plies", [1, 2])
def test_a_takeback_puts_pieces_back_and_returns_captured_ones(layout: Layout, plies: int) -> None:
    result = trace_for_moves(
        chess.Board(),
        EXD5,
        rng=random.Random(5),
        style=HandStyle.human(),
        layout=layout,
        table_trace=True,
        then=lambda scenario: scenario.take_back(plies),
    )
    expected = chess.Board()
    for move in EXD5[: 3 - plies]:
        expected.push(move)
    assert result.moves == tuple(EXD5[: 3 - plies])
    assert [p.kind for p in result.plies] == ["move"] * 3 + ["takeback"] * plies
    assert result.plies[3].move == EXD5[2]
    first_cells, last_cells = tables(result)[0].cells, tables(result)[-1].cells
    assert board_bits(last_cells, layout) == expected.occupied
    assert last_cells - set(layout.board_cells()) == first_cells - set(layout.board_cells())
    with pytest.raises(IllegalMoveError, match="cannot take back 4 plies"):
        trace_for_moves(
            chess.Board(),
            EXD5,
            rng=random.Random(5),
            style=HandStyle.calm(),
            layout=layout,
            then=lambda scenario: scenario.take_back(4),
        )


@pytest.mark.parametrize("kind", ["wrong-square", "wrong-side", "knocked-over"])
def test_an_illegal_action_is_held_and_set_right(layout: Layout, kind: IllegalKind) -> None:
    moves = ucis("e2e4", "e7e5", "g1f3")
    result = trace_for_moves(
        chess.Board(),
        moves,
        rng=random.Random(9),
        style=HandStyle.calm(),
        layout=layout,
        then=lambda scenario: scenario.illegal(kind, (1.0, 3.0)),
    )
    board = result.board()
    assert result.moves == tuple(moves) and result.plies[-1].kind == "illegal"
    assert snaps(result)[-1].occupied == board.occupied
    legal = {board.occupied} | {_after(board, m) for m in board.legal_moves}
    if kind == "wrong-side":
        board.turn = not board.turn
        legal = {board.occupied}
    wrong = [s for s in snaps(result) if s.t >= result.plies[-1].start_t and s.occupied not in legal]
    held = [s for s in wrong if s.occupied == wrong[len(wrong) // 2].occupied]
    assert len(held) * 0.02 >= 0.9, "the illegal position should stand for a while"
    if kind == "knocked-over":
        assert any((board.occupied & ~s.occupied).bit_count() >= 2 for s in wrong)


def _after(board: chess.Board, move: chess.Move) -> int:
    copy = board.copy(stack=False)
    copy.push(move)
    return int(copy.occupied)


def test_a_new_game_restores_the_start_arrangement_spares_included(layout: Layout) -> None:
    game = games("engine-standard.pgn")[0]  # black promotes: a spare queen comes out of the reserve
    result = trace_for_moves(
        game.board(),
        list(game.mainline_moves()),
        rng=random.Random(3),
        style=HandStyle.human(),
        layout=layout,
        table_trace=True,
        then=Scenario.new_game,
    )
    start = Table.from_board(layout, chess.Board())
    start_cells = {layout.node_cell(node) for node in start.occupied_nodes()}
    assert tables(result)[-1].cells == start_cells == tables(result)[0].cells
    assert result.moves == () and result.plies[-1].kind == "new-game"
    assert result.board().fen() == chess.STARTING_FEN


def test_a_scenario_strings_steps_together(layout: Layout) -> None:
    scenario = Scenario(chess.Board(), rng=random.Random(8), style=HandStyle.human(), layout=layout)
    scenario.play(EXD5)
    scenario.take_back(1)
    scenario.illegal("knocked-over")
    scenario.play(ucis("g1f3"))
    result = scenario.trace()
    assert [p.kind for p in result.plies] == ["move"] * 3 + ["takeback", "illegal", "move"]
    assert result.moves == (*EXD5[:2], chess.Move.from_uci("g1f3"))
    assert snaps(result)[-1].occupied == result.board().occupied


# --- the hand on its own and in a simulated world --------------------------------------------------


def _cell(layout: Layout, square: str) -> Cell:
    return layout.square_cell(SQ(square))


def test_perform_moves_the_pieces_of_a_simulated_world(layout: Layout) -> None:
    world = SimWorld(layout)
    hand = SimulatedHand(random.Random(4), HandStyle.human(), layout=layout)
    board = chess.Board()
    before = world.occupied_cells()
    actions = hand.actions(board, chess.Move.from_uci("e2e4"), 0.0)
    hand.perform(world, actions)
    board.push_uci("e2e4")
    assert world.occupied_cells() == (before - {_cell(layout, "e2")}) | {_cell(layout, "e4")}
    t = actions[-1].t + 1.0
    for uci in ("d7d5", "e4d5"):
        slept: list[float] = []
        actions = hand.actions(board, chess.Move.from_uci(uci), t)
        hand.perform(world, actions, realtime=True, sleep=slept.append)
        assert sum(slept) == pytest.approx(actions[-1].t - actions[0].t) and all(s > 0 for s in slept)
        board.push_uci(uci)
        t = actions[-1].t + 1.0
    assert hand.table is not None
    expected = {layout.node_cell(node) for node in hand.table.occupied_nodes()}
    assert world.occupied_cells() == expected
    assert layout.capture_cells[chess.BLACK][0] in expected


def test_the_hand_refuses_illegal_moves_and_a_table_that_does_not_match(layout: Layout) -> None:
    hand = SimulatedHand(random.Random(0), HandStyle.calm(), layout=layout)
    with pytest.raises(IllegalMoveError, match="e2e5"):
        hand.actions(chess.Board(), chess.Move.from_uci("e2e5"), 0.0)
    hand.actions(chess.Board(), chess.Move.from_uci("e2e4"), 0.0)
    with pytest.raises(StateError, match="the table shows"):
        hand.actions(chess.Board(), chess.Move.from_uci("d2d4"), 5.0)
