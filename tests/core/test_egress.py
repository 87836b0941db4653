"""`curllm_core.egress`: the proxy's parsing of what the browser sends (request heads, CONNECT
targets, bodies) and of the user's upstream proxy. Unit tests, no traffic: the proxy's behaviour on
the wire is tested through a real browser in tests/browser/test_security.py."""

from __future__ import annotations

import pytest

from curllm_core.egress import (
    _net_error,
    _parse_request_head,
    _request_body_length,
    _split_authority,
    parse_upstream,
)
from curllm_core.errors import PolicyError, UsageError


def test_a_request_head_is_read():
    head = b"get http://127.0.0.1:8000/a HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nX-A: 1\r\nx-a: 2\r\n\r\n"
    method, target, headers = _parse_request_head(head)
    assert (method, target) == ("GET", "http://127.0.0.1:8000/a")
    assert headers == [("Host", "127.0.0.1:8000"), ("X-A", "1"), ("x-a", "2")]


@pytest.mark.parametrize(
    "head",
    [
        b"GET / HTTP/2\r\n\r\n",  # not HTTP/1.x
        b"GET /\r\n\r\n",  # no version
        b"GET / HTTP/1.1\r\nno colon\r\n\r\n",
        b"GET / HTTP/1.1\r\nA: 1\r\n folded: continuation\r\n\r\n",  # obsolete line folding
    ],
)
def test_a_malformed_request_head_is_refused(head):
    with pytest.raises(ValueError):
        _parse_request_head(head)


def test_connect_targets_are_checked_hosts():
    assert _split_authority("EXAMPLE.com:443") == ("example.com", 443)
    assert _split_authority("0x7f.1:8080") == ("127.0.0.1", 8080)  # the host the policy must see
    assert _split_authority("[::1]:443") == ("[::1]", 443)
    for bad in ("example.com", "example.com:0", "example.com:70000", "example.com:x"):
        with pytest.raises(ValueError):
            _split_authority(bad)
    with pytest.raises(PolicyError):
        _split_authority("exa mple.com:443")


def test_the_request_body_length():
    assert _request_body_length([("Content-Length", "12")]) == 12
    assert _request_body_length([("Transfer-Encoding", "gzip, chunked")]) == "chunked"
    assert _request_body_length([]) == 0
    with pytest.raises(ValueError):
        _request_body_length([("Content-Length", "-1")])


def test_the_upstream_proxy():
    assert parse_upstream("127.0.0.1:3128") == ("127.0.0.1", 3128, None)
    host, port, auth = parse_upstream("http://us%40er:p%3Ass@proxy.internal:8080")
    assert (host, port) == ("proxy.internal", 8080)
    import base64

    assert base64.b64decode(auth.removeprefix("Basic ")).decode() == "us@er:p:ss"
    for bad in ("socks5://127.0.0.1:1080", "https://proxy.internal:443"):
        with pytest.raises(UsageError):
            parse_upstream(bad)


def test_connection_failures_read_as_chromium_errors():
    import socket

    assert _net_error(socket.gaierror()) == "net::ERR_NAME_NOT_RESOLVED"
    assert _net_error(ConnectionRefusedError()) == "net::ERR_CONNECTION_REFUSED"
    assert _net_error(TimeoutError()) == "net::ERR_CONNECTION_TIMED_OUT"
    assert _net_error(None) == "net::ERR_CONNECTION_FAILED"
