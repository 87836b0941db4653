"""The network policy: which hosts a task may reach. Checked on every request, every hop, every kind.

- ``block`` (checked first) and ``allow`` domains match the host and its subdomains; ``www.`` and a
  trailing dot are ignored on both sides, and international names match their punycode form
  (``bücher.example`` is ``xn--bcher-kva.example``). With an allow list, every other host is refused.
- Link-local and cloud metadata targets (169.254.0.0/16, fe80::/10, fd00:ec2::254, also wrapped in
  an IPv6 address; ``metadata.google.internal``) are refused whatever the rest of the policy, unless
  ``allow_link_local``: checked on every address and name as written, without a lookup.
- ``block_private`` resolves the host and refuses loopback, private (6to4 ``2002::/16`` wrapping a
  private IPv4 address and site-local ``fec0::/10`` included), link-local, reserved, multicast and
  unspecified addresses. The
  addresses that passed are the ones connected to (`resolve`), so a host cannot change its answer
  between the check and the connection.
- URLs are read the way the browser reads them (`urls.parse_web_url`); one that cannot be read is
  refused (fail closed), as is any check that cannot complete (a name that does not resolve).
Local files (``file://``) and ``data:``/``about:``/``blob:`` URLs are not network requests and pass.
The browser side (`browser.Session`, `egress`) makes sure every request is put to this check.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass, field

from .errors import PolicyError, SSRFBlocked, UsageError
from .urls import URLParseError, canonical_host, parse_web_url

LOCAL_SCHEMES = {"file", "data", "about", "blob", "chrome-error"}
NETWORK_SCHEMES = {"http", "https", "ws", "wss"}
DNS_TIMEOUT_S = 10.0


def _norm(host: str) -> str:
    host = host.lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


def domain_matches(host: str, domain: str) -> bool:
    """``host`` is ``domain`` or one of its subdomains (both canonical ASCII, see `canonical_host`)."""
    host, domain = _norm(host), _norm(domain)
    return host == domain or host.endswith("." + domain)


#: Names of cloud metadata services (they resolve to link-local addresses, or to fd00:ec2::254).
METADATA_HOSTS = {"metadata.google.internal", "metadata.goog", "metadata", "instance-data"}
METADATA_ADDRESSES = {ipaddress.ip_address("fd00:ec2::254"), ipaddress.ip_address("169.254.169.254")}
#: What the link-local refusal says to do.
LINK_LOCAL_HINT = "link-local and cloud metadata addresses are refused unless --allow-link-local is given"
#: What the private-address refusal says, unless the policy was made with a hint of its own.
PRIVATE_HINT = "--block-private refuses loopback, private, link-local and reserved addresses"


def _unwrapped(ip: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The address, or the IPv4 address an IPv6 one carries (mapped ``::ffff:a.b.c.d``, 6to4 ``2002::/16``)."""
    addr = ipaddress.ip_address(ip.strip("[]").split("%")[0])
    if isinstance(addr, ipaddress.IPv6Address):
        inner = addr.ipv4_mapped or addr.sixtofour
        if inner is not None:
            return inner
    return addr


def is_link_local_address(ip: str) -> bool:
    """169.254.0.0/16 and fe80::/10 (and the same wrapped in IPv6), and the metadata addresses."""
    addr = _unwrapped(ip)
    return addr.is_link_local or addr in METADATA_ADDRESSES


def is_private_address(ip: str) -> bool:
    addr = _unwrapped(ip)
    if isinstance(addr, ipaddress.IPv6Address) and addr.is_site_local:  # fec0::/10, deprecated, never public
        return True
    return (
        addr.is_private
        or addr.is_loopback
        or addr.is_link_local
        or addr.is_reserved
        or addr.is_multicast
        or addr.is_unspecified
        or not addr.is_global
    )


def canonical_domain(value: str, which: str = "domain") -> str:
    """A ``--allow-domain``/``--block-domain`` value as a canonical host; UsageError when it is not one.

    A domain includes its subdomains, so URLs, ports, paths and wildcards are refused rather than
    half understood: ``http://x.com`` or ``localhost:8080`` would otherwise match nothing at all.
    """
    text = value.strip() if isinstance(value, str) else ""
    hint = "give a domain name such as example.com (its subdomains are included) or an IP address"
    if not text:
        raise UsageError(f"empty {which} value: {hint}")
    if "://" in text or text.startswith("//"):
        try:
            host = parse_web_url(text).host
        except URLParseError:
            host = ""
        suggestion = f"; did you mean {host}?" if host else ""
        raise UsageError(f"{which} {value!r} is a URL, not a domain: {hint}{suggestion}")
    if text.startswith("*"):
        raise UsageError(f"{which} {value!r}: no wildcards; {hint}")
    text = text.removeprefix(".")
    if ":" in text and not text.startswith("["):
        try:  # a bare IPv6 address
            text = f"[{ipaddress.IPv6Address(text).compressed}]"
        except ValueError:
            host, _, port = text.rpartition(":")
            raise UsageError(
                f"{which} {value!r} has a port: ports are not part of the policy; {hint}"
                + (f"; did you mean {host}?" if port.isdigit() and host else "")
            ) from None
    if any(c in text for c in "/?#@\\") or any(c.isspace() for c in text):
        raise UsageError(f"{which} {value!r} is not a domain name: {hint}")
    try:
        return canonical_host(text)
    except URLParseError as e:
        raise UsageError(f"{which} {value!r} is not a domain name ({e}): {hint}") from None


def _refused(message: str, host: str, kind: type[PolicyError] = PolicyError) -> PolicyError:
    return kind(message, host=host)


