"""The operations on items (filter by text, number and flags, distinct, per group, aggregate): each
on its own, and as a step through the real executor on any item list (a plugin's included), with the
warnings reaching the result."""

from __future__ import annotations

import pytest

from curllm_core.errors import ToolError
from curllm_core.executor import RunOptions, execute
from curllm_core.manifest import manifests_dir
from curllm_core.plan import check_plan
from curllm_core.registry import Registry
from curllm_core.tools.validation._values import flag_of, number_of
from curllm_core.tools.validation.aggregate import aggregate
from curllm_core.tools.validation.distinct_items import distinct_items
from curllm_core.tools.validation.filter_flags import filter_flags
from curllm_core.tools.validation.filter_number import filter_number
from curllm_core.tools.validation.filter_text import domain_matches, filter_text
from curllm_core.tools.validation.per_group import per_group

PRODUCTS = [
    {
        "name": "Philips HD9350 Czajnik",
        "price": 129.0,
        "currency": "PLN",
        "url": "https://s.example/p/1",
        "brand": "Philips",
        "seller": "Sklep A",
    },
    {
        "name": "Czajnik Bosch TWK",
        "price": 99.99,
        "currency": "PLN",
        "url": "https://s.example/p/2",
        "brand": "Bosch",
        "seller": "Sklep B",
    },
    {
        "name": "PHILIPS Series 5000 kettle",
        "price": 189.5,
        "currency": "PLN",
        "url": "https://www.s.example/p/3/",
        "brand": "philips",
        "seller": "Sklep B",
    },
    {
        "name": "Boschung Wasserkocher",
        "price": 59.0,
        "currency": "PLN",
        "url": "https://s.example/p/4",
        "brand": None,
        "seller": "Sklep A",
    },
    {
        "name": "Czajnik Bosch TWK",
        "price": 89.0,
        "currency": "PLN",
        "url": "https://s.example/p/2#opinie",
        "brand": "Bosch",
        "seller": "Sklep C",
    },
]
STORIES = [  # as Hacker News stories: a title, points, comments, a user and a link
    {
        "title": "Show HN: a kettle",
        "points": 120,
        "comments": 4,
        "author": "dang",
        "url": "https://www.youtube.com/watch?v=1",
    },
    {
        "title": "Łódź trams",
        "points": "1.2k points",
        "comments": "45 comments",
        "author": "Pg",
        "url": "https://github.com/a/b",
    },
    {"title": "Ask HN: tea?", "points": 7, "comments": None, "author": "dang", "url": "https://youtu.be/x"},
    {"title": "Videos", "points": 30, "comments": 2, "author": "kim", "url": "https://m.youtube.de/v"},
]
REDDIT = [  # a plugin's or another site's names: score for points, num_comments, promoted ads
    {"title": "a", "score": 10, "num_comments": 3, "promoted": False},
    {"title": "b", "score": 2300, "num_comments": 800, "promoted": True},
]


def names(items: list) -> list:
    return [i.get("name") or i.get("title") for i in items]


