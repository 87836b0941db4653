"""plugins/curllm-allegro as a third party ships it: built into a wheel, pip-installed beside curllm.

The slow tests build curllm's and the plugin's wheels, make a fresh virtual environment (no system
site-packages, no editable install, nothing from this checkout on its path), ``pip install`` both
wheels there with their dependencies resolved from the package index, and then use only that
environment's own ``curllm`` and ``pytest`` executables. Setting it up takes 20-60 s, most of it pip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "plugins" / "curllm-allegro"
LISTING = PLUGIN / "tests" / "fixtures" / "allegro_listing.html"
ALLEGRO_TOOLS = ["extraction.products_allegro", "validation.allegro_smart_only"]


def _env(tmp: Path, **extra: str) -> dict:
    """A clean user environment: private cache, no model, none of this checkout's variables."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CURLLM_", "PYTHON", "VIRTUAL_ENV")) or k == "CURLLM_BROWSER"
    }
    return env | {"CURLLM_CACHE_DIR": str(tmp / "cache")} | extra


def _run(args: list[str], env: dict, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


# --- from the source tree, in this environment (fast) --------------------------------------------


@pytest.mark.browser
def test_the_plugins_own_tests_pass_from_source(tmp_path, browser_path):
    """The plugin's tests run in a checkout without installing it (tests/conftest.py registers it)."""
    done = _run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        _env(tmp_path, CURLLM_LOAD_PLUGINS=""),
        PLUGIN,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and "failed" not in done.stdout


# --- built, installed in a fresh venv (slow) -------------------------------------------------------


class Installed:
    """A fresh venv with curllm and curllm-allegro installed from wheels."""

    def __init__(self, root: Path):
        self.root = root
        self.bin = root / "venv" / "bin"
        self.setup_s = 0.0

    def curllm(
        self, *args: str, env: dict | None = None, cwd: Path | None = None
    ) -> subprocess.CompletedProcess:
        return _run([str(self.bin / "curllm"), *args], env or _env(self.root), cwd or self.root / "work")

    def json(self, *args: str, **kwargs) -> object:
        done = self.curllm(*args, **kwargs)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory, curllm_wheel) -> Installed:
    root = tmp_path_factory.mktemp("installed")
    env = _env(root)
    started = time.perf_counter()
    wheels = root / "wheels"
    wheels.mkdir()
    shutil.copy(curllm_wheel, wheels)  # built once per session (conftest), shared with the tutorial test
    for project in (PLUGIN,):
        # --no-isolation: hatchling comes from this environment, so building needs no network.
        done = _run(
            [
                sys.executable,
                "-m",
                "build",
                "--wheel",
                "--no-isolation",
                "--outdir",
                str(wheels),
                str(project),
            ],
            env,
            root,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    venv = root / "venv"
    # The venv gets no pip of its own (ensurepip costs seconds); this environment's pip installs into it.
    done = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], env, root)
    assert done.returncode == 0, done.stderr
    done = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "--quiet",
            # Not byte-compiled at install (~6 s of CPU for every module of every dependency): the
            # commands compile what they import, once, as the tutorial's venv does.
            "--no-compile",
            *map(str, sorted(wheels.glob("*.whl"))),
            "pytest>=8",
            "pytest-asyncio>=0.24",
        ],
        env,
        root,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    (root / "work").mkdir()
    result = Installed(root)
    result.setup_s = time.perf_counter() - started
    print(f"\nwheels built and installed in a fresh venv in {result.setup_s:.0f} s")
    return result


@pytest.mark.slow
def test_nothing_comes_from_the_checkout(installed):
    code = "import curllm_core, curllm_allegro; print(curllm_core.__file__); print(curllm_allegro.__file__)"
    done = _run([str(installed.bin / "python"), "-c", code], _env(installed.root), installed.root / "work")
    assert done.returncode == 0, done.stderr
    site = str(installed.root / "venv")
    assert all(line.startswith(site) for line in done.stdout.split()), done.stdout


@pytest.mark.slow
def test_the_wheel_ships_every_builtin_manifest(installed):
    manifests = sorted(ROOT.glob("tools_manifests/*/*.json"))
    tools = installed.json("tools", "list", "--json", env=_env(installed.root, CURLLM_LOAD_PLUGINS=""))
    assert len(tools) == len(manifests)
    assert {t["name"] for t in tools} == {f"{p.parent.name}.{p.stem}" for p in manifests}
    assert all(t["path"].startswith(str(installed.root / "venv")) for t in tools)
    valid = installed.curllm("tools", "validate")
    assert valid.returncode == 0, valid.stdout + valid.stderr


