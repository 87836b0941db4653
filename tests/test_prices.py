"""The one price parser: locale styles, currencies, ranges, odd spaces; property tests for round trips."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curllm_core.prices import (
    Price,
    currency_for_domain,
    find_prices,
    has_currency_mark,
    in_pence,
    parse_price,
    remove_currency_marks,
)

EXAMPLES = [
    # the formats the tools meet on real pages
    ("7 998,00zł", 7998.0, "PLN", None),
    ("od 290 zł", 290.0, "PLN", None),
    ("€2.95", 2.95, "EUR", None),
    ("$1,099.00", 1099.0, "USD", None),
    ("24,99 €", 24.99, "EUR", None),
    ("EUR 10,79", 10.79, "EUR", None),
    ("1.305,34 zł", 1305.34, "PLN", None),
    ("EUR 124,00 bis EUR 174,00", 124.0, "EUR", 174.0),
    ("1 299 zł", 1299.0, "PLN", None),
    ("499:-", 499.0, "SEK", None),  # whole kronor, the Swedish way
    ("Ord. pris 1 599:-", 1599.0, "SEK", None),
    ("12.99", 12.99, None, None),
    ("PLN 100", 100.0, "PLN", None),
    ("£5", 5.0, "GBP", None),
    ("CHF 12.50", 12.5, "CHF", None),
    ("US $1,234.56", 1234.56, "USD", None),
    ("NZ$ 299", 299.0, "NZD", None),
    ("CDN$ 34.42", 34.42, "CAD", None),
    ("CAN$34,42", 34.42, "CAD", None),
    ("C$ 12.99", 12.99, "CAD", None),
    ("A$ 5.00", 5.0, "AUD", None),
    ("AUS $ 19.95", 19.95, "AUD", None),
    ("$12 - $20", 12.0, "USD", 20.0),
    # white space of every kind
    ("1\u00a0299,00\u00a0zł", 1299.0, "PLN", None),
    ("1\u2009299,00 €", 1299.0, "EUR", None),
    ("1\u202f299,00\u202f€", 1299.0, "EUR", None),
    ("\u200b24,99\u200b €", 24.99, "EUR", None),
    # surrounding words, several numbers
    ("1 offer from $59.99", 59.99, "USD", None),
    ("2 Angebote ab 47,58 €", 47.58, "EUR", None),
    ("Pack of 12, now only €5.99!", 5.99, "EUR", None),
    ("12 x 85 g 4.1 out of 5 stars 12 €18.60", 18.6, "EUR", None),
    ("16GB RAM, 512 zł", 512.0, "PLN", None),
    ("Cena: 3,5 Mpix 499 zł", 499.0, "PLN", None),
    ("€2.66 with Subscribe & Save discount", 2.66, "EUR", None),
    # ranges
    ("12 - 20 zł", 12.0, "PLN", 20.0),
    ("EUR 234,95 bis EUR 269,95", 234.95, "EUR", 269.95),
    ("10 € – 15 €", 10.0, "EUR", 15.0),
    ("24,99 € 30,00 €", 24.99, "EUR", None),  # two prices side by side are not a range
    # separators
    ("1.234.567,89 €", 1234567.89, "EUR", None),
    ("1,234,567.89 USD", 1234567.89, "USD", None),
    ("1'234.50 CHF", 1234.5, "CHF", None),
    ("12.990 zł", 12990.0, "PLN", None),
    ("0,999 €", 0.999, "EUR", None),
    ("199,- kr", 199.0, "SEK", None),
    ("Fr. 12.–", 12.0, "CHF", None),
    ("EUR12.99", 12.99, "EUR", None),
    ("12.99EUR", 12.99, "EUR", None),
    # more currencies
    ("R$ 10,00", 10.0, "BRL", None),
    ("¥1,200", 1200.0, "JPY", None),
    ("kr. 1.299,00", 1299.0, "SEK", None),
    ("299 Kč", 299.0, "CZK", None),
    ("4 990 Ft", 4990.0, "HUF", None),
    ("₹ 1,499", 1499.0, "INR", None),
    ("AU$ 19.95", 19.95, "AUD", None),
    ("CA$5", 5.0, "CAD", None),
    ("12,50 zl", 12.5, "PLN", None),
]


@pytest.mark.parametrize("text, amount, currency, upper", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_examples(text, amount, currency, upper):
    assert parse_price(text) == Price(amount, currency, upper)


@pytest.mark.parametrize("text", ["", "abc", "-13%", "Sponsored", "N/A", "free", "   ", "€", "zł"])
def test_no_price(text):
    assert parse_price(text) is None


def test_default_currency_fills_in_and_disambiguates():
    assert parse_price("12.99", "PLN") == Price(12.99, "PLN")
    assert parse_price("$5", "NZD") == Price(5.0, "NZD")  # a bare $ on a .co.nz page
    assert parse_price("$5", "EUR") == Price(5.0, "USD")  # EUR is no dollar: $ stays USD
    assert parse_price("199 kr", "NOK") == Price(199.0, "NOK")
    assert parse_price("¥ 88", "CNY") == Price(88.0, "CNY")
    assert parse_price("US $5", "NZD") == Price(5.0, "USD")  # an explicit prefix wins


def test_kronor_written_with_a_colon_and_a_dash():
    assert parse_price("1 299:-", "NOK") == Price(1299.0, "NOK")  # the site's krona
    assert parse_price("1 299:–", "PLN") == Price(1299.0, "SEK")
    assert parse_price("12:30") == Price(12.0, None)  # a time, no mark
    assert not has_currency_mark("12:30")


def test_indian_digit_grouping_lakh_and_crore():
    """Indian shops group digits by two above the thousands ("1,29,999" is 129,999): each comma groups."""
    assert parse_price("₹1,29,999") == Price(129999.0, "INR")
    assert parse_price("₹1,29,999.00") == Price(129999.0, "INR")
    assert parse_price("Rs. 12,34,56,789") == Price(123456789.0, "INR")
    assert parse_price("M.R.P.: ₹10,499") == Price(10499.0, "INR")  # plain thousands as before
    assert parse_price("1,29 €") == Price(1.29, "EUR")  # two digits after one comma stay cents


def test_pence_are_read_on_a_page_priced_in_pounds():
    assert parse_price("18p", "GBP") == Price(0.18, "GBP")
    assert parse_price("55p each", "GBP") == Price(0.55, "GBP")
    assert parse_price("18p") is None  # "p" alone names no currency
    assert parse_price("1080p", "GBP") is None  # a screen's lines, not pence
    assert in_pence("(63p/litre)") and not in_pence("£1.45") and not in_pence("720p")


def test_feet_are_not_forints():
    # "ft" in lower case is a length; only "Ft" marks Hungarian forints.
    assert parse_price("10 ft cable for €5") == Price(5.0, "EUR")


def test_currency_marks():
    assert has_currency_mark("od 290 zł") and has_currency_mark("EUR 5") and has_currency_mark("$1")
    assert not has_currency_mark("4.7 out of 5 stars") and not has_currency_mark("USB 3.0")
    assert remove_currency_marks("od 290 zł").split() == ["od", "290"]


@pytest.mark.parametrize(
    "host, currency",
    [
        ("www.ceneo.pl", "PLN"),
        ("https://www.amazon.de/s?k=x", "EUR"),
        ("amazon.co.uk", "GBP"),
        ("pricespy.co.nz", "NZD"),
        ("www.amazon.com", None),  # a generic domain: the page decides
        ("example.com", None),
        ("shop.ch:8080", "CHF"),
        ("", None),
        (None, None),
        ("localhost", None),
    ],
)
def test_currency_for_domain(host, currency):
    assert currency_for_domain(host) == currency


# --- properties -----------------------------------------------------------------------------------

#: thousands separator, decimal separator
STYLES = {
    "en": (",", "."),
    "de": (".", ","),
    "fr": ("\u202f", ","),
    "pl": ("\u00a0", ","),
    "ch": ("'", "."),
    "thin": ("\u2009", ","),
    "plain_dot": ("", "."),
    "plain_comma": ("", ","),
}
CURRENCIES = [
    ("€", "EUR"),
    ("EUR", "EUR"),
    ("zł", "PLN"),
    ("PLN", "PLN"),
    ("£", "GBP"),
    ("$", "USD"),
    ("US $", "USD"),
    ("NZ$", "NZD"),
    ("CHF", "CHF"),
    ("kr", "SEK"),
    ("Kč", "CZK"),
    ("USD", "USD"),
    ("₹", "INR"),
    ("Ft", "HUF"),
]


def fmt(cents: int, style: str, decimals: bool) -> str:
    whole, frac = divmod(cents, 100)
    thousands, decimal = STYLES[style]
    digits = f"{whole:,}".replace(",", thousands)
    return f"{digits}{decimal}{frac:02d}" if decimals or frac else digits


@settings(max_examples=400, deadline=None)
@given(
    cents=st.integers(min_value=1, max_value=99_999_999_99),
    style=st.sampled_from(sorted(STYLES)),
    decimals=st.booleans(),
    currency=st.sampled_from(CURRENCIES),
    prefix=st.booleans(),
    space=st.sampled_from(["", " ", "\u00a0", "\u202f", "\u2009"]),
    before=st.sampled_from(["", "od ", "Price: ", "ab ", "now only ", "Cena "]),
    after=st.sampled_from(["", " incl. VAT", " brutto", "!", " / szt."]),
)
def test_round_trip_any_locale_style(cents, style, decimals, currency, prefix, space, before, after):
    mark, iso = currency
    number = fmt(cents, style, decimals)
    price_text = f"{mark}{space}{number}" if prefix else f"{number}{space}{mark}"
    parsed = parse_price(f"{before}{price_text}{after}")
    assert parsed is not None, price_text
    assert abs(parsed.amount - cents / 100) < 0.005, (price_text, parsed)
    assert parsed.currency == iso, (price_text, parsed)


@settings(max_examples=300, deadline=None)
@given(cents=st.integers(min_value=1, max_value=9_999_999), style=st.sampled_from(sorted(STYLES)))
def test_round_trip_range(cents, style):
    low, high = fmt(cents, style, True), fmt(cents + 1000, style, True)
    parsed = parse_price(f"{low} – {high} €")
    assert parsed is not None and abs(parsed.amount - cents / 100) < 0.005
    assert parsed.upper is not None and abs(parsed.upper - (cents + 1000) / 100) < 0.005


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_never_raises_on_arbitrary_text(text):
    parsed = parse_price(text)
    assert parsed is None or (math.isfinite(parsed.amount) and parsed.amount >= 0)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789 .,'-–$€zł£kr\u00a0\u202fEURPLN")), max_size=40))
def test_never_raises_on_price_like_noise(text):
    parsed = parse_price(text)
    assert parsed is None or (math.isfinite(parsed.amount) and parsed.amount >= 0)


# --- cents written apart; every price of a label --------------------------------------------------


@pytest.mark.parametrize(
    "text, amount, currency",
    [
        ("$ 19 97", 19.97, "USD"),
        ("$19 97", 19.97, "USD"),
        ("€ 62 99", 62.99, "EUR"),
        ("19 99 zł", 19.99, "PLN"),
        ("od 19 99 zł", 19.99, "PLN"),
        ("ab 5 49 €", 5.49, "EUR"),
        ("£ 1 99", 1.99, "GBP"),
        ("CAD 34 42", 34.42, "CAD"),
        ("79€99", 79.99, "EUR"),
        ("79 € 99", 79.99, "EUR"),
        ("1 299€99", 1299.99, "EUR"),
        ("1 299 €00", 1299.0, "EUR"),
        ("od 49 €90", 49.9, "EUR"),
        ("Prix 79€99 au lieu de 99,99 €", 79.99, "EUR"),
        # not cents: three digits group thousands; a word before the number; a range
        ("12,00 € 50", 12.0, "EUR"),
        ("Pack of 2 €15", 15.0, "EUR"),
        ("19€ 1234", 19.0, "EUR"),
        ("5€99,5", 5.0, "EUR"),
        ("10€ 20€", 10.0, "EUR"),
        ("1 299 zł", 1299.0, "PLN"),
        ("Pack of 12 24 €", 24.0, "EUR"),
        ("Size 42 59 €", 59.0, "EUR"),
        ("12 - 20 zł", 12.0, "PLN"),
        ("$19.99 12 pcs", 19.99, "USD"),
    ],
)
def test_cents_written_apart(text, amount, currency):
    parsed = parse_price(text)
    assert (parsed.amount, parsed.currency) == (amount, currency)


def spans(text: str, default: str | None = None) -> list[tuple]:
    return [
        (s.price.amount, s.price.currency, s.price.upper, s.before, s.after)
        for s in find_prices(text, default)
    ]


def test_find_prices_gives_every_price_with_its_words():
    assert spans("Reg. CAD 51.66 Sale CAD 34.42") == [
        (51.66, "CAD", None, "Reg. ", " Sale "),
        (34.42, "CAD", None, " Sale ", ""),
    ]
    assert spans("UVP 29,99 € 19,99 €") == [(29.99, "EUR", None, "UVP ", " "), (19.99, "EUR", None, " ", "")]
    assert spans("was £20 now £15") == [
        (20.0, "GBP", None, "was ", " now "),
        (15.0, "GBP", None, " now ", ""),
    ]
    assert spans("29,99 € statt 39,99 €")[1][3] == " statt "
    assert spans("+ EUR 4,90 Versandkosten") == [(4.9, "EUR", None, "+ ", " Versandkosten")]
    assert spans("(3,50 €/kg)") == [(3.5, "EUR", None, "(", "/kg)")]
    assert spans("£1.20/100g") == [(1.2, "GBP", None, "", "/100g")]
    assert spans("od 12 do 40 zł") == [(12.0, "PLN", 40.0, "od ", "")]
    assert spans("US $0-2550 / Unit") == [(0.0, "USD", 2550.0, "", " / Unit")]
    assert spans("Pack of 12, now €5.99") == [(5.99, "EUR", None, "Pack of 12, now ", "")]
    # Without a currency mark: the first number, as parse_price reads it.
    assert spans("12.99", "PLN") == [(12.99, "PLN", None, "", "")]
    assert spans("") == [] and spans("no price") == []


@settings(max_examples=300, deadline=None)
@given(
    cents=st.lists(st.integers(min_value=1, max_value=9_999_999), min_size=1, max_size=3),
    style=st.sampled_from(sorted(STYLES)),
    currency=st.sampled_from(CURRENCIES),
    words=st.lists(
        st.sampled_from(["was", "now", "UVP", "statt", "Reg.", "przed obniżką", "+", "(", "Sale"]),
        min_size=3,
        max_size=3,
    ),
)
def test_find_prices_round_trip(cents, style, currency, words):
    mark, iso = currency
    label = " ".join(f"{w} {fmt(c, style, True)} {mark}" for w, c in zip(words, cents, strict=False))
    found = find_prices(label)
    assert [round(s.price.amount * 100) for s in found] == cents, label
    assert {s.price.currency for s in found} == {iso}
    assert [s.before.strip() for s in found][0] == words[0]
