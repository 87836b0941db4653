"""docs/writing-tools-and-plugins.md, followed literally: its files, its commands, its outputs.

The fast tests check that the tutorial is complete (every file of its layout is shown, every file
shown is in the layout). The slow one does what a reader does: a fresh venv with curllm installed
from a wheel and activated (its ``bin/`` first on PATH), the files written from the document's own
code blocks into ``~/tut``, then every ``$`` command of its console blocks run in order in one bash
(so ``cd``, ``export`` and ``unset`` carry over, as in a terminal), each output compared with the
lines the document shows.

How a console block is read: ``$ command`` lines are run; the lines after one, up to the next
``$``, are its output, compared line by line with runs of white space folded. ``…`` on a line of
its own stands for any number of lines; inside a line, for any text. A command shown without
output lines is only required to succeed. Durations (``in 2.51s``) and the home directory
(``/home/me``) are replaced before comparing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "writing-tools-and-plugins.md"
DOC_HOME = "/home/me"  # the home directory the document's outputs show

_FENCE_RE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)
_PATH_LINE_RE = re.compile(r"^`([\w./-]+)`:$")


def _blocks(md: str) -> list[tuple[str, str, str]]:
    """``(language, body, the line before the fence)`` of every fenced block, in order."""
    out = []
    for m in _FENCE_RE.finditer(md):
        before = md[: m.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        out.append((m.group(1).strip(), m.group(2), before))
    return out


def tutorial_files(md: str) -> dict[str, str]:
    """The files the tutorial shows: a block right after a line that is only `` `path`: ``."""
    files = {}
    for _lang, body, before in _blocks(md):
        m = _PATH_LINE_RE.match(before)
        if m:
            assert m.group(1) not in files, f"{m.group(1)} is shown twice"
            files[m.group(1)] = body
    return files


def layout_files(md: str) -> set[str]:
    """The files of the tree under "## 1. The layout" (directories left out), relative to ~/tut."""
    section = md[md.index("## 1. The layout") :]
    tree = next(body for lang, body, _ in _blocks(section) if lang == "")
    files, parents = set(), {}
    for line in tree.splitlines()[1:]:  # the first line is the root, ~/tut/
        m = re.match(r"^((?:│   |    )*)(?:├── |└── )(\S+)", line)
        assert m, f"not a tree line: {line!r}"
        depth = len(m.group(1)) // 4
        name = m.group(2)
        path = f"{parents[depth - 1]}/{name.rstrip('/')}" if depth else name.rstrip("/")
        if name.endswith("/"):
            parents[depth] = path
        else:
            files.add(path)
    return files


@dataclass
class Command:
    line: str  # the command as shown, without "$ "
    expected: list[str] | None  # the output lines shown; None: not shown, only success is required


def tutorial_commands(md: str) -> list[Command]:
    commands: list[Command] = []
    for lang, body, _ in _blocks(md):
        if lang != "console":
            continue
        for line in body.splitlines():
            if line.startswith("$ "):
                commands.append(Command(line[2:], None))
            elif line.startswith("# "):
                continue  # a command typed as root ("# apt-get ..."): not part of the tutorial's flow
            else:
                assert commands, f"output before any command: {line!r}"
                commands[-1].expected = [*(commands[-1].expected or []), line]
    return commands


def _norm(line: str) -> str:
    line = re.sub(r"\bin \d+(?:\.\d+)?s\b", "in <t>s", line)
    line = re.sub(r"([━─])\1+", r"\1", line)  # a table's rules, as long as its widest cell
    return " ".join(line.split())


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """``expected`` against ``actual``, ``…`` lines matching any run of lines (see the docstring)."""
    patterns = []
    for line in expected:
        if line.strip() == "…":
            patterns.append(None)
        else:
            patterns.append(re.compile(".*".join(re.escape(_norm(p)) for p in line.split("…"))))
    lines = [_norm(a) for a in actual if a.strip()]

    def match(i: int, j: int) -> bool:
        if i == len(patterns):
            return j == len(lines)
        if patterns[i] is None:
            return any(match(i + 1, k) for k in range(j, len(lines) + 1))
        return j < len(lines) and patterns[i].fullmatch(lines[j]) is not None and match(i + 1, j + 1)

    return match(0, 0)


# --- fast: the tutorial is complete ----------------------------------------------------------------


def test_every_file_of_the_layout_is_shown():
    md = TUTORIAL.read_text(encoding="utf-8")
    shown, layout = set(tutorial_files(md)), layout_files(md)
    assert layout, "no layout tree found"
    assert sorted(layout - shown) == [], "files in the layout the tutorial never shows"
    assert sorted(shown - layout) == [], "files the tutorial shows that the layout does not list"


def test_the_commands_are_found():
    commands = tutorial_commands(TUTORIAL.read_text(encoding="utf-8"))
    lines = [c.line for c in commands]
    assert lines[0].startswith("mkdir -p ~/tut && cd ~/tut")
    assert any(line.startswith("pip install -e") for line in lines)
    assert sum(line.startswith("pytest") for line in lines) >= 3


def test_output_matching():
    assert output_matches(["a", "…", "c"], ["a", "b", "b", "c"])
    assert output_matches(["a  b", "…"], ["a b"])
    assert output_matches(["x … z"], ["x yyy z"])
    assert output_matches(["6 passed in 2.51s"], ["6 passed in 0.90s"])
    assert output_matches(["┏━━━┳━━┓"], ["┏━━━┳━━━━━━━━┓"])
    assert not output_matches(["0 problem(s)"], ["10 problem(s)"])
    assert not output_matches(["a"], ["a", "b"])
    assert not output_matches(["a", "…", "c"], ["a", "b"])


# --- slow: follow it -------------------------------------------------------------------------------


def _env(home: Path, venv: Path) -> dict:
    """A user's shell with the venv activated: its bin/ first on PATH, VIRTUAL_ENV set."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CURLLM_", "PYTHON", "VIRTUAL_ENV", "PYTEST")) or k == "CURLLM_BROWSER"
    }
    real_home = os.path.expanduser("~")
    return env | {
        "HOME": str(home),
        # The pip cache stays the machine's: the venv is fresh, the downloads need not be.
        "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR") or os.path.join(real_home, ".cache", "pip"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PLAYWRIGHT_BROWSERS_PATH": os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
        or os.path.join(real_home, ".cache", "ms-playwright"),
        "VIRTUAL_ENV": str(venv),
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "100",
        # Unbuffered, so that stdout and stderr interleave in a pipe as they do on a terminal.
        "PYTHONUNBUFFERED": "1",
    }


