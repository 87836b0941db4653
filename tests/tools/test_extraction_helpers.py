"""Shared by the extraction tool tests (imported by them), and tests of the helpers themselves.

Pure tests read saved pages with ``extract(html, url, selectors=...)``; browser tests open the page
in a real Chromium (every request other than the file itself aborted, so nothing waits on the
network) and go through the tool's ``run(ctx)`` with its loaded manifest.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from curllm_core.manifest import Manifest, check_manifest, load_manifest, read_manifest
from curllm_core.tool import ToolContext
from curllm_core.tools.extraction import _html
from curllm_core.tools.extraction._html import (
    ClassWords,
    absolute_url,
    clean_text,
    hidden_in_tree,
    page_base,
    parse_count,
    parse_html,
    parse_number,
    visible_text,
)
from curllm_core.tools.extraction._select import extract_layout, field_value
from tests.conftest import REALPAGES, REALPAGES_REASON, ROOT, realpage

MANIFESTS = ROOT / "tools_manifests" / "extraction"
FIXTURES = ROOT / "tests" / "fixtures" / "extraction"
TOOLS = (
    "products_ceneo",
    "products_amazon",
    "products_generic",
    "articles_hn",
    "articles_reddit",
    "articles_generic",
    "links_by_pattern",
    "tables_to_json",
)


@cache
def manifest(name: str) -> Manifest:
    return load_manifest(MANIFESTS / f"{name}.json")


def selectors(name: str) -> dict:
    return dict(manifest(name).selectors)


@cache
def page_text(name: str) -> str:
    """A real page snapshot's HTML, read with the encoding its bytes show (one declares UTF-8 and is
    Latin-1; others declare nothing); skips when the snapshots are absent."""
    from curllm_core.charset import decode_html

    return decode_html(realpage(name).read_bytes())


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


@cache
def truth() -> dict:
    path = REALPAGES / "TRUTH.json"
    if not path.is_file():
        pytest.skip(f"TRUTH.json not available ({REALPAGES_REASON})")
    return json.loads(path.read_text(encoding="utf-8"))


def assert_valid_output(name: str, output: dict) -> None:
    """``output`` satisfies the tool's own ``output_schema`` (as the executor checks after every run)."""
    errors = sorted(Draft202012Validator(manifest(name).output_schema).iter_errors(output), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]


async def open_offline(page, path: Path) -> None:
    """Load a saved page; requests other than the file itself are aborted (no network, no images)."""

    async def route(r):
        if r.request.url.startswith("file:"):
            await r.continue_()
        else:
            await r.abort()

    await page.route("**/*", route)
    await page.goto(path.as_uri(), wait_until="load")


# --- the manifests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", TOOLS)
def test_manifest_is_valid_and_complete(name):
    path = MANIFESTS / f"{name}.json"
    doc = read_manifest(path)
    assert check_manifest(doc, source=str(path)) == []
    m = manifest(name)
    assert (m.name, m.category, m.effects) == (name, "extraction", "read")
    assert m.entrypoint == f"curllm_core.tools.extraction.{name}:run"
    assert set(m.dependencies) == {"playwright", "page"}
    assert m.triggers and m.examples and m.produces and m.timeout_ms
    assert "limit" in m.parameters["properties"]
    assert "limit" not in m.parameters.get("required", [])
    if name.endswith(("_ceneo", "_amazon", "_hn", "_reddit")):
        assert m.sites, "a site-specific tool names its sites"
    for example in m.examples:  # illustrative outputs must be shaped like real ones
        if "expected_output" in example:
            Draft202012Validator(m.output_schema).validate(example["expected_output"])


@pytest.mark.parametrize("name", TOOLS)
def test_entrypoint_imports_and_is_async(name):
    import importlib
    import inspect

    module, attr = manifest(name).entrypoint.split(":")
    assert inspect.iscoroutinefunction(getattr(importlib.import_module(module), attr))


