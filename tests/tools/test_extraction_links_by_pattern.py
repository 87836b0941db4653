"""links_by_pattern: regex on absolute URLs, link text filter, same-domain, deduplication, traps."""

from __future__ import annotations

import pytest

from curllm_core.errors import ToolError
from curllm_core.tools.extraction import links_by_pattern
from curllm_core.tools.extraction._html import absolute_url, parse_html
from tests.tools.test_extraction_helpers import assert_valid_output, page_text

PAGE = """<html><head><base href="https://docs.example.com/library/"></head><body>
<a href="reports/2023.pdf">Annual report 2023</a>
<a href="reports/2023.pdf"><img src="r.png" alt="report"></a>
<a href="/price-list.PDF?v=2"> Cennik <b>2024</b> </a>
<a href="https://cdn.example.com/files/manual.pdf" aria-label="User manual"><svg></svg></a>
<a href="https://other.org/paper.pdf">A paper elsewhere</a>
<a href="javascript:download('x.pdf')">Script link .pdf</a>
<a href="mailto:office@example.com?subject=x.pdf">Mail</a>
<a href="#section-pdf">Jump to PDFs</a>
<a href="hidden.pdf" style="display:none">Hidden</a>
<div hidden><a href="hidden2.pdf">Hidden too</a></div>
<template><a href="template.pdf">Template</a></template>
<a href="/product/42">Product 42</a><a href="/product/43">Product 43</a><a href="/about">About</a>
</body></html>"""


def extract(
    html: str = PAGE, url: str = "https://docs.example.com/library/index.html", **params
) -> list[dict]:
    out = links_by_pattern.extract(html, url, **params)
    assert_valid_output("links_by_pattern", out)
    return out["links"]


def test_pdf_links_absolute_deduplicated_and_visible_only():
    assert extract(pattern=r"\.pdf($|[?#])") == [
        {"text": "Annual report 2023", "url": "https://docs.example.com/library/reports/2023.pdf"},
        {"text": "Cennik 2024", "url": "https://docs.example.com/price-list.PDF?v=2"},  # case-insensitive
        {"text": "User manual", "url": "https://cdn.example.com/files/manual.pdf"},  # accessible name
        {"text": "A paper elsewhere", "url": "https://other.org/paper.pdf"},
    ]


def test_text_filter_same_domain_and_limit():
    assert [link["text"] for link in extract(pattern=r"\.pdf", text=r"cennik")] == ["Cennik 2024"]
    same = extract(pattern=r"\.pdf", same_domain=True)
    assert [link["url"] for link in same] == [
        "https://docs.example.com/library/reports/2023.pdf",
        "https://docs.example.com/price-list.PDF?v=2",
    ]  # cdn.example.com is another host; subdomains of docs.example.com would count
    assert [link["text"] for link in extract(pattern="/product/", limit=1)] == ["Product 42"]
    assert len(extract(pattern="")) == 7  # every followable link, once


def test_bad_regex_is_a_clear_error():
    with pytest.raises(ToolError, match="not a valid regular expression"):
        extract(pattern="(unclosed")


def test_real_page_story_pdfs():
    html = page_text("hn_item_36817231.html")
    links = extract(html, "https://news.ycombinator.com/item?id=36817231", pattern=r"\.pdf$")
    tree = parse_html(html)
    hrefs = {
        absolute_url(a.attributes.get("href"), "https://news.ycombinator.com/") for a in tree.css("a[href]")
    }
    expected = {h for h in hrefs if h and h.lower().endswith(".pdf")}
    assert {link["url"] for link in links} == expected and len(links) == len(expected) > 10


def test_real_page_ebay_items_skip_the_template():
    links = extract(
        page_text("ebay_de_search_apple.html"), "https://www.ebay.de/sch/i.html?_nkw=apple", pattern=r"/itm/"
    )
    assert links and not any(
        "ebay.com/itm/123456" in link["url"] for link in links
    )  # the off-screen template
    assert all(link["url"].startswith("https://www.ebay.de/itm/") for link in links)


