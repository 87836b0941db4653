"""Dates: ISO, numeric and with month names (PL/EN/DE), and their roles (``date_from``, ``date_to``)."""

from __future__ import annotations

import re
from datetime import date

from .base import Fact, Text
from .words import MONTH, MONTHS


def _ymd(year: int, month: int, day: int) -> str | None:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def read_dates(t: Text, facts: list[Fact], lang: str, today: date) -> None:
    """ISO dates, day-month-year with month names (PL/EN/DE), numeric dates; then from/to roles."""
    found: list[tuple[int, int, str, int | None, int, int]] = []  # start, end, text, year, month, day
    year: int | None

    for m in t.finditer(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"):
        found.append((m.start(), m.end(), m.group(0), int(m.group(1)), int(m.group(2)), int(m.group(3))))
    for m in t.finditer(r"\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b"):
        a, b, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        # Dots are day-first everywhere we care about; slashes are month-first in English unless impossible.
        day, month = (a, b) if ("." in m.group(0) or lang != "en" or a > 12) else (b, a)
        found.append((m.start(), m.end(), m.group(0), year, month, day))
    for m in t.finditer(r"\b(\d{1,2})(?:st|nd|rd|th)?\.?\s+(?:of\s+)?" + MONTH + r"(?:,?\s+(\d{4}))?\b"):
        year = int(m.group(3)) if m.group(3) else None
        found.append((m.start(), m.end(), m.group(0), year, MONTHS[m.group(2).lower()], int(m.group(1))))
    for m in t.finditer(r"\b" + MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?\b"):
        if any(s <= m.start() < e for s, e, *_ in found):
            continue
        # "May 1" is a date only with a year or a date word before it ("you may 5 ..." is not).
        cue = re.search(
            r"(from|to|on|since|until|till|between|and|od|do|vom|bis|am|seit)\s*$",
            t.original[max(0, m.start() - 10) : m.start()],
            re.I,
        )
        if not (m.group(3) or cue):
            continue
        year = int(m.group(3)) if m.group(3) else None
        found.append((m.start(), m.end(), m.group(0), year, MONTHS[m.group(1).lower()], int(m.group(2))))
    found.sort()
    # Overlapping matches: keep the first (longest-first is implied by the order of the patterns).
    dates: list[tuple[int, int, str, str]] = []
    last_end = -1
    years: list[int] = [y for *_, y, _, _ in found if y]
    for start, end, text, year, month, day in found:
        if start < last_end:
            continue
        iso = _ymd(year or (years[-1] if years else today.year), month, day)
        if iso:
            dates.append((start, end, text, iso))
            last_end = end
    if not dates:
        return
    for start, end, *_ in dates:
        t.mask(start, end)
    roles: dict[str, tuple[int, str, str]] = {}
    for start, _end, text, iso in dates:
        before = t.original[max(0, start - 14) : start].lower()
        if re.search(r"(from|since|after|starting|od|vom|von|seit|ab|between|zwischen|między)\s*$", before):
            roles.setdefault("date_from", (start, iso, text))
        elif re.search(r"(to|until|till|through|before|by|do|bis|and|und|i|-|–)\s*$", before):
            roles.setdefault("date_to", (start, iso, text))
        elif "date_from" not in roles:
            roles["date_from"] = (start, iso, text)
        else:
            roles.setdefault("date_to", (start, iso, text))
    if "date_from" in roles and "date_to" not in roles and len(dates) == 1:
        before = t.original[max(0, dates[0][0] - 14) : dates[0][0]].lower()
        if not re.search(r"(from|since|after|starting|od|vom|von|seit|ab)\s*$", before):
            roles["date_to"] = roles["date_from"]  # "on 2024-05-01": a one-day range
    for kind, (start, iso, text) in roles.items():
        facts.append(Fact(kind, iso, start, text))
