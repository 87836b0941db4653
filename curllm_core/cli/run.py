"""``curllm run`` (the default command): one task, planned or from ``--plan``, rendered."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, replace
from typing import Any

import click

from ..errors import CurllmError, UsageError
from ..option_rules import MAX_REPLANS
from .app import cli
from .exits import EXIT_NOT_OK, EXIT_OK, fail
from .options import (
    SectionedCommand,
    browser_options,
    configure_logging,
    make_run_options,
    read_json_arg,
    report_registry_problems,
)
from .sinks import emit, event_bus

#: `curllm run`'s time limit when neither --timeout nor the config's ``timeout`` gives one.
DEFAULT_TIMEOUT_S = 600.0

FORMATS = ("json", "jsonl", "csv", "table")


@dataclass(frozen=True)
class RunArgs:
    """`curllm run`'s command line, as click parsed it (``fields`` already a tuple)."""

    words: tuple[str, ...]
    url: str | None
    plan_file: str | None
    input_file: str | None
    fmt: str | None
    output_file: str | None
    events_to: str | None
    model: str | None
    fields: tuple[str, ...] | None
    limit: int | None
    plan_only: bool
    no_cache: bool
    refresh_plan: bool
    max_replans: int
    verbose: int
    browser_params: dict[str, Any]


def split_url_and_instruction(words: tuple[str, ...], url: str | None) -> tuple[str | None, str]:
    """``curllm [URL] "instruction"`` in either order: the URL is the word that looks like one."""
    from ..urls import looks_like_url

    rest = list(words)
    if url is None:
        for i, word in enumerate(rest):
            if looks_like_url(word):
                url = rest.pop(i)
                break
    return url, " ".join(rest).strip()


@cli.command(
    "run",
    cls=SectionedCommand,
    short_help="Run a task (the default command).",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.argument("words", nargs=-1, metavar="[URL] INSTRUCTION...")
@click.option(
    "--url",
    metavar="URL",
    help="The page to start from: http(s)://, file:// or a local .html path. "
    "With --plan, overrides the plan's url.",
)
@click.option(
    "--plan",
    "plan_file",
    metavar="FILE|-",
    help="Run this plan (a JSON file, or - for stdin) instead of planning. Not together with an instruction.",
)
@click.option(
    "--input",
    "input_file",
    metavar="FILE|-",
    help="Initial data: a JSON object of data keys (a file, or - for stdin).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    metavar="FORMAT",
    help=(
        "Output format: json, jsonl, csv or table (default: the format the instruction names "
        '("as CSV"), else table on a terminal (and without -o), else json).'
    ),
)
@click.option(
    "-o",
    "--output",
    "output_file",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Write the output to FILE (default: stdout).",
)
@click.option(
    "--events",
    "events_to",
    metavar="FILE|-",
    help="Append the events as JSON lines to FILE, or to stdout with - (then send the output to -o FILE).",
)
@click.option(
    "--model",
    metavar="MODEL",
    help="A litellm model that plans instead of the rule planner, e.g. gpt-4o-mini, ollama/llama3.1 "
    "(default: $CURLLM_MODEL, else config model, else none).",
)
@click.option(
    "--fields",
    metavar="LIST",
    help="Return only these item fields, comma-separated, in this order, e.g. name,price,url "
    '(as "only names, prices and urls" in the instruction; a field no item has fails the task).',
)
@click.option(
    "--limit",
    type=click.IntRange(1),
    metavar="N",
    help='Return at most N items, counted after the checks and the order (as "the first N").',
)
@click.option("--plan-only", is_flag=True, help="Print the plan as JSON and stop: no browser, no page fetch.")
@click.option(
    "--no-cache", is_flag=True, help="Neither read nor write the plan cache (rule plans and model plans)."
)
@click.option("--refresh-plan", is_flag=True, help="Plan again and overwrite the cached plan.")
@click.option(
    "--max-replans",
    type=click.IntRange(0, MAX_REPLANS),
    metavar="N",
    default=1,
    show_default=True,
    help="0 to 5. With a model: how many times a failed step may trigger a revised plan of the remaining steps.",
)
@click.option(
    "-v",
    "--verbose",
    count=True,
    help="More on stderr: -v shows the step view and info logs, -vv debug logs.",
)
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
    fields: str | None,
    limit: int | None,
    plan_only: bool,
    no_cache: bool,
    refresh_plan: bool,
    max_replans: int,
    verbose: int,
    **browser_params: Any,
) -> None:
    """Plans the instruction (or checks the given plan), runs it and prints the result.

    \b
      curllm "find products under 150zł" --url https://shop.example/
      curllm https://news.ycombinator.com "top 10 stories with more than 100 points" --format json
      curllm --plan plan.json --url page.html --format csv -o out.csv
    """
    args = RunArgs(
        words=words,
        url=url,
        plan_file=plan_file,
        input_file=input_file,
        fmt=fmt,
        output_file=output_file,
        events_to=events_to,
        model=model,
        fields=_field_list(fields),
        limit=limit,
        plan_only=plan_only,
        no_cache=no_cache,
        refresh_plan=refresh_plan,
        max_replans=max_replans,
        verbose=verbose,
        browser_params=browser_params,
    )
    try:
        code = _run(args)
    except CurllmError as e:
        fail(e)
    sys.exit(code)


