"""Sites (curllm_core/sites.py): which site a host or URL belongs to, and the names people give sites."""

from __future__ import annotations

import pytest

from curllm_core.sites import (
    WELL_KNOWN_SITES,
    bare_host,
    host_matches,
    registrable_domain,
    same_site,
    site_label,
    site_url,
    web_site,
)


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://www.ceneo.pl/x", "ceneo.pl"),
        ("https://WWW.Allegro.PL/", "allegro.pl"),
        ("https://news.ycombinator.com/", "news.ycombinator.com"),
        ("http://www3.example.com/", "www3.example.com"),
        ("not a url", ""),
    ],
)
def test_bare_host_drops_only_a_leading_www(url, host):
    assert bare_host(url) == host


@pytest.mark.parametrize(
    ("url", "site"),
    [
        ("https://www.ceneo.pl/x", "ceneo.pl"),
        ("file:///tmp/page.html", None),
        ("http://localhost:8000/", None),
        ("http://127.0.0.1:8000/page.html", None),
        ("http://[::1]:8000/", None),
        (None, None),
    ],
)
def test_web_site_is_none_for_test_pages(url, site):
    assert web_site(url) == site


@pytest.mark.parametrize(
    ("host", "domain"),
    [
        ("old.reddit.com", "reddit.com"),
        ("www.amazon.co.uk", "amazon.co.uk"),
        ("sklep.allegro.com.pl", "allegro.com.pl"),
        ("shop.example.de", "example.de"),
        ("Example.COM.", "example.com"),
        ("localhost", "localhost"),
        ("192.168.10.20", "192.168.10.20"),
    ],
)
def test_registrable_domain(host, domain):
    assert registrable_domain(host) == domain


def test_same_site_counts_subdomains_and_keeps_files_apart():
    assert same_site("https://old.reddit.com/r/x?page=2", "https://www.reddit.com/r/x")
    assert not same_site("https://example.org/", "https://example.com/")
    assert same_site("file:///tmp/b.html", "file:///tmp/a.html")
    assert not same_site("file:///tmp/b.html", "https://example.com/")
    assert not same_site("mailto:a@example.com", "https://example.com/")


def test_host_matches_a_site_or_its_subdomains():
    assert host_matches("news.ycombinator.com", ("ycombinator.com",))
    assert host_matches("ceneo.pl", ["ceneo.pl"])
    assert not host_matches("notceneo.pl", ["ceneo.pl"])
    assert not host_matches(None, ["ceneo.pl"])


@pytest.mark.parametrize(
    ("site", "label", "home"),
    [
        ("ceneo.pl", "ceneo", "https://www.ceneo.pl/"),
        ("amazon.co.uk", "amazon", "https://www.amazon.co.uk/"),
        ("news.ycombinator.com", "ycombinator", "https://news.ycombinator.com/"),
    ],
)
def test_site_label_and_home_page(site, label, home):
    assert site_label(site) == label
    assert site_url(site) == home


def test_well_known_sites_are_bare_lower_case_names():
    assert {"github", "wikipedia", "youtube", "allegro"} <= WELL_KNOWN_SITES
    assert all(name == name.lower() and "." not in name for name in WELL_KNOWN_SITES)
