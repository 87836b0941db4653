"""scripts/demo.sh as the README runs it: set-up output, the demo's answer, how to call curllm next."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"


def installed_as_locked() -> bool:
    """Whether .venv holds what setup.sh installs now (its stamp: a digest of pyproject and the lock)."""
    stamp = VENV / ".curllm-installed"
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + (ROOT / "constraints.txt").read_bytes())
    return stamp.exists() and stamp.read_text().strip() == wanted.hexdigest()


@pytest.mark.browser
def test_the_demo_answers_and_says_how_to_go_on(tmp_path, browser_path):
    if not installed_as_locked():
        pytest.skip(
            "the checkout's .venv is not set up (or pyproject.toml or constraints.txt changed): "
            "scripts/setup.sh would install"
        )
    env = {**os.environ, "CURLLM_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        ["bash", "scripts/demo.sh", "--format", "json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    prices = [p["price"] for p in result["data"]["products"]]
    assert result["ok"] and prices and max(prices) <= 150
    # The set-up said what it found; the end says how to call curllm for a task of one's own.
    assert "curllm set-up: browser: " in done.stderr
    assert f"curllm is installed in {ROOT}/.venv" in done.stderr
    assert '.venv/bin/curllm "find products under 150zł" --url https://your-shop.example/' in done.stderr
    assert "source .venv/bin/activate" in done.stderr


def lock() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not NAME==VERSION (write it with scripts/lock.sh)"
            pins[canonicalize_name(name)] = version.strip()
    return pins


def test_the_lock_pins_every_requirement_within_pyproject_ranges():
    """pyproject.toml keeps ranges; constraints.txt (what setup.sh and CI install) pins each one."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = lock()
    assert "curllm" not in pins
    for text in project["dependencies"] + project["optional-dependencies"]["test"]:
        req = Requirement(text)
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not in constraints.txt: run scripts/lock.sh"
        assert req.specifier.contains(pins[name], prereleases=True), (name, pins[name], str(req.specifier))
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert '-e ".[test]" -c constraints.txt' in setup


def test_the_venv_holds_the_locked_versions():
    if not installed_as_locked():
        pytest.skip("the checkout's .venv is not what setup.sh installs now: run scripts/setup.sh")
    from importlib.metadata import distributions

    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in distributions()}
    differ = {n: (v, installed.get(n)) for n, v in lock().items() if installed.get(n) != v}
    assert not differ, f"locked vs installed: {differ}"
