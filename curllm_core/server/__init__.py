"""curllm as a service: the HTTP API with its playground page (`create_app`), and the MCP server.

Installed with ``pip install 'curllm[server]'`` (Starlette, uvicorn) and ``'curllm[mcp]'`` (the
official MCP SDK); nothing else in curllm imports this package. Everything here is a thin adapter
over the library's one task pipeline: one browser per process, a fresh context per request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]

if TYPE_CHECKING:  # pragma: no cover
    from .app import create_app  # noqa: F401


def __getattr__(name: str):
    # Starlette is imported only when an app is really built.
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module 'curllm_core.server' has no attribute {name!r}")
