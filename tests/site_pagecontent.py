"""Test pages of what is on a page: shadow roots, frames, modals, consent dialogs, embedded data.

Served by ``site_server`` under ``/pc/``. Every page is built here from `PRODUCTS` (the answer a test
expects), in one of four markups of a product card and one of three languages:

``/pc/<pattern>/<markup>-<lang>.html``  markup: ``utility`` (utility-class soup), ``bem``, ``cssmod``
                                        (hashed CSS-module classes), ``testid`` (``data-testid``);
                                        lang: ``pl`` (zł), ``en`` (£), ``de`` (€).
``/pc/frame-body/<markup>-<lang>.html`` the bare listing, the document a frame shows.
``/pc/consent-log``                     a consent choice the page posts (``?page=&choice=``), kept in
                                        `CHOICES` for the test to read.

Patterns (`PATTERNS`):

``shadow``          the grid and every card are custom elements with open shadow roots; the name is
                    a light-DOM link slotted into the card.
``shadow-dsd``      the same as declarative shadow DOM (``<template shadowrootmode="open">``).
``frame``           the listing in a same-origin ``<iframe>`` (relative links resolve in the frame).
``xframe``          the listing in an iframe of another origin (``?other=PORT``: a second local site).
``modal``           an open newsletter dialog (``aria-modal``); the page behind it set
                    ``aria-hidden="true"`` by script, as react-modal/Radix/MUI do.
``consent-banner``  a hand-made fixed cookie banner: accept all, reject all, settings; the page is
                    usable behind it.
``consent-wall``    a modal consent platform: "accept all" and "settings" on its first layer; the
                    settings layer has a pre-ticked marketing switch and "save choices". The listing
                    is written only once a choice is made.
``consent-shadow``  a consent dialog inside an open shadow root, "deny"/"accept" in the page's language;
                    the listing after the choice.
``consent-late``    a consent platform that shows its dialog late: 400 ms after ``load`` (the page
                    otherwise ready, its listing held back until a choice), inside an open shadow root
                    attached at ``load`` (no change of the document itself shows it).
``consent-xframe``  the consent dialog in an iframe of another origin (``?other=PORT``), telling the
                    page its choice by postMessage; the listing after the choice.
``consent-only``    a cookie wall with nothing but "accept" (and a policy link): accepting is the only
                    way in; the listing after the choice.
``embedded-next``   skeleton cards in the DOM, the products in ``__NEXT_DATA__`` (prices as amount and
                    currency objects).
``embedded-state``  skeletons, the products in a ``window.__INITIAL_STATE__ = {...}`` assignment (prices
                    as text, a menu of links beside them).
``embedded-nuxt``   skeletons, the products in a Nuxt 3 payload (``__NUXT_DATA__``: a flat array whose
                    values are indices).
``embedded-ldjson`` skeletons, the products in a JSON-LD ``ItemList`` of ``Product``s.
``state-redux``     no skeleton: a category text and an empty list a script renders, from state it
                    carries in ``window.__PRELOADED_STATE__ = {...}`` (prices as amount objects).
``state-apollo``    the same from ``window["__APOLLO_STATE__"] = {...}``: GraphQL edges and nodes,
                    prices as the page writes them (``priceFormatted``).
``state-parse``     the same from ``var pageData = JSON.parse('...')``: a JSON string in a JavaScript
                    string literal (escaped twice, non-ASCII as unicode escapes), prices as value and
                    currency.
``search-shadow``   a search form (field and button) inside an open shadow root; it submits to
                    ``/pc/results/<markup>-<lang>.html?q=``, the products whose name has ``q``.
``search-frame``    the same search form in a same-origin frame, whose results show in the frame.
``search-frame-slow`` the same in a frame whose form is submitted by its script a moment after the
                    press (``SUBMIT_DELAY_MS``: a search box that sends a beacon first), and whose
                    results document (``/pc/results-slow/``) the server streams slowly: the page's
                    head at once, then each product card `HOLD_MS` after the one before (`HOLD`
                    marks where the server holds the rest back). Read before the frame's document
                    has loaded, it lists no product, or only the first.
"""

