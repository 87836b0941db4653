"""The ``curllm`` command. Thin: parse, call the library, render. Exit codes:
0 ok, 1 ran but the result is not ok, 2 bad input (never a traceback), 3 planning failed.

``curllm [URL] "instruction"`` runs a task (the default command); ``curllm tools ...``,
``curllm plugins ...`` and ``curllm batch ...`` are subcommands.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from . import __version__
from .errors import CurllmError, UsageError

EXIT_OK, EXIT_NOT_OK, EXIT_BAD_INPUT, EXIT_PLANNING = 0, 1, 2, 3
FORMATS = ("json", "jsonl", "csv", "table")


def fail(error: CurllmError) -> None:
    """Print an error (every problem listed) and exit with its code."""
    click.echo(f"curllm: error [{error.code}]: {error}", err=True)
    sys.exit(error.exit_code)


class DefaultGroup(click.Group):
    """A group whose first word, when not a subcommand, starts the default ``run`` command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["run", *args]
        elif not args:
            args = ["run"]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(
            "curllm", "[OPTIONS] [URL] INSTRUCTION | --plan FILE\n       curllm COMMAND [ARGS]..."
        )


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="curllm")
def cli() -> None:
    """curllm: say what you want from a web page, get exactly that back as a table or JSON.

    \b
      curllm "find products under 150zł" --url https://shop.example/
      curllm https://news.ycombinator.com "top 10 stories with more than 100 points" --format json
      curllm --plan plan.json --url page.html --format csv
      curllm tools list

    Run `curllm run --help` for every option of a task.
    """


# --- running a task -----------------------------------------------------------------------------


