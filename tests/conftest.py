"""Shared fixtures: the default layout and the engine games in ../shared/games."""

from __future__ import annotations

from pathlib import Path

import chess.pgn
import pytest

from chessatron.layout import Layout

GAMES_DIR = Path(__file__).resolve().parents[2] / "shared" / "games"


def shared_games() -> list[tuple[str, chess.pgn.Game]]:
    """Every game of every PGN in ../shared/games, named ``file#n``."""
    if not GAMES_DIR.is_dir():
        raise FileNotFoundError(f"the shared engine games are missing: {GAMES_DIR}")
    games = []
    for path in sorted(GAMES_DIR.glob("*.pgn")):
        with path.open(encoding="utf-8") as handle:
            n = 0
            while (game := chess.pgn.read_game(handle)) is not None:
                n += 1
                games.append((f"{path.stem}#{n}", game))
    return games


@pytest.fixture(scope="session")
def layout() -> Layout:
    return Layout.default()
