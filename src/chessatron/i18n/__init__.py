"""The table's words in the player's language: gettext catalogs beside the code, chosen per process
(``--lang``, the config's ``language``, the environment's locale) and, for one request of the web page, per
context.

Every text a person meets is marked where it is written, as a whole sentence with named placeholders, so
that a language may put the words in its own order::

    from chessatron.i18n import _, ngettext
    print(_("The robot moves {piece} to {square}.").format(piece=name, square="e4"))
    print(ngettext("{count} move", "{count} moves", count).format(count=count))

A text kept in a module-level constant is marked with :func:`N_` and translated where it is shown
(``_(CONSTANT)``). Log records and the JSON API's keys and codes stay English.

The catalogs are ``locale/<code>/LC_MESSAGES/chessatron.po`` in the package, compiled to ``.mo`` when the
package is built (``setup.py``); a source checkout without the ``.mo`` compiles the ``.po`` in memory with
Babel when the language is first used. ``pseudo`` is a made-up language that wraps and accents every
message, for finding text that escaped translation.

>>> set_language("en")
'en'
>>> _("Your move")
'Your move'
>>> with using("pseudo"):
...     _("Your move {name}")
'⟦Ŷöüŕ ɱöṽé {name}⟧'
>>> normalize("de_DE.UTF-8"), normalize("fr-CA"), normalize("C"), normalize("klingon")
('de', 'fr', 'en', None)
"""

from __future__ import annotations

import contextlib
import contextvars
import gettext as _gettext
import io
import os
import threading
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path

from ..errors import ConfigError

__all__ = [
    "DOMAIN",
    "LANGUAGES",
    "N_",
    "PSEUDO",
    "_",
    "catalog_path",
    "choose_language",
    "current_language",
    "explicit_language",
    "language_from_environment",
    "ngettext",
    "normalize",
    "parse_language",
    "pgettext",
    "set_language",
    "translations",
    "using",
]

DOMAIN = "chessatron"

#: The languages the table speaks, each by its own name (the settings page and the page's switch list them).
LANGUAGES: Mapping[str, str] = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "nl": "Nederlands",
    "it": "Italiano",
}

#: The made-up language that wraps and accents every message (``--lang pseudo``): text that shows unwrapped
#: escaped translation.
PSEUDO = "pseudo"

_ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "àƀçđéƒĝĥîĵķĺɱñöƥʠŕšţüṽŵẋýžÀßÇĐÉƑĜĤÎĴĶĹṀÑÖƤǪŔŠŢÜṼŴẊŶŽ",
)


def _pseudo(message: str) -> str:
    """``message`` accented outside its ``{placeholders}`` and wrapped in ⟦ ⟧."""
    out: list[str] = []
    depth = 0
    for char in message:
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        out.append(char if depth or char == "}" else char.translate(_ACCENTED))
    return "⟦" + "".join(out) + "⟧"


class _PseudoTranslations(_gettext.NullTranslations):
    def gettext(self, message: str) -> str:
        return _pseudo(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return _pseudo(msgid1 if n == 1 else msgid2)

    def pgettext(self, context: str, message: str) -> str:
        return _pseudo(message)

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return _pseudo(msgid1 if n == 1 else msgid2)


def normalize(code: str | None) -> str | None:
    """The table's language for a locale or language name (``de_DE.UTF-8``, ``fr-CA``, ``Deutsch``), ``en``
    for the C locale, None for a language the table does not speak."""
    if not code:
        return None
    text = code.strip()
    if text.lower() == PSEUDO:
        return PSEUDO
    if text in ("C", "POSIX") or text.startswith(("C.", "POSIX.")):
        return "en"
    base = text.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    if base in LANGUAGES:
        return base
    for key, name in LANGUAGES.items():
        if name.lower() == text.lower():
            return key
    return None


def parse_language(text: str) -> str:
    """A language the person named (``--lang``, the config's ``language``); raises :class:`ConfigError`
    naming the languages there are.

    >>> parse_language("NL")
    'nl'
    >>> parse_language("pt")
    Traceback (most recent call last):
    ...
    chessatron.errors.ConfigError: the table does not speak 'pt'; choose one of en, de, fr, es, nl, it
    """
    code = normalize(text)
    if code is None:
        raise ConfigError(
            _("the table does not speak {language!r}; choose one of {languages}").format(
                language=text, languages=", ".join(LANGUAGES)
            )
        )
    return code


def language_from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language of the environment's locale as gettext reads it (``LANGUAGE``'s list, then ``LC_ALL``,
    ``LC_MESSAGES``, ``LANG``); English when none of them names a language the table speaks."""
    env = os.environ if environ is None else environ
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(variable)
        if not value:
            continue
        for part in value.split(":"):
            code = normalize(part)
            if code is not None:
                return code
        if variable != "LANGUAGE":
            # the first variable set is the locale, as for gettext; a locale the table does not speak
            # means English, not a variable further down
            return "en"
    return "en"


def choose_language(
    flag: str | None = None, configured: str | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """The language a program speaks: ``flag`` (``--lang``) when given, else ``configured`` (the config's
    ``[player] language``), else the environment's locale (:func:`language_from_environment`). A ``flag``
    the table does not speak raises :class:`ConfigError`; a ``configured`` one is passed over (the config's
    checker names it).

    >>> choose_language("de", "fr"), choose_language(None, "fr")
    ('de', 'fr')
    >>> choose_language(None, None, {"LANG": "nl_NL.UTF-8"})
    'nl'
    """
    if flag is not None:
        return parse_language(flag)
    code = normalize(configured) if configured else None
    return code if code is not None else language_from_environment(environ)


def catalog_path(code: str) -> Path:
    """Where ``code``'s catalog (``.po``) is in the package."""
    root = Path(str(resources.files("chessatron"))) / "locale"
    return root / code / "LC_MESSAGES" / f"{DOMAIN}.po"