from __future__ import annotations

import html
import json
import re
import threading

MARKUPS = ("utility", "bem", "cssmod", "testid")
LANGS = ("pl", "en", "de")
PATTERNS = (
    "shadow",
    "shadow-dsd",
    "frame",
    "xframe",
    "modal",
    "consent-banner",
    "consent-wall",
    "consent-shadow",
    "consent-late",
    "consent-xframe",
    "consent-only",
    "embedded-next",
    "embedded-state",
    "embedded-nuxt",
    "embedded-ldjson",
    "state-redux",
    "state-apollo",
    "state-parse",
)
#: Pages of a search form in a shadow root or a frame, and what a test searches for on them.
SEARCH_PATTERNS = ("search-shadow", "search-frame", "search-frame-slow")
#: Where the server holds the rest of a document back for `HOLD_MS` (a slow stream; site_server).
HOLD = "<!--curllm-test-hold-->"
HOLD_MS = 300
#: How long after the press the slow frame's form is submitted by its script.
SUBMIT_DELAY_MS = 150
SEARCH = {
    "pl": ("Luna", "Szukaj", "Szukaj w sklepie"),
    "en": ("Luna", "Search", "Search the shop"),
    "de": ("Luna", "Suchen", "Im Shop suchen"),
}
SEARCH_INSTRUCTIONS = {"pl": "wyszukaj Luna", "en": "search for Luna", "de": "suche nach Luna"}
#: name, price: the products every page lists, in each language.
PRODUCTS: dict[str, list[tuple[str, float]]] = {
    "pl": [
        ("Czajnik elektryczny Aqua 1,7 l", 129.0),
        ("Lampka biurkowa Luna LED", 89.99),
        ("Plecak miejski Trek 22 l", 219.5),
        ("Słuchawki bezprzewodowe Echo", 349.0),
        ("Kubek termiczny Luna 450 ml", 59.9),
        ("Ekspres do kawy Barista Pro", 1299.0),
        ("Zestaw noży kuchennych Ostrze", 479.0),
    ],
    "en": [
        ("Electric Kettle Aqua 1.7 l", 39.0),
        ("Desk Lamp Luna LED", 24.99),
        ("City Backpack Trek 22 l", 64.5),
        ("Wireless Headphones Echo", 119.0),
        ("Travel Mug Luna 450 ml", 15.9),
        ("Coffee Machine Barista Pro", 649.0),
        ("Kitchen Knife Set Blade", 189.0),
    ],
    "de": [
        ("Wasserkocher Aqua 1,7 l", 34.0),
        ("Schreibtischlampe Luna LED", 21.99),
        ("Stadtrucksack Trek 22 l", 59.5),
        ("Kabellose Kopfhörer Echo", 99.0),
        ("Thermobecher Luna 450 ml", 14.9),
        ("Kaffeemaschine Barista Pro", 599.0),
        ("Küchenmesser-Set Klinge", 149.0),
    ],
}
CURRENCY = {"pl": "PLN", "en": "GBP", "de": "EUR"}
#: The instruction each language's test gives: every product of the page.
INSTRUCTIONS = {"pl": "wszystkie produkty", "en": "all products", "de": "alle Produkte"}
#: Consent choices the pages posted: (page path, choice), in order.
CHOICES: list[tuple[str, str]] = []
_LOCK = threading.Lock()


def price_text(lang: str, price: float) -> str:
    """The price as the page writes it."""
    if lang == "en":
        return f"£{price:,.2f}"
    whole = f"{price:,.2f}".replace(",", " ").replace(".", ",")
    return f"{whole} zł" if lang == "pl" else f"{whole} €"


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def href(name: str) -> str:
    return f"/produkt/{slug(name)}"


# --- cards ----------------------------------------------------------------------------------------

