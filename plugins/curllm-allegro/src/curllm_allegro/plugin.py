"""The plugin: what the ``curllm`` entry point ``allegro = "curllm_allegro.plugin"`` names.

curllm calls `curllm_register_tools` once per process; everything registered shows up in
``curllm tools list`` with source ``allegro``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from curllm_core.toolkit import hookimpl

from .smart import allegro_smart_only

#: The declarative tools' manifests, shipped inside the package (see pyproject.toml).
MANIFESTS = Path(__file__).resolve().parent / "manifests"


@hookimpl
def curllm_register_tools(register: Callable[[Any], Any]) -> None:
    """Register the manifests directory (extraction.products_allegro) and the code-first tool."""
    register(MANIFESTS)
    register(allegro_smart_only)
