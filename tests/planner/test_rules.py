"""The rule planner against the real registry: which tools, in which order, with which parameters.

Each case is (URL, instruction, expected steps, expected output). A step is (tool, parameters that must
be set, with these values); other parameters (defaults) may be present too. PL, EN and DE throughout.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curllm_core.errors import PlanningError, UsageError
from curllm_core.planner import Planned, plan_task
from curllm_core.planner.facts import site_pattern
from curllm_core.planner.rules import plan_with_rules
from curllm_core.runner import Runner, TaskSpec
from tests.warm_cache import fresh_cache

SHOP = "https://shop.example/"
HN = "https://news.ycombinator.com/"
PF, PRC, RF = "forms.price_filter", "validation.price_range_check", "validation.required_fields"
URLS = "validation.url_format_check"
GEN, CENEO, AMAZON = "extraction.products_generic", "extraction.products_ceneo", "extraction.products_amazon"
HNX, REDDIT, LINKS, TABLES = (
    "extraction.articles_hn",
    "extraction.articles_reddit",
    "extraction.links_by_pattern",
    "extraction.tables_to_json",
)
ARTICLES = "extraction.articles_generic"
LOCAL = "http://127.0.0.1:8000/real/page.html"  # a snapshot served locally: no site is known
SEARCH, DATES, DROP = "forms.search_query", "forms.date_picker", "forms.dropdown_select"
SCROLL, PAGES, CAT, CLICK = (
    "navigation.scroll_load",
    "navigation.pagination",
    "navigation.category_select",
    "navigation.click_by_text",
)
PDF = r"\.pdf($|\?)"
ORDER, SELECT = "validation.order_items", "validation.select_fields"


GITHUB_COM = r"^[a-z][a-z0-9+.-]*://(?:[^/?#]+\.)?github\.com(?::[0-9]+)?(?:[/?#]|$)"


REDDIT_URL = "https://old.reddit.com/r/dataisbeautiful/top/"


def costliest(n=None, *, extractor=GEN):
    order = {"by": "price", "order": "desc", **({"limit": n} if n else {})}
    return [(DROP, {"option": "price descending"}), (PAGES, {"extract": extractor}), (ORDER, order)]


def by_points(n=None):
    return {"by": "points", "order": "desc", **({"limit": n} if n else {})}


def cheapest(n=None, *, extractor=GEN):
    """A price order over a listing: the page's own sort control as an optional speed-up (the pages
    read then hold the cheapest first), every page of the listing read, then the order step, which
    is exact whatever the page did (the cheapest of a listing are rarely all on page one)."""
    order = {"by": "price", "order": "asc", **({"limit": n} if n else {})}
    return [(DROP, {"option": "price ascending"}), (PAGES, {"extract": extractor}), (ORDER, order)]


def price(lo=None, hi=None, *, extractor=GEN):
    """The three steps a price bound gives on a shop page: the filter form, every page of the
    listing read by the extraction, and the range check."""
    bounds = {k: v for k, v in (("min", lo), ("max", hi)) if v is not None}
    return [(PF, bounds), (PAGES, {"extract": extractor}), (PRC, bounds)]


CASES: list[tuple[str | None, str, list[tuple[str, dict]], str]] = [
    # --- price bounds (EN / PL / DE) ------------------------------------------------------------
    (SHOP, "find products under 150zł", price(hi=150), "products"),
    (SHOP, "znajdź produkty poniżej 150 zł", price(hi=150), "products"),
    (SHOP, "produkty do 150 zł", price(hi=150), "products"),
    (SHOP, "produkty taniej niż 150 zł", price(hi=150), "products"),
    (SHOP, "products below $100", price(hi=100), "products"),
    (SHOP, "Produkte unter 50 €", price(hi=50), "products"),
    (SHOP, "items max 150", price(hi=150), "products"),
    (SHOP, "products between 100 and 200", price(100, 200), "products"),
    (SHOP, "produkty od 100 do 200 zł", price(100, 200), "products"),
    (SHOP, "products from 100 to 200 PLN", price(100, 200), "products"),
    (SHOP, "laptops over 1000", price(lo=1000), "products"),
    (SHOP, "anything cheaper than 75 dollars", price(hi=75), "products"),
    (SHOP, "Angebote zwischen 10 und 25 Euro", price(10, 25), "products"),
    (SHOP, "alle Angebote ab 100 €", price(lo=100), "products"),
    (SHOP, "produkty powyżej 500 zł", price(lo=500), "products"),
    (SHOP, "products priced 100-200 zł", price(100, 200), "products"),
    (SHOP, "find products under 1 000 zł", price(hi=1000), "products"),
    (
        SHOP,
        "every product must cost at most 50 EUR",
        [(PF, {"max": 50}), (PAGES, {"extract": GEN}), (PRC, {"max": 50, "mode": "fail"})],
        "products",
    ),
    # --- counts and implied order -------------------------------------------------------------------
    (SHOP, "the first 5 products", [(GEN, {"limit": 5})], "products"),
    # a count with a price bound counts over every page of the filtered listing
    # ... and counts after the check that drops items: the order step takes it
    (
        SHOP,
        "top 10 products under 300 zł",
        [(PF, {"max": 300}), (PAGES, {"extract": GEN}), (PRC, {"max": 300}), (ORDER, {"limit": 10})],
        "products",
    ),
    (SHOP, "10 najtańszych produktów", cheapest(10), "products"),
    (SHOP, "5 cheapest products", cheapest(5), "products"),
    (SHOP, "die 10 günstigsten Produkte", cheapest(10), "products"),
    (SHOP, "pokaż 20 produktów", [(GEN, {"limit": 20})], "products"),
    # --- pages (pagination folds the extraction) and scrolling ----------------------------------
    (SHOP, "products from 3 pages", [(PAGES, {"max_pages": 3, "extract": GEN})], "products"),
    (SHOP, "produkty z 4 stron", [(PAGES, {"max_pages": 4, "extract": GEN})], "products"),
    (SHOP, "Produkte von den ersten 2 Seiten", [(PAGES, {"max_pages": 2, "extract": GEN})], "products"),
    (SHOP, "zbierz produkty ze wszystkich stron", [(PAGES, {"max_pages": 20, "extract": GEN})], "products"),
    (
        SHOP,
        "10 products per page from 3 pages",
        [(PAGES, {"max_pages": 3, "extract": GEN, "extract_parameters": {"limit": 10}})],
        "products",
    ),
    (
        "https://www.ceneo.pl/szukaj-canon",
        "produkty z pierwszych 2 stron, po 10 z każdej",
        [(PAGES, {"max_pages": 2, "extract": CENEO, "extract_parameters": {"limit": 10}})],
        "products",
    ),
    (SHOP, "scroll down 5 times and list the products", [(SCROLL, {"times": 5}), (GEN, {})], "products"),
    (SHOP, "przewiń stronę 3 razy i pokaż produkty", [(SCROLL, {"times": 3}), (GEN, {})], "products"),
    (SHOP, "5 mal scrollen und alle Produkte zeigen", [(SCROLL, {"times": 5}), (GEN, {})], "products"),
    (SHOP, "scroll down five times and list the products", [(SCROLL, {"times": 5}), (GEN, {})], "products"),
    # --- search ---------------------------------------------------------------------------------
    (SHOP, "search for 'kubek'", [(SEARCH, {"query": "kubek"}), (GEN, {})], "products"),
    (SHOP, "search for laptops under 2000 zł", [(SEARCH, {"query": "laptops"}), *price(hi=2000)], "products"),
    (SHOP, "wyszukaj laptop lenovo", [(SEARCH, {"query": "laptop lenovo"}), (GEN, {})], "products"),
    (
        SHOP,
        "suche nach Katzenfutter unter 20 €",
        [(SEARCH, {"query": "Katzenfutter"}), *price(hi=20)],
        "products",
    ),
    (
        SHOP,
        'find "canon eos" cameras under 2000 zł',
        [(SEARCH, {"query": "canon eos"}), *price(hi=2000)],
        "products",
    ),
    # --- dates ----------------------------------------------------------------------------------------
    (
        SHOP,
        "events from 1 May 2024 to 7 May 2024",
        [(DATES, {"from": "2024-05-01", "to": "2024-05-07"}), (ARTICLES, {})],
        "articles",
    ),
    (
        SHOP,
        "wydarzenia od 1 maja 2024 do 7 maja 2024",
        [(DATES, {"from": "2024-05-01", "to": "2024-05-07"}), (ARTICLES, {})],
        "articles",
    ),
    (
        SHOP,
        "Termine vom 1. Mai 2024 bis 7. Mai 2024",
        [(DATES, {"from": "2024-05-01", "to": "2024-05-07"}), (ARTICLES, {})],
        "articles",
    ),
    (
        SHOP,
        "bookings from 2024-05-01 to 2024-05-07",
        [(DATES, {"from": "2024-05-01", "to": "2024-05-07"}), (GEN, {})],
        "products",
    ),
    (
        SHOP,
        "Anreise 20.07.2024, Abreise 27.07.2024",
        [(DATES, {"from": "2024-07-20", "to": "2024-07-27"}), (GEN, {})],
        "products",
    ),
    # --- dropdowns, clicks, categories ----------------------------------------------------------------
    (
        SHOP,
        "sort by price low to high",
        [(DROP, {}), (PAGES, {"extract": GEN}), (ORDER, {"by": "price", "order": "asc"})],
        "products",
    ),
    (
        SHOP,
        "sortuj według ceny rosnąco",
        [(DROP, {}), (PAGES, {"extract": GEN}), (ORDER, {"by": "price", "order": "asc"})],
        "products",
    ),
    (
        SHOP,
        "sortiere nach Preis aufsteigend",
        [(DROP, {}), (PAGES, {"extract": GEN}), (ORDER, {"by": "price", "order": "asc"})],
        "products",
    ),
    (SHOP, "sort by price, cheapest first", cheapest(), "products"),
    (SHOP, "select 'Newest' and list products", [(DROP, {"option": "Newest"}), (GEN, {})], "products"),
    (
        SHOP,
        "click 'Load more' and list the products",
        [(CLICK, {"text": "Load more"}), (GEN, {})],
        "products",
    ),
    (
        SHOP,
        'kliknij "Pokaż więcej" i pokaż produkty',
        [(CLICK, {"text": "Pokaż więcej"}), (GEN, {})],
        "products",
    ),
    (
        SHOP,
        "klicke auf 'Mehr anzeigen' und zeige alle Produkte",
        [(CLICK, {"text": "Mehr anzeigen"}), (GEN, {})],
        "products",
    ),
    (SHOP, "open the category Laptops", [(CAT, {"path": ["Laptops"]}), (GEN, {})], "products"),
    (
        SHOP,
        "produkty w kategorii Elektronika > Laptopy",
        [(CAT, {"path": ["Elektronika", "Laptopy"]}), (GEN, {})],
        "products",
    ),
    (SHOP, "Artikel in der Kategorie Computer", [(CAT, {"path": ["Computer"]}), (GEN, {})], "products"),
    (
        SHOP,
        "open the category Laptops, sort by price low to high and show 10 products under 5000 zł",
        [
            (CAT, {"path": ["Laptops"]}),
            (PF, {"max": 5000}),
            (DROP, {"option": "price low to high"}),
            (PAGES, {"extract": GEN}),
            (PRC, {"max": 5000}),
            (ORDER, {"by": "price", "order": "asc", "limit": 10}),
        ],
        "products",
    ),
    (
        SHOP,
        "accept the cookies and find products under 100 zł",
        [(CLICK, {"text": "Accept all"}), *price(hi=100)],
        "products",
    ),
    # --- links and tables -----------------------------------------------------------------------------
    (SHOP, "links to PDF files", [(LINKS, {"pattern": PDF})], "links"),
    # the pictures themselves: their addresses
    (LOCAL, "download all images", [(LINKS, {"images": True})], "links"),
    (LOCAL, "pobierz wszystkie zdjęcia", [(LINKS, {"images": True})], "links"),
    (LOCAL, "alle Bilder herunterladen", [(LINKS, {"images": True})], "links"),
    (SHOP, "linki do plików PDF", [(LINKS, {"pattern": PDF})], "links"),
    (SHOP, "Links zu PDF-Dateien", [(LINKS, {"pattern": PDF})], "links"),
    (SHOP, "links containing /product/", [(LINKS, {"pattern": "/product/"})], "links"),
    (SHOP, "list all links on this page", [(LINKS, {"pattern": ""})], "links"),
    (HN, "all links to github.com", [(LINKS, {"pattern": GITHUB_COM})], "links"),
    (SHOP, "extract the tables", [(TABLES, {})], "tables"),
    (SHOP, "pobierz tabelę z wynikami", [(TABLES, {"limit": 1, "match": "wynikami"})], "tables"),
    (SHOP, "alle Tabellen der Seite als JSON", [(TABLES, {})], "tables"),
    (SHOP, "get the first table with at least 10 rows", [(TABLES, {"limit": 1, "min_rows": 10})], "tables"),
    # --- which table: by place, by the words naming it, by size (EN / PL / DE) -----------------------
    (LOCAL, "the second table", [(TABLES, {"nth": 2})], "tables"),
    (LOCAL, "druga tabela", [(TABLES, {"nth": 2})], "tables"),
    (LOCAL, "drugą tabelę na stronie", [(TABLES, {"nth": 2})], "tables"),
    (LOCAL, "die zweite Tabelle", [(TABLES, {"nth": 2})], "tables"),
    (LOCAL, "the third table as csv", [(TABLES, {"nth": 3})], "tables"),
    (LOCAL, "table 2", [(TABLES, {"nth": 2})], "tables"),
    (LOCAL, "the last table", [(TABLES, {"nth": -1})], "tables"),
    (LOCAL, "ostatnia tabela", [(TABLES, {"nth": -1})], "tables"),
    (LOCAL, "die letzte Tabelle", [(TABLES, {"nth": -1})], "tables"),
    (LOCAL, "the revenue table", [(TABLES, {"match": "revenue"})], "tables"),
    (LOCAL, "the CPU table", [(TABLES, {"match": "CPU"})], "tables"),
    (LOCAL, "the table of failed banks", [(TABLES, {"match": "failed banks"})], "tables"),
    (LOCAL, "tabela akcjonariuszy", [(TABLES, {"match": "akcjonariuszy"})], "tables"),
    (LOCAL, "tabela z przychodami", [(TABLES, {"match": "przychodami"})], "tables"),
    (LOCAL, "Tabelle mit dem Umsatz", [(TABLES, {"match": "Umsatz"})], "tables"),
    (LOCAL, "die Umsatztabelle", [(TABLES, {"match": "Umsatz"})], "tables"),
    (LOCAL, "the biggest table", [(TABLES, {"largest": True})], "tables"),
    (LOCAL, "największa tabela", [(TABLES, {"largest": True})], "tables"),
    (LOCAL, "die größte Tabelle", [(TABLES, {"largest": True})], "tables"),
    # --- search results, comments, points on any page (EN / PL / DE) ---------------------------------
    (LOCAL, "search results", [(ARTICLES, {})], "articles"),
    (LOCAL, "wyniki wyszukiwania", [(ARTICLES, {})], "articles"),
    (LOCAL, "Suchergebnisse", [(ARTICLES, {})], "articles"),
    (
        LOCAL,
        "the 10 organic search results with title and url",
        [(ARTICLES, {"limit": 10}), (SELECT, {"fields": ["title", "url"]})],
        "articles",
    ),
    (LOCAL, "pierwsze 5 wyników wyszukiwania", [(ARTICLES, {"limit": 5})], "articles"),
    (LOCAL, "die ersten 3 Suchergebnisse", [(ARTICLES, {"limit": 3})], "articles"),
    (LOCAL, "alle Ergebnisse der Suche", [(ARTICLES, {})], "articles"),
    (LOCAL, "list the results of this search", [(ARTICLES, {})], "articles"),  # no search form step
    # --- the entries of a page's list named by what they are about: its records --------------------
    (LOCAL, "list the events", [(ARTICLES, {})], "articles"),
    (LOCAL, "show me all the recipes", [(ARTICLES, {})], "articles"),
    (LOCAL, "pokaż wszystkie wydarzenia", [(ARTICLES, {})], "articles"),
    (LOCAL, "wypisz odcinki", [(ARTICLES, {})], "articles"),
    (LOCAL, "Zeige alle offenen Stellen", [(ARTICLES, {})], "articles"),
    (LOCAL, "liste die Rezepte", [(ARTICLES, {})], "articles"),
    (LOCAL, "the first 3 episodes", [(ARTICLES, {"limit": 3})], "articles"),
    (LOCAL, "list the issues", [(ARTICLES, {})], "articles"),
    (LOCAL, "pokaż wszystkie sklepy", [(ARTICLES, {})], "articles"),
    (LOCAL, "Zeige alle Filialen", [(ARTICLES, {})], "articles"),
    (LOCAL, "hotels under 300 zł", [*price(hi=300)], "products"),
    # "best" before a field: its best end, one item when asked in the singular
    (
        LOCAL,
        "which story has the best rating",
        [(ARTICLES, {}), (ORDER, {"by": "rating", "order": "desc", "limit": 1})],
        "articles",
    ),
    (
        SHOP,
        "das Produkt mit der besten Bewertung",
        [(GEN, {}), (ORDER, {"by": "rating", "order": "desc", "limit": 1})],
        "products",
    ),
    (SHOP, "produkty z najlepszą oceną", [(GEN, {}), (ORDER, {"by": "rating", "order": "desc"})], "products"),
    # the one product a product page is about, not a listing's products
    (LOCAL, "read this product page", [("extraction.product_detail", {})], "product"),
    (
        LOCAL,
        "the price of this product",
        [("extraction.product_detail", {}), (SELECT, {"fields": ["price"], "key": "product"})],
        "product",
    ),
    (LOCAL, "szczegóły produktu", [("extraction.product_detail", {})], "product"),
    (LOCAL, "Produktdetails dieser Seite", [("extraction.product_detail", {})], "product"),
    (
        LOCAL,
        "the product with the lowest price",
        [(DROP, {}), (PAGES, {"extract": GEN}), (ORDER, {"by": "price", "limit": 1})],
        "products",
    ),
    # reviews asked for are a product's comments; as a count they stay a field of the products
    (LOCAL, "list the reviews", [(ARTICLES, {"kind": "comments"})], "articles"),
    (LOCAL, "pokaż opinie", [(ARTICLES, {"kind": "comments"})], "articles"),
    (LOCAL, "alle Kundenbewertungen", [(ARTICLES, {"kind": "comments"})], "articles"),
    (LOCAL, "list the staff", [(ARTICLES, {"kind": "people"})], "articles"),
    (LOCAL, "pokaż wszystkich pracowników", [(ARTICLES, {"kind": "people"})], "articles"),
    (LOCAL, "Zeige alle Mitarbeiter", [(ARTICLES, {"kind": "people"})], "articles"),
    (LOCAL, "the first 5 speakers", [(ARTICLES, {"kind": "people", "limit": 5})], "articles"),
    # a count before them is a figure of something else, never a price: the rest is said not understood
    (LOCAL, "companies with more than 100 employees", [(ARTICLES, {"kind": "any"})], "articles"),
    (LOCAL, "list the titles", [(ARTICLES, {}), (SELECT, {"fields": ["title"]})], "articles"),
    (
        SHOP,
        "get every product name and its price",
        [(GEN, {}), (SELECT, {"fields": ["name", "price"]})],
        "products",
    ),
    (LOCAL, "pokaż wszystkie tytuły", [(ARTICLES, {}), (SELECT, {"fields": ["title"]})], "articles"),
    (LOCAL, "Zeige alle Titel", [(ARTICLES, {}), (SELECT, {"fields": ["title"]})], "articles"),
    (LOCAL, "the comments on this story", [(ARTICLES, {"kind": "comments"})], "articles"),
    # on the site itself too: its own tool gives the story, not the comments
    (
        "https://news.ycombinator.com/item?id=36817231",
        "the comments on this story",
        [(ARTICLES, {"kind": "comments"})],
        "articles",
    ),
    (
        "https://www.reddit.com/r/AskReddit/comments/axtih6/",
        "komentarze",
        [(ARTICLES, {"kind": "comments"})],
        "articles",
    ),
    (LOCAL, "komentarze pod artykułem", [(ARTICLES, {"kind": "comments"})], "articles"),
    (LOCAL, "alle Kommentare", [(ARTICLES, {"kind": "comments"})], "articles"),
    (LOCAL, "stories with more than 100 upvotes", [(ARTICLES, {"min_points": 101})], "articles"),
    (LOCAL, "posty z ponad 1000 punktów", [(ARTICLES, {"min_points": 1001})], "articles"),
    (LOCAL, "Beiträge mit mindestens 50 Punkten", [(ARTICLES, {"min_points": 50})], "articles"),
    (LOCAL, "threads with at least 20 comments", [(ARTICLES, {"min_comments": 20})], "articles"),
    (SHOP, "all links must be absolute URLs", [(LINKS, {"pattern": ""}), (URLS, {"key": "links"})], "links"),
    (HN, "articles with working links only", [(HNX, {}), (URLS, {"key": "articles"})], "articles"),
    # --- required fields ---------------------------------------------------------------------------------
    (
        SHOP,
        "every product has a name and a price",
        [(GEN, {}), (RF, {"fields": ["name", "price"]})],
        "products",
    ),
    (SHOP, "każdy produkt ma nazwę i cenę", [(GEN, {}), (RF, {"fields": ["name", "price"]})], "products"),
    (
        SHOP,
        "jedes Produkt hat einen Namen und einen Preis",
        [(GEN, {}), (RF, {"fields": ["name", "price"]})],
        "products",
    ),
    (
        HN,
        "every article has a title and a url",
        [(HNX, {}), (RF, {"fields": ["title", "url"], "key": "articles"})],
        "articles",
    ),
    # --- site-specific extractors, by URL host ---------------------------------------------------
    (HN, "top 10 stories with more than 100 points", [(HNX, {"limit": 10, "min_points": 101})], "articles"),
    (HN, "artykuły powyżej 50 punktów", [(HNX, {"min_points": 51})], "articles"),
    (
        "https://news.ycombinator.com/news",
        "die 10 besten Artikel mit mindestens 200 Punkten",
        [(HNX, {"limit": 10, "min_points": 200})],
        "articles",
    ),
    (
        "https://www.reddit.com/r/python/",
        "posts with over 200 upvotes",
        [(REDDIT, {"min_score": 201})],
        "articles",
    ),
    (
        "https://old.reddit.com/r/dataisbeautiful/top/",
        "first 10 posts",
        [(REDDIT, {"limit": 10})],
        "articles",
    ),
    (
        "https://www.ceneo.pl/szukaj-canon",
        "find products under 150zł",
        price(hi=150, extractor=CENEO),
        "products",
    ),
    (
        "https://www.ceneo.pl/Laptopy",
        "10 najtańszych laptopów od 2000 do 4000 zł",
        [
            (PF, {"min": 2000, "max": 4000}),
            (DROP, {"option": "price ascending"}),
            (PAGES, {"extract": CENEO}),
            (PRC, {"min": 2000, "max": 4000}),
            (ORDER, {"by": "price", "order": "asc", "limit": 10}),
        ],
        "products",
    ),
    (
        "https://www.amazon.de/s?k=katzenfutter",
        "die ersten 5 Ergebnisse unter 20 €",
        [(PF, {"max": 20}), (PAGES, {"extract": AMAZON}), (PRC, {"max": 20}), (ORDER, {"limit": 5})],
        "products",
    ),
    ("https://www.amazon.com/gp/bestsellers/", "top 10 best sellers", [(AMAZON, {"limit": 10})], "products"),
    (
        "https://www.ceneo.pl/szukaj-canon",
        "links to product pages containing /product/",
        [(LINKS, {"pattern": "/product/"})],
        "links",
    ),
    # --- ordering: superlatives and "sorted by", any field, the count after the order (EN/PL/DE) -----
    (SHOP, "the most expensive products", costliest(), "products"),
    (SHOP, "produkty od najdroższego", costliest(), "products"),
    (SHOP, "Produkte absteigend nach Preis sortiert", costliest(), "products"),
    (SHOP, "najtańsze produkty", cheapest(), "products"),
    (SHOP, "produkty posortowane od najtańszego", cheapest(), "products"),
    (SHOP, "products sorted by price", cheapest(), "products"),
    (SHOP, "die günstigsten Produkte", cheapest(), "products"),
    (SHOP, "the cheapest product", cheapest(1), "products"),
    (SHOP, "najtańszy produkt", cheapest(1), "products"),
    (SHOP, "das günstigste Angebot", cheapest(1), "products"),
    (SHOP, "pierwsze 10 produktów posortowane po cenie", cheapest(10), "products"),
    (SHOP, "die ersten 3 Produkte nach Preis absteigend", costliest(3), "products"),
    (
        SHOP,
        "best rated products",
        [(GEN, {}), (ORDER, {"by": "rating", "order": "desc"})],
        "products",
    ),
    (HN, "the 5 stories with the most points", [(HNX, {}), (ORDER, by_points(5))], "articles"),
    (HN, "3 artykuły z największą liczbą punktów", [(HNX, {}), (ORDER, by_points(3))], "articles"),
    (HN, "die 5 Beiträge mit den meisten Punkten", [(HNX, {}), (ORDER, by_points(5))], "articles"),
    (HN, "top 10 stories by points", [(HNX, {}), (ORDER, by_points(10))], "articles"),
    (HN, "the 5 most upvoted posts", [(HNX, {}), (ORDER, by_points(5))], "articles"),
    (
        HN,
        "stories sorted by comments",
        [(HNX, {}), (ORDER, {"by": "comments", "order": "desc", "key": "articles"})],
        "articles",
    ),
    (
        HN,
        "the story with the most comments",
        [(HNX, {}), (ORDER, {"by": "comments", "order": "desc", "limit": 1})],
        "articles",
    ),
    (
        HN,
        "stories with more than 100 points, most commented first",
        [(HNX, {"min_points": 101}), (ORDER, {"by": "comments", "order": "desc"})],
        "articles",
    ),
    (
        HN,
        "najnowsze artykuły",
        [(HNX, {}), (ORDER, {"by": "date", "order": "desc"})],
        "articles",
    ),
    (
        HN,
        "die neuesten Beiträge",
        [(HNX, {}), (ORDER, {"by": "date", "order": "desc"})],
        "articles",
    ),
    (REDDIT_URL, "the 5 most upvoted posts", [(REDDIT, {}), (ORDER, by_points(5))], "articles"),
    (REDDIT_URL, "die 3 Beiträge mit den meisten Stimmen", [(REDDIT, {}), (ORDER, by_points(3))], "articles"),
    (
        REDDIT_URL,
        "posty z największą liczbą komentarzy",
        [(REDDIT, {}), (ORDER, {"by": "comments", "order": "desc"})],
        "articles",
    ),
    # --- fields: exactly those, named as the extraction names them (EN/PL/DE) -------------------------
    (SHOP, "only names and prices", [(GEN, {}), (SELECT, {"fields": ["name", "price"]})], "products"),
    (SHOP, "tylko nazwy i ceny", [(GEN, {}), (SELECT, {"fields": ["name", "price"]})], "products"),
    (SHOP, "nur Name und Preis", [(GEN, {}), (SELECT, {"fields": ["name", "price"]})], "products"),
    (
        SHOP,
        "name, price and url of the products",
        [(GEN, {}), (SELECT, {"fields": ["name", "price", "url"]})],
        "products",
    ),
    (
        SHOP,
        "pobierz nazwy i ceny produktów",
        [(GEN, {}), (SELECT, {"fields": ["name", "price"]})],
        "products",
    ),
    (
        SHOP,
        "zeige Name und Preis der Produkte",
        [(GEN, {}), (SELECT, {"fields": ["name", "price"]})],
        "products",
    ),
    (
        SHOP,
        "the 3 cheapest products, only names and prices",
        [*cheapest(3), (SELECT, {"fields": ["name", "price"]})],
        "products",
    ),
    (HN, "only titles and points", [(HNX, {}), (SELECT, {"fields": ["title", "points"]})], "articles"),
    (
        HN,
        "names and urls of the top 5 stories",
        [(HNX, {"limit": 5}), (SELECT, {"fields": ["title", "url"]})],
        "articles",
    ),
    (
        REDDIT_URL,
        "tylko tytuły i punkty",
        [(REDDIT, {}), (SELECT, {"fields": ["title", "score"]})],
        "articles",
    ),
    (
        REDDIT_URL,
        "nur Titel und Punkte",
        [(REDDIT, {}), (SELECT, {"fields": ["title", "score"]})],
        "articles",
    ),
    # --- counts for every extraction ------------------------------------------------------------------
    (SHOP, "the first 10 links", [(LINKS, {"limit": 10, "pattern": ""})], "links"),
    (SHOP, "die ersten 3 Tabellen", [(TABLES, {"limit": 3})], "tables"),
    (
        SHOP,
        "pierwsze 5 linków do githuba",
        [(LINKS, {"limit": 5, "pattern": site_pattern("githuba")})],
        "links",
    ),
    # --- link targets named by site ---------------------------------------------------------------------
    (HN, "links to github", [(LINKS, {"pattern": site_pattern("github")})], "links"),
    (HN, "github links", [(LINKS, {"pattern": site_pattern("github")})], "links"),
    (HN, "Links zu GitHub", [(LINKS, {"pattern": site_pattern("github")})], "links"),
    (HN, "linki do githuba", [(LINKS, {"pattern": site_pattern("githuba")})], "links"),
    (SHOP, "links to wikipedia", [(LINKS, {"pattern": site_pattern("wikipedia")})], "links"),
    (SHOP, "linki do wikipedii", [(LINKS, {"pattern": site_pattern("wikipedii")})], "links"),
    (SHOP, "Links zur Wikipedia", [(LINKS, {"pattern": site_pattern("wikipedia")})], "links"),
    (SHOP, "links to en.wikipedia.org", [(LINKS, {"pattern": site_pattern("en.wikipedia.org")})], "links"),
    (SHOP, "links to hacker news", [(LINKS, {"pattern": site_pattern("news.ycombinator.com")})], "links"),
    (SHOP, "links to images", [(LINKS, {"pattern": r"\.(jpe?g|png|gif|webp|svg)($|\?)"})], "links"),
    (SHOP, "internal links", [(LINKS, {"pattern": "", "same_domain": True})], "links"),
    (SHOP, "linki wewnętrzne", [(LINKS, {"pattern": "", "same_domain": True})], "links"),
    (SHOP, "interne Links", [(LINKS, {"pattern": "", "same_domain": True})], "links"),
    (SHOP, "external links", [(LINKS, {"pattern": "", "external": True})], "links"),
    (SHOP, "linki zewnętrzne", [(LINKS, {"pattern": "", "external": True})], "links"),
    (SHOP, "externe Links", [(LINKS, {"pattern": "", "external": True})], "links"),
    (SHOP, "download all PDFs", [(LINKS, {"pattern": PDF})], "links"),
    # --- no kind named: the kind whose items have the fields asked for --------------------------------
    (LOCAL, "only the titles", [(ARTICLES, {}), (SELECT, {"fields": ["title"]})], "articles"),
    (LOCAL, "tylko nazwy i ceny", [(GEN, {}), (SELECT, {"fields": ["name", "price"]})], "products"),
    (LOCAL, "nur Titel und Punkte", [(ARTICLES, {}), (SELECT, {"fields": ["title", "points"]})], "articles"),
    (
        LOCAL,
        "the 3 most popular stories",
        [(ARTICLES, {}), (ORDER, {"by": "popularity", "limit": 3})],
        "articles",
    ),
    # --- parts no tool does: planned without them, named in the plan's warnings (EN/PL/DE) ------------
    (SHOP, "log in and buy the cheapest", cheapest(1), "products"),
    (SHOP, "zaloguj się i kup najtańszy produkt", cheapest(1), "products"),
    (SHOP, "melde dich an und kaufe das günstigste Produkt", cheapest(1), "products"),
    # --- held-out kinds (session 11): bare results, counts before the goods, more superlatives -------
    (LOCAL, "top 5 results", [(ARTICLES, {"limit": 5})], "articles"),
    (LOCAL, "pierwsze 4 wyniki", [(ARTICLES, {"limit": 4})], "articles"),
    (LOCAL, "die ersten 6 Treffer", [(ARTICLES, {"limit": 6})], "articles"),
    (SHOP, "results under 100 zł", price(hi=100), "products"),
    (LOCAL, "two graphics cards please", [(GEN, {"limit": 2})], "products"),
    (LOCAL, "3 gitary", [(GEN, {"limit": 3})], "products"),
    (LOCAL, "die 5 Grafikkarten", [(GEN, {"limit": 5})], "products"),
    (
        LOCAL,
        "the 3 most commented stories",
        [(ARTICLES, {}), (ORDER, {"by": "comments", "order": "desc", "limit": 3})],
        "articles",
    ),
    (
        LOCAL,
        "najbardziej komentowane 5 wpisów",
        [(ARTICLES, {}), (ORDER, {"by": "comments", "order": "desc", "limit": 5})],
        "articles",
    ),
    (
        LOCAL,
        "die 3 meistkommentierten Beiträge",
        [(ARTICLES, {}), (ORDER, {"by": "comments", "order": "desc", "limit": 3})],
        "articles",
    ),
    (LOCAL, "upvote the top story", [(ARTICLES, {"limit": 1})], "articles"),
    (LOCAL, "same tytuły postów", [(ARTICLES, {}), (SELECT, {"fields": ["title"]})], "articles"),
    (
        LOCAL,
        "titles and the number of points of the stories",
        [(ARTICLES, {}), (SELECT, {"fields": ["title", "points"]})],
        "articles",
    ),
    (
        LOCAL,
        "tytuły i liczba punktów dla 5 pierwszych",
        [(ARTICLES, {}), (SELECT, {"fields": ["title", "points"]})],
        "articles",
    ),
    (
        LOCAL,
        "Titel und Anzahl der Punkte der Beiträge",
        [(ARTICLES, {}), (SELECT, {"fields": ["title", "points"]})],
        "articles",
    ),
    (SHOP, "links to pictures", [(LINKS, {"pattern": r"\.(jpe?g|png|gif|webp|svg)($|\?)"})], "links"),
    (SHOP, "linki do zdjęć", [(LINKS, {"pattern": r"\.(jpe?g|png|gif|webp|svg)($|\?)"})], "links"),
    (SHOP, "Links zu Bildern", [(LINKS, {"pattern": r"\.(jpe?g|png|gif|webp|svg)($|\?)"})], "links"),
    (LOCAL, "the revenue table, first 10 rows", [(TABLES, {"match": "revenue", "max_rows": 10})], "tables"),
    (
        LOCAL,
        "pierwsze 5 wierszy tabeli akcjonariuszy",
        [(TABLES, {"match": "akcjonariuszy", "max_rows": 5})],
        "tables",
    ),
    (
        LOCAL,
        "die ersten 3 Zeilen der Umsatztabelle",
        [(TABLES, {"match": "Umsatz", "max_rows": 3})],
        "tables",
    ),
    (LOCAL, "titles with links", [(ARTICLES, {}), (SELECT, {"fields": ["title", "url"]})], "articles"),
    (LOCAL, "tytuły z linkami", [(ARTICLES, {}), (SELECT, {"fields": ["title", "url"]})], "articles"),
    (LOCAL, "Titel mit Link", [(ARTICLES, {}), (SELECT, {"fields": ["title", "url"]})], "articles"),
    (LOCAL, "prices from highest to lowest", costliest(), "products"),
    (LOCAL, "ceny od najwyższej do najniższej", costliest(), "products"),
    (LOCAL, "Preise von hoch nach niedrig", costliest(), "products"),
    (LOCAL, "the table with the most rows", [(TABLES, {"largest": True})], "tables"),
    (LOCAL, "tabela z największą liczbą wierszy", [(TABLES, {"largest": True})], "tables"),
    (LOCAL, "die Tabelle mit den meisten Zeilen", [(TABLES, {"largest": True})], "tables"),
    (LOCAL, "the 2nd table", [(TABLES, {"nth": 2})], "tables"),
    (LOCAL, "the smallest table", [(TABLES, {"smallest": True})], "tables"),
    (LOCAL, "najmniejsza tabela", [(TABLES, {"smallest": True})], "tables"),
    (LOCAL, "die kleinste Tabelle", [(TABLES, {"smallest": True})], "tables"),
    (
        SHOP,
        "links to facebook or twitter",
        [(LINKS, {"pattern": f"(?:{site_pattern('facebook')})|(?:{site_pattern('twitter')})"})],
        "links",
    ),
    (
        SHOP,
        "linki do githuba i gitlaba",
        [(LINKS, {"pattern": f"(?:{site_pattern('githuba')})|(?:{site_pattern('gitlaba')})"})],
        "links",
    ),
    (SHOP, "Links zu Wikipedia-Artikeln", [(LINKS, {"pattern": site_pattern("wikipedia")})], "links"),
    (LOCAL, "most expensive movie", costliest(1), "products"),
    (LOCAL, "najdroższa karma", costliest(1), "products"),
    (
        LOCAL,
        "der Beitrag mit den meisten Punkten",
        [(ARTICLES, {}), (ORDER, {"by": "points", "order": "desc", "limit": 1})],
        "articles",
    ),
    (LOCAL, "cheapest cameras", cheapest(), "products"),
    (
        LOCAL,
        "tylko linki i tytuły artykułów",
        [(ARTICLES, {}), (SELECT, {"fields": ["url", "title"]})],
        "articles",
    ),
    (
        LOCAL,
        "only links and titles of the stories",
        [(ARTICLES, {}), (SELECT, {"fields": ["url", "title"]})],
        "articles",
    ),
    (
        LOCAL,
        "nur Links und Titel der Beiträge",
        [(ARTICLES, {}), (SELECT, {"fields": ["url", "title"]})],
        "articles",
    ),
    (
        LOCAL,
        "tytuł i wynik każdego posta",
        [(ARTICLES, {}), (SELECT, {"fields": ["title", "points"]})],
        "articles",
    ),
    (LOCAL, "pierwsze dwie tabele", [(TABLES, {"limit": 2})], "tables"),
    (LOCAL, "the first two tables", [(TABLES, {"limit": 2})], "tables"),
    (LOCAL, "die ersten zwei Tabellen", [(TABLES, {"limit": 2})], "tables"),
    (LOCAL, "links pointing outside", [(LINKS, {"pattern": "", "external": True})], "links"),
    (LOCAL, "linki prowadzące na zewnątrz", [(LINKS, {"pattern": "", "external": True})], "links"),
    (LOCAL, "Links nach außen", [(LINKS, {"pattern": "", "external": True})], "links"),
    (LOCAL, "what did the search return? list the hits", [(ARTICLES, {})], "articles"),
    (LOCAL, "external links", [(LINKS, {"pattern": "", "external": True})], "links"),
    ("file:///tmp/page.html", "linki zewnętrzne", [(LINKS, {"pattern": "", "external": True})], "links"),
    # --- no URL: the site the instruction names ----------------------------------------------------
    (None, "top 5 stories on HN", [(HNX, {"limit": 5})], "articles"),
    (None, "produkty na ceneo poniżej 100 zł", price(hi=100, extractor=CENEO), "products"),
    # --- a local test page (no real host): generic tools first, site tools when nothing else fits ---
    (
        "file:///tmp/hn.html",
        "top 10 stories with more than 100 points",
        [(ARTICLES, {"limit": 10, "min_points": 101})],
        "articles",
    ),
    ("http://127.0.0.1:8000/test/en-shop.html", "products under 40", price(hi=40), "products"),
]


def _check_case(registry, url, instruction, expected, output):
    missing = sorted({tool for tool, _ in expected} - set(registry.tools))
    if missing:
        pytest.skip(f"tools not installed yet: {', '.join(missing)}")
    planned = plan_with_rules(instruction, url, registry)
    got = [s.tool for s in planned.plan.steps]
    assert got == [tool for tool, _ in expected], f"{instruction!r}: {got}\n" + "\n".join(planned.reasoning)
    for step, (tool, params) in zip(planned.plan.steps, expected, strict=True):
        for name, value in params.items():
            assert step.parameters.get(name) == value, f"{instruction!r}: {tool}.{name} = {step.parameters}"
    assert planned.plan.expected_output == output
    assert len(planned.reasoning) == len(planned.plan.steps)
    assert all(
        line.startswith(step.tool + ": ")
        for line, step in zip(planned.reasoning, planned.plan.steps, strict=True)
    )
    return planned


@pytest.mark.parametrize(("url", "instruction", "expected", "output"), CASES, ids=[c[1][:60] for c in CASES])
def test_rule_plans(registry, url, instruction, expected, output):
    planned = _check_case(registry, url, instruction, expected, output)
    if (
        instruction in ("the 2nd table", "the table with the most rows", "die kleinste Tabelle")
        or "dwie" in instruction
    ):
        assert "match" not in planned.plan.steps[0].parameters  # no words name the table
    if "links" in instruction.lower() or "linki" in instruction:
        assert planned.plan.warnings == [], planned.plan.warnings  # every site named is a known one


def test_the_table_is_big_and_multilingual():
    assert len(CASES) >= 60
    text = " ".join(c[1] for c in CASES)
    for word in ("poniżej", "produkty", "unter", "Seiten", "under", "pages"):
        assert word in text


def test_price_forms_are_optional_and_guarded(registry):
    planned = plan_with_rules("find products under 150zł", SHOP, registry)
    form, guard = planned.plan.steps[0], planned.plan.steps[-1]
    assert form.tool == PF and form.optional
    assert guard.tool == PRC and not guard.optional
    assert "optional" in planned.reasoning[0] and "ignores" in planned.reasoning[-1]


def test_site_tool_falls_back_to_the_generic_one(registry):
    planned = plan_with_rules("find products", "https://www.ceneo.pl/szukaj-canon", registry)
    assert planned.plan.steps[0].tool == CENEO
    assert planned.plan.steps[0].fallback == GEN
    for url, tool in ((HN, HNX), ("https://old.reddit.com/r/x/", REDDIT)):
        planned = plan_with_rules("top 10 posts", url, registry)
        assert (planned.plan.steps[0].tool, planned.plan.steps[0].fallback) == (tool, ARTICLES)


def test_every_parameter_is_declared_and_valid(registry):
    from curllm_core.plan import parameter_problems

    for url, instruction, expected, _ in CASES:
        if {t for t, _ in expected} - set(registry.tools):
            continue
        for step in plan_with_rules(instruction, url, registry).plan.steps:
            m = registry.resolve(step.tool)
            assert set(step.parameters) <= set(m.parameters.get("properties") or {}), (instruction, step)
            assert not parameter_problems(m, step.parameters, []), (instruction, step)


def test_deterministic(registry):
    for url, instruction, _, _ in CASES[::5]:
        try:
            a = plan_with_rules(instruction, url, registry)
        except PlanningError:
            continue
        b = plan_with_rules(instruction, url, registry)
        assert a.plan.to_dict() == b.plan.to_dict() and a.reasoning == b.reasoning


async def test_plan_task_without_a_model_is_the_rule_plan(registry):
    planned = await plan_task("find products under 150zł", SHOP, registry)
    assert isinstance(planned, Planned)
    assert planned.source == "rules" and planned.usage is None
    assert planned.plan.planner == "rules"


def test_data_only_plan_needs_no_extraction(registry):
    planned = plan_with_rules("keep products under 100 zł", None, registry, initial_keys={"products"})
    assert [s.tool for s in planned.plan.steps] == [PRC]
    assert planned.plan.expected_output == "products" and not planned.plan.needs_page


def test_no_extractor_for_the_kind_is_a_planning_error(tmp_path):
    from curllm_core.registry import Registry

    _manifest(tmp_path, "products_only", sites=[], produces=["products"])
    registry = Registry()
    registry.register(tmp_path)
    with pytest.raises(PlanningError, match="no installed extraction tool gives tables"):
        plan_with_rules("extract the tables", SHOP, registry)


# --- plugins take part through their manifests ------------------------------------------------------


def _manifest(
    directory: Path,
    name: str,
    *,
    category: str = "extraction",
    sites: list[str],
    produces: list[str],
    params: dict | None = None,
    examples: list | None = None,
    triggers: list[str] | None = None,
) -> None:
    doc = {
        "name": name,
        "version": "1.0.0",
        "description": f"Test tool {name}.",
        "category": category,
        "parameters": {
            "type": "object",
            "properties": params or {"limit": {"type": "integer", "minimum": 1}},
            "additionalProperties": False,
        },
        "output_schema": {"type": "object"},
        "entrypoint": "json:loads",
        "dependencies": ["page"],
        "produces": produces,
        "sites": sites,
        "triggers": triggers or [],
        "examples": examples or [],
    }
    (directory / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")


@pytest.fixture
def plugin_registry(tmp_path, monkeypatch):
    """The installed tools plus a plugin directory on CURLLM_TOOLS_PATH."""
    tools = tmp_path / "tools"
    tools.mkdir()
    _manifest(
        tools,
        "products_allegro",
        sites=["allegro.pl"],
        produces=["products"],
        examples=[{"instruction": "pierwsze 10 ofert na allegro", "parameters": {"limit": 10}}],
    )
    _manifest(
        tools,
        "articles_lobsters",
        sites=["lobste.rs"],
        produces=["articles"],
        params={"threshold": {"type": "integer", "minimum": 0}, "limit": {"type": "integer", "maximum": 5}},
        examples=[{"instruction": "stories with more than 50 points", "parameters": {"threshold": 51}}],
    )
    _manifest(tools, "jobs_board", sites=[], produces=["jobs"], triggers=[r"\bjobs?\b|\boferty pracy\b"])
    monkeypatch.setenv("CURLLM_LOAD_PLUGINS", "")
    monkeypatch.setenv("CURLLM_TOOLS_PATH", str(tools))
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(fresh_cache(tmp_path / "cache")))
    from curllm_core.plugins import load_registry

    registry = load_registry()
    assert "extraction.products_allegro" in registry.tools, registry.problems
    return registry


def test_plugin_extractor_is_chosen_for_its_site(plugin_registry):
    planned = plan_with_rules(
        "find products under 100 zł", "https://allegro.pl/listing?string=kubek", plugin_registry
    )

    def tools(plan) -> list[str]:  # steps' tools and the extractions pagers run
        return [t for s in plan.steps for t in (s.tool, s.parameters.get("extract")) if t]

    assert "extraction.products_allegro" in tools(planned.plan)
    assert "allegro.pl" in "\n".join(planned.reasoning)
    # ... and not anywhere else
    other = plan_with_rules("find products under 100 zł", SHOP, plugin_registry)
    assert "extraction.products_allegro" not in tools(other.plan)


def test_plugin_site_is_named_without_a_url(plugin_registry):
    start = Runner(plugin_registry).start_url(TaskSpec(instruction="znajdź kubki na allegro"))
    assert start == "https://www.allegro.pl/"
    planned = plan_with_rules("znajdź kubki na allegro", None, plugin_registry)
    assert planned.plan.steps[0].tool == "extraction.products_allegro"


def test_plugin_parameter_names_are_learned_from_examples(plugin_registry):
    planned = plan_with_rules(
        "top 10 stories with more than 100 points", "https://lobste.rs/", plugin_registry
    )
    step = planned.plan.steps[0]
    assert step.tool == "extraction.articles_lobsters"
    assert step.parameters["threshold"] == 101
    assert "limit" not in step.parameters  # 10 does not validate (maximum 5): dropped, never sent


def test_plugin_output_kind_by_its_own_name(plugin_registry):
    planned = plan_with_rules("list the jobs on this page", "https://jobs.example/", plugin_registry)
    assert [s.tool for s in planned.plan.steps] == ["extraction.jobs_board"]
    assert planned.plan.expected_output == "jobs"


async def test_a_repeated_task_is_not_planned_again(registry, tmp_path, monkeypatch):
    import curllm_core.planner as planner

    monkeypatch.setenv("CURLLM_CACHE_DIR", str(fresh_cache(tmp_path / "cache")))
    calls = []
    real = planner.plan_with_rules
    monkeypatch.setattr(planner, "plan_with_rules", lambda *a, **k: calls.append(a) or real(*a, **k))
    first = await plan_task("find products under 150zł", SHOP + "kategoria/1", registry)
    second = await plan_task("Find products under 150zł.", SHOP + "kategoria/2", registry)
    assert len(calls) == 1 and first.source == "rules" and second.source == "cache"
    assert second.plan.to_dict()["plan"] == first.plan.to_dict()["plan"]
    assert second.plan.url == SHOP + "kategoria/2" and second.usage is None  # this task's URL; no model asked
    await plan_task("find products under 150zł", SHOP + "kategoria/1", registry, use_cache=False)
    await plan_task("find products under 150zł", SHOP + "kategoria/1", registry, refresh=True)
    assert len(calls) == 3


# --- the kinds of request, each in all three languages ---------------------------------------------

KINDS = {
    "ordering": (
        ("the 5 stories with the most points", "5 cheapest products", "products sorted by price"),
        ("3 artykuły z największą liczbą punktów", "produkty od najdroższego", "najtańsze produkty"),
        ("die 5 Beiträge mit den meisten Punkten", "Produkte absteigend nach Preis sortiert"),
    ),
    "fields": (
        ("only names and prices", "name, price and url of the products"),
        ("tylko nazwy i ceny", "pobierz nazwy i ceny produktów"),
        ("nur Name und Preis", "zeige Name und Preis der Produkte"),
    ),
    "counts": (
        ("the first 10 links", "top 10 products under 300 zł"),
        ("pierwsze 5 linków do githuba", "10 najtańszych produktów"),
        ("die ersten 3 Tabellen", "die ersten 5 Ergebnisse unter 20 €"),
    ),
    "link targets": (
        ("links to github", "github links", "links to wikipedia", "links to PDF files"),
        ("linki do githuba", "linki do wikipedii", "linki do plików PDF"),
        ("Links zu GitHub", "Links zur Wikipedia", "Links zu PDF-Dateien"),
    ),
    "refusal": (
        ("log in and buy the cheapest", "upvote the top story"),
        ("zaloguj się i kup najtańszy produkt",),
        ("melde dich an und kaufe das günstigste Produkt",),
    ),
    "search results": (("top 5 results",), ("pierwsze 4 wyniki",), ("die ersten 6 Treffer",)),
    "table rows": (
        ("the revenue table, first 10 rows",),
        ("pierwsze 5 wierszy tabeli akcjonariuszy",),
        ("die ersten 3 Zeilen der Umsatztabelle",),
    ),
}


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_is_in_the_table_in_three_languages(kind):
    planned = {c[1] for c in CASES}
    for lang, instructions in zip(("en", "pl", "de"), KINDS[kind], strict=True):
        assert instructions, (kind, lang)
        missing = [i for i in instructions if i not in planned]
        assert not missing, f"{kind} ({lang}) has no case in CASES: {missing}"


# --- honest refusal ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instruction", "named"),
    [
        ("log in and buy the cheapest", ["log in", "buy"]),
        ("zaloguj się i kup najtańszy produkt", ["log in", "buy"]),
        ("melde dich an und kaufe das günstigste Produkt", ["log in", "buy"]),
        ("find products under 100 zł and send them to my boss", ["send"]),
        ("wyślij mi produkty poniżej 100 zł", ["send"]),
        ("book a table and list the links", ["book"]),
        ("email me the 3 cheapest products", ["send"]),
        ("zamów dwa najtańsze aparaty i zapłać kartą", ["buy", "pay"]),
        ("upvote the top story", ["subscribe"]),
        # an action whose words start the instruction, where a field's list may start too ("votes")
        ("vote for the first story", ["subscribe"]),
        ("rate the cheapest product", ["rate"]),
        ("zagłosuj na pierwszy artykuł", ["subscribe"]),
        ("stimme für den ersten Beitrag", ["subscribe"]),
        ("napisz komentarz pod pierwszym artykułem", ["post"]),
        ("schreibe einen Kommentar zum ersten Beitrag", ["post"]),
        ("compare these products with amazon and call me", ["compare", "call"]),
        ("porównaj ceny produktów i powiadom mnie", ["compare", "notify"]),
        ("teile die günstigsten Produkte", ["share"]),
        ("add the cheapest cat food to my cart", ["buy"]),
        ("dodaj najtańszy aparat do koszyka", ["buy"]),
        ("lege das günstigste Katzenfutter in den Warenkorb", ["buy"]),
    ],
)
def test_what_no_tool_does_is_named_in_the_plan(registry, instruction, named):
    planned = plan_with_rules(instruction, SHOP, registry)
    # The action is one warning; words the plan does not use ("my boss") may be another.
    assert len([w for w in planned.plan.warnings if w.startswith("not done: ")]) == 1, planned.plan.warnings
    warning = planned.plan.warnings[0]
    assert warning.startswith("not done: ") and all(f"{n} (" in warning for n in named), warning
    assert planned.plan.to_dict()["warnings"] == planned.plan.warnings


def test_a_plan_without_such_parts_has_no_warnings(registry):
    planned = plan_with_rules("the 5 cheapest products", SHOP, registry)
    assert planned.plan.warnings == [] and "warnings" not in planned.plan.to_dict()
    assert plan_with_rules("don't buy anything, list the products", SHOP, registry).plan.warnings == []


@pytest.mark.parametrize(
    ("instruction", "message"),
    [
        ("what is the weather tomorrow", "weather ('weather')"),
        ("jaka będzie jutro pogoda", "weather ('pogoda')"),
        ("wie wird das Wetter morgen", "weather ('Wetter')"),
        ("log in and pay", "log in ('log in'), pay ('pay')"),
        ("zaloguj się", "log in"),
        ("einloggen und bezahlen", "log in ('einloggen'), pay ('bezahlen')"),
        ("tell me a joke", "names nothing to get"),
        ("opowiedz dowcip", "names nothing to get"),
        ("erzähl mir einen Witz", "names nothing to get"),
        ("links to other pages", "name no target"),
        ("linki do innych stron", "name no target"),
        ("Links zu anderen Seiten", "name no target"),
        ("delete my account", "delete ('delete')"),
        ("usuń moje konto", "delete ('usuń')"),
        ("lösche mein Konto", "delete ('lösche')"),
        ("call me tomorrow", "call ('call me')"),
        ("zadzwoń do sklepu", "call ('zadzwoń')"),
        ("ruf den Verkäufer an", "call ('ruf den Verkäufer an')"),
        ("change my password", "edit"),
        ("anuluj zamówienie", "cancel"),
        ("lade das Foto hoch", "upload"),
        ("hello there", "names nothing to get"),
        ("dzień dobry", "names nothing to get"),
        ("guten Morgen", "names nothing to get"),
    ],
)
def test_nothing_doable_is_a_planning_error(registry, instruction, message):
    with pytest.raises(PlanningError) as e:
        plan_with_rules(instruction, SHOP, registry)
    assert message in e.value.message and e.value.exit_code == 3 and e.value.code == "PLANNING_FAILED"


@pytest.mark.parametrize(
    ("instruction", "name"),
    [("links to blorfity", "blorfity"), ("linki do kwiatków", "kwiatków"), ("Links zu Bananen", "bananen")],
)
def test_a_link_target_no_one_knows_as_a_site_is_said(registry, instruction, name):
    """A bare word that is no known site is still matched as a site's name (it may be one), but the
    plan says so: never a silent answer for "links to bananas"."""
    planned = plan_with_rules(instruction, SHOP, registry)
    assert planned.plan.steps[0].parameters["pattern"] == site_pattern(name)
    [warning] = planned.plan.warnings
    assert f"{name!r} is no site curllm knows" in warning, warning


@pytest.mark.parametrize(
    "instruction", ["links to github", "linki do youtube", "Links auf YouTube", "linki do wikipedii"]
)
def test_a_well_known_site_as_link_target_needs_no_warning(registry, instruction):
    planned = plan_with_rules(instruction, SHOP, registry)
    assert planned.plan.steps[0].tool == LINKS and planned.plan.warnings == []


def test_a_plugin_that_does_an_action_takes_it(tmp_path, monkeypatch):
    tools = tmp_path / "tools"
    tools.mkdir()
    _manifest(
        tools,
        "log_in",
        category="forms",
        sites=[],
        produces=[],
        params={"user": {"type": "string"}},
        triggers=[r"\blog\s?in\b|\bzaloguj"],
    )
    monkeypatch.setenv("CURLLM_LOAD_PLUGINS", "")
    monkeypatch.setenv("CURLLM_TOOLS_PATH", str(tools))
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(fresh_cache(tmp_path / "cache")))
    from curllm_core.plugins import load_registry

    planned = plan_with_rules("log in and buy the cheapest", SHOP, load_registry())
    assert planned.plan.warnings == [
        "not done: buy ('buy') (no installed tool does that); the plan only gets the products"
    ]


# --- untrusted text is read in bounded time -----------------------------------------------------------


@pytest.mark.parametrize(
    "shape",
    ["a", "1 ", "111 ", " ", "1 pages ", "20.07.2024 ", "x > y > ", "links to a", "only names and ", "'a' "],
)
def test_a_long_instruction_plans_in_bounded_time(registry, shape):
    """10,000 characters of shapes that made passes quadratic (a 30,000-letter word took minutes).
    Measured in this process's CPU time, which a busy machine does not stretch: four times the
    text costs about four times as much (a quadratic pass costs sixteen), and never seconds."""
    import time

    from curllm_core.planner.rules import MAX_INSTRUCTION_CHARS

    def cpu_seconds(length: int) -> float:
        text = (shape * (length // len(shape) + 1))[:length]
        started = time.process_time()
        try:
            plan_with_rules(text, SHOP, registry)
        except PlanningError:
            pass  # nothing asked: fine, as long as it says so quickly
        return time.process_time() - started

    cpu_seconds(100)  # what is built once (vocabularies, compiled patterns) is not the text's cost
    # The lesser of two runs each: a garbage collection inside one run is not the text's cost either.
    short = min(cpu_seconds(MAX_INSTRUCTION_CHARS // 4) for _ in range(2))
    long = min(cpu_seconds(MAX_INSTRUCTION_CHARS) for _ in range(2))
    assert long < 5  # well under a second on a quiet machine
    assert long < 0.2 or long < 8 * short, (short, long)


@pytest.mark.parametrize("length", [10_001, 30_000, 100_000])
def test_an_instruction_too_long_is_bad_input(registry, length):
    import time

    started = time.process_time()
    with pytest.raises(UsageError) as e:
        plan_with_rules("a" * length, SHOP, registry)
    assert time.process_time() - started < 1  # refused before any pass reads it
    assert e.value.exit_code == 2 and f"{length:,} characters" in e.value.message
    with pytest.raises(UsageError):
        plan_with_rules("find products " + "x" * length, None, registry)  # without a URL too


# --- a plugin's tool is planned for its own examples, as a built-in one is --------------------------


def test_the_tutorial_sort_items_is_planned_for_its_own_example(tmp_path, monkeypatch):
    """docs/writing-tools-and-plugins.md builds `validation.sort_items` (a code-first @tool); with it
    installed, its example plans it, although the built-in validation.order_items sorts too."""
    pytest.importorskip("pydantic")
    module = tmp_path / "tutorial_sort.py"
    module.write_text(
        '''from typing import Literal

from curllm_core import ToolContext, tool


@tool(
    category="validation",
    version="0.1.0",
    consumes=["products"],
    produces=["products"],
    dependencies=[],
    timeout_ms=5000,
    triggers=[r"\\b(sort(ed)?|order(ed)?) by\\b", r"\\bposortuj\\b"],
    examples=[{"instruction": "products sorted by price, cheapest first", "parameters": {"by": "price"}}],
)
async def sort_items(
    ctx: ToolContext, by: str, order: Literal["asc", "desc"] = "asc", key: str = "products"
) -> dict:
    """Sort an item list by one field; items without that field go last.

    Args:
        by: The item field to sort by, e.g. price.
        order: asc (smallest first) or desc.
        key: Data key of the item list.
    """
    return {key: ctx.data[key]}
''',
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CURLLM_LOAD_PLUGINS", "")
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(fresh_cache(tmp_path / "cache")))
    from curllm_core.plugins import load_registry

    registry = load_registry()
    from tutorial_sort import sort_items

    registry.register(sort_items, source="curllm-headings")
    for instruction, order in (
        ("products sorted by price, cheapest first", "asc"),
        ("products sorted by price", "asc"),
        ("posortuj produkty po cenie malejąco", "desc"),
    ):
        planned = plan_with_rules(instruction, SHOP, registry)
        steps = {s.tool: s for s in planned.plan.steps}
        assert "validation.sort_items" in steps, (instruction, planned.reasoning)
        assert "validation.order_items" not in steps
        assert steps["validation.sort_items"].parameters == {"by": "price", "order": order, "key": "products"}


def test_a_plugin_check_is_planned_for_its_own_example(tmp_path, monkeypatch):
    """A validation tool the facts cannot fill joins as its example, when the instruction says it."""
    tools = tmp_path / "tools"
    tools.mkdir()
    _manifest(
        tools,
        "in_stock",
        category="validation",
        sites=[],
        produces=["products"],
        params={
            "field": {"type": "string"},
            "key": {"type": "string", "default": "products"},
        },
        examples=[
            {"instruction": "only products in stock", "parameters": {"field": "availability"}},
            {"instruction": "tylko produkty dostępne od ręki", "parameters": {"field": "availability"}},
        ],
    )
    monkeypatch.setenv("CURLLM_LOAD_PLUGINS", "")
    monkeypatch.setenv("CURLLM_TOOLS_PATH", str(tools))
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(fresh_cache(tmp_path / "cache")))
    from curllm_core.plugins import load_registry

    registry = load_registry()
    for instruction in ("only products in stock under 100 zł", "tylko produkty dostępne od ręki"):
        steps = plan_with_rules(instruction, SHOP, registry).plan.steps
        step = next(s for s in steps if s.tool == "validation.in_stock")
        assert step.parameters["field"] == "availability", instruction
    steps = plan_with_rules("products under 100 zł", SHOP, registry).plan.steps
    assert "validation.in_stock" not in {s.tool for s in steps}
