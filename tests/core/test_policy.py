"""The network policy's address rules, on addresses only: nothing is sent anywhere."""

from __future__ import annotations

import pytest

from curllm_core.errors import PolicyError, SSRFBlocked
from curllm_core.policy import NetworkPolicy, is_link_local_address, is_private_address
from curllm_core.urls import parse_web_url


@pytest.mark.parametrize(
    "address",
    [
        "2002:7f00:1::1",  # 6to4 wrapping 127.0.0.1
        "2002:a9fe:a9fe::1",  # 6to4 wrapping 169.254.169.254
        "2002:c0a8:0101::1",  # 6to4 wrapping 192.168.1.1
        "fec0::1",  # site-local (deprecated, never public)
        "fd00:ec2::254",  # AWS's IPv6 metadata address
        "::ffff:10.0.0.1",
        "127.0.0.1",
        "169.254.169.254",
    ],
)
def test_private_addresses_however_wrapped(address):
    assert is_private_address(address)


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1::1", "2002:5db8:d822::1"])
def test_public_addresses_stay_public(address):
    assert not is_private_address(address)


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://0xa9fea9fe/",  # the same address in another spelling
        "http://2852039166/",
        "http://[fe80::1]/",
        "http://[::ffff:169.254.169.254]/",
        "http://[2002:a9fe:a9fe::1]/",
        "http://[fd00:ec2::254]/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "https://metadata.google.internal./",
        "ws://169.254.1.1/socket",
    ],
)
async def test_link_local_and_metadata_targets_are_refused_by_default(url):
    policy = NetworkPolicy()
    assert not policy.active  # no egress proxy needed: refused as written, without a lookup
    with pytest.raises(SSRFBlocked, match="--allow-link-local"):
        await policy.check(url)
    with pytest.raises(SSRFBlocked):  # the egress proxy's check of each connection, allow list or not
        NetworkPolicy(allow=("169.254.169.254", "metadata.google.internal")).check_host(
            parse_web_url(url).host, what="connection"
        )
    await NetworkPolicy(allow_link_local=True).check(url)  # explicitly allowed


async def test_other_targets_pass_the_link_local_rule():
    for url in (
        "http://127.0.0.1:8080/",
        "https://example.com/",
        "file:///tmp/x.html",
        "http://metadata.example/",
    ):
        await NetworkPolicy().check(url)
    assert is_link_local_address("169.254.0.1") and not is_link_local_address("10.0.0.1")


async def test_a_private_refusal_names_the_option_its_maker_gave():
    policy = NetworkPolicy(block_private=True, private_hint="start it with --allow-private")
    with pytest.raises(PolicyError, match="start it with --allow-private"):
        await policy.check("http://127.0.0.1:1/")


async def test_check_request_is_the_whole_policy_or_the_link_local_rule():
    # No policy: only link-local targets are refused, without a lookup (a name passes unresolved).
    await NetworkPolicy().check_request("http://does-not-resolve.invalid/")
    with pytest.raises(SSRFBlocked):
        await NetworkPolicy().check_request("http://169.254.169.254/")
    await NetworkPolicy(allow_link_local=True).check_request("http://169.254.169.254/")
    # A policy: all of it, the lookup included.
    with pytest.raises(SSRFBlocked):
        await NetworkPolicy(block_private=True).check_request("http://10.1.2.3/")
    assert NetworkPolicy().needs_proxy and NetworkPolicy(block=("x.test",), allow_link_local=True).needs_proxy
    assert not NetworkPolicy(allow_link_local=True).needs_proxy
