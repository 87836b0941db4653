"""Only its own browser context may use a task's egress proxy, and the user's upstream proxy
credentials go to that proxy alone; real sockets, on 127.0.0.1 only."""

from __future__ import annotations

import pytest

from curllm_core.egress import EgressProxy, basic_auth
from curllm_core.policy import NetworkPolicy

from .proxy_peer import Recorder, ask

USER_AUTH = basic_auth("user", "s3cret")


@pytest.fixture
async def upstream():
    recorder = Recorder()
    port = await recorder.start()
    yield recorder, port
    recorder.close()


async def test_a_caller_without_the_proxys_credentials_gets_407_and_nothing_is_sent(upstream):
    recorder, port = upstream
    proxy = EgressProxy(
        NetworkPolicy(block=("blocked.test",)), upstream=f"http://user:s3cret@127.0.0.1:{port}"
    )
    url = await proxy.start()
    try:
        stranger = [
            "GET http://shop.test/ HTTP/1.1\r\nHost: shop.test\r\n\r\n",
            "CONNECT shop.test:443 HTTP/1.1\r\nHost: shop.test:443\r\n\r\n",
            # Wrong credentials, or the user's own (upstream) ones: still not this proxy's.
            f"GET http://shop.test/ HTTP/1.1\r\nProxy-Authorization: {basic_auth('curllm', 'guess')}\r\n\r\n",
            f"GET http://shop.test/ HTTP/1.1\r\nProxy-Authorization: {USER_AUTH}\r\n\r\n",
        ]
        for head in stranger:
            answer = await ask(url, head)
            assert answer.startswith(b"HTTP/1.1 407 "), answer
            assert b"Proxy-Authenticate: Basic" in answer
        assert recorder.heads == [], "a stranger's request went upstream"
        assert proxy.refused_callers == len(stranger) and proxy.requests == 0
    finally:
        await proxy.close()


async def test_the_users_credentials_go_to_the_users_proxy_only(upstream):
    recorder, port = upstream
    proxy = EgressProxy(
        NetworkPolicy(block=("blocked.test",)), upstream=f"http://user:s3cret@127.0.0.1:{port}"
    )
    url = await proxy.start()
    own = basic_auth(proxy.username, proxy.password)
    try:
        answer = await ask(
            url, f"GET http://shop.test/a HTTP/1.1\r\nHost: shop.test\r\nProxy-Authorization: {own}\r\n\r\n"
        )
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"ok"), answer
        # A refused host (a redirect's next hop, say) reaches nobody, credentials or not.
        await ask(url, f"GET http://blocked.test/ HTTP/1.1\r\nProxy-Authorization: {own}\r\n\r\n")
    finally:
        await proxy.close()
    [head] = recorder.heads
    assert head.startswith("GET http://shop.test/a HTTP/1.1")
    assert f"Proxy-Authorization: {USER_AUTH}" in head, head  # the user's, for the user's proxy
    assert proxy.password not in head and own not in head  # the context's own never goes on


async def test_without_an_upstream_no_proxy_credentials_go_to_the_target(upstream):
    recorder, port = upstream
    proxy = EgressProxy(NetworkPolicy())  # no policy: link-local targets refused, the rest passes
    url = await proxy.start()
    own = basic_auth(proxy.username, proxy.password)
    try:
        head = f"GET http://127.0.0.1:{port}/x HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nProxy-Authorization: {own}\r\n\r\n"
        assert (await ask(url, head)).endswith(b"ok")
    finally:
        await proxy.close()
    [head] = recorder.heads
    assert head.startswith("GET /x HTTP/1.1") and "proxy-authorization" not in head.lower(), head


async def test_without_a_policy_the_proxy_still_refuses_link_local_targets(upstream):
    recorder, port = upstream
    # The recorder stands as the upstream: were the refusal broken, it (on 127.0.0.1) would get it.
    proxy = EgressProxy(NetworkPolicy(), upstream=f"http://127.0.0.1:{port}")
    url = await proxy.start()
    own = basic_auth(proxy.username, proxy.password)
    try:
        for target in (
            "http://169.254.169.254/latest/",
            "http://[fe80::1]/",
            "http://metadata.google.internal/",
        ):
            assert await ask(url, f"GET {target} HTTP/1.1\r\nProxy-Authorization: {own}\r\n\r\n") == b""
        assert (
            await ask(url, f"CONNECT 169.254.169.254:443 HTTP/1.1\r\nProxy-Authorization: {own}\r\n\r\n")
            == b""
        )
        assert (
            await ask(url, f"GET http://shop.test/ HTTP/1.1\r\nProxy-Authorization: {own}\r\n\r\n")
        ).endswith(b"ok")
    finally:
        await proxy.close()
    assert [h.split("\r\n")[0] for h in recorder.heads] == ["GET http://shop.test/ HTTP/1.1"]
