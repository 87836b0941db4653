"""Fill a date range ("from" / "to") into a page's date fields, each in the field's own format.

Dates come in as ISO (``2024-05-07``). A native ``input[type=date]`` takes them as they are; a text
field gets the format it shows: its placeholder ("DD.MM.YYYY", "dd.mm.rrrr", "TT.MM.JJJJ",
"MM/DD/YYYY"), its ``pattern`` attribute, or the date already in it ("31.01.2024"); failing those,
the usual format of the page's language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from ...errors import FieldNotFound, ToolError
from ...text import fold
from ...tool import ToolContext, require_page
from ..page_helpers import (
    Field,
    PageWatch,
    closeness,
    fill_value,
    has_word,
    scan_fields,
    submit_from,
)
from ..page_helpers import (
    side_score as page_side_score,
)

SIDES = {
    "from": (
        r"od|from|von|ab|start\w*|begin\w*|beginn|since|check in|checkin|arrival|przyjazd\w*|przylot\w*|"
        r"zameldowan\w*|anreise\w*|depart\w*|wylot\w*|hinflug|hinreise|poczat\w*|earliest"
    ),
    "to": (
        r"do|to|bis|end\w*|koniec|konca|until|till|check out|checkout|wyjazd\w*|wymeldowan\w*|abreise\w*|"
        r"return\w*|powrot\w*|ruckflug|ruckreise|latest"
    ),
}
DATE_WORDS = (
    r"data|daty|date[sn]?|datum|termin\w*|dzien|day|tag|check in|check out|checkin|checkout|arrival|"
    r"departure|przyjazd\w*|wyjazd\w*|przylot\w*|wylot\w*|anreise|abreise|hinflug|ruckflug|return|powrot\w*"
)
TEXT_TYPES = {"text", "", "date", "search"}
LOOKED_FOR = (
    "input[type=date], and text fields showing a date format (placeholder/pattern/value) or labelled "
    "like 'Data od/do', 'Check-in/out', 'Departure/Return date', 'Datum von/bis'"
)


@dataclass(frozen=True)
class DateFormat:
    """How a field writes a date: the order of day, month and year, the separator and the widths."""

    order: str = "YMD"  # of "D", "M", "Y"
    sep: str = "-"
    day: int = 2  # 1: no leading zero
    month: int = 2
    year: int = 4  # 2: two digits
    native: bool = False  # input[type=date]: always ISO

    @property
    def label(self) -> str:
        """ "DD.MM.YYYY"-style name of the format."""
        parts = {"D": "D" * self.day, "M": "M" * self.month, "Y": "Y" * self.year}
        return self.sep.join(parts[c] for c in self.order)

    def format(self, d: date) -> str:
        """``d`` written in this format."""
        parts = {
            "D": f"{d.day:0{self.day}d}",
            "M": f"{d.month:0{self.month}d}",
            "Y": f"{d.year:04d}" if self.year == 4 else f"{d.year % 100:02d}",
        }
        return self.sep.join(parts[c] for c in self.order)


ISO = DateFormat()
_TOKEN_FORMAT = re.compile(r"(?<![a-z])([dmyrjta]{1,4})([./\- ])([dmyrjta]{1,4})\2([dmyrjta]{1,4})(?![a-z])")


def format_from_text(text: str) -> DateFormat | None:
    """A format spelled out in text: "DD.MM.YYYY", "dd.mm.rrrr" (Polish), "TT.MM.JJJJ" (German),
    "JJ/MM/AAAA" (French), "MM/DD/YYYY", "yyyy-mm-dd"."""
    for m in _TOKEN_FORMAT.finditer(fold(text)):
        tokens = [m.group(1), m.group(3), m.group(4)]
        if any(len(set(t)) != 1 for t in tokens):
            continue
        letters = [t[0] for t in tokens]
        kinds = []
        for letter, token in zip(letters, tokens, strict=True):
            if letter == "m":
                kinds.append("M")
            elif letter in "dt":
                kinds.append("D")
            elif letter in "yra":
                kinds.append("Y")
            else:  # "j": German Jahr beside T(ag), French jour beside A(nnée)
                kinds.append(
                    "Y"
                    if any(x in "dt" for x in letters)
                    else "D"
                    if "a" in letters or len(token) < 3
                    else "Y"
                )
        if sorted(kinds) != ["D", "M", "Y"]:
            continue
        width = dict(zip(kinds, (len(t) for t in tokens), strict=True))
        return DateFormat(
            "".join(kinds), m.group(2), min(width["D"], 2), min(width["M"], 2), 4 if width["Y"] >= 3 else 2
        )
    return None


def _day_month_order(sep: str, lang: str) -> str:
    """Whether an ambiguous "01/02/2024" is day first: yes, except on US English pages with "/"."""
    return "MDY" if sep == "/" and (lang.startswith("en-us") or lang == "en") else "DMY"


def format_from_pattern(pattern: str, lang: str) -> DateFormat | None:
    r"""A format from a ``pattern`` attribute such as ``\d{2}\.\d{2}\.\d{4}`` or ``[0-9]{4}-[0-9]{2}-[0-9]{2}``."""
    p = pattern.replace("[0-9]", r"\d")
    p = re.sub(r"\\d\{(\d+)(?:,(\d+))?\}", lambda m: "#" * int(m.group(2) or m.group(1)), p)
    p = p.replace(r"\d", "#")
    p = re.sub(r"[\\^$()?:]", "", p)
    m = re.fullmatch(r"(#{1,4})([./\- ])(#{1,4})\2(#{1,4})", p)
    if not m:
        return None
    a, sep, b, c = len(m.group(1)), m.group(2), len(m.group(3)), len(m.group(4))
    if a == 4:
        return DateFormat("YMD", sep, c, b, 4)
    order = _day_month_order(sep, lang)
    return DateFormat(order, sep, 2, 2, 4 if c == 4 else 2)


def format_from_value(value: str, lang: str) -> DateFormat | None:
    """A format from a date already in the field: "31.01.2024", "01/31/2024", "2024-01-31"."""
    m = re.fullmatch(r"\s*(\d{1,4})([./\- ])(\d{1,2})\2(\d{2,4})\s*", value or "")
    if not m:
        return None
    a, sep, b, c = m.group(1), m.group(2), int(m.group(3)), m.group(4)
    if len(a) == 4:
        return DateFormat("YMD", sep, len(c), 2, 4)
    order = "DMY" if int(a) > 12 else "MDY" if b > 12 else _day_month_order(sep, lang)
    return DateFormat(order, sep, 2, 2, 4 if len(c) == 4 else 2)


def default_format(lang: str) -> DateFormat:
    """The usual date format for a page language, for text fields that show none."""
    if lang.startswith("en-us") or lang == "en":
        return DateFormat("MDY", "/")
    if lang[:2] in ("en", "fr", "es", "it", "pt"):
        return DateFormat("DMY", "/")
    if lang[:2] in ("pl", "de", "cs", "sk", "ru", "uk", "fi", "nb", "da", "tr"):
        return DateFormat("DMY", ".")
    return ISO


def field_format(f: Field, lang: str) -> tuple[DateFormat | None, str]:
    """The field's date format and where it was read from ("type", "placeholder", ...); None if unknown."""
    if f.type == "date":
        return DateFormat(native=True), "type=date"
    for source, text in (
        ("placeholder", f.placeholder),
        ("label", f"{f.label} {f.aria}"),
        ("text", f"{f.before} {f.after}"),
    ):
        found = format_from_text(text)
        if found:
            return found, source
    if f.pattern and (found := format_from_pattern(f.pattern, lang)):
        return found, "pattern"
    if f.value and (found := format_from_value(f.value, lang)):
        return found, "value"
    return None, ""


