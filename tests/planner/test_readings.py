"""Wordings the rule planner reads as people type them (PL/EN/DE), each either read exactly or quoted:
a corrected typo is said in a warning, a German compound of links is read as its parts, the links of
items are their url field, a count of a qualified thing bounds the count and quotes the qualifier,
field words match whole words only (an unknown brand is quoted), and a tool's example never lends its
values to an instruction that states other ones."""

from __future__ import annotations

import pytest

from curllm_core.planner.rules import plan_with_rules

SHOP = "https://shop.example/"
HN = "https://news.ycombinator.com/"


def _plan(instruction: str, url: str, registry):
    plan = plan_with_rules(instruction, url, registry).plan
    return {s.tool: s.parameters for s in plan.steps}, plan.warnings, plan.expected_output


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("the 5 cheapset products", "read 'cheapset' as 'cheapest'"),
        ("produkty poniżje 100 zł", "read 'poniżje' as 'ponizej'"),
        ("Produkte zwischn 10 und 20 Euro", "read 'zwischn' as 'zwischen'"),
    ],
)
def test_a_corrected_typo_is_said(registry, typed, said):
    _, warnings, _ = _plan(typed, SHOP, registry)
    assert said in warnings, warnings


@pytest.mark.parametrize(
    "instruction",
    [
        "Produkte mit mindestens 100 positiven Bewertungen",  # "positiven" is 2 edits from "position"
        "the 5 cheapest products from Imagex",
    ],
)
def test_a_correction_nothing_reads_is_not_made(registry, instruction):
    _, warnings, _ = _plan(instruction, SHOP, registry)
    assert not any(w.startswith("read ") for w in warnings), warnings
    assert any("'positiven'" in w or "'Imagex'" in w for w in warnings), warnings


@pytest.mark.parametrize(
    ("instruction", "pattern_part"),
    [
        ("alle Facebooklinks", "facebook"),
        ("Facebook-Links der Seite", "facebook"),
        ("alle Bilderlinks", "png"),
        ("Links zu Facebook", "facebook"),
    ],
)
def test_a_german_compound_of_links_is_read_as_its_parts(registry, instruction, pattern_part):
    steps, warnings, kind = _plan(instruction, SHOP, registry)
    assert kind == "links"
    assert pattern_part in steps["extraction.links_by_pattern"]["pattern"], steps
    assert not warnings, warnings


@pytest.mark.parametrize(
    ("instruction", "url", "kind"),
    [
        ("alle Produktlinks", SHOP, "products"),
        ("die Beitrags-Links", HN, "articles"),
        ("the product links", SHOP, "products"),
        ("article links", HN, "articles"),
        ("linki produktów", SHOP, "products"),
        ("adresy artykułów", HN, "articles"),
    ],
)
def test_the_links_of_items_are_their_url_field(registry, instruction, url, kind):
    steps, warnings, expected = _plan(instruction, url, registry)
    assert expected == kind
    assert steps["validation.select_fields"]["fields"] == ["url"], steps
    assert not warnings, warnings


@pytest.mark.parametrize(
    ("instruction", "bound", "qualifier"),
    [
        ("products with at least 100 positive reviews", {"at_least": 100}, "positive"),
        ("products with 100 positive reviews", {"at_least": 100}, "positive"),
        ("produkty z co najmniej 100 pozytywnymi opiniami", {"at_least": 100}, "pozytywnymi"),
        ("Produkte mit mindestens 100 positiven Bewertungen", {"at_least": 100}, "positiven"),
        ("Produkte mit über 50 echten Bewertungen", {"above": 50}, "echten"),
    ],
)
def test_a_count_of_a_qualified_thing_bounds_the_count_and_quotes_the_qualifier(
    registry, instruction, bound, qualifier
):
    steps, warnings, _ = _plan(instruction, SHOP, registry)
    assert steps["validation.filter_number"] == {
        "field": "reviews",
        **bound,
        "keep_missing": False,
        "key": "products",
    }
    assert "forms.price_filter" not in steps  # the number is no price
    assert any(f"'{qualifier}'" in w for w in warnings), warnings


@pytest.mark.parametrize(
    ("instruction", "field", "bound"),
    [
        ("products rated at least 4 stars", "rating", {"at_least": 4}),
        ("produkty ocenione na co najmniej 4 gwiazdki", "rating", {"at_least": 4}),
        ("Produkte bewertet mit mindestens 4 Sternen", "rating", {"at_least": 4}),  # not the example's 100
        ("Produkte mit mindestens 30 Bewertungen", "reviews", {"at_least": 30}),
    ],
)
def test_a_bound_is_the_instructions_own_not_an_examples(registry, instruction, field, bound):
    steps, warnings, _ = _plan(instruction, SHOP, registry)
    assert steps["validation.filter_number"] == {
        "field": field,
        **bound,
        "keep_missing": False,
        "key": "products",
    }
    assert not warnings, warnings


@pytest.mark.parametrize(
    "instruction",
    [
        "the cheapest products from Imagex",
        "najtańsze produkty od Imagex",
        "die günstigsten Produkte von Imagex",
    ],
)
def test_a_word_that_starts_like_a_field_word_is_no_field_word(registry, instruction):
    _, warnings, _ = _plan(instruction, SHOP, registry)
    assert any("'Imagex'" in w for w in warnings), warnings


