"""End to end through the real CLI: "for each product ..." in English, Polish and German on the local
shop; the rule planner plans the listing and a map step, each product's own page is read, and every
product in range comes back with exactly the fields asked for, as the shop's catalogue says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.warm_cache import fresh_cache

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def catalog():
    from site_server import load_shop

    return {p["id"]: p for p in load_shop().catalog()["products"]}


def _curllm(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update(CURLLM_CACHE_DIR=str(fresh_cache(tmp_path / "cache")), LITELLM_LOCAL_MODEL_COST_MAP="True")
    return subprocess.run(
        [sys.executable, "-m", "curllm_core", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


#: The German case's words: its answer (availability and SKU under 80 zł) is also the one
#: test_the_maps_answers_are_the_tools compares with the tool's, so the command runs once for both.
DE = "für jedes Produkt unter 80 zł die Verfügbarkeit und die Artikelnummer"


@pytest.fixture(scope="module")
def for_each(site_url, tmp_path_factory):
    """``curllm INSTRUCTION --url SHOP --format json --events FILE``, run once per instruction in
    this module: the process and the file of events it wrote."""
    done: dict[str, tuple[subprocess.CompletedProcess, Path]] = {}

    def run(instruction: str) -> tuple[subprocess.CompletedProcess, Path]:
        if instruction not in done:
            tmp = tmp_path_factory.mktemp("for-each")
            events = tmp / "events.jsonl"
            out = _curllm(
                instruction,
                "--url",
                f"{site_url}/",
                "--format",
                "json",
                "--events",
                str(events),
                tmp_path=tmp,
            )
            done[instruction] = (out, events)
        return done[instruction]

    return run


def _truth(p: dict, field: str):
    return {
        "availability": "InStock" if p["in_stock"] else "OutOfStock",
        "brand": p["brand"],
        "sku": p["sku"],
        "description": p["description"],
    }.get(field, p.get(field))


@pytest.mark.parametrize(
    ("instruction", "limit", "fields"),
    [
        ("for each product under 150 zł get its availability and brand", 150, ["availability", "brand"]),
        ("dla każdego produktu do 50 zł pobierz opis", 50, ["description"]),
        (DE, 80, ["availability", "sku"]),
    ],
    ids=["en", "pl", "de"],
)
def test_for_each_product_through_the_cli(instruction, limit, fields, for_each, catalog, browser_path):
    done, events = for_each(instruction)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["ok"] and not result.get("warnings"), result.get("warnings")
    steps = result["plan"]["plan"]
    assert [s["map"]["steps"][0]["tool"] for s in steps if "map" in s] == ["extraction.product_detail"]
    products = result["data"]["products"]
    want = sorted(p["id"] for p in catalog.values() if p["price"] <= limit)
    assert sorted(p["url"].rsplit("/", 1)[-1] for p in products) == want
    for product in products:
        truth = catalog[product["url"].rsplit("/", 1)[-1]]
        assert list(product) == ["name", "price", "currency", "url", *fields]
        assert product["name"] == truth["name"] and product["price"] == truth["price"]
        assert {f: product[f] for f in fields} == {f: _truth(truth, f) for f in fields}
    # Every product page was visited and reported.
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    items = [e for e in lines if e["type"] == "step" and "map_item" in e["data"]["extracted_data"]]
    assert len(items) == len(want) and all(e["data"]["status"] == "completed" for e in items)


async def test_the_maps_answers_are_the_tools(for_each, page, browser_path):
    """Each product's answer in "for each product ... get its availability and SKU" (the German
    case's command above, run once for both) is what extraction.product_detail says on that
    product's page in a browser: the map reads the page with the same tool, so what improves the
    tool improves the map."""
    import asyncio

    from curllm_core.tool import ToolContext
    from curllm_core.tools.extraction import product_detail

    done, _ = await asyncio.to_thread(for_each, DE)
    assert done.returncode == 0, done.stderr
    products = json.loads(done.stdout)["data"]["products"]
    assert {p["availability"] for p in products} == {"InStock", "OutOfStock"}  # both kinds of page
    for product in products:
        await page.goto(product["url"], wait_until="load")
        own = (await product_detail.run(ToolContext(page=page)))["product"]
        assert (product["availability"], product["sku"]) == (own["availability"], own["sku"]), product["url"]
