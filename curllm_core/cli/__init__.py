"""The ``curllm`` command. Thin: parse, call the library, render. Exit codes (`exits`):
0 ok, 1 ran but the result is not ok, 2 bad input (never a traceback), 3 planning failed.

``curllm [URL] "instruction"`` runs a task (the default command, `run`); ``curllm tools ...``,
``curllm plugins ...`` (`tools`), ``curllm batch ...`` (`batch`), ``curllm doctor`` (`doctor`) and
``curllm cache ...`` (`cache`) are subcommands. Only this package
imports click, rich.progress or signal, prints, or exits.
"""

from __future__ import annotations

from ..errors import CurllmError, UsageError
from . import batch, cache, doctor, run, serve, tools  # noqa: F401 - each registers its commands on the group
from .app import cli
from .exits import EXIT_BAD_INPUT, EXIT_NOT_OK, EXIT_OK, EXIT_PLANNING, EXIT_SIGINT, fail
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
    """Console entry point: every error, click's own usage errors included, ends as one
    ``curllm: error [CODE]: ...`` line and its exit code."""
    import gc
    import sys

    import click

    try:
        check_arguments(sys.argv[1:])
        code = cli.main(prog_name="curllm", standalone_mode=False)
    except CurllmError as e:  # errors raised outside a command's own handling
        fail(e)
    except click.exceptions.Abort:  # Ctrl-C while click itself was reading (a prompt, stdin)
        click.echo("curllm: interrupted", err=True)
        sys.exit(EXIT_SIGINT)
    except click.ClickException as e:  # a bad option or argument: bad input, exit 2
        ctx = getattr(e, "ctx", None)  # usage errors carry the command they are about
        where = ctx.command_path if ctx is not None else "curllm"
        fail(UsageError(f"{e.format_message()} (see `{where} --help`)"))
    finally:
        # The command is done and its output written and closed. At exit the interpreter would walk
        # every object of the ~450 modules loaded (the cyclic garbage collector, to free what only
        # cycles hold): about 90 ms of CPU per command, measured (bench/RESULTS.md, "Fixed cost of
        # a task"), for memory the OS takes back at once. Frozen objects are left out of that walk.
        gc.freeze()
    sys.exit(code if isinstance(code, int) else EXIT_OK)


def check_arguments(args: list[str]) -> None:
    """UsageError for an argument that is not valid UTF-8 (Python keeps the bad bytes as surrogates,
    which nothing downstream can write)."""
    for position, arg in enumerate(args, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raw = arg.encode("utf-8", "surrogateescape")
            raise UsageError(
                f"argument {position} is not valid UTF-8 text: {raw!r}; check the terminal's or the "
                "script's encoding"
            ) from None
