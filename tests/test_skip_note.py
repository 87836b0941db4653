"""The test summary says which tests were skipped for want of ../shared/realpages (tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_summary_names_what_needs_the_real_pages(tmp_path):
    env = {**os.environ, "CURLLM_TEST_REALPAGES": str(tmp_path / "absent"), "CURLLM_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-m",
            "not browser",
            "tests/tools/test_extraction_products_ceneo.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tests skipped: no real page snapshots" in done.stdout
    assert f"from {tmp_path / 'absent'} (../shared/realpages beside this checkout)" in done.stdout
    assert "tests/tools/test_extraction_products_ceneo.py: " in done.stdout
