"""``validation.allegro_smart_only``: keep the Allegro Smart! offers, a code-first tool.

Allegro Smart! offers ship free to Smart members (and usually faster): "only Smart" is how many
people shop on allegro.pl, and the listing's own Smart filter is a URL parameter a plan cannot rely
on being honoured. This checks each offer's ``smart`` flag (set by ``extraction.products_allegro``).
The manifest is derived from the signature and docstring by ``@tool``.
"""

from __future__ import annotations

from typing import Literal

from curllm_core.toolkit import ToolContext, items_of, tool, verdict

OUTPUT_SCHEMA = {
    "type": "object",
    "required": ["validation"],
    "properties": {
        "validation": {
            "type": "object",
            "required": ["checked", "kept", "rejected", "mode"],
            "properties": {
                "checked": {"type": "integer"},
                "kept": {"type": "integer"},
                "rejected": {"type": "array", "items": {"type": "object"}},
                "mode": {"enum": ["filter", "fail"]},
            },
        }
    },
    "additionalProperties": {"type": "array"},
}


def _reason(offer: object, exclude_sponsored: bool) -> str | None:
    """Why ``offer`` is rejected, or None when it stays."""
    if not isinstance(offer, dict):
        return f"not an offer object ({type(offer).__name__})"
    if "smart" not in offer:
        return "no 'smart' flag (offers from extraction.products_allegro have one)"
    if offer["smart"] is not True:
        return "not Allegro Smart!"
    if exclude_sponsored and offer.get("sponsored") is True:
        return "sponsored"
    return None


@tool(
    category="validation",
    version="0.1.0",
    consumes=["products"],
    produces=["products"],
    dependencies=[],
    sites=["allegro.pl"],
    timeout_ms=5000,
    triggers=[r"\bsmart\b", r"darmow\w*\s+dostaw", r"\bfree (delivery|shipping)\b"],
    examples=[
        {"instruction": "Smart offers under 100 zł on allegro", "parameters": {}},
        {"instruction": "tylko oferty Smart bez sponsorowanych", "parameters": {"exclude_sponsored": True}},
        {"instruction": "every offer must be Allegro Smart", "parameters": {"mode": "fail"}},
    ],
    output_schema=OUTPUT_SCHEMA,
)
async def allegro_smart_only(
    ctx: ToolContext,
    key: str = "products",
    mode: Literal["filter", "fail"] = "filter",
    exclude_sponsored: bool = False,
) -> dict:
    """Keep only Allegro Smart! offers (free delivery for Smart members), optionally without sponsored ones.

    Args:
        key: Data key of the offer list, as extraction.products_allegro produces it.
        mode: filter: drop the other offers and report them; fail: fail the step if any offer is not Smart!.
        exclude_sponsored: Also drop the paid (Sponsorowane) offers.
    """
    offers = items_of(ctx, key)
    kept: list = []
    rejected: list[dict] = []
    for index, offer in enumerate(offers):
        reason = _reason(offer, exclude_sponsored)
        if reason is None:
            kept.append(offer)
            continue
        name = offer.get("name") if isinstance(offer, dict) else None
        rejected.append({"index": index, "name": name, "reason": f"offer {index} ({name}): {reason}"})
    return verdict(key, kept, rejected, mode, "are not wanted", noun="offers")
