"""A code-first tool: a typed async function and ``@tool`` are the whole tool, manifest included.

    python examples/code_first_tool.py [SHOP_URL]

``@tool`` derives the manifest from the signature (parameter types, defaults) and the docstring
(description, one line per argument); the function is registered into a registry and used in a
plan like any built-in tool. Without SHOP_URL the example shop (examples/shop/serve.py) is started
in-process. Prints the derived manifest's parameters and the three cheapest products under 150 zł.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path

import curllm_core
from curllm_core.toolkit import ToolContext, ToolError, tool


@tool(
    category="validation",
    consumes=["products"],
    produces=["products"],
    dependencies=[],
    triggers=[r"\bcheapest\b", r"najtańsz"],
    examples=[{"instruction": "the 3 cheapest products", "parameters": {"n": 3}}],
)
async def cheapest(ctx: ToolContext, n: int = 5, key: str = "products") -> dict:
    """Keep the n cheapest items, cheapest first; items without a numeric price go last.

    Args:
        n: How many items to keep.
        key: Data key of the item list.
    """
    items = ctx.data.get(key)
    if not isinstance(items, list):
        raise ToolError(f"no list of items under {key!r}")
    if n < 1:
        raise ToolError(f"n must be at least 1, got {n}")

    def price(item: dict) -> float:
        value = item.get("price") if isinstance(item, dict) else None
        return (
            float(value) if isinstance(value, int | float) and not isinstance(value, bool) else float("inf")
        )

    return {key: sorted(items, key=price)[:n]}


PLAN = {
    "plan": [
        {"tool": "navigation.pagination", "parameters": {"extract": "extraction.products_generic"}},
        {"tool": "validation.price_range_check", "parameters": {"max": 150}},
        {"tool": "validation.cheapest", "parameters": {"n": 3}},
    ],
    "expected_output": "products",
}


def start_shop() -> tuple[str, object]:
    """The example shop on a free port, served from a background thread."""
    sys.path.insert(0, str(Path(__file__).resolve().parent / "shop"))
    from serve import make_server

    server = make_server(port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/", server


async def main(url: str) -> int:
    print("derived parameters:", json.dumps(cheapest.manifest.parameters, ensure_ascii=False))
    registry = curllm_core.load_registry()
    registry.register(cheapest, source="code_first_tool.py")
    result = await curllm_core.execute_plan(PLAN, url, registry=registry)
    for product in result.data.get("products", []):
        print(f"{product['price']:>8.2f} {product['currency']}  {product['name']}")
    if not result.ok:
        print("not ok:", result.errors, file=sys.stderr)
    return 0 if result.ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(asyncio.run(main(sys.argv[1])))
    shop_url, server = start_shop()
    try:
        sys.exit(asyncio.run(main(shop_url)))
    finally:
        server.shutdown()