_CARD = {
    "utility": (
        '<div class="flex flex-col gap-2 rounded-lg border p-4 shadow-sm hover:shadow-md">'
        '<img class="aspect-square w-full object-cover" alt="" src="/static/none.png">{link}'
        '<span class="text-lg font-bold tracking-tight text-gray-900">{price}</span></div>'
    ),
    "bem": (
        '<article class="product-tile"><div class="product-tile__media"></div>'
        '<h3 class="product-tile__title">{link}</h3>'
        '<p class="product-tile__price product-tile__price--current">{price}</p></article>'
    ),
    "cssmod": (
        '<div class="ProductCard_root__x7Fq2"><div class="ProductCard_body__Lm0aZ">{link}</div>'
        '<div class="Price_value__3kPz1"><span class="Price_amount__q2Wd8">{price}</span></div></div>'
    ),
    "testid": (
        '<li data-testid="product-card"><div data-testid="product-title">{link}</div>'
        '<span data-testid="product-price">{price}</span></li>'
    ),
}
_LINK_CLASS = {
    "utility": "text-sm font-medium text-gray-700 hover:underline",
    "bem": "product-tile__link",
    "cssmod": "ProductCard_name__a91Kd",
    "testid": "",
}
_GRID = {
    "utility": ('<div class="grid grid-cols-2 gap-4 md:grid-cols-4">', "</div>"),
    "bem": ('<section class="product-grid">', "</section>"),
    "cssmod": ('<div class="Grid_grid__9vBn1">', "</div>"),
    "testid": ('<ul data-testid="product-list">', "</ul>"),
}


def link(markup: str, name: str, *, base: str = "", slot: str = "") -> str:
    cls = _LINK_CLASS[markup]
    attrs = (f' class="{cls}"' if cls else "") + (' data-testid="product-link"' if markup == "testid" else "")
    attrs += f' slot="{slot}"' if slot else ""
    return f'<a{attrs} href="{base}{href(name)}">{html.escape(name)}</a>'


def card(markup: str, lang: str, name: str, price: float, *, name_html: str | None = None) -> str:
    return _CARD[markup].format(
        link=name_html if name_html is not None else link(markup, name), price=price_text(lang, price)
    )


def grid(markup: str, lang: str) -> str:
    start, end = _GRID[markup]
    return start + "".join(card(markup, lang, n, p) for n, p in PRODUCTS[lang]) + end


# --- pages ----------------------------------------------------------------------------------------

_TITLE = {"pl": "Sklep Domowy", "en": "Home Store", "de": "Haushaltsladen"}
_NAV = {
    "pl": '<nav><a href="/">Strona główna</a> <a href="/kontakt">Kontakt</a></nav>',
    "en": '<nav><a href="/">Home</a> <a href="/kontakt">Contact</a></nav>',
    "de": '<nav><a href="/">Startseite</a> <a href="/kontakt">Kontakt</a></nav>',
}


def layout(lang: str, body: str, head: str = "") -> str:
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{_TITLE[lang]}</title>'
        "<style>body{font-family:sans-serif;margin:0}.skeleton{background:#ddd;height:120px;margin:8px}"
        f".overlay{{position:fixed;inset:0;background:rgba(0,0,0,.5)}}</style>{head}</head>"
        f"<body><header><strong>{_TITLE[lang]}</strong>{_NAV[lang]}</header>{body}</body></html>"
    )


def page(path: str, params: dict[str, str]) -> str | None:
    """The page at ``path`` (under /pc/), None when there is none."""
    m = re.fullmatch(r"/pc/([a-z-]+)/([a-z]+)-([a-z]{2})\.html", path)
    if not m or m.group(2) not in MARKUPS or m.group(3) not in LANGS:
        return None
    pattern, markup, lang = m.groups()
    if pattern == "frame-body":
        return layout(lang, f"<main>{grid(markup, lang)}</main>")
    if pattern in ("results", "results-slow"):
        q = params.get("q", "").strip().lower()
        found = [(n, p) for n, p in PRODUCTS[lang] if q and q in n.lower()]
        start, end = _GRID[markup]
        hold = HOLD if pattern == "results-slow" else ""  # before each card and the end of the page
        cards = "".join(hold + card(markup, lang, n, p) for n, p in found)
        return layout(lang, f"<main>{start}{cards}{hold}{end}</main>")
    if pattern == "search-form":
        return layout(lang, _search_form(markup, lang))
    if pattern == "search-form-slow":
        return layout(lang, _search_form(markup, lang, slow=True))
    maker = _PAGES.get(pattern)
    return maker(markup, lang, params, path) if maker else None


