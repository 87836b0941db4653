"""The local test site over plain HTTP: routes answer, filters really filter, nothing points nowhere."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest

from tests.site_server import SITE_DIR, load_shop

SHOP = load_shop()
PRICE = re.compile(r'<span class="price price--current">([^<]+)</span>')


def get(url: str) -> tuple[int, str, str]:
    """Status, content type and body of a GET (errors included, as statuses)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode("utf-8")


def prices(body: str) -> list[float]:
    """The listing's current prices ("1 299,00 zł" -> 1299.0), in page order."""
    return [float(p.replace(" zł", "").replace(" ", "").replace(",", ".")) for p in PRICE.findall(body)]


def all_pages(site_url: str, path: str) -> list[str]:
    """Bodies of every page of a listing, following rel=next."""
    bodies, url = [], site_url + path
    while url:
        status, _, body = get(url)
        assert status == 200
        bodies.append(body)
        nxt = re.search(r'<a class="pagination__next" rel="next" href="([^"]+)"', body)
        url = urljoin(url, nxt.group(1).replace("&amp;", "&")) if nxt else None
    return bodies


def test_url_has_no_trailing_slash(site_url):
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", site_url)


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/kategoria/elektronika",
        "/kategoria/laptopy",
        "/produkt/p01",
        "/produkt/p24",
        "/nowosci",
        "/inspiracje",
        "/promocje",
        "/dostawa",
        "/kontakt",
        "/static/sklep.css",
        "/static/sklep.js",
        *[f"/test/{p.name}" for p in sorted(SITE_DIR.glob("*.html"))],
    ],
)
def test_routes_answer(site_url, path):
    status, ctype, body = get(site_url + path)
    assert status == 200, path
    assert "charset=utf-8" in ctype
    assert body.strip()


@pytest.mark.parametrize(
    "path",
    [
        "/nope",
        "/kategoria/nie-ma",
        "/produkt/p99",
        "/test/missing.html",
        "/test/../serve.py",
        "/static/catalog.json",
    ],
)
def test_unknown_routes_are_404(site_url, path):
    status, _, body = get(site_url + path)
    assert status == 404
    assert "Nie znaleziono" in body


def test_listing_shows_eight_products_and_a_next_link(site_url):
    _, _, body = get(site_url + "/")
    assert body.count('class="product-card"') == 8
    assert 'rel="next"' in body and "Następna" in body
    assert "Znaleziono 24 produkty" in body  # Polish plural: 22-24 produkty


def test_pagination_covers_the_whole_catalogue(site_url):
    bodies = all_pages(site_url, "/")
    assert len(bodies) == 3
    assert sum(len(prices(b)) for b in bodies) == len(SHOP.catalog()["products"]) == 24


def test_price_filter_really_filters(site_url):
    expected = sorted(p["price"] for p in SHOP.catalog()["products"] if p["price"] <= 150)
    found = [x for b in all_pages(site_url, "/?price_min=&price_max=150") for x in prices(b)]
    assert sorted(found) == expected
    assert len(found) == 12  # 150,00 zł itself is in: the bounds are inclusive
    _, _, body = get(site_url + "/?price_min=100&price_max=200")
    assert prices(body) and all(100 <= p <= 200 for p in prices(body))
    # Polish decimal comma, as a user types it
    _, _, body = get(site_url + "/?price_max=149%2C99")
    assert 150.0 not in prices(body) and 149.99 in prices(body)


def test_decoys_are_outside_the_listing(site_url):
    _, _, body = get(site_url + "/?price_max=150")
    listing = body[body.index('<ul class="product-list">') : body.index('<nav class="pagination"')]
    assert "Robot kuchenny MaxiMix" in body and "Robot kuchenny MaxiMix" not in listing
    assert "Darmowa dostawa od 200 zł" in body and "200 zł" not in listing


@pytest.mark.parametrize(
    ("sort", "key", "reverse"),
    [("cena_rosnaco", "price", False), ("cena_malejaco", "price", True), ("najnowsze", "added", True)],
)
def test_sort_really_sorts(site_url, sort, key, reverse):
    found = [x for b in all_pages(site_url, f"/?sort={sort}") for x in prices(b)]
    ordered = sorted(SHOP.catalog()["products"], key=lambda p: p[key], reverse=reverse)
    if key == "price":
        assert found == sorted(found, reverse=reverse)
    else:
        assert found == [p["price"] for p in ordered]


def test_search_really_filters(site_url):
    _, _, body = get(site_url + "/?q=smartfon")
    assert body.count('class="product-card"') == 3
    _, _, body = get(site_url + "/?q=LADOWARKA")  # case and accents do not matter
    assert "Ładowarka sieciowa 65 W" in body and body.count('class="product-card"') == 1
    _, _, body = get(site_url + "/?q=nic+takiego")
    assert "Brak produktów" in body


def test_category_covers_its_subcategories(site_url):
    _, _, body = get(site_url + "/kategoria/elektronika")
    assert "Znaleziono 10 produktów" in body
    _, _, body = get(site_url + "/kategoria/laptopy")
    assert body.count('class="product-card"') == 3 and 'aria-current="page">Laptopy' in body


def test_api_pages_through_everything(site_url):
    names, offset = [], 0
    while offset is not None:
        status, ctype, body = get(f"{site_url}/api/produkty?offset={offset}&limit=8&sort=najnowsze")
        assert status == 200 and ctype.startswith("application/json")
        doc = json.loads(body)
        names += [item["name"] for item in doc["items"]]
        offset = doc["next_offset"]
    assert len(names) == len(set(names)) == 24


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.resources: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        for key in ("src", "href") if tag in ("img", "script", "link", "iframe", "source") else ():
            if a.get(key):
                self.resources.append(a[key])


def test_every_local_link_and_resource_exists(site_url):
    """Crawl the site: no page links to, or loads, something that is not there."""
    queue = [site_url + "/"] + [f"{site_url}/test/{p.name}" for p in SITE_DIR.glob("*.html")]
    seen: set[str] = set()
    broken = []
    while queue and len(seen) < 400:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        status, ctype, body = get(url)
        if status != 200:
            broken.append(url)
            continue
        if "html" not in ctype:
            continue
        refs = _Refs()
        refs.feed(body)
        for ref in refs.resources:
            if not ref.startswith("data:"):
                target = urljoin(url, ref)
                if get(target)[0] != 200:
                    broken.append(f"{url} loads {ref}")
        for ref in refs.links:
            target = urljoin(url, ref).split("#")[0]
            if urlsplit(target).netloc == urlsplit(site_url).netloc:
                queue.append(target)
    assert not broken
    assert len(seen) > 50


def test_serve_script_prints_its_url():
    proc = subprocess.Popen(
        [sys.executable, str(SHOP.HERE / "serve.py"), "--port", "0", "--quiet"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
        assert get(url)[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=5)