def date_evidence(f: Field, lang: str) -> float:
    """How clearly a field takes a date."""
    fmt, source = field_format(f, lang)
    score = {
        "type=date": 6.0,
        "placeholder": 5.0,
        "label": 5.0,
        "text": 3.0,
        "pattern": 4.0,
        "value": 3.0,
    }.get(source, 0.0)
    if has_word(f.own_words, DATE_WORDS):
        score += 2
    elif has_word(f.near_words, DATE_WORDS):
        score += 1
    return score


def side_score(f: Field, side: str) -> float:
    """How clearly a field is the ``side`` end of the range (see `page_helpers.side_score`)."""
    return page_side_score(f, side, SIDES)


def choose_fields(
    fields: list[Field], lang: str, want_from: bool, want_to: bool
) -> tuple[Field | None, Field | None]:
    """The "from" and "to" date fields of the page."""
    usable = [f for f in fields if f.visible and not f.disabled and f.type in TEXT_TYPES]
    evidence = {f.ref: date_evidence(f, lang) for f in usable}
    dated = [f for f in usable if evidence[f.ref] >= 2]
    best: tuple[float, Field, Field] | None = None
    for a in dated:
        for b in dated:
            sa, sb = side_score(a, "from"), side_score(b, "to")
            if a is b or sa <= 0 or sb <= 0:
                continue
            near = closeness(a.ancestors, b.ancestors)
            score = (
                sa + sb + evidence[a.ref] + evidence[b.ref] + (2 if a.form == b.form and a.form >= 0 else 0)
            )
            score += (2 if near <= 2 else 1 if near <= 4 else 0) + (1 if a.order < b.order else 0)
            if best is None or score > best[0]:
                best = (score, a, b)
    if best:
        return best[1], best[2]
    # Two date fields side by side and nothing saying which is which: the first is "from".
    for a, b in zip(dated, dated[1:], strict=False):
        if closeness(a.ancestors, b.ancestors) <= 3 and evidence[a.ref] >= 3 and evidence[b.ref] >= 3:
            return a, b
    picks: list[Field | None] = []
    for side, wanted in (("from", want_from), ("to", want_to)):
        ranked = [(side_score(f, side) + evidence[f.ref], f) for f in dated if side_score(f, side) > 0]
        pick = max(ranked, key=lambda t: t[0])[1] if ranked and wanted else None
        if wanted and pick is None and len(dated) == 1 and not (want_from and want_to):
            pick = dated[0]  # one date field on the page, one date asked for
        picks.append(pick)
    return picks[0], picks[1]


