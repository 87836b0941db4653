"""What ``--help`` and ``tools list`` show a newcomer: the task's options, readable metavars, whole sentences."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import click
from click.testing import CliRunner

from curllm_core.cli import cli
from curllm_core.cli.tools import first_sentence
from tests.warm_cache import fresh_cache

CURLLM = [sys.executable, "-m", "curllm_core"]


def _run(*args: str, tmp) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env |= {"CURLLM_CACHE_DIR": str(fresh_cache(tmp / "cache")), "CURLLM_LOAD_PLUGINS": "", "COLUMNS": "100"}
    return subprocess.run([*CURLLM, *args], env=env, capture_output=True, text=True, timeout=60)


def test_curllm_help_shows_the_task_options(tmp_path):
    out = _run("--help", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:3] == [
        "Usage: curllm [OPTIONS] [URL] INSTRUCTION...      a task (`curllm run`)",
        "       curllm [OPTIONS] --plan FILE [--url URL]   a plan",
        "       curllm COMMAND [ARGS]...",
    ]
    sections = [line for line in lines if line and not line.startswith(" ")]
    assert sections[1:] == [
        "Options of a task (curllm run):",
        "Browser and network options:",
        "Options:",
        "Commands:",
    ]
    text = out.stdout
    for shown in (
        "--plan FILE|-",
        "--events FILE|-",
        "--format FORMAT",
        "--timeout SECONDS",
        "--viewport WxH",
    ):
        assert f"  {shown} " in text
    assert text.count("-h, --help") == 1  # the group's; run's own is not repeated
    for command in ("batch", "cache", "doctor", "plugins", "run", "tools"):
        assert any(line.startswith(f"  {command} ") for line in lines)


def _commands(cmd: click.Command, path: list[str]):
    yield path, cmd
    if isinstance(cmd, click.Group):
        for name, sub in sorted(cmd.commands.items()):
            yield from _commands(sub, [*path, name])


def test_no_help_shows_click_type_names():
    """Every option names what it takes (FILE, URL, N, ...), not click's TEXT or INTEGER RANGE."""
    runner = CliRunner()
    bad = []
    for path, _cmd in _commands(cli, []):
        out = runner.invoke(cli, [*path, "--help"], prog_name="curllm")
        assert out.exit_code == 0, (path, out.output)
        for word in re.findall(
            r"\b(?:TEXT|INTEGER|FLOAT|RANGE|DIRECTORY|PATHS|TARGET|TASKS_FILE)\b|\[json\|", out.output
        ):
            bad.append(f"curllm {' '.join(path)} --help: {word}")
    assert not bad, bad


def test_run_help_lists_the_browser_options_apart():
    out = CliRunner().invoke(cli, ["run", "--help"], prog_name="curllm")
    assert out.output.startswith("Usage: curllm run [OPTIONS] [URL] INSTRUCTION...\n")
    own, browser = out.output.index("\nOptions:\n"), out.output.index("\nBrowser and network options:\n")
    assert own < out.output.index("--plan FILE|-") < browser < out.output.index("--block-private")


def test_tools_list_keeps_whole_first_sentences(tmp_path):
    tools = json.loads(_run("tools", "list", "--json", tmp=tmp_path).stdout)
    out = _run("tools", "list", tmp=tmp_path)
    lines = out.stdout.splitlines()
    assert len(lines) == len(tools)  # one line per tool in a pipe, never wrapped
    for tool, line in zip(tools, lines, strict=True):
        assert line.endswith(first_sentence(tool["description"])), line
        assert first_sentence(tool["description"]).endswith((".", "!", "?", ")")) or tool[
            "description"
        ] == first_sentence(tool["description"])


def test_first_sentence():
    assert first_sentence("Collect links (e.g. \\.pdf$ or /p/), optionally text. Returns each once.") == (
        "Collect links (e.g. \\.pdf$ or /p/), optionally text."
    )
    assert first_sentence("One. Two.") == "One."
    assert first_sentence("Sort by meaning, e.g. 'price ascending'; then wait. Done") == (
        "Sort by meaning, e.g. 'price ascending'; then wait."
    )
    assert first_sentence("Version 1.5 of it. Next") == "Version 1.5 of it."
    assert first_sentence("No full stop at all") == "No full stop at all"
    assert first_sentence("Ends here.") == "Ends here."
    assert first_sentence("Keeps i.e. this. And not that.") == "Keeps i.e. this."
