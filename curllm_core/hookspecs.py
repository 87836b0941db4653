"""The plugin contract. A plugin is a module or package exposed through the ``curllm`` entry point group.

from curllm_core import hookimpl

@hookimpl
def curllm_register_tools(register):
    register(Path(__file__).parent / "manifests")   # a directory of *.json manifests
    register(my_code_first_tool)                    # a @tool function
"""

from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("curllm")
hookimpl = pluggy.HookimplMarker("curllm")


@hookspec
def curllm_register_tools(register):
    """Register tools by calling ``register(x)`` zero or more times.

    ``x`` is a directory (every ``*.json`` manifest below it), a manifest file path, or a code-first
    tool made with ``@curllm_core.tool``.
    """
