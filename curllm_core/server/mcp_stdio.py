"""The lines `curllm mcp` reads from stdin: bounded, and every bad one answered with a JSON-RPC error.

The SDK's stdio transport drops a line it cannot decode without a word (the client waits forever)
and buffers a line of any length. `MessageLines` is the transport's stdin instead: it reads a line
of at most ``limit`` bytes (a longer one is skipped in chunks, never held whole), passes on the
lines that are JSON-RPC messages, and answers the others through the transport's own writer, with
``id`` null: -32700 (parse error) for a line that is not JSON, is cut short or is nested too deep
(the SDK's decoder refuses more than ~200 levels), -32600 (invalid request) for JSON that is not a
JSON-RPC message and for a line over the limit. The next line is read as usual.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from typing import BinaryIO

import anyio
import mcp_types as types
from anyio.abc import ObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

log = logging.getLogger("curllm.mcp")

_CHUNK = 64 * 1024  # how much of an over-long line is read (and dropped) at a time


@contextlib.contextmanager
def claimed_stdin() -> Iterator[BinaryIO]:
    """stdin's wire, read from a private duplicate while fd 0 points at the null device (as the SDK's
    own transport does for its stdin), so the browser and other children read EOF, never a message."""
    try:
        wire = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        yield sys.stdin.buffer
        return
    os.dup2(null, 0)
    os.close(null)
    try:
        # closefd=False: a reader thread may still block on it after the server ends.
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        os.dup2(wire, 0)


def parse_error(line: str) -> types.ErrorData | None:
    """None for a JSON-RPC message; else the error to answer it with (-32700 or -32600)."""
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as e:
        if any(err["type"] == "json_invalid" for err in e.errors()):
            reason = e.errors()[0]["msg"].removeprefix("Invalid JSON: ")
            return types.ErrorData(code=types.PARSE_ERROR, message=f"Parse error: {reason}")
        return types.ErrorData(
            code=types.INVALID_REQUEST,
            message="Invalid Request: not a JSON-RPC 2.0 request, notification or response",
        )
    return None


class MessageLines:
    """An async iterator of stdin's JSON-RPC lines (str) for ``stdio_server(stdin=...)``.

    Set ``answer`` to the transport's write stream once it is open: bad lines are answered there.
    """

    def __init__(self, source: BinaryIO, limit: int):
        self.source, self.limit = source, limit
        self._answer: ObjectSendStream[SessionMessage] | None = None
        self._ready = anyio.Event()

    @property
    def answer(self) -> ObjectSendStream[SessionMessage] | None:
        return self._answer

    @answer.setter
    def answer(self, stream: ObjectSendStream[SessionMessage]) -> None:
        self._answer = stream
        self._ready.set()

    def __aiter__(self) -> MessageLines:
        return self

    async def __anext__(self) -> str:
        while True:
            raw = await anyio.to_thread.run_sync(self.source.readline, self.limit + 1)
            if not raw:
                raise StopAsyncIteration
            if len(raw) > self.limit and not raw.endswith(b"\n"):
                await self._skip_rest()
                await self._refuse(
                    types.ErrorData(
                        code=types.INVALID_REQUEST,
                        message=f"Invalid Request: a message over {self.limit} bytes (the limit); it was skipped",
                    )
                )
                continue
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            error = parse_error(line)
            if error is None:
                return line
            await self._refuse(error)

    async def _skip_rest(self) -> None:
        while True:
            chunk = await anyio.to_thread.run_sync(self.source.readline, _CHUNK)
            if not chunk or chunk.endswith(b"\n"):
                return

    async def _refuse(self, error: types.ErrorData) -> None:
        log.warning("MCP stdin: %s", error.message)
        await self._ready.wait()
        assert self._answer is not None
        await self._answer.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error)))