@pytest.mark.slow
@pytest.mark.browser
def test_the_tutorial_literally(curllm_wheel, browser_path):
    # A short home, as /home/me is: a table of long file:// URLs would wrap differently.
    home = Path(tempfile.mkdtemp(prefix="me", dir="/tmp"))
    try:
        _follow(TUTORIAL.read_text(encoding="utf-8"), home, curllm_wheel)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _follow(md: str, home: Path, curllm_wheel: Path) -> None:
    venv = home / "venv"
    started = time.perf_counter()
    # The reader's venv: curllm installed (from this checkout's wheel), pip of its own. Its pip is
    # installed by this environment's (ensurepip byte-compiles all of pip: 6.6 s of CPU, this 1.5 s),
    # and nothing is byte-compiled ahead: Python compiles what it imports (curllm's dependencies are
    # thousands of modules the tutorial never imports; compiling them costs 2.7 s of CPU).
    done = subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    env = _env(home, venv)
    python = str(venv / "bin" / "python")
    for args in (
        [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-compile", "pip"],
        [python, "-m", "pip", "install", "-q", "--no-compile", str(curllm_wheel)],
    ):
        done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=900)
        assert done.returncode == 0, done.stdout + done.stderr
    print(f"\nvenv with curllm in {time.perf_counter() - started:.0f} s")

    tut = home / "tut"
    for path, text in tutorial_files(md).items():
        (tut / path).parent.mkdir(parents=True, exist_ok=True)
        (tut / path).write_text(text, encoding="utf-8")

    commands = tutorial_commands(md)
    marker = "@@curllm-tutorial@@"
    script = ["set +e", "exec 2>&1"]
    for i, command in enumerate(commands):
        script += [f"echo '{marker} start {i}'", command.line, f"echo '{marker} end {i} '$?"]
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", "\n".join(script)],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    outputs: dict[int, tuple[list[str], int]] = {}
    current: list[str] = []
    for line in done.stdout.replace(str(home), DOC_HOME).splitlines():
        if line.startswith(f"{marker} start "):
            current = []
        elif line.startswith(f"{marker} end "):
            _, _, index, code = line.split()
            outputs[int(index)] = (current, int(code))
        else:
            current.append(line)
    problems = []
    for i, command in enumerate(commands):
        if i not in outputs:
            problems.append(f"$ {command.line}: did not run (the shell stopped before it)")
            continue
        lines, code = outputs[i]
        shown = "\n".join(lines)
        if code != 0:
            problems.append(f"$ {command.line}: exit code {code}\n{shown}")
        elif command.expected is not None and not output_matches(command.expected, lines):
            want = "\n".join(command.expected)
            problems.append(
                f"$ {command.line}: the output differs from the tutorial's\n--- shown:\n{want}\n--- got:\n{shown}"
            )
    print(f"tutorial followed in {time.perf_counter() - started:.0f} s")
    assert not problems, "\n\n".join(problems)
