"""The language catalogs against the code: every message the code marks is in every language's catalog,
translated, with the English placeholders; the catalogs compile and every translation can be filled in.
(``make messages`` brings the catalogs up to date; docs/languages.md says how a language is added.)"""

from __future__ import annotations

import string
from collections.abc import Iterator

import pytest
from babel.messages.catalog import Catalog, Message

from chessatron.i18n import LANGUAGES, PSEUDO, catalog_path, translations, using
from chessatron.i18n.extract import placeholders, read_catalog

TRANSLATED = [code for code in LANGUAGES if code != "en"]


@pytest.fixture
def marked(marked_messages: Catalog) -> Catalog:
    return marked_messages


def _key(message: Message) -> tuple[str | None, str]:
    msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
    return message.context, str(msgid)


def _messages(catalog: Catalog) -> Iterator[Message]:
    return (message for message in catalog if message.id)


def _forms(message: Message) -> list[str]:
    value = message.string
    return [str(form) for form in value] if isinstance(value, tuple | list) else [str(value or "")]


def _english(message: Message) -> list[str]:
    return [str(form) for form in message.id] if isinstance(message.id, tuple | list) else [str(message.id)]


def test_the_code_marks_its_texts(marked: Catalog) -> None:
    """The code marks thousands of texts (the terminal's, the page's, the errors'): extraction finds them,
    in the Python modules, the page's scripts and its HTML."""
    found = list(_messages(marked))
    assert len(found) > 2000
    places = {location[0].rsplit(".", 1)[-1] for message in found for location in message.locations}
    assert {"py", "js", "html"} <= places


def test_every_catalog_has_every_message_the_code_marks_translated(marked: Catalog) -> None:
    for language in TRANSLATED:
        _check_catalog(marked, language)


def _check_catalog(marked: Catalog, language: str) -> None:
    catalog = read_catalog(catalog_path(language), language)
    have = {_key(message): message for message in _messages(catalog)}
    missing = [key for key in map(_key, _messages(marked)) if key not in have]
    assert not missing, f"{language}: {len(missing)} marked messages not in the catalog, e.g. {missing[:5]}"
    untranslated = [
        key for key in map(_key, _messages(marked)) if not all(_forms(have[key])) or not have[key].string
    ]
    assert not untranslated, (
        f"{language}: {len(untranslated)} messages untranslated (make messages, then translate), "
        f"e.g. {untranslated[:5]}"
    )
    wanted = {_key(message) for message in _messages(marked)}
    stale = [key for key in have if key not in wanted]
    assert not stale, f"{language}: messages the code no longer marks (make messages): {stale[:5]}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_translation_keeps_the_placeholders_of_the_english(language: str) -> None:
    catalog = read_catalog(catalog_path(language), language)
    wrong = []
    for message in _messages(catalog):
        english = _english(message)
        allowed = {tuple(placeholders(form)) for form in english}
        for form in _forms(message):
            if form and tuple(placeholders(form)) not in allowed:
                wrong.append((english[0], form))
    assert not wrong, f"{language}: placeholders differ from the English: {wrong[:5]}"


def test_every_translation_can_be_filled_in(marked: Catalog) -> None:
    """A stray brace or a placeholder the code does not give would end in a traceback before a person."""
    for language in [*TRANSLATED, PSEUDO]:
        _check_filled_in(marked, language)


def _check_filled_in(marked: Catalog, language: str) -> None:
    formatter = string.Formatter()

    class Value:
        def __format__(self, spec: str) -> str:
            return "x"

        def __repr__(self) -> str:
            return "'x'"

    broken = []
    with using(language):
        table = translations(language)
        for message in _messages(marked):
            english = _english(message)
            if not any("{" in form for form in english):
                continue
            values = {name: Value() for form in english for name in placeholders(form)}
            try:
                for form in english:
                    formatter.vformat(form, (), values)
            except (KeyError, ValueError, IndexError):
                continue  # braces that are no placeholders (a JSON example): the code does not fill them
            if message.context:
                shown = table.pgettext(message.context, english[0])
            elif len(english) > 1:
                shown = table.ngettext(english[0], english[1], 2)
            else:
                shown = table.gettext(english[0])
            try:
                formatter.vformat(shown, (), values)
            except (KeyError, ValueError, IndexError) as exc:
                broken.append((english[0], shown, str(exc)))
    assert not broken, f"{language}: translations that cannot be filled in: {broken[:5]}"
