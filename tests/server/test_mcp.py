"""`curllm mcp` through the MCP SDK's own client over stdio, against the local shop; and /mcp in `serve`."""

from __future__ import annotations

import json

import pytest
from conftest import CURLLM, ROOT, server_env, start_server

mcp = pytest.importorskip("mcp", reason="curllm[mcp] is not installed")
from mcp import Client, StdioServerParameters  # noqa: E402

pytestmark = pytest.mark.browser


@pytest.fixture
def stdio(tmp_path, browser_path) -> StdioServerParameters:
    # A tool from outside curllm (a CURLLM_TOOLS_PATH directory, as a plugin's would be) is offered too.
    tools = tmp_path / "tools"
    tools.mkdir()
    doc = json.loads((ROOT / "tools_manifests/extraction/products_generic.json").read_text(encoding="utf-8"))
    doc.update(name="shop_listing", description="Products of my shop's listings (a local tool).")
    doc.pop("examples", None)
    (tools / "shop_listing.json").write_text(json.dumps(doc), encoding="utf-8")
    env = {**server_env(tmp_path), "CURLLM_TOOLS_PATH": str(tools)}
    return StdioServerParameters(command=CURLLM, args=["mcp", "--allow-private"], env=env, cwd=str(ROOT))


async def test_tools_and_calls_in_one_session(stdio, site_url):
    """One `curllm mcp` process (starting one costs seconds): list, run, a page tool, plan, run_plan."""
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async with Client(stdio) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        ran = await client.call_tool(
            "run",
            {"instruction": "find products under 150zł", "url": f"{site_url}/"},
            progress_callback=on_progress,
        )
        single = await client.call_tool("extraction_products_generic", {"url": f"{site_url}/", "limit": 2})
        local = await client.call_tool("extraction_shop_listing", {"url": f"{site_url}/", "limit": 1})
        limited = await client.call_tool(
            "run",
            {"instruction": "find products", "url": f"{site_url}/", "fields": ["name", "price"], "limit": 2},
        )
        planned = await client.call_tool(
            "plan", {"instruction": "find products under 150zł", "url": f"{site_url}/"}
        )
        plan = planned.structured_content
        replayed = await client.call_tool("run_plan", {"plan": plan, "url": f"{site_url}/kategoria/dom"})
        listed = await client.call_tool("list_tools", {})

    # Listing: the task tools, and each page tool with its manifest's description and parameters.
    assert {"run", "plan", "run_plan", "list_tools"} <= set(tools)
    assert tools["run"].input_schema["required"] == ["instruction"]
    generic = tools["extraction_products_generic"]
    from curllm_core.plugins import load_registry

    manifest = load_registry().resolve("extraction.products_generic")
    assert manifest.description in generic.description
    assert generic.input_schema["required"] == ["url"]
    assert generic.input_schema["properties"]["limit"] == manifest.parameters["properties"]["limit"]
    assert "validation_price_range_check" not in tools  # it needs data, not a page
    assert all(name.replace("_", "").replace("-", "").isalnum() for name in tools)

    # run: the data as structured content, a one-line summary, step events as progress.
    assert not ran.is_error, ran.content
    products = ran.structured_content["products"]
    assert products and all(p["price"] <= 150 for p in products)
    assert ran.content[0].text.startswith(f"ok: {len(products)} products")
    messages = [m for _, m in progress]
    assert [v for v, _ in progress] == sorted(v for v, _ in progress)  # progress only grows
    assert any(m and m.startswith("step 1 completed") for m in messages), messages
    assert messages[-1].startswith("complete: ok=True")

    # A page tool on its own; plan, then run_plan of that plan elsewhere; list_tools.
    assert not single.is_error, single.content
    assert len(single.structured_content["products"]) == 2
    assert tools["extraction_shop_listing"].description.startswith("Products of my shop's listings")
    assert not local.is_error and len(local.structured_content["products"]) == 1
    assert not limited.is_error and len(limited.structured_content["products"]) == 2
    assert plan["plan"] and plan["expected_output"] == "products"
    assert not replayed.is_error and replayed.structured_content["products"]
    assert "extraction.products_generic" in {t["name"] for t in listed.structured_content["tools"]}


async def test_errors_are_tool_errors_with_the_curllm_code(stdio, site_url):
    async with Client(stdio) as client:
        local = await client.call_tool("run", {"instruction": "find products", "url": "file:///etc/hostname"})
        bad = await client.call_tool("extraction_products_generic", {"url": f"{site_url}/", "limit": 0})
        failed = await client.call_tool(
            "run", {"instruction": "find products", "url": f"{site_url}/no-such-page"}
        )
    assert local.is_error and local.content[0].text.startswith("[BAD_URL]")
    assert local.structured_content["error"]["code"] == "BAD_URL"
    assert bad.is_error and bad.content[0].text.startswith("[BAD_PLAN]")
    assert failed.is_error and failed.structured_content["error"]["code"] == "HTTP_ERROR"


async def test_the_same_server_is_mounted_at_mcp_in_serve(tmp_path, site_url, browser_path):
    served = start_server(tmp_path, "--token", "mcp-token-123", "--allow-private")
    try:
        import httpx
        import httpx2  # the HTTP client the MCP SDK's transport takes
        from mcp.client.streamable_http import streamable_http_client

        auth = {"Authorization": "Bearer mcp-token-123"}
        async with (
            httpx2.AsyncClient(headers=auth, timeout=60) as http,
            Client(streamable_http_client(served.url + "/mcp", http_client=http)) as client,
        ):
            names = {t.name for t in (await client.list_tools()).tools}
            result = await client.call_tool(
                "extraction_products_generic", {"url": f"{site_url}/", "limit": 1}
            )
        assert {"run", "extraction_products_generic"} <= names
        assert len(result.structured_content["products"]) == 1
        assert httpx.post(served.url + "/mcp", json={}).status_code == 401
    finally:
        served.stop()
