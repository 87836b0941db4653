"""The facts of an instruction (planner/facts/): typed values with the words they came from, PL/EN/DE."""

from __future__ import annotations

import pytest

from curllm_core.planner.facts import extract_facts


@pytest.mark.parametrize(
    ("instruction", "facts"),
    [
        ("top 10 stories with more than 100 points", {"limit": 10, "min_points": 101}),
        ("stories with at least 100 points", {"min_points": 100}),
        ("first 5 products from 3 pages", {"limit": 5, "pages": 3}),
        ("from 1 May 2024 to 7 May 2024", {"date_from": "2024-05-01", "date_to": "2024-05-07"}),
        ("on 2024-05-03", {"date_from": "2024-05-03", "date_to": "2024-05-03"}),
        ("since 1.05.2024", {"date_from": "2024-05-01"}),
        ("scroll down 5 times, wait 2 s", {"scroll_times": 5, "wait_ms": 2000}),
        ("over 1,500.50 USD", {"price_min": 1500.5}),
        ("unter 1.299,99 €", {"price_max": 1299.99}),
        ("under 2k", {"price_max": 2000}),
        ("150 zł or less", {"price_max": 150}),
        # the price's noun between the bound and the amount
        ("max price 100 zł", {"price_max": 100}),
        ("maksymalnie cena 200 zł", {"price_max": 200}),
        ("min price 50 €", {"price_min": 50}),
        ("links containing 'promo'", {"link_pattern": "promo"}),
        ("select 'Newest' from the 'Sort by' dropdown", {"option": "Newest", "option_field": "Sort by"}),
        ("open Elektronika > Laptopy > Gaming", {"category_path": ["Elektronika", "Laptopy", "Gaming"]}),
        ("every article has a title, a url and an image", {"fields": ["title", "url", "image"]}),
        ("don't click anything, just list products", {}),
        ("die 2. Tabelle", {"nth": 2}),
        ("tabela nr 3", {"nth": 3}),
        ("the first 5 rows of the revenue table", {"max_rows": 5, "table_words": "revenue"}),
        ("pierwsze 5 wierszy tabeli", {"max_rows": 5}),
        ("die ersten 3 Zeilen der Tabelle", {"max_rows": 3}),
        ("the first 2 tables", {"limit": 2}),
        ("between 100 and 200 zł", {"price_min": 100, "price_max": 200}),
        ("zwischen 10 und 25 Euro", {"price_min": 10, "price_max": 25}),
        ("the 5 most upvoted posts", {"limit": 5, "sort_by": "points"}),
        ("I would like the cheapest products", {"sort_by": "price"}),
        ("phones under 1000 zł", {"price_max": 1000}),
        ("zeige die Tabelle der Spiele", {"table_words": "Spiele"}),
        ("the second revenue table", {"nth": 2, "table_words": "revenue"}),
        ("extract all tables from the page", {}),
        ("the 30 second wait", {}),
        ("die 10 besten Suchergebnisse", {"limit": 10}),
        ("stories with more than 100 comments", {"min_comments": 101}),
        ("the 5 stories with the most comments", {"limit": 5}),
    ],
)
def test_facts(instruction, facts):
    got = extract_facts(instruction).as_dict()
    for kind, value in facts.items():
        assert got.get(kind) == value, (instruction, got)
    if not facts:
        assert not set(got) & {"click_text", "query", "price_min", "price_max", "nth", "table_words"}, got
    if "the most comments" in instruction or "100 comments" in instruction:
        assert "item_kind" not in got  # comments as a count, not as the thing asked for
