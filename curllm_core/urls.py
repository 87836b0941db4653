"""Telling URLs from instructions, and turning what a user typed into a URL a browser can open."""

from __future__ import annotations

import re
from dataclasses import dataclass
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


#: Schemes of targets that are no web page: only a task that started on a local file opens them.
NON_WEB_SCHEMES = {
    "file",
    "data",
    "about",
    "blob",
    "javascript",
    "filesystem",
    "view-source",
    "chrome",
    "ftp",
}


def web_url(text: str) -> str | None:
    """``text`` as a web (http, https) URL, without looking at the file system; None for anything
    else (a path, ``file:``, ``data:``...). A bare host gets ``https://`` as in `normalize_url`.

    The answer never depends on which files exist, so a refusal cannot tell a caller whether one does.
    """
    text = text.strip()
    if _SCHEME.match(text):
        return text if text.split(":", 1)[0].lower() in ("http", "https") else None
    if ":" in text and text.split(":", 1)[0].lower() in NON_WEB_SCHEMES:
        return None
    if not text or text.startswith(("./", "../", "/", "~", "\\", ".")) or "\\" in text:
        return None
    if text.lower().endswith(PAGE_SUFFIXES):
        return None
    return "https://" + text


PAGE_SUFFIXES = (".html", ".htm", ".xhtml", ".shtml", ".mhtml", ".xml", ".json", ".txt", ".pdf", ".csv")


def missing_local_page(text: str) -> str | None:
    """The path, when ``text`` names a local page that does not exist (so it is no web address).

    A path (``./x``, ``../x``, ``/x``, ``~/x``, ``dir/x.html``), a bare file name with a page suffix
    (``missing.html``: no top-level domain is called html) or a ``file://`` URL; None otherwise.
    """
    text = text.strip()
    if text.lower().startswith("file:"):
        from urllib.request import url2pathname

        path = Path(url2pathname(urlsplit(text).path))
    elif _SCHEME.match(text):
        return None
    elif text.startswith(("./", "../", "/", "~")) or text.lower().endswith(PAGE_SUFFIXES):
        path = Path(text).expanduser()
    else:
        return None
    return None if path.exists() else str(path)


