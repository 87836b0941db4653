"""The plugin as curllm sees it: valid manifests, registered tools, a plan that uses both tools."""

from __future__ import annotations

from conftest import LISTING, LISTING_URL

from curllm_allegro.plugin import MANIFESTS
from curllm_allegro.smart import allegro_smart_only


def test_manifests_are_valid(curllm_check_manifest):
    assert curllm_check_manifest(MANIFESTS / "extraction" / "products_allegro.json") == []
    assert curllm_check_manifest(allegro_smart_only) == []


def test_the_hook_registers_both_tools(curllm_registry):
    plugin = next(p for p in curllm_registry.plugins if p.name == "allegro")
    assert sorted(plugin.tools) == ["extraction.products_allegro", "validation.allegro_smart_only"]
    assert plugin.error is None
    products = curllm_registry.resolve("extraction.products_allegro")
    assert (products.source, products.sites, products.produces) == ("allegro", ("allegro.pl",), ("products",))
    smart = curllm_registry.resolve("validation.allegro_smart_only")
    assert smart.parameters["properties"]["mode"]["enum"] == ["filter", "fail"]
    assert smart.description.startswith("Keep only Allegro Smart! offers")
    assert not [p for p in curllm_registry.problems if "allegro" in p.source]


async def test_smart_offers_under_100_zl(curllm_run_plan):
    plan = {
        "plan": [
            {"tool": "extraction.products_allegro"},
            {"tool": "validation.price_range_check", "parameters": {"max": 100}},
            {"tool": "validation.allegro_smart_only"},
        ],
        "expected_output": "products",
    }
    result = await curllm_run_plan(plan, path=LISTING, url=LISTING_URL)
    assert result.ok, result.errors
    assert [(p["name"], p["price"]) for p in result.data["products"]] == [
        ("Słuchawki douszne Xiaomi Redmi Buds 4 Lite białe", 89.99)
    ]
    assert [s.tool for s in result.steps] == [
        "extraction.products_allegro",
        "validation.price_range_check",
        "validation.allegro_smart_only",
    ]