@pytest.mark.browser
async def test_run_in_a_real_browser(page, on_page):
    await page.goto("about:blank")
    await page.set_content(PAGE)
    out = await on_page("extraction.links_by_pattern", pattern=r"\.pdf($|[?#])", same_domain=True)
    assert_valid_output("links_by_pattern", out)
    assert [link["url"] for link in out["links"]] == [
        "https://docs.example.com/library/reports/2023.pdf",
        "https://docs.example.com/price-list.PDF?v=2",
    ]


@pytest.mark.parametrize(
    "html, url, want",
    [
        # the page's <base> names its own site: the docs host (and its subdomains) are not external,
        # a sibling host is
        (
            PAGE,
            "https://docs.example.com/library/index.html",
            ["https://cdn.example.com/files/manual.pdf", "https://other.org/paper.pdf"],
        ),
        # a saved file resolves against its canonical address: that site is its own
        (
            '<link rel="canonical" href="https://de.wikipedia.org/wiki/HTML">'
            '<a href="/wiki/CSS">CSS</a><a href="https://de.wikipedia.org/wiki/XML">XML</a>'
            '<a href="https://www.w3.org/TR/">W3C</a><a href="ftp://ftp.example.org/x">FTP</a>',
            "file:///tmp/HTML.html",
            ["https://www.w3.org/TR/"],
        ),
        # a saved file with no address of its own: every http(s) link leads elsewhere
        (
            '<a href="page2.html">next</a><a href="https://github.com/a/b">repo</a>'
            '<a href="http://example.org/">site</a>',
            "file:///tmp/page.html",
            ["https://github.com/a/b", "http://example.org/"],
        ),
    ],
)
def test_external_links_are_those_to_other_hosts_than_the_pages_own(html, url, want):
    assert [link["url"] for link in extract(html, url, external=True)] == want


PICTURES = (
    '<html><head><base href="https://shop.example/"></head><body><a href="/shoes">Shoes</a>'
    '<img src="/i/1.jpg" alt="Red shoe">'
    '<img src="data:image/gif;base64,R0lGODlh" data-src="/i/2.webp" alt="Blue shoe">'
    '<img src="/img/preloader.gif" data-original="/i/5.jpg" alt="Black shoe">'
    '<picture><img srcset="/i/3-small.jpg 300w, /i/3-large.jpg 900w" alt="Green shoe"></picture>'
    '<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline">'
    '<img src="/pixel.gif" width="1" height="1" alt="">'
    '<a href="/full/4.png">Full size</a>'
    '<img src="/i/1.jpg" alt="The red shoe again">'
    '<div hidden><img src="/i/hidden.jpg" alt="Hidden"></div>'
    "</body></html>"
)


def test_images_are_the_pictures_addresses_with_their_alt_text():
    """``images``: every picture the page shows, once, absolute: its source, a lazy loader's
    ``data-src`` behind an inline or a shared placeholder, the largest of a source set, and a link to a picture
    file; not inline ``data:`` pictures, 1x1 pixels, hidden pictures or the page's other links."""
    out = links_by_pattern.extract(PICTURES, "https://shop.example/list", images=True)
    assert_valid_output("links_by_pattern", out)
    assert [(link["text"], link["url"]) for link in out["links"]] == [
        ("Red shoe", "https://shop.example/i/1.jpg"),
        ("Blue shoe", "https://shop.example/i/2.webp"),
        ("Black shoe", "https://shop.example/i/5.jpg"),
        ("Green shoe", "https://shop.example/i/3-large.jpg"),
        ("Full size", "https://shop.example/full/4.png"),
    ]
    webp = links_by_pattern.extract(PICTURES, "https://shop.example/list", images=True, pattern=r"\.webp$")
    assert [link["url"] for link in webp["links"]] == ["https://shop.example/i/2.webp"]
    assert "https://shop.example/i/1.jpg" not in [
        link["url"] for link in links_by_pattern.extract(PICTURES, "https://shop.example/list")["links"]
    ]
