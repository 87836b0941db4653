"""The network policy: which URLs a task may request. Checked on every request and redirect hop.

- ``block`` (checked first) and ``allow`` domains match the host and its subdomains; ``www.`` is
  ignored on both sides. With an allow list, every other host is refused.
- ``block_private`` resolves the host and refuses loopback, private, link-local (169.254.169.254,
  the cloud metadata address, included), reserved, multicast and unspecified addresses.
Local files (``file://``) and ``data:``/``about:`` URLs are not network requests and always pass.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from .errors import PolicyError, SSRFBlocked

LOCAL_SCHEMES = {"file", "data", "about", "blob", "chrome-error"}


def _norm(host: str) -> str:
    host = host.lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


def domain_matches(host: str, domain: str) -> bool:
    host, domain = _norm(host), _norm(domain)
    return host == domain or host.endswith("." + domain)


def is_private_address(ip: str) -> bool:
    addr = ipaddress.ip_address(ip)
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped:
        addr = addr.ipv4_mapped
    return (
        addr.is_private
        or addr.is_loopback
        or addr.is_link_local
        or addr.is_reserved
        or addr.is_multicast
        or addr.is_unspecified
        or not addr.is_global
    )


@dataclass(frozen=True)
class NetworkPolicy:
    allow: tuple[str, ...] = ()
    block: tuple[str, ...] = ()
    block_private: bool = False
    _resolved: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def active(self) -> bool:
        return bool(self.allow or self.block or self.block_private)

    def check_domain(self, url: str) -> None:
        """Raise PolicyError (BLOCKED_URL) when the URL's host is blocked or not allowed."""
        parts = urlsplit(url)
        if parts.scheme in LOCAL_SCHEMES:
            return
        if parts.scheme not in ("http", "https", "ws", "wss"):
            raise PolicyError(f"blocked URL {url}: scheme {parts.scheme!r} is not allowed")
        host = parts.hostname or ""
        for domain in self.block:
            if domain_matches(host, domain):
                raise PolicyError(
                    f"blocked URL {url}: domain {host} is blocked (--block-domain {domain})",
                )
        if self.allow and not any(domain_matches(host, d) for d in self.allow):
            raise PolicyError(
                f"blocked URL {url}: domain {host} is not in the allowed domains ({', '.join(self.allow)})",
            )

    async def check(self, url: str) -> None:
        """Domain rules, then (with block_private) the addresses the host resolves to."""
        self.check_domain(url)
        parts = urlsplit(url)
        if not self.block_private or parts.scheme in LOCAL_SCHEMES:
            return
        host = parts.hostname or ""
        addresses = self._resolved.get(host)
        if addresses is None:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
            except socket.gaierror as e:
                raise SSRFBlocked(
                    f"blocked URL {url}: cannot resolve {host} to check it ({e.strerror})",
                ) from None
            addresses = sorted({info[4][0] for info in infos})
            self._resolved[host] = addresses
        bad = [a for a in addresses if is_private_address(a)]
        if bad:
            raise SSRFBlocked(
                f"blocked URL {url}: {host} resolves to the non-public address {bad[0]} "
                "(--block-private refuses loopback, private, link-local and reserved addresses)",
            )
