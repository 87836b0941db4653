"""What reading the page as a user sees it costs: the consent script on every page of a task, and
`page_html` on a listing written flat, in open shadow roots, in a same-origin frame and in a frame of
another origin (one more call, in that frame).

    .venv/bin/python bench/bench_pagecontent.py [--runs N]

Ratios are against a baseline measured in the same run: a task's page opened with ``--consent
leave`` (no script) against ``reject`` (the default), and the flat listing against the composed
ones. Pages come from the test site (tests/site_pagecontent.py) on 127.0.0.1. Medians go to
bench/results/pagecontent.md.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, record_run, write_section  # noqa: E402

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from site_server import start_site  # noqa: E402

from curllm_core.browser import Browser, BrowserOptions  # noqa: E402
from curllm_core.tool import ToolContext  # noqa: E402
from curllm_core.tools.extraction._html import page_html  # noqa: E402


async def median_ms(make, runs: int) -> float:
    await make()  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await make()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def main(runs: int) -> None:
    site, other = start_site(), start_site()
    port = other.url.rsplit(":", 1)[1]
    browser = Browser()
    try:
        opened = {}
        for mode in ("leave", "reject"):

            async def open_task(mode: str = mode) -> None:
                session = await browser.new_session(BrowserOptions(consent=mode))
                await session.open(site.url + "/kategoria/elektronika")
                await session.close()

            opened[mode] = await median_ms(open_task, runs)
        read = {}
        session = await browser.new_session(BrowserOptions())
        ctx = ToolContext(page=session.page)
        for name, path in (
            ("flat", "frame-body"),
            ("shadow roots", "shadow"),
            ("same-origin frame", "frame"),
            ("frame of another origin", "xframe"),
        ):
            await session.open(f"{site.url}/pc/{path}/bem-pl.html?other={port}")
            read[name] = await median_ms(lambda: page_html(ctx, lean=True), runs)
        await session.close()
    finally:
        await browser.close()
        site.stop()
        other.stop()
    rows = [
        "| what | median | ratio |",
        "|---|---|---|",
        f"| a task's page opened, `--consent leave` (baseline) | {opened['leave']:.1f} ms | 1.00x |",
        f"| the same, `--consent reject` (the default) | {opened['reject']:.1f} ms | "
        f"{opened['reject'] / opened['leave']:.2f}x |",
    ]
    for name, ms in read.items():
        rows.append(
            f"| `page_html` of a 7-product listing, {name} | {ms:.1f} ms | {ms / read['flat']:.2f}x |"
        )
    record_run("pagecontent", {"open": opened, "read": read})
    write_section("pagecontent", "Reading pages as a user sees them (bench_pagecontent.py)", rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    asyncio.run(main(parser.parse_args().runs))
