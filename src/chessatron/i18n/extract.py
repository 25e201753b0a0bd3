"""The catalogs' workflow: every message the code marks, found with Babel (Python's ``_``/``ngettext``/
``pgettext``/``N_``, the page's ``t``/``tn`` in its scripts, ``data-i18n`` in its HTML), and each language's
``.po`` brought up to date with it (``scripts/messages``; the test of the catalogs reads the same list).

In the page's HTML an element with ``data-i18n`` has its text (spaces collapsed) as the message, and
``data-i18n-attrs="title aria-label"`` makes those attributes' values messages too.

>>> import io
>>> html = b'<p data-i18n>Your  move</p><button data-i18n-attrs="title" title="Flip the board">x</button>'
>>> sorted(message for _, _, message, _ in extract_html(io.BytesIO(html), (), (), {}))
['Flip the board', 'Your move']
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import IO, Any

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po, write_po

from . import DOMAIN, LANGUAGES

__all__ = [
    "KEYWORDS",
    "PACKAGE",
    "PAGE_METHODS",
    "extract_html",
    "placeholders",
    "read_catalog",
    "template",
    "update_catalogs",
]

PACKAGE = Path(__file__).resolve().parent.parent

#: The page's files that hold messages, in its static folder, and how each is read (the board widget in
#: vendor/ holds none of ours).
PAGE_METHODS = (("*.js", "javascript"), ("*.html", "chessatron.i18n.extract:extract_html"))
_METHODS = [
    ("web/static/vendor/**", "ignore"),
    ("**.py", "python"),
    *((f"web/static/{pattern}", method) for pattern, method in PAGE_METHODS),
]
#: The marking functions: Python's (Babel's defaults) and the page's ``t`` and ``tn``.
KEYWORDS: dict[str, Any] = {**DEFAULT_KEYWORDS, "t": None, "tn": (1, 2)}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)?(?:![rsa])?(?::[^{}]*)?\}")


def placeholders(message: str) -> list[str]:
    """The ``{name}`` placeholders of a message, sorted (a translation must keep the same ones).

    >>> placeholders("{piece} to {square!r}, {count:d} left")
    ['count', 'piece', 'square']
    """
    return sorted(match.group(1) or "" for match in _PLACEHOLDER.finditer(message))


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._stack: list[tuple[str, int, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        line = self.getpos()[0]
        for name in (values.get("data-i18n-attrs") or "").split():
            if values.get(name):
                self.found.append((line, str(values[name])))
        for open_tag in self._stack:
            open_tag[2].append("")
        if "data-i18n" in values:
            self._stack.append((tag, line, []))

    def handle_endtag(self, tag: str) -> None:
        if self._stack and self._stack[-1][0] == tag:
            _, line, parts = self._stack.pop()
            text = " ".join("".join(parts).split())
            if text:
                self.found.append((line, text))

    def handle_data(self, data: str) -> None:
        if self._stack:
            self._stack[-1][2].append(data)


def extract_html(
    fileobj: IO[bytes], keywords: Collection[str], comment_tags: Collection[str], options: Mapping[str, Any]
) -> Iterator[tuple[int, str, str, list[str]]]:
    """A Babel extractor for the page's HTML: ``data-i18n`` texts and ``data-i18n-attrs`` attributes."""
    collector = _Collector()
    collector.feed(fileobj.read().decode("utf-8"))
    collector.close()
    for line, text in sorted(collector.found):
        yield line, "_", text, []


def template() -> Catalog:
    """Every message the package marks, as a catalog without translations."""
    catalog = Catalog(domain=DOMAIN, project="chessatron", charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
        str(PACKAGE),
        method_map=_METHODS,
        keywords=KEYWORDS,
        comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
    ):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def read_catalog(path: Path, language: str) -> Catalog:
    """A language's catalog as it is in the repository."""
    with path.open("rb") as handle:
        return read_po(handle, locale=language, domain=DOMAIN)


def update_catalogs(root: Path | None = None) -> dict[str, tuple[int, int]]:
    """Bring each language's ``.po`` up to date with the code's messages (new ones untranslated, gone ones
    dropped); returns each language's (translated, all) counts."""
    from . import catalog_path

    base = template()
    counts = {}
    for language in LANGUAGES:
        if language == "en":
            continue
        path = catalog_path(language) if root is None else root / language / "LC_MESSAGES" / f"{DOMAIN}.po"
        if path.exists():
            catalog = read_catalog(path, language)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=language, domain=DOMAIN, project="chessatron", charset="utf-8")
        catalog.update(base, no_fuzzy_matching=True)
        catalog.fuzzy = False  # the header: its Plural-Forms must reach the compiled catalog
        catalog.obsolete.clear()
        with path.open("wb") as handle:
            write_po(handle, catalog, width=110, include_lineno=False, sort_output=True)
        messages = [message for message in catalog if message.id]
        done = len([message for message in messages if _is_translated(message.string)])
        counts[language] = (done, len(messages))
    return counts


def _is_translated(string: str | tuple[str, ...] | list[str] | None) -> bool:
    if isinstance(string, tuple | list):
        return all(string)
    return bool(string)
