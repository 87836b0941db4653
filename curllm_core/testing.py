"""pytest plugin for tool authors (entry point ``pytest11``): fixtures to check manifests and run tools.

Loaded automatically wherever curllm is installed; it imports nothing heavy until a fixture is used.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def curllm_registry():
    """The registry as a user would have it (built-in tools, installed plugins, CURLLM_TOOLS_PATH)."""
    from .plugins import load_registry

    return load_registry()
