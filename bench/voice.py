"""``python -m bench.voice``: are moves said aloud understood, and is a misunderstood move never played
(issue 17)?

Simulated people (``chessatron.sim.voice``) speak every move of games from tests/data/games/ through
espeak-ng into the simulated microphone, with the noise of a room, and the voice player
(``chessatron.voice.player``) recognises them with pocketsphinx, reads each move back and plays it on a
yes. Each game has its own speaker: one of espeak-ng's English voices (accents, men's and women's
variants), a speed of 130 to 180 words a minute, room noise of 50 to 300 (16-bit units); people say
moves as SAN reads ("knight f three", "e takes d five", "rook a d one"), with "to", or square to square,
and answer "which knight?" and "yes or no?" truthfully. Two populations say every move: people who say
files in the spelling alphabet ("foxtrot three", as the voice player's help asks) and people who say
them as letters ("f three"); after two misunderstandings of one move, a person spells the files out.

Prints moves understood at the first try (the first move read back was the one meant; the target is
95 % or more), by population and by voice, the utterances a move took, and the moves carried out that
were not meant (a no heard as a yes: the target is 0). A move not settled in twelve utterances counts as
given up (and is played as meant, so that the game goes on). ``--held-out`` has other voices and variants
(:data:`HELD_OUT_VOICES`) say the games after those of the default run: a change to the recogniser is
checked on speakers and games it was not measured on.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import chess
import chess.pgn

from chessatron.feedback.espeak import EspeakVoice
from chessatron.sim.voice import Files, SimulatedVoice
from chessatron.voice.microphone import SimMicrophone
from chessatron.voice.player import VoiceMover
from chessatron.voice.recognizer import SpeechRecognizer

from .__main__ import load_games

#: espeak-ng's English voices, with variants for other voice qualities.
VOICES = (
    "en-us",
    "en-gb",
    "en-gb-scotland",
    "en-gb-x-rp",
    "en-us-nyc",
    "en-029",
    "en-us+f3",
    "en-gb+f2",
    "en-us+m3",
    "en-gb-x-gbcwmd",
)
#: Other voices, for ``--held-out``: variants and accents the default run does not use, so that a change
#: measured on it is checked on speakers it was not tuned on.
HELD_OUT_VOICES = (
    "en-gb-x-gbclan",
    "en-us+f4",
    "en-gb-scotland+f1",
    "en-029+m2",
    "en-gb-x-gbcwmd+m2",
    "en-gb-x-rp+f4",
    "en-us-nyc+f2",
    "en-gb+m4",
)
#: Utterances a move may take before the person gives up on it.
GIVE_UP_AFTER = 12


@dataclass
class Tally:
    moves: int = 0
    first_try: int = 0
    utterances: int = 0
    wrong: int = 0
    given_up: int = 0
    by_voice: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    misheard: list[str] = field(default_factory=list)

    def rate(self) -> str:
        share = 100 * self.first_try / self.moves if self.moves else 0.0
        return f"{self.first_try}/{self.moves} ({share:.1f} %)"


def play_game(
    game: chess.pgn.Game, plies: int, voice: EspeakVoice, noise: float, files: Files, seed: int,
    recognizer: SpeechRecognizer, tally: Tally,
) -> None:  # fmt: skip
    """Every move of ``game`` (its first ``plies``) said by one person and recognised."""
    board = game.board()
    start = len(board.move_stack)
    moves = list(game.mainline_moves())[:plies]
    microphone = SimMicrophone(noise=noise, seed=seed)
    person = SimulatedVoice(
        microphone,
        random.Random(seed),
        choose=lambda b: moves[len(b.move_stack) - start],
        voice=voice,
        files=files,
        patience=GIVE_UP_AFTER,
    )
    mover = VoiceMover(microphone, recognizer, listen_s=0.0)
    mover.on_prompt = person.heard
    mover.expired = lambda: person.gave_up
    for meant in moves:
        before = person.score.tries
        first_before = person.score.first_try
        chosen = mover.choose(board)
        if isinstance(chosen, chess.Move):
            person.carried_out(board, chosen)
        else:
            tally.given_up += 1
        tally.moves += 1
        tally.utterances += person.score.tries - before
        understood = person.score.first_try > first_before
        tally.first_try += understood
        tally.by_voice[voice.voice][0] += understood
        tally.by_voice[voice.voice][1] += 1
        board.push(meant)
    tally.wrong += person.score.wrong
    tally.misheard += [f"{said!r} -> {asked!r}" for said, asked in person.score.misheard]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.voice", description=__doc__)
    parser.add_argument("--games", type=int, default=6, help="games said (half standard, half Chess960)")
    parser.add_argument("--plies", type=int, default=30, help="plies said of each game")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--show", type=int, default=0, help="print this many misunderstandings")
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="other voices (HELD_OUT_VOICES) say the games after those of the default run",
    )
    options = parser.parse_args(argv)
    games = load_games()
    standard = [game for name, game in games if "960" not in name]
    chess960 = [game for name, game in games if "960" in name]
    interleaved = [game for pair in zip(standard, chess960, strict=False) for game in pair]
    first = options.games if options.held_out else 0
    chosen = interleaved[first : first + options.games]
    voices: tuple[str, ...] = HELD_OUT_VOICES if options.held_out else VOICES
    rng = random.Random(options.seed)
    recognizer = SpeechRecognizer()
    started = time.perf_counter()
    tallies: dict[Files, Tally] = {"alphabet": Tally(), "letters": Tally()}
    for number, game in enumerate(chosen):
        voice = EspeakVoice(voices[(options.seed + number) % len(voices)], speed=rng.randint(130, 180))
        noise = rng.uniform(50, 300)
        for files, tally in tallies.items():
            play_game(game, options.plies, voice, noise, files, rng.randrange(1 << 30), recognizer, tally)
    seconds = time.perf_counter() - started
    alphabet, letters = tallies["alphabet"], tallies["letters"]
    print(
        f"voice: {len(chosen)} games, {options.plies} plies each, said twice "
        f"(files spelt out, and as letters){', held-out voices' if options.held_out else ''}"
    )
    print(f"understood at first try: {alphabet.rate()} (files in the spelling alphabet; target >= 95 %)")
    print(f"understood at first try, files as letters: {letters.rate()}")
    for files, tally in tallies.items():
        by_voice = ", ".join(
            f"{name} {right}/{total}" for name, (right, total) in sorted(tally.by_voice.items())
        )
        print(f"  {files}: by voice: {by_voice}")
        print(
            f"  {files}: utterances a move: {tally.utterances / max(tally.moves, 1):.2f}, "
            f"given up: {tally.given_up}"
        )
        for line in tally.misheard[: options.show]:
            print(f"    {line}")
    wrong = alphabet.wrong + letters.wrong
    print(f"wrong moves carried out: {wrong}")
    print(
        f"({seconds:.0f} s, "
        f"{seconds / max(alphabet.utterances + letters.utterances, 1) * 1000:.0f} ms an utterance)"
    )
    return 0 if wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
