"""Shared fixtures: the default layout, the engine games in tests/data/games (the benchmarks play them
too), and a game runner (with its web page) on the simulator."""

from __future__ import annotations

import os
import pickle
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess.pgn
import pytest
from babel.messages.catalog import Catalog

from chessatron.config import Config
from chessatron.game.runner import GameRunner
from chessatron.game.telling.live import LiveState
from chessatron.i18n import set_language
from chessatron.i18n.extract import template
from chessatron.planning.layout import Layout
from chessatron.web.app import create_app
from chessatron.web.server import ServerHandle, start_in_thread

# The tests read the table's English words: whatever the machine's locale, the programs they start speak
# English unless a test names a language (``--lang``, ``LANGUAGE``).
for _variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_variable, None)
os.environ["LANG"] = "C.UTF-8"


def pytest_configure(config: pytest.Config) -> None:
    """The tests press Ctrl-C at the programs they start (SIGINT, as a terminal sends it). A suite started
    with SIGINT ignored (a background job of a non-interactive shell, ``nohup``) would hand that on to
    every program it starts, which would then never hear the Ctrl-C: give them the terminal's default."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


#: The modules ``make check`` leaves out (``pytest -m "not slow"``; ``make test`` runs everything): each
#: plays whole games, starts programs at a terminal or a browser, or goes through every case of a family
#: (every order of a hand, every Chess960 start). The rest runs in about a minute and a half on two cores.
SLOW_MODULES = frozenset(
    {
        "test_i18n_screens",
        "test_i18n_web",
        "test_calibrate_journey",
        "test_cli_hardware",
        "test_demo_web",
        "test_eboard_journeys",
        "test_files_fuzz",
        "test_games",
        "test_hand",
        "test_journey_ctrl_c",
        "test_journeys_terminal",
        "test_journeys_tools",
        "test_journeys_online",
        "test_journeys_players",
        "test_keyboard_terminal",
        "test_manual_offline",
        "test_motion",
        "test_online_cli",
        "test_online_play",
        "test_play",
        "test_play_buttons",
        "test_play_feedback",
        "test_play_fuzz",
        "test_play_kill",
        "test_play_person",
        "test_play_questions",
        "test_random_games",
        "test_recognition_orders",
        "test_reset",
        "test_tablelock",
        "test_tour",
        "test_training_browser",
        "test_training_terminal",
        "test_voice",
        "test_web_api",
        "test_web_browser",
        "test_web_browser_screens",
        "test_web_truth",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`SLOW_MODULES` ``slow``."""
    for item in items:
        if item.path.stem in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


#: Thirty games Stockfish played itself at weak skill levels (fifteen standard, fifteen Chess960): weak play
#: captures, promotes and castles often, in every geometry. ``bench`` reads the same files.
GAMES_DIR = Path(__file__).resolve().parent / "data" / "games"


def shared_games() -> list[tuple[str, chess.pgn.Game]]:
    """Every game of every PGN in tests/data/games, named ``file#n``."""
    if not GAMES_DIR.is_dir():
        raise FileNotFoundError(f"the engine games are missing: {GAMES_DIR}")
    games = []
    for path in sorted(GAMES_DIR.glob("*.pgn")):
        with path.open(encoding="utf-8") as handle:
            n = 0
            while (game := chess.pgn.read_game(handle)) is not None:
                n += 1
                games.append((f"{path.stem}#{n}", game))
    return games


#: The live state as the web page receives it.
Snapshot = dict[str, Any]


def wait_for(live: LiveState, condition: Callable[[Snapshot], bool], timeout_s: float = 60) -> Snapshot:
    """The table's live state once ``condition`` holds (woken by each change); fails after ``timeout_s``
    naming the status it was left in."""
    deadline = time.monotonic() + timeout_s
    while True:
        snapshot = live.snapshot()
        if condition(snapshot):
            return snapshot
        assert time.monotonic() < deadline, f"gave up waiting; the state is {snapshot['status']!r}"
        live.wait(snapshot["version"], 0.5)


@pytest.fixture(scope="session")
def marked_messages(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """Every message the code marks for translation (chessatron.i18n.extract.template), extracted once for
    all the test workers: Babel reads the whole package, which takes seconds."""
    shared = tmp_path_factory.getbasetemp().parent / "i18n-marked.pickle"
    if shared.exists():
        with shared.open("rb") as handle:
            found: Catalog = pickle.load(handle)
            return found
    found = template()
    partial = shared.with_name(f"{shared.name}.{os.getpid()}")
    with partial.open("wb") as handle:
        pickle.dump(found, handle)
    partial.replace(shared)
    return found


@pytest.fixture(autouse=True)
def _english_after_each_test() -> Iterator[None]:
    """A test that sets the process's language (a command run in-process, a game in the pseudo-language)
    leaves the next test in English."""
    yield
    set_language("en")


@pytest.fixture(autouse=True, scope="session")
def _log_file(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The command's log file (:mod:`chessatron.logs`) goes to a temporary folder, never the user's
    ~/.local/state; subprocesses inherit it."""
    before = os.environ.get("CHESSATRON_LOG")
    os.environ["CHESSATRON_LOG"] = str(tmp_path_factory.mktemp("log") / "chessatron.log")
    yield
    if before is None:
        os.environ.pop("CHESSATRON_LOG", None)
    else:
        os.environ["CHESSATRON_LOG"] = before


@pytest.fixture(scope="session")
def layout() -> Layout:
    return Layout.default()


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[GameRunner]:
    """A runner on the simulator as fast as the host allows, with the default config (never the user's)."""
    with GameRunner(
        Config.default(), games_dir=tmp_path / "games", speed=None, state_path=tmp_path / "sim.json"
    ) as runner:
        yield runner


@pytest.fixture
def served(runner: GameRunner) -> Iterator[ServerHandle]:
    """The web page over :func:`runner`, on this machine, without a token."""
    app = create_app(runner, runner.live, token=None, games_dir=runner.games_dir)
    with start_in_thread(app) as handle:
        yield handle
