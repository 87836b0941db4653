"""Shared by the planner's tests: the installed tools as a registry (a file may define its own)."""

from __future__ import annotations

import pytest

from tests.warm_cache import fresh_cache


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    """The installed tools only: no third-party plugins, no CURLLM_TOOLS_PATH, a private cache."""
    mp = pytest.MonkeyPatch()
    mp.setenv("CURLLM_LOAD_PLUGINS", "")
    mp.delenv("CURLLM_TOOLS_PATH", raising=False)
    mp.setenv("CURLLM_CACHE_DIR", str(fresh_cache(tmp_path_factory.mktemp("cache"))))
    from curllm_core.plugins import load_registry

    yield load_registry()
    mp.undo()
