"""Test tool that raises, hangs, burns the CPU or floods its output, loaded through CURLLM_TOOLS_PATH."""

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
    if how == "flood":  # a 16 MB result, at once
        return {"products": [{"name": f"{i:05} " + "x" * 2000} for i in range(8000)]}
    await asyncio.sleep(3600)
