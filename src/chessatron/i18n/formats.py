"""Numbers, dates, times and lists the way the current language writes them, by Babel's locale data
(``+0,35`` in German, ``29/11/2026`` in French, "Nbd2 ou Nfd2").

>>> from chessatron.i18n import using
>>> with using("de"):
...     decimal(0.35, 2, signed=True), date_time(datetime.datetime(2026, 11, 29, 14, 5)), either(["a", "b"])
('+0,35', '29.11.26, 14:05', 'a oder b')
>>> decimal(1234.5, 1), both(["a", "b", "c"])
('1,234.5', 'a, b, and c')
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from babel import Locale
from babel.dates import format_date, format_datetime, format_time
from babel.lists import format_list
from babel.numbers import format_decimal, format_percent

from . import PSEUDO, current_language

__all__ = ["both", "date", "date_time", "decimal", "either", "locale", "percent", "time_of_day"]


def locale() -> Locale:
    """Babel's locale for the current language (the pseudo-language writes as English)."""
    language = current_language()
    return Locale.parse("en" if language == PSEUDO else language)


def decimal(value: float, places: int = 0, *, signed: bool = False) -> str:
    """``value`` with exactly ``places`` decimals, in the language's digits and separators; ``signed``:
    with ``+`` before a positive value."""
    pattern = "#,##0" + ("." + "0" * places if places else "")
    text = format_decimal(round(value, places), format=pattern, locale=locale())
    return "+" + text if signed and value > 0 else text


def percent(share: float, places: int = 0) -> str:
    """``share`` (0 to 1) as a percentage (``42 %`` in French, ``42%`` in English)."""
    pattern = "#,##0" + ("." + "0" * places if places else "") + "%"
    return format_percent(share, format=pattern, locale=locale())


def date(value: datetime.date | datetime.datetime) -> str:
    """A day, the language's medium form (``29 Nov 2026``, ``29.11.2026``)."""
    return format_date(value, format="medium", locale=locale())


def date_time(value: datetime.datetime) -> str:
    """A day and time of day, the language's short form."""
    return format_datetime(value, format="short", locale=locale())


def time_of_day(value: datetime.datetime | datetime.time) -> str:
    """A time of day, the language's short form (``2:05 PM``, ``14:05``)."""
    return format_time(value, format="short", locale=locale())


def either(items: Sequence[str]) -> str:
    """Items joined as alternatives (``a, b, or c``; ``a, b ou c``)."""
    return format_list(list(items), style="or", locale=locale())


def both(items: Sequence[str]) -> str:
    """Items joined as all of them (``a, b, and c``; ``a, b und c``)."""
    return format_list(list(items), style="standard", locale=locale())