def _check_viewport(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Refuse a bad --viewport while parsing, before anything runs."""
    from .browser import parse_viewport

    if value is not None:
        try:
            parse_viewport(value)
        except ValueError as e:
            raise click.BadParameter(str(e)) from None
    return value


def browser_options(fn):
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


def make_run_options(params: dict[str, Any], url: str | None, data: dict | None):
    from .browser import BrowserOptions, parse_viewport
    from .config import load_config
    from .executor import RunOptions
    from .policy import NetworkPolicy

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


def split_url_and_instruction(words: tuple[str, ...], url: str | None) -> tuple[str | None, str]:
    """``curllm [URL] "instruction"`` in either order: the URL is the word that looks like one."""
    from .urls import looks_like_url

    rest = list(words)
    if url is None:
        for i, word in enumerate(rest):
            if looks_like_url(word):
                url = rest.pop(i)
                break
    return url, " ".join(rest).strip()


@cli.command("run", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("words", nargs=-1)
@click.option("--url", help="The page to start from (http(s), file:// or a local .html path).")
@click.option("--plan", "plan_file", help="Run this plan (a JSON file, or - for stdin) instead of planning.")
@click.option("--input", "input_file", help="Initial data for the plan (a JSON object file, or -).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    help="Output format (default: table on a terminal, else json).",
)
@click.option("-o", "--output", "output_file", type=click.Path(dir_okay=False), help="Write the output here.")
@click.option("--events", "events_to", help="Write step events as JSON lines to this file, or - for stdout.")
@click.option("--model", help="litellm model for planning (default: $CURLLM_MODEL; unset: the rule planner).")
@click.option("--plan-only", is_flag=True, help="Print the plan and stop: no browser, no page fetch.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the plan cache.")
@click.option("--refresh-plan", is_flag=True, help="Plan again and overwrite the cached plan.")
@click.option(
    "--max-replans",
    type=click.IntRange(0, 5),
    default=1,
    show_default=True,
    help="With a model: how many times a failed step may trigger a revised plan.",
)
@click.option("-v", "--verbose", count=True, help="More detail on stderr (-vv for debug logs).")
@browser_options
def run_cmd(
    words: tuple[str, ...],
    url: str | None,
    plan_file: str | None,
    input_file: str | None,
    fmt: str | None,
    output_file: str | None,
    events_to: str | None,
    model: str | None,
    plan_only: bool,
    no_cache: bool,
    refresh_plan: bool,
    max_replans: int,
    verbose: int,
    **browser_params: Any,
) -> None:
    """Run a task: `curllm [URL] "instruction"`, or `curllm --plan FILE [--url URL]`."""
    try:
        code = _run(
            words,
            url,
            plan_file,
            input_file,
            fmt,
            output_file,
            events_to,
            model,
            plan_only,
            no_cache,
            refresh_plan,
            max_replans,
            verbose,
            browser_params,
        )
    except CurllmError as e:
        fail(e)
    sys.exit(code)


def _run(
    words,
    url,
    plan_file,
    input_file,
    fmt,
    output_file,
    events_to,
    model,
    plan_only,
    no_cache,
    refresh_plan,
    max_replans,
    verbose,
    browser_params,
) -> int:
    import asyncio
    import logging

    from .config import load_config
    from .urls import normalize_url

    logging.basicConfig(
        level=logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING,
        format="curllm: %(message)s",
        stream=sys.stderr,
    )
    config = load_config()
    url, instruction = split_url_and_instruction(words, url)
    if plan_file and instruction:
        raise UsageError("give either an instruction or --plan, not both")
    if not plan_file and not instruction:
        raise UsageError('no instruction: try `curllm "find products under 150zł" --url URL`, or --plan FILE')
    data = read_json_arg(input_file, "--input") if input_file else None
    if data is not None and not isinstance(data, dict):
        raise UsageError(
            f"--input {input_file}: must be a JSON object of data keys, got {type(data).__name__}"
        )
    model = model if model is not None else os.environ.get("CURLLM_MODEL") or config.get("model") or None
    fmt = fmt or ("table" if sys.stdout.isatty() and not output_file else "json")

    from .plugins import load_registry

    registry = load_registry()
    report_registry_problems(registry)

    if plan_file:
        from .plan import check_plan

        doc = read_json_arg(plan_file, "--plan")
        plan = check_plan(doc, registry, initial_keys=set(data or {}))
        url = url or plan.url
        if plan_only:
            return _emit(json.dumps(plan.to_dict(), ensure_ascii=False, indent=2) + "\n", output_file)
    else:
        from .planner import resolve_start_url

        try:
            url = resolve_start_url(instruction, url, registry)
        except UsageError:
            if data is None:
                raise
            # With --input data there may be nothing to open: plan on the data alone.
        plan = None
    url = normalize_url(url) if url else None
    if plan_only:
        from .planner import plan_task

        planned = asyncio.run(
            plan_task(
                instruction,
                url,
                registry,
                model=model,
                use_cache=not no_cache,
                refresh=refresh_plan,
                initial_keys=set(data or {}),
            )
        )
        return _emit(json.dumps(planned.plan.to_dict(), ensure_ascii=False, indent=2) + "\n", output_file)

    options = make_run_options(browser_params, url, data)
    bus, closers = _event_bus(events_to, verbose)
    from .api import arun, execute_plan

    try:
        if plan is not None:
            result = asyncio.run(execute_plan(plan, options=options, events=bus, registry=registry))
        else:
            from dataclasses import replace

            options = replace(options, settings={**options.settings, "max_replans": max_replans})
            result = asyncio.run(
                arun(
                    instruction,
                    registry=registry,
                    options=options,
                    events=bus,
                    model=model,
                    use_cache=not no_cache,
                    refresh_plan=refresh_plan,
                )
            )
    except KeyboardInterrupt:
        click.echo("curllm: interrupted", err=True)
        return 130
    finally:
        for close in closers:
            close()
    from .render import render

    _emit(render(result, fmt), output_file)
    if not result.ok and fmt != "table":
        for error in result.errors:
            click.echo(f"curllm: error [{error.get('code')}]: {error.get('message')}", err=True)
    return EXIT_OK if result.ok else EXIT_NOT_OK


def _event_bus(events_to: str | None, verbose: int):
    from .events import EventBus, JsonlSink, TerminalSink

    bus, closers = EventBus(), []
    if events_to:
        if events_to == "-":
            bus.add(JsonlSink(sys.stdout))
        else:
            try:
                stream = open(events_to, "a", encoding="utf-8")  # noqa: SIM115 - closed by the caller
            except OSError as e:
                raise UsageError(f"--events {events_to}: cannot open: {e.strerror}") from None
            sink = JsonlSink(stream, close=True)
            bus.add(sink)
            closers.append(sink.close)
    if sys.stderr.isatty() or verbose:
        bus.add(TerminalSink())
    return bus, closers


def _emit(text: str, output_file: str | None) -> int:
    if output_file:
        try:
            Path(output_file).write_text(text, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"-o {output_file}: cannot write: {e.strerror}") from None
    else:
        click.echo(text, nl=False)
    return EXIT_OK


# --- tools and plugins -------------------------------------------------------------------------


@cli.group()
def tools() -> None:
    """List, show, validate and create tools."""


@tools.command("list")
@click.option("--category", type=click.Choice(["extraction", "forms", "navigation", "validation"]))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
def tools_list(category: str | None, as_json: bool) -> None:
    """Every installed tool, as category.name."""
    from .plugins import load_registry

    registry = load_registry()
    rows = [m for m in registry if not category or m.category == category]
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "name": m.key,
                        "category": m.category,
                        "version": m.version,
                        "description": m.description,
                        "source": m.source,
                        "path": m.path,
                        "sites": list(m.sites),
                        "produces": list(m.produces),
                        "consumes": list(m.consumes),
                        "effects": m.effects,
                    }
                    for m in rows
                ],
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        width = max((len(m.key) for m in rows), default=10)
        for m in rows:
            source = "" if m.source == "builtin" else f"  [{m.source}]"
            click.echo(f"{m.key:<{width}}  {m.version:<7} {m.description.split('. ')[0][:80]}{source}")
        click.echo(f"{len(rows)} tools", err=True)
    report_registry_problems(registry)


def report_registry_problems(registry) -> None:
    """Name clashes, skipped manifests and plugins that failed, on stderr: never silent."""
    for warning in registry.warnings:
        click.echo(f"curllm: warning: {warning}", err=True)
    for problem in registry.problems:
        click.echo(f"curllm: warning: skipped a bad manifest: {problem}", err=True)
    for plugin in registry.plugins:
        if plugin.error:
            click.echo(f"curllm: warning: plugin {plugin.name}: {plugin.error}", err=True)


@tools.command("show")
@click.argument("name")
def tools_show(name: str) -> None:
    """Print one tool's manifest (category.name, or a bare name when unambiguous)."""
    from .plugins import load_registry

    try:
        manifest = load_registry().resolve(name)
    except CurllmError as e:
        fail(e)
    doc = manifest.to_dict() | {"x-source": manifest.source, "x-path": manifest.path}
    click.echo(json.dumps(doc, ensure_ascii=False, indent=2))


@tools.command("validate")
@click.argument("paths", nargs=-1, type=click.Path())
def tools_validate(paths: tuple[str, ...]) -> None:
    """Check manifests (files or directories; default: every installed tool). Exit 1 on any problem."""
    from .manifest import check_manifest, read_manifest
    from .tool import load_callable

    files: list[Path] = []
    if not paths:
        from .plugins import load_registry

        registry = load_registry(use_cache=False)
        files = [Path(m.path) for m in registry if m.path]
        bad = list(registry.problems)
        for m in registry:
            try:
                load_callable(m, registry.impls.get(m.key))
            except CurllmError as e:
                from .errors import Problem

                bad.append(Problem(e.message, "/entrypoint", m.path or m.source))
        files = []
    else:
        bad = []
        for p in map(Path, paths):
            if p.is_dir():
                files += sorted(f for f in p.rglob("*.json") if not f.name.endswith(".schema.json"))
            elif p.is_file():
                files.append(p)
            else:
                from .errors import Problem

                bad.append(Problem("no such file or directory", "", str(p)))
    checked = 0
    for f in files:
        checked += 1
        try:
            doc = read_manifest(f)
        except CurllmError as e:
            bad += e.problems
            continue
        problems = check_manifest(doc, source=str(f))
        if not problems:
            from .manifest import Manifest

            manifest = Manifest.from_dict(doc, path=str(f.resolve()))
            try:
                load_callable(manifest)
            except CurllmError as e:
                from .errors import Problem

                problems.append(Problem(e.message, "/entrypoint", str(f)))
        bad += problems
    for problem in bad:
        click.echo(f"{problem}")
    total = checked if paths else "all installed"
    click.echo(f"{len(bad)} problem(s) in {total} manifest(s)", err=True)
    sys.exit(1 if bad else 0)


@tools.command("manifest")
@click.argument("target")
def tools_manifest(target: str) -> None:
    """Print the manifest a code-first tool (MODULE:FUNC, made with @tool) would have."""
    import importlib

    from .tool import CodeTool, manifest_for_function

    module, _, attr = target.partition(":")
    if not attr:
        fail(UsageError(f"expected MODULE:FUNC, got {target!r}"))
    sys.path.insert(0, os.getcwd())
    try:
        obj = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except Exception as e:  # the user's module: report any import failure plainly
        fail(UsageError(f"cannot import {target}: {type(e).__name__}: {e}"))
    if isinstance(obj, CodeTool):
        doc = obj.manifest.to_dict()
    elif callable(obj):
        try:
            doc = manifest_for_function(obj, category="extraction")
        except (TypeError, ValueError) as e:
            fail(UsageError(f"{target}: {e}"))
    else:
        fail(UsageError(f"{target} is not a function"))
    click.echo(json.dumps(doc, ensure_ascii=False, indent=2))


@tools.command("new")
@click.argument("name")
@click.option(
    "--category",
    type=click.Choice(["extraction", "forms", "navigation", "validation"]),
    help="The tool's category (or give NAME as category.name).",
)
@click.option(
    "--dir",
    "directory",
    default="curllm_tools",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Where to write it; load it with CURLLM_TOOLS_PATH=DIR.",
)
@click.option("--force", is_flag=True, help="Overwrite existing files.")
def tools_new(name: str, category: str | None, directory: str, force: bool) -> None:
    """Create a tool to start from: a manifest, its code and a passing test."""
    from .scaffold import new_tool

    try:
        made = new_tool(name, category, directory, force=force)
    except CurllmError as e:
        fail(e)
    d = made.directory.as_posix()
    path = os.environ.get("CURLLM_TOOLS_PATH")
    tools_path = f"{d}{os.pathsep}{path}" if path else d
    click.echo(
        f"Created {made.key} in {d}/:\n"
        f"  {made.manifest.as_posix():<40} the manifest: what it does, parameters, output, selectors\n"
        f"  {made.code.as_posix():<40} the code: async def run(ctx, **params)\n"
        f"  {made.test.as_posix():<40} a test with curllm's pytest fixtures\n\n"
        "Next:\n"
        f"  export CURLLM_TOOLS_PATH={tools_path}\n"
        f"  curllm tools validate {d}\n"
        f"  curllm tools show {made.key}\n"
        f"  pytest {d}        # needs pytest-asyncio; browser tests need a Chromium"
    )


@cli.group()
def plugins() -> None:
    """Installed plugins."""


@plugins.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
def plugins_list(as_json: bool) -> None:
    """Every plugin with its version, tools and load errors."""
    from .plugins import load_registry

    registry = load_registry()
    if as_json:
        click.echo(json.dumps([p.to_dict() for p in registry.plugins], ensure_ascii=False, indent=2))
        return
    for p in registry.plugins:
        status = f"ERROR: {p.error}" if p.error else f"{len(p.tools)} tools"
        click.echo(f"{p.name:<24} {p.version or '-':<8} {status}")


# --- batch -------------------------------------------------------------------------------------


@cli.command("batch", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("tasks_file", metavar="TASKS")
@click.option(
    "--out",
    "-o",
    "out",
    type=click.Path(dir_okay=False),
    help="Append one JSON line per finished task here (synced to disk); default: stdout.",
)
@click.option("--resume", is_flag=True, help="Skip the task ids already in --out (re-runs cancelled ones).")
@click.option(
    "--retry-failed", is_flag=True, help="With --resume: also run again the tasks recorded as failed."
)
@click.option("--overwrite", is_flag=True, help="Empty --out first instead of refusing a file with results.")
@click.option(
    "--concurrency",
    "-j",
    type=click.IntRange(1, 64),
    help="Tasks running at once, in one browser (default: config concurrency, else 2).",
)
@click.option(
    "--input-format",
    type=click.Choice(["jsonl", "json", "yaml", "csv"]),
    help="Format of TASKS (default: by extension; for - it is guessed from the content).",
)
@click.option("--model", help="litellm model for planning (default: $CURLLM_MODEL; unset: the rule planner).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the plan cache.")
@click.option(
    "--refresh-plan", is_flag=True, help="Plan each distinct instruction again, overwriting the cache."
)
@click.option(
    "--max-replans",
    type=click.IntRange(0, 5),
    default=1,
    show_default=True,
    help="With a model: how many times a failed step may trigger a revised plan.",
)
@click.option(
    "--events", "events_to", help="Write every task's step events (with a task field) to this file."
)
@click.option(
    "--progress/--no-progress", default=None, help="Progress bar on stderr (default: on a terminal)."
)
@click.option("-v", "--verbose", count=True, help="More detail on stderr (-vv for debug logs).")
@browser_options
def batch_cmd(
    tasks_file: str,
    out: str | None,
    resume: bool,
    retry_failed: bool,
    overwrite: bool,
    concurrency: int | None,
    input_format: str | None,
    model: str | None,
    no_cache: bool,
    refresh_plan: bool,
    max_replans: int,
    events_to: str | None,
    progress: bool | None,
    verbose: int,
    **browser_params: Any,
) -> None:
    """Run many tasks from TASKS (JSONL, YAML or CSV; - for stdin) concurrently in one browser.

    \b
    A task: {"id": "a1", "url": "https://shop/", "instruction": "find products under 150zł"}
    or, instead of the instruction, "plan": a plan (in CSV: JSON text or a plan file path).
    Optional: "data" (initial data), "model", "timeout" (s), "expected_output" (with a plan).
    Browser and network options apply to every task; --timeout is each task's limit.

    \b
      curllm batch tasks.jsonl --out results.jsonl -j 4
      curllm batch tasks.jsonl --out results.jsonl --resume    # after a crash or Ctrl-C
    Exit: 0 all ok, 1 any failed, 2 unreadable tasks or bad options, 130 interrupted.
    """
    import logging
    from dataclasses import replace

    from .batch import BatchSpec, run_cli

    logging.basicConfig(
        level=logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING,
        format="curllm: %(message)s",
        stream=sys.stderr,
    )
    try:
        options = make_run_options(browser_params, None, None)
        options = replace(options, settings={**options.settings, "max_replans": max_replans})
        model = model if model is not None else os.environ.get("CURLLM_MODEL") or None
        spec = BatchSpec(
            tasks=tasks_file,
            input_format=input_format,
            out=out,
            resume=resume,
            retry_failed=retry_failed,
            overwrite=overwrite,
            concurrency=concurrency,
            model=model,
            use_cache=not no_cache,
            refresh_plan=refresh_plan,
            events=events_to,
            progress=progress,
            options=options,
        )
        code = run_cli(spec)
    except CurllmError as e:
        fail(e)
    sys.exit(code)


def main() -> None:
    """Console entry point."""
    try:
        cli.main(prog_name="curllm")
    except CurllmError as e:  # errors raised outside a command's own handling
        fail(e)
