"""The main job end to end: the real `curllm` command, the rule planner and a real browser against
the example shop on 127.0.0.1 return exactly the products asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
CATALOG = json.loads(
    (Path(__file__).resolve().parent.parent / "examples" / "shop" / "catalog.json").read_text()
)


def catalog_names(lo: float = 0, hi: float = float("inf")) -> list[str]:
    return sorted(p["name"] for p in CATALOG["products"] if lo <= p["price"] <= hi)


def curllm(*args: str, tmp: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update({"CURLLM_LOAD_PLUGINS": "", "CURLLM_CACHE_DIR": str(tmp / "cache")})
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out


@pytest.mark.parametrize(
    "instruction, lo, hi",
    [
        ("find products under 150zł", 0, 150),
        ("znajdź produkty poniżej 150 zł", 0, 150),
        ("Produkte zwischen 100 und 200 €", 100, 200),
        ("produkty od 1000 do 2500 zł", 1000, 2500),
    ],
)
def test_exactly_the_products_in_the_price_range(browser_path, site_url, tmp_path, instruction, lo, hi):
    out = curllm(instruction, "--url", site_url + "/", "--format", "json", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    products = result["data"]["products"]
    assert sorted(p["name"] for p in products) == catalog_names(lo, hi)
    assert all(
        lo <= p["price"] <= hi and p["currency"] == "PLN" and p["url"].startswith(site_url) for p in products
    )
    assert result["plan"]["planner"] == "rules"


def test_url_first_table_output_and_a_repeat_from_the_plan_cache(browser_path, site_url, tmp_path):
    first = curllm(site_url + "/", "find products under 150zł", "--format", "table", tmp=tmp_path)
    assert first.returncode == 0, first.stderr
    assert f"{len(catalog_names(hi=150))} products" in first.stdout
    assert "Kubek ceramiczny Poranek 350 ml" in first.stdout
    again = curllm("find products under 150zł", "--url", site_url + "/", "--format", "json", tmp=tmp_path)
    result = json.loads(again.stdout)
    assert result["plan"]["planner"] == "cache"
    assert len(result["data"]["products"]) == len(catalog_names(hi=150))


def test_csv_and_jsonl_output(browser_path, site_url, tmp_path):
    out = curllm("find products under 50 zł", "--url", site_url + "/", "--format", "csv", tmp=tmp_path)
    lines = out.stdout.splitlines()
    assert lines[0].startswith("name,price,currency,url") and len(lines) == 1 + len(catalog_names(hi=50))
    out = curllm("find products under 50 zł", "--url", site_url + "/", "--format", "jsonl", tmp=tmp_path)
    assert sorted(json.loads(line)["name"] for line in out.stdout.splitlines()) == catalog_names(hi=50)


def test_a_count_with_a_price_bound_counts_over_the_pages(browser_path, site_url, tmp_path):
    out = curllm(
        "the first 10 products under 150zł", "--url", site_url + "/", "--format", "json", tmp=tmp_path
    )
    assert out.returncode == 0, out.stderr
    products = json.loads(out.stdout)["data"]["products"]
    assert len(products) == 10 and all(p["price"] <= 150 for p in products)
    assert set(p["name"] for p in products) <= set(catalog_names(hi=150))
