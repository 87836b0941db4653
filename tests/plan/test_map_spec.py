"""Checking map steps: the spec, the list it goes over, its sub-plan's tools, parameters and data
chain, placeholders; the published schema and docs/plan.md agree."""

from __future__ import annotations

import json

import pytest

from curllm_core.errors import PlanError
from curllm_core.plan import check_plan, normalise_plan
from curllm_core.plan.map_spec import fill, merged

LISTING = {"tool": "extraction.products_generic"}


@pytest.fixture(scope="module")
def registry():
    from curllm_core.plugins import load_registry

    return load_registry({"CURLLM_LOAD_PLUGINS": ""}, use_cache=False)


def problems(doc, registry, **kwargs) -> list[str]:
    try:
        check_plan(doc, registry, **kwargs)
    except PlanError as e:
        return [f"{p.pointer}: {p.message}" for p in e.problems]
    return []


def the_map(**spec) -> dict:
    return {"map": {"over": "products", "open": "{item.url}", "steps": [{"tool": "product_detail"}], **spec}}


def test_the_issues_plan_checks_with_defaults_filled_in(registry):
    doc = {
        "plan": [
            LISTING,
            {
                "map": {
                    "over": "products",
                    "as": "item",
                    "open": "{item.url}",
                    "concurrency": 4,
                    "steps": [{"tool": "extraction.product_detail", "parameters": {}}],
                    "merge": True,
                }
            },
        ],
        "expected_output": "products",
    }
    assert check_plan(doc, registry).steps[1].map == doc["plan"][1]["map"]  # the check rewrites nothing
    plan = check_plan(normalise_plan(doc, registry), registry)
    step = plan.steps[1]
    assert step.tool == "map" and plan.needs_page
    assert step.map["max_items"] == 100 and step.map["item_timeout_ms"] == 60000 and step.map["retries"] == 1
    again = check_plan(json.loads(json.dumps(plan.to_dict())), registry)  # the checked plan checks again
    assert again.steps[1].map == step.map


def test_a_bare_tool_name_gets_its_full_key_and_collect_is_produced(registry):
    doc = normalise_plan({"plan": [LISTING, the_map()], "expected_output": "results"}, registry)
    assert check_plan(doc, registry).steps[1].map["steps"][0]["tool"] == "extraction.product_detail"
    assert problems({"plan": [LISTING, the_map()], "expected_output": "details"}, registry)


@pytest.mark.parametrize(
    ("step", "want"),
    [
        (
            the_map(over="offers"),
            "/plan/1/map/over: the map goes over 'offers' but no earlier step produces it",
        ),
        (
            the_map(steps=[{"tool": "extraction.product_detial"}]),
            "/plan/1/map/steps/0/tool: unknown tool 'extraction.product_detial'",
        ),
        (
            the_map(steps=[{"tool": "validation.select_fields", "parameters": {"fields": "name"}}]),
            "/plan/1/map/steps/0/parameters/fields: validation.select_fields: parameter 'name' is not of type 'array'",
        ),
        (
            {"map": {"over": "products", "steps": [{"tool": "extraction.product_detail"}]}},
            "/plan/1/map/steps/0/tool: extraction.product_detail needs a page, and the map opens none",
        ),
        (the_map(open="{product.url}"), "/plan/1/map/open: placeholder {product...} names 'product'"),
        (the_map(collect="products"), "/plan/1/map/collect: collect 'products' would replace the list"),
        (
            the_map(steps=[{"tool": "validation.price_range_check", "parameters": {"key": "offers"}}]),
            "/plan/1/map/steps/0/tool: validation.price_range_check consumes 'offers' but neither",
        ),
        (
            {"map": the_map()["map"], "tool": "extraction.product_detail"},
            "/plan/1/tool: 'tool' is not a field of a map step",
        ),
        ({"map": {"over": "products"}}, "/plan/1/map: 'steps' is a required property"),
    ],
)
def test_problems_point_into_the_map(step, want, registry):
    found = problems({"plan": [LISTING, step], "expected_output": "products"}, registry)
    assert any(p.startswith(want) for p in found), found


def test_tools_named_by_a_placeholder_are_resolved_when_each_item_runs(registry):
    doc = {
        "plan": [LISTING, the_map(steps=[{"tool": "{item.tool}", "parameters": {"x": "{item.x}"}}])],
        "expected_output": "results",
    }
    plan = check_plan(doc, registry)
    assert plan.steps[1].map["steps"][0] == {"tool": "{item.tool}", "parameters": {"x": "{item.x}"}}


