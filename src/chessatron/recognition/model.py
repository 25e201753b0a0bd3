"""How unlikely each thing a person does at the board is: the recognizer's model, in one place.

An explanation of the square events since the last firm position is a sequence of legal plies, each
owning a stretch of the events, plus whatever the plies do not account for. Each thing an explanation
needs that is not the plain move costs what its :class:`HumanModel` weight says: roughly the negative
natural logarithm of how often people do it, relative to making the move cleanly (cost 0). The
explanation with the least total cost wins; when another move sequence comes within
:attr:`HumanModel.margin` of it, the events cannot tell them apart and the recognizer asks (or waits for
what follows) instead of guessing.

>>> model = HumanModel()
>>> model.cost(nudges=1) < model.cost(displaced=1)
True
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HumanModel:
    """The weights of the things people do besides the move itself (the behaviour each stands for is in
    its field's description). Costs add up; 0 is a move made cleanly: lifted, carried, set down, a
    capture's victim taken off in view (before the mover, or after it was lifted)."""

    nudge: float = 2.0
    """A piece lifted and put back on its own square: adjusted, touched, picked up and reconsidered.
    Ordinary: a few moves in a hundred."""
    nudge_in_flight: float = 2.0
    """The same, while the moving piece is in the air, and neither before nor after it: an adjustment
    with the other hand. No rarer than one before or after the move as far as the events go: a piece
    straightened while the mover is in hand and one straightened after it landed leave the same events
    when the straightened piece is one the mover could have taken, so pricing either lower would make
    the board guess."""
    nudge_across_lift: float = 3.5
    """The same, begun before the moving piece left and ended while it was in the air: an adjustment still
    in one hand as the other lifts the mover. Rarer than one before the move or one made with the mover
    in hand; and a piece the mover could take that empties before it leaves and fills while it is in the
    air is that capture's victim taken off and the mover landing, not a piece held across the lift while
    the mover took another (priced as a nudge, that reading would make the board ask)."""
    stopover_off_path: float = 3.0
    """The moving piece set down on a square that is not on its way, then lifted and moved on (set on the
    wrong square and corrected). A stop on its way is a paused slide, and costs nothing."""
    displacement: float = 6.0
    """A capture whose victim never left its square as far as the sensors saw: the capturing piece set on
    it and the victim pushed off or taken away later. Possible, but far less likely than the victim
    lifted in view; and indistinguishable from the capturing piece held in the air."""
    stray: float = 7.0
    """A piece seen on an empty square where no move puts one, while the moving piece was not in the air,
    then gone again: a captured piece set down for a moment on its way off the board, a piece dropped and
    picked up. Rarer still than a capture by displacement, but an explanation with one beats none."""
    revision: float = 0.25
    """The last committed move replaced by another of the same player that moves the same pieces on (a
    slide paused on a legal square, rook-first castling): the explanation says the first commit was
    early. Only a tie-break: when the board committed is the board's choice, not the player's, so it
    weighs little against what the player's hands did."""
    flight_per_s: float = 0.1
    """Each second the moving piece is in the air, from leaving its square to landing: people carry a
    piece for a second or so, rarely for long (it tells which victim a capture took when a neighbour was
    also lifted, one right after the mover left, the other long after)."""
    flight_cap_s: float = 3.0
    """Beyond this many seconds in the air a piece held longer is no rarer: a person who stops to think
    mid-move (hesitations of several seconds are ordinary) may do so for any length, and a slow castling
    with a pause between its actions is still castling."""
    still_holding: float = 1.3
    """The board has been still for the settle time, yet the player is not done: a piece set down but
    not let go, or held over the board. Against it, a move made cleanly (cost 0) is taken at once."""
    still_holding_per_s: float = 2.4
    """Each further second the board stays still with the player not done: people seldom hold a piece
    still for more than two or three seconds (a capture by displacement, which looks exactly like the
    capturing piece held in the air, waits longer still: :attr:`held_s`)."""
    held_s: float = 5.0
    """How long a person may hold a lifted piece in the air while thinking, or between the actions of
    one move (hesitations of up to four seconds are ordinary): a capture by displacement, whose history
    is exactly that piece held, is believed only once the board has been still this long. Believed
    sooner, a piece held while its player thinks becomes a capture nobody made, and the move the player
    then makes is taken for the opponent's."""
    margin: float = 1.0
    """A different move sequence within this much of the best explanation is a rival the events cannot
    exclude: the recognizer asks which instead of choosing."""

    def still_wait_s(self, complete: float, unfinished: float) -> float:
        """How long the board must be still before an explanation costing ``complete`` beats the player
        still being at it after a cheapest start costing ``unfinished`` (0: at once)."""
        return max(0.0, (complete - unfinished - self.still_holding) / self.still_holding_per_s)

    def cost(
        self,
        *,
        nudges: int = 0,
        nudges_in_flight: int = 0,
        nudges_across_lift: int = 0,
        stopovers: int = 0,
        displaced: int = 0,
        revisions: int = 0,
        flight_s: float = 0.0,
        strays: int = 0,
    ) -> float:
        """The cost of an explanation that needs these."""
        return (
            self.stray * strays
            + self.nudge * nudges
            + self.nudge_in_flight * nudges_in_flight
            + self.nudge_across_lift * nudges_across_lift
            + self.stopover_off_path * stopovers
            + self.displacement * displaced
            + self.revision * revisions
            + self.flight_per_s * min(flight_s, self.flight_cap_s)
        )
