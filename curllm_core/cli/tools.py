"""``curllm tools ...`` (list, show, validate, manifest, new) and ``curllm plugins list``."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path

import click

from ..errors import CurllmError, UsageError
from ..manifest import Category
from .app import cli
from .exits import fail
from .options import report_registry_problems

CATEGORIES = [str(c) for c in Category]
_ABBREVIATIONS = ("e.g", "i.e", "etc", "vs", "cf", "approx", "incl")


def first_sentence(text: str) -> str:
    """``text`` up to the end of its first sentence: a ``.``, ``!`` or ``?`` followed by white space
    and a capital letter (or by the end), not the dot of an abbreviation such as "e.g."."""
    for m in re.finditer(r"[.!?](?=\s|$)", text):
        words = text[: m.start()].split()
        if words and words[-1].lstrip("(").lower() in _ABBREVIATIONS:
            continue
        rest = text[m.end() :].lstrip()
        if not rest or rest[0].isupper():
            return text[: m.end()]
    return text


@cli.group()
def tools() -> None:
    """List, show, validate and create tools."""


@tools.command("list", short_help="List the installed tools.")
@click.option(
    "--category",
    type=click.Choice(CATEGORIES),
    metavar="CATEGORY",
    help="Only extraction, forms, navigation or validation (default: all).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="A JSON array: name (the key), category, version, description, source, path, sites, produces, "
    "consumes, effects.",
)
def tools_list(category: str | None, as_json: bool) -> None:
    """Every installed tool: key, version, the first sentence of its description, and [source] for
    tools not built in."""
    from ..plugins import load_registry

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
        # On a terminal, long sentences wrap under the description column; in a pipe, one line each.
        columns = shutil.get_terminal_size().columns if sys.stdout.isatty() else 0
        for m in rows:
            source = "" if m.source == "builtin" else f"  [{m.source}]"
            line = f"{m.key:<{width}}  {m.version:<7} {first_sentence(m.description)}{source}"
            indent = " " * (width + 2 + 8)
            if columns > len(indent) + 20 and len(line) > columns:
                line = textwrap.fill(line, columns, subsequent_indent=indent, break_on_hyphens=False)
            click.echo(line)
        click.echo(f"{len(rows)} tools", err=True)
    report_registry_problems(registry)


@tools.command("show", short_help="Print one tool's manifest.")
@click.argument("name")
def tools_show(name: str) -> None:
    """Prints one tool's manifest as JSON, plus x-source and x-path (where it came from). NAME is
    category.name, or a bare name when only one category has it."""
    from ..plugins import load_registry

    try:
        manifest = load_registry().resolve(name)
    except CurllmError as e:
        fail(e)
    doc = manifest.to_dict() | {"x-source": manifest.source, "x-path": manifest.path}
    click.echo(json.dumps(doc, ensure_ascii=False, indent=2))


@tools.command("validate", short_help="Check manifests (exit 1 on any problem).")
@click.argument("paths", nargs=-1, type=click.Path(), metavar="[PATH]...")
def tools_validate(paths: tuple[str, ...]) -> None:
    """Checks manifests: files, or directories (every *.json below them except *.schema.json); without
    a PATH, every installed tool (bypassing the manifest cache).

    Exit 0 when there is no problem, 1 otherwise.
    """
    from ..manifest import check_manifest, read_manifest
    from ..tool import load_callable

    files: list[Path] = []
    if not paths:
        from ..plugins import load_registry

        registry = load_registry(use_cache=False)
        files = [Path(m.path) for m in registry if m.path]
        bad = list(registry.problems)
        for m in registry:
            try:
                load_callable(m, registry.impls.get(m.key))
            except CurllmError as e:
                from ..errors import Problem

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
                from ..errors import Problem

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
            from ..manifest import Manifest

            manifest = Manifest.from_dict(doc, path=str(f.resolve()))
            if manifest.entrypoint_from != "manifest":
                from ..manifest import CONVENTIONS

                click.echo(
                    f"{f}: entrypoint {manifest.entrypoint} by convention: "
                    f"{CONVENTIONS[manifest.entrypoint_from]}"
                )
            try:
                load_callable(manifest)
            except CurllmError as e:
                from ..errors import Problem

                problems.append(Problem(e.message, "/entrypoint", str(f)))
        bad += problems
    for problem in bad:
        click.echo(f"{problem}")
    total = checked if paths else "all installed"
    click.echo(f"{len(bad)} problem(s) in {total} manifest(s)", err=True)
    sys.exit(1 if bad else 0)


@tools.command("manifest", short_help="Print a code-first tool's manifest.")
@click.argument("target", metavar="MODULE:FUNC")
def tools_manifest(target: str) -> None:
    """Prints the manifest a code-first tool has: for a function decorated with @tool, its manifest;
    for a plain typed async def, the manifest @tool(category="extraction") would derive."""
    import importlib

    from ..tool import CodeTool, manifest_for_function

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


@tools.command("new", short_help="Write a working tool to start from.")
@click.argument("name")
@click.option(
    "--category",
    type=click.Choice(CATEGORIES),
    metavar="CATEGORY",
    help="extraction, forms, navigation or validation; or give NAME as category.name.",
)
@click.option(
    "--dir",
    "directory",
    metavar="DIR",
    default="curllm_tools",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Where to write the files; load them with CURLLM_TOOLS_PATH=DIR.",
)
@click.option("--force", is_flag=True, help="Overwrite existing files (else exit 2).")
def tools_new(name: str, category: str | None, directory: str, force: bool) -> None:
    """Writes a working tool to start from: a manifest, its code and a test that passes as generated."""
    from ..scaffold import new_tool

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


@plugins.command("list", short_help="List the plugins, with their errors.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="A JSON array: name, version, module, tools (keys), error, builtin.",
)
@click.option(
    "--no-load",
    is_flag=True,
    help="Only the installed entry points (name, version, module, dist), importing nothing: for a plugin "
    "whose import hangs or breaks curllm.",
)
def plugins_list(as_json: bool, no_load: bool) -> None:
    """Every plugin: the built-in one (builtin), each entry point of group curllm, each CURLLM_TOOLS_PATH
    directory; with its version and number of tools, or ERROR: <why> when it failed to load (those
    are listed first)."""
    from ..plugins import entry_points, load_registry

    if no_load:
        found = [
            {"name": ep.name, "version": ep.version, "module": ep.value, "dist": ep.dist}
            for ep in entry_points()
        ]
        if as_json:
            click.echo(json.dumps(found, ensure_ascii=False, indent=2))
        for ep in found if not as_json else []:
            click.echo(f"{ep['name']:<24} {ep['version'] or '-':<8} {ep['module']}")
        return
    registry = load_registry()
    if as_json:
        click.echo(json.dumps([p.to_dict() for p in registry.plugins], ensure_ascii=False, indent=2))
        return
    for p in registry.plugins:
        status = f"ERROR: {p.error}" if p.error else f"{len(p.tools)} tools"
        click.echo(f"{p.name:<24} {p.version or '-':<8} {status}")
