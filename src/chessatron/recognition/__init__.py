"""See the human's move from occupancy sensors.

The sensors say which squares hold a piece, never which piece. The recognizer keeps the game position as
the authority. Per-square debouncing turns scans into lift and place events (a change that does not last
``debounce_s``, one-scan flicker, is no event). Once the board has been still for the settle time, it
looks for the best **explanation** of every event since the last firm position: a sequence of legal
plies, each a contiguous stretch of events that ends when the board shows that ply's position, plus
nudges (pieces lifted and put back). Plies come one after another, never interleaved, so the stretches
are found by walking the events and the colours must alternate: that is what tells a paused slide from
an opponent's reply, and lets any number of quick replies share one settle window.

* each ply must be seen: every square a piece leaves (the mover, an en-passant victim, king and rook) is
  emptied inside its stretch, a quiet move lands after its mover left, and a capture's target is emptied
  and filled again after the mover left, or else the capture was by displacement (the victim pushed off
  as the mover arrived, its square never empty);
* nothing appears from nowhere: a square empty before and after a stretch may show a piece only while
  the mover is in flight (gliding over its path, or set down on the way), never before it left or after
  it landed; after the last ply, only pieces lifted and put back (nudges, touches);
* explanations rank by captures by displacement, then nudges (squares on the mover's path do not count:
  a slide shows there), then by whether the last committed move must be revised, then by how soon each
  victim's square was filled after its mover left (a neighbour nudged after the move is no capture);
* the last committed ply stays open: a slide that paused on a legal square, rook-first castling or a
  promotion answered late revise it (:class:`Revised`), but only by a ply that moves the same pieces on,
  so a piece taken back to where it came from is never a silent takeback;
* a capture by displacement looks exactly like a piece held in the air, so an explanation that needs
  one waits until the board has been still for ``displacement_after_s`` when it is the last ply, when it
  revises the last move, or when the events through it also fit plies without it and what follows is
  one move begun; otherwise the reply that completed after it confirms it;
* when the best explanations tie (a displacement that could have taken either of two pieces), nothing is
  guessed: :class:`Ambiguous` names the candidates until the player shows which (lifting the capturing
  piece and setting it down again is enough);
* promotions take the piece chosen at a prompt (an answer belongs to the latest promotion begun before
  it, else to the next), else the one taken from a sensed reserve slot, else the configured default; the
  piece matters for what may follow (a queen gives check where a rook may not);
* failing all that: takebacks (when enabled); after a finished game, the start arrangement starts a new
  one; anything else is an illegal action, and :class:`Illegal` says which squares are missing or extra,
  paired, until the board matches the position again (a player thinking with one of their own pieces
  in hand is not told off: its destinations are lit).

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
from .recognizer import MAX_PLIES, PROMOTIONS, SEARCH_BUDGET, Recognizer

__all__ = [
    "MAX_PLIES",
    "PROMOTIONS",
    "SEARCH_BUDGET",
    "Ambiguous",
    "Committed",
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
