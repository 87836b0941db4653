"""``curllm cache list|clear``: the plan and manifest caches (`curllm_core.caches`)."""

from __future__ import annotations

import json

import click

from ..caches import human_size
from ..errors import CurllmError
from .app import cli
from .exits import fail


def _kinds(plans: bool, manifests: bool, all_: bool) -> list[str]:
    from ..caches import KINDS

    chosen = [kind for kind, on in (("plans", plans), ("manifests", manifests)) if on]
    return list(KINDS) if all_ or not chosen else chosen


def _which_options(what: str):
    def decorate(fn):
        for option in reversed(
            [
                click.option("--plans", is_flag=True, help=f"{what} the plan cache."),
                click.option(
                    "--manifests",
                    is_flag=True,
                    help=f"{what} the manifest caches (checked manifest files, @tool manifests).",
                ),
                click.option("--all", "all_", is_flag=True, help=f"{what} every cache (the default)."),
            ]
        ):
            fn = option(fn)
        return fn

    return decorate


@cli.group()
def cache() -> None:
    """The plan and manifest caches: list and clear them."""


@cache.command("list", short_help="What each cache holds, and where.")
@_which_options("List")
@click.option("--json", "as_json", is_flag=True, help="A JSON object: caches, and the entries listed.")
def cache_list(plans: bool, manifests: bool, all_: bool, as_json: bool) -> None:
    """Each cache's place, number of entries and size; with --plans, --manifests or --all, every
    entry of those caches."""
    from ..caches import describe, manifest_entries, plan_entries

    kinds = _kinds(plans, manifests, all_)
    detailed = plans or manifests or all_
    infos = describe(kinds)
    doc: dict = {"caches": [i.to_dict() for i in infos]}
    if detailed and "plans" in kinds:
        doc["plans"] = [e.to_dict() for e in plan_entries()]
    if detailed and "manifests" in kinds:
        doc["manifests"] = [e.to_dict() for e in manifest_entries()]
    if as_json:
        click.echo(json.dumps(doc, ensure_ascii=False, indent=2))
        return
    for info in infos:
        where = ", ".join(str(p) for p in info.paths)
        click.echo(f"{info.kind:<10} {info.entries:>5} entries {human_size(info.size):>9}  {where}")
    for entry in doc.get("plans", []):
        tools = " → ".join(t for t in entry["tools"] if t)
        click.echo(
            f"plan {entry['name']}  {entry['created'] or '-'}  {entry['source'] or '-'}  "
            f'"{entry["instruction"]}"  {entry["url_shape"] or "(no URL)"}  {tools}'
        )
    for entry in doc.get("manifests", []):
        if "tool" in entry:
            click.echo(f"manifest @tool {entry['tool']}")
        else:
            status = "ok" if entry["ok"] else f"{entry['problems']} problem(s)"
            click.echo(f"manifest {entry['name']}  {status}")


@cache.command("clear", short_help="Empty the caches (they are rebuilt as needed).")
@_which_options("Clear")
def cache_clear(plans: bool, manifests: bool, all_: bool) -> None:
    """Removes the cached files; they are rebuilt when needed, so only time is lost. Other files in
    the cache directory are left alone."""
    from ..caches import clear

    try:
        removed = clear(_kinds(plans, manifests, all_))
    except OSError as e:
        fail(CurllmError(f"cannot clear the cache: {e.filename}: {e.strerror}"))
    for info in removed:
        where = ", ".join(str(p) for p in info.paths)
        click.echo(f"cleared {info.kind}: {info.entries} entries, {human_size(info.size)} ({where})")
