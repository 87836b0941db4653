"""Listings carried as data (tools/extraction/_embedded.py): found by shape in any JSON a page
carries, priced by the DOM extractor's rules, bounded on hostile input."""

from __future__ import annotations

import json

import pytest

from curllm_core.tools.extraction import _embedded as emb
from curllm_core.tools.extraction import products_generic

BASE = "https://shop.example/c/kettles"


def names_prices(records):
    return [
        (
            r["name"],
            r["price"].amount if r["price"] else None,
            r["price"].currency if r["price"] else None,
            r["url"],
        )
        for r in records
    ]


@pytest.mark.parametrize(
    "doc, want",
    [
        # prices as amount objects, links as paths (a Next.js page's props)
        (
            {
                "props": {
                    "pageProps": {
                        "data": {
                            "hits": [
                                {
                                    "title": "Czajnik A",
                                    "href": "/p/a",
                                    "price": {"amount": 129, "currencyCode": "PLN"},
                                },
                                {
                                    "title": "Czajnik B",
                                    "href": "/p/b",
                                    "price": {"amount": 99.5, "currencyCode": "PLN"},
                                },
                            ]
                        }
                    }
                }
            },
            [
                ("Czajnik A", 129.0, "PLN", "https://shop.example/p/a"),
                ("Czajnik B", 99.5, "PLN", "https://shop.example/p/b"),
            ],
        ),
        # prices as text, German format; a menu of links beside them is no listing
        (
            {
                "nav": [
                    {"title": "Start", "url": "/"},
                    {"title": "Hilfe", "url": "/hilfe"},
                    {"title": "Blog", "url": "/blog"},
                ],
                "items": [
                    {"name": "Wasserkocher", "url": "/w", "price": "34,00 €"},
                    {"name": "Toaster", "url": "/t", "price": "1.299,99 €"},
                ],
            },
            [
                ("Wasserkocher", 34.0, "EUR", "https://shop.example/w"),
                ("Toaster", 1299.99, "EUR", "https://shop.example/t"),
            ],
        ),
        # GraphQL edges and prices in cents
        (
            {
                "data": {
                    "products": {
                        "edges": [
                            {
                                "node": {
                                    "productName": "Kettle",
                                    "link": "https://shop.example/k",
                                    "priceCents": 3900,
                                    "currency": "GBP",
                                }
                            },
                            {
                                "node": {
                                    "productName": "Toaster",
                                    "link": "https://shop.example/t",
                                    "priceCents": 2499,
                                    "currency": "GBP",
                                }
                            },
                        ]
                    }
                }
            },
            [
                ("Kettle", 39.0, "GBP", "https://shop.example/k"),
                ("Toaster", 24.99, "GBP", "https://shop.example/t"),
            ],
        ),
        # JSON-LD ItemList of Products with offers
        (
            {
                "@context": "https://schema.org",
                "@type": "ItemList",
                "itemListElement": [
                    {
                        "@type": "ListItem",
                        "position": 1,
                        "item": {
                            "@type": "Product",
                            "name": "Lamp",
                            "url": "/l",
                            "offers": {"@type": "Offer", "price": "24.99", "priceCurrency": "USD"},
                        },
                    },
                    {
                        "@type": "ListItem",
                        "position": 2,
                        "item": {
                            "@type": "Product",
                            "name": "Desk",
                            "url": "/d",
                            "offers": [{"@type": "Offer", "price": 199, "priceCurrency": "USD"}],
                        },
                    },
                ],
            },
            [
                ("Lamp", 24.99, "USD", "https://shop.example/l"),
                ("Desk", 199.0, "USD", "https://shop.example/d"),
            ],
        ),
    ],
    ids=["amount-objects", "text-prices-and-a-menu", "edges-and-cents", "json-ld-itemlist"],
)
def test_listings_are_found_by_their_shape(doc, want):
    assert names_prices(emb.listing([doc], BASE, None)) == want


