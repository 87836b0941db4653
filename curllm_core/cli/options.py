"""What ``run`` and ``batch`` share: browser and network options, reading JSON arguments, logging,
and reporting the registry's problems (name clashes, bad manifests, broken plugins)."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..errors import UsageError

if TYPE_CHECKING:
    from ..executor import RunOptions
    from ..registry import Registry

F = TypeVar("F", bound=Callable[..., Any])


def _check_viewport(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Refuse a bad --viewport while parsing, before anything runs."""
    from ..option_rules import option_problem

    if value is not None and (problem := option_problem("viewport", value)) is not None:
        raise click.BadParameter(problem)
    return value


class BrowserOption(click.Option):
    """A browser or network option: ``--help`` lists these in a section of their own."""


def write_option_sections(
    command: click.Command, ctx: click.Context, formatter: click.HelpFormatter, title: str = "Options"
) -> None:
    """The command's options under ``title``, then its browser and network options (docs/cli.md's
    two tables). ``ctx`` may be another command's (``curllm --help`` lists run's options)."""
    own: list[tuple[str, str]] = []
    browser: list[tuple[str, str]] = []
    help_option = command.get_help_option(ctx)
    for param in command.get_params(ctx):
        if not isinstance(param, click.Option):
            continue  # arguments are in the usage line
        if param is help_option and ctx.command is not command:
            continue  # listing run's options under `curllm --help`: the group has its own -h
        record = param.get_help_record(ctx)
        if record:
            (browser if isinstance(param, BrowserOption) else own).append(record)
    for heading, records in ((title, own), ("Browser and network options", browser)):
        if records:
            with formatter.section(heading):
                formatter.write_dl(records)


