"""The ``curllm`` command group: its first word, when not a subcommand, starts ``run``."""

from __future__ import annotations

import click

from ..version import __version__


class DefaultGroup(click.Group):
    """A group whose first word, when not a subcommand, starts the default ``run`` command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["run", *args]
        elif not args:
            args = ["run"]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Three forms, one per line: click's write_usage would wrap them as one paragraph.
        formatter.write(
            "Usage: curllm [OPTIONS] [URL] INSTRUCTION...      a task (`curllm run`)\n"
            "       curllm [OPTIONS] --plan FILE [--url URL]   a plan\n"
            "       curllm COMMAND [ARGS]...\n"
        )

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The default command's options first: `curllm --help` is where people look for them.
        run = self.commands.get("run")
        if run is not None:
            from .options import write_option_sections

            write_option_sections(run, ctx, formatter, title="Options of a task (curllm run)")
        super().format_options(ctx, formatter)


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="curllm", help="Print the version and exit.")
def cli() -> None:
    """Say what you want from a web page; get exactly that back, as a table or JSON.

    \b
      curllm "find products under 150zł" --url https://shop.example/
      curllm https://news.ycombinator.com "top 10 stories with more than 100 points" --format json
      curllm --plan plan.json --url page.html --format csv
      curllm tools list
      curllm doctor                # what works in this set-up, and what to do about the rest
    """
