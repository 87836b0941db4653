"""Telling URLs from instructions, and turning what a user typed into a URL a browser can open."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)
_BARE_HOST = re.compile(r"^(localhost|[\w-]+(\.[\w-]+)*\.[a-z]{2,})(:\d+)?(/\S*)?$", re.I)


def looks_like_url(text: str) -> bool:
    """True for http(s)/file URLs, bare hosts like ``www.ceneo.pl/x``, and existing local files."""
    text = text.strip()
    if not text or " " in text:
        return False
    if _SCHEME.match(text):
        return True
    if Path(text).is_file():
        return True
    return bool(_BARE_HOST.match(text))


def normalize_url(text: str) -> str:
    """An absolute URL: plain paths become ``file://`` URLs and bare hosts get ``https://``."""
    text = text.strip()
    if _SCHEME.match(text) or text.startswith(("data:", "about:")):
        return text
    path = Path(text).expanduser()
    if path.exists():
        return path.resolve().as_uri()
    return "https://" + text


def host_of(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host
