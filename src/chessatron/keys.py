"""Names that must be known: a typo in a config key, a layout section or a device URL's option is an error
that names the closest known name and lists the others, never a silent default.

>>> unknown("key", "urll", ("url", "baudrate", "home"), where="[grbl]")
"unknown key 'urll' in [grbl]; did you mean 'url'? (known: baudrate, home, url)"
"""

from __future__ import annotations

import difflib
from collections.abc import Collection


def closest(name: str, known: Collection[str]) -> str | None:
    """The known name ``name`` is most likely a typo of, if any is close enough."""
    matches = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    if not matches:
        # a different case or separator is a typo too: 'Square_MM', 'square-mm'
        folded = {k.lower().replace("-", "_"): k for k in known}
        return folded.get(name.lower().replace("-", "_"))
    return matches[0]


def unknown(what: str, name: str, known: Collection[str], *, where: str = "") -> str:
    """The message for an unknown ``what`` (a key, a section, an option) called ``name``."""
    place = f" in {where}" if where else ""
    guess = closest(name, known)
    hint = f"; did you mean {guess!r}?" if guess is not None else ""
    listing = ", ".join(sorted(known)) or "none"
    return f"unknown {what} {name!r}{place}{hint} (known: {listing})"
