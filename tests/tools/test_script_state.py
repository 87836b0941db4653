"""State inline scripts assign, read from their text without running them (the HTTP engine's
`_script_state`), fed to the same embedded-data reader the browser's evaluated state goes to; hostile
scripts bounded."""

from __future__ import annotations

import json
import time

import pytest

from curllm_core.tools.extraction import _embedded as emb
from curllm_core.tools.extraction._script_state import MAX_BYTES, SCAN_CHARS, script_state

STATE = {
    "catalog": {
        "items": [
            {"name": "Kubek Łódź", "url": "/k", "price": 19.99},
            {"name": "Talerz", "url": "/t", "price": 29.5},
        ]
    }
}
TEXT = json.dumps(STATE, ensure_ascii=False)


def values(text: str, module: bool = False) -> list:
    return [json.loads(v) for _, v in script_state([(text, module)])]


def js_single_quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@pytest.mark.parametrize(
    "script",
    [
        f"window.__INITIAL_STATE__ = {TEXT};",  # Vue, Redux
        f'window.__PRELOADED_STATE__={TEXT}\nwindow.__CONFIG__ = {{"a": 1}};',
        f'window["__APOLLO_STATE__"] = {TEXT}',  # Apollo
        f"self['__DATA__'] =\n  {TEXT};",
        f"globalThis.__STATE__ = {TEXT};",
        f"var pageData = {TEXT};",  # a classic script's global
        f"var pageData = JSON.parse({js_single_quoted(json.dumps(STATE))});",  # non-ASCII as \\u escapes
        f"window.__S__ = JSON.parse({json.dumps(TEXT)});",  # a double-quoted JavaScript string
        f"(function(){{ var x = 1; }})(); window.__S__ = {TEXT}; window.__S__.ready = true;",
    ],
)
def test_state_written_as_data_is_read(script):
    assert STATE in values(script)


@pytest.mark.parametrize(
    "script",
    [
        "window.__CFG__ = {unquoted: 1, 'single': 2};",  # JavaScript object syntax: left to the browser
        "window.__NUXT__ = (function(a){return {items: [a]}}(1));",  # an expression
        'window.app = init({"items": []});',
        'if (window.__S__ == {"a": 1}) {}',  # a comparison
        'mywindow.x = {"a": 1}; foo.window.y = {"b": 2}; myvar = {"c": 3};',  # other names
        "window.__S__ = JSON.parse('{\"a\": 1}' + extra);",  # more than one string
        "window.__S__ = JSON.parse('{\"a\": 1} trailing');",  # not one JSON document
        'var s = "window.x = 5";',
    ],
)
def test_what_is_not_data_is_not_read(script):
    assert values(script) == []


def test_a_var_in_a_module_is_no_global_and_a_name_keeps_its_last_value():
    assert values(f"var pageData = {TEXT};", module=True) == []
    assert values(f"window.__S__ = {{}}; window.__S__ = {TEXT}; window.__S__ = make();") == [STATE]
    # each name listed where it first appears, as the browser's script lists it
    got = script_state([("window.a = [1, 2];", False), ('window.b = {"x": 1}; window.a = [3];', False)])
    assert got == [(0, "[3]"), (1, '{"x": 1}')]


def test_only_assignments_near_a_scripts_start_are_looked_for():
    late = " " * SCAN_CHARS + f"window.__S__ = {TEXT};"
    assert values(late) == []  # as the browser's script: the first SCAN_CHARS characters


def test_the_html_engine_feeds_the_browsers_reader():
    """`html_embedded` gives the documents `read_embedded` gives: JSON blocks and assigned state in
    document order, scripts with ``src`` and data blocks of other types left out."""
    html = (
        '<html><head><script type="application/ld+json">{"@type": "Thing"}</script>'
        f'<script src="/app.js">window.__X__ = {{"no": 1}};</script></head><body>'
        f"<script>window.__INITIAL_STATE__ = {TEXT};</script>"
        '<script type="text/template">window.__T__ = {"no": 2};</script>'
        '<script type="module">var moduleLocal = {"no": 3}; window.__M__ = {"m": 1};</script>'
        '<script id="__NEXT_DATA__" type="application/json">{"props": {}}</script></body></html>'
    )
    assert emb.html_embedded(html) == [{"@type": "Thing"}, STATE, {"m": 1}, {"props": {}}]
    records = emb.listing(emb.html_embedded(html), "https://shop.example/", None)
    assert [(r["name"], r["price"].amount, r["url"]) for r in records] == [
        ("Kubek Łódź", 19.99, "https://shop.example/k"),
        ("Talerz", 29.5, "https://shop.example/t"),
    ]


@pytest.mark.parametrize(
    "script",
    [
        "window.x = " + "[" * 200_000,  # deeper than any parser's stack, never closed
        "window.x = " + "[" * 100_000 + "]" * 100_000,
        "window.x = JSON.parse('" + "a\\" * 500_000,  # an unterminated string of escapes
        'window.x = JSON.parse("' + "\\u" * 300_000 + '")',
        "".join(f'window.a{i} = {{"k": "' + "x" * 100_000 for i in range(150)),  # many unterminated literals
        'window.x = {"a": [' + "1," * 3_000_000 + "1]}",  # over the size bound
        'window.x = {"a": NaN, "b": 1e309}',
        'window.x = {"a": "\\ud800"}',  # a lone surrogate
    ],
)
def test_hostile_scripts_are_bounded_and_never_raise(script):
    started = time.perf_counter()
    got = script_state([(script, False)] * 3)
    assert time.perf_counter() - started < 3
    assert sum(len(v) for _, v in got) <= MAX_BYTES
    emb.documents([["state", v] for _, v in got])  # the reader takes whatever was read


@pytest.mark.browser
async def test_the_browser_and_the_html_read_the_same_state(page):
    """The documents the browser's script reads from a live page (evaluated state) are the ones the
    HTTP engine reads from the same HTML's text, for every form of assignment it reads."""
    scripts = [
        f"window.__INITIAL_STATE__ = {TEXT};",
        'window["__APOLLO_STATE__"] = {"ROOT_QUERY": {"edges": [{"node": {"title": "A"}}]}};',
        f"var pageData = JSON.parse({js_single_quoted(json.dumps(STATE))});",
        'self.__A__ = [1, 2]; self.__A__ = [3, {"b": null}];',
        "window.__CFG__ = {unquoted: 1};",  # JavaScript syntax: the browser reads it, the HTML does not
    ]
    html = (
        '<html><head><script type="application/ld+json">{"@type": "ItemList"}</script></head><body><main></main>'
        + "".join(f"<script>{s}</script>" for s in scripts)
        + "</body></html>"
    )
    await page.set_content(html)
    in_browser = await emb.read_embedded(page)
    on_html = emb.html_embedded(html)
    assert in_browser == [*on_html, {"unquoted": 1}]
    assert on_html[:4] == [
        {"@type": "ItemList"},
        STATE,
        {"ROOT_QUERY": {"edges": [{"node": {"title": "A"}}]}},
        STATE,
    ]