@pytest.mark.parametrize(
    ("instruction", "word"),
    [
        ("the 3 cheapest products with EOS in the name", "EOS"),
        ("stories with Rust in the title", "Rust"),
        ("produkty z PIXMA w nazwie", "PIXMA"),
        ("Produkte mit Bosch im Namen", "Bosch"),
    ],
)
def test_a_word_in_the_name_is_a_text_filter(registry, instruction, word):
    steps, warnings, _ = _plan(instruction, SHOP, registry)
    assert steps["validation.filter_text"]["contains"] == word, steps
    assert not warnings, warnings


@pytest.mark.parametrize(
    ("instruction", "word"),
    [
        ("give me the cheapest product from Imagex", "Imagex"),
        ("najtańsze produkty marki Bosch", "Bosch"),
        ("alle Produkte von Felix", "Felix"),
    ],
)
def test_a_maker_named_after_the_noun_is_a_name_word_and_said(registry, instruction, word):
    steps, warnings, _ = _plan(instruction, SHOP, registry)
    assert steps["validation.filter_text"]["word"] == word, steps
    assert any(f"'{word}' is read as a word" in w for w in warnings), warnings


def test_a_known_word_after_von_is_no_maker(registry):
    steps, warnings, _ = _plan("Produkte von Händlern", SHOP, registry)
    assert "validation.filter_text" not in steps
    assert any("'Händlern'" in w for w in warnings), warnings


@pytest.mark.parametrize(
    "instruction",
    [
        "products without the sponsored ones, cheapest first",
        "produkty bez sponsorowanych, najtańsze najpierw",
        "Produkte ohne die gesponserten, billigste zuerst",
    ],
)
def test_ads_left_out_and_cheapest_first(registry, instruction):
    steps, warnings, _ = _plan(instruction, SHOP, registry)
    assert steps["validation.filter_flags"]["sponsored"] is False, steps
    assert steps["validation.order_items"]["order"] == "asc", steps
    assert not warnings, warnings


@pytest.mark.parametrize(
    ("instruction", "url", "group"),
    [
        ("the 3 cheapest products of each brand", SHOP, {"group_by": "brand", "pick": "lowest", "each": 3}),
        ("the first 2 stories of each author", HN, {"group_by": "author", "pick": "first", "each": 2}),
        ("3 najtańsze produkty z każdej marki", SHOP, {"group_by": "brand", "pick": "lowest", "each": 3}),
        ("die 2 günstigsten Produkte je Marke", SHOP, {"group_by": "brand", "pick": "lowest", "each": 2}),
        (
            "die 2 teuersten Angebote jedes Händlers",
            SHOP,
            {"group_by": "seller", "pick": "highest", "each": 2},
        ),
    ],
)
def test_a_count_within_each_group_is_the_groups_not_the_lists(registry, instruction, url, group):
    steps, warnings, _ = _plan(instruction, url, registry)
    got = steps["validation.per_group"]
    assert {k: got[k] for k in group} == group, steps
    assert "limit" not in steps.get("validation.order_items", {}), steps  # not the first N of the list
    assert not warnings, warnings


@pytest.mark.parametrize(
    ("instruction", "kind"),
    [
        ("the 5 most commented entries", "articles"),
        ("5 najbardziej komentowanych", "articles"),
        ("die 5 meistkommentierten Artikel", "articles"),  # "Artikel": items or articles; comments decide
        ("Artikel mit mehr als 100 Punkten", "articles"),
        ("die 3 billigsten Artikel", "products"),
    ],
)
def test_with_no_word_for_the_kind_the_field_ordered_or_bounded_by_names_it(registry, instruction, kind):
    _, warnings, expected = _plan(instruction, "http://127.0.0.1:8000/page.html", registry)
    assert expected == kind
    assert not warnings, warnings


@pytest.mark.parametrize(
    ("instruction", "bound"),
    [
        ("products with more than 100 points", {"field": "points", "at_least": 101}),
        ("produkty z ponad 100 komentarzami", {"field": "comments", "at_least": 101}),
        ("Produkte mit mehr als 100 Punkten", {"field": "points", "at_least": 101}),
    ],
)
def test_a_least_score_the_extraction_does_not_take_is_a_bound_never_dropped(registry, instruction, bound):
    steps, _, _ = _plan(instruction, SHOP, registry)
    got = steps["validation.filter_number"]
    assert {k: got[k] for k in bound} == bound, steps


@pytest.mark.parametrize(
    ("instruction", "url", "tool", "params"),
    [
        ("posts by jeweloree", HN, "validation.filter_text", {"field": "author", "equals": "jeweloree"}),
        ("wpisy od kowalski", HN, "validation.filter_text", {"field": "author", "equals": "kowalski"}),
        ("Beiträge von anna", HN, "validation.filter_text", {"field": "author", "equals": "anna"}),
        ("what is the total number of points?", HN, "validation.aggregate", {"op": "sum", "field": "points"}),
        ("policz artykuły z co najmniej 200 punktami", HN, "validation.aggregate", {"op": "count"}),
        ("zähle die Beiträge", HN, "validation.aggregate", {"op": "count"}),
    ],
)
def test_the_author_after_the_noun_and_counts_and_sums_in_words(registry, instruction, url, tool, params):
    steps, warnings, _ = _plan(instruction, url, registry)
    assert {k: steps[tool][k] for k in params} == params, steps
    assert not warnings, warnings


@pytest.mark.parametrize(
    "instruction", ["ile kosztuje najtańszy produkt?", "how much does the cheapest product cost?"]
)
def test_how_much_something_costs_is_no_count(registry, instruction):
    steps, _, expected = _plan(instruction, SHOP, registry)
    assert expected == "products" and "validation.aggregate" not in steps, steps
    assert steps["validation.order_items"]["limit"] == 1