def test_triggers_speak_three_languages():
    import re

    cases = {
        "products_generic": [
            "find products under 150zł",
            "znajdź produkty poniżej 100 zł",
            "alle Angebote unter 50 Euro",
        ],
        "articles_hn": [
            "articles with more than 100 points on hacker news",
            "artykuły z HN",
            "Artikel auf Hacker News",
        ],
        "tables_to_json": ["extract the table", "pobierz tabelę", "alle Tabellen", "die Umsatztabelle"],
        "articles_generic": [
            "the 10 organic search results",
            "wyniki wyszukiwania",
            "Suchergebnisse",
            "the comments on this story",
            "komentarze",
            "alle Kommentare",
            "posts with most upvotes",
        ],
        "links_by_pattern": ["all pdf links", "linki do plików", "alle Verweise"],
    }
    for name, instructions in cases.items():
        triggers = manifest(name).triggers
        for instruction in instructions:
            assert any(re.search(t, instruction, re.IGNORECASE) for t in triggers), (name, instruction)


# --- helpers -----------------------------------------------------------------------------------------


def test_visible_text_separates_blocks_and_keeps_footnotes():
    tree = parse_html(
        "<table><tr><th>Revenue<br>in million US$<sup><a href='#n'>[190]</a></sup>\n</th></tr></table>"
        "<p><b>Can</b>on <span style='display:none'>sortkey</span><span class='sr-only'>skip</span>EOS</p>"
        "<div>(<a>site.com</a>)</div><div><span>Neues Angebot</span>Apple</div>"
    )
    assert visible_text(tree.css_first("th")) == "Revenue in million US$ [190]"
    assert visible_text(tree.css_first("p")) == "Canon EOS"
    assert visible_text(tree.css_first("div")) == "(site.com)"
    assert visible_text(tree.css("div")[1]) == "Neues Angebot Apple"


def test_class_words_are_found_in_any_case():
    words = ClassWords(r"author|byline")
    assert words.search("Post-AUTHOR") and words.search("c-Byline__name") and words.search("authored")
    assert not words.search("title headline")
    with pytest.raises(ValueError):
        ClassWords(r"Author")


def test_clean_text():
    assert clean_text("\x00a\x00 \x00b\x00,c\x00(\x00d\x00)") == "a b,c (d)"
    assert clean_text("  x \u00a0\n y\u200b ") == "x y"


def test_page_base():
    html = '<head><link rel="canonical" href="https://www.ceneo.pl/;szukaj-canon"></head><body></body>'
    tree = parse_html(html)
    assert page_base(tree, "file:///tmp/x.html") == "https://www.ceneo.pl/;szukaj-canon"
    assert page_base(tree, "https://live.example/") == "https://live.example/"  # a live URL wins
    assert (
        page_base(parse_html("<p>x</p>"), "file:///tmp/x.html", "https://news.ycombinator.com/")
        == "https://news.ycombinator.com/"
    )
    assert (
        page_base(parse_html('<base href="/sub/"><p>x</p>'), "https://a.example/x/y")
        == "https://a.example/sub/"
    )


def test_absolute_url():
    base = "https://shop.example/list?p=2"
    assert absolute_url("/p/1", base) == "https://shop.example/p/1"
    assert absolute_url("//cdn.example/i.jpg", base) == "https://cdn.example/i.jpg"
    for bad in ("javascript:void(0)", "mailto:a@b.c", "tel:123", "#top", "", None, "  "):
        assert absolute_url(bad, base) is None


@pytest.mark.parametrize(
    "text, value",
    [
        ("284 points", 284),
        ("9,582", 9582),
        ("132.223", 132223),
        ("52.1k", 52100),
        ("25.4k comments", 25400),
        ("1.2M", 1200000),
        ("w 21 sklepach", 21),
        ("#14", 14),
        ("145\u00a0comments", 145),
        ("none", None),
        (None, None),
    ],
)
def test_parse_count(text, value):
    assert parse_count(text) == value


