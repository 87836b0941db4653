"""A test's own cache directory with the manifest cache already filled: no plan of another test in
it, and the built-in tools' manifests not checked again by every `curllm` it starts (jsonschema and
28 manifests: ~0.4 s of CPU a cold process, ~0.3 s a cold registry in the test's process).

A real ``curllm tools list`` fills one cache per test process, the first time a test asks
(`fresh_cache`); each test gets a copy of its manifest files. Tests of discovery and of the caches
themselves (core/test_registry.py, core/test_caches.py, the doctor's, the plugins' loading) keep
starting from an empty cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

#: Where the filled cache is made: the test process's temporary directory (set by tests/conftest.py).
HOME: Path | None = None
_filled: Path | None = None


def fresh_cache(path: Path) -> Path:
    """``path`` made a cache directory holding only the checked built-in manifests; returns it."""
    path.mkdir(parents=True, exist_ok=True)
    for file in _filled_cache().iterdir():
        shutil.copyfile(file, path / file.name)
    return path


def _filled_cache() -> Path:
    global _filled
    if _filled is None:
        assert HOME is not None, "tests/conftest.py sets warm_cache.HOME for the session"
        out = HOME / "warm-manifests"
        out.mkdir(exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
        env.update({"CURLLM_CACHE_DIR": str(out), "CURLLM_LOAD_PLUGINS": ""})
        done = subprocess.run(
            [sys.executable, "-m", "curllm_core", "tools", "list"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0 and (out / "manifests.json").is_file(), done.stdout + done.stderr
        _filled = out
    return _filled