def host_of(url: str) -> str:
    """The lower-case host name of ``url`` ("" when it has none)."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


# --- URLs the way a browser reads them (WHATWG URL Standard) ------------------------------------
# The network policy must see the host Chromium will connect to. Python's urlsplit disagrees with
# browsers on backslashes, tabs and newlines, extra slashes, userinfo, IDN, trailing dots and IPv4
# spellings such as 0x7f.1, so the policy uses this parser instead.

SPECIAL_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": None}
_C0_OR_SPACE = "".join(chr(c) for c in range(0x21))
_FORBIDDEN_HOST = set("\x00\t\n\r #/:<>?@[\\]^|")
_FORBIDDEN_DOMAIN = _FORBIDDEN_HOST | {chr(c) for c in range(0x20)} | {"%", "\x7f"}


class URLParseError(ValueError):
    """A URL a browser would refuse to parse (or that cannot be checked)."""


@dataclass(frozen=True)
class WebURL:
    """The parts of an absolute URL that decide where a request goes, as a browser computes them."""

    scheme: str  # lower case
    host: str  # ASCII: punycode labels, lower case, IPv4 dotted, IPv6 in brackets; "" for none
    port: int | None  # None: the scheme's default port
    rest: str  # path, query and fragment, as written (tabs and newlines removed)

    @property
    def special(self) -> bool:
        return self.scheme in SPECIAL_PORTS

    @property
    def effective_port(self) -> int | None:
        return self.port if self.port is not None else SPECIAL_PORTS.get(self.scheme)

    def origin(self) -> str:
        port = f":{self.port}" if self.port is not None else ""
        return f"{self.scheme}://{self.host}{port}"


def parse_web_url(text: str) -> WebURL:
    """Split an absolute URL by the WHATWG rules Chromium follows; URLParseError when it would fail.

    Leading/trailing C0 controls and spaces are trimmed and every tab and newline removed; for the
    special schemes (http, https, ws, wss, ftp, file) backslashes count as slashes and any number
    of them may follow the scheme; userinfo ends at the last ``@``; the host is percent-decoded,
    mapped by UTS #46 and punycoded, and a host ending in a number is read as an IPv4 address
    (``0x7f.1`` is 127.0.0.1). Non-special schemes (``data:``, ``about:``...) keep their opaque rest.
    """
    text = text.strip(_C0_OR_SPACE).replace("\t", "").replace("\n", "").replace("\r", "")
    m = re.match(r"([A-Za-z][A-Za-z0-9+.\-]*):", text)
    if not m:
        raise URLParseError(f"not an absolute URL: {text[:200]!r}")
    scheme, rest = m.group(1).lower(), text[m.end() :]
    if scheme not in SPECIAL_PORTS:
        if not rest.startswith("//"):
            return WebURL(scheme, "", None, rest)
        rest = rest[2:]
        end = _first_of(rest, "/?#")
    else:
        rest = rest.lstrip("/\\")
        end = _first_of(rest, "/\\?#")
        if scheme == "file":
            # file: hosts name a share, not a server to connect to; the policy lets local files pass.
            return WebURL(scheme, "", None, rest[end:])
    authority, tail = rest[:end], rest[end:]
    host_port = authority.rpartition("@")[2]
    host, port = _split_port(host_port)
    if not host and scheme in SPECIAL_PORTS:
        raise URLParseError(f"no host in {text[:200]!r}")
    host = canonical_host(host, opaque=scheme not in SPECIAL_PORTS)
    if port is not None and port == SPECIAL_PORTS.get(scheme):
        port = None
    return WebURL(scheme, host, port, tail)


def _first_of(text: str, chars: str) -> int:
    return min((i for i in (text.find(c) for c in chars) if i >= 0), default=len(text))


def _split_port(host_port: str) -> tuple[str, int | None]:
    if host_port.startswith("["):
        close = host_port.find("]")
        if close < 0:
            raise URLParseError(f"unclosed IPv6 address in {host_port!r}")
        host, after = host_port[: close + 1], host_port[close + 1 :]
        if after and not after.startswith(":"):
            raise URLParseError(f"bad text after the IPv6 address in {host_port!r}")
        port_text = after[1:] if after else None
    else:
        host, sep, port_text = host_port.partition(":")
        port_text = port_text if sep else None
    if not port_text:  # "host:" is the default port
        return host, None
    if not port_text.isascii() or not port_text.isdigit() or int(port_text) > 65535:
        raise URLParseError(f"bad port {port_text!r}")
    return host, int(port_text)


def canonical_host(host: str, *, opaque: bool = False) -> str:
    """The host as a browser sends it: ``BÜCHER.example.`` -> ``xn--bcher-kva.example.``.

    IPv4 addresses in any spelling become dotted decimal, IPv6 addresses compressed in brackets.
    Raises URLParseError for a host a browser refuses (forbidden characters, bad IDN labels).
    """
    import ipaddress

    if host.startswith("["):
        if not host.endswith("]"):
            raise URLParseError(f"bad IPv6 address {host!r}")
        try:
            return f"[{ipaddress.IPv6Address(host[1:-1]).compressed}]"
        except ValueError:
            raise URLParseError(f"bad IPv6 address {host!r}") from None
    if opaque:
        if any(c in _FORBIDDEN_HOST and c != "%" for c in host):
            raise URLParseError(f"forbidden character in host {host!r}")
        return host
    from urllib.parse import unquote

    try:
        domain = unquote(host, errors="strict") if "%" in host else host
    except UnicodeDecodeError:
        raise URLParseError(f"bad percent-encoding in host {host!r}") from None
    ascii_domain = _domain_to_ascii(domain)
    if not ascii_domain or any(c in _FORBIDDEN_DOMAIN for c in ascii_domain):
        raise URLParseError(f"forbidden character in host {host!r}")
    if _ends_in_number(ascii_domain):
        return _parse_ipv4(ascii_domain)
    return ascii_domain


def _domain_to_ascii(domain: str) -> str:
    """UTS #46 mapping (non-transitional, as Chromium) and punycode; ASCII labels are only lower-cased.

    Browsers accept ASCII labels that IDNA 2008 refuses (``my_host``), so only labels with other
    characters go through the strict encoder; a label it refuses fails the whole URL.
    """
    if domain.isascii():
        return domain.lower()
    import idna

    try:
        mapped = idna.uts46_remap(domain, std3_rules=False, transitional=False)
        return ".".join(
            label if label.isascii() else idna.alabel(label).decode("ascii") for label in mapped.split(".")
        )
    except (idna.IDNAError, UnicodeError) as e:
        raise URLParseError(f"bad international domain name {domain!r}: {e}") from None


def _ends_in_number(domain: str) -> bool:
    labels = domain.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1]
    if last and last.isdigit():
        return True
    return bool(re.fullmatch(r"0[xX][0-9a-fA-F]*", last))


def _parse_ipv4(domain: str) -> str:
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4:
        raise URLParseError(f"bad IPv4 address {domain!r}")
    numbers = []
    for part in parts:
        if part == "":
            raise URLParseError(f"bad IPv4 address {domain!r}")
        try:
            if part[:2] in ("0x", "0X"):
                n = int(part[2:] or "0", 16)
            elif len(part) > 1 and part[0] == "0":
                n = int(part[1:], 8)
            else:
                n = int(part, 10)
        except ValueError:
            raise URLParseError(f"bad IPv4 address {domain!r}") from None
        numbers.append(n)
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise URLParseError(f"bad IPv4 address {domain!r}")
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n * 256 ** (3 - i)
    return ".".join(str((value >> shift) & 255) for shift in (24, 16, 8, 0))
