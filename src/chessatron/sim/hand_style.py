"""How a simulated person handles pieces: the catalogue of :data:`Behaviour` names (what people do at a
sensor board: slides, pauses, hesitations, capture and castling orders, nudges, touches, a piece set on
the wrong square, promotions, quick replies, flicker and sensor bounce), described in :data:`CATALOGUE`,
and :class:`HandStyle`, their timings, probabilities and weights. :mod:`.hand` turns moves into actions in
that style.

>>> HandStyle.only("slide").weight("slide"), HandStyle.only("slide").weight("pause")
(1.0, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, TypeAlias, get_args

from ..errors import ConfigError
from .trace import PROMOTION_LETTERS

Span: TypeAlias = tuple[float, float]
"""A range of seconds ``(shortest, longest)``; a value is drawn uniformly from it."""

Behaviour = Literal[
    "slide",
    "pause",
    "hesitate",
    "capture-victim-first",
    "capture-mover-first",
    "displacement",
    "nudge-before",
    "nudge-during",
    "nudge-after",
    "touch",
    "misplace",
    "flicker",
    "bounce",
    "castle-king-first",
    "castle-rook-first",
    "castle-both-king-down-first",
    "castle-both-rook-down-first",
    "ep-victim-before",
    "ep-victim-between",
    "ep-victim-after",
    "promote-reserve",
    "promote-prompt",
    "promote-default",
    "quick-reply",
]
BEHAVIOURS: tuple[Behaviour, ...] = get_args(Behaviour)

#: What each behaviour is, in the words of someone watching the player: the catalogue tests and the
#: benchmark iterate over (each can be forced on every ply with :meth:`HandStyle.only`).
CATALOGUE: dict[Behaviour, str] = {
    "slide": "a piece glides over the squares on its way (each seen for a moment)",
    "pause": "a gliding piece rests on a square on its way, often longer than the settle time",
    "hesitate": "a pause of 50 ms to several seconds between any two actions",
    "capture-victim-first": "the captured piece is taken off, then the capturing piece is moved",
    "capture-mover-first": "the capturing piece is lifted, the victim taken off, the capturing piece "
    "set down",
    "displacement": "the capturing piece is set on the victim, which is taken away after: that square "
    "never reads empty, even when the capturing piece had other captures",
    "nudge-before": "a piece near the move is adjusted (lifted and put back) before the move",
    "nudge-during": "a piece near the target is adjusted while the moving piece is in hand",
    "nudge-after": "a piece near the target is adjusted after the move",
    "touch": "an own piece is picked up, held and put back before a piece is moved",
    "misplace": "the moving piece is set on a wrong square next to its target, then moved on",
    "flicker": "a sensor reads wrong for a single scan",
    "bounce": "a sensor chatters as a piece arrives or leaves (reads back for one scan)",
    "castle-king-first": "castling: the king is moved, then the rook",
    "castle-rook-first": "castling: the rook is moved, then the king",
    "castle-both-king-down-first": "castling: king and rook both in hand, the king set down first",
    "castle-both-rook-down-first": "castling: king and rook both in hand, the rook set down first",
    "ep-victim-before": "en passant: the captured pawn is taken off first",
    "ep-victim-between": "en passant: the pawn is lifted, the captured pawn taken off, the pawn set down",
    "ep-victim-after": "en passant: the pawn is moved, then the captured pawn is taken off",
    "promote-reserve": "promotion: the new piece is taken from its reserve slot (a table trace sees which)",
    "promote-prompt": "promotion: the piece is named at a prompt",
    "promote-default": "promotion: nobody names the piece; the default is meant",
    "quick-reply": "the next move starts within the settle time of the last one",
}

#: Behaviours of which exactly one happens whenever the move allows it; their style fields are weights.
GROUPS: dict[str, tuple[Behaviour, ...]] = {
    "capture": ("capture-victim-first", "capture-mover-first", "displacement"),
    "castling": (
        "castle-king-first",
        "castle-rook-first",
        "castle-both-king-down-first",
        "castle-both-rook-down-first",
    ),
    "en passant": ("ep-victim-before", "ep-victim-between", "ep-victim-after"),
    "promotion": ("promote-reserve", "promote-prompt", "promote-default"),
}
#: Blips per second that :meth:`HandStyle.only` gives ``flicker``: a few in every ply.
FORCED_FLICKER_PER_S = 1.0
IllegalKind = Literal["wrong-square", "wrong-side", "knocked-over"]
_PROBABILITIES = (
    "slide",
    "pause",
    "hesitate",
    "nudge_before",
    "nudge_during",
    "nudge_after",
    "touch",
    "misplace",
    "bounce",
    "quick_reply",
    "keep_victim_in_hand",
    "pawn_visits_promotion_square",
)


def _field(behaviour: Behaviour) -> str:
    return behaviour.replace("-", "_")


@dataclass(frozen=True)
class HandStyle:
    """How a player handles pieces: timings in seconds, probabilities per opportunity, and weights for
    the behaviours of which one must happen (see :data:`GROUPS`). The defaults are :meth:`calm`.

    Raises :class:`~chessatron.errors.ConfigError` for a negative or inverted span, a probability
    outside 0..1, or a group whose weights are all zero.
    """

    reach_s: Span = (0.3, 0.8)
    """From the start of a turn to the hand reaching the first piece."""
    lift_s: Span = (0.08, 0.25)
    """From the hand reaching a piece to its sensor losing it."""
    carry_s: Span = (0.25, 0.5)
    """A lifted piece in the air, plus ``carry_per_square_s`` per square of distance."""
    carry_per_square_s: float = 0.05
    place_s: Span = (0.08, 0.2)
    """After a piece is set down, before the hand moves on."""
    slide_step_s: Span = (0.03, 0.12)
    """A sliding piece seen over each intermediate square."""
    slide_gap_s: Span = (0.02, 0.06)
    """A sliding piece between two squares, seen by neither sensor."""
    pause_s: Span = (0.1, 1.5)
    """A slide paused over one intermediate square."""
    hesitate_s: Span = (0.05, 4.0)
    """A hesitation between two actions, drawn log-uniformly (most are short, some last seconds)."""
    misplace_s: Span = (0.1, 2.5)
    """A piece set on a wrong square rests there this long before it is moved on."""
    push_s: Span = (0.0, 0.04)
    """Displacement: both pieces on the target before the victim is pushed off."""
    swap_s: Span = (0.08, 0.25)
    """Mover first after a slide: from the victim leaving its square to the mover set down there (the
    hand must clear the victim out of the way first; a shorter gap would read like a displacement)."""
    nudge_s: Span = (0.06, 0.25)
    """A nudged piece off its sensor."""
    touch_s: Span = (0.4, 2.0)
    """A touched piece held in the air before it is put back."""
    quick_reply_s: Span = (0.0, 0.1)
    """A quick reply: from the last board change of a ply to the start of the next."""
    prompt_s: Span = (0.3, 1.2)
    """From the end of a promotion to the choice at the prompt."""

    slide: float = 0.0
    """Probability that a piece with intermediate squares on its way glides over them."""
    pause: float = 0.0
    """Probability that a slide pauses over one intermediate square."""
    hesitate: float = 0.0
    """Probability that the player hesitates before any one action."""
    nudge_before: float = 0.0
    nudge_during: float = 0.0
    nudge_after: float = 0.0
    touch: float = 0.0
    misplace: float = 0.0
    """Probability that a moving piece is first set on a wrong square next to its target."""
    bounce: float = 0.0
    """Probability that a sensor chatters for one scan when a piece arrives or leaves it."""
    quick_reply: float = 0.0
    """Probability that a ply follows the one before inside a settle window."""
    flicker: float = 0.0
    """One-scan blips on random cells, per second of trace."""
    keep_victim_in_hand: float = 0.0
    """Victim first: probability that the victim stays in hand until the mover is down."""
    pawn_visits_promotion_square: float = 1.0
    """Probability that a promoting pawn is put on the last rank before it is exchanged."""

    capture_victim_first: float = 1.0
    capture_mover_first: float = 0.0
    displacement: float = 0.0
    castle_king_first: float = 1.0
    castle_rook_first: float = 0.0
    castle_both_king_down_first: float = 0.0
    castle_both_rook_down_first: float = 0.0
    ep_victim_before: float = 0.0
    ep_victim_between: float = 0.0
    ep_victim_after: float = 1.0
    promote_reserve: float = 0.0
    promote_prompt: float = 1.0
    promote_default: float = 0.0
    default_promotion: str = "q"
    """The piece the recognizer promotes to when nobody chose: ``promote-default`` is used only then."""

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if isinstance(value, tuple):
                low, high = value
                if not (math.isfinite(low) and math.isfinite(high) and 0 <= low <= high):
                    raise ConfigError(f"{spec.name} is {value!r}; use (shortest, longest) seconds, 0 <= both")
            elif isinstance(value, float) and not (math.isfinite(value) and value >= 0):
                raise ConfigError(f"{spec.name} is {value!r}; it must be zero or positive")
        for name in _PROBABILITIES:
            if getattr(self, name) > 1:
                raise ConfigError(f"{name} is {getattr(self, name)!r}; a probability is at most 1")
        for group, members in GROUPS.items():
            if not sum(getattr(self, _field(b)) for b in members) > 0:
                raise ConfigError(f"the {group} weights are all zero; give one of {members!r} a weight")
        if self.default_promotion not in PROMOTION_LETTERS:
            raise ConfigError(f"default_promotion is {self.default_promotion!r}; use one of q, r, b, n")

    @classmethod
    def calm(cls) -> HandStyle:
        """Deliberate moves and no noise: lift, carry, place; victim first; king first; prompt."""
        return cls()

    @classmethod
    def human(cls) -> HandStyle:
        """A realistic mix of every behaviour."""
        return cls(
            reach_s=(0.2, 1.0),
            carry_s=(0.15, 0.6),
            slide=0.45,
            pause=0.2,
            hesitate=0.04,
            nudge_before=0.05,
            nudge_during=0.03,
            nudge_after=0.1,
            touch=0.05,
            misplace=0.03,
            bounce=0.05,
            quick_reply=0.06,
            flicker=0.05,
            keep_victim_in_hand=0.3,
            pawn_visits_promotion_square=0.6,
            capture_victim_first=0.45,
            capture_mover_first=0.3,
            displacement=0.25,
            castle_king_first=0.45,
            castle_rook_first=0.2,
            castle_both_king_down_first=0.175,
            castle_both_rook_down_first=0.175,
            ep_victim_before=0.25,
            ep_victim_between=0.25,
            ep_victim_after=0.5,
            promote_reserve=0.4,
            promote_prompt=0.4,
            promote_default=0.2,
        )

    @classmethod
    def only(cls, behaviour: Behaviour) -> HandStyle:
        """:meth:`calm` with one behaviour forced whenever a move allows it (``pause`` forces slides too,
        ``flicker`` gives :data:`FORCED_FLICKER_PER_S` blips a second).

        >>> HandStyle.only("castle-rook-first").castle_king_first
        0.0
        """
        if behaviour not in BEHAVIOURS:
            raise ConfigError(f"unknown behaviour {behaviour!r}; use one of {', '.join(BEHAVIOURS)}")
        changes: dict[str, Any] = {}
        for members in GROUPS.values():
            if behaviour in members:
                changes.update({_field(b): 0.0 for b in members})
        changes[_field(behaviour)] = FORCED_FLICKER_PER_S if behaviour == "flicker" else 1.0
        if behaviour == "pause":
            changes["slide"] = 1.0
        return replace(cls.calm(), **changes)

    def weight(self, behaviour: Behaviour) -> float:
        """The style's probability or weight for a behaviour (blips per second for ``flicker``)."""
        return float(getattr(self, _field(behaviour)))