def record(params: dict[str, str]) -> None:
    """A consent choice the page posted."""
    with _LOCK:
        CHOICES.append((params.get("page", ""), params.get("choice", "")))


def _other(params: dict[str, str]) -> str:
    port = params.get("other", "")
    return f"http://127.0.0.1:{int(port)}" if port.isdigit() else ""


def _shadow(markup: str, lang: str, params: dict, path: str) -> str:
    cards = "".join(
        f"<product-card>{link(markup, n, slot='title')}</product-card>" for n, _ in PRODUCTS[lang]
    )
    inner = [card(markup, lang, n, p, name_html='<slot name="title"></slot>') for n, p in PRODUCTS[lang]]
    start, end = _GRID[markup]
    script = (
        "<script>const grid = document.querySelector('product-grid').attachShadow({mode: 'open'});"
        f"grid.innerHTML = {json.dumps(start + cards + end)};"
        f"const inner = {json.dumps(inner, ensure_ascii=False)};"
        "grid.querySelectorAll('product-card').forEach((el, i) => { el.attachShadow({mode: 'open'}).innerHTML = inner[i]; });"
        "</script>"
    )
    return layout(lang, "<main><product-grid></product-grid></main>" + script)


def _shadow_dsd(markup: str, lang: str, params: dict, path: str) -> str:
    start, end = _GRID[markup]
    cards = "".join(
        '<product-card><template shadowrootmode="open">'
        + card(markup, lang, n, p, name_html='<slot name="title"></slot>')
        + f"</template>{link(markup, n, slot='title')}</product-card>"
        for n, p in PRODUCTS[lang]
    )
    return layout(
        lang,
        f'<main><product-grid><template shadowrootmode="open">{start}{cards}{end}</template></product-grid></main>',
    )


def _frame(markup: str, lang: str, params: dict, path: str) -> str:
    return layout(
        lang,
        f'<main><iframe title="catalogue" src="/pc/frame-body/{markup}-{lang}.html" '
        'style="width:100%;height:1200px;border:0"></iframe></main>',
    )


def _xframe(markup: str, lang: str, params: dict, path: str) -> str:
    return layout(
        lang,
        f'<main><iframe title="catalogue" src="{_other(params)}/pc/frame-body/{markup}-{lang}.html" '
        'style="width:100%;height:1200px;border:0"></iframe></main>',
    )


_NEWSLETTER = {
    "pl": ("Zapisz się do newslettera", "Zamknij"),
    "en": ("Sign up for our newsletter", "Close"),
    "de": ("Melden Sie sich für den Newsletter an", "Schließen"),
}


def _modal(markup: str, lang: str, params: dict, path: str) -> str:
    text, close = _NEWSLETTER[lang]
    return layout(
        lang,
        f'<div id="app"><main>{grid(markup, lang)}</main></div>'
        '<div class="portal"><div class="overlay"></div>'
        '<div role="dialog" aria-modal="true" style="position:fixed;top:30%;left:30%;background:#fff;padding:2em">'
        f"<p>{text}</p><input type=email><button>{close}</button></div></div>"
        # what modal libraries do to everything outside the modal
        "<script>for (const el of document.body.children) if (!el.classList.contains('portal'))"
        " el.setAttribute('aria-hidden', 'true');</script>",
    )