class SectionedCommand(click.Command):
    """A command whose ``--help`` lists the browser and network options apart."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        write_option_sections(self, ctx, formatter)


def browser_options(fn: F) -> F:
    """The browser and network options, shared by `run` and `batch`.

    Their help texts are the start of their lines in docs/cli.md (tests/test_docs.py checks it).
    """

    def option(*decls: str, **kwargs: Any) -> Callable[[F], F]:
        return click.option(*decls, cls=BrowserOption, **kwargs)

    options = [
        option(
            "--timeout",
            type=click.FloatRange(min=0.1),
            metavar="SECONDS",
            help="Time limit of the task, planning included (at least 0.1) (default: config timeout, else "
            "600 for curllm run, none for each task of a batch).",
        ),
        option(
            "--ready-timeout",
            type=click.FloatRange(min=0),
            metavar="SECONDS",
            help="How long reading a page waits for its content (network quiet, DOM stable, no loading "
            "placeholders); 0 reads it as it is (default: config ready_timeout, else 5).",
        ),
        option(
            "--headful",
            is_flag=True,
            help="Show the browser window. Needs a display (DISPLAY or WAYLAND_DISPLAY); "
            "without one it runs headless with a warning.",
        ),
        option(
            "--locale",
            metavar="LOCALE",
            help="Browser locale, e.g. pl-PL (default: config locale, else Chromium's).",
        ),
        option(
            "--user-agent",
            metavar="UA",
            help="Browser user agent (default: config user_agent, else Chromium's).",
        ),
        option(
            "--viewport",
            metavar="WxH",
            callback=_check_viewport,
            help="Viewport size, e.g. 1280x800 (default: config viewport, else 1280x900).",
        ),
        option(
            "--proxy", metavar="URL", help="Proxy server, e.g. http://proxy:3128 (default: config proxy)."
        ),
        option(
            "--session",
            "session_file",
            metavar="FILE",
            type=click.Path(dir_okay=False),
            help="Load the browser's storage state (cookies, local storage) from FILE when it exists, "
            "and save it there when the task ends: log in once, reuse the session.",
        ),
        option(
            "--load-images",
            is_flag=True,
            help="Load images, media and fonts (blocked by default: pages load faster).",
        ),
        option(
            "--consent",
            metavar="MODE",
            type=click.Choice(["reject", "accept", "leave"], case_sensitive=False),
            help="What to answer a page's consent dialogs (cookies): reject (the least consent offered; "
            "accept only where nothing else lets the page be used), accept, or leave them "
            "(default: config consent, else reject).",
        ),
        option(
            "--engine",
            metavar="ENGINE",
            type=click.Choice(["auto", "http", "browser"], case_sensitive=False),
            help="What reads the pages: auto (http where the plan allows it, the browser otherwise and "
            "whenever the HTML's answer cannot be trusted), http (the HTML fetched without a browser: plans "
            "whose steps all read HTML, much faster) or browser (Chromium, every tool) (default: config "
            "engine, else auto).",
        ),
        option(
            "--screenshots",
            metavar="DIR",
            type=click.Path(file_okay=False),
            help="Save DIR/step<N>-<category.name>.png when a step fails.",
        ),
        option(
            "--allow-domain",
            metavar="DOMAIN",
            multiple=True,
            help="Only these domains and their subdomains (www. ignored). Repeatable.",
        ),
        option(
            "--block-domain",
            metavar="DOMAIN",
            multiple=True,
            help="Never these domains and their subdomains. Repeatable; checked before --allow-domain.",
        ),
        option(
            "--block-private",
            is_flag=True,
            help="Refuse URLs whose host resolves to a loopback, private, link-local (169.254.169.254 "
            "included), reserved, multicast or unspecified address.",
        ),
        option(
            "--allow-link-local",
            is_flag=True,
            help="Let tasks reach link-local and cloud metadata addresses (169.254.0.0/16, fe80::/10, "
            "metadata.google.internal), refused by default.",
        ),
    ]
    for decorate in reversed(options):
        fn = decorate(fn)
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
        consent=(params.get("consent") or config.get("consent") or "reject").lower(),
        consent_asked=bool(params.get("consent") or config.get("consent")),
        ready_timeout_ms=ready_timeout_ms(params.get("ready_timeout"), config.get("ready_timeout")),
    )
    policy = NetworkPolicy(
        allow=tuple(params.get("allow_domain") or config.get("allow_domains", ())),
        block=tuple(params.get("block_domain") or config.get("block_domains", ())),
        block_private=bool(params.get("block_private") or config.get("block_private")),
        allow_link_local=bool(params.get("allow_link_local")),
    )
    if policy.active and browser.proxy:
        from ..egress import parse_upstream

        parse_upstream(browser.proxy)  # a proxy the egress proxy cannot chain to: exit 2, not a failed step
    timeout = params.get("timeout") or config.get("timeout")
    from ..engines import DEFAULT_ENGINE

    engine = (params.get("engine") or config.get("engine") or DEFAULT_ENGINE).lower()
    return RunOptions(
        url=url, data=data or {}, browser=browser, policy=policy, timeout_s=timeout, engine=engine
    )


def ready_timeout_ms(*seconds: float | None) -> int:
    """The readiness bound in ms: the first of ``seconds`` given (the option, then the config), else
    the default."""
    from ..readiness import READY_TIMEOUT_MS

    for value in seconds:
        if value is not None:
            return int(value * 1000)
    return READY_TIMEOUT_MS


def read_json_arg(value: str, what: str) -> Any:
    """JSON from a file path or ``-`` (stdin); UsageError naming the file and the position."""
    from ..limits import MAX_DEPTH, MAX_DOCUMENT_BYTES, TooDeep, loads, size_text

    try:
        if value == "-":
            text = sys.stdin.read(MAX_DOCUMENT_BYTES + 1)
        else:
            with open(value, encoding="utf-8") as f:
                text = f.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as e:
        raise UsageError(f"{what} {value}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise UsageError(f"{what} {value}: not UTF-8 text (byte {e.start})") from None
    if len(text) > MAX_DOCUMENT_BYTES:
        raise UsageError(f"{what} {value}: larger than {size_text(MAX_DOCUMENT_BYTES)}")
    try:
        return loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(
            f"{what} {value}: not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        ) from None
    except TooDeep:
        raise UsageError(
            f"{what} {value}: nested more than {MAX_DEPTH} levels deep (no plan or data needs that)"
        ) from None


class _Formatter(logging.Formatter):
    """``curllm: warning: ...`` for warnings (as every warning the CLI shows), ``curllm: ...`` else."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return f"curllm: warning: {text}" if record.levelno == logging.WARNING else f"curllm: {text}"


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a record comes (a test runner swaps it per call)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(_Formatter("%(message)s"))

    @property
    def stream(self):  # noqa: D102
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def configure_logging(verbose: int) -> None:
    """Log records on stderr as ``curllm: ...``: warnings by default, -v info, -vv debug.

    The library only logs (planner fallbacks, a dropped event sink, ...): this is where they are shown.
    """
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _StderrHandler)]:
        root.removeHandler(handler)  # one per process, however many commands ran in it
    root.addHandler(_StderrHandler())
    root.setLevel(logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING)


def report_registry_problems(registry: Registry) -> None:
    """Name clashes, skipped manifests and plugins that failed, on stderr: never silent."""
    for warning in registry.warnings:
        click.echo(f"curllm: warning: {warning}", err=True)
    for problem in registry.problems:
        click.echo(f"curllm: warning: skipped a bad manifest: {problem}", err=True)
    for plugin in registry.plugins:
        if plugin.error:
            click.echo(f"curllm: warning: plugin {plugin.name}: {plugin.error}", err=True)
