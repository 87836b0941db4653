"""The pure parts of reading a listing to its end: the size a listing states of itself
(`stated_count`), which control is a "load more" button (`more_on_page`), the shortfall warning."""

from __future__ import annotations

import pytest

from curllm_core.tools.navigation.more_on_page import load_more_score
from curllm_core.tools.page_helpers import Clickable
from curllm_core.tools.stated_count import PagesLeft, Shortfall, shortfall, stated_listing, stated_total


@pytest.mark.parametrize(
    ("texts", "total"),
    [
        (["80 products"], 80),
        (["Showing 1-20 of 95 results"], 95),
        (["Showing 1–20 of 1,095 results"], 1095),
        (["Wyniki 1–24 z 312"], 312),
        (["Znaleziono 12 produktów"], 12),
        (["12 von 42 Produkten"], 42),
        (["1 - 12 von 42"], 42),
        (["42 Produkte"], 42),
        (["Produkte (42 Artikel)"], 42),
        # a range form wins over a bare count in a sidebar
        (["Laptopy 10 produktów", "Wyniki 1–24 z 312"], 312),
        # several different bare counts state no one total
        (["Laptopy 10 produktów", "Telefony 7 produktów"], None),
        # pages, stars and reviews are not the listing's size
        (["Strona 1 z 5"], None),
        (["4 z 5 gwiazdek"], None),
        (["Seite 2 von 9"], None),
        (["1,234 reviews"], None),
        ([], None),
        (["Free delivery over 200 zł"], None),
    ],
)
def test_stated_total(texts, total):
    assert stated_total(texts) == total


def test_shortfall_is_said_only_when_fewer_were_read():
    assert shortfall(42, 12) == "the page states 42 items and 12 were read: the result may miss 30 of them"
    assert shortfall(42, 42) is None
    assert shortfall(None, 3) is None


@pytest.mark.parametrize(
    ("texts", "listing"),
    [
        (["Showing 1-20 of 95 results"], (95, 20)),
        (["Showing 21–40 of 1,095 results"], (1095, 20)),
        (["Wyniki 1–24 z 312"], (312, 24)),
        (["12 von 42 Produkten"], (42, 12)),
        (["42 Produkte"], (42, None)),  # a bare count says nothing of this page
        (["Wyniki 1–24 z 312", "Wyniki 1–24 z 312 ofert"], (312, 24)),
        (["1-20 of 95", "1-10 of 95"], (95, None)),  # two sizes of this page: none known
        (["1-20 of 95", "1-20 of 40"], (None, None)),
        (["Strona 1 z 5"], (None, None)),
    ],
)
def test_stated_listing_says_how_many_this_page_shows(texts, listing):
    assert stated_listing(texts) == listing
    assert stated_total(texts) == listing[0]


def test_the_shortfall_warning_is_typed_and_says_how_to_read_the_rest():
    plain = Shortfall("extraction.products_generic", 42, 12)
    assert str(plain) == "extraction.products_generic: " + (shortfall(42, 12) or "")
    assert not plain.explained  # no next page: the rest is nowhere the pages show
    paged = Shortfall("extraction.products_generic", 120, 20, paged=True, shown=20)
    assert str(paged).startswith(str(Shortfall("extraction.products_generic", 120, 20)) + "; ")
    assert "ask for more pages" in str(paged) and paged.explained
    assert Shortfall("x", 120, 20, paged=True).explained  # no page size stated: the pages explain it
    assert not Shortfall("x", 96, 4, paged=True, shown=24).explained  # this page is short of its own 24


def test_the_pages_left_warning_is_typed():
    left = PagesLeft(5, "navigation.pagination")
    assert str(left) == (
        "navigation.pagination: read 5 pages and the listing goes on (max_pages=5): what was filtered,"
        " ordered or counted covers those pages only"
    )
    assert str(PagesLeft(1)).startswith("read 1 page and") and left.explained
    assert not PagesLeft(5, short=True).explained  # its first page lacks what its scripts add


def button(text: str, **kw) -> Clickable:
    return Clickable(ref="1", order=0, tag=kw.pop("tag", "button"), text=text, **kw)


@pytest.mark.parametrize(
    "text",
    [
        "Load more",
        "Show more results",
        "Pokaż więcej",
        "Załaduj więcej",
        "Pokaż więcej produktów",
        "Mehr laden",
        "Mehr anzeigen",
        "Weitere Produkte laden",
        "Load more (24)",
        "Show more ↓",
    ],
)
def test_load_more_buttons_in_our_languages(text):
    assert load_more_score(button(text)) >= 5


@pytest.mark.parametrize(
    ("text", "kw"),
    [
        ("Read more", {}),  # an article's own text
        ("More", {}),  # a menu
        ("Pokaż więcej", {"around": "aside filters facet"}),  # more brands in a filter panel
        ("Show more", {"in_card": True}),  # an item's description
        ("Load more", {"disabled": True}),
        ("Load more", {"visible": False}),
        ("Mehr anzeigen", {"around": "div product-description"}),
        ("Weiter", {}),  # a next page: the pager's own business
    ],
)
def test_what_is_not_a_load_more_button(text, kw):
    assert load_more_score(button(text, **kw)) < 5