def test_a_price_range_gives_its_lower_end_and_cents_are_told_by_the_price_shown():
    storefront = {"collection": {"products": {"nodes": [
        {"title": "Mug", "onlineStoreUrl": "https://shop.example/m",
         "priceRange": {"maxVariantPrice": {"amount": "30.0", "currencyCode": "CAD"},
                        "minVariantPrice": {"amount": "12.0", "currencyCode": "CAD"}}},
        {"title": "Bowl", "onlineStoreUrl": "https://shop.example/b",
         "priceRange": {"minVariantPrice": {"amount": "18.5", "currencyCode": "CAD"}}},
    ]}}}  # fmt: skip
    assert names_prices(emb.listing([storefront], BASE, None)) == [
        ("Mug", 12.0, "CAD", "https://shop.example/m"),
        ("Bowl", 18.5, "CAD", "https://shop.example/b"),
    ]
    minor = {"hits": [
        {"name": "Czajnik", "url": "/c", "price": 12999, "priceFormatted": "129,99 zł"},
        {"name": "Toster", "url": "/t", "price": 8900, "priceFormatted": "89,00 zł"},
        {"name": "Kubek", "url": "/k", "price": 25, "priceFormatted": "25,00 zł"},
    ]}  # fmt: skip
    got = names_prices(emb.listing([minor], "https://sklep.example.pl/", "PLN"))
    assert [(n, p, c) for n, p, c, _ in got] == [
        ("Czajnik", 129.99, "PLN"),
        ("Toster", 89.0, "PLN"),
        ("Kubek", 25.0, "PLN"),
    ]


def test_a_regular_price_beside_the_price_is_kept_apart():
    doc = {
        "list": [
            {"name": "A", "url": "/a", "salePrice": 80, "regularPrice": 100},
            {
                "name": "B",
                "url": "/b",
                "price": 50,
                "originalPrice": 40,
            },  # not above the price: no regular price
        ]
    }
    records = emb.listing([doc], BASE, "EUR")
    assert records[0]["price"].amount == 80 and records[0]["price_regular"].amount == 100
    assert records[1]["price"].amount == 50 and "price_regular" not in records[1]


def test_a_nuxt_payload_is_read_through_its_indices():
    import site_pagecontent as pages

    value = {
        "data": {
            "list": {
                "products": [
                    {"productName": "X", "link": "/x", "pricing": {"value": 5, "currency": "EUR"}},
                    {"productName": "Y", "link": "/y", "pricing": {"value": 7.5, "currency": "EUR"}},
                ]
            }
        }
    }
    table = pages.devalue(value)
    table[0] = ["ShallowReactive", len(table)]  # a typed wrapper, as Nuxt writes its root
    table.append({"data": 1})
    assert emb._is_devalue(table)
    got = names_prices(emb.listing([table], BASE, None))
    assert got == [("X", 5.0, "EUR", "https://shop.example/x"), ("Y", 7.5, "EUR", "https://shop.example/y")]


def test_products_generic_uses_the_embedded_listing_when_the_dom_has_none():
    html = "<html><body><main><div class=skeleton></div><div class=skeleton></div></main></body></html>"
    docs = [
        {
            "results": [
                {"title": "Kubek", "href": "/k", "price": "19,99 zł"},
                {"title": "Talerz", "href": "/t", "price": "29,99 zł"},
            ]
        }
    ]
    out = products_generic.extract(html, "https://sklep.example.pl/", embedded=docs, max_price=25)
    assert out["products"] == [
        {
            "name": "Kubek",
            "price": 19.99,
            "currency": "PLN",
            "url": "https://sklep.example.pl/k",
            "sponsored": False,
        }
    ]
    assert out["dropped"] == 1


