"""One price parser for every tool: ``parse_price("od 7 998,00 zł")`` -> ``Price(7998.0, "PLN")``.

Prices on real pages come in every locale style: "7 998,00zł", "€2.95", "$1,099.00", "1.305,34 zł",
"EUR 124,00 bis EUR 174,00", "NZ$ 299", "12,99 €". The parser finds the currency marks (symbols,
ISO 4217 codes, local abbreviations) and the numbers in a text, pairs each number with the currency
written right before or after it, and takes the first priced number (a range's lower bound, its upper
bound kept). Thousands and decimal separators are told apart by structure, not by locale: the last of
two different separators is the decimal one; a single separator followed by exactly three digits
groups thousands (prices almost never have three decimals); anything else is a decimal point.
Cents written apart ("$ 19 97", what "$19<sup>97</sup>" shows as text) join their whole number: a
group of two digits never groups thousands; so do cents written after the currency symbol ("79€99").
Whole kronor written the Swedish way ("499:-") are priced in the site's krona, else SEK; amounts in
pence ("18p", `in_pence`) are read only where the default currency is the pound.

`find_prices` gives every price of a text with the words around it ("Reg. CAD 51.66 Sale CAD
34.42", "UVP 29,99 € 19,99 €"), for a caller that tells a sale price from a regular one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "Price",
    "PriceSpan",
    "parse_price",
    "find_prices",
    "in_price_range",
    "filter_by_price",
    "has_currency_mark",
    "in_pence",
    "remove_currency_marks",
    "currency_for_domain",
    "DOLLAR_CURRENCIES",
    "CURRENCY_CODES",
]


@dataclass(frozen=True)
class Price:
    """A parsed price: ``amount`` (a range's lower bound), ISO 4217 ``currency`` or None, range ``upper``."""

    amount: float
    currency: str | None
    upper: float | None = None


@dataclass(frozen=True)
class PriceSpan:
    """One price in a text, with its surroundings: ``before`` is the text between the previous price
    (or the start) and this one, its currency mark excluded; ``after`` the text up to the next price."""

    price: Price
    before: str
    after: str


#: Currencies written with a plain "$": a page's own currency wins over USD for a bare "$".
DOLLAR_CURRENCIES = frozenset({"USD", "NZD", "AUD", "CAD", "HKD", "SGD", "MXN", "TWD", "ARS", "CLP", "COP"})
_KRONA = frozenset({"SEK", "NOK", "DKK", "ISK"})
_YEN = frozenset({"JPY", "CNY"})

#: ISO 4217 codes recognised when written out ("EUR 10,79", "100 PLN").
_ISO_CODES = (
    "EUR USD GBP PLN CHF CZK SEK NOK DKK ISK HUF RON BGN HRK RSD UAH RUB TRY ILS JPY CNY HKD TWD KRW INR "
    "IDR THB VND PHP MYR SGD AUD NZD CAD MXN BRL ARS CLP COP PEN ZAR AED SAR QAR EGP NGN KES MAD"
).split()
#: The ISO 4217 codes the parser knows.
CURRENCY_CODES = frozenset(_ISO_CODES)

# Multi-character marks first so "NZ$" wins over "$" and "R$" over "R".
_DOLLAR_PREFIXES = {
    "US": "USD",
    "USD": "USD",
    "NZ": "NZD",
    "NZD": "NZD",
    "AU": "AUD",
    "AUD": "AUD",
    "A": "AUD",
    "CA": "CAD",
    "CAD": "CAD",
    "CDN": "CAD",  # "CDN$ 12.99", as Canadian shops write it
    "CAN": "CAD",
    "C": "CAD",
    "AUS": "AUD",
    "HK": "HKD",
    "S": "SGD",
    "SG": "SGD",
    "MX": "MXN",
    "NT": "TWD",
    "R": "BRL",
}
_SYMBOLS = {
    "€": "EUR",
    "£": "GBP",
    "₹": "INR",
    "₽": "RUB",
    "₩": "KRW",
    "원": "KRW",  # written after the amount, as 円 and 元 are
    "₺": "TRY",
    "₴": "UAH",
    "₪": "ILS",
    "₫": "VND",
    "฿": "THB",
    "₱": "PHP",
    "円": "JPY",
    "元": "CNY",
    "¥": "JPY",
    "￥": "JPY",
    "$": "USD",
    "＄": "USD",
}
# Local abbreviations, matched only as whole words; these case-insensitively...
_WORDS = {
    "zł": "PLN",
    "zl": "PLN",
    "złotych": "PLN",
    "zlotych": "PLN",
    "euro": "EUR",
    "euros": "EUR",
    "kč": "CZK",
    "lei": "RON",
    "лв": "BGN",
    "руб": "RUB",
    "грн": "UAH",
    "kr": "SEK",
}
# ...and these only as written, since "ft" (feet), "rs" or "tl" in lower case are ordinary words.
_CASED_WORDS = {"Ft": "HUF", "Fr": "CHF", "SFr": "CHF", "Rs": "INR", "TL": "TRY"}

_NOT_LETTER_BEFORE = r"(?<![^\W\d_])"  # not preceded by a letter
_NOT_LETTER_AFTER = r"(?![^\W\d_])"  # not followed by a letter
_CURRENCY_RE = re.compile(
    "|".join(
        [
            # "US $", "NZ$", "AU$" ...: a dollar with a country prefix.
            rf"{_NOT_LETTER_BEFORE}(?P<dp>{'|'.join(sorted(_DOLLAR_PREFIXES, key=len, reverse=True))}) ?[$＄]",
            rf"{_NOT_LETTER_BEFORE}(?P<iso>{'|'.join(_ISO_CODES)}){_NOT_LETTER_AFTER}",
            rf"(?P<sym>{'|'.join(re.escape(s) for s in _SYMBOLS)})",
            rf"{_NOT_LETTER_BEFORE}(?P<word>(?i:{'|'.join(sorted(_WORDS, key=len, reverse=True))}))\.?{_NOT_LETTER_AFTER}",
            rf"{_NOT_LETTER_BEFORE}(?P<cased>{'|'.join(sorted(_CASED_WORDS, key=len, reverse=True))})\.?{_NOT_LETTER_AFTER}",
            # "499:-": the Swedish way of writing whole kronor, a mark of its own.
            r"(?<=\d)(?P<kronor>:[-–])",
        ]
    )
)
# A cheap pre-check that every currency mark passes (the full pattern's look-behinds cost ~7x more).
_HINT_RE = re.compile(
    "["
    + "".join(re.escape(s) for s in _SYMBOLS)
    + "]|[A-Z]{3}"
    + "|(?i:"
    + "|".join(sorted(_WORDS, key=len))
    + ")"
    + "|"
    + "|".join(_CASED_WORDS)
    + "|:[-–]"
)
# A number: digit groups with thousands separators (space, apostrophe, dot, comma) and an optional
# decimal part, Indian grouping (lakh and crore: "1,29,999"), or plain digits with an optional
# decimal part; then an optional ",-" / ".–" (no cents).
_NUMBER_RE = re.compile(
    r"(?<![\d.,])(?P<num>\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?(?!\d)"
    r"|\d{1,3}(?:[ '’.,]\d{3})+(?:[.,]\d+)?(?!\d)|\d+(?:[.,]\d+)?)(?P<dash>[.,][-–—])?"
)
# Pence: "18p", "55p each" (on a page priced in pounds; "1080p" is no price).
_PENCE_RE = re.compile(r"(?<![\d.,£])(\d{1,2}(?:\.\d{1,2})?)p(?![^\W\d_])")  # "18p", "72.5p/litre"
_MORE_DIGITS_RE = re.compile(r"[.,]?\d")
_DECIMALS_RE = re.compile(r"[.,]\d{1,2}$|[.,][-–—]$")
_RANGE_JOIN_RE = re.compile(r"\s*(?:-|–|—|~|to|bis|do|à|a|au|til|till|until)\s*$", re.IGNORECASE)
_ZERO_WIDTH_RE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_SPACE_RE = re.compile(r"\s+")  # \s covers no-break (\xa0), thin (\u2009) and narrow no-break (\u202f) spaces
_MAX_GAP = 3  # characters of white space allowed between a number and its currency mark


def _normalize(text: str) -> str:
    return _SPACE_RE.sub(" ", _ZERO_WIDTH_RE.sub("", text))


def _to_float(num: str) -> float:
    """A number with thousands/decimal separators in any locale style, as a float."""
    s = num.replace(" ", "").replace("'", "").replace("’", "")
    dots, commas = s.count("."), s.count(",")
    if dots and commas:
        decimal = "." if s.rfind(".") > s.rfind(",") else ","
        s = s.replace("," if decimal == "." else ".", "").replace(decimal, ".")
    elif dots or commas:
        sep = "." if dots else ","
        parts = s.split(sep)
        if len(parts) > 2:
            s = "".join(parts)  # "1.234.567": several separators can only group thousands
        elif len(parts[1]) == 3 and parts[0] not in ("", "0"):
            s = parts[0] + parts[1]  # "1,099" or "2.950": thousands
        else:
            s = parts[0] + "." + parts[1]
    return float(s)


def _currency_of(match: re.Match, default: str | None) -> str:
    if match.group("dp"):
        return _DOLLAR_PREFIXES[match.group("dp")]
    if match.group("iso"):
        return match.group("iso")
    if match.group("sym"):
        sym = match.group("sym")
        if sym in "$＄":
            return default if default in DOLLAR_CURRENCIES else "USD"
        if sym in "¥￥":
            return default if default in _YEN else "JPY"
        return _SYMBOLS[sym]
    if match.group("cased"):
        return _CASED_WORDS[match.group("cased")]
    if match.group("kronor"):
        return default if default in _KRONA else "SEK"
    word = match.group("word").lower()
    if word == "kr":
        return default if default in _KRONA else "SEK"
    return _WORDS[word]


@dataclass
class _Num:
    start: int
    end: int
    value: float
    currency: str | None
    glued: bool  # touches a letter that is not a currency mark ("16GB", "iPhone12")
    whole: bool = False  # written without separators or decimals ("19", not "19.9" or "1,099")
    # Where the number and the currency mark attached to it begin and end.
    outer_start: int = -1
    outer_end: int = -1


def _tokens(text: str, default: str | None) -> list[_Num]:
    """The numbers of ``text`` in order, each with the currency mark attached to it (if any).

    A mark between two numbers ("12 €18.60") belongs to the nearer one; at equal distance to the
    side the text's style says: prefix when the text starts with a mark ("€2.95"), else suffix.
    """
    marks = (
        [(m.start(), m.end(), _currency_of(m, default)) for m in _CURRENCY_RE.finditer(text)]
        if _HINT_RE.search(text)
        else []
    )
    nums: list[_Num] = []
    for m in _NUMBER_RE.finditer(text):
        try:
            value = _to_float(m.group("num"))
        except ValueError:  # pragma: no cover - the pattern only admits parsable numbers
            continue
        nums.append(_Num(m.start(), m.end(), value, None, False, m.group(0).isdigit(), m.start(), m.end()))
    if not nums:
        return nums
    prefix_style = bool(marks) and marks[0][0] < nums[0].start
    attached_before: set[int] = set()  # numbers with a mark written before them
    attached_after: set[int] = set()
    j = 0
    for start, end, currency in marks:
        while j < len(nums) and nums[j].end <= start:
            j += 1
        prev = nums[j - 1] if j > 0 else None  # the last number ending before the mark
        nxt = nums[j] if j < len(nums) and nums[j].start >= end else None
        gap_prev = start - prev.end if prev and text[prev.end : start].strip() == "" else None
        gap_next = nxt.start - end if nxt and text[end : nxt.start].strip() == "" else None
        if gap_prev is not None and gap_prev > _MAX_GAP:
            gap_prev = None
        if gap_next is not None and gap_next > _MAX_GAP:
            gap_next = None
        if gap_prev is None and gap_next is None:
            continue
        if (
            nxt is not None
            and gap_next is not None
            and (gap_prev is None or gap_next < gap_prev or (gap_next == gap_prev and prefix_style))
        ):
            if nxt.currency is None:
                nxt.currency = currency
                nxt.outer_start = start
            attached_before.add(j)
        elif prev is not None:
            if prev.currency is None or j - 1 not in attached_before:
                prev.currency = currency
            prev.outer_end = end
            attached_after.add(j - 1)
    for i, num in enumerate(nums):
        before = text[num.start - 1] if num.start > 0 else ""
        after = text[num.end] if num.end < len(text) else ""
        num.glued = (before.isalpha() and i not in attached_before) or (
            (after.isalpha() or after == "%") and i not in attached_after
        )
    return _join_cents(text, nums, attached_before, attached_after)


#: Words a price label may start with before its number ("od 19 99 zł", "ab 5 99 €").
_LEAD_WORDS = frozenset(
    {
        "",
        "od",
        "ab",
        "from",
        "ca",
        "ca.",
        "only",
        "nur",
        "now",
        "jetzt",
        "teraz",
        "tylko",
        "dès",
        "desde",
        "da",
    }
)


def _join_cents(text: str, nums: list[_Num], marked_before: set[int], marked_after: set[int]) -> list[_Num]:
    """Cents written apart from their whole number ("$ 19 97", "19 99 zł") joined to it.

    Two digits after a space never group thousands, so "19 97" next to a currency mark is 19.97:
    the mark written before the whole number, or after the cents of a label that starts with the
    number (at most a short word such as "od" or "ab" before it).
    """
    out: list[_Num] = []
    i = 0
    while i < len(nums):
        a = nums[i]
        b = nums[i + 1] if i + 1 < len(nums) else None
        if (
            b is not None
            and a.whole
            and not a.glued
            and b.end - b.start == 2
            and b.whole
            and text[a.end : b.start] == " "
            and (a.currency is None or b.currency in (None, a.currency))
            and (
                (i in marked_before and i + 1 not in marked_before)
                or (
                    i + 1 in marked_after
                    and a.currency is None
                    and text[: a.start].strip().lower() in _LEAD_WORDS
                )
            )
        ):
            currency = a.currency or b.currency
            out.append(
                _Num(
                    a.start,
                    b.end,
                    a.value + int(text[b.start : b.end]) / 100,
                    currency,
                    False,
                    False,
                    a.outer_start,
                    b.outer_end,
                )
            )
            i += 2
            continue
        if b is not None and _cents_after_mark(text, a, b, i in marked_after, i + 1 in marked_before):
            currency = a.currency or b.currency
            out.append(
                _Num(a.start, b.end, a.value + b.value / 100, currency, False, False, a.outer_start, b.end)
            )
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def _cents_after_mark(text: str, a: _Num, b: _Num, after_a: bool, before_b: bool) -> bool:
    """Cents written after the currency symbol that follows their whole number ("79€99", "1 299 €00",
    what ``79<sup>€99</sup>`` shows as text): two digits and nothing more. The symbol is the whole
    number's, or, nearer the cents, belongs to a label that starts with the number ("Pack of 2 €15"
    is 15)."""
    between = text[a.end : b.start].strip()
    if not (
        len(between) == 1
        and between in _SYMBOLS
        and a.value.is_integer()
        and not _DECIMALS_RE.search(text, a.start, a.end)
        and not a.glued
        and b.whole
        and b.end - b.start == 2
        and not _MORE_DIGITS_RE.match(text, b.end)
    ):
        return False
    if after_a:
        return b.currency is None
    return before_b and a.currency is None and text[: a.start].strip().lower() in _LEAD_WORDS


def _range_upper(text: str, first: _Num, second: _Num) -> float | None:
    """``second`` as the upper bound of a range starting at ``first`` ("$12 - $20", "124 bis 174 EUR")."""
    between = text[first.end : second.start]
    # Drop the currency mark written before the second number ("EUR 124,00 bis EUR 174,00").
    between = _CURRENCY_RE.sub("", between)
    if not _RANGE_JOIN_RE.match(between) or not between.strip():
        return None
    if first.currency and second.currency and first.currency != second.currency:
        return None
    return second.value if second.value >= first.value else None


def parse_price(text: str, default_currency: str | None = None) -> Price | None:
    """The first price in ``text``, or None when it holds no number.

    ``default_currency`` (ISO 4217, e.g. from `currency_for_domain`) is used when the text names no
    currency, and decides ambiguous marks: a bare "$" on a .co.nz page is NZD, "kr" on a .no page NOK.
    A number written next to a currency mark wins over bare numbers ("Pack of 12, now €5.99" is 5.99
    EUR); without any currency mark the first free-standing number is taken, with currency
    ``default_currency``. Never raises.
    """
    if not isinstance(text, str) or not text:
        return None
    if len(text) > 2000:  # a price never needs more; keeps arbitrary input cheap
        text = text[:2000]
    return _parse_cached(text, default_currency if isinstance(default_currency, str) else None)


def _mentions(text: str, nums: list[_Num]) -> list[tuple[Price, int, int]]:
    """Every priced number of ``text`` (a range counts once): (price, start, end), the currency mark
    included."""
    found: list[tuple[Price, int, int]] = []
    i = 0
    while i < len(nums):
        num = nums[i]
        if num.currency is None:
            # "12 - 20 zł": the mark after the range's upper bound prices both ends.
            nxt = nums[i + 1] if i + 1 < len(nums) else None
            if nxt is not None and nxt.currency is not None and not num.glued:
                upper = _range_upper(text, num, nxt)
                if upper is not None:
                    found.append((Price(num.value, nxt.currency, upper), num.start, nxt.outer_end))
                    i += 2
                    continue
            i += 1
            continue
        nxt = nums[i + 1] if i + 1 < len(nums) else None
        upper = _range_upper(text, num, nxt) if nxt is not None else None
        if nxt is not None and upper is not None:
            found.append((Price(num.value, num.currency, upper), num.outer_start, nxt.outer_end))
            i += 2
        else:
            found.append((Price(num.value, num.currency), num.outer_start, num.outer_end))
            i += 1
    return found


@lru_cache(maxsize=8192)
def _parse_cached(text: str, default_currency: str | None) -> Price | None:
    """`parse_price` proper; listings repeat the same labels, and a Price is immutable."""
    try:
        text = _normalize(text)
        nums = _tokens(text, default_currency)
        mentions = _mentions(text, nums)
        if mentions:
            return mentions[0][0]
        if pence := _pence(text, default_currency):
            return pence[0]
        free = [n for n in nums if not n.glued]
        if not free:
            return None
        upper = _range_upper(text, free[0], free[1]) if len(free) > 1 else None
        return Price(free[0].value, default_currency, upper)
    except Exception:  # noqa: BLE001 - documented never to raise; a parser bug must not break a tool
        return None


def _pence(text: str, default_currency: str | None) -> tuple[Price, int, int] | None:
    """An amount in pence ("18p each") where the default currency is the pound: price, start, end."""
    match = _PENCE_RE.search(text) if default_currency == "GBP" else None
    return (
        None
        if match is None
        else (Price(round(float(match.group(1)) / 100, 4), "GBP"), match.start(), match.end())
    )


def find_prices(text: str, default_currency: str | None = None) -> list[PriceSpan]:
    """Every price in ``text`` written with a currency mark, in order, each with the words around it.

    ``"Reg. CAD 51.66 Sale CAD 34.42"`` gives 51.66 (before ``"Reg. "``) and 34.42 (before
    ``" Sale "``); ``"€2.95/kg"`` gives 2.95 with after ``"/kg"``. A text without any currency mark
    gives its first number, as `parse_price` does (an empty list when it has none). White space is
    folded in ``before``/``after``. Never raises.
    """
    if not isinstance(text, str) or not text:
        return []
    return list(_find_cached(text[:2000], default_currency if isinstance(default_currency, str) else None))


@lru_cache(maxsize=4096)
def _find_cached(text: str, default_currency: str | None) -> tuple[PriceSpan, ...]:
    try:
        text = _normalize(text)
        nums = _tokens(text, default_currency)
        mentions = _mentions(text, nums)
        if not mentions:
            if pence := _pence(text, default_currency):
                return (PriceSpan(pence[0], text[: pence[1]], text[pence[2] :]),)
            found = _parse_cached(text, default_currency)
            return (PriceSpan(found, "", ""),) if found is not None else ()
        spans = []
        for k, (price, start, end) in enumerate(mentions):
            prev_end = mentions[k - 1][2] if k > 0 else 0
            next_start = mentions[k + 1][1] if k + 1 < len(mentions) else len(text)
            spans.append(PriceSpan(price, text[prev_end:start], text[end:next_start]))
        return tuple(spans)
    except Exception:  # noqa: BLE001 - documented never to raise
        return ()


def in_price_range(
    price: float | None, min_price: float | None = None, max_price: float | None = None
) -> bool:
    """Whether ``price`` lies in [``min_price``, ``max_price``] (a missing bound does not limit). An item
    without a price is in range only when neither bound is given: it cannot be shown to fit."""
    if min_price is None and max_price is None:
        return True
    if price is None or isinstance(price, bool) or not isinstance(price, int | float):
        return False
    return (min_price is None or price >= min_price) and (max_price is None or price <= max_price)


def filter_by_price(
    items: list[dict], min_price: float | None = None, max_price: float | None = None
) -> list[dict]:
    """The items whose ``price`` lies in [``min_price``, ``max_price``], in order (see `in_price_range`).

    A price range's ``price`` is its lower bound, so "od 12 do 40 zł" fits "under 20 zł": it can be
    had for 12. Every ``products_*`` tool applies its ``min_price``/``max_price`` with this.
    """
    if min_price is None and max_price is None:
        return items
    return [item for item in items if in_price_range(item.get("price"), min_price, max_price)]


def has_currency_mark(text: str) -> bool:
    """Whether ``text`` contains a currency symbol, ISO code or local abbreviation ("zł", "kr")."""
    return bool(text) and _HINT_RE.search(text) is not None and _CURRENCY_RE.search(text) is not None


def in_pence(text: str) -> bool:
    """Whether ``text`` reads as an amount in pence ("18p", "55p each") and names no currency: a price
    on a page that prices in pounds (`parse_price` reads it with the default currency GBP)."""
    return _PENCE_RE.search(text) is not None and not has_currency_mark(text)


def remove_currency_marks(text: str) -> str:
    """``text`` without its currency marks ("od 290 zł" -> "od 290 "): what is left to judge a label by."""
    if not text or _HINT_RE.search(text) is None:
        return text
    return _CURRENCY_RE.sub(" ", text)


# Country-code top-level domains whose sites price in one currency.
_TLD_CURRENCY = {
    "pl": "PLN",
    "de": "EUR",
    "fr": "EUR",
    "it": "EUR",
    "es": "EUR",
    "nl": "EUR",
    "at": "EUR",
    "be": "EUR",
    "ie": "EUR",
    "fi": "EUR",
    "pt": "EUR",
    "gr": "EUR",
    "sk": "EUR",
    "si": "EUR",
    "ee": "EUR",
    "lv": "EUR",
    "lt": "EUR",
    "lu": "EUR",
    "mt": "EUR",
    "cy": "EUR",
    "hr": "EUR",
    "eu": "EUR",
    "uk": "GBP",
    "ch": "CHF",
    "li": "CHF",
    "cz": "CZK",
    "se": "SEK",
    "no": "NOK",
    "dk": "DKK",
    "is": "ISK",
    "hu": "HUF",
    "ro": "RON",
    "bg": "BGN",
    "rs": "RSD",
    "ua": "UAH",
    "ru": "RUB",
    "tr": "TRY",
    "il": "ILS",
    "jp": "JPY",
    "cn": "CNY",
    "hk": "HKD",
    "tw": "TWD",
    "kr": "KRW",
    "in": "INR",
    "id": "IDR",
    "th": "THB",
    "vn": "VND",
    "ph": "PHP",
    "my": "MYR",
    "sg": "SGD",
    "au": "AUD",
    "nz": "NZD",
    "ca": "CAD",
    "mx": "MXN",
    "br": "BRL",
    "ar": "ARS",
    "cl": "CLP",
    "co": "COP",
    "pe": "PEN",
    "za": "ZAR",
    "ae": "AED",
    "sa": "SAR",
    "eg": "EGP",
    "us": "USD",
}


def currency_for_domain(host: str | None) -> str | None:
    """The currency a site's country domain implies (``"sklep.example.pl"`` -> ``"PLN"``), or None.

    Accepts a host or a whole URL. Generic domains (.com, .org, ...) imply nothing: the page's own
    marks and statements decide there.
    """
    if not host:
        return None
    host = host.strip().lower()
    if "//" in host:
        host = host.split("//", 1)[1]
    host = host.split("/", 1)[0].split(":", 1)[0].rstrip(".")
    parts = host.split(".")
    if len(parts) < 2:
        return None
    return _TLD_CURRENCY.get(parts[-1])
