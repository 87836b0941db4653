"""The physical limit for "find products under 150zł" on the example shop: a hand-written Playwright
script doing the same steps as curllm's plan (fill the price filter, submit, read every page of the
listing, keep the products at most 150 zł), knowing the shop's markup in advance.

    python bench/handwritten_shop.py URL EXECUTABLE
"""

import asyncio
import json
import sys

from playwright.async_api import async_playwright
from selectolax.lexbor import LexborHTMLParser

ARGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-gpu",
    "--disable-dev-shm-usage",
]


def products(html: str) -> list[dict]:
    out = []
    for card in LexborHTMLParser(html).css("ul.product-list article.product-card"):
        link = card.css_first(".product-card__name a")
        text = (
            card.css_first(".price--current").text().replace("\xa0", " ").replace("zł", "").replace(" ", "")
        )
        out.append(
            {
                "name": link.text(strip=True),
                "price": float(text.replace(",", ".")),
                "url": link.attributes["href"],
            }
        )
    return out


async def main(url: str, executable: str) -> None:
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=executable, args=ARGS)
        page = await (await browser.new_context()).new_page()
        await page.goto(url, wait_until="domcontentloaded")
        await page.fill("#price_max", "150")
        async with page.expect_navigation():
            await page.click("form.filters button[type=submit]")
        found = []
        for _ in range(5):
            found += products(await page.content())
            nxt = await page.query_selector("a[rel=next]")
            if nxt is None:
                break
            await page.goto(await nxt.evaluate("a => a.href"), wait_until="domcontentloaded")
        await browser.close()
    print(json.dumps([p for p in found if p["price"] <= 150]))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
