"""The main job end to end: the real `curllm` command, the rule planner and a real browser against
the example shop on 127.0.0.1 return exactly the products asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.in_process import Exited, cli_main
from tests.warm_cache import fresh_cache

pytestmark = pytest.mark.browser
CATALOG = json.loads(
    (Path(__file__).resolve().parent.parent / "examples" / "shop" / "catalog.json").read_text()
)


def catalog_names(lo: float = 0, hi: float = float("inf")) -> list[str]:
    return sorted(p["name"] for p in CATALOG["products"] if lo <= p["price"] <= hi)


def curllm(*args: str, tmp: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update({"CURLLM_LOAD_PLUGINS": "", "CURLLM_CACHE_DIR": str(fresh_cache(tmp / "cache"))})
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out


def here(*args: str, tmp: Path) -> Exited:
    """``curllm ARGS`` by its console entry point in this process (`cli_main`: the same parsing, run,
    output and exit code): the further cases of a contract a real process shows."""
    out = cli_main(args, env={"CURLLM_CACHE_DIR": str(fresh_cache(tmp / "cache"))})
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
    """The first wording in a real `curllm` process, the others by its entry point in this process."""
    run = curllm if instruction.startswith("find") else here
    out = run(instruction, "--url", site_url + "/", "--format", "json", tmp=tmp_path)
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
    out = here("find products under 50 zł", "--url", site_url + "/", "--format", "jsonl", tmp=tmp_path)
    assert sorted(json.loads(line)["name"] for line in out.stdout.splitlines()) == catalog_names(hi=50)


def test_a_count_with_a_price_bound_counts_over_the_pages(browser_path, site_url, tmp_path):
    out = curllm(
        "the first 10 products under 150zł", "--url", site_url + "/", "--format", "json", tmp=tmp_path
    )
    assert out.returncode == 0, out.stderr
    products = json.loads(out.stdout)["data"]["products"]
    assert len(products) == 10 and all(p["price"] <= 150 for p in products)
    assert set(p["name"] for p in products) <= set(catalog_names(hi=150))


@pytest.mark.parametrize(
    ("lang", "instruction", "names"),
    [
        ("en", "the most expensive product", ["Smart kettle Wi-Fi"]),  # a sort control
        pytest.param(  # a price filter
            "pl",
            "produkty poniżej 150 zł",
            ["Czajnik stalowy 1,7 l", "Czajnik szklany Zorza", "Czajnik turystyczny Mini"],
            marks=pytest.mark.slow,
        ),
        pytest.param(  # both
            "de",
            "die 2 günstigsten Produkte unter 40 €",
            ["Reisewasserkocher Mini", "Wasserkocher Edelstahl 1,7 l"],
            marks=pytest.mark.slow,
        ),
    ],
)
def test_an_optional_form_that_leads_to_a_page_without_the_listing_is_undone(
    browser_path, site_url, tmp_path, lang, instruction, names
):
    """The page's sort control or price filter submits to an address that answers 200 with another
    page (a served copy's): the answer comes from the page as it was, and the form step fails saying
    where it led. In the browser: under auto (the default) the optional form is skipped on the HTML."""
    out = curllm(
        instruction,
        "--url",
        f"{site_url}/test/leads-elsewhere-{lang}.html",
        "--format",
        "json",
        "--engine",
        "browser",
        tmp=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert [p["name"] for p in result["data"]["products"]] == names
    undone = [e for e in result["errors"] if e["code"] == "SUBMIT_FAILED" and "HTTP 200" in e["message"]]
    assert undone and all(e["optional"] for e in undone)
    assert "/test/elsewhere.html" in undone[0]["message"] and "went back to" in undone[0]["message"]
    assert not next(s for s in result["steps"] if s["tool"] == undone[0]["tool"])["success"]
    assert "/test/elsewhere.html" in out.stderr  # the warning is on stderr too


def test_a_search_that_leads_to_a_page_without_the_listing_names_where_it_led(
    browser_path, site_url, tmp_path
):
    """A search is not optional (the page as it was is not what was asked): EMPTY_OUTPUT names the
    address the form led to, not only "nothing matched"."""
    out = curllm("search for glass kettle", "--url", f"{site_url}/test/leads-elsewhere-en.html", tmp=tmp_path)
    assert out.returncode == 1
    assert "EMPTY_OUTPUT" in out.stderr and "/test/elsewhere.html?q=glass+kettle (HTTP 200)" in out.stderr
    assert "forms.search_query" in out.stderr