# --- filter by text -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "items, field, tests, exclude, expected",
    [
        (
            PRODUCTS,
            None,
            {"word": ["philips"]},
            False,
            ["Philips HD9350 Czajnik", "PHILIPS Series 5000 kettle"],
        ),
        # A whole word: "Bosch" is not "Boschung"; "contains" finds both.
        (PRODUCTS, "name", {"word": ["bosch"]}, False, ["Czajnik Bosch TWK", "Czajnik Bosch TWK"]),
        (
            PRODUCTS,
            "name",
            {"contains": ["bosch"]},
            False,
            ["Czajnik Bosch TWK", "Boschung Wasserkocher", "Czajnik Bosch TWK"],
        ),
        (PRODUCTS, "title", {"starts_with": ["czajnik"]}, False, ["Czajnik Bosch TWK", "Czajnik Bosch TWK"]),
        (
            PRODUCTS,
            "brand",
            {"equals": ["PHILIPS"]},
            False,
            ["Philips HD9350 Czajnik", "PHILIPS Series 5000 kettle"],
        ),
        (
            PRODUCTS,
            None,
            {"word": ["philips"]},
            True,
            ["Czajnik Bosch TWK", "Boschung Wasserkocher", "Czajnik Bosch TWK"],
        ),
        # Accents and case folded: "lodz" finds "Łódź"; "author" finds the item's author key.
        (STORIES, "name", {"contains": ["lodz"]}, False, ["Łódź trams"]),
        (STORIES, "author", {"equals": ["DANG"]}, False, ["Show HN: a kettle", "Ask HN: tea?"]),
        # A domain and its subdomains; a name without a dot under any top-level domain.
        (STORIES, None, {"domain": ["youtube.com"]}, False, ["Show HN: a kettle"]),
        (STORIES, None, {"domain": ["youtube"]}, False, ["Show HN: a kettle", "Videos"]),
        (
            STORIES,
            None,
            {"domain": ["youtube.com", "youtu.be"]},
            False,
            ["Show HN: a kettle", "Ask HN: tea?"],
        ),
        (STORIES, "url", {"domain": ["github.com"]}, True, ["Show HN: a kettle", "Ask HN: tea?", "Videos"]),
        # Tests given together must all hold.
        (
            PRODUCTS,
            "name",
            {"word": ["czajnik"], "contains": ["bosch"]},
            False,
            ["Czajnik Bosch TWK", "Czajnik Bosch TWK"],
        ),
    ],
)
def test_filter_text(items, field, tests, exclude, expected):
    kept, rejected = filter_text(list(items), field, tests, exclude)
    assert names(kept) == expected
    assert len(kept) + len(rejected) == len(items)


@pytest.mark.parametrize(
    "host, domain, ok",
    [
        ("www.youtube.com", "youtube.com", True),
        ("youtube.com", "www.youtube.com", True),
        ("notyoutube.com", "youtube.com", False),
        ("youtube.com.evil.example", "youtube.com", False),
        ("youtube.co.uk", "youtube", True),
        ("example.youtube", "youtube", False),  # a top-level domain is no site's name
    ],
)
def test_domain_matches(host, domain, ok):
    assert domain_matches(host, domain) is ok


def test_filter_text_on_a_field_no_item_has_fails_naming_the_fields():
    with pytest.raises(ToolError, match=r"no item has a field for 'author'.*their fields: brand, currency"):
        filter_text(list(PRODUCTS), "author", {"equals": ["x"]}, False)


# --- filter by number ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "items, field, bounds, expected",
    [
        (STORIES, "comments", {"below": 5}, ["Show HN: a kettle", "Videos"]),  # no value: left out
        (STORIES, "comments", {"at_least": 45}, ["Łódź trams"]),  # "45 comments" read as 45
        (STORIES, "points", {"above": 1000}, ["Łódź trams"]),  # "1.2k points" is 1200
        (STORIES, "points", {"at_least": 7, "at_most": 30}, ["Ask HN: tea?", "Videos"]),
        (REDDIT, "points", {"at_least": 100}, ["b"]),  # points is a post's score
        (REDDIT, "comments", {"at_most": 3}, ["a"]),
        (
            PRODUCTS,
            "price",
            {"below": 100},
            ["Czajnik Bosch TWK", "Boschung Wasserkocher", "Czajnik Bosch TWK"],
        ),
        ([{"name": "r", "rating": "4,5 z 5"}, {"name": "s", "rating": 4}], "rating", {"above": 4}, ["r"]),
    ],
)
def test_filter_number(items, field, bounds, expected):
    kept, rejected, other = filter_number(list(items), field, **bounds)
    assert names(kept) == expected and other == 0
    assert len(kept) + len(rejected) == len(items)


def test_filter_number_keeps_missing_only_when_asked():
    kept, _, _ = filter_number(list(STORIES), "comments", below=5, keep_missing=True)
    assert names(kept) == ["Show HN: a kettle", "Ask HN: tea?", "Videos"]


def test_filter_number_does_not_compare_other_currencies():
    items = [
        {"name": "a", "price": 20, "currency": "EUR"},
        {"name": "b", "price": 20, "currency": "USD"},
        {"name": "c", "price": 40, "currency": "EUR"},
    ]
    kept, rejected, other = filter_number(items, "price", below=30, currency="eur")
    assert names(kept) == ["a"] and other == 1
    assert "no exchange rates" in rejected[0]["reason"]


