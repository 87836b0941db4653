"""Spelling as people type (planner/spelling.py): umlauts as ae/oe/ue/ss, Polish without diacritics and
small typos read as the same facts as the right spelling; short words and brands are never "corrected"."""

from __future__ import annotations

import pytest

from curllm_core.planner.rules import plan_with_rules
from curllm_core.planner.spelling import allowed_edits, correct, respell

SHOP = "https://shop.example/"
HN = "https://news.ycombinator.com/"
LOCAL = "http://127.0.0.1:8000/real/page.html"


def _plan(instruction: str, url: str, registry):
    planned = plan_with_rules(instruction, url, registry)
    return [(s.tool, s.parameters) for s in planned.plan.steps], planned.plan.warnings


@pytest.mark.parametrize(
    ("typed", "right", "url"),
    [
        # DE: umlauts written ae/oe/ue, and a participle's superlative with a count
        ("die 3 guenstigsten Produkte unter 50 Euro", "die 3 günstigsten Produkte unter 50 Euro", SHOP),
        ("zeige die 5 guenstigsten Angebote", "zeige die 5 günstigsten Angebote", SHOP),
        ("die groesste Tabelle", "die größte Tabelle", LOCAL),
        ("die 4 am haeufigsten kommentierten Beitraege", "die 4 am häufigsten kommentierten Beiträge", HN),
        ("die 3 am haeufigsten kommentierten Beitraege", "die 3 meistkommentierten Beiträge", HN),
        # PL: without diacritics
        ("najtansze 5 produktow ponizej 100 zl", "najtańsze 5 produktów poniżej 100 zł", SHOP),
        ("pokaz najdrozsze produkty powyzej 200 zl", "pokaż najdroższe produkty powyżej 200 zł", SHOP),
        ("wszystkie produkty ponizej 80 zl", "wszystkie produkty poniżej 80 zł", SHOP),
        ("najtanszy produkt", "najtańszy produkt", SHOP),
        # EN: typos within the allowed distance of a vocabulary word
        ("the 5 cheapset prodcuts under 100", "the 5 cheapest products under 100", SHOP),
        ("the 3 most exspensive products", "the 3 most expensive products", SHOP),
        ("top 10 storise with more than 100 points", "top 10 stories with more than 100 points", HN),
    ],
)
def test_typed_spelling_plans_as_the_right_one(registry, typed, right, url):
    got, warnings = _plan(typed, url, registry)
    want, _ = _plan(right, url, registry)
    assert got == want, (typed, got, want)
    assert not any("not understood" in w for w in warnings), warnings


@pytest.mark.parametrize(
    ("instruction", "url", "quoted"),
    [
        # a short word is never corrected ("lint" is one edit from "link")
        ("the 5 cheapest products made of lint", SHOP, "'lint'"),
        ("die 5 günstigsten Produkte aus Lint", SHOP, "Lint"),
        # a word no vocabulary word is near stays as typed and is quoted
        ("najtansze produkty z wysylka gratis", SHOP, "wysylka"),
    ],
)
def test_what_is_not_read_is_still_quoted(registry, instruction, url, quoted):
    _, warnings = _plan(instruction, url, registry)
    assert any(quoted in w for w in warnings), warnings


@pytest.mark.parametrize(
    "instruction",
    [
        "the 5 cheapest Offero products",
        "die 5 günstigsten Produkte von Offero",
        "najtańsze produkty Offero",
    ],
)
def test_a_brand_is_not_corrected_into_a_vocabulary_word(registry, instruction):
    # "Offero" is one edit from "offers": as brands they stay as typed.
    got, warnings = _plan(instruction, SHOP, registry)
    brand = "Offero"
    assert brand in str(got) + " ".join(warnings), (got, warnings)
    assert correct(brand.lower()) is not None  # the guard, not a distant vocabulary, keeps it


def test_the_rules_of_correction():
    assert [allowed_edits(w) for w in ("link", "cheap", "products", "expensive")] == [0, 1, 1, 2]
    assert correct("lint") is None  # short
    assert correct("movie") is None  # an inflection of "movies" is no typo
    assert correct("cheapset") == "cheapest"
    assert correct("exspensive") == "expensive"
    assert correct("Prodcuts") == "Products"  # as typed: capitalised
    assert respell("maja") is None  # a word of its own (the month), beside "mają"
    assert respell("Guenstigste") == "Günstigste"
    assert respell("Beitraege") == "Beiträge"
