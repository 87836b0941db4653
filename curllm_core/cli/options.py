"""What ``run`` and ``batch`` share: browser and network options, reading JSON arguments, logging,
and reporting the registry's problems (name clashes, bad manifests, broken plugins)."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..errors import UsageError

if TYPE_CHECKING:
    from ..executor import RunOptions
    from ..registry import Registry

F = TypeVar("F", bound=Callable[..., Any])


def _check_viewport(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Refuse a bad --viewport while parsing, before anything runs."""
    from ..browser import parse_viewport

    if value is not None:
        try:
            parse_viewport(value)
        except ValueError as e:
            raise click.BadParameter(str(e)) from None
    return value


def browser_options(fn: F) -> F:
    """The browser and network options, shared by `run` and `batch`."""
    options = [
        click.option(
            "--timeout", type=click.FloatRange(min=0.1), help="Time limit of the whole task, in seconds."
        ),
        click.option("--headful", is_flag=True, help="Show the browser window (needs a display)."),
        click.option("--locale", help="Browser locale, e.g. pl-PL."),
        click.option("--user-agent", help="Browser user agent."),
        click.option("--viewport", callback=_check_viewport, help="Viewport WIDTHxHEIGHT, e.g. 1280x800."),
        click.option("--proxy", help="Proxy URL, e.g. http://proxy:3128."),
        click.option(
            "--session",
            "session_file",
            type=click.Path(dir_okay=False),
            help="Load and save browser storage state (cookies) here, for logged-in sites.",
        ),
        click.option(
            "--load-images", is_flag=True, help="Load images, media and fonts (blocked by default)."
        ),
        click.option(
            "--screenshots",
            type=click.Path(file_okay=False),
            help="Save a screenshot here when a step fails.",
        ),
        click.option(
            "--allow-domain", multiple=True, help="Only these domains (and subdomains). Repeatable."
        ),
        click.option(
            "--block-domain", multiple=True, help="Never these domains (and subdomains). Repeatable."
        ),
        click.option(
            "--block-private",
            is_flag=True,
            help="Refuse URLs resolving to loopback, private, link-local or reserved addresses.",
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def make_run_options(params: dict[str, Any], url: str | None, data: dict | None) -> RunOptions:
    """RunOptions from the browser options, with the config file's values as defaults."""
    from ..browser import BrowserOptions, parse_viewport
    from ..config import load_config
    from ..executor import RunOptions
    from ..policy import NetworkPolicy

    config = load_config()
    viewport = params.get("viewport") or config.get("viewport")
    try:
        vp = parse_viewport(viewport) if viewport else (1280, 900)
    except ValueError as e:
        raise UsageError(f"--viewport: {e}") from None
    browser = BrowserOptions(
        headless=not params.get("headful"),
        locale=params.get("locale") or config.get("locale"),
        user_agent=params.get("user_agent") or config.get("user_agent"),
        viewport=vp,
        proxy=params.get("proxy") or config.get("proxy"),
        session_file=params.get("session_file"),
        load_images=bool(params.get("load_images") or config.get("load_images")),
        screenshots=params.get("screenshots"),
    )
    policy = NetworkPolicy(
        allow=tuple(params.get("allow_domain") or config.get("allow_domains", ())),
        block=tuple(params.get("block_domain") or config.get("block_domains", ())),
        block_private=bool(params.get("block_private") or config.get("block_private")),
    )
    timeout = params.get("timeout") or config.get("timeout")
    return RunOptions(url=url, data=data or {}, browser=browser, policy=policy, timeout_s=timeout)


def read_json_arg(value: str, what: str) -> Any:
    """JSON from a file path or ``-`` (stdin); UsageError naming the file and the position."""
    try:
        text = sys.stdin.read() if value == "-" else Path(value).read_text(encoding="utf-8")
    except OSError as e:
        raise UsageError(f"{what} {value}: cannot read: {e.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(
            f"{what} {value}: not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        ) from None


def configure_logging(verbose: int) -> None:
    """Log records on stderr as ``curllm: ...``: warnings by default, -v info, -vv debug."""
    logging.basicConfig(
        level=logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING,
        format="curllm: %(message)s",
        stream=sys.stderr,
    )


def report_registry_problems(registry: Registry) -> None:
    """Name clashes, skipped manifests and plugins that failed, on stderr: never silent."""
    for warning in registry.warnings:
        click.echo(f"curllm: warning: {warning}", err=True)
    for problem in registry.problems:
        click.echo(f"curllm: warning: skipped a bad manifest: {problem}", err=True)
    for plugin in registry.plugins:
        if plugin.error:
            click.echo(f"curllm: warning: plugin {plugin.name}: {plugin.error}", err=True)
