"""One egress server, many clients (a browser's contexts): each request is checked with its own
client's policy, refused and failed to reach for its own client, and a client's credentials work
only while it is open and only as a whole; real sockets, on 127.0.0.1 only. Names such as
``shop.test`` never resolve: the recorder on 127.0.0.1 stands as each client's upstream proxy, so
the policy decides on the name and nothing leaves the machine."""

from __future__ import annotations

import asyncio
import base64

import pytest

from curllm_core.egress import EgressServer, basic_auth
from curllm_core.errors import PolicyError
from curllm_core.policy import NetworkPolicy

from .proxy_peer import Recorder, ask


def get(url: str, authorization: str | None) -> str:
    auth = f"Proxy-Authorization: {authorization}\r\n" if authorization is not None else ""
    return f"GET {url} HTTP/1.1\r\nHost: {url.split('/')[2]}\r\n{auth}\r\n"


def auth_of(client) -> str:
    return basic_auth(client.username, client.password)


@pytest.fixture
async def recorder():
    server = Recorder()
    port = await server.start()
    yield server, port
    server.close()


@pytest.fixture
async def egress():
    server = EgressServer()
    await server.start()
    yield server
    await server.close()


async def test_each_request_is_checked_with_its_own_clients_policy_and_refused_for_it_alone(recorder, egress):
    server, port = recorder
    upstream = f"http://127.0.0.1:{port}"
    refused: dict[str, list[PolicyError]] = {"a": [], "b": []}
    a = egress.client(NetworkPolicy(block=("shop.test",)), upstream=upstream, on_block=refused["a"].append)
    b = egress.client(NetworkPolicy(allow=("shop.test",)), upstream=upstream, on_block=refused["b"].append)
    assert a.url == b.url and a.username != b.username and a.password != b.password
    # Both at once, each asking for what the other refuses: no rule of one reaches the other.
    answers = await asyncio.gather(
        ask(egress.url, get("http://shop.test/a", auth_of(a))),
        ask(egress.url, get("http://shop.test/b", auth_of(b))),
        ask(egress.url, get("http://other.test/a", auth_of(a))),
        ask(egress.url, get("http://other.test/b", auth_of(b))),
        ask(egress.url, f"CONNECT shop.test:443 HTTP/1.1\r\nProxy-Authorization: {auth_of(a)}\r\n\r\n"),
        ask(egress.url, f"CONNECT other.test:443 HTTP/1.1\r\nProxy-Authorization: {auth_of(b)}\r\n\r\n"),
    )
    assert [x.endswith(b"ok") for x in answers[:4]] == [False, True, True, False], answers
    assert answers[4] == answers[5] == b""  # refused tunnels: closed, nothing connected
    assert sorted(server.first_lines()) == [
        "GET http://other.test/a HTTP/1.1",
        "GET http://shop.test/b HTTP/1.1",
    ]
    assert [e.host for e in refused["a"]] == ["shop.test", "shop.test"]
    assert [e.host for e in refused["b"]] == ["other.test", "other.test"]
    assert (a.requests, b.requests) == (3, 3)
    for head in server.heads:  # no client's own credentials ever go on
        assert a.password not in head and b.password not in head
        assert "proxy-authorization" not in head.lower()


async def test_only_a_live_clients_whole_credentials_are_accepted(recorder, egress):
    server, port = recorder
    a = egress.client(NetworkPolicy(), upstream=f"http://127.0.0.1:{port}")
    b = egress.client(NetworkPolicy(), upstream=f"http://127.0.0.1:{port}")
    url = "http://shop.test/"
    assert (await ask(egress.url, get(url, auth_of(a)))).endswith(b"ok")
    gone = auth_of(a)
    await a.close()
    wrong = [
        None,
        gone,  # a closed context's
        basic_auth(a.username, b.password),  # one client's name, another's password
        basic_auth(b.username, a.password),
        basic_auth(b.username, b.password + "x"),
        basic_auth(b.username, ""),
        "Basic " + base64.b64encode(b.username.encode()).decode(),  # no password at all
        "Basic not-base64!",
        auth_of(b).replace("Basic", "Bearer"),
    ]
    for authorization in wrong:
        for head in (
            get(url, authorization),
            "CONNECT shop.test:443 HTTP/1.1\r\n"
            + (f"Proxy-Authorization: {authorization}\r\n\r\n" if authorization else "\r\n"),
        ):
            answer = await ask(egress.url, head)
            assert answer.startswith(b"HTTP/1.1 407 "), (authorization, answer)
    assert egress.refused_callers == 2 * len(wrong)
    assert server.first_lines() == ["GET http://shop.test/ HTTP/1.1"], "a refused caller's request went on"
    assert b.requests == 0 and egress.clients == 1
    assert (await ask(egress.url, get(url, auth_of(b)))).endswith(b"ok")  # b is untouched


async def test_closing_a_client_ends_its_tunnels_and_no_other(recorder, egress):
    server, port = recorder
    a = egress.client(NetworkPolicy(block=("blocked.test",)))
    b = egress.client(NetworkPolicy(block=("blocked.test",)))
    host, proxy_port = egress.url.removeprefix("http://").split(":")
    tunnels = []
    for client in (a, b):
        reader, writer = await asyncio.open_connection(host, int(proxy_port))
        writer.write(
            f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\nProxy-Authorization: {auth_of(client)}\r\n\r\n".encode()
        )
        assert (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).startswith(b"HTTP/1.1 200")
        writer.write(b"CONNECT echo:1 HTTP/1.1\r\n\r\n")  # through the tunnel: the recorder echoes
        assert (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).startswith(b"HTTP/1.1 200")
        tunnels.append((reader, writer))
    await a.close()
    assert await asyncio.wait_for(tunnels[0][0].read(), 10) == b""  # a's tunnel is closed
    reader, writer = tunnels[1]
    writer.write(b"still here")
    await writer.drain()
    assert await asyncio.wait_for(reader.readexactly(10), 10) == b"still here"
    for _, w in tunnels:
        w.close()


async def test_a_failed_connection_is_its_own_clients_failure(egress):
    closed = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = closed.sockets[0].getsockname()[1]
    closed.close()
    await closed.wait_closed()
    a = egress.client(NetworkPolicy())
    b = egress.client(NetworkPolicy())
    assert await ask(egress.url, get(f"http://127.0.0.1:{port}/", auth_of(a))) == b""
    assert a.failures == [("127.0.0.1", "net::ERR_CONNECTION_REFUSED")] and b.failures == []


async def test_a_closed_server_refuses_every_client_and_stops_listening(recorder):
    _, port = recorder
    egress = EgressServer()
    url = await egress.start()
    a = egress.client(NetworkPolicy())
    assert (await ask(url, get(f"http://127.0.0.1:{port}/", auth_of(a)))).endswith(b"ok")
    await egress.close()
    assert egress.clients == 0 and a.closed
    with pytest.raises(OSError):
        await ask(url, get(f"http://127.0.0.1:{port}/", auth_of(a)))
    await a.close()  # a context closing after its browser: nothing left to do, no error