def _run(a: RunArgs) -> int:
    """Check the arguments, open the event stream, then plan or check, run and render."""
    from ..config import load_config
    from ..runner import resolve_model
    from .sinks import check_writable

    configure_logging(a.verbose)
    load_config()  # a bad config file is reported first, whatever else is wrong
    url, instruction = split_url_and_instruction(a.words, a.url)
    if a.plan_file and instruction:
        raise UsageError("give either an instruction or --plan, not both")
    if not a.plan_file and not instruction:
        raise UsageError('no instruction: try `curllm "find products under 150zł" --url URL`, or --plan FILE')
    data = read_json_arg(a.input_file, "--input") if a.input_file else None
    if data is not None and not isinstance(data, dict):
        raise UsageError(
            f"--input {a.input_file}: must be a JSON object of data keys, got {type(data).__name__}"
        )
    if a.plan_only and a.events_to == "-" and not a.output_file:
        # stdout carries only event lines: the plan would be mixed into them
        raise UsageError(
            "--plan-only prints the plan on stdout, where --events - writes the events: "
            "give -o FILE for the plan, or --events FILE"
        )
    if a.output_file:
        check_writable(a.output_file, "-o")  # before the run: its result must not be lost at the end
    a = replace(a, model=resolve_model(a.model))
    # Without --format: the format the instruction names (the plan's), else by where the output goes.
    default_fmt = "table" if sys.stdout.isatty() and not a.output_file else "json"

    bus, closers = event_bus(a.events_to, a.verbose)
    try:
        return _run_with_events(bus, a, url, instruction, data, default_fmt)
    except CurllmError as e:
        # A run that cannot start (a refused plan, a bad URL) ends its stream with an error event.
        from ..events import ErrorEvent
        from ..runner import error_of

        bus.emit(ErrorEvent(entry=error_of(e)))
        raise
    finally:
        for close in closers:
            close()


