"""The built-in tools, registered as a default plugin through the same hook a third party uses."""

from __future__ import annotations

from .hookspecs import hookimpl
from .manifest import manifests_dir


@hookimpl
def curllm_register_tools(register):
    register(manifests_dir())
