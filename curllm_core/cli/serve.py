"""`curllm serve` (the HTTP API, its playground page and /mcp) and `curllm mcp` (MCP on stdio)."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from ..errors import CurllmError, UsageError
from ..option_rules import MAX_CONCURRENCY
from .app import cli
from .exits import fail
from .options import browser_options, configure_logging, make_run_options, report_registry_problems


def _missing(extra: str, error: ImportError) -> UsageError:
    return UsageError(
        f"this command needs curllm's {extra!r} extra ({error.name or error} is not installed): "
        f"pip install 'curllm[{extra}]'"
    )


def _registry():
    """The installed tools, with their problems (clashes, bad manifests, broken plugins) on stderr."""
    from ..plugins import load_registry

    registry = load_registry()
    report_registry_problems(registry)
    return registry


def _settings(browser_params: dict[str, Any], **kwargs: Any):
    from ..server.settings import (
        BODY_TIMEOUT_S,
        DEFAULT_TIME_LIMIT_S,
        HEAD_TIMEOUT_S,
        ServerSettings,
        env_seconds,
    )

    options = make_run_options(browser_params, None, None)
    limit = options.timeout_s or DEFAULT_TIME_LIMIT_S
    head = env_seconds(os.environ, "CURLLM_SERVER_HEAD_TIMEOUT", HEAD_TIMEOUT_S)
    body = env_seconds(os.environ, "CURLLM_SERVER_BODY_TIMEOUT", BODY_TIMEOUT_S)
    return ServerSettings(
        options=options, time_limit_s=limit, head_timeout_s=head, body_timeout_s=body, **kwargs
    ).checked()


@cli.command("serve", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--host",
    metavar="HOST",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. Anything but loopback needs --token and blocks private target addresses.",
)
@click.option(
    "--port",
    default=8787,
    show_default=True,
    type=click.IntRange(0, 65535),
    metavar="N",
    help="Port; 0 picks a free one (printed).",
)
@click.option(
    "--token",
    envvar="CURLLM_SERVER_TOKEN",
    metavar="TOKEN",
    help="Require Authorization: Bearer TOKEN (8 characters at least).",
)
@click.option(
    "--concurrency",
    "-j",
    type=click.IntRange(1, MAX_CONCURRENCY),
    default=2,
    show_default=True,
    metavar="N",
    help="Tasks running at once (1 to 64).",
)
@click.option(
    "--queue",
    type=click.IntRange(0, 10000),
    default=32,
    show_default=True,
    metavar="N",
    help="Tasks that may wait for a slot; the next request gets 429 QUEUE_FULL.",
)
@click.option(
    "--allow-private",
    is_flag=True,
    help="Let tasks open loopback and private addresses off loopback, and MCP tool calls at /mcp always.",
)
@click.option(
    "--cors-origin",
    metavar="ORIGIN",
    multiple=True,
    help="Let browser pages of ORIGIN call the API (repeatable).",
)
@click.option("--no-mcp", is_flag=True, help="Do not mount the MCP endpoint at /mcp.")
@click.option(
    "--mcp-sessions",
    type=click.IntRange(1, 10000),
    default=100,
    show_default=True,
    metavar="N",
    help="Open /mcp sessions at most (1 to 10000); when full, the longest-idle one is closed for a new "
    "one, or the new one gets 503 if none is idle.",
)
@click.option(
    "--mcp-idle",
    type=click.FloatRange(1, 86400),
    default=300,
    show_default=True,
    metavar="S",
    help="Close an /mcp session after S seconds without a request.",
)
@click.option("-v", "--verbose", count=True, help="-v: one line per request; -vv: debug logs.")
@browser_options
def serve_cmd(
    host: str,
    port: int,
    token: str | None,
    concurrency: int,
    queue: int,
    allow_private: bool,
    cors_origin: tuple[str, ...],
    no_mcp: bool,
    mcp_sessions: int,
    mcp_idle: float,
    verbose: int,
    **browser_params: Any,
) -> None:
    """Serves the HTTP API (/api/...), the playground page (/) and MCP (/mcp) from one process with
    one browser, a fresh browser context per request.

    \b
      curllm serve                                 # http://127.0.0.1:8787/
      curllm serve --host 0.0.0.0 --token "$(openssl rand -hex 16)" -j 4
    --timeout is each request's time limit (default 300 s).
    """
    configure_logging(verbose)
    try:
        settings = _settings(
            browser_params,
            host=host,
            port=port,
            token=token,
            concurrency=concurrency,
            queue=queue,
            allow_private=allow_private,
            cors_origins=tuple(cors_origin),
            mcp=not no_mcp,
            mcp_sessions=mcp_sessions,
            mcp_idle_s=mcp_idle,
        )
        try:
            from ..server.serving import serve
        except ImportError as e:
            raise _missing("server", e) from None

        def ready(url: str) -> None:
            notes = []
            if settings.token:
                notes.append("token required")
            if settings.options.policy.block_private:
                notes.append("private addresses blocked")
            extra = f" ({', '.join(notes)})" if notes else ""
            click.echo(f"curllm: serving on {url}/ (API {url}/api, MCP {url}/mcp){extra}", err=True)

        try:
            serve(
                settings,
                registry=_registry(),
                on_ready=ready,
                log_level="info" if verbose else "warning",
                access_log=verbose > 0,
            )
        except OSError as e:
            raise UsageError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    except CurllmError as e:
        fail(e)
    except KeyboardInterrupt:  # uvicorn has shut down gracefully and passes Ctrl-C on
        sys.exit(130)


@cli.command("mcp", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--concurrency",
    "-j",
    type=click.IntRange(1, 64),
    default=2,
    show_default=True,
    metavar="N",
    help="Tool calls running at once (1 to 64); more wait.",
)
@click.option(
    "--allow-private",
    is_flag=True,
    help="Let tool calls open loopback and private addresses (refused by default: an agent drives "
    "MCP, and a page can steer an agent).",
)
@click.option("-v", "--verbose", count=True, help="More detail on stderr (-vv: debug logs).")
@browser_options
def mcp_cmd(concurrency: int, allow_private: bool, verbose: int, **browser_params: Any) -> None:
    """Serves MCP on stdin/stdout for an MCP client that starts it.

    \b
    Client configuration: {"mcpServers": {"curllm": {"command": "curllm", "args": ["mcp"]}}}
    Tools: run, plan, run_plan, list_tools and every page tool (e.g. extraction_products_generic).
    """
    import asyncio

    configure_logging(verbose)
    try:
        settings = _settings(browser_params, concurrency=concurrency, allow_private=allow_private, mcp=True)
        try:
            from ..server.mcp_server import serve_stdio
        except ImportError as e:
            raise _missing("mcp", e) from None
        from ..server.tasks import TaskService

        asyncio.run(serve_stdio(TaskService(settings, _registry())))
    except CurllmError as e:
        fail(e)
    except KeyboardInterrupt:
        sys.exit(130)
