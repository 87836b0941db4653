"""Plans written the design's way: a products_* extraction with ``max_price``/``min_price`` runs
through the real `curllm` command on the example shop (127.0.0.1) and returns exactly the products
in range, on one page and over every page of the listing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.warm_cache import fresh_cache

pytestmark = pytest.mark.browser
CATALOG = json.loads((Path(__file__).resolve().parents[2] / "examples" / "shop" / "catalog.json").read_text())
PER_PAGE = 8  # the shop's listing shows 8 products a page, in catalog order


def curllm_plan(plan: dict, url: str, tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update({"CURLLM_LOAD_PLUGINS": "", "CURLLM_CACHE_DIR": str(fresh_cache(tmp / "cache"))})
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", "--plan", "-", "--url", url, "--format", "json"],
        input=json.dumps(plan),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def in_range(products: list[dict], lo: float, hi: float) -> list[tuple[str, float]]:
    return sorted((p["name"], p["price"]) for p in products if lo <= p["price"] <= hi)


@pytest.mark.parametrize(
    "tool, bounds",
    [
        ("extraction.products_ceneo", {"max_price": 150}),  # the design's own plan
        ("extraction.products_generic", {"max_price": 150}),
        ("extraction.products_amazon", {"min_price": 100, "max_price": 500}),
        ("extraction.products_generic", {"min_price": 1000}),
    ],
)
def test_a_plan_with_price_bounds_on_one_page(browser_path, site_url, tmp_path, tool, bounds):
    plan = {"plan": [{"tool": tool, "parameters": bounds}], "expected_output": "products"}
    result = curllm_plan(plan, site_url + "/", tmp_path)
    lo, hi = bounds.get("min_price", 0), bounds.get("max_price", float("inf"))
    first_page = CATALOG["products"][:PER_PAGE]
    products = result["data"]["products"]
    assert sorted((p["name"], p["price"]) for p in products) == in_range(first_page, lo, hi)
    assert all(p["currency"] == "PLN" and p["url"].startswith(site_url) for p in products)


def test_the_designs_plan_over_every_page(browser_path, site_url, tmp_path):
    plan = {
        "plan": [
            {
                "tool": "navigation.pagination",
                "parameters": {
                    "extract": "extraction.products_ceneo",
                    "extract_parameters": {"max_price": 150},
                },
            }
        ],
        "expected_output": "products",
    }
    result = curllm_plan(plan, site_url + "/", tmp_path)
    products = result["data"]["products"]
    assert sorted((p["name"], p["price"]) for p in products) == in_range(CATALOG["products"], 0, 150)
