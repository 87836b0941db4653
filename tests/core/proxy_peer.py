"""A stand-in upstream for the egress proxy's tests: a server on 127.0.0.1 that records the request
heads it gets, and one request sent to a proxy by hand."""

from __future__ import annotations

import asyncio


class Recorder:
    """A server on 127.0.0.1 that records each request head it gets and answers 200 (``tunnel``:
    answers a CONNECT and then echoes what comes through)."""

    def __init__(self) -> None:
        self.heads: list[str] = []
        self.server: asyncio.base_events.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            self.heads.append(head)
            if head.startswith("CONNECT "):
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                while data := await reader.read(1024):
                    writer.write(data)
                    await writer.drain()
            else:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def first_lines(self) -> list[str]:
        return [h.split("\r\n")[0] for h in self.heads]

    def close(self) -> None:
        assert self.server is not None
        self.server.close()


async def ask(proxy_url: str, head: str) -> bytes:
    host, port = proxy_url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(head.encode("latin-1"))
    await writer.drain()
    try:
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