_LOCK = threading.Lock()
_LOADED: dict[str, _gettext.NullTranslations] = {}


def _load(code: str) -> _gettext.NullTranslations:
    if code == PSEUDO:
        return _PseudoTranslations()
    po = catalog_path(code)
    mo = po.with_suffix(".mo")
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as handle:
            return _gettext.GNUTranslations(handle)
    if not po.exists():
        return _gettext.NullTranslations()
    # a source checkout: compile the catalog in memory (Babel is what `setup.py` compiles with too)
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as handle:
        catalog = read_po(handle, locale=code, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return _gettext.GNUTranslations(buffer)


def translations(code: str) -> _gettext.NullTranslations:
    """The loaded catalog of ``code`` (English: none, the messages are English)."""
    if code == "en":
        return _ENGLISH
    found = _LOADED.get(code)  # (a dict's get is atomic: no lock once loaded, for every message said)
    if found is not None:
        return found
    with _LOCK:
        found = _LOADED.get(code)
        if found is None:
            found = _LOADED[code] = _load(code)
        return found


_ENGLISH = _gettext.NullTranslations()
_process: list[str] = ["en"]
_explicit: list[str | None] = [None]
_context: contextvars.ContextVar[str | None] = contextvars.ContextVar("chessatron_language", default=None)


def set_language(code: str, *, explicit: bool = False) -> str:
    """Make ``code`` (a name :func:`parse_language` takes) the process's language; returns its code.
    ``explicit``: the person chose it (``--lang``, the config), rather than the environment's locale: the
    web page then speaks it to every browser (:func:`explicit_language`)."""
    found = parse_language(code)
    translations(found)
    _process[0] = found
    _explicit[0] = found if explicit else None
    return found


def explicit_language() -> str | None:
    """The process's language when the person chose it (``--lang``, the config); None when it is only the
    environment's locale, which a browser's preference may override."""
    return _explicit[0]


def current_language() -> str:
    """The language the words are in here and now: the context's (:func:`using`), else the process's."""
    return _context.get() or _process[0]


@contextlib.contextmanager
def using(code: str) -> Iterator[str]:
    """Words in ``code`` within the block, in this thread or task only (one request of the web page)."""
    found = parse_language(code)
    token = _context.set(found)
    try:
        yield found
    finally:
        _context.reset(token)


def _active() -> _gettext.NullTranslations:
    return translations(current_language())


def _(message: str) -> str:
    """``message`` in the current language."""
    return _active().gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a message that fits ``count`` in the current language (the count is still a placeholder
    of the message: ``ngettext("{count} move", "{count} moves", n).format(count=n)``)."""
    return _active().ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language where the English word alone is ambiguous (``pgettext("piece",
    "Bishop")``)."""
    return _active().pgettext(context, message)


def N_(message: str) -> str:
    """Mark ``message`` for translation where it is written (a constant); translate it with :func:`_` where
    it is shown."""
    return message
