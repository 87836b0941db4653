"""The physical limit for "find products under 150zł" on a listing page whose price filter does
nothing: a hand-written Playwright script that knows the filter is useless and skips it, opens the
page, reads its HTML and runs the same extraction as curllm (products_generic's ``extract``), then
keeps the products at most 150 zł.

    python bench/handwritten_listing.py URL EXECUTABLE
"""

import asyncio
import json
import sys

from playwright.async_api import async_playwright

from curllm_core.tools.extraction.products_generic import extract

ARGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-gpu",
    "--disable-dev-shm-usage",
]


async def main(url: str, executable: str) -> None:
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=executable, args=ARGS)
        page = await (await browser.new_context()).new_page()
        await page.goto(url, wait_until="domcontentloaded")
        products = extract(await page.content(), page.url)["products"]
        await browser.close()
    print(
        json.dumps([x for x in products if x["price"] is not None and x["price"] <= 150], ensure_ascii=False)
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