@dataclass(frozen=True)
class NetworkPolicy:
    """What a task may reach. Domain values are checked and made canonical when the policy is made."""

    allow: tuple[str, ...] = ()
    block: tuple[str, ...] = ()
    block_private: bool = False
    #: Link-local and metadata targets are refused whatever else the policy says, unless this is set.
    allow_link_local: bool = False
    #: How the private-address refusal tells the user to allow them (who refused, which option).
    private_hint: str = PRIVATE_HINT
    _resolved: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Bad values are refused here (exit 2 from the CLI), never silently matched against nothing.
        object.__setattr__(self, "allow", tuple(canonical_domain(d, "allowed domain") for d in self.allow))
        object.__setattr__(self, "block", tuple(canonical_domain(d, "blocked domain") for d in self.block))

    @property
    def active(self) -> bool:
        return bool(self.allow or self.block or self.block_private)

    def check_domain(self, url: str) -> None:
        """Raise PolicyError (BLOCKED_URL) when the URL's host is blocked or not allowed."""
        try:
            parts = parse_web_url(url)
        except URLParseError as e:
            if not self.active:
                return  # nothing to enforce: the browser reports a URL it cannot open
            raise PolicyError(f"blocked URL {url[:300]}: it cannot be checked ({e})") from None
        if parts.scheme in LOCAL_SCHEMES:
            return
        if parts.scheme not in NETWORK_SCHEMES:
            raise PolicyError(f"blocked URL {url}: scheme {parts.scheme!r} is not allowed")
        self.check_host(parts.host, what=f"URL {url}")

    def check_host(self, host: str, *, what: str) -> None:
        """The domain rules (and the link-local refusal) for one canonical host; ``what`` names the
        request in the message."""
        self.check_link_local_host(host, what=what)
        for domain in self.block:
            if domain_matches(host, domain):
                raise _refused(
                    f"blocked {what}: domain {host} is blocked (--block-domain {domain})",
                    host,
                )
        if self.allow and not any(domain_matches(host, d) for d in self.allow):
            raise _refused(
                f"blocked {what}: domain {host} is not in the allowed domains ({', '.join(self.allow)})",
                host,
            )

    def check_link_local(self, url: str) -> None:
        """Refuse a link-local or cloud metadata target given as an address or a metadata name
        (without a DNS lookup: cheap enough for every request), unless ``allow_link_local``."""
        if self.allow_link_local:
            return
        try:
            parts = parse_web_url(url)
        except URLParseError:
            return  # not a web URL: the domain rules (when active) or the browser say so
        if parts.scheme in NETWORK_SCHEMES:
            self.check_link_local_host(parts.host, what=f"URL {url[:300]}")

    def check_link_local_host(self, host: str, *, what: str) -> None:
        """`check_link_local` for one canonical host."""
        if self.allow_link_local:
            return
        bare = host.strip("[]").rstrip(".")
        try:
            refused = is_link_local_address(bare)
        except ValueError:
            refused = bare in METADATA_HOSTS
        if refused:
            raise _refused(f"blocked {what}: {bare} is not reachable: {LINK_LOCAL_HINT}", host, SSRFBlocked)

    async def check_request(self, url: str) -> None:
        """The check every request and every redirect hop gets, whatever fetches it (the browser's
        routing, the egress proxy, an HTTP client): the whole policy (`check`) when there is one,
        else the link-local rule alone (no lookup). PolicyError (BLOCKED_URL, SSRF_BLOCKED_URL)."""
        if self.active:
            await self.check(url)
        else:
            self.check_link_local(url)

    @property
    def needs_proxy(self) -> bool:
        """Whether a browser context must send its connections through the egress proxy: always,
        unless there is nothing to check (no policy, link-local targets allowed)."""
        return self.active or not self.allow_link_local

    async def check(self, url: str) -> None:
        """Domain rules, link-local targets, then (with block_private) the addresses the host resolves to."""
        self.check_domain(url)  # the link-local refusal included (`check_host`)
        if not self.block_private:
            return
        parts = parse_web_url(url)  # check_domain parsed it already
        if parts.scheme in LOCAL_SCHEMES:
            return
        await self.addresses(parts.host, what=f"URL {url}")

    async def addresses(self, host: str, *, what: str) -> list[str]:
        """With block_private: the addresses of ``host``, all public, else PolicyError (SSRF_BLOCKED_URL).

        Fails closed: a name that does not resolve within DNS_TIMEOUT_S is refused. Answers are kept
        for the run, and the egress proxy connects to exactly these addresses.
        """
        bare = host.strip("[]").rstrip(".")
        found = self._resolved.get(bare)
        if found is None:
            try:
                ipaddress.ip_address(bare)
                found = [bare]
            except ValueError:
                try:
                    infos = await asyncio.wait_for(
                        asyncio.get_running_loop().getaddrinfo(bare, None, type=socket.SOCK_STREAM),
                        DNS_TIMEOUT_S,
                    )
                except (OSError, TimeoutError) as e:
                    reason = "timed out" if isinstance(e, TimeoutError) else (e.strerror or str(e))
                    raise _refused(
                        f"blocked {what}: cannot resolve {bare} to check it ({reason})",
                        host,
                        SSRFBlocked,
                    ) from None
                found = sorted({info[4][0] for info in infos})
            self._resolved[bare] = found
        bad = [a for a in found if is_private_address(a)]
        if bad or not found:
            raise _refused(
                f"blocked {what}: {bare} resolves to the non-public address {bad[0] if bad else '(none)'} "
                f"({self.private_hint})",
                host,
                SSRFBlocked,
            )
        return list(found)
