"""`curllm_core.urls`: telling URLs from words, normalising them, and `parse_web_url` against the
WHATWG URL test data (a vendored subset of web-platform-tests' urltestdata.json: the host and port
a request goes to, or a failure)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curllm_core.urls import (
    URLParseError,
    canonical_host,
    host_of,
    looks_like_url,
    missing_local_page,
    normalize_url,
    parse_web_url,
)

DATA = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "url" / "urltestdata_hosts.json").read_text(
        encoding="utf-8"
    )
)
#: Inputs a browser opens and `parse_web_url` refuses: IDNA 2008 forbids the label (a symbol), UTS #46
#: alone allows it. Refusing fails closed (the policy cannot check the host, so nothing is opened).
STRICTER = {"ftp://%e2%98%83", "https://%e2%98%83"}


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: repr(c["input"])[:60])
def test_the_host_and_port_a_browser_connects_to(case):
    if case["input"] in STRICTER:
        with pytest.raises(URLParseError):
            parse_web_url(case["input"])
    elif case.get("failure"):
        with pytest.raises(URLParseError):
            parse_web_url(case["input"])
    else:
        url = parse_web_url(case["input"])
        assert (url.host, url.port) == (case["hostname"], case["port"])


def test_the_vendored_data_says_where_it_comes_from():
    assert "web-platform-tests" in DATA["source"] and "BSD" in DATA["licence"]
    assert len(DATA["cases"]) > 100
    assert any(c.get("failure") for c in DATA["cases"]) and any(not c.get("failure") for c in DATA["cases"])


def test_ipv4_spellings_and_ipv6_are_canonical():
    assert canonical_host("0x7f.1") == "127.0.0.1"
    assert canonical_host("2130706433") == "127.0.0.1"
    assert canonical_host("0177.0.0.1") == "127.0.0.1"
    assert canonical_host("[0:0::1]") == "[::1]"
    with pytest.raises(URLParseError):
        canonical_host("1.2.3.4.5")


def test_a_web_url_knows_its_origin_and_port():
    url = parse_web_url("HTTPS://Example.COM:443/a?b#c")
    assert (url.scheme, url.host, url.port, url.effective_port) == ("https", "example.com", None, 443)
    assert url.origin() == "https://example.com" and url.rest == "/a?b#c" and url.special
    opaque = parse_web_url("data:text/html,hi")
    assert (opaque.scheme, opaque.host, opaque.special) == ("data", "", False)
    with pytest.raises(URLParseError):
        parse_web_url("example.com/no-scheme")


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("https://shop.example/x", True),
        ("www.ceneo.pl/x", True),
        ("localhost:8000", True),
        ("find products under 100", False),
        ("two words.com", False),
        ("", False),
    ],
)
def test_looks_like_url(text, url):
    assert looks_like_url(text) is url


def test_normalize_url(tmp_path):
    page = tmp_path / "p.html"
    page.write_text("<p>x</p>", encoding="utf-8")
    assert normalize_url(" www.shop.example/a ") == "https://www.shop.example/a"
    assert normalize_url("http://x.example") == "http://x.example"
    assert normalize_url("about:blank") == "about:blank"
    assert normalize_url(str(page)) == page.resolve().as_uri()
    assert looks_like_url(str(page))


def test_a_missing_local_page_is_named_not_taken_for_a_host(tmp_path):
    assert missing_local_page(str(tmp_path / "gone.html")) == str(tmp_path / "gone.html")
    assert missing_local_page("missing.html") == "missing.html"
    assert missing_local_page((tmp_path / "gone.html").as_uri()) is not None
    assert missing_local_page("www.shop.example") is None
    assert missing_local_page("https://x.example/a.html") is None


def test_host_of():
    assert host_of("https://WWW.Ceneo.PL:443/x") == "www.ceneo.pl"
    assert host_of("not a url [") == ""
