"""Issue 39's figure: per language, the share of the messages the code marks that its catalog translates
(goal: 100 %), and how many of them are still missing.

    python -m bench.languages
"""

from __future__ import annotations

from babel.messages.catalog import Message

from chessatron.i18n import LANGUAGES, catalog_path
from chessatron.i18n.extract import read_catalog, template


def _key(message: Message) -> tuple[str | None, str]:
    msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
    return message.context, str(msgid)


def _translated(message: Message) -> bool:
    value = message.string
    return all(value) if isinstance(value, tuple | list) else bool(value)


def main() -> None:
    marked = [_key(message) for message in template() if message.id]
    print(f"languages: {len(marked)} messages marked for translation in the code (Python, the page)")
    for language, name in LANGUAGES.items():
        if language == "en":
            print(f"  en {name:<11} {len(marked)}/{len(marked)} 100.0 % (the messages are English)")
            continue
        catalog = read_catalog(catalog_path(language), language)
        have = {_key(message): message for message in catalog if message.id}
        done = sum(1 for key in marked if key in have and _translated(have[key]))
        share = 100 * done / max(len(marked), 1)
        print(f"  {language} {name:<11} {done}/{len(marked)} {share:.1f} % translated (goal 100 %)")


if __name__ == "__main__":
    main()
