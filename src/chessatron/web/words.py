"""The page's words in the page's language: the catalog its scripts translate with, and the language of
each request.

The page's scripts and HTML mark their messages (``t("...")``, ``tn("one", "many", n)``, ``data-i18n``;
see :mod:`chessatron.i18n.extract`); ``GET /i18n/{language}.json`` answers the translations of exactly
those, read from the package's catalogs (the pseudo-language's made by the same functions), with the
language's piece letters::

    {"language": "de", "name": "Deutsch", "letters": "KDTLS",
     "messages": {"Your move": "Du bist am Zug", ...},
     "plurals": {"{count} move": ["{count} Zug", "{count} Züge"], ...}}

A message without a translation is left out (the page shows it in English). The page chooses its language
(the browser's, or the one the table is set to, or the person's choice on the page) and says it on every
request (``Accept-Language``, or ``?lang=``): :class:`Speaking` makes that the language of the texts the
server writes while it answers (a refusal's reason), with :func:`chessatron.i18n.using`. A request that
names no language the table speaks is answered in the table's language.

>>> spoken("de-DE,de;q=0.9,en;q=0.8"), spoken("pt-BR, fr;q=0.5"), spoken("*"), spoken("en;q=0, nl")
('de', 'fr', None, 'nl')
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from babel.messages.extract import extract_from_file
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from ..i18n import LANGUAGES, PSEUDO, _, normalize, translations, using
from ..i18n.extract import KEYWORDS, PAGE_METHODS
from ..i18n.notation import letters

__all__ = ["Speaking", "catalog_route", "page_catalog", "page_messages", "request_language", "spoken"]


#: A message of the page: its id, and the plural's id for a count's message (None for the others).
Message = tuple[str, str | None]


@functools.cache
def page_messages(static: Path) -> tuple[Message, ...]:
    """Every message the page's scripts and HTML in ``static`` mark, in the order found (read once)."""
    found: dict[Message, None] = {}
    for pattern, method in PAGE_METHODS:
        for path in sorted(static.glob(pattern)):
            for _line, message, _comments, _context in extract_from_file(
                method, str(path), keywords=KEYWORDS
            ):
                if isinstance(message, tuple):
                    found[(message[0], message[1])] = None
                elif message:
                    found[(message, None)] = None
    return tuple(found)


@functools.cache
def page_catalog(static: Path, language: str) -> dict[str, Any]:
    """The page's messages in ``language`` (a code of :data:`~chessatron.i18n.LANGUAGES`, or the
    pseudo-language), as ``GET /i18n/{language}.json`` answers them."""
    catalog = translations(language)
    messages: dict[str, str] = {}
    plurals: dict[str, list[str]] = {}
    for singular, plural in page_messages(static):
        if plural is None:
            text = catalog.gettext(singular)
            if text != singular:
                messages[singular] = text
            continue
        forms = [catalog.ngettext(singular, plural, 1), catalog.ngettext(singular, plural, 2)]
        if forms != [singular, plural]:
            plurals[singular] = forms
    return {
        "language": language,
        "name": LANGUAGES.get(language, language),
        "letters": letters(language),
        "messages": messages,
        "plurals": plurals,
    }


def spoken(header: str) -> str | None:
    """The first language the table speaks in an ``Accept-Language`` header, by its weights; None when
    it names none."""
    weighted = []
    for index, part in enumerate(header.split(",")):
        name, _semicolon, params = part.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            key, _equals, value = param.strip().partition("=")
            if key == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if weight > 0:
            weighted.append((-weight, index, name.strip()))
    for _weight, _index, name in sorted(weighted):
        code = normalize(name) if name != "*" else None
        if code is not None:
            return code
    return None


def request_language(connection: HTTPConnection) -> str | None:
    """The language a request asks to be answered in (``?lang=``, else ``Accept-Language``), None when it
    names none the table speaks."""
    asked = normalize(connection.query_params.get("lang"))
    if asked is not None:
        return asked
    return spoken(connection.headers.get("accept-language", ""))


class Speaking:
    """Each request is answered in the language it asks for (:func:`request_language`): the texts the
    server writes meanwhile (a refusal's reason, a notice page) are in that language."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        language = request_language(HTTPConnection(scope))
        if language is None:
            await self.app(scope, receive, send)
            return
        with using(language):
            await self.app(scope, receive, send)


def catalog_route(static: Path) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``GET /i18n/{language}.json`` for the page in ``static``."""

    async def catalog(request: Request) -> Response:
        language = str(request.path_params["language"]).lower()
        if language not in LANGUAGES and language != PSEUDO:
            message = _("the page has no words in {language!r}; it speaks {languages}").format(
                language=language[:20], languages=", ".join(LANGUAGES)
            )
            return JSONResponse({"error": message}, 404)
        return JSONResponse(page_catalog(static, language), headers={"cache-control": "no-cache"})

    return catalog
