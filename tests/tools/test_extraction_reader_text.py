"""Text as a reader sees it: inline elements joined without inventing spaces.

A browser shows ``<span>Sam</span><span>sung</span>`` as "Samsung", a highlighted search term
``<span class="hit">lap</span>top`` as "laptop", ``Ca<sup>2+</sup>`` as "Ca2+" and a custom element
(``<kw>``) as inline text; only block boundaries, line breaks and real white space separate words, and
two inline fields that each hold words of their own ("Nike Air" + "running shoes") stay apart. Checked
on `visible_text` and on whole result lists in three markups and three languages (EN/PL/DE)."""

from __future__ import annotations

import random

import pytest

from curllm_core.tools.extraction import articles_generic
from curllm_core.tools.extraction._html import parse_html, visible_text
from curllm_core.tools.extraction._parse_memo import remembering
from tests.tools.test_extraction_helpers import assert_valid_output
from tests.tools.test_extraction_list_finding import WORDS, _mega_menu
from tests.tools.test_extraction_list_finding import _cls as _list_cls

#: (markup, what a reader sees), in three languages.
JOINED = [
    # a word split over spans (a renderer's kerning, a highlighted part)
    ("<span>Sam</span><span>sung</span> Galaxy Tab", "Samsung Galaxy Tab"),
    ("<span>Odku</span><span>rzacz</span> bezprzewodowy", "Odkurzacz bezprzewodowy"),
    ("<span>Kühl</span><span>schrank</span> mit Gefrierfach", "Kühlschrank mit Gefrierfach"),
    ('Best <span class="hit">lap</span>top bags', "Best laptop bags"),
    ('Torby na <span class="highlight">lap</span>topa', "Torby na laptopa"),
    ('Günstige <span class="treffer">Wasch</span>maschinen', "Günstige Waschmaschinen"),
    # hyphens joining words across elements
    ('The <span class="small-caps">l</span>-arginine trial', "The l-arginine trial"),
    ("The state-of-the-<span>art</span> review", "The state-of-the-art review"),
    ("Flaga biało-<span>czerwona</span> na maszt", "Flaga biało-czerwona na maszt"),
    ("Das neue E-<span>Bike</span> im Test", "Das neue E-Bike im Test"),
    # superscripts and subscripts of a word
    ("Mitochondrial Ca<sup>2+</sup> uptake", "Mitochondrial Ca2+ uptake"),
    ("Mieszkanie 54 m<sup>2</sup> w centrum", "Mieszkanie 54 m2 w centrum"),
    ("Emissionen von CO<sub>2</sub> senken", "Emissionen von CO2 senken"),
    # a path or reference cut at its slash
    ('<span class="owner">acme/</span>fastqueue', "acme/fastqueue"),
    ("biblioteki/<span>narzędzia</span>", "biblioteki/narzędzia"),
    ("Werkzeuge<span>/Zange</span>", "Werkzeuge/Zange"),
    # custom elements are inline
    ("<kw>Windows</kw> (@<kw>Windows</kw>) on Twitter", "Windows (@Windows) on Twitter"),
    ("Nowy <x-term>smart</x-term>fon", "Nowy smartfon"),
    # quotation marks hold their words
    ("The novel “<span>Dune</span>” reviewed", "The novel “Dune” reviewed"),
    ("Recenzja „<span>Lalki</span>” Prusa", "Recenzja „Lalki” Prusa"),
    ("Goethes „<span>Faust</span>“ neu gelesen", "Goethes „Faust“ neu gelesen"),
]

#: Inline fields of their own, and numbers, stay apart.
APART = [
    ("<span>Nike Air</span><span>running shoes</span>", "Nike Air running shoes"),
    ("<span>Rower górski</span><span>dla dzieci</span>", "Rower górski dla dzieci"),
    ("<span>NEU</span><span>Waschmaschine</span>", "NEU Waschmaschine"),
    ("<span>19</span><sup>97</sup>", "19 97"),
    ("<div>Berlin</div><div>vor 2 Tagen</div>", "Berlin vor 2 Tagen"),
    ("<p>zwei</p><p>trzy</p>", "zwei trzy"),
    ("Revenue<br>in US$<sup>[1]</sup>", "Revenue in US$ [1]"),
    ("<label>Preis:</label><span>12 €</span>", "Preis: 12 €"),
    ("<span>Spodnie / </span><span>Dżinsy</span>", "Spodnie / Dżinsy"),
]


@pytest.mark.parametrize(("html", "seen"), JOINED + APART)
def test_visible_text_joins_inline_elements_inside_words(html, seen):
    assert visible_text(parse_html(f"<div>{html}</div>").css_first("div")) == seen