def test_a_dom_product_without_a_price_takes_the_embedded_one():
    cards = "".join(
        f'<div class="card"><a href="/p/{i}">Produkt {i}</a><span class="price">{"" if i == 2 else f"{i}9,00 zł"}</span></div>'
        for i in range(1, 5)
    )
    html = f"<html><body><div class=grid>{cards}</div></body></html>"
    docs = [{"items": [{"name": f"Produkt {i}", "url": f"/p/{i}", "price": i * 10 + 9} for i in range(1, 5)]}]
    base = "https://sklep.example.pl/"
    dom = products_generic.extract(html, base)["products"]
    assert [p["price"] for p in dom] == [19.0, None, 39.0, 49.0]
    filled = products_generic.extract(html, base, embedded=docs)["products"]
    assert [p["price"] for p in filled] == [19.0, 29.0, 39.0, 49.0]


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,  # deeper than any parser's stack
        '{"a": NaN, "b": Infinity}',
        "x" * (emb.MAX_JSON_BYTES + 1),
        '{"items": [{"name": "A", "url": "/a", "price": 1e309}, {"name": "B", "url": "/b", "price": NaN}]}',
        '{"items": [{"name": "\\ud800A", "url": "/a", "price": 3}, {"name": "B\\udfff", "url": "/b", "price": 4}]}',
        "not json",
    ],
    ids=["deep", "nan", "huge", "overflow", "lone-surrogates", "garbage"],
)
def test_hostile_documents_are_bounded_and_never_raise(text):
    docs = emb.documents([["json", text]])
    records = emb.listing(docs, BASE, None)
    for r in records:
        assert r["price"] is None or 0 <= r["price"].amount < float("inf")
        r["name"].encode("utf-8")  # writable: no lone surrogate left
        json.dumps(r["name"], ensure_ascii=False).encode("utf-8")


def test_a_wide_document_is_read_within_its_bounds():
    import time

    wide = {"rows": [{"name": f"n{i}", "url": f"/{i}", "price": i} for i in range(20_000)]}
    started = time.process_time()  # this process's CPU: the work done, which load does not stretch
    records = emb.listing([wide], BASE, "EUR")
    assert len(records) == emb.MAX_ITEMS
    assert time.process_time() - started < 5
    assert emb.undevalue([[1], [0]]) == [[None]]  # a table pointing back at itself ends


# --- results carried as data (articles_generic) ---------------------------------------------------------

from curllm_core.tools.extraction import articles_generic  # noqa: E402

RESULT_DOCS = [
    # a Next.js page's props, results with a snippet (EN)
    (
        {
            "props": {
                "pageProps": {
                    "search": {
                        "results": [
                            {
                                "id": 1,
                                "title": "How to repair a bicycle chain",
                                "url": "/guides/chain",
                                "description": "Tools you need and the steps to take.",
                            },
                            {
                                "id": 2,
                                "title": "Choosing the right tyre pressure",
                                "url": "/guides/tyres",
                                "description": "What the numbers on the sidewall mean.",
                            },
                            {
                                "id": 3,
                                "title": "Winter cycling clothes",
                                "url": "/guides/winter",
                                "description": "Layers that keep you warm and dry.",
                            },
                        ],
                        "menu": [
                            {"label": "Home", "url": "/"},
                            {"label": "Shop", "url": "/shop"},
                            {"label": "Blog", "url": "/blog"},
                        ],
                    }
                }
            }
        },
        "https://bike.example/search?q=repair",
        [
            ("How to repair a bicycle chain", "https://bike.example/guides/chain"),
            ("Choosing the right tyre pressure", "https://bike.example/guides/tyres"),
            ("Winter cycling clothes", "https://bike.example/guides/winter"),
        ],
    ),
    # GraphQL edges whose node holds the result, a highlighted title, a date (PL)
    (
        {
            "data": {
                "articles": {
                    "edges": [
                        {
                            "node": {
                                "headline": "Jak naprawić <em>rower</em> w domu",
                                "permalink": "https://portal.example.pl/a/1",
                                "publishedAt": "2024-03-01",
                            }
                        },
                        {
                            "node": {
                                "headline": "Przegląd <em>rower</em>ów miejskich",
                                "permalink": "https://portal.example.pl/a/2",
                                "publishedAt": "2024-02-11",
                            }
                        },
                        {
                            "node": {
                                "headline": "Gdzie jeździć na rowerze zimą",
                                "permalink": "https://portal.example.pl/a/3",
                                "publishedAt": "2024-01-20",
                            }
                        },
                    ]
                }
            }
        },
        "https://portal.example.pl/szukaj?q=rower",
        [
            ("Jak naprawić rower w domu", "https://portal.example.pl/a/1"),
            ("Przegląd rowerów miejskich", "https://portal.example.pl/a/2"),
            ("Gdzie jeździć na rowerze zimą", "https://portal.example.pl/a/3"),
        ],
    ),
    # a search API's hits with a summary (DE)
    (
        {
            "hits": [
                {
                    "name": "Fahrradkette richtig ölen",
                    "link": "/ratgeber/kette",
                    "summary": "Welches Öl, wie oft und wie viel davon.",
                },
                {
                    "name": "Reifendruck für Stadträder",
                    "link": "/ratgeber/reifen",
                    "summary": "Was die Zahlen auf dem Reifen bedeuten.",
                },
                {
                    "name": "Sicher durch den Winter radeln",
                    "link": "/ratgeber/winter",
                    "summary": "Licht, Reifen und Kleidung für kalte Tage.",
                },
                {
                    "name": "Bremsen einstellen ohne Werkstatt",
                    "link": "/ratgeber/bremsen",
                    "summary": "Schritt für Schritt zu sicheren Bremsen.",
                },
            ]
        },
        "https://rad.example.de/suche?q=rad",
        [
            ("Fahrradkette richtig ölen", "https://rad.example.de/ratgeber/kette"),
            ("Reifendruck für Stadträder", "https://rad.example.de/ratgeber/reifen"),
            ("Sicher durch den Winter radeln", "https://rad.example.de/ratgeber/winter"),
            ("Bremsen einstellen ohne Werkstatt", "https://rad.example.de/ratgeber/bremsen"),
        ],
    ),
]


