"""validation.order_items and validation.select_fields on data alone, through the executor: any item
list, fields as concepts across sites (points is a Reddit post's score), honest failures."""

from __future__ import annotations

import pytest

from curllm_core.errors import ToolError
from curllm_core.item_fields import concept_of, key_for
from curllm_core.tools.validation.order_items import order_items
from curllm_core.tools.validation.select_fields import select_fields

PRODUCTS = [
    {"name": "B", "price": 20.0, "currency": "PLN", "url": "https://s.example/b"},
    {"name": "a", "price": 5.5, "currency": "PLN", "url": "https://s.example/a"},
    {"name": "C", "price": None, "currency": None, "url": "https://s.example/c"},
    {"name": "D", "price": 20, "currency": "PLN", "url": "https://s.example/d"},
    {"name": "e", "price": 7, "currency": "PLN", "url": "https://s.example/e"},
]
HN = [  # Hacker News stories call it points, and a story's name its title
    {"title": "one", "points": 10, "comments": 3, "age": "2024-05-01T10:00:00"},
    {"title": "two", "points": None, "comments": None, "age": "2024-05-03T10:00:00"},
    {"title": "three", "points": 300, "comments": 1, "age": "2024-05-02T10:00:00"},
]
REDDIT = [  # ... Reddit posts a score
    {"title": "x", "score": 5, "comments": 40},
    {"title": "y", "score": 2395, "comments": 657},
]


def names(items: list) -> list:
    return [i.get("name") or i.get("title") for i in items]


@pytest.mark.parametrize(
    "items, by, order, limit, expected",
    [
        (PRODUCTS, "price", "asc", None, ["a", "e", "B", "D", "C"]),  # ties keep page order, no price last
        (PRODUCTS, "price", "desc", None, ["B", "D", "e", "a", "C"]),
        (PRODUCTS, "price", None, 2, ["a", "e"]),  # price: cheapest first by default
        (PRODUCTS, "name", "asc", None, ["a", "B", "C", "D", "e"]),  # text casefolded
        (HN, "points", None, None, ["three", "one", "two"]),  # points: most first by default
        (HN, "date", "desc", 1, ["two"]),  # the concept date is a story's age
        (HN, "comments", "asc", None, ["three", "one", "two"]),
        (REDDIT, "points", "desc", None, ["y", "x"]),  # points finds a post's score
        (REDDIT, "upvotes", "desc", 1, ["y"]),
        (PRODUCTS, None, None, 3, ["B", "a", "C"]),  # only the count
        ([], "price", "asc", 5, []),
    ],
)
def test_order_items(items, by, order, limit, expected):
    got, report = order_items(list(items), by, order, limit)
    assert names(got) == expected
    assert report["kept"] == len(expected) and report["total"] == len(items)


def test_order_items_reports_what_it_did():
    _, report = order_items(list(REDDIT), "points", None, None)
    assert report == {"by": "score", "order": "desc", "missing": 0, "total": 2, "kept": 2}
    _, report = order_items(list(PRODUCTS), "price", "asc", None)
    assert report["missing"] == 1


def test_ordering_by_a_field_no_item_has_fails():
    with pytest.raises(ToolError, match="no item has a field for 'rating'"):
        order_items(list(HN), "rating", "desc", None)


@pytest.mark.parametrize(
    "items, fields, keys",
    [
        (PRODUCTS, ["name", "price"], ["name", "price"]),
        (PRODUCTS, ["price", "link"], ["price", "url"]),  # in the order asked; link is the url
        (HN, ["name", "points"], ["title", "points"]),  # a story's name is its title
        (REDDIT, ["title", "points"], ["title", "score"]),  # points is a post's score
        (REDDIT, ["title", "upvotes", "title"], ["title", "score"]),
    ],
)
def test_select_fields(items, fields, keys):
    got, found = select_fields(list(items), fields)
    assert found == keys
    assert all(list(i) == keys for i in got) and len(got) == len(items)


def test_selecting_a_field_no_item_has_fails():
    with pytest.raises(ToolError, match="no item has a field for 'price'"):
        select_fields(list(HN), ["title", "price"])


def test_concepts():
    assert concept_of("score") == "points" and concept_of("title") == "name" and concept_of("x") is None
    assert key_for(REDDIT, "punkty") is None  # words are the planner's; the tools take field names
    assert key_for([{"href": "u"}], "url") == "href"


async def test_through_the_executor(curllm_run_plan):
    plan = {
        "plan": [
            {"tool": "validation.order_items", "parameters": {"by": "points", "limit": 1, "key": "articles"}},
            {
                "tool": "validation.select_fields",
                "parameters": {"fields": ["name", "points"], "key": "articles"},
            },
        ],
        "expected_output": "articles",
    }
    result = await curllm_run_plan(plan, data={"articles": list(REDDIT)})
    assert result.ok, result.errors
    assert result.data["articles"] == [{"title": "y", "score": 2395}]
    assert result.steps[0].result["ordering"]["by"] == "score"
    assert result.steps[1].result["selection"] == {"fields": ["title", "score"], "items": 1}


async def test_the_fields_of_one_record(curllm_run_plan):
    """A product page's one ``product`` (a record, not a list): only the fields asked for, by concept;
    a field it lacks fails the step as it does for a list."""
    product = {"name": "Kettle", "price": 39.0, "currency": "PLN", "sku": "K-1"}
    plan = {
        "plan": [
            {
                "tool": "validation.select_fields",
                "parameters": {"fields": ["title", "price"], "key": "product"},
            }
        ],
        "expected_output": "product",
    }
    result = await curllm_run_plan(plan, data={"product": dict(product)})
    assert result.ok, result.errors
    assert result.data["product"] == {"name": "Kettle", "price": 39.0}
    plan["plan"][0]["parameters"]["fields"] = ["rating"]
    result = await curllm_run_plan(plan, data={"product": dict(product)})
    assert not result.ok and "no item has a field for 'rating'" in result.steps[0].error


async def test_a_failed_order_is_a_failed_step(curllm_run_plan, curllm_run_tool):
    plan = {
        "plan": [{"tool": "validation.order_items", "parameters": {"by": "rating"}}],
        "expected_output": "products",
    }
    result = await curllm_run_plan(plan, data={"products": [{"name": "x", "price": 1}]})
    assert not result.ok and "no item has a field for 'rating'" in result.steps[0].error
    with pytest.raises(ToolError, match="no item has a field for 'rating'"):
        await curllm_run_tool(
            "validation.order_items", params={"by": "rating"}, data={"products": [{"name": "x"}]}
        )


def test_dates_are_compared_as_instants():
    items = [
        {"title": "a", "date": "2013-08-26T10:57:08-07:00"},  # 17:57 UTC
        {"title": "b", "date": "2013-08-26T16:00:00+00:00"},
        {"title": "c", "date": "2013-08-26T18:30:00Z"},
        {"title": "d", "date": "2013-08-25"},
        {"title": "e", "date": "2 hours ago"},  # as shown: not comparable, after the dates
    ]
    got, _ = order_items(items, "date", "desc", None)
    assert [i["title"] for i in got] == ["c", "a", "b", "d", "e"]
