"""Test tool, loaded from beside its manifest through CURLLM_TOOLS_PATH."""


async def run(ctx):
    info = await ctx.page.evaluate(
        "() => ({title: document.title, url: location.href, items: document.querySelectorAll('.item').length})"
    )
    return {"page": info}
