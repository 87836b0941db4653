"""The rule planner's "for each product ..." (planner/each.py): a map step with the tool for one item,
merged, then the fields asked for; the table of docs/rule-planner.md, and what is not such a request."""

from __future__ import annotations

import re

import pytest

from curllm_core.planner.each import each_request
from curllm_core.planner.rules import plan_with_rules
from tests.test_docs import read, table_rows

URL = "http://127.0.0.1:9/"


@pytest.fixture(scope="module")
def registry():
    from curllm_core.plugins import load_registry

    return load_registry({"CURLLM_LOAD_PLUGINS": ""}, use_cache=False)


def _map_and_fields(instruction: str, registry) -> tuple[dict | None, list[str] | None, list[str]]:
    plan = plan_with_rules(instruction, URL, registry).plan
    tools = [s.tool for s in plan.steps]
    maps = [s for s in plan.steps if s.map is not None]
    assert len(maps) <= 1
    selects = [s for s in plan.steps if s.tool == "validation.select_fields"]
    if maps:
        at = plan.steps.index(maps[0])
        # The map runs after the listing's extraction, checks, order and count, before the selection.
        assert all(s.tool != "validation.select_fields" for s in plan.steps[:at])
        assert any(t.startswith(("extraction.", "navigation.")) for t in tools[:at])
    return (maps[0].map if maps else None), (selects[0].parameters["fields"] if selects else None), tools


def _doc_cases() -> list[tuple[str, list[str]]]:
    text = read("rule-planner.md").split("## Each item on its own page", 1)[1].split("\n## ", 1)[0]
    cases = []
    for row in table_rows(text):
        fields = re.findall(r"`(\w+)`", row[0])
        for cell in row[1:]:
            cases += [(s, fields) for s in re.findall(r'"([^"]+)"', cell)]
    assert len(cases) >= 18
    return cases


@pytest.mark.parametrize(("instruction", "fields"), _doc_cases())
def test_the_documented_phrases_plan_a_map(instruction, fields, registry):
    spec, selected, _ = _map_and_fields(instruction, registry)
    assert spec is not None, instruction
    assert spec["over"] == "products" and spec["open"] == "{item.url}" and spec["merge"] is True
    assert [s["tool"] for s in spec["steps"]] == ["extraction.product_detail"]
    if fields:
        assert selected == ["name", "price", "currency", "url", *fields], instruction
    else:
        assert selected is None


@pytest.mark.parametrize(
    ("instruction", "extra"),
    [
        ("for each product under 150 zł get its availability and brand", "validation.price_range_check"),
        ("dla każdego produktu poniżej 150 zł pobierz dostępność", "validation.price_range_check"),
        ("die 3 günstigsten Produkte, für jedes Produkt die Marke", "validation.order_items"),
        ("the 5 cheapest products with their brand", "validation.order_items"),
    ],
)
def test_checks_order_and_count_come_before_the_map(instruction, extra, registry):
    spec, _, tools = _map_and_fields(instruction, registry)
    assert spec is not None
    assert tools.index(extra) < tools.index("map") < tools.index("validation.select_fields")


def test_a_selection_asked_for_keeps_its_fields_and_gains_the_asked_ones(registry):
    _, selected, tools = _map_and_fields(
        "the 5 cheapest products, only names and prices, for each product the brand", registry
    )
    assert selected == ["name", "price", "brand"]
    assert tools[-2:] == ["map", "validation.select_fields"]


@pytest.mark.parametrize(
    "instruction",
    [
        "find products under 150zł",
        "every product must cost at most 50 EUR",
        "jedes Produkt muss unter 50 € kosten",
        "każdy produkt poniżej 100 zł",
        "the cheapest product for each category",
        "products with rating above 4",
        "produkty z oceną powyżej 4",
        "Produkte mit Bewertung über 4",
        "the 5 cheapest products",
        "only names and prices",
    ],
)
def test_not_a_request_to_open_each_item(instruction, registry):
    assert each_request(instruction) is None
    spec, _, _ = _map_and_fields(instruction, registry)
    assert spec is None


def test_without_a_tool_for_one_item_the_plan_warns(registry):
    plan = plan_with_rules("top 10 stories, for each story its comments", URL, registry).plan
    assert all(s.map is None for s in plan.steps)
    assert any("not done: opening each of the articles" in w for w in plan.warnings)


def test_the_tool_for_one_item_is_found_by_what_it_produces(registry):
    from curllm_core.planner.each import detail_tool

    assert detail_tool("products", registry).key == "extraction.product_detail"
    assert detail_tool("articles", registry) is None
    assert detail_tool("product", registry) is None
