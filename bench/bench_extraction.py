"""Extraction speed: each extraction tool's ``run(ctx)`` on a real page in a real Chromium.

    .venv/bin/python bench/bench_extraction.py [--runs N]

The headline is products_generic on the Amazon.de search page (2.1 MB of HTML, 60 results): one
browser round trip for the HTML (with CSS-hidden elements marked), then parsing and the listing
detection in Python. Target: median ≤ 150 ms, and the same for articles_generic on that page. The
two halves are timed apart too, and each site extractor on its own page. Pages load from ../shared/realpages with every request but the file
itself aborted (no images, no network). Medians go to bench/results/extraction.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, write_section  # noqa: E402

sys.path.insert(0, str(ROOT))
from curllm_core.browser_path import find_browser  # noqa: E402
from curllm_core.manifest import load_manifest  # noqa: E402
from curllm_core.tool import ToolContext  # noqa: E402
from curllm_core.tools.extraction import (  # noqa: E402
    articles_generic,
    articles_hn,
    articles_reddit,
    links_by_pattern,
    products_amazon,
    products_ceneo,
    products_generic,
    tables_to_json,
)
from curllm_core.tools.extraction._html import LEAN_ATTRIBUTES, PAGE_HTML_JS, page_html  # noqa: E402
from curllm_core.tools.extraction._products import STATED_CURRENCIES_JS  # noqa: E402

REALPAGES = ROOT.parent / "shared" / "realpages"
MANIFESTS = ROOT / "tools_manifests" / "extraction"
TARGET_MS = 150.0
HEADLINE_PAGE = "amazon_de_search_katzenfutter.html"
#: Cases with a target of their own: articles_generic on the headline page, as products_generic (issue 24).
CASE_TARGETS_MS = {"articles_generic (Amazon results)": TARGET_MS}

#: (label, tool module, manifest name, page, parameters, what the output must hold)
SITE_CASES = [
    ("products_ceneo", products_ceneo, "products_ceneo", "ceneo_search_canon.html", {}, ("products", 30)),
    ("products_amazon", products_amazon, "products_amazon", HEADLINE_PAGE, {}, ("products", 60)),
    (
        "products_amazon (best sellers)",
        products_amazon,
        "products_amazon",
        "amazon_de_bestsellers_electronics.html",
        {},
        ("products", 30),
    ),
    ("articles_hn", articles_hn, "articles_hn", "hn_front_2026.html", {}, ("articles", 30)),
    (
        "articles_reddit",
        articles_reddit,
        "articles_reddit",
        "reddit_old_dataisbeautiful_top.html",
        {},
        ("articles", 25),
    ),
    (
        "articles_generic (HN)",
        articles_generic,
        "articles_generic",
        "hn_front_2026.html",
        {},
        ("articles", 30),
    ),
    (
        "articles_generic (HN comments)",
        articles_generic,
        "articles_generic",
        "hn_item_36817231.html",
        {},
        ("articles", 100),
    ),
    (
        "articles_generic (Bing)",
        articles_generic,
        "articles_generic",
        "bing_serp_microsoft_wikipedia.html",
        {},
        ("articles", 10),
    ),
    (
        "articles_generic (Amazon results)",
        articles_generic,
        "articles_generic",
        HEADLINE_PAGE,
        {},
        ("articles", 48),
    ),
    ("tables_to_json", tables_to_json, "tables_to_json", "wikipedia_microsoft.html", {}, ("tables", 3)),
    (
        "tables_to_json (FDIC)",
        tables_to_json,
        "tables_to_json",
        "fdic_failed_bank_list_table_2014.html",
        {},
        ("tables", 1),
    ),
    (
        "links_by_pattern",
        links_by_pattern,
        "links_by_pattern",
        "ebay_de_search_apple.html",
        {"pattern": "/itm/"},
        ("links", None),
    ),
    (
        "products_generic (eBay)",
        products_generic,
        "products_generic",
        "ebay_de_search_apple.html",
        {},
        ("products", 60),
    ),
]


async def median_ms(fn: Callable[[], Awaitable[object]], runs: int, warmup: int = 2) -> tuple[float, float]:
    """Median and minimum wall time of ``fn`` in milliseconds, after ``warmup`` untimed calls."""
    for _ in range(warmup):
        await fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


def cpu_ms(fn: Callable[[], object], runs: int, warmup: int = 2) -> tuple[float, float]:
    """Median and minimum CPU time of ``fn`` in milliseconds (this process's, so waiting on a busy
    machine's other work does not count), after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times), min(times)


def rules_cost_ms(html: str, url: str, runs: int) -> tuple[float, float]:
    """Median and minimum time, per extraction, spent in the rules issue 12 added to products_generic:
    each price's role and the words around it (`_block_prices`, `_choose_prices`), the product title
    (`_product_names.best_name`), the page's currency (`_page_default`), blocks without a price
    (`_unpriced_strangers`). Timed by wrapping those functions; the rest of the detector ran before."""
    from curllm_core.tools.extraction import _product_names

    spent = [0.0]
    patched: list[tuple[object, str, object]] = []

    def timed(owner: object, name: str) -> None:
        fn = getattr(owner, name)

        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - start

        patched.append((owner, name, fn))
        setattr(owner, name, wrapper)

    for name in ("_block_prices", "_choose_prices", "_page_default", "_unpriced_strangers"):
        timed(products_generic, name)
    timed(_product_names, "best_name")
    try:
        times = []
        for _ in range(runs):
            spent[0] = 0.0
            products_generic.extract(html, url, stated_currencies=[])
            times.append(spent[0] * 1000)
    finally:
        for owner, name, fn in patched:
            setattr(owner, name, fn)
    return statistics.median(times), min(times)


#: The parts of articles_generic.extract timed apart (`articles_parts_ms`): (label, owner, function name).
ARTICLES_PARTS = [
    ("parse (lexbor, junk removed, base URL)", "articles_generic", ("parse_html", "strip_junk", "page_base")),
    ("hidden index (elements hidden by their attributes)", "_html.HiddenIndex", ("pair",)),
    (
        "title links (every link's visible text, marks, line; headed and row titles)",
        "articles_generic",
        ("_find_title_links",),
    ),
    ("body texts (running text blocks)", "articles_generic", ("_find_bodies",)),
    (
        "list choice (candidate groups, the best group, the main heading)",
        "articles_generic",
        ("candidate_groups", "best_group", "MainHeading"),
    ),
]


def articles_parts_ms(html: str, url: str, runs: int) -> list[tuple[str, float]]:
    """CPU time of each part of articles_generic.extract on ``html`` (minimum over ``runs``, ms), the
    rest being the items' fields (title, points, comments, author, date, rank, snippet, ads) and
    the items' order: the parts' functions are wrapped, and each part's time is its own minimum."""
    import importlib

    spent: dict[str, float] = {}
    patched: list[tuple[object, str, object]] = []

    def timed(owner: object, name: str, label: str) -> None:
        fn = getattr(owner, name)

        def wrapper(*args, **kwargs):
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] += time.process_time() - start

        patched.append((owner, name, owner.__dict__[name]))
        setattr(
            owner,
            name,
            classmethod(lambda cls, *a, **k: wrapper(*a, **k))
            if isinstance(owner.__dict__[name], classmethod)
            else wrapper,
        )

    for label, where, names in ARTICLES_PARTS:
        module, _, cls = where.partition(".")
        owner = importlib.import_module(f"curllm_core.tools.extraction.{module}")
        if cls:
            owner = getattr(owner, cls)
        for name in names:
            timed(owner, name, label)
    best: dict[str, float] = {}
    try:
        for _ in range(runs):
            spent.clear()
            spent.update({label: 0.0 for label, _, _ in ARTICLES_PARTS})
            start = time.process_time()
            articles_generic.extract(html, url)
            total = time.process_time() - start
            rest = total - sum(spent.values())
            for label, value in [*spent.items(), ("the items' fields and order (the rest)", rest)]:
                best[label] = min(best.get(label, value), value)
    finally:
        for owner, name, fn in patched:
            setattr(owner, name, fn)
    return [(label, ms * 1000) for label, ms in best.items()]