def _run_with_events(
    bus: Any, a: RunArgs, url: str | None, instruction: str, data: Any, default_fmt: str
) -> int:
    """`_run` once the event stream is open: plan or check, run, render."""
    from ..plugins import load_registry
    from ..runner import Runner, TaskSpec

    def installed_tools() -> Any:
        registry = load_registry()
        report_registry_problems(registry)
        return registry

    # The tools are loaded when first needed: for an instruction with a URL, after the browser has
    # begun to start (the runner's warm-up), so that loading them (and any plugins) fills that wait.
    runner = Runner(installed_tools)
    options = make_run_options(a.browser_params, None, data)
    if options.timeout_s is None:  # one task on its own never runs for hours (a map of hanging pages)
        options = replace(options, timeout_s=DEFAULT_TIMEOUT_S)

    if a.plan_file:
        doc = read_json_arg(a.plan_file, "--plan")
        if a.plan_only:
            from ..plan import check_plan, normalise_plan
            from ..planner.rules import with_fields_and_limit

            registry = runner.registry
            plan = check_plan(normalise_plan(doc, registry), registry, initial_keys=set(data or {}))
            plan = with_fields_and_limit(plan, registry, list(a.fields or ()), a.limit, set(data or {}))
            emit(json.dumps(plan.to_dict(), ensure_ascii=False, indent=2) + "\n", a.output_file)
            return EXIT_OK
        # The runner checks the plan (and adds --fields/--limit) while the browser starts.
        spec = TaskSpec(plan=doc, url=url, data=data, options=options, fields=a.fields or None, limit=a.limit)
    else:
        spec = TaskSpec(
            instruction=instruction,
            url=url,
            data=data,
            model=a.model,
            options=options,
            use_cache=not a.no_cache,
            refresh_plan=a.refresh_plan,
            max_replans=a.max_replans,
            fields=a.fields,
            limit=a.limit,
        )
        spec = replace(spec, url=runner.start_url(spec))
        # With --input data there may be nothing to open: plan on the data alone.
        if spec.url is None and data is None:
            raise UsageError(_no_url_message(instruction, runner.registry))
        if a.plan_only:
            planned = asyncio.run(runner.plan(spec))
            emit(json.dumps(planned.plan.to_dict(), ensure_ascii=False, indent=2) + "\n", a.output_file)
            _warn(planned.plan.warnings)
            return EXIT_OK

    try:
        result = asyncio.run(runner.run(spec, events=bus))
    except KeyboardInterrupt:
        click.echo("curllm: interrupted", err=True)
        return 130
    if not result.ok:
        from ..events import ErrorEvent

        first = next((e for e in result.errors if not e.optional), result.errors[0])
        bus.emit(ErrorEvent(entry=first, errors=result.errors))
    from ..render import render

    fmt = a.fmt or (result.plan or {}).get("format") or default_fmt
    # With the events on stdout the result never joins their lines: it goes to -o, and otherwise
    # the stream's `complete` event carries it (its data, extracted_data and metadata).
    if a.events_to != "-" or a.output_file:
        emit(render(result, fmt), a.output_file)
    _warn(result.warnings)
    if not result.ok and fmt != "table":
        for error in result.errors:
            click.echo(f"curllm: error [{error.get('code')}]: {error.get('message')}", err=True)
    return EXIT_OK if result.ok else EXIT_NOT_OK


def _field_list(value: str | None) -> tuple[str, ...] | None:
    """``--fields name, price,url`` as ``("name", "price", "url")``; bad input says what to write."""
    if value is None:
        return None
    fields = tuple(f.strip() for f in value.split(",") if f.strip())
    if not fields:
        raise UsageError("--fields needs field names separated by commas, e.g. --fields name,price,url")
    bad = [f for f in fields if not all(c.isalnum() or c in "_-" for c in f)]
    if bad:
        raise UsageError(
            f"--fields: {', '.join(map(repr, bad))} is not a field name (letters, digits, _ and -)"
        )
    return fields


def _warn(warnings: list[str]) -> None:
    """What the plan does not do of the instruction, on stderr: never dropped silently."""
    for warning in warnings:
        click.echo(f"curllm: warning: {warning}", err=True)


def _no_url_message(instruction: str, registry: Any) -> str:
    from ..runner import known_sites_hint

    known = known_sites_hint(registry)
    hint = f", or name a site the installed tools know: {known}" if known else ""
    return (
        f"no URL to start from: give one with --url URL or as a URL argument, e.g. "
        f'`curllm https://shop.example/ "{instruction}"`; or set CURLLM_DEFAULT_URL{hint}'
    )
