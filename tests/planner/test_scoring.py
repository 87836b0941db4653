"""Tool scoring (planner/scoring.py): the tools most likely to serve a task, from their manifests alone."""

from __future__ import annotations

from curllm_core.planner.scoring import rank_tools

SHOP = "https://shop.example/"
HN = "https://news.ycombinator.com/"
PRC = "validation.price_range_check"
CENEO = "extraction.products_ceneo"
HNX = "extraction.articles_hn"


def test_rank_tools_puts_the_right_tools_first(registry):
    top = [m.key for m in rank_tools("top 10 stories with more than 100 points", HN, registry, 3)]
    assert top[0] == HNX
    top = [m.key for m in rank_tools("find products under 150zł", "https://www.ceneo.pl/", registry, 5)]
    assert CENEO in top and PRC in top
    assert len(rank_tools("anything", SHOP, registry, 4)) == 4
