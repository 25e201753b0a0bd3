"""See the human's move from occupancy sensors.

The sensors say which squares hold a piece, never which piece. The recognizer keeps the game position as
the authority. Per-square debouncing turns scans into lift and place events (a change that does not last
``debounce_s``, a one-scan flicker, is no event; a sensor that chatters as a piece arrives or leaves
dates the change from its first reading). A reading lasts from its scan to the next, however far apart
they are: a board that reports only its changes, one report a change, is read as well as one scanned
every 20 ms (:mod:`.replay` replays a recorded trace so). The recognizer explains the **whole history**
of events since the last firm position: a sequence of legal plies, each a contiguous stretch of events
that ends when the board shows that ply's position, plus whatever the plies do not account for. Plies
come one after another, never interleaved, so the colours alternate: that is what tells a paused slide from an
opponent's reply, and lets any number of quick replies share one window (:mod:`.search`).

* each ply must be seen: every square a piece leaves (the mover, an en-passant victim, king and rook) is
  emptied inside its stretch, a quiet move lands after its mover left, and a capture's target is emptied
  and filled again after the mover left, or else the victim was displaced (pushed off as the mover
  arrived, its square never empty) (:func:`.shapes.fit_segment`);
* nothing appears from nowhere: a square empty before and after a stretch may show a piece only while
  the mover is in flight (gliding over its path, or set down on the way), never before it left or after
  it landed; after the last ply, only pieces lifted and put back;
* everything else an explanation needs has a price in one place, :class:`.model.HumanModel`: a piece
  lifted and put back is ordinary, one adjusted while the mover is in the air less so, the mover set down
  off its way and moved on less still, a capture whose victim never left its square far less likely,
  revising the committed move a little; the cheapest explanation wins, and one more "the player is
  still at it" (a piece held over the board) competes with every complete one for as long as the board
  has been still only briefly; a capture by displacement, which is exactly a piece held in the air, is
  believed only after the board has been still as long as people hold a piece (``held_s``, 5 s), even
  when what follows looks like the opponent's reply (it may be the same hand at work);
* only the colours played at this board are explained (``sides``): with the robot on the other side, the
  person's hand going on is never taken for the robot's reply;
* the last committed ply stays open: a slide that paused on a legal square, rook-first castling, a piece
  set on the wrong square and moved on, or a promotion answered late revise it (:class:`Revised`); a
  piece held so long that it looked like a capture by displacement, then put back, withdraws it; a piece
  once set down is never taken back silently (its events must be explained by the new move);
* **never a guess**: when another move sequence comes within the model's margin of the best, the board
  cannot tell them apart (a capture by displacement that could have taken either of two pieces).
  :class:`Ambiguous` names the candidates (``"Bxf3 or Bxh3?"``) once the board has been still long enough
  that the player is not just holding the piece; what follows settles it when it is legal in only one
  of them (as a person reading the board would), or the player does: :meth:`Recognizer.choose_move`
  (the web page, the terminal, buttons), or lifting the capturing piece and setting it down again;
* a board that is never still (replies one after another) commits the plies that every good
  explanation agrees on as soon as the next player has begun;
* promotions take the piece chosen at a prompt (an answer belongs to the latest promotion begun before
  it, else to the next), else the one taken from a sensed reserve slot, else the configured default; the
  piece matters for what may follow (a queen gives check where a rook may not);
* failing all that: takebacks (when enabled); after a finished game, the start arrangement starts a new
  one; anything else is an illegal action, and :class:`Illegal` says which squares are missing or extra,
  paired (:mod:`.guidance`), until the board matches the position again. A player thinking with one of
  their own pieces in hand is never told off (its destinations are lit), nor one halfway through a move
  for a while.

The recognizer is pure: it never sleeps or reads a clock; time comes with each snapshot, so a recorded
trace replays exactly and fast.
"""

from __future__ import annotations

from .events import (
    Ambiguous,
    Committed,
    Illegal,
    NewGame,
    PieceLifted,
    RecognizerEvent,
    Resolved,
    Revised,
    SquareEvent,
    TookBack,
)
from .model import HumanModel
from .recognizer import MAX_PLIES, PROMOTIONS, SEARCH_BUDGET, Recognizer

__all__ = [
    "MAX_PLIES",
    "PROMOTIONS",
    "SEARCH_BUDGET",
    "Ambiguous",
    "Committed",
    "HumanModel",
    "Illegal",
    "NewGame",
    "PieceLifted",
    "Recognizer",
    "RecognizerEvent",
    "Resolved",
    "Revised",
    "SquareEvent",
    "TookBack",
]