@pytest.mark.parametrize("inner_first", [True, False])
def test_remembered_texts_read_the_same(inner_first):
    """Inside `_parse_memo.remembering` each element is gathered once and reused by the elements around it:
    every element of every fixture (nested in a card, hidden parts and block marks included) reads
    exactly as without it, whether its parts were read before it or after; the memory ends with it."""
    cards = "".join(
        f'<li class="card"><a href="/{i}"><h3>{html}</h3></a><span class="sr-only">ukryte</span>'
        f'<p data-curllm-block="">{seen}<span hidden>verborgen</span></p></li>'
        for i, (html, seen) in enumerate(JOINED + APART)
    )
    tree = parse_html(f"<div><ul>{cards}</ul><kw data-curllm-block>Ende</kw></div>")
    nodes = list(tree.body.traverse())
    if inner_first:
        nodes.reverse()  # descendants before their ancestors: the ancestors reuse them
    fresh = {n.mem_id: visible_text(n) for n in nodes}
    with remembering():
        remembered = {n.mem_id: visible_text(n) for n in nodes}
        again = {n.mem_id: visible_text(n) for n in nodes}
    assert remembered == fresh and again == fresh
    assert "verborgen" not in fresh[tree.body.mem_id] and "ukryte" not in fresh[tree.body.mem_id]
    other = parse_html("<div><p>Another page</p></div>")
    assert visible_text(other.css_first("div")) == "Another page"  # nothing remembered after it


TITLES = {
    "en": [
        ("<span>Sam</span><span>sung</span> Galaxy Tab review", "Samsung Galaxy Tab review"),
        ('Best <span class="hit">lap</span>top bags of the year', "Best laptop bags of the year"),
        ('The <span class="small-caps">l</span>-arginine trial', "The l-arginine trial"),
        ("Mitochondrial Ca<sup>2+</sup> uptake", "Mitochondrial Ca2+ uptake"),
        ("The novel “<span>Dune</span>” reviewed", "The novel “Dune” reviewed"),
        ("<kw>Windows</kw> (@<kw>Windows</kw>) on Twitter", "Windows (@Windows) on Twitter"),
    ],
    "pl": [
        ("<span>Odku</span><span>rzacz</span> bezprzewodowy do domu", "Odkurzacz bezprzewodowy do domu"),
        ('Torby na <span class="highlight">lap</span>topa i tablet', "Torby na laptopa i tablet"),
        ("Flaga biało-<span>czerwona</span> na maszt", "Flaga biało-czerwona na maszt"),
        ("Mieszkanie 54 m<sup>2</sup> w centrum", "Mieszkanie 54 m2 w centrum"),
        ("Recenzja „<span>Lalki</span>” Prusa", "Recenzja „Lalki” Prusa"),
        ("Nowy <x-term>smart</x-term>fon w sklepie", "Nowy smartfon w sklepie"),
    ],
    "de": [
        ("<span>Kühl</span><span>schrank</span> mit Gefrierfach", "Kühlschrank mit Gefrierfach"),
        ('Günstige <span class="treffer">Wasch</span>maschinen', "Günstige Waschmaschinen"),
        ("Das neue E-<span>Bike</span> im Test", "Das neue E-Bike im Test"),
        ("Emissionen von CO<sub>2</sub> senken", "Emissionen von CO2 senken"),
        ("Goethes „<span>Faust</span>“ neu gelesen", "Goethes „Faust“ neu gelesen"),
        ("Die <kw>Wetter</kw>karte für morgen", "Die Wetterkarte für morgen"),
    ],
}


def _cls(rng: random.Random, markup: str, role: str) -> str:
    if markup == "hashed":
        return f'class="{role[:3]}_{rng.randrange(10)}{rng.randrange(16**4):04x}"'
    return _list_cls(rng, markup, role)


@pytest.mark.parametrize("markup", ["utility", "bem", "hashed"])
@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_result_titles_read_as_shown(lang, markup):
    rng = random.Random(f"{lang}{markup}")
    words = WORDS[lang]
    cards = []
    for i, (title, _) in enumerate(TITLES[lang]):
        url = f"https://gen.example/r/{i}"
        cards.append(
            f"<li {_cls(rng, markup, 'card')}><h3 {_cls(rng, markup, 'name')}><a href='{url}'>{title}</a></h3>"
            f"<p {_cls(rng, markup, 'text')}>{words['snippet']}</p></li>"
        )
    html = (
        f"<html><body>{_mega_menu(rng, markup, words)}<main><h1>{words['menu'][2]}</h1>"
        f"<ol>{''.join(cards)}</ol></main></body></html>"
    )
    out = articles_generic.extract(html, "https://gen.example/search")
    assert_valid_output("articles_generic", out)
    assert [a["title"] for a in out["articles"]] == [seen for _, seen in TITLES[lang]], html