async def open_offline(context, path: Path):
    page = await context.new_page()
    await page.goto(path.as_uri(), wait_until="load")
    return page


async def bench(runs: int) -> list[str]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=find_browser(), headless=True)
        context = await browser.new_context()

        async def only_the_file(route):
            if route.request.url.startswith("file:"):
                await route.continue_()
            else:  # images, style sheets, scripts from the web: not available offline, not waited for
                await route.abort()

        await context.route("**/*", only_the_file)

        # Headline: products_generic on the Amazon search page, whole and in halves.
        page = await open_offline(context, REALPAGES / HEADLINE_PAGE)
        ctx = ToolContext(page=page, manifest=load_manifest(MANIFESTS / "products_generic.json"))
        out = await products_generic.run(ctx)
        assert len(out["products"]) == 60, len(out["products"])
        html, url = await page_html(ctx, lean=True)
        total, total_min = await median_ms(lambda: products_generic.run(ctx), runs)
        trip, trip_min = await median_ms(lambda: page_html(ctx, lean=True), runs)
        # The serialization alone, timed inside the page (the rest of the round trip is moving the string).
        timed_js = (
            f"(a) => {{ const t0 = performance.now(); ({PAGE_HTML_JS})(a); return performance.now() - t0; }}"
        )
        in_page_runs = [await page.evaluate(timed_js, [True, LEAN_ATTRIBUTES]) for _ in range(runs)]
        in_page, in_page_min = statistics.median(in_page_runs), min(in_page_runs)

        async def pure() -> dict:
            return products_generic.extract(html, url)

        algo, algo_min = await median_ms(pure, runs)
        algo_cpu, algo_cpu_min = cpu_ms(lambda: products_generic.extract(html, url), runs)
        # articles_generic reads the same lean HTML (its run(ctx) asks for it the same way).
        articles_cpu, articles_cpu_min = cpu_ms(lambda: articles_generic.extract(html, url), runs)
        articles_parts = articles_parts_ms(html, url, runs)
        rules, rules_min = rules_cost_ms(html, url, runs)
        stated, stated_min = await median_ms(lambda: page.evaluate(STATED_CURRENCIES_JS), runs)
        await page.close()

        rows = [
            "| what | page | median | min | target |",
            "|---|---|---|---|---|",
            f"| **products_generic `run(ctx)`** | {HEADLINE_PAGE} (2.1 MB, 60 results) | **{total:.0f} ms** | "
            f"{total_min:.0f} ms | ≤ {TARGET_MS:.0f} ms {'✅' if total <= TARGET_MS else '❌'} |",
            f"| … browser round trip (lean HTML, {len(html) // 1000} KB: CSS-hidden parts, unread attributes left out) "
            f"| same | {trip:.0f} ms | {trip_min:.0f} ms | |",
            f"| … … of which serializing inside the page | same | {in_page:.0f} ms | {in_page_min:.0f} ms | |",
            f"| … parse + detect in Python | same | {algo:.0f} ms | {algo_min:.0f} ms | |",
            f"| … … the same, CPU time | same | {algo_cpu:.0f} ms | {algo_cpu_min:.0f} ms | |",
            f"| … … of which the rules of issue 12 (price roles and context, names, page currency) "
            f"| same | {rules:.1f} ms | {rules_min:.1f} ms | |",
            f"| … the page's stated currencies (run inside the HTML's call; here as a call of its own) | same "
            f"| {stated:.1f} ms | {stated_min:.1f} ms | |",
        ]
        for label, module, manifest_name, page_name, params, (key, count) in SITE_CASES:
            page = await open_offline(context, REALPAGES / page_name)
            ctx = ToolContext(page=page, manifest=load_manifest(MANIFESTS / f"{manifest_name}.json"))
            out = await module.run(ctx, **params)
            assert count is None or len(out[key]) == count, (label, len(out[key]))
            med, low = await median_ms(lambda m=module, c=ctx, kw=params: m.run(c, **kw), runs)
            target = CASE_TARGETS_MS.get(label)
            verdict = "" if target is None else f"≤ {target:.0f} ms {'✅' if med <= target else '❌'}"
            name = f"**{label} `run(ctx)`**" if target is not None else f"{label} `run(ctx)`"
            shown = f"**{med:.0f} ms**" if target is not None else f"{med:.0f} ms"
            rows.append(f"| {name} | {page_name} | {shown} | {low:.0f} ms | {verdict} |")
            if label == "articles_generic (Amazon results)":
                rows.append(
                    f"| … its parse + detect in Python on the lean HTML, CPU time | same "
                    f"| {articles_cpu:.0f} ms | {articles_cpu_min:.0f} ms | |"
                )
                rows += [
                    f"| … … {part}, CPU minimum | same | | {ms:.1f} ms | |" for part, ms in articles_parts
                ]
            await page.close()
        await browser.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=15, help="timed runs per case (median reported; at least 7)"
    )
    args = parser.parse_args()
    if not (REALPAGES / HEADLINE_PAGE).is_file():
        sys.exit(f"real page snapshots not found in {REALPAGES}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    rows = asyncio.run(bench(max(args.runs, 7)))
    rows += [
        "",
        f"Median of {max(args.runs, 7)} runs after 2 warm-up runs; Chromium headless, images and network blocked. "
        f"Load average when the run started: {load:.1f}. The machine is a shared 2-core VM: the same pure "
        "parse + detect takes anywhere from ~55 to ~100 ms run to run (CPU time, not waiting), so medians "
        "move by ±40 ms between runs; the min column shows what the code costs on an unloaded core.",
        "",
        "What the rules of issue 12 cost (a sale price over the regular one, shipping and per-unit prices, "
        "cents in markup, ranges, titles without sellers, badges or spec lines, sponsored rows, header rows, "
        "the currency from the page's context): the time spent in their functions is the row above; they "
        "replace the former choice of price and name, and the words around a price are read only when a "
        "block's labels leave more than one amount open. Before and after them, the same parse + detect on "
        "the same lean HTML, run interleaved in separate processes, took about the same CPU time (about "
        "40 ms, within 2 ms either way; medians of 15 runs, three rounds each, November 2026). The page's "
        "stated currencies are read inside the call that reads the HTML: about 0.5 ms inside the page.",
        "",
        "Speed work for issue 24's targets (November 2026, outputs unchanged on the realpages, the testbed "
        "and the product pages): parse + detect on this page's lean HTML, CPU minimum of 8 interleaved "
        "rounds of 9 runs at load 6-8, before -> after: articles_generic 173 -> 148 ms, products_generic "
        "74 -> 66 ms. No single part dominates what is left: in articles_generic the title links (a "
        "quarter: every link's visible text, marks and line), the record fields (a third: each block's "
        "short labels' visible texts), list choice, the hidden index and the parse; the browser round "
        "trip (the readiness look, about a fifth of the in-page time on this page; serializing; gzip) is "
        "the larger half of products_generic's run.",
        "",
        "The rows '… … CPU minimum' above say where articles_generic's CPU goes, part by part. What its "
        "readers share is one memo per parse (`_parse_memo`): each element's visible text gathered once "
        "and kept, a block's short labels walked once, the document order walked once. Fewer passes "
        "alone do not reach the target: gathering every label's visible text in the walk that lists a "
        "block's short labels (one walk instead of two) measured the same CPU (152 vs 157 ms, 147 vs "
        "153 ms, minima of interleaved rounds at load 7-9), because that walk must then read every "
        "element's attributes, which the lazy reading skips for most. What is left is per-element work "
        "in Python (about 6,000 elements, 2,300 visible texts of links and labels, 640 links' marks and "
        "lines on this page): reaching 150 ms with the round trip needs about half the CPU, from asking "
        "fewer elements (rules that look only where the chosen list is) or from reading the elements' "
        "facts in compiled code, not from sharing what is read.",
    ]
    write_section("extraction", "Extraction tools", rows)


if __name__ == "__main__":
    main()