def test_parameters_with_placeholders_are_checked_once_filled_in(registry):
    step = the_map(steps=[{"tool": "validation.required_fields", "parameters": {"fields": "{item.needed}"}}])
    assert problems({"plan": [LISTING, step], "expected_output": "results"}, registry) == []


def test_the_sub_plan_chain_sees_the_item_and_earlier_sub_steps(registry):
    steps = [
        {"tool": "extraction.product_detail"},
        {"tool": "validation.required_fields", "parameters": {"fields": ["name"], "key": "item"}},
    ]
    assert problems({"plan": [LISTING, the_map(steps=steps)], "expected_output": "results"}, registry) == []


def test_the_list_may_be_given_up_front(registry):
    assert (
        problems({"plan": [the_map()], "expected_output": "results"}, registry, initial_keys={"products"})
        == []
    )


def test_placeholders_fill_values_and_text():
    item = {"url": "/p/1", "price": 9.5, "offer": {"id": 7}, "imgs": ["a.png"]}
    assert fill("{item.price}", "item", item, 3) == 9.5
    assert fill("https://x/{item.offer.id}?i={index}", "item", item, 3) == "https://x/7?i=3"
    assert fill({"a": ["{item.imgs.0}"], "b": "{other.x}"}, "item", item, 0) == {
        "a": ["a.png"],
        "b": "{other.x}",
    }
    with pytest.raises(Exception, match="has no field 'name'"):
        fill("{item.name}", "item", item, 0)


def test_merge_adds_fields_and_keeps_the_items_own_values():
    item = {"name": "Kubek", "price": 39.0, "url": "/p3", "rating": None}
    got = merged(
        item,
        "item",
        {"product": {"name": "Kubek 350", "price": 41.0, "brand": "B", "rating": 4.8, "sku": None}},
    )
    assert got == {"name": "Kubek", "price": 39.0, "url": "/p3", "rating": 4.8, "brand": "B", "sku": None}
    assert merged("x", "item", {"n": 1}) == {"item": "x", "n": 1}


def test_the_map_fields_in_the_docs_match_the_schema():
    from curllm_core.plan import plan_schema
    from tests.test_docs import _check_fields, read

    md = read("plan.md")
    _check_fields(md, "Map fields", plan_schema()["$defs"]["map"], "plan.md")
    _check_fields(md, "Sub-step fields", plan_schema()["$defs"]["map_step"], "plan.md")


async def test_a_map_without_pages_runs_data_only_tools_without_a_browser(registry, monkeypatch):
    from curllm_core import browser as browser_module
    from curllm_core.executor import RunOptions, execute
    from curllm_core.registry import Registry
    from curllm_core.tool import tool

    @tool(category="validation", produces=["label"], dependencies=[])
    async def label(ctx, prefix: str = "") -> dict:
        """A label made of the item's name."""
        return {"label": {"label": prefix + ctx.data["item"]["name"]}}

    @tool(category="validation", produces=["label"], dependencies=[])
    async def refuses(ctx) -> dict:
        """Always fails."""
        raise ValueError("no")

    def no_browser(*a, **k):
        raise AssertionError("a data-only map started a browser")

    monkeypatch.setattr(browser_module.Browser, "start", no_browser)
    r = Registry()
    for t in (label, refuses):
        r.register(t, source="test")
    doc = {
        "plan": [
            {
                "map": {
                    "over": "products",
                    "concurrency": 2,
                    "steps": [
                        {"tool": "refuses", "optional": True, "retries": 0},
                        {"tool": "label", "parameters": {"prefix": "#{index} "}},
                    ],
                    "merge": True,
                }
            }
        ],
        "expected_output": "products",
    }
    items = [{"name": "a"}, {"name": "b", "label": "kept"}, {"name": "c"}]
    plan = check_plan(normalise_plan(doc, r), r, initial_keys={"products"})
    assert not plan.needs_page
    result = await execute(plan, r, RunOptions(data={"products": items}, backoff_s=0.001))
    assert result.ok, result.errors
    assert [p["label"] for p in result.data["products"]] == ["#0 a", "kept", "#2 c"]
    assert sorted(result.warnings) == [
        f"step 1 (map over products): item {i}: optional validation.refuses failed: ValueError: no"
        for i in range(3)
    ]