@pytest.mark.parametrize("doc, url, want", RESULT_DOCS)
def test_results_carried_as_data_stand_in_when_the_dom_has_none(doc, url, want):
    script = json.dumps(doc).replace("</", "<\\/")
    html = (
        "<html><body><main><div class='skeleton'></div><div class='skeleton'></div></main>"
        f"<script type='application/json' id='state'>{script}</script></body></html>"
    )
    out = articles_generic.extract(html, url, embedded=emb.html_embedded(html))
    assert [(a["title"], a["url"]) for a in out["articles"]] == want
    assert out["kind"] == "posts"
    assert articles_generic.extract(html, url)["articles"] == []  # nothing without the data
    assert [a["title"] for a in articles_generic.extract(html, url, embedded=[doc], limit=2)["articles"]] == [
        t for t, _ in want[:2]
    ]


def test_a_list_of_links_carried_as_data_is_no_list_of_results():
    """A menu's links (one-word labels, nothing told of each) and two results are not results."""
    docs = [
        {
            "nav": [
                {"label": "Home", "url": "/"},
                {"label": "Shop", "url": "/shop"},
                {"label": "Blog", "url": "/b"},
            ]
        },
        {
            "links": [
                {"title": "Terms of service", "url": "/t"},
                {"title": "Privacy policy", "url": "/p"},
                {"title": "Contact us", "url": "/c"},
            ]
        },
        {
            "results": [
                {
                    "title": "Only two results here",
                    "url": "/1",
                    "snippet": "A result with a text of its own.",
                },
                {"title": "The second of them", "url": "/2", "snippet": "Another result with its own text."},
            ]
        },
    ]
    assert emb.article_listing(docs, "https://x.example/") == []
    html = "<html><body><main><div class='skeleton'></div></main></body></html>"
    assert articles_generic.extract(html, "https://x.example/", embedded=docs)["articles"] == []


def test_the_dom_list_wins_over_data():
    cards = "".join(
        f"<li><h3><a href='/dom/{i}'>Result number {i} from the page</a></h3><p>{'A text of the result. ' * 3}</p></li>"
        for i in range(3)
    )
    html = f"<html><body><main><ul>{cards}</ul></main></body></html>"
    out = articles_generic.extract(html, "https://bike.example/", embedded=[RESULT_DOCS[0][0]])
    assert [a["url"] for a in out["articles"]] == [f"https://bike.example/dom/{i}" for i in range(3)]


@pytest.mark.browser
async def test_a_skeleton_page_reads_its_results_from_data_in_the_browser(curllm_run_tool):
    doc, url, want = RESULT_DOCS[2]
    script = json.dumps(doc).replace("</", "<\\/")
    html = (
        "<html><body><main><div class='skeleton'></div><div class='skeleton'></div></main>"
        f"<script type='application/json' id='state'>{script}</script></body></html>"
    )
    out = await curllm_run_tool("extraction.articles_generic", html=html, url=url)
    assert [(a["title"], a["url"]) for a in out["articles"]] == want
