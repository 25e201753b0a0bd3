"""What the puzzle table tells as a puzzle goes (:class:`~.table.PuzzleTable`'s notices, warnings, statuses
and the plain line of an outcome), as whole sentences in the current language: made here so that the table
keeps to its steps.

Moves are shown with the language's piece letters (:func:`~chessatron.i18n.notation.san_in`); the events'
other fields (``san``, ``uci``, ``puzzle``) stay as the JSON stream has them.

>>> wrong_move("Qd1", 2, "robot")
'Qd1 is not the move: the robot puts it back; 2 tries left'
>>> solution_notice("failed", "17... Nf3+ 18. Kh1 Qg1#")
'failed: the solution is 17... Nf3+ 18. Kh1 Qg1#'
"""

from __future__ import annotations

from typing import Literal

import chess

from ..i18n import _, ngettext
from ..i18n.formats import decimal
from ..i18n.notation import san_in

__all__ = [
    "done_notice",
    "find_status",
    "moves_in",
    "no_such_command",
    "outcome_text",
    "solution_notice",
    "start_notice",
    "wrong_move",
]

#: Who puts a wrong move back: the robot, the person as the LEDs show, nobody (it was never made).
PutBack = Literal["robot", "hand", "none"]


def moves_in(text: str) -> str:
    """Moves numbered as python-chess writes them (``17... Nf3+ 18. Kh1``) with the language's letters."""
    return " ".join(san_in(word) for word in text.split(" "))


def start_notice(puzzle_id: str, colour: chess.Color) -> str:
    """``puzzle 00sHx: White to play and win``."""
    if colour == chess.WHITE:
        return _("puzzle {id}: White to play and win").format(id=puzzle_id)
    return _("puzzle {id}: Black to play and win").format(id=puzzle_id)


def find_status(colour: chess.Color) -> str:
    """The status while the person looks for the move."""
    if colour == chess.WHITE:
        return _("find the best move for White")
    return _("find the best move for Black")


def wrong_move(san: str, tries: int, put_back: PutBack) -> str:
    """``Qd1 is not the move: the robot puts it back; 2 tries left`` (``san`` in English letters)."""
    said = {"san": san_in(san), "count": tries}
    if tries <= 0:
        if put_back == "robot":
            return _("{san} is not the move: the robot puts it back; no tries left").format(**said)
        if put_back == "hand":
            return _("{san} is not the move: put it back as the lights show; no tries left").format(**said)
        return _("{san} is not the move: no tries left").format(**said)
    if put_back == "robot":
        message = ngettext(
            "{san} is not the move: the robot puts it back; {count} try left",
            "{san} is not the move: the robot puts it back; {count} tries left",
            tries,
        )
    elif put_back == "hand":
        message = ngettext(
            "{san} is not the move: put it back as the lights show; {count} try left",
            "{san} is not the move: put it back as the lights show; {count} tries left",
            tries,
        )
    else:
        message = ngettext(
            "{san} is not the move: {count} try left", "{san} is not the move: {count} tries left", tries
        )
    return message.format(**said)


def solution_notice(ending: Literal["failed", "skipped"], solution: str) -> str:
    """``failed: the solution is 17... Nf3+ 18. Kh1 Qg1#`` (``solution`` numbered, English letters)."""
    if ending == "skipped":
        return _("skipped: the solution is {moves}").format(moves=moves_in(solution))
    return _("failed: the solution is {moves}").format(moves=moves_in(solution))


def done_notice(ending: str, rating: object, player: str | None) -> str:
    """How the puzzle ended and the rating after it (``player``: a simulated player's kind, None for the
    person, whose rating it is)."""
    if player is None:
        messages = {
            "solved": _("puzzle solved; your rating is {rating}"),
            "with help": _("puzzle done, with help; your rating is {rating}"),
            "skipped": _("puzzle skipped; your rating is {rating}"),
        }
        return messages.get(ending, _("puzzle failed; your rating is {rating}")).format(rating=rating)
    simulated = {
        "solved": _("puzzle solved; the simulated {player}'s rating is {rating} (yours does not change)"),
        "with help": _(
            "puzzle done, with help; the simulated {player}'s rating is {rating} (yours does not change)"
        ),
        "skipped": _("puzzle skipped; the simulated {player}'s rating is {rating} (yours does not change)"),
    }
    failed = _("puzzle failed; the simulated {player}'s rating is {rating} (yours does not change)")
    return simulated.get(ending, failed).format(player=player, rating=rating)


def no_such_command(command: str) -> str:
    """What a game's command (``draw``, ``takeback``) typed, said or chosen in a puzzle gets."""
    # TRANSLATORS: {command} and the words after the colon are what a person types (in English)
    return _("there is no {command} in a puzzle: {hint}, {solution} (or {resign}), {skip} or {quit}").format(
        command=command, hint="hint", solution="solution", resign="resign", skip="skip", quit="quit"
    )


def outcome_text(
    puzzle_id: str,
    puzzle_rating: int,
    how: str,
    seconds: float,
    counts: tuple[int, int],
    ratings: tuple[object, object],
    player: str | None,
) -> str:
    """The plain line of a puzzle's outcome: ``puzzle 00sHx (1320): solved in 14.2 s, rating 1500 -> 1580``
    (``counts``: the wrong moves and hints; ``ratings``: before and after; ``player``: a simulated
    player's kind, None for the person)."""
    wrong, hints = counts
    time = _("{seconds} s").format(seconds=decimal(seconds, 1))
    given = []
    if wrong:
        given.append(ngettext("{count} wrong", "{count} wrong", wrong).format(count=wrong))
    if hints:
        given.append(ngettext("{count} hint", "{count} hints", hints).format(count=hints))
    detail = ", ".join(given)
    if how == "solved":
        said = _("solved in {time}").format(time=time)
    elif how == "skipped":
        said = (_("skipped in {time} ({help})") if detail else _("skipped in {time}")).format(
            time=time, help=detail
        )
    else:
        said = (_("failed in {time} ({help})") if detail else _("failed in {time}")).format(
            time=time, help=detail
        )
    before, after = ratings
    about = {"id": puzzle_id, "rating": puzzle_rating, "outcome": said, "before": before, "after": after}
    if player is None:
        return _("puzzle {id} ({rating}): {outcome}, rating {before} -> {after}").format(**about)
    return _("puzzle {id} ({rating}): {outcome}, the simulated {player}'s rating {before} -> {after}").format(
        player=player, **about
    )