# Consent wording: text, accept all, reject all, settings, save choices, marketing, deny (shadow),
# accept (shadow), wall text, policy link.
_CONSENT = {
    "pl": {
        "text": "Używamy plików cookie, aby ulepszać nasz serwis. Możesz zaakceptować wszystkie lub je odrzucić.",
        "accept": "Akceptuję wszystkie",
        "reject": "Odrzuć wszystkie",
        "settings": "Ustawienia",
        "save": "Zapisz wybór",
        "marketing": "Marketing",
        "deny": "Odrzuć",
        "ok": "Zaakceptuj",
        "policy": "Polityka prywatności",
    },
    "en": {
        "text": "We use cookies to improve your experience. You can accept all cookies or reject them.",
        "accept": "Accept all",
        "reject": "Reject all",
        "settings": "Manage preferences",
        "save": "Save my choices",
        "marketing": "Marketing",
        "deny": "Deny",
        "ok": "Accept",
        "policy": "Privacy policy",
    },
    "de": {
        "text": "Wir verwenden Cookies, um Ihr Erlebnis zu verbessern. Sie können alle akzeptieren oder ablehnen.",
        "accept": "Alle akzeptieren",
        "reject": "Alle ablehnen",
        "settings": "Einstellungen",
        "save": "Auswahl speichern",
        "marketing": "Marketing",
        "deny": "Ablehnen",
        "ok": "Akzeptieren",
        "policy": "Datenschutzerklärung",
    },
}


def _choose_js(path: str) -> str:
    """The page's script: ``choose(choice)`` posts the choice, closes the dialog, shows the listing."""
    return (
        "<script>function choose(choice) {"
        f" fetch('/pc/consent-log?page={path}&choice=' + choice);"
        " document.querySelectorAll('[data-consent]').forEach((el) => el.remove());"
        " document.body.style.overflow = '';"
        " const t = document.getElementById('later'); if (t) t.replaceWith(t.content.cloneNode(true)); }"
        "</script>"
    )


def _banner(markup: str, lang: str, params: dict, path: str) -> str:
    w = _CONSENT[lang]
    return layout(
        lang,
        f"<main>{grid(markup, lang)}</main>"
        '<div data-consent class="cookie-bar" style="position:fixed;bottom:0;left:0;right:0;background:#eee;padding:1em">'
        f"<p>{w['text']}</p><button onclick=\"choose('accept')\">{w['accept']}</button>"
        f"<button onclick=\"choose('reject')\">{w['reject']}</button>"
        f"<button onclick=\"choose('settings')\">{w['settings']}</button></div>" + _choose_js(path),
    )


def _wall(markup: str, lang: str, params: dict, path: str) -> str:
    w = _CONSENT[lang]
    return layout(
        lang,
        f'<main><template id="later">{grid(markup, lang)}</template></main>'
        '<div data-consent class="overlay"></div>'
        '<div data-consent role="dialog" aria-modal="true" aria-labelledby="cmp-title" class="cmp-box"'
        ' style="position:fixed;top:20%;left:20%;right:20%;background:#fff;padding:2em">'
        f'<h2 id="cmp-title">Cookies</h2><p>{w["text"]}</p>'
        f'<div id="layer1"><button onclick="choose(\'accept\')">{w["accept"]}</button>'
        f"<button onclick=\"document.getElementById('layer1').hidden = true;"
        f" document.getElementById('layer2').hidden = false\">{w['settings']}</button></div>"
        f'<div id="layer2" hidden><label><input type="checkbox" checked disabled> Necessary</label>'
        f'<label><input type="checkbox" id="mkt" checked> {w["marketing"]}</label>'
        f"<button onclick=\"choose(document.getElementById('mkt').checked ? 'save-marketing' : 'save-necessary')\">"
        f"{w['save']}</button></div></div>"
        "<script>document.body.style.overflow = 'hidden';</script>" + _choose_js(path),
    )


def _consent_shadow(markup: str, lang: str, params: dict, path: str) -> str:
    w = _CONSENT[lang]
    inner = (
        '<div class="overlay"></div><div role="alertdialog" aria-modal="true" '
        'style="position:fixed;bottom:10%;left:10%;right:10%;background:#fff;padding:2em">'
        f'<p>{w["text"]}</p><button id="deny">{w["deny"]}</button><button id="ok">{w["ok"]}</button></div>'
    )
    return layout(
        lang,
        f'<main><template id="later">{grid(markup, lang)}</template></main><div data-consent id="cmp-root"></div>'
        "<script>const root = document.getElementById('cmp-root').attachShadow({mode: 'open'});"
        f"root.innerHTML = {json.dumps(inner)};"
        "root.getElementById('deny').onclick = () => choose('reject');"
        "root.getElementById('ok').onclick = () => choose('accept');</script>" + _choose_js(path),
    )


