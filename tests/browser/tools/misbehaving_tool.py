"""Test tool that raises, hangs or burns the CPU, loaded through CURLLM_TOOLS_PATH."""

import asyncio
import time


async def run(ctx, how):
    if how == "raise":
        raise RuntimeError("the tool broke")
    if how == "burn":  # CPU-bound work that never gives the event loop back
        end = time.perf_counter() + 3
        while time.perf_counter() < end:
            pass
        return {"products": [{"name": "too late"}]}
    await asyncio.sleep(3600)
