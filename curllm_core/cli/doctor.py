"""``curllm doctor``: what works in this set-up, and what to do about what does not.

The checks are `curllm_core.doctor`'s; this renders its report and exits 0 when the main job
works, 1 otherwise.
"""

from __future__ import annotations

import json
import sys

import click

from .app import cli

MARKS = {"ok": "ok  ", "info": "info", "warn": "WARN", "fail": "FAIL"}


@cli.command("doctor", short_help="Check the set-up and say what to fix.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="The report as JSON: ok, and every finding (topic, status, message, fix, data).",
)
@click.option(
    "--no-launch", is_flag=True, help="Do not start the browser (faster; whether it starts is not checked)."
)
def doctor_cmd(as_json: bool, no_launch: bool) -> None:
    """Checks the set-up: Python, curllm and plugin versions, the browser (found, and does it start?),
    the extras installed and what each enables, the model, the config file and the caches."""
    from ..doctor import diagnose

    report = diagnose(launch=not no_launch)
    if as_json:
        click.echo(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        for finding in report.findings:
            click.echo(f"{MARKS[finding.status]}  {finding.message}")
            for line in finding.fix.splitlines() if finding.status != "ok" else ():
                click.echo(f"      → {line}")
        click.echo()
        warnings = len(report.warnings)
        also = f" ({warnings} warning{'s' if warnings != 1 else ''} above)" if warnings else ""
        if report.ok:
            click.echo(f"curllm can do its job: plan a task and run it in the browser{also}.")
        else:
            failures = len(report.failures)
            click.echo(
                f"curllm cannot run tasks yet: {failures} problem{'s' if failures != 1 else ''} "
                f"(FAIL above), each with what to do{also}."
            )
    sys.exit(0 if report.ok else 1)
