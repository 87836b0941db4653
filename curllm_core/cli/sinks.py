"""Where a command's events and output go: the ``--events`` file or stdout, a live terminal view,
the ``-o`` file."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from ..errors import UsageError
from ..events import EventBus, JsonlSink


def open_events(events_to: str) -> JsonlSink:
    """A JSONL sink for ``--events FILE`` (appended to) or ``-`` (stdout); UsageError if unopenable."""
    if events_to == "-":
        return JsonlSink(sys.stdout)
    try:
        stream = open(events_to, "a", encoding="utf-8")  # noqa: SIM115 - closed by the sink's owner
    except OSError as e:
        raise UsageError(f"--events {events_to}: cannot open: {e.strerror}") from None
    return JsonlSink(stream, close=True)


def event_bus(events_to: str | None, verbose: int) -> tuple[EventBus, list[Callable[[], None]]]:
    """The bus of one ``run``: ``--events`` and, on a terminal or with -v, the live view."""
    bus, closers = EventBus(), []
    if events_to:
        sink = open_events(events_to)
        bus.add(sink)
        closers.append(sink.close)
    if sys.stderr.isatty() or verbose:
        bus.add(TerminalSink())
    return bus, closers


def check_writable(name: str, option: str) -> None:
    """UsageError unless ``name`` can be written: not a directory, in a directory that exists and
    is writable, and (when it exists) writable itself. Checked before a run, not after it."""
    import os

    path = Path(name)
    if path.is_dir():
        raise UsageError(f"{option} {name}: is a directory; give a file name")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{option} {name}: the directory {parent} does not exist")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {name}: the file is not writable")
    if not path.exists() and not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {name}: cannot create a file in {parent} (no permission)")


def emit(text: str, output_file: str | None) -> None:
    """The command's output to ``-o FILE``, else stdout; known secrets scrubbed (tables and CSV too)."""
    from ..scrub import scrub

    text = scrub(text)
    if not output_file and sys.stdout.isatty():
        from ..terminal_text import neutralise

        text = neutralise(text)  # page text must not drive the terminal; files keep it as it is
    if output_file:
        try:
            Path(output_file).write_text(text, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"-o {output_file}: cannot write: {e.strerror}") from None
    else:
        click.echo(text, nl=False)


class TerminalSink:
    """A live one-line-per-step view on stderr (rich), for people watching a TTY."""

    ICONS = {"running": "…", "completed": "✓", "failed": "✗"}

    def __init__(self):
        from rich.console import Console

        self.console = Console(stderr=True, highlight=False)

    def __call__(self, event: dict) -> None:
        from rich.markup import escape

        from ..terminal_text import neutralise

        def safe(value) -> str:  # page text is neither rich markup nor terminal control sequences
            return escape(neutralise(str(value)))

        data, kind = event["data"], event["type"]
        if kind == "step" and data["status"] != "running":
            icon = self.ICONS.get(data["status"], "·")
            style = "green" if data["status"] == "completed" else "red"
            ms = f" [dim]{data['duration_ms']} ms[/dim]" if data.get("duration_ms") is not None else ""
            self.console.print(f"[{style}]{icon}[/{style}] {safe(data['message'])}{ms}")
        elif kind == "url_complete":
            self.console.print(f"[dim]· opened {safe(data.get('url'))} ({data.get('duration_ms')} ms)[/dim]")
        elif kind == "consent":
            button = f" ({safe(data['button'])})" if data.get("button") else ""
            self.console.print(f"[dim]· consent dialog {safe(data.get('action'))}{button}[/dim]")
        elif kind == "engine":
            switched = " instead of " + safe(data["switched_from"]) if data.get("switched_from") else ""
            self.console.print(
                f"[dim]· engine {safe(data.get('engine'))}{switched}: {safe(data.get('reason'))}[/dim]"
            )
        elif kind == "error":
            self.console.print(f"[red]✗ {safe(data.get('message'))}[/red]")
