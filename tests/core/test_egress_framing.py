"""The egress proxy forwards one framing of a request body, never two (RFC 9112 6.3); on 127.0.0.1 only."""

from __future__ import annotations

import asyncio

from curllm_core.egress import EgressProxy, basic_auth
from curllm_core.policy import NetworkPolicy


async def test_a_chunked_request_goes_on_without_its_content_length():
    heads: list[bytes] = []

    async def upstream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        heads.append(await reader.readuntil(b"\r\n\r\n"))
        await reader.readuntil(b"0\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(upstream, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    proxy = EgressProxy(NetworkPolicy(block=("blocked.test",)), upstream=None, on_block=lambda e: None)
    proxy_url = await proxy.start()
    try:
        host, proxy_port = proxy_url.removeprefix("http://").rstrip("/").split(":")
        reader, writer = await asyncio.open_connection(host, int(proxy_port))
        writer.write(
            f"POST http://127.0.0.1:{port}/form HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Proxy-Authorization: {basic_auth(proxy.username, proxy.password)}\r\n"
            "Content-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n".encode()
        )
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 10)
        writer.close()
    finally:
        await proxy.close()
        server.close()
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"ok"), answer
    head = heads[0].decode().lower()
    assert "transfer-encoding: chunked" in head and "content-length" not in head, head