@pytest.mark.slow
def test_plugins_and_tools_list_the_plugin(installed):
    plugins = {p["name"]: p for p in installed.json("plugins", "list", "--json")}
    assert sorted(plugins["allegro"]["tools"]) == ALLEGRO_TOOLS
    assert (plugins["allegro"]["version"], plugins["allegro"]["error"]) == ("0.1.0", None)
    assert plugins["allegro"]["module"] == "curllm_allegro.plugin"
    tools = {t["name"]: t for t in installed.json("tools", "list", "--json")}
    assert {name: tools[name]["source"] for name in ALLEGRO_TOOLS} == dict.fromkeys(ALLEGRO_TOOLS, "allegro")
    assert tools["extraction.products_allegro"]["sites"] == ["allegro.pl"]
    # The manifest is package data: read from inside the installed package.
    assert "/site-packages/curllm_allegro/manifests/" in tools["extraction.products_allegro"]["path"]


@pytest.mark.slow
def test_curllm_load_plugins(installed):
    none = installed.json("plugins", "list", "--json", env=_env(installed.root, CURLLM_LOAD_PLUGINS=""))
    assert [p["name"] for p in none] == ["builtin"]
    tools = installed.json("tools", "list", "--json", env=_env(installed.root, CURLLM_LOAD_PLUGINS=""))
    assert not [t for t in tools if t["source"] == "allegro"]
    only = installed.json(
        "plugins", "list", "--json", env=_env(installed.root, CURLLM_LOAD_PLUGINS="allegro")
    )
    assert [p["name"] for p in only] == ["builtin", "allegro"]


def _tools(plan: dict) -> set[str]:
    """The tools a plan runs: its steps' and the extractions its pagers run on every page."""
    return {t for s in plan["plan"] for t in (s["tool"], s["parameters"].get("extract")) if t}


@pytest.mark.slow
def test_the_planner_picks_the_plugins_tools(installed):
    url = "https://allegro.pl/listing?string=s%C5%82uchawki"
    plan = installed.json("find products under 100 zł", "--url", url, "--plan-only", "--format", "json")
    assert "extraction.products_allegro" in _tools(plan)
    smart = installed.json(
        "find Smart products under 100 zł", "--url", url, "--plan-only", "--format", "json"
    )
    assert {"extraction.products_allegro", "validation.allegro_smart_only"} <= _tools(smart)
    # Elsewhere the site-specific extractor stays out of the plan.
    other = installed.json(
        "find products under 100 zł", "--url", "https://shop.example.com/", "--plan-only", "--format", "json"
    )
    assert "extraction.products_allegro" not in _tools(other)


@pytest.mark.slow
@pytest.mark.browser
def test_the_executor_runs_the_planned_tools(installed, browser_path):
    work = installed.root / "work"
    for instruction, expected in [
        (
            "find products under 100 zł",
            [
                "Słuchawki douszne Xiaomi Redmi Buds 4 Lite białe",
                "Słuchawki Bluetooth TWS M10 z etui powerbank",
            ],
        ),
        ("find Smart products under 100 zł", ["Słuchawki douszne Xiaomi Redmi Buds 4 Lite białe"]),
    ]:
        planned = installed.curllm(
            instruction,
            "--url",
            "https://allegro.pl/listing?string=x",
            "--plan-only",
            "--format",
            "json",
            "-o",
            "plan.json",
        )
        assert planned.returncode == 0, planned.stderr
        done = installed.curllm("--plan", "plan.json", "--url", str(LISTING), "--format", "json", cwd=work)
        assert done.returncode == 0, done.stdout + done.stderr
        result = json.loads(done.stdout)
        assert result["ok"] and [p["name"] for p in result["data"]["products"]] == expected
        # The plugin's extractor ran: as a step, or on every page of the listing inside the pager.
        assert "extraction.products_allegro" in _tools(result["plan"])
        assert all(s["success"] for s in result["steps"] if not s.get("optional"))


@pytest.mark.slow
@pytest.mark.browser
def test_the_plugins_tests_pass_against_the_installed_wheels(installed, browser_path, tmp_path):
    """curllm's pytest fixtures load from the installed wheel (pytest11) and the plugin's tests pass."""
    tests = tmp_path / "plugin"
    # A copy of the tests and their settings only: the installed package is what they import.
    shutil.copytree(PLUGIN / "tests", tests / "tests")
    shutil.copy(PLUGIN / "pyproject.toml", tests / "pyproject.toml")
    done = _run(
        [str(installed.bin / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        _env(installed.root),
        tests,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "failed" not in done.stdout and " passed" in done.stdout
    check = _run(
        [str(installed.bin / "python"), "-c", "import curllm_allegro; print(curllm_allegro.__file__)"],
        _env(installed.root),
        tests,
    )
    assert "site-packages" in check.stdout
