"""scripts/demo.sh as the README runs it: set-up output, the demo's answer, how to call curllm next."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"


@pytest.mark.browser
def test_the_demo_answers_and_says_how_to_go_on(tmp_path, browser_path):
    stamp = VENV / ".curllm-installed"
    if not stamp.exists() or (ROOT / "pyproject.toml").stat().st_mtime > stamp.stat().st_mtime:
        pytest.skip(
            "the checkout's .venv is not set up (or pyproject.toml changed): scripts/setup.sh would install"
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