def test_parse_number():
    assert parse_number("4,4 von 5 Sternen") == 4.4 and parse_number("4.7 out of 5 stars") == 4.7
    assert parse_number("no") is None


def test_hidden_in_tree_modes():
    tree = parse_html(
        '<div hidden><a id="a1">x</a></div><div style="display: none"><a id="a2">x</a></div>'
        '<div class="clipped" aria-hidden="true"><a id="a3">x</a></div><span class="a-offscreen" id="a4">€1</span>'
        '<div data-curllm-hidden><a id="a5">x</a></div><a id="a6">x</a>'
    )
    loose = {n: hidden_in_tree(tree.css_first(f"#{n}"), {}) for n in ("a1", "a2", "a3", "a4", "a5", "a6")}
    strict = {n: hidden_in_tree(tree.css_first(f"#{n}"), {}, strict=True) for n in ("a3", "a4", "a6")}
    assert loose == {"a1": True, "a2": True, "a3": False, "a4": False, "a5": True, "a6": False}
    assert strict == {"a3": True, "a4": True, "a6": False}


def test_declarative_fields():
    tree = parse_html(
        '<table><tr class="athing" id="7"><td><a class="t" href="/x">Title <b>one</b></a></td></tr>'
        '<tr><td><span class="score">12 points</span><a href="item?id=7">discuss</a>'
        '<img src="/i.png" data-src="/lazy.png"></td></tr></table>'
    )
    item = tree.css_first("tr.athing")
    base = "https://news.example/"
    assert field_value(item, {"css": "a.t"}, base) == "Title one"
    assert field_value(item, {"css": ["a.missing", "a.t"], "type": "url"}, base) == "https://news.example/x"
    assert field_value(item, {"css": ".score", "from": "next", "type": "count"}, base) == 12
    assert field_value(item, {"attr": "id"}, base) == "7"
    assert field_value(item, {"css": ".score", "type": "exists"}, base) is False  # not in the title row
    assert field_value(item, {"css": "x", "self": ".athing", "type": "exists"}, base) is True
    assert field_value(item, [{"css": "q"}, {"attr": "id"}], base) == "7"
    assert (
        field_value(item, {"css": "img", "attr": ["data-src", "src"], "type": "url", "from": "next"}, base)
        == "https://news.example/lazy.png"
    )
    assert field_value(item, {"css": "a.t", "regex": r"(\w+) one"}, base) == "Title"
    records = extract_layout(tree, {"item": "tr.athing", "require": ["t"], "fields": {"t": "a.t"}}, base)
    assert records == [{"t": "Title one"}]


# A listing with the same card markup inside and outside the list (a carousel), badges as plain text.
LISTINGS = {
    "pl": ("Polecane", "Sponsorowane", "Super Sprzedawca"),
    "en": ("Recommended", "Sponsored", "Top seller"),
    "de": ("Empfohlen", "Gesponsert", "Top-Verkäufer"),
}


def _listing(recommended: str, ad: str, top: str) -> str:
    card = '<article class="card" data-ctx="{ctx}"><h2><a href="/p/{n}">Item {n}</a></h2>{badge}</article>'
    return (
        f"<body><section class='carousel'><h3>{recommended}</h3>"
        + card.format(n=9, ctx="", badge=f"<span>{top}</span>")
        + "</section><main id='list'>"
        + card.format(n=1, ctx="SPONSORED", badge="")
        + card.format(n=2, ctx="", badge=f"<div><span>{ad}</span></div>")
        + card.format(n=3, ctx="", badge=f"<strong>{top}</strong><p>{ad} items are marked</p>")
        + "</main></body>"
    )


