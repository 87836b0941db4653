"""The plugin's tests run against an installed curllm-allegro, or against this source checkout.

curllm's own pytest plugin provides the fixtures (curllm_run_tool, curllm_check_manifest, ...);
here only the registry is adjusted, so that the plugin's tools are there even before
``pip install -e .``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from curllm_core.registry import Registry
from curllm_core.testing import make_registry

try:
    import curllm_allegro  # noqa: F401 - installed: test what is installed
except ImportError:  # a source checkout: test the source
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

FIXTURES = Path(__file__).resolve().parent / "fixtures"
LISTING = FIXTURES / "allegro_listing.html"
LISTING_URL = "https://allegro.pl/listing?string=s%C5%82uchawki%20bezprzewodowe"


@pytest.fixture
def curllm_registry() -> Registry:
    """curllm's tools plus this plugin's (registered through its hook unless already installed)."""
    import curllm_allegro.plugin

    return make_registry(curllm_allegro.plugin, source="allegro")
