"""The smallest useful curllm plugin: one code-first tool and the hook that registers it.

    pip install ./examples/plugin_minimal
    curllm plugins list                       # dedupe  0.1.0  1 tools
    curllm tools show validation.dedupe

Listings repeat items (a sponsored slot and the regular one, overlapping pages): ``validation.dedupe``
keeps the first item of each ``url`` (or any other field). A full plugin, with declarative
manifests shipped as package data and its own tests, is plugins/curllm-allegro.
"""

from __future__ import annotations

from curllm_core.toolkit import ToolContext, ToolError, hookimpl, tool


@tool(
    category="validation",
    consumes=["products"],
    produces=["products"],
    dependencies=[],
    triggers=[r"\b(unique|distinct|no duplicates|deduplicate)\b", r"bez duplikatów"],
    examples=[{"instruction": "unique products only", "parameters": {}}],
)
async def dedupe(ctx: ToolContext, field: str = "url", key: str = "products") -> dict:
    """Drop items whose field repeats an earlier item's; items without the field are kept.

    Args:
        field: The field that identifies an item (url, name, id, ...).
        key: Data key of the item list.
    """
    items = ctx.data.get(key)
    if not isinstance(items, list):
        raise ToolError(f"no list of items under {key!r}")
    seen: set[str] = set()
    kept = []
    for item in items:
        value = item.get(field) if isinstance(item, dict) else None
        if value is not None:
            marker = repr(value)
            if marker in seen:
                continue
            seen.add(marker)
        kept.append(item)
    return {key: kept}


@hookimpl
def curllm_register_tools(register):
    """curllm calls this once per process: register the tool."""
    register(dedupe)