def test_filter_number_needs_a_bound_and_a_field():
    with pytest.raises(ToolError, match="give a bound"):
        filter_number(list(STORIES), "points")
    with pytest.raises(ToolError, match="no item has a field for 'reviews'"):
        filter_number(list(STORIES), "reviews", at_least=1)


@pytest.mark.parametrize(
    "value, field, number",
    [
        (12, None, 12.0),
        ("1,234", None, 1234.0),
        ("1.234,5", None, 1234.5),
        ("4,5", None, 4.5),
        ("2.5k", None, 2500.0),
        ("1 299,00 zł", "price", 1299.0),
        ("Preis: 24,99 €", "price", 24.99),
        ({"value": 3}, None, 3.0),
        ("none", None, None),
        (True, None, None),
    ],
)
def test_number_of(value, field, number):
    assert number_of(value, field) == number


# --- flags --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "item, flag, state",
    [
        ({"availability": "https://schema.org/InStock"}, "in_stock", True),
        ({"availability": "OutOfStock"}, "in_stock", False),
        ({"availability": "Produkt niedostępny"}, "in_stock", False),
        ({"availability": "Auf Lager"}, "in_stock", True),
        ({"availability": "Nicht lieferbar"}, "in_stock", False),
        ({"in_stock": False}, "in_stock", False),
        ({"stock": 3}, "in_stock", True),
        ({"availability": None}, "in_stock", None),
        ({"price": 80, "price_regular": 100}, "on_sale", True),
        ({"price": 80, "price_regular": None}, "on_sale", False),  # the extraction reads regular prices
        ({"price": 80}, "on_sale", None),
        ({"shipping": "Darmowa dostawa"}, "free_shipping", True),
        ({"shipping": "Kostenloser Versand"}, "free_shipping", True),
        ({"shipping": "+ 4,90 € Versand"}, "free_shipping", False),
        ({"shipping_cost": 0}, "free_shipping", True),
        ({"sponsored": True}, "sponsored", True),
        ({"promoted": False}, "sponsored", False),
        ({}, "sponsored", None),
    ],
)
def test_flag_of(item, flag, state):
    assert flag_of(item, flag) is state


def test_filter_flags_not_sponsored_and_unknowns():
    items = [
        {"name": "a", "sponsored": True, "availability": "InStock"},
        {"name": "b", "availability": "OutOfStock"},  # unmarked among marked: not an ad
        {"name": "c", "sponsored": False},
    ]
    kept, _, unknown = filter_flags(items, {"sponsored": False})
    assert names(kept) == ["b", "c"] and unknown == {}
    kept, rejected, unknown = filter_flags(items, {"in_stock": True})
    assert names(kept) == ["a"] and unknown == {"in_stock": 1}
    assert "does not say whether it is in stock" in rejected[-1]["reason"]
    kept, _, _ = filter_flags(items, {"in_stock": True}, keep_unknown=True)
    assert names(kept) == ["a", "c"]


def test_filter_flags_fails_when_no_item_says():
    with pytest.raises(ToolError, match="no item says whether it is shipped free"):
        filter_flags(list(PRODUCTS), {"free_shipping": True})


# --- distinct -----------------------------------------------------------------------------------------


def test_distinct_by_link_and_by_name():
    kept, by, dropped = distinct_items(list(PRODUCTS))
    # "…/p/2#opinie" is "…/p/2"; "www." and a trailing slash do not make another link.
    assert by == "url" and dropped == 1 and len(kept) == 4
    kept, by, dropped = distinct_items(list(PRODUCTS), "name")
    assert by == "name" and names(kept) == names(PRODUCTS[:4])
    kept, by, _ = distinct_items([{"text": "a"}, {"text": "A "}, {"text": "b"}])
    assert by == "text" and len(kept) == 2  # no link: the name, folded


# --- per group ----------------------------------------------------------------------------------------


