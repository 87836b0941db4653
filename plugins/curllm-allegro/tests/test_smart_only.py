"""validation.allegro_smart_only, the code-first tool: run through curllm's executor."""

from __future__ import annotations

import pytest
from curllm_core.errors import PlanError, ToolError

OFFERS = [
    {"name": "JBL Tune 520BT", "price": 179.0, "smart": True, "sponsored": True},
    {"name": "TWS M10", "price": 24.5, "smart": False, "sponsored": False},
    {"name": "Redmi Buds 4 Lite", "price": 89.99, "smart": True, "sponsored": False},
    {"name": "from another site", "price": 10.0},
]


async def test_keeps_smart_offers(curllm_run_tool):
    out = await curllm_run_tool("validation.allegro_smart_only", data={"products": OFFERS})
    assert [p["name"] for p in out["products"]] == ["JBL Tune 520BT", "Redmi Buds 4 Lite"]
    assert out["validation"]["checked"] == 4 and out["validation"]["kept"] == 2
    reasons = [r["reason"] for r in out["validation"]["rejected"]]
    assert reasons == [
        "offer 1 (TWS M10): not Allegro Smart!",
        "offer 3 (from another site): no 'smart' flag (offers from extraction.products_allegro have one)",
    ]


async def test_exclude_sponsored_and_another_key(curllm_run_tool):
    out = await curllm_run_tool(
        "allegro_smart_only", data={"offers": OFFERS}, params={"key": "offers", "exclude_sponsored": True}
    )
    assert [p["name"] for p in out["offers"]] == ["Redmi Buds 4 Lite"]


async def test_fail_mode_fails_the_step(curllm_run_tool):
    with pytest.raises(ToolError, match="2 of 4 offers are not wanted"):
        await curllm_run_tool(
            "validation.allegro_smart_only", data={"products": OFFERS}, params={"mode": "fail"}
        )


async def test_needs_the_offers_first(curllm_run_tool):
    with pytest.raises(PlanError, match="consumes 'products'"):
        await curllm_run_tool("validation.allegro_smart_only", data={})
    with pytest.raises(PlanError, match="mode"):
        await curllm_run_tool("validation.allegro_smart_only", data={"products": []}, params={"mode": "keep"})