def _iso(value: str | None, name: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise ToolError(f"date_picker: {name}={value!r} is not an ISO date (YYYY-MM-DD)") from None


async def run(ctx: ToolContext, to: str | None = None, submit: bool = False, **params: Any) -> dict:
    """Write ``from`` and/or ``to`` (ISO dates) into the page's date fields; submit if asked.

    ``from`` is a Python keyword, so it arrives in ``params``.
    """
    page = require_page(ctx)
    start, end = _iso(params.get("from"), "from"), _iso(to, "to")
    if start is None and end is None:
        raise ToolError("date_picker needs from or to (or both)")
    if start and end and start > end:
        raise ToolError(f"date_picker: from ({start}) is after to ({end})")
    scan = await scan_fields(page)
    first, second = choose_fields(scan.items, scan.lang, start is not None, end is not None)
    missing = [n for n, d, f in (("from", start, first), ("to", end, second)) if d is not None and f is None]
    if missing:
        raise FieldNotFound(
            f"no date field found on {scan.url} for {' and '.join(missing)}: looked for {LOOKED_FOR}"
        )

    filled: dict[str, str | None] = {"from": None, "to": None}
    formats: dict[str, str] = {}
    fields: dict[str, dict] = {}
    for name, day, f in (("from", start, first), ("to", end, second)):
        if day is None or f is None:
            continue
        fmt, source = field_format(f, scan.lang)
        fmt = fmt or default_format(scan.lang)
        text = day.isoformat() if fmt.native else fmt.format(day)
        filled[name] = await fill_value(page, f.selector, text, typed=not f.readonly)
        formats[name] = "YYYY-MM-DD (native)" if fmt.native else fmt.label
        fields[name] = {**f.describe(), "format_from": source or f"page language {scan.lang or '?'}"}
    report: dict[str, Any] = {
        "filled": filled,
        "formats": formats,
        "fields": fields,
        "submitted": False,
        "method": None,
    }
    if submit:
        last = second if end is not None and second is not None else first
        assert last is not None  # a field was filled (missing ones were reported above)
        async with PageWatch(page, arm=False, emit=ctx.emit) as watch:
            outcome = await submit_from(page, last.selector, watch, what="the date form")
        report.update(submitted=True, method=outcome["method"], navigated=outcome["navigated"])
    report["url"] = page.url
    return {"date_picker": report}