@pytest.mark.parametrize("lang", sorted(LISTINGS))
def test_layouts_read_within_a_container_with_item_choices_and_text_badges(lang):
    recommended, ad, top = LISTINGS[lang]
    layout = {
        "within": ["#missing", "main#list", "body"],  # the first the page has
        "item": ["li.card", "article.card"],  # the first that finds items
        "fields": {
            "name": "h2 a",
            "sponsored": [
                {"attr": "data-ctx", "regex": "^SPONSORED$", "type": "exists"},
                {"css": "span, div, p, strong", "regex": f"^{ad}$", "type": "exists"},
            ],
            "top": {"css": "span, div, p, strong", "regex": f"^{top}$", "type": "exists"},
        },
    }
    records = extract_layout(parse_html(_listing(*LISTINGS[lang])), layout, "https://shop.example/")
    assert records == [  # the carousel's card is left out; a badge is a whole text, not a word in one
        {"name": "Item 1", "sponsored": True, "top": False},
        {"name": "Item 2", "sponsored": True, "top": False},
        {"name": "Item 3", "sponsored": False, "top": True},
    ]
    everywhere = {**layout, "within": "#missing"}  # no container on the page: the whole page
    assert [r["name"] for r in extract_layout(parse_html(_listing(*LISTINGS[lang])), everywhere, "")] == [
        "Item 9",
        "Item 1",
        "Item 2",
        "Item 3",
    ]


def test_a_layouts_selector_lists_are_checked_on_discovery():
    from curllm_core.manifest import layout_problems

    layouts = [{"within": ["main", "div["], "item": ["article", "li:has("], "fields": {"n": "h2"}}]
    assert [p.pointer for p in layout_problems(layouts)] == [
        "/selectors/layouts/0/within/1",
        "/selectors/layouts/0/item/1",
    ]


def test_junk_is_stripped_before_reading():
    tree = parse_html("<body><script>var p='9,99 zł'</script><template><a>t</a></template><p>ok</p></body>")
    _html.strip_junk(tree)
    assert visible_text(tree.body) == "ok"


@pytest.mark.browser
async def test_a_tool_through_the_real_executor(curllm_run_tool):
    # A one-step plan: parameters checked and defaulted, the output checked against output_schema.
    out = await curllm_run_tool(
        "extraction.products_generic", path=str(FIXTURES / "shop_decoys.html"), params={"limit": 2}
    )
    assert [(p["name"], p["price"]) for p in out["products"]] == [
        ("Kubek czerwony 300 ml", 39.99),
        ("Kubek termiczny 450 ml", 59.0),
    ]
    tables = await curllm_run_tool(
        "extraction.tables_to_json",
        html="<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>",
    )
    assert tables["tables"][0]["rows"] == [{"a": "1", "b": "2"}]


def test_hidden_index_matches_hidden_in_tree():
    tree = parse_html(
        '<div hidden><a id="a1">x</a></div><div style="display: none"><a id="a2">x</a></div>'
        '<div style="display:block"><a id="a3">x</a></div><div class="clipped" aria-hidden="true"><a id="a4">x</a></div>'
        '<span class="a-offscreen" id="a5">€1</span><div class="d-none"><p><a id="a6">x</a></p></div><a id="a7">x</a>'
    )
    loose, strict = _html.HiddenIndex.pair(tree)
    for i in range(1, 8):
        node = tree.css_first(f"#a{i}")
        assert loose(node) == hidden_in_tree(node, {}), i
        assert strict(node) == hidden_in_tree(node, {}, strict=True), i
        assert _html.HiddenIndex(tree, strict=True)(node) == strict(node), i


PAGE_FOR_SERIALIZER = """<!doctype html><html><head><link rel="canonical" href="https://shop.example/list">
<style>.tpl { display: none }</style></head><body>
  <div class="tpl"><a href="/t">Template 1,00 zł</a></div>
  <div class="card" data-pid="7" onclick="track()" data-blob="%s">
    <p><b>Can</b>on <b>EOS</b> &amp; <a href="/p?a=1&amp;b=2">A&lt;B "q"</a></p>
  </div>
  <script>var price = "9,99 zł";</script><template><p>template</p></template><!-- a comment -->
</body></html>""" % ("x" * 500)


