"""The voice player: words read as moves by python-chess, and moves spoken by espeak-ng into the simulated
microphone, recognised by pocketsphinx, read back and carried out only once confirmed (a wrong
understanding is caught by the no); which piece when the words fit two; commands; a game from the command
line."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import chess
import numpy as np
import pytest
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.config import Config
from chessatron.errors import ConfigError
from chessatron.feedback.espeak import EspeakVoice, synthesize
from chessatron.game.players.base import Command
from chessatron.sim.voice import SimulatedVoice
from chessatron.voice.audio import add_noise, pcm_from_wav, silence
from chessatron.voice.grammar import move_grammar
from chessatron.voice.meaning import Answer, CommandHeard, MoveHeard, Unclear, understand, which
from chessatron.voice.microphone import SimMicrophone, check_microphone_url
from chessatron.voice.player import Prompt, VoiceMover
from chessatron.voice.recognizer import SpeechRecognizer

VOICE = EspeakVoice("en-us", speed=150)
TWO_KNIGHTS = "4k3/8/8/8/8/8/1N3N2/4K3 w - - 0 1"  # knights on b2 and f2 both reach d3 and d1


@pytest.mark.parametrize(
    ("fen", "words", "uci"),
    [
        (chess.STARTING_FEN, "knight f three", ["g1f3"]),
        (chess.STARTING_FEN, "knight to foxtrot three", ["g1f3"]),
        (chess.STARTING_FEN, "knight from g one to f three check", ["g1f3"]),
        (chess.STARTING_FEN, "g one f three", ["g1f3"]),
        (chess.STARTING_FEN, "pawn e four", ["e2e4"]),
        (chess.STARTING_FEN, "e two to e four", ["e2e4"]),
        (
            "rnbqkbnr/ppp1pppp/8/3p4/2P1P3/8/PP1P1PPP/RNBQKBNR w KQkq - 0 3",
            "pawn takes d five",
            ["c4d5", "e4d5"],
        ),
        ("rnbqkbnr/ppp1pppp/8/3p4/2P1P3/8/PP1P1PPP/RNBQKBNR w KQkq - 0 3", "e takes d five", ["e4d5"]),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "castle kingside", ["e1g1"]),
        ("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "castles long", ["e8c8"]),
        ("k7/4P3/8/8/8/8/8/4K3 w - - 0 1", "e eight", ["e7e8q"]),
        ("k7/4P3/8/8/8/8/8/4K3 w - - 0 1", "e eight promote to knight", ["e7e8n"]),
        ("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "queen to h five", ["d1h5"]),
        (TWO_KNIGHTS, "knight d three", ["b2d3", "f2d3"]),
        (TWO_KNIGHTS, "knight b d three", ["b2d3"]),
        (chess.STARTING_FEN, "knight e five", []),  # no legal move: asked again
    ],
)
def test_words_name_the_legal_moves_they_fit(fen: str, words: str, uci: list[str]) -> None:
    board = chess.Board(fen)
    heard = understand(words, board)
    assert isinstance(heard, MoveHeard)
    assert sorted(move.uci() for move in heard.moves) == uci


def test_commands_answers_and_nonsense() -> None:
    board = chess.Board()
    assert understand("take back", board) == CommandHeard(Command.TAKEBACK, "take back")
    assert understand("resign", board) == CommandHeard(Command.RESIGN, "resign")
    assert understand("nope", board) == Answer(False, "nope")
    assert isinstance(understand("knight knight", board), Unclear)
    assert isinstance(understand("", board), Unclear)


def test_the_grammar_holds_every_legal_move_of_the_position() -> None:
    board = chess.Board("r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    said = {
        move
        for phrase in move_grammar(board).phrases
        for move in getattr(understand(phrase, board), "moves", ())
    }
    assert said == set(board.legal_moves)


def test_which_piece_by_its_square() -> None:
    board = chess.Board(TWO_KNIGHTS)
    options = [chess.Move.from_uci("b2d3"), chess.Move.from_uci("f2d3")]
    assert which("from foxtrot two", board, options) == options[1]
    assert which("knight on b two", board, options) == options[0]
    assert which("from a one", board, options) is None


# --- spoken into the simulated microphone -----------------------------------------------------------


@pytest.mark.parametrize(
    ("voice", "said", "uci"),
    [("en-029+m2", "alpha two alpha four", "a2a4"), ("en-gb-x-gbcwmd+m2", "echo two echo four", "e2e4")],
)
def test_a_voice_far_from_the_model_s_is_understood_at_a_warped_frequency(
    recognizer: SpeechRecognizer, voice: str, said: str, uci: str
) -> None:
    # (men's variants whose formants sit apart: heard as "to echo four" and as nothing at the model's
    # own frequencies)
    board = chess.Board()
    heard = understand(
        recognizer.recognize(pcm_from_wav(synthesize(said, EspeakVoice(voice))), move_grammar(board)), board
    )
    assert isinstance(heard, MoveHeard) and [move.uci() for move in heard.moves] == [uci]


@pytest.fixture(scope="module")
def recognizer() -> SpeechRecognizer:
    return SpeechRecognizer()


class Table:
    """A voice player at a simulated microphone; ``prompts`` is what the table said."""

    def __init__(self, recognizer: SpeechRecognizer) -> None:
        self.microphone = SimMicrophone(seed=3)
        self.mover = VoiceMover(self.microphone, recognizer, listen_s=0.0)
        # the player has said all they had to say: the mover gives up (as when their time runs out)
        self.mover.expired = lambda: not self.microphone.waiting
        self.prompts: list[Prompt] = []
        self.mover.on_prompt = self.prompts.append

    def says(self, *texts: str, voice: EspeakVoice = VOICE) -> None:
        for text in texts:
            self.microphone.say(text, voice)

    def texts(self) -> list[str]:
        return [prompt.text for prompt in self.prompts]


@pytest.fixture
def table(recognizer: SpeechRecognizer) -> Iterator[Table]:
    yield Table(recognizer)


def test_a_spoken_move_is_read_back_and_played_on_yes(table: Table) -> None:
    table.says("knight foxtrot three", "yes")
    assert table.mover.choose(chess.Board()) == chess.Move.from_uci("g1f3")
    assert table.texts() == ["White to move: say your move.", "knight f3. Yes or no?"]


def test_a_wrong_understanding_is_caught_by_the_no(table: Table) -> None:
    # the player meant d4; the table understood b4 (as "d" and "b" are easily misheard), and asks first
    table.says("bravo four", "no", "delta four", "yes")
    assert table.mover.choose(chess.Board()) == chess.Move.from_uci("d2d4")
    assert table.texts()[1:] == ["b4. Yes or no?", "Say your move again.", "d4. Yes or no?"]


@pytest.mark.parametrize(
    ("voice", "said", "uci", "read_back"),
    [
        # the West Midlands' "noit": pocketsphinx's US model lost the word ("to echo three")
        (EspeakVoice("en-gb-x-gbcwmd", speed=150), "knight to foxtrot three", "g1f3", "knight f3"),
        (EspeakVoice("en-gb-x-gbcwmd", speed=150), "knight charlie three", "b1c3", "knight c3"),
        # the lattice's second pass made a longer phrase of it ("from a two a four")
        (EspeakVoice("en-gb", speed=150), "hotel four", "h2h4", "h4"),
        # the first word is not left to the silence before it
        (EspeakVoice("en-gb", speed=170), "knight charlie three", "b1c3", "knight c3"),
    ],
)
def test_a_move_is_understood_at_the_first_try(
    table: Table, voice: EspeakVoice, said: str, uci: str, read_back: str
) -> None:
    table.says(said, voice=voice)
    table.says("yes")
    assert table.mover.choose(chess.Board()) == chess.Move.from_uci(uci)
    assert table.texts()[1:] == [f"{read_back}. Yes or no?"]


def test_a_noise_after_the_read_back_is_not_a_yes(table: Table) -> None:
    # the table misheard d4 as b4; then a chair scrapes (heard as "yep" by the answers' grammar alone)
    table.says("bravo four")
    table.microphone.hear(add_noise(silence(0.3), 1000, np.random.default_rng(0)))
    table.says("no", "delta four", "yes")
    assert table.mover.choose(chess.Board()) == chess.Move.from_uci("d2d4")
    assert table.texts()[1:] == [
        "b4. Yes or no?",
        "Please say yes or no.",
        "Say your move again.",
        "d4. Yes or no?",
    ]


def test_a_voice_heard_unclearly_is_taken_when_it_says_the_same_again(table: Table) -> None:
    # this voice's "yes" fits the model poorly, whoever says it: the second one is taken
    table.says("echo four")
    table.says("yes", "yes", voice=EspeakVoice("en-029+m2", speed=150))
    assert table.mover.choose(chess.Board()) == chess.Move.from_uci("e2e4")
    assert table.texts()[1:] == ["e4. Yes or no?", "Please say yes or no."]


def test_each_phrase_says_its_files_one_way() -> None:
    board = chess.Board(TWO_KNIGHTS)
    phrases = move_grammar(board).phrases
    letters, alphabet = (
        set("abcdefgh"),
        {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"},
    )
    assert {"knight bravo delta three", "knight b d three", "knight from foxtrot two to delta one"} <= phrases
    assert not [
        phrase for phrase in phrases if set(phrase.split()) & letters and set(phrase.split()) & alphabet
    ]
    # what is heard is still read either way
    assert understand("knight b delta three", board) == MoveHeard(
        (chess.Move.from_uci("b2d3"),), "knight b delta three"
    )


def test_words_that_fit_two_moves_ask_which_piece(table: Table) -> None:
    table.says("knight delta three", "from foxtrot two", "yes")
    assert table.mover.choose(chess.Board(TWO_KNIGHTS)) == chess.Move.from_uci("f2d3")
    assert table.texts()[1:] == ["Which knight: from b2, or from f2?", "knight from f to d3. Yes or no?"]


def test_noise_is_asked_again(table: Table) -> None:
    table.microphone.hear(add_noise(silence(1.0), 2000, np.random.default_rng(1)))
    table.says("echo four", "yes")
    assert table.mover.choose(chess.Board()) == chess.Move.from_uci("e2e4")
    assert table.prompts[1].kind == "again"


def test_a_resignation_is_confirmed_and_a_hint_is_not(table: Table) -> None:
    table.says("resign", "no", "hint please")
    assert table.mover.choose(chess.Board()) == Command.HINT, table.prompts
    assert table.texts()[1:] == ["resign. Yes or no?", "Say your move."]
    table.says("resign", "yes")
    assert table.mover.choose(chess.Board()) == Command.RESIGN


def test_a_button_may_answer_the_question(table: Table) -> None:
    table.says("echo four")

    def press(prompt: Prompt) -> None:
        table.prompts.append(prompt)
        if prompt.kind == "confirm":
            table.mover.confirmations.put(True)  # select pressed

    table.mover.on_prompt = press
    assert table.mover.choose(chess.Board()) == chess.Move.from_uci("e2e4")


def test_time_running_out_ends_the_wait(table: Table) -> None:
    table.mover.expired = lambda: True
    assert table.mover.choose(chess.Board()) is None


def test_a_simulated_person_plays_a_few_moves_without_a_wrong_one(recognizer: SpeechRecognizer) -> None:
    game = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
    microphone = SimMicrophone(seed=0)
    board = chess.Board()
    person = SimulatedVoice(
        microphone,
        random.Random(0),
        choose=lambda b: chess.Move.from_uci(game[len(b.move_stack)]),
        voice=EspeakVoice("en-gb", speed=140),
        files="alphabet",
    )
    mover = VoiceMover(microphone, recognizer, listen_s=0.0)
    mover.on_prompt = person.heard
    for _ in game:
        move = mover.choose(board)
        assert isinstance(move, chess.Move)
        person.carried_out(board, move)
        board.push(move)
    assert [m.uci() for m in board.move_stack] == game
    assert person.score.wrong == 0 and person.score.moves == len(game)


# --- the command line ---------------------------------------------------------------------------------


def test_a_voice_game_on_the_simulator(tmp_path: Path) -> None:
    env = {"CHESSATRON_STATE": str(tmp_path / "sim.json"), "CHESSATRON_GAMES": str(tmp_path / "games")}
    args = ["play", "--white", "voice", "--black", "engine:1:depth=1", "--max-plies", "2", "--fresh"]
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code == 0, result.output
    assert "voice: White to move: say your move." in result.output
    assert "Yes or no? (heard" in result.output
    assert "1. " in result.output and "voice" in result.output


def test_a_voice_player_without_a_microphone_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[microphone]\nurl = "none://"\n', encoding="utf-8")
    env = {"CHESSATRON_STATE": str(tmp_path / "sim.json"), "CHESSATRON_GAMES": str(tmp_path / "games")}
    result = CliRunner().invoke(main, ["play", "--white", "voice", "--config", str(config)], env=env)
    assert result.exit_code != 0
    assert "the voice player needs a microphone" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mic://?rate=12345", "use 16000"),
        ("sim://?nois=3", "did you mean 'noise'"),
        ("alsa://", "unknown scheme"),
    ],
)
def test_a_bad_microphone_url_is_one_sentence(url: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        check_microphone_url(url)
    with pytest.raises(ConfigError, match=r"\[microphone\]"):
        Config.from_dict({"microphone": {"url": url}})


def test_a_slow_computer_may_hear_each_utterance_once(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\[microphone\] wide_voices = 'no' must be true or false"):
        Config.from_dict({"microphone": {"wide_voices": "no"}})
    config = tmp_path / "c.toml"
    config.write_text('[microphone]\nurl = "sim://"\nwide_voices = false\n[speech]\nurl = "none://"\n')
    args = ["hw", "test", "--yes", "--only", "microphone", "--config", str(config)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "understood 'yes'" in result.output