def _consent_late(markup: str, lang: str, params: dict, path: str) -> str:
    w = _CONSENT[lang]
    inner = (
        '<div role="dialog" aria-label="Cookies" style="position:fixed;bottom:0;left:0;right:0;background:#fff;padding:2em">'
        f'<p>{w["text"]}</p><button id="ok">{w["accept"]}</button><button id="deny">{w["reject"]}</button></div>'
    )
    return layout(
        lang,
        f'<main><template id="later">{grid(markup, lang)}</template></main><div data-consent id="cmp-late"></div>'
        "<script>addEventListener('load', () => {"
        " const root = document.getElementById('cmp-late').attachShadow({mode: 'open'});"
        f" setTimeout(() => {{ root.innerHTML = {json.dumps(inner)};"
        " root.getElementById('deny').onclick = () => choose('reject');"
        " root.getElementById('ok').onclick = () => choose('accept'); }, 400); });</script>"
        + _choose_js(path),
    )


def _consent_xframe(markup: str, lang: str, params: dict, path: str) -> str:
    other = _other(params)
    return layout(
        lang,
        f'<main><template id="later">{grid(markup, lang)}</template></main>'
        f'<iframe data-consent title="Consent" src="{other}/pc/consent-frame/{markup}-{lang}.html" '
        'style="position:fixed;bottom:0;left:0;width:100%;height:240px;border:0;background:#fff"></iframe>'
        "<script>addEventListener('message', (e) => { if (e.data === 'reject' || e.data === 'accept') choose(e.data); });"
        "</script>" + _choose_js(path),
    )


def _consent_frame(markup: str, lang: str, params: dict, path: str) -> str:
    w = _CONSENT[lang]
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"></head><body>'
        f'<div role="dialog" aria-label="Cookies"><p>{w["text"]}</p>'
        f"<button onclick=\"parent.postMessage('reject', '*')\">{w['reject']}</button>"
        f"<button onclick=\"parent.postMessage('accept', '*')\">{w['accept']}</button></div></body></html>"
    )


def _consent_only(markup: str, lang: str, params: dict, path: str) -> str:
    w = _CONSENT[lang]
    return layout(
        lang,
        f'<main><template id="later">{grid(markup, lang)}</template></main>'
        '<div data-consent class="overlay" id="cookie-wall">'
        '<div style="margin:20% auto;width:50%;background:#fff;padding:2em">'
        f'<p>{w["text"]}</p><a href="/kontakt">{w["policy"]}</a> '
        f"<button onclick=\"choose('accept')\">{w['ok']}</button></div></div>"
        "<script>document.body.style.overflow = 'hidden';</script>" + _choose_js(path),
    )


def _skeletons(lang: str, head: str = "", tail: str = "") -> str:
    loading = {"pl": "Ładowanie…", "en": "Loading…", "de": "Wird geladen…"}[lang]
    cards = '<div class="skeleton" aria-busy="true"></div>' * 4
    return layout(
        lang, f'<main><p class="loading">{loading}</p><div id="__next">{cards}</div></main>{tail}', head
    )


def _embedded_next(markup: str, lang: str, params: dict, path: str) -> str:
    results = [
        {
            "id": i,
            "title": n,
            "slug": slug(n),
            "href": href(n),
            "price": {"amount": p, "currencyCode": CURRENCY[lang]},
            "images": [{"src": f"/img/{i}.jpg"}],
        }
        for i, (n, p) in enumerate(PRODUCTS[lang], 1)
    ]
    data = {
        "props": {"pageProps": {"initialData": {"total": len(results), "results": results}, "locale": lang}},
        "page": "/category/[slug]",
        "buildId": "a1b2c3",
    }
    return _skeletons(
        lang,
        tail=f'<script id="__NEXT_DATA__" type="application/json">{json.dumps(data, ensure_ascii=False)}</script>',
    )


