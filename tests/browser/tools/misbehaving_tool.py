"""Test tool that raises or hangs, loaded through CURLLM_TOOLS_PATH."""

import asyncio


async def run(ctx, how):
    if how == "raise":
        raise RuntimeError("the tool broke")
    await asyncio.sleep(3600)
