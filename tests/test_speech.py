"""What the table says aloud: the words of every event, a simulated game whose speaker writes WAV files
and a log, silence where a screen is set, clock warnings, and the config of the speaker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chess
import pytest

from chessatron.config import Config
from chessatron.errors import ChessatronError, ConfigError
from chessatron.feedback.speaker import SimSpeaker, check_speaker_url, open_speaker
from chessatron.game.clock import ChessClock
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.records.record import ClockSettings
from chessatron.game.session import Session
from chessatron.game.telling.speech import SPOKEN_EVENTS, spoken_event, spoken_san
from chessatron.voice.audio import pcm_from_wav

GAME = {
    "white": "voice",
    "black": "engine:3",
    "start_fen": chess.STARTING_FEN,
    "san": ["e4"],
    "turn": "black",
}

#: Every event that has words, and the words a player hears.
SPOKEN: list[tuple[dict[str, Any], str]] = [
    ({"event": "move", "ply": 3, "uci": "g1f3", "san": "Nxf3+", "who": "engine:3"}, "knight takes f3, check"),
    ({"event": "move", "ply": 1, "uci": "e1g1", "san": "O-O", "who": "engine:3"}, "castles kingside"),
    (
        {"event": "move", "ply": 9, "uci": "e7e8q", "san": "exd8=Q#", "who": "voice"},
        "e takes d8 promotes to queen, checkmate",
    ),
    ({"event": "result", "result": "1-0", "termination": "checkmate"}, "White wins by checkmate."),
    ({"event": "result", "result": "0-1", "termination": "resignation"}, "White resigns. Black wins."),
    ({"event": "result", "result": "0-1", "termination": "time forfeit"}, "Black wins on time."),
    ({"event": "result", "result": "1/2-1/2", "termination": "stalemate"}, "Draw by stalemate."),
    ({"event": "result", "result": "1/2-1/2", "termination": "agreed draw"}, "Draw agreed."),
    ({"event": "game", "id": "f1", "fen": chess.STARTING_FEN, "chess960": False}, "New game."),
    (
        {"event": "game", "id": "f1", "fen": chess.Board.from_chess960_pos(100).fen(), "chess960": True},
        "New game: Chess960, start 100.",
    ),
    ({"event": "resumed", "id": "f1", "plies": 1}, "Game resumed: Black to move."),
    ({"event": "hint", "uci": "b8c6", "san": "Nc6"}, "Hint: knight c6."),
    ({"event": "takeback", "plies": 2}, "Took back two moves."),
    ({"event": "takeback", "plies": 1, "by": "hand"}, "Took back one move on the board."),
    ({"event": "notice", "message": "there is no move to take back"}, "There is no move to take back."),
    ({"event": "warning", "message": "homing is off"}, "Warning: Homing is off."),
    ({"event": "error", "message": "the robot stopped: ALARM:1"}, "Stopped: The robot stopped: ALARM:1."),
    (
        {"event": "your-hands", "uci": "g8f6", "san": "Nf6"},
        "Please make my move: knight f6, from g8 to f6.",
    ),
    (
        {"event": "question", "question": {"options": [{"san": "Bxf3"}, {"san": "Bxh3"}]}},
        "Which move was it: bishop takes f3, or bishop takes h3?",
    ),
    ({"event": "revised", "undone": "g1f3", "uci": ["g1h3"], "san": ["Nh3"]}, "The last move was knight h3."),
    (
        {"event": "revised", "undone": "g1f3", "uci": [], "san": []},
        "The last move was taken back on the board.",
    ),
    (
        {"event": "arrange", "why": "set up", "fen": chess.STARTING_FEN},
        "Please set up: arrange the pieces as the lights show.",
    ),
    ({"event": "clock", "colour": "white", "seconds": 60}, "One minute left for White."),
    ({"event": "clock", "colour": "black", "seconds": 10}, "Ten seconds left for Black."),
    (
        {
            "event": "voice",
            "prompt": "confirm",
            "text": "knight takes f3. Yes or no?",
            "heard": "knight takes f three",
        },
        "knight takes f3. Yes or no?",
    ),
]


@pytest.mark.parametrize(
    ("event", "words"), SPOKEN, ids=[f"{e['event']}-{i}" for i, (e, _) in enumerate(SPOKEN)]
)
def test_every_event_is_said_in_words(event: dict[str, Any], words: str) -> None:
    assert spoken_event(event, GAME) == words


def test_the_table_of_words_covers_every_spoken_event() -> None:
    assert {event["event"] for event, _ in SPOKEN} == SPOKEN_EVENTS


@pytest.mark.parametrize(
    "event",
    [
        {"event": "relocation", "index": 0, "of": 3, "what": "..."},
        {"event": "setup", "relocations": 12},
        {"event": "question", "question": None},
        {"event": "voice", "prompt": "move", "text": "White to move: say your move."},
    ],
)
def test_the_robot_at_work_and_a_settled_question_are_not_said(event: dict[str, Any]) -> None:
    assert spoken_event(event, GAME) is None


@pytest.mark.parametrize(
    ("san", "words"),
    [
        ("Nbd2", "knight from b to d2"),
        ("R1e2", "rook from 1 to e2"),
        ("exd5", "e takes d5"),
        ("O-O-O+", "castles queenside, check"),
    ],
)
def test_a_move_is_read_as_a_player_says_it(san: str, words: str) -> None:
    assert spoken_san(san) == words


SCHOLAR = "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n"


def _scripted_game(tmp_path: Path, config: Config) -> Session:
    tmp_path.mkdir(parents=True, exist_ok=True)
    white, black = tmp_path / "white.pgn", tmp_path / "black.pgn"
    white.write_text(SCHOLAR, encoding="utf-8")
    black.write_text(SCHOLAR, encoding="utf-8")
    session = Session(config, games_dir=tmp_path / "games", speed=None)
    session.connect()
    specs = PlayerSpec.parse(f"script:{white}"), PlayerSpec.parse(f"script:{black}")
    journal = session.new_game(*specs, chess.Board())
    with journal:
        session.play(journal, *specs)
    return session


def test_a_game_without_a_screen_is_said_move_by_move_into_wav_files(tmp_path: Path) -> None:
    folder = tmp_path / "speech"
    config = Config.from_dict({"display": {"url": "none://"}, "speech": {"url": f"sim://?dir={folder}"}})
    with _scripted_game(tmp_path, config) as session:
        said = session.speaker
        assert isinstance(said, SimSpeaker)
        assert said.texts() == [
            "New game.",
            "e4",
            "e5",
            "bishop c4",
            "knight c6",
            "queen h5",
            "knight f6",
            "queen takes f7, checkmate",
            "White wins by checkmate.",
        ]
    log = (folder / "speech.log").read_text(encoding="utf-8").splitlines()
    assert [line.split("\t")[2] for line in log] == said.texts()
    for line in log:
        wav = (folder / line.split("\t")[1]).read_bytes()
        assert len(pcm_from_wav(wav)) > 3000  # a tenth of a second of speech at least


def test_with_a_screen_the_table_stays_quiet_unless_told(tmp_path: Path) -> None:
    with _scripted_game(tmp_path / "quiet", Config.default()) as session:
        assert isinstance(session.speaker, SimSpeaker)
        assert session.speaker.texts() == []
    told = Config.from_dict({"speech": {"muted": False}})
    with _scripted_game(tmp_path / "told", told) as session:
        assert isinstance(session.speaker, SimSpeaker)
        assert session.speaker.texts()[-1] == "White wins by checkmate."


def test_a_clock_running_low_is_announced_once_per_threshold(tmp_path: Path) -> None:
    now = [0.0]
    events: list[dict[str, Any]] = []
    with Session(Config.default(), games_dir=tmp_path, speed=None, emit=events.append) as session:
        session.clock = ChessClock(ClockSettings(300), now=lambda: now[0])
        session.clock.start(chess.WHITE)
        for t in (200.0, 239.0, 241.0, 250.0, 289.0, 291.0, 295.0):
            now[0] = t
            session._flag_fell()
    warnings = [(e["colour"], e["seconds"]) for e in events if e["event"] == "clock"]
    assert warnings == [("white", 60), ("white", 10)]


def test_a_short_game_is_not_warned_at_its_start(tmp_path: Path) -> None:
    now = [0.0]
    events: list[dict[str, Any]] = []
    with Session(Config.default(), games_dir=tmp_path, speed=None, emit=events.append) as session:
        session.clock = ChessClock(ClockSettings(60), now=lambda: now[0])
        session.clock.start(chess.WHITE)
        for t in (0.0, 1.0, 20.0, 51.0):
            now[0] = t
            session._flag_fell()
    assert [e["seconds"] for e in events if e["event"] == "clock"] == [10]


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("espeak://?voise=en-gb", "did you mean 'voice'"),
        ("espeak://?voice=en gb", "not an espeak-ng voice name"),
        ("espeak://?speed=2000", "outside espeak-ng's range"),
        ("sim://?dir=", "needs a folder"),
        ("festival://", "unknown scheme"),
    ],
)
def test_a_bad_speaker_url_is_one_sentence(url: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says) as caught:
        check_speaker_url(url)
    assert "\n" not in str(caught.value)


def test_an_unknown_voice_is_refused_when_the_speaker_opens() -> None:
    with pytest.raises(ConfigError, match="no voice 'xx-nowhere'"):
        open_speaker("espeak://?voice=xx-nowhere")


def test_the_config_names_a_bad_speech_setting() -> None:
    with pytest.raises(ConfigError, match=r"\[speech\] muted = 'yes' must be true or false"):
        Config.from_dict({"speech": {"muted": "yes"}})
    with pytest.raises(ConfigError, match="did you mean 'muted'"):
        Config.from_dict({"speech": {"mute": True}})
    with pytest.raises(ConfigError, match=r"\[speech\] url = 'espeak://\?speed=x'"):
        Config.from_dict({"speech": {"url": "espeak://?speed=x"}})


def test_a_muted_espeak_speaker_says_nothing_and_closes_at_once() -> None:
    with open_speaker("espeak://?voice=en-gb", muted=True) as speaker:
        speaker.say("knight f3")
    assert speaker.closed
    with pytest.raises(ChessatronError, match="closed"):
        speaker.say("e4")


def test_a_speaker_that_cannot_open_is_one_warning_and_the_game_goes_on(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")  # a file where the speaker's folder should be
    config = Config.from_dict({"speech": {"url": f"sim://?dir={blocked}", "muted": False}})
    with Session(config, games_dir=tmp_path / "games", speed=None, emit=events.append) as session:
        session.emit({"event": "move", "ply": 1, "uci": "e2e4", "san": "e4", "who": "keyboard"})
        session.emit({"event": "move", "ply": 2, "uci": "e7e5", "san": "e5", "who": "keyboard"})
    warnings = [e["message"] for e in events if e["event"] == "warning"]
    assert len(warnings) == 1 and warnings[0].startswith("the table cannot speak: cannot write")
    assert [e["event"] for e in events].count("move") == 2