def _embedded_state(markup: str, lang: str, params: dict, path: str) -> str:
    state = {
        "menu": [
            {"title": t, "url": u} for t, u in (("Home", "/"), ("Contact", "/kontakt"), ("Blog", "/blog"))
        ],
        "catalog": {
            "listing": {
                "entries": [
                    {"name": n, "url": href(n), "price": price_text(lang, p), "rating": 4.5}
                    for n, p in PRODUCTS[lang]
                ]
            }
        },
    }
    return _skeletons(
        lang,
        tail=f"<script>window.__INITIAL_STATE__ = {json.dumps(state, ensure_ascii=False)};</script>",
    )


def devalue(value: object) -> list:
    """``value`` flattened the way Nuxt 3 writes its payload: every value in one array, objects and
    arrays holding the indices of their members."""
    table: list = []

    def add(v: object) -> int:
        i = len(table)
        table.append(None)
        if isinstance(v, dict):
            table[i] = {k: add(x) for k, x in v.items()}
        elif isinstance(v, list):
            table[i] = [add(x) for x in v]
        else:
            table[i] = v
        return i

    add(value)
    return table


def _embedded_nuxt(markup: str, lang: str, params: dict, path: str) -> str:
    products = [
        {"productName": n, "link": href(n), "pricing": {"value": p, "currency": CURRENCY[lang]}}
        for n, p in PRODUCTS[lang]
    ]
    payload = devalue(
        {"data": {"category-list": {"products": products, "count": len(products)}}, "state": {}}
    )
    return _skeletons(
        lang,
        tail=f'<script type="application/json" id="__NUXT_DATA__" data-ssr="true">{json.dumps(payload, ensure_ascii=False)}</script>',
    )


def _embedded_ldjson(markup: str, lang: str, params: dict, path: str) -> str:
    doc = {
        "@context": "https://schema.org",
        "@type": "ItemList",
        "itemListElement": [
            {
                "@type": "ListItem",
                "position": i,
                "item": {
                    "@type": "Product",
                    "name": n,
                    "url": href(n),
                    "offers": {"@type": "Offer", "price": f"{p:.2f}", "priceCurrency": CURRENCY[lang]},
                },
            }
            for i, (n, p) in enumerate(PRODUCTS[lang], 1)
        ],
    }
    return _skeletons(
        lang, head=f'<script type="application/ld+json">{json.dumps(doc, ensure_ascii=False)}</script>'
    )


_INTRO = {
    "pl": (
        "Wszystko do kuchni, biura i podróży: czajniki, lampki, plecaki, słuchawki i kubki, wybrane przez"
        " nasz zespół i wysyłane w ciągu jednego dnia roboczego. Zwrot bez podania przyczyny do 30 dni."
    ),
    "en": (
        "Everything for the kitchen, the office and travel: kettles, lamps, backpacks, headphones and mugs,"
        " chosen by our team and dispatched within one working day. Free returns within 30 days."
    ),
    "de": (
        "Alles für Küche, Büro und Reise: Wasserkocher, Lampen, Rucksäcke, Kopfhörer und Becher, von unserem"
        " Team ausgewählt und innerhalb eines Werktags versandt. Kostenlose Rücksendung binnen 30 Tagen."
    ),
}


def _picture(markup: str, key: str) -> dict:
    """The picture a card shows (only the utility markup's cards show one), as state carries it."""
    if markup != "utility":
        return {}
    return {key: [{"src": "/static/none.png", "alt": ""}] if key == "images" else "/static/none.png"}


def _rendered(markup: str, lang: str, state: str) -> str:
    """A page with text of its own (no skeleton, no empty shell) whose listing a script renders from
    the state ``state`` (a script's assignment) carries: in the HTML only as that state."""
    return layout(
        lang,
        f'<main><h1>{_TITLE[lang]}</h1><p class="intro">{_INTRO[lang]}</p><div id="listing"></div></main>'
        f"<script>{state}</script><script>document.getElementById('listing').innerHTML = "
        f"{json.dumps(grid(markup, lang))};</script>",
    )


