"""Exit codes of the ``curllm`` command, and how an error ends it.

0 ok, 1 ran but the result is not ok, 2 bad input (never a traceback), 3 planning failed,
130 (143) interrupted by SIGINT (SIGTERM). An error's exit code is its class's ``exit_code``.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from ..errors import CurllmError

EXIT_OK, EXIT_NOT_OK, EXIT_BAD_INPUT, EXIT_PLANNING = 0, 1, 2, 3
EXIT_SIGINT, EXIT_SIGTERM = 130, 143


def fail(error: CurllmError) -> NoReturn:
    """Print an error (every problem listed) and exit with its code."""
    click.echo(_for_stderr(f"curllm: error [{error.code}]: {error}"), err=True)
    sys.exit(error.exit_code)


def note(text: str) -> None:
    """One ``curllm: ...`` line on stderr, flushed (summaries, warnings, notices)."""
    print(_for_stderr(f"curllm: {text}"), file=sys.stderr, flush=True)


def _for_stderr(text: str) -> str:
    """Known secrets scrubbed; on a terminal, control characters (from page text) made visible."""
    from ..scrub import scrub

    text = scrub(text)
    if sys.stderr.isatty():
        from ..terminal_text import neutralise

        text = neutralise(text)
    return text