@pytest.mark.browser
async def test_page_html_is_compact_and_faithful(page):
    await page.set_content(PAGE_FOR_SERIALIZER)
    ctx = ToolContext(page=page)
    full, url = await _html.page_html(ctx)
    lean, _ = await _html.page_html(ctx, lean=True)
    for html in (full, lean):
        tree = parse_html(html)
        assert page_base(tree, "file:///x") == "https://shop.example/list"
        assert visible_text(tree.css_first("p")) == 'Canon EOS & A<B "q"'
        assert tree.css_first("a[href]").attributes["href"] in ("/t", "/p?a=1&b=2")
        for junk in ("var price", "template", "a comment", "track()"):
            assert junk not in html
        assert "x" * 500 not in html  # long attribute values (JSON blobs) are left out
    assert "Template" in full and 'data-pid="7"' in full  # everything else stays for site selectors
    assert "Template" not in lean and "data-pid" not in lean  # CSS-hidden parts and unread attributes go
    assert 'class="card"' in lean


async def test_page_html_needs_a_page():
    from curllm_core.errors import NoPage

    with pytest.raises(NoPage, match="needs a browser page") as info:
        await _html.page_html(ToolContext())
    assert info.value.code == "NO_PAGE"


@pytest.mark.browser
async def test_big_pages_travel_compressed_and_arrive_intact(page):
    rows = "".join(
        f"<li class='row'><a href='/p/{i}'>Żółty kubek nr {i} &amp; spodek</a> {i},99 zł</li>"
        for i in range(3000)
    )
    await page.set_content(f"<html><body><ul>{rows}</ul></body></html>")
    plain = (await page.evaluate(_html.PAGE_HTML_JS, [False, _html.LEAN_ATTRIBUTES, False, False]))["html"]
    assert len(plain) > 100_000  # above the size that is gzip-compressed in the page
    html, _ = await _html.page_html(ToolContext(page=page))
    assert html == plain


@pytest.mark.parametrize(
    ("token", "hides", "screen_reader_only"),
    [
        ("hidden", True, False),
        ("d-none", True, False),
        ("is-hidden", True, False),
        ("u-hide", True, False),
        ("js_hidden", True, False),
        ("xyz-hidden", True, False),
        ("overflow-hidden", False, False),
        ("overflow-x-hidden", False, False),
        ("hidden-xs", False, False),
        ("md-hidden", False, False),
        ("sm:hidden", False, False),
        ("is-hidden-mobile", False, False),
        ("hiddenfield", False, False),
        ("visually-hidden", False, True),
        ("visuallyhidden", False, True),
        ("u-visually-hidden", False, True),
        ("sr-only", False, True),
        ("x-sr-only", False, True),
        ("srOnly", False, True),
        ("abc-offscreen", False, True),
        ("offscreen", False, True),
        ("focus:not-sr-only", False, False),
        ("screen-reader-text", False, True),
        ("price", False, False),
    ],
)
def test_hiding_classes_by_convention(token, hides, screen_reader_only):
    """Classes hide by convention (a last word "hidden", "offscreen", sr-only in any spelling), not by
    a list of one site's names; utilities that hide something else, or only at some sizes, do not."""
    assert _html.hides(token) is hides
    assert _html.screen_reader_only(token) is screen_reader_only


def test_the_index_finds_hiding_classes_by_convention():
    tree = parse_html(
        '<div class="card xyz-hidden"><a id="b1">x</a></div><div class="overflow-hidden"><a id="b2">x</a></div>'
        '<span class="abc-offscreen" id="b3">€1</span><span class="u-visually-hidden" id="b4">y</span>'
    )
    loose, strict = _html.HiddenIndex.pair(tree)
    assert [loose(tree.css_first(f"#b{i}")) for i in range(1, 5)] == [True, False, False, False]
    assert [strict(tree.css_first(f"#b{i}")) for i in range(1, 5)] == [True, False, True, True]
