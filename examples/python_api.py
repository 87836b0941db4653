"""The Python API against the example shop: an instruction, then a plan file, then streamed events.

    python examples/python_api.py [SHOP_URL]

Without SHOP_URL the example shop (examples/shop/serve.py) is started in-process on a free port.
Needs a Chromium (`apt-get install chromium-headless-shell`, or CURLLM_BROWSER).
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path

import curllm_core

HERE = Path(__file__).resolve().parent


def start_shop() -> tuple[str, object]:
    """The example shop on a free port, served from a background thread."""
    sys.path.insert(0, str(HERE / "shop"))
    from serve import make_server

    server = make_server(port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/", server


def instruction(url: str) -> bool:
    """1. Say what you want: the rule planner picks the tools (no model needed)."""
    steps: list[str] = []
    result = curllm_core.run(
        "find products under 150zł",
        url=url,
        on_event=lambda e: steps.append(e["data"]["message"]) if e["type"] == "step" else None,
    )
    print(
        f"1. instruction: ok={result.ok}, {len(result.data.get('products', []))} products, "
        f"plan: {' -> '.join(s['tool'] for s in result.plan['plan'])}"
    )
    for product in result.data.get("products", [])[:3]:
        print(f"   {product['price']:>8.2f} {product['currency']}  {product['name']}")
    print(f"   ({len(steps)} step events, e.g. {steps[-1]!r})")
    return result.ok


async def plan_file(url: str) -> bool:
    """2. Run a plan file as it is: checked against the manifests first, then executed."""
    plan = json.loads((HERE / "plans" / "shop_under_150.json").read_text(encoding="utf-8"))
    result = await curllm_core.execute_plan(plan, url)
    prices = [p["price"] for p in result.data.get("products", [])]
    print(
        f"2. plan file: ok={result.ok}, {len(prices)} products, all <= 150: {all(p <= 150 for p in prices)}, "
        f"took {result.timings['total_ms']} ms"
    )
    return result.ok


async def streamed(url: str) -> bool:
    """3. Stream the events while the task runs; the last one carries the result."""
    from curllm_core.api import astream

    kinds: list[str] = []
    last: dict = {}
    async for event in astream("find the first 3 products", url=url):
        kinds.append(event["type"])
        last = event
    result = last["data"]["result"]
    print(
        f"3. streamed: {' '.join(dict.fromkeys(kinds))}; {len(result['data'].get('products', []))} products"
    )
    return result["ok"]


def main() -> int:
    if len(sys.argv) > 1:
        url, server = sys.argv[1], None
    else:
        url, server = start_shop()
    try:
        ok = instruction(url)
        ok = asyncio.run(plan_file(url)) and ok
        ok = asyncio.run(streamed(url)) and ok
    finally:
        if server is not None:
            server.shutdown()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