def test_per_group_cheapest_most_expensive_and_first():
    kept, report, warnings = per_group(list(PRODUCTS), "seller", "lowest", "price")
    assert [(p["seller"], p["price"]) for p in kept] == [
        ("Sklep A", 59.0),
        ("Sklep B", 99.99),
        ("Sklep C", 89.0),
    ]
    assert report["groups"] == 3 and warnings == []
    kept, _, warnings = per_group(list(PRODUCTS), "brand", "highest")
    # "philips" and "Philips" are one brand; the item without a brand is left out, with a warning.
    assert [(p["brand"], p["price"]) for p in kept] == [("philips", 189.5), ("Bosch", 99.99)]
    assert warnings == ["1 of 5 items have no brand and were left out"]
    kept, _, _ = per_group(list(STORIES), "author")
    assert names(kept) == ["Show HN: a kettle", "Łódź trams", "Videos"]


def test_per_group_keeps_each_of_the_lowest_or_highest_of_every_group():
    """ "the 2 cheapest of each seller": the 2 lowest of every group, in order, groups as they came."""
    kept, report, _ = per_group(list(PRODUCTS), "seller", "lowest", "price", each=2)
    assert [(p["seller"], p["price"]) for p in kept] == [
        ("Sklep A", 59.0),
        ("Sklep A", 129.0),
        ("Sklep B", 99.99),
        ("Sklep B", 189.5),
        ("Sklep C", 89.0),
    ]
    assert report["groups"] == 3 and report["kept"] == 5
    kept, _, _ = per_group(list(PRODUCTS), "brand", "highest", each=2)
    assert [p["price"] for p in kept] == [189.5, 129.0, 99.99, 89.0]
    kept, _, _ = per_group(list(PRODUCTS), "seller", each=1)
    assert [p["price"] for p in kept] == [129.0, 99.99, 89.0]  # the first of each, as on the page


def test_per_group_without_the_field_warns_and_keeps_every_item():
    kept, report, warnings = per_group(list(STORIES), "brand", "lowest")
    assert kept == STORIES and report["group_by"] is None
    assert "no item has a field for 'brand'" in warnings[0] and "not grouped" in warnings[0]


# --- aggregates ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "items, op, field, summary, missing",
    [
        (PRODUCTS, "count", None, {"count": 5}, 0),
        (PRODUCTS, "average", "price", {"average_price": 113.3, "currency": "PLN"}, 0),
        (PRODUCTS, "min", None, {"min_price": 59, "currency": "PLN"}, 0),
        (PRODUCTS, "max", "price", {"max_price": 189.5, "currency": "PLN"}, 0),
        (PRODUCTS, "median", "price", {"median_price": 99.99, "currency": "PLN"}, 0),
        (STORIES, "sum", "points", {"sum_points": 1357}, 0),
        (STORIES, "average", "comments", {"average_comments": 17}, 1),
        (REDDIT, "max", "points", {"max_points": 2300}, 0),
        ([], "average", "price", {"average_price": None}, 0),
    ],
)
def test_aggregate(items, op, field, summary, missing):
    assert aggregate(list(items), op, field) == (summary, missing)


def test_aggregate_refuses_prices_in_several_currencies():
    items = [{"price": 1, "currency": "EUR"}, {"price": 2, "currency": "USD"}]
    with pytest.raises(ToolError, match=r"2 currencies \(EUR, USD\).*exchange rates"):
        aggregate(items, "sum", "price")


# --- as steps through the executor --------------------------------------------------------------------


@pytest.fixture(scope="module")
def registry() -> Registry:
    r = Registry()
    r.register(manifests_dir() / "validation")
    return r


async def run_steps(registry, steps: list[dict], data: dict, expected: str | None = None):
    doc = {"plan": steps, "expected_output": expected or next(iter(data))}
    plan = check_plan(doc, registry, initial_keys=set(data))
    return await execute(plan, registry, RunOptions(data=data))


async def test_a_chain_of_operations_on_a_plugins_list(registry):
    """A plugin's key ("offers") and field names: filters, distinct, per group, then two aggregates."""
    offers = [{**p, "title": p.pop("name")} for p in (dict(x) for x in PRODUCTS)]
    result = await run_steps(
        registry,
        [
            {"tool": "filter_text", "parameters": {"field": "name", "word": "czajnik", "key": "offers"}},
            {"tool": "distinct_items", "parameters": {"key": "offers"}},
            {
                "tool": "filter_number",
                "parameters": {"field": "price", "at_most": 150, "currency": "PLN", "key": "offers"},
            },
            {"tool": "aggregate", "parameters": {"op": "count", "of": "offers"}},
            {"tool": "aggregate", "parameters": {"op": "average", "of": "offers"}},
        ],
        {"offers": offers},
        expected="summary",
    )
    assert result.ok, result.errors
    assert names(result.data["offers"]) == ["Philips HD9350 Czajnik", "Czajnik Bosch TWK"]
    assert result.data["summary"] == {"count": 2, "average_price": 114.5, "currency": "PLN"}