def _state_redux(markup: str, lang: str, params: dict, path: str) -> str:
    items = [
        {
            "id": i,
            "name": n,
            "url": href(n),
            "price": {"amount": p, "currency": CURRENCY[lang]},
            "badges": [],
            **_picture(markup, "images"),
        }
        for i, (n, p) in enumerate(PRODUCTS[lang], 1)
    ]
    state = {
        "router": {"location": path},
        "products": {"items": items, "total": len(items), "loading": False},
    }
    return _rendered(markup, lang, f"window.__PRELOADED_STATE__ = {json.dumps(state, ensure_ascii=False)};")


def _state_apollo(markup: str, lang: str, params: dict, path: str) -> str:
    edges = [
        {
            "__typename": "ProductEdge",
            "node": {
                "title": n,
                "link": href(n),
                "priceFormatted": price_text(lang, p),
                **_picture(markup, "thumbnailUrl"),
            },
        }
        for n, p in PRODUCTS[lang]
    ]
    state = {
        "ROOT_QUERY": {
            "__typename": "Query",
            'search({"q":""})': {"edges": edges, "pageInfo": {"hasNextPage": False}},
        }
    }
    return _rendered(markup, lang, f'window["__APOLLO_STATE__"]={json.dumps(state, ensure_ascii=False)}')


def _state_parse(markup: str, lang: str, params: dict, path: str) -> str:
    products = [
        {
            "productName": n,
            "href": href(n),
            "pricing": {"value": p, "currency": CURRENCY[lang]},
            **_picture(markup, "image"),
        }
        for n, p in PRODUCTS[lang]
    ]
    text = json.dumps({"category": {"name": _TITLE[lang], "products": products}})  # non-ASCII as \u escapes
    literal = text.replace("\\", "\\\\").replace("'", "\\'")
    return _rendered(markup, lang, f"var pageData = JSON.parse('{literal}');")


def _search_form(markup: str, lang: str, *, slow: bool = False) -> str:
    _, button, label = SEARCH[lang]
    form = (
        f'<form action="/pc/results{"-slow" if slow else ""}/{markup}-{lang}.html" method="get" role="search">'
        f'<input type="search" name="q" aria-label="{label}" placeholder="{label}"><button type="submit">{button}</button></form>'
    )
    if slow:  # the form is sent by the page's script a moment after the press
        form += (
            "<script>const form = document.querySelector('form[role=search]');"
            "form.addEventListener('submit', (e) => { e.preventDefault(); "
            f"setTimeout(() => form.submit(), {SUBMIT_DELAY_MS}); }});</script>"
        )
    return form


def _search_shadow(markup: str, lang: str, params: dict, path: str) -> str:
    return layout(
        lang,
        "<main><site-search></site-search><p>&nbsp;</p></main>"
        "<script>document.querySelector('site-search').attachShadow({mode: 'open'}).innerHTML = "
        f"{json.dumps(_search_form(markup, lang))};</script>",
    )


def _search_frame(markup: str, lang: str, params: dict, path: str) -> str:
    form = "search-form-slow" if path.startswith("/pc/search-frame-slow/") else "search-form"
    return layout(
        lang,
        f'<main><iframe title="search" src="/pc/{form}/{markup}-{lang}.html" '
        'style="width:100%;height:900px;border:0"></iframe></main>',
    )


_PAGES = {
    "shadow": _shadow,
    "shadow-dsd": _shadow_dsd,
    "frame": _frame,
    "xframe": _xframe,
    "modal": _modal,
    "consent-banner": _banner,
    "consent-wall": _wall,
    "consent-shadow": _consent_shadow,
    "consent-late": _consent_late,
    "consent-xframe": _consent_xframe,
    "consent-frame": _consent_frame,
    "consent-only": _consent_only,
    "embedded-next": _embedded_next,
    "embedded-state": _embedded_state,
    "embedded-nuxt": _embedded_nuxt,
    "embedded-ldjson": _embedded_ldjson,
    "state-redux": _state_redux,
    "state-apollo": _state_apollo,
    "state-parse": _state_parse,
    "search-shadow": _search_shadow,
    "search-frame": _search_frame,
    "search-frame-slow": _search_frame,
}
