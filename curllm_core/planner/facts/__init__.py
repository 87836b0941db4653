"""Facts from an instruction: price bounds, counts, pages, search terms, dates and the like (PL/EN/DE).

`extract_facts` reads an instruction once and returns `Facts`: typed values, each with where it was
found and the words it came from (for the planner's reasoning). It knows nothing about tools; the
rule planner fits facts to the parameters a manifest actually declares (`planner.fitting`).

One module per kind of fact, each holding its passes and the words only they read: `dates`,
`counts` (thresholds, pages, scrolls, rows, how many items), `operations` (filters, groups,
aggregates, the output format, refusals by name), `order`, `targets` (quoted strings,
click targets, categories, search terms), `links`, `fields`, `prices`, `actions`, `tables`; the
vocabulary they share is `words`, the types `base`.

The order of the passes matters: quoted strings, dates, scores, pages, scrolls and counts are found
first and *masked* (blanked, keeping offsets), so that the price pass that runs after them cannot
read "3 pages", "1 May 2024" or "more than 100 points" as a price.
"""

from __future__ import annotations

from datetime import date

from . import actions, counts, dates, fields, links, operations, order, prices, tables, targets
from .actions import ACTIONS
from .base import Fact, Facts, Text
from .links import known_site_name, site_pattern
from .words import detect_lang

__all__ = ["ACTIONS", "Fact", "Facts", "detect_lang", "extract_facts", "known_site_name", "site_pattern"]


def extract_facts(instruction: str, *, today: date | None = None) -> Facts:
    """Every fact the instruction states. Deterministic; ``today`` only fills a year left out of a date.

    White space is folded first (runs of it are one space): every pass then reads in linear time,
    whatever the text (a pass that allows spaces between words would otherwise retry each run).
    """
    instruction = " ".join(instruction.split())
    t = Text(instruction)
    lang = detect_lang(instruction)
    found: list[Fact] = []
    quoted = targets.quoted_strings(t)
    dates.read_dates(t, found, lang, today or date.today())
    counts.read_scores(t, found)
    operations.read_operations(t, found, quoted)
    counts.read_pages(t, found)
    counts.read_scrolls(t, found)
    counts.read_rows(t, found)
    tables.read_table_choice(t, found)
    counts.read_counts(t, found)
    counts.read_result_count(t, found)
    fields.read_comments_wanted(t, found)
    fields.read_people_wanted(t, found)
    order.read_order(t, found)
    order.read_singular_superlative(t, found)
    targets.read_quoted_roles(t, quoted, found)
    order.read_dropdown(t, found)
    targets.read_click(t, found)
    targets.read_category(t, found)
    links.read_links(t, found)
    fields.read_fields(t, found)
    fields.read_select(t, found)
    targets.read_search(t, found)
    prices.read_prices(t, found)
    prices.read_strict(t, found)
    actions.read_actions(t, found)
    return Facts(instruction, found, lang)
