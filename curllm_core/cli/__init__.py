"""The ``curllm`` command. Thin: parse, call the library, render. Exit codes (`exits`):
0 ok, 1 ran but the result is not ok, 2 bad input (never a traceback), 3 planning failed.

``curllm [URL] "instruction"`` runs a task (the default command, `run`); ``curllm tools ...``,
``curllm plugins ...`` (`tools`), ``curllm batch ...`` (`batch`), ``curllm doctor`` (`doctor`) and
``curllm cache ...`` (`cache`) are subcommands. Only this package
imports click, rich.progress or signal, prints, or exits.
"""

from __future__ import annotations

from ..errors import CurllmError
from . import batch, cache, doctor, run, serve, tools  # noqa: F401 - each registers its commands on the group
from .app import cli
from .exits import EXIT_BAD_INPUT, EXIT_NOT_OK, EXIT_OK, EXIT_PLANNING, fail
from .options import browser_options, make_run_options, read_json_arg, report_registry_problems
from .run import FORMATS, split_url_and_instruction

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_NOT_OK",
    "EXIT_OK",
    "EXIT_PLANNING",
    "FORMATS",
    "browser_options",
    "cli",
    "fail",
    "main",
    "make_run_options",
    "read_json_arg",
    "report_registry_problems",
    "split_url_and_instruction",
]


def main() -> None:
    """Console entry point."""
    try:
        cli.main(prog_name="curllm")
    except CurllmError as e:  # errors raised outside a command's own handling
        fail(e)
