"""Sites: which site a host or URL belongs to, and the sites people name (a leaf: standard library and
`urls` only). Used by the planner and the tools alike.

- `bare_host(url)`: the URL's host without a leading ``www.`` (``https://www.ceneo.pl/x`` -> ``ceneo.pl``);
  `web_site(url)` the same for web URLs only (None for files, localhost and IP addresses).
- `registrable_domain(host)`: the part of a host name a site registers, roughly (``old.reddit.com``
  -> ``reddit.com``, ``www.amazon.co.uk`` -> ``amazon.co.uk``); `same_site(url, base)` compares by it.
- `host_matches(host, sites)`: a host is one of the sites or a subdomain of one.
- `site_label(site)` (``ceneo`` for ceneo.pl), `site_url(site)` (its home page), `WELL_KNOWN_SITES`.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from .urls import host_of

#: Sites people name as link targets by their bare name ("links to github", "linki do youtube"). A
#: bare name that is none of these (nor a site of an installed tool) is still matched as a site's name,
#: with a warning that says so: "links to bananas" is more likely a word than a site.
WELL_KNOWN_SITES = frozenset(
    """
    github gitlab bitbucket sourceforge codeberg gist youtube youtu vimeo twitch dailymotion twitter x
    facebook fb instagram linkedin tiktok pinterest reddit tumblr mastodon threads bluesky medium
    substack wordpress blogspot blogger wikipedia wikimedia wiktionary wikidata wikiquote stackoverflow
    stackexchange superuser serverfault google bing yahoo duckduckgo baidu yandex amazon ebay allegro
    aliexpress etsy olx apple microsoft mozilla python npmjs npm pypi crates docker readthedocs arxiv
    doi researchgate bbc cnn nytimes guardian reuters bloomberg spotify soundcloud bandcamp dropbox
    slack discord telegram whatsapp imdb archive flickr imgur gravatar steam steampowered netflix
    paypal shopify w3 w3schools mdn ycombinator onet wp interia gazeta heise spiegel zeit faz
    """.split()
)

_TLD_LEVEL2 = {"co", "com", "org", "net", "ac", "gov", "edu"}


def site_label(site: str) -> str:
    """The name people use for a domain: ``ceneo`` for ceneo.pl, ``amazon`` for amazon.co.uk."""
    labels = site.split(".")[:-1]
    if len(labels) > 1 and labels[-1] in _TLD_LEVEL2:
        labels = labels[:-1]
    return labels[-1] if labels else site


def host_matches(host: str | None, sites: tuple[str, ...] | list[str]) -> bool:
    """``host`` is one of ``sites`` or a subdomain of one (``www.`` already dropped: `bare_host`)."""
    return host is not None and any(host == s or host.endswith("." + s) for s in sites)


def web_site(url: str | None) -> str | None:
    """The site of a web URL (`bare_host`), or None for file:// URLs, localhost and IP addresses
    (test pages)."""
    if not url:
        return None
    parts = urlsplit(url)
    host = bare_host(url)
    if (
        parts.scheme not in ("http", "https")
        or not host
        or host == "localhost"
        or re.fullmatch(r"[\d.:\[\]]+", host)
    ):
        return None
    return host


def site_url(site: str) -> str:
    """``https://www.ceneo.pl/`` for a registrable domain, ``https://news.example.com/`` for a subdomain."""
    labels = site.split(".")
    bare = len(labels) == 2 or (len(labels) == 3 and labels[1] in _TLD_LEVEL2)
    return f"https://www.{site}/" if bare else f"https://{site}/"


def bare_host(url: str) -> str:
    """The site of ``url``: its host without a leading ``www.`` (``https://www.ceneo.pl/x`` -> ``ceneo.pl``)."""
    host = host_of(url)
    return host[4:] if host.startswith("www.") else host


def registrable_domain(host: str) -> str:
    """The registrable part of a host name, roughly: "old.reddit.com" -> "reddit.com",
    "www.amazon.co.uk" -> "amazon.co.uk". IP addresses and single labels stay whole."""
    host = host.lower().rstrip(".")
    labels = host.split(".")
    if len(labels) <= 2 or re.fullmatch(r"[\d.]+|\[.*\]", host):
        return host
    # "co.uk", "com.pl", "com.au": a short second-level label under a country code takes one more
    keep = 3 if len(labels[-1]) == 2 and len(labels[-2]) <= 3 else 2
    return ".".join(labels[-keep:])


def same_site(url: str, base: str) -> bool:
    """Whether ``url`` stays on the site of ``base`` (subdomains included; file: stays file:)."""
    a, b = urlsplit(url), urlsplit(base)
    if a.scheme == "file" or b.scheme == "file":
        return a.scheme == b.scheme
    if a.scheme not in ("http", "https"):
        return False
    return registrable_domain(a.hostname or "") == registrable_domain(b.hostname or "") != ""
