"""Names that must be known: a typo in a config key, a layout section or a device URL's option is an error
that names the closest known name and lists the others, never a silent default.

>>> unknown("key", "urll", ("url", "baudrate", "home"), where="[grbl]")
"unknown key 'urll' in [grbl]; did you mean 'url'? (known: baudrate, home, url)"
>>> unknown("option", "flicer", ("flicker", "seed"), scheme="sim")
"unknown option 'flicer' in a sim:// URL; did you mean 'flicker'? (known: flicker, seed)"
"""

from __future__ import annotations

import difflib
from collections.abc import Collection

from .i18n import N_, _, pgettext

#: What can be unknown, by the word callers give: alone, and in a place (``where``: ``[grbl]``, ``[[zone]]
#: #2``, a config section or layout table as the file writes it).
_UNKNOWN: dict[str, tuple[str, str]] = {
    "key": (N_("unknown key {name!r}"), N_("unknown key {name!r} in {where}")),
    "section": (N_("unknown section {name!r}"), N_("unknown section {name!r} in {where}")),
    "option": (N_("unknown option {name!r}"), N_("unknown option {name!r} in {where}")),
    "button": (N_("unknown button {name!r}"), N_("unknown button {name!r} in {where}")),
}


def closest(name: str, known: Collection[str]) -> str | None:
    """The known name ``name`` is most likely a typo of, if any is close enough."""
    matches = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    if not matches:
        # a different case or separator is a typo too: 'Square_MM', 'square-mm'
        folded = {k.lower().replace("-", "_"): k for k in known}
        return folded.get(name.lower().replace("-", "_"))
    return matches[0]


def unknown(what: str, name: str, known: Collection[str], *, where: str = "", scheme: str = "") -> str:
    """The message for an unknown ``what`` (``key``, ``section``, ``option``, ``button``) called ``name``,
    in the current language; ``where`` names the place as the file writes it (``[grbl]``), ``scheme`` the
    device URL's whose option it is (``sim``)."""
    alone, placed = _UNKNOWN.get(what, _UNKNOWN["key"])
    if scheme:
        problem = _("unknown option {name!r} in a {scheme}:// URL").format(name=name, scheme=scheme)
    elif where:
        problem = _(placed).format(name=name, where=where)
    else:
        problem = _(alone).format(name=name)
    guess = closest(name, known)
    listing = ", ".join(sorted(known)) or pgettext("known names", "none")
    if guess is not None:
        return _("{problem}; did you mean {guess!r}? (known: {known})").format(
            problem=problem, guess=guess, known=listing
        )
    return _("{problem} (known: {known})").format(problem=problem, known=listing)
