"""How a person at the keyboard or on the web page gives their move away before sending it, for
``python -m bench.replies`` (issue 16): when the robot's ponderer hears the line typed so far, or the piece
picked up, and so how long before the move arrives the magnet can head for where it begins.

Each simulated person (one a game, seeded by it) types their moves at the terminal or makes them with the
mouse on the web page, the timing drawn from published figures (each with its source beside it below) and,
where no figure was found, from a stated assumption (marked so). Nothing here was chosen for what it does to
the bench's figures.

* **Typed** (:func:`typed_clues`): the move in SAN (``Nf3``; three in four people) or UCI (``g1f3``), then
  Enter, which sends it. The keys come at the person's own pace, each interval varying about it; the prompt
  reads the line typed so far when readline takes a key in, or a tenth of a second after the last one
  (:mod:`chessatron.game.telling.lineinput`), and each line read is a clue.
* **Clicked** (:func:`clicked_clues`): the piece is picked up by the press on it (that is the clue: the page
  tells the server at once), then dragged to its square and released (half the people), or clicked and then
  its square clicked; the move is sent on the release, or on the press on its square.

Either way a person sometimes stops to think once the piece is chosen (or, typing, before Enter), for a
keystroke-level model's mental act. The network carries the clue and the move alike, so its delay cancels
out and is left out. Not modelled: typing errors and their corrections, Tab completion, a piece picked up
and put back for another (each would only give the ponderer more time, or a wrong clue it recovers from).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Literal

import chess

Way = Literal["typed", "clicked"]

# --- typing --------------------------------------------------------------------------------------------
#: Typing speed, words (five keystrokes) a minute: Dhakal, Feit, Kristensson & Oulasvirta, "Observations on
#: typing from 136 million keystrokes", CHI 2018 (168,000 people transcribing sentences): 51.56 wpm on
#: average, SD 20.20, from under 20 to about 120 wpm. Drawn log-normal with that mean and spread (median
#: 48 wpm, sigma 0.376) and kept within 15 to 140 wpm. Typing a move may well be slower than typing prose
#: (the keystroke-level model below puts random letters at 0.50 s a key against 0.20 s for an average
#: skilled typist): the model keeps prose speeds, so it errs towards less time before the move is sent.
TYPING_WPM_MEDIAN = 48.0
TYPING_WPM_SIGMA = 0.376
TYPING_WPM_RANGE = (15.0, 140.0)
#: How a person's intervals between keys vary about their own mean (right-skewed, log-normal with a mean of
#: one): an assumption, no published spread for typed chess moves was found.
KEY_SIGMA = 0.3
#: The share of typists who type SAN rather than UCI: an assumption (the prompt takes both).
SAN_SHARE = 0.75
#: How often readline runs Python's input hook while it waits for a key (CPython's Modules/readline.c:
#: a select() with a 0.1 s timeout; the hook also runs before each key is taken in).
HOOK_S = 0.1

# --- pointing and dragging -------------------------------------------------------------------------------
#: Mouse movement times by Fitts' law, MT = a + b * ID with ID = log2(D / W + 1) bits (D the distance
#: between the squares' centres, W a square's width): MacKenzie, Sellen & Buxton, "A comparison of input
#: devices in elemental pointing and dragging tasks", CHI '91: pointing a = -107 ms, b = 223 ms/bit;
#: dragging a = 135 ms, b = 249 ms/bit. Measured on practised young adults.
POINT_A_S, POINT_B_S = -0.107, 0.223
DRAG_A_S, DRAG_B_S = 0.135, 0.249
#: A mouse button's press or release: the keystroke-level model's B operator, 0.1 s (Card, Moran & Newell,
#: "The keystroke-level model for user performance time with interactive systems", CACM 23(7), 1980, and
#: The Psychology of Human-Computer Interaction, 1983).
BUTTON_S = 0.1
#: The share of people on the page who drag a piece rather than click it and then its square: an
#: assumption (the page takes both).
DRAG_SHARE = 0.5
#: How much slower than the CHI '91 participants a person moves (their movement times over the regression's,
#: log-normal, sigma) and how a single movement varies: assumptions.
PACE_SIGMA = 0.3
MOVEMENT_SIGMA = 0.2

# --- thinking -----------------------------------------------------------------------------------------
#: The keystroke-level model's mental act M (Card, Moran & Newell 1980): 1.35 s, taken log-normal about it.
MENTAL_S = 1.35
MENTAL_SIGMA = 0.3
#: How often a person stops to think once the piece is chosen: drawn for each person between never and two
#: moves in five (one in five on average): an assumption, so that some people hesitate and some never do.
PAUSE_CHANCE_RANGE = (0.0, 0.4)
#: The share of people who type their moves (the rest use the web page): an assumption.
TYPED_SHARE = 0.5


@dataclass(frozen=True)
class Person:
    """How one person sends their moves."""

    way: Way
    san: bool
    """Typed: in SAN (else UCI)."""
    key_s: float
    """Typed: the mean interval between keys (seconds)."""
    drags: bool
    """Clicked: drags the piece (else clicks it, then its square)."""
    pace: float
    """Clicked: their movement times over Fitts' law's."""
    pause_chance: float
    """How often they stop to think once the piece is chosen."""


@dataclass(frozen=True)
class Clue:
    """What the ponderer hears of a move before it is sent."""

    before_s: float
    """How long before the move is sent."""
    text: str | None = None
    """Typed: the line so far."""
    square: chess.Square | None = None
    """Clicked: the piece picked up."""


@dataclass(frozen=True)
class Sending:
    """How one move is sent: typed or clicked, the clues before it, and whether the person stopped to
    think."""

    way: Way
    clues: tuple[Clue, ...]
    paused: bool


def person_of(rng: random.Random) -> Person:
    """A person drawn from the figures above."""
    way: Way = "typed" if rng.random() < TYPED_SHARE else "clicked"
    low, high = TYPING_WPM_RANGE
    wpm = min(max(rng.lognormvariate(math.log(TYPING_WPM_MEDIAN), TYPING_WPM_SIGMA), low), high)
    return Person(
        way=way,
        san=rng.random() < SAN_SHARE,
        key_s=60.0 / (5.0 * wpm),
        drags=rng.random() < DRAG_SHARE,
        pace=rng.lognormvariate(0.0, PACE_SIGMA),
        pause_chance=rng.uniform(*PAUSE_CHANCE_RANGE),
    )


def sending(person: Person, board: chess.Board, move: chess.Move, rng: random.Random) -> Sending:
    """The clues ``person`` gives of ``move`` on ``board`` before it is sent, latest last."""
    paused = rng.random() < person.pause_chance
    if person.way == "typed":
        return Sending(person.way, typed_clues(person, board, move, rng, paused), paused)
    return Sending(person.way, clicked_clues(person, board, move, rng, paused), paused)


def typed_clues(
    person: Person, board: chess.Board, move: chess.Move, rng: random.Random, paused: bool
) -> tuple[Clue, ...]:
    """The lines the prompt reads while ``move`` is typed: each key's line, seen when readline takes the
    next key in or a tenth of a second after it, whichever comes first; Enter sends the move."""
    text = board.san(move).rstrip("+#") if person.san else move.uci()
    keys = len(text) + 1  # and Enter
    gaps = [_vary(rng, person.key_s, KEY_SIGMA) for _ in range(keys - 1)]
    if paused:
        # once the piece is named (its letter, or its square in UCI), or before Enter: checking the move
        named = 1 if person.san else 2
        at = rng.choice([min(named, keys - 1) - 1, keys - 2])
        gaps[at] += _vary(rng, MENTAL_S, MENTAL_SIGMA)
    times = [0.0]
    for gap in gaps:
        times.append(times[-1] + gap)
    sent = times[-1]
    clues = []
    for index in range(keys - 1):
        seen = min(times[index + 1], times[index] + HOOK_S)
        clues.append(Clue(sent - seen, text=text[: index + 1]))
    return tuple(clue for clue in clues if clue.before_s > 0.0)


def clicked_clues(
    person: Person, board: chess.Board, move: chess.Move, rng: random.Random, paused: bool
) -> tuple[Clue, ...]:
    """The piece picked up by the press on it, so long before the move is sent: a drag to its square
    (sent on the release), or a release, a movement to the square and a press on it."""
    target = _king_goes_to(board, move) if board.is_castling(move) else move.to_square
    distance = math.hypot(
        chess.square_file(target) - chess.square_file(move.from_square),
        chess.square_rank(target) - chess.square_rank(move.from_square),
    )
    bits = math.log2(distance + 1.0)
    if person.drags:
        movement = DRAG_A_S + DRAG_B_S * bits
        lead = _vary(rng, person.pace * movement, MOVEMENT_SIGMA)
    else:
        movement = max(POINT_A_S + POINT_B_S * bits, 0.0)
        lead = 2 * BUTTON_S + _vary(rng, person.pace * movement, MOVEMENT_SIGMA)
    if paused:
        lead += _vary(rng, MENTAL_S, MENTAL_SIGMA)
    return (Clue(lead, square=move.from_square),)


def _king_goes_to(board: chess.Board, move: chess.Move) -> chess.Square:
    """Where the king is put when castling (the page takes the king onto its castled square)."""
    file = 6 if board.is_kingside_castling(move) else 2
    return chess.square(file, chess.square_rank(move.from_square))


def _vary(rng: random.Random, mean: float, sigma: float) -> float:
    """A log-normal value whose mean is ``mean``."""
    return mean * rng.lognormvariate(-sigma * sigma / 2, sigma)
