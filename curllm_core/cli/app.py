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
