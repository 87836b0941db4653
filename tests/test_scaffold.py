"""``curllm tools new``: what it writes validates, loads through CURLLM_TOOLS_PATH, runs, and its tests pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from curllm_core.errors import UsageError
from curllm_core.manifest import CATEGORIES
from curllm_core.scaffold import dumps, new_tool, parse_name


def curllm(*args: str, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    """The real command line, as installed beside this interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "curllm_core", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory) -> Path:
    """A project directory with one new tool of every category in ./curllm_tools (the default --dir)."""
    project = tmp_path_factory.mktemp("project")
    env = {**os.environ, "CURLLM_CACHE_DIR": str(project / ".cache")}
    env.pop("CURLLM_TOOLS_PATH", None)
    for category in CATEGORIES:
        run = curllm("tools", "new", f"my_{category}", "--category", category, env=env, cwd=project)
        assert run.returncode == 0, run.stderr
        assert f"Created {category}.my_{category} in curllm_tools/" in run.stdout
        assert "export CURLLM_TOOLS_PATH=curllm_tools" in run.stdout
    return project


def env_for(project: Path, **extra: str) -> dict:
    env = {**os.environ, "CURLLM_CACHE_DIR": str(project / ".cache"), **extra}
    if "CURLLM_TOOLS_PATH" not in extra:
        env.pop("CURLLM_TOOLS_PATH", None)
    return env


def test_writes_manifest_code_and_test(scaffolded):
    names = sorted(p.name for p in (scaffolded / "curllm_tools").iterdir() if p.is_file())
    assert names == sorted(
        f"{stem}{suffix}"
        for c in CATEGORIES
        for stem, suffix in ((f"my_{c}", ".json"), (f"my_{c}", ".py"), (f"test_my_{c}", ".py"))
    )
    doc = json.loads((scaffolded / "curllm_tools" / "my_forms.json").read_text())
    assert (doc["entrypoint"], doc["effects"], doc["category"]) == ("my_forms:run", "write", "forms")
    assert "async def run(ctx: ToolContext" in (scaffolded / "curllm_tools" / "my_extraction.py").read_text()


def test_validate_passes(scaffolded):
    run = curllm("tools", "validate", "curllm_tools", env=env_for(scaffolded), cwd=scaffolded)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 problem(s) in 4 manifest(s)" in run.stderr


def test_listed_with_curllm_tools_path(scaffolded):
    run = curllm(
        "tools", "list", "--json", env=env_for(scaffolded, CURLLM_TOOLS_PATH="curllm_tools"), cwd=scaffolded
    )
    assert run.returncode == 0, run.stderr
    mine = {
        t["name"]: t["source"] for t in json.loads(run.stdout) if t["name"].split(".")[1].startswith("my_")
    }
    assert mine == {f"{c}.my_{c}": "curllm_tools" for c in CATEGORIES}
    without = curllm("tools", "list", "--json", env=env_for(scaffolded), cwd=scaffolded)
    assert not [t for t in json.loads(without.stdout) if ".my_" in t["name"]]


@pytest.mark.browser
def test_generated_tests_pass(scaffolded, browser_path):
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "curllm_tools"],
        cwd=scaffolded,
        env=env_for(scaffolded),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "10 passed" in run.stdout


@pytest.mark.browser
def test_a_plan_runs_the_new_tools(scaffolded, browser_path):
    page = scaffolded / "list.html"
    page.write_text(
        '<ul><li class="item"><a href="https://example.com/py">Python tips</a></li>'
        '<li class="item"><a href="https://example.com/rs">Rust tips</a></li></ul>',
        encoding="utf-8",
    )
    plan = {
        "plan": [
            {"tool": "extraction.my_extraction"},
            {"tool": "validation.my_validation", "parameters": {"contains": "python"}},
        ],
        "expected_output": "items",
    }
    (scaffolded / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    run = curllm(
        "--plan",
        "plan.json",
        "--url",
        str(page),
        "--format",
        "json",
        env=env_for(scaffolded, CURLLM_TOOLS_PATH="curllm_tools"),
        cwd=scaffolded,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(run.stdout)["data"]["items"] == [
        {"title": "Python tips", "url": "https://example.com/py"}
    ]


# --- refusals, in-process ----------------------------------------------------------------------------


def test_name_and_category():
    assert parse_name("forms.fill_login", None) == ("forms", "fill_login")
    assert parse_name("fill_login", "forms") == ("forms", "fill_login")
    for name, category, message in [
        ("x", None, "pass --category"),
        ("forms.x", "validation", "--category says"),
        ("Fill-Login", "forms", "snake_case"),
        ("x", "widgets", "unknown category"),
    ]:
        with pytest.raises(UsageError, match=message):
            parse_name(name, category)


def test_refuses_to_overwrite_or_shadow(tmp_path):
    made = new_tool("keep_words", "validation", tmp_path)
    with pytest.raises(UsageError, match="not overwriting"):
        new_tool("keep_words", "validation", tmp_path)
    made.code.write_text("changed")
    new_tool("keep_words", "validation", tmp_path, force=True)
    assert "async def run" in made.code.read_text()
    # A module named like a stdlib one would be imported instead of the tool's code.
    with pytest.raises(UsageError, match="already the name of an importable module"):
        new_tool("json", "validation", tmp_path)


def test_dumps_keeps_short_values_on_one_line():
    text = dumps({"a": [1, 2], "b": {"c": "x" * 120}})
    assert text.splitlines()[1] == '  "a": [1, 2],'
    assert json.loads(text) == {"a": [1, 2], "b": {"c": "x" * 120}}
