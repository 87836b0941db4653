"""A fake OpenAI-compatible chat completions server for planner tests (stdlib only, 127.0.0.1).

    server = FakeLLM().start()
    server.script("{\\"plan\\": [...]}", Reply(status=500, body={...}), Reply(delay=3, content="..."))
    os.environ["CURLLM_API_BASE"] = server.base_url   # litellm talks to it with model="openai/x"
    ...
    server.calls      # how many completions were asked for
    server.requests   # the JSON bodies received
    server.stop()

Replies are served in order; when the script runs out the last one repeats. Nothing here is
specific to curllm: litellm's real HTTP path (the openai client, httpx) is what gets exercised.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer: assistant ``content`` (status 200), or an HTTP error ``status`` with ``body``."""

    content: str = ""
    status: int = 200
    body: dict | None = None
    delay: float = 0.0
    prompt_tokens: int = 100
    completion_tokens: int = 20
    #: Put the request's bearer token into the error message, as some providers do (to test scrubbing).
    echo_key: bool = False


@dataclass
class FakeLLM:
    replies: list[Reply] = field(default_factory=list)
    calls: int = 0
    requests: list[dict] = field(default_factory=list)
    #: The bearer tokens received (to show a key did reach the provider, and only the provider).
    tokens: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # --- control ----------------------------------------------------------------------------

    def script(self, *replies: Reply | str | dict) -> FakeLLM:
        """Replace the scripted replies; a str is assistant content, a dict is sent as JSON content."""
        with self._lock:
            self.replies = [
                r if isinstance(r, Reply) else Reply(content=r if isinstance(r, str) else json.dumps(r))
                for r in replies
            ]
            self.calls = 0
            self.requests = []
            self.tokens = []
        return self

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start() the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                reply = fake._next(body, (self.headers.get("Authorization") or "").removeprefix("Bearer "))
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    error = reply.body or {"error": {"message": "scripted failure", "type": "server_error"}}
                    if reply.echo_key:
                        key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                        error = {
                            "error": {
                                "message": f"Incorrect API key provided: {key}",
                                "type": "invalid_request_error",
                                "code": "invalid_api_key",
                            }
                        }
                    self._send(reply.status, error)
                    return
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-fake{fake.calls}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "x"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": reply.content},
                            }
                        ],
                        "usage": {
                            "prompt_tokens": reply.prompt_tokens,
                            "completion_tokens": reply.completion_tokens,
                            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                        },
                    },
                )

            def _send(self, status: int, doc: dict) -> None:
                data = json.dumps(doc).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

            def log_message(self, *args: Any) -> None:
                pass  # keep test output clean

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # --- internals --------------------------------------------------------------------------

    def _next(self, body: dict, token: str) -> Reply:
        with self._lock:
            self.calls += 1
            self.requests.append(body)
            self.tokens.append(token)
            if not self.replies:
                return Reply(
                    status=500, body={"error": {"message": "no reply scripted", "type": "server_error"}}
                )
            return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
