"""Test tool, loaded from beside its manifest through CURLLM_TOOLS_PATH."""

import asyncio


async def run(ctx, wait_ms: int = 0):
    if wait_ms:
        await asyncio.sleep(wait_ms / 1000)
    info = await ctx.page.evaluate(
        "() => ({title: document.title, url: location.href, items: document.querySelectorAll('.item').length})"
    )
    return {"page": info}
