"""The cost of readiness (curllm_core/readiness.py): on a static page and on a client-rendered one.

One browser, the local test site. Each round opens a page and reads its products (`Session.open`
then `products_generic.run`) three times, taking turns: with readiness as curllm runs it; with the
readiness wait taken out (its two call sites replaced by a no-op); and the baseline, with no
readiness at all: the wait taken out and a session whose pages do not run its script (the counters
every document of a task installs before its own scripts). On the static pages all three read the
same products; the ratio to the baseline is what readiness costs there, its script included. On the
client-rendered page (items fetched 600 ms after hydration, prices by a second request) the reading
without readiness finds nothing; the figure to compare with is the oracle: the time until the page's
last price is really there (a selector waited for), measured in the same round.

    .venv/bin/python bench/bench_readiness.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from typing import Any

from common import ROOT, record_run, write_section

sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

PAGES = [
    ("the example shop's listing (static, 8 products)", "/", "static"),
    ("a static listing of 24 products (`/test/inert-filter.html`)", "/test/inert-filter.html", "static"),
    (
        "a client-rendered listing (`/app/render`: skeletons, 12 items fetched after hydration, prices by a second request)",
        "/app/render?markup=bem&lang=pl&delay=600",
        "client",
    ),
]


async def no_wait(*_a, **_k):
    from curllm_core.readiness import Readiness

    return Readiness(True, 0, 0)


async def measure(rounds: int) -> dict:
    from site_server import start_site

    import curllm_core.browser as browser_mod
    import curllm_core.tools.extraction._html as html_mod
    from curllm_core.browser import Browser, BrowserOptions
    from curllm_core.readiness import probe, wait_ready
    from curllm_core.tool import ToolContext
    from curllm_core.tools.extraction import products_generic

    site = start_site()
    browser = Browser()
    session = await browser.new_session(BrowserOptions())
    script = browser_mod.READINESS_INIT_JS
    browser_mod.READINESS_INIT_JS = "/* no readiness script: the baseline */"
    try:
        bare = await browser.new_session(BrowserOptions())
    finally:
        browser_mod.READINESS_INIT_JS = script
    real = (browser_mod.wait_ready, html_mod.wait_ready)

    async def read(url: str, ready: bool, on: Any = None) -> tuple[float, int]:
        on = on or session
        browser_mod.wait_ready, html_mod.wait_ready = real if ready else (no_wait, no_wait)
        try:
            start = time.perf_counter()
            await on.open(url)
            out = await products_generic.run(ToolContext(page=on.page, browser=on))
            return (time.perf_counter() - start) * 1000, len(out["products"])
        finally:
            browser_mod.wait_ready, html_mod.wait_ready = real

    async def oracle(url: str) -> float:
        start = time.perf_counter()
        await session.page.goto(url, wait_until="domcontentloaded")
        await session.page.wait_for_function(
            "() => document.querySelectorAll('[data-price-of]').length === 12 && "
            "[...document.querySelectorAll('[data-price-of]')].every((e) => /\\d/.test(e.textContent))"
        )
        return (time.perf_counter() - start) * 1000

    results: dict = {}
    try:
        for label, path, kind in PAGES:
            url = site.url + path
            await read(url, True)  # warm-up
            await read(url, False, bare)
            with_ms, without_ms, bare_ms, oracle_ms, probe_ms = [], [], [], [], []
            found: dict[str, int] = {}
            for i in range(rounds):
                turns = [("with", with_ms, True, session), ("without", without_ms, False, session),
                         ("bare", bare_ms, False, bare)]  # fmt: skip
                for name, times, ready, on in turns[i % 3 :] + turns[: i % 3]:
                    ms, n = await read(url, ready, on)
                    times.append(ms)
                    found[name] = n
                start = time.perf_counter()
                await probe(session.page)
                probe_ms.append((time.perf_counter() - start) * 1000)
                if kind == "client":
                    oracle_ms.append(await oracle(url))
            await wait_ready(session.page)
            results[label] = {
                "kind": kind,
                "with": statistics.median(with_ms),
                "without": statistics.median(without_ms),
                "bare": statistics.median(bare_ms),
                "oracle": statistics.median(oracle_ms) if oracle_ms else None,
                "probe": statistics.median(probe_ms),
                "found_with": found["with"],
                "found_without": found["without"],
                "found_bare": found["bare"],
            }
    finally:
        await bare.close()
        await session.close()
        await browser.close()
        site.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    import os

    load_before = os.getloadavg()[0]
    results = asyncio.run(measure(args.rounds))
    load_after = os.getloadavg()[0]
    lines = [
        f"Opening a page and reading its products (`Session.open` + `products_generic.run`) in one browser, "
        f"{args.rounds} rounds taking turns: with readiness as curllm runs it, with the readiness wait "
        "taken out, and the baseline without readiness at all (no wait, and pages that do not run its "
        "script). One look (`readiness.probe`) timed on its own on the loaded page. For the "
        "client-rendered page, the oracle is the time until its last price is really there (a selector "
        f"waited for). Load average (1 min) at the start and the end: {load_before:.1f} / {load_after:.1f}.",
        "",
        "| page | with readiness | without the wait | baseline (no readiness) | ratio to the baseline "
        "| products found with / without / baseline | one look | oracle (content there) | with / oracle |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label, r in results.items():
        oracle = f"{r['oracle']:.0f} ms" if r["oracle"] else ""
        vs = f"{r['with'] / r['oracle']:.2f}x" if r["oracle"] else ""
        lines.append(
            f"| {label} | {r['with']:.0f} ms | {r['without']:.0f} ms | {r['bare']:.0f} ms | "
            f"**{r['with'] / r['bare']:.2f}x** | {r['found_with']} / {r['found_without']} / {r['found_bare']} | "
            f"{r['probe']:.1f} ms | {oracle} | {vs} |"
        )
    lines += [
        "",
        "On a static page readiness is one browser call after the page is open and one before the read "
        "(a page already complete and quiet is never waited on); on the client-rendered page the reading "
        "without it finds no products, and with it the wait ends shortly after the content is there "
        "(the DOM must stay unchanged for 150 ms).",
    ]
    record_run("readiness", {k: {kk: vv for kk, vv in v.items()} for k, v in results.items()})
    write_section("readiness", "The cost of readiness", lines)


if __name__ == "__main__":
    main()