# --- badges -----------------------------------------------------------------------------------------

#: Badges an element of its own puts before or after a title, classed by convention in the markups of
#: many builders (BEM, utility classes, camelCase, test ids), with words no badge list holds.
BADGE_MARKUPS = [
    '<span class="c-card__badge">{}</span>',
    '<span class="badge badge-primary ml-2">{}</span>',
    '<span class="productTag">{}</span>',
    '<span data-testid="title-pill">{}</span>',
    '<small class="flag flag--hot">{}</small>',
    '<span class="ribbon"><span>{}</span></span>',
]
BADGE_WORDS = {
    "en": ["Staff pick", "Top 10", "4K"],
    "pl": ["Polecane", "Top 10", "Raty 0%"],
    "de": ["Tipp", "Top 10", "Vorbestellbar"],
}


@pytest.mark.parametrize("where", ["before", "after"])
@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_a_badge_element_is_no_part_of_a_result_title(lang, where):
    rng = random.Random(f"{lang}{where}")
    words = WORDS[lang]
    titles = words["titles"][:6]
    cards = []
    for i, title in enumerate(titles):
        badge = BADGE_MARKUPS[i % len(BADGE_MARKUPS)].format(BADGE_WORDS[lang][i % 3])
        shown = badge + title if where == "before" else title + badge
        cards.append(
            f"<div class='result'><h3><a href='https://gen.example/r/{i}'>{shown}</a></h3>"
            f"<p>{words['snippet']}</p></div>"
        )
    html = (
        f"<html><body>{_mega_menu(rng, 'bem', words)}<main><h1>{words['menu'][3]}</h1>"
        f"{''.join(cards)}</main></body></html>"
    )
    out = articles_generic.extract(html, "https://gen.example/search")
    assert [a["title"] for a in out["articles"]] == titles


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_titles_that_are_not_badged_stay_whole(lang):
    """A highlighted search term ("<em>New</em> Castle"), a brand in its own element, a badge-classed
    element holding the whole title: no part is cut."""
    titles = {
        "en": [
            "<em>New</em> Castle Restaurant",
            '<span class="brand">SONY</span> Bravia 55 inch',
            "Top Gun sequel review",
        ],
        "pl": [
            "<mark>Nowy</mark> Targ i okolice",
            '<span class="brand">BOSCH</span> wiertarka udarowa',
            "Hit sezonu w kinach",
        ],
        "de": [
            "<b>Neu</b> Ulm Stadtführung",
            '<span class="brand">MIELE</span> Waschmaschine W1',
            '<span class="tag">Wandern im Harz</span>',
        ],
    }[lang]
    cards = "".join(
        f"<li><h3><a href='https://gen.example/r/{i}'>{t}</a></h3><p>{WORDS[lang]['snippet']}</p></li>"
        for i, t in enumerate(titles)
    )
    out = articles_generic.extract(
        f"<html><body><main><ul>{cards}</ul></main></body></html>", "https://gen.example/"
    )
    assert [a["title"] for a in out["articles"]] == [
        visible_text(parse_html(f"<p>{t}</p>").css_first("p")) for t in titles
    ]


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_a_badge_element_is_no_part_of_a_product_name(lang):
    from curllm_core.tools.extraction import products_generic

    names = {
        "en": ["Ceramic mug white", "Steel water bottle", "Bamboo cutting board"],
        "pl": ["Kubek ceramiczny biały", "Butelka stalowa na wodę", "Deska bambusowa do krojenia"],
        "de": ["Keramikbecher weiß", "Trinkflasche aus Stahl", "Schneidebrett aus Bambus"],
    }[lang]
    price = {"en": "${}.99", "pl": "{},99 zł", "de": "{},99 €"}[lang]
    items = "".join(
        f"<li class='product'><a href='/p/{i}'><span class='{('c-badge', 'tag-new', 'productLabel')[i]}'>"
        f"{BADGE_WORDS[lang][i]}</span>{name}</a><div class='price'>{price.format(i + 5)}</div></li>"
        for i, name in enumerate(names)
    )
    out = products_generic.extract(f"<html><body><ul>{items}</ul></body></html>", "http://127.0.0.1:8000/")
    assert [p["name"] for p in out["products"]] == names