async def test_warnings_of_the_operations_reach_the_result(registry):
    result = await run_steps(
        registry,
        [
            {"tool": "per_group", "parameters": {"group_by": "brand", "pick": "lowest", "key": "articles"}},
            {"tool": "filter_number", "parameters": {"field": "comments", "below": 10, "key": "articles"}},
        ],
        {"articles": list(STORIES)},
    )
    assert result.ok
    assert any("validation.per_group: no item has a field for 'brand'" in w for w in result.warnings)


async def test_a_refused_aggregate_fails_the_step_naming_the_currencies(registry):
    data = {
        "products": [
            {"name": "a", "price": 1, "currency": "EUR"},
            {"name": "b", "price": 2, "currency": "GBP"},
        ]
    }
    result = await run_steps(registry, [{"tool": "aggregate", "parameters": {"op": "sum"}}], data, "summary")
    assert not result.ok and "exchange rates" in result.steps[0].error


@pytest.mark.parametrize(
    "tool, params",
    [
        ("filter_text", {}),  # nothing to match
        ("filter_number", {"field": "price"}),  # no bound
        ("filter_flags", {"keep_unknown": True}),  # no flag
        ("aggregate", {"op": "mode"}),
    ],
)
def test_steps_that_say_too_little_are_refused_by_the_plan_check(registry, tool, params):
    from curllm_core.errors import PlanError

    with pytest.raises(PlanError):
        check_plan({"plan": [{"tool": tool, "parameters": params}]}, registry, initial_keys={"products"})


def test_the_plan_check_wires_an_aggregate_by_its_input_key(registry):
    """`of` plays the ``input_key`` role: the step reads the list it names (which an earlier step or
    the given data must hold) and writes its own ``summary``."""
    from curllm_core.errors import PlanError
    from curllm_core.plan import step_io

    manifest = registry.get("validation.aggregate")
    assert step_io(manifest, {"op": "count", "of": "articles"}, registry) == (["articles"], ["summary"])
    doc = {"plan": [{"tool": "aggregate", "parameters": {"op": "count", "of": "articles"}}]}
    with pytest.raises(PlanError, match="articles"):
        check_plan({**doc, "expected_output": "summary"}, registry, initial_keys={"products"})
    assert check_plan({**doc, "expected_output": "summary"}, registry, initial_keys={"articles"})


@pytest.mark.parametrize(
    "names, kept",
    [
        (  # EN / DE / PL product names, the maker first; a comma and a case difference are one maker
            [
                "ASUS TUF B650 199,00",
                "MSI PRO B650",
                "ASUS Prime B650",
                "Whiskas, Adult 1+",
                "whiskas Junior",
            ],
            ["ASUS TUF B650 199,00", "MSI PRO B650", "Whiskas, Adult 1+"],
        ),
        (
            ["Makita Akku-Bohrschrauber", "Bosch Bohrhammer", "Makita Schlagbohrer"],
            ["Makita Schlagbohrer", "Bosch Bohrhammer"],
        ),
        (
            ["Bosch wiertarka udarowa", "Bosch wkrętarka", "Makita wiertarka"],
            ["Bosch wkrętarka", "Makita wiertarka"],
        ),
    ],
)
def test_per_group_brand_without_a_brand_field_is_the_names_first_word(names, kept):
    prices = {"ASUS TUF B650 199,00": 300.0, "Makita Schlagbohrer": 199.0, "Bosch wkrętarka": 250.0}
    items = [{"name": n, "price": prices.get(n, 100.0)} for n in names]
    got, report, warnings = per_group(items, "brand", "highest", "price")
    assert [p["name"] for p in got] == kept
    assert all("_maker" not in p for p in got) and report["groups"] == len(kept)
    assert "grouped by the first word of their names" in warnings[0]
