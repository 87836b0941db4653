"""The kinds of action an instruction can state (`GROUPS`: a search, a price range, pages, ...) and
the draft of a rule plan's step (`Draft`) planned for one; `doc_step` turns a draft into a plan step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..manifest import Manifest
from .facts import Fact, Facts

#: Kinds of action an instruction can state; each becomes at most one forms/navigation step and at
#: most one validation step, by the best tool declaring a parameter for one of the group's facts.
GROUPS: dict[str, tuple[str, ...]] = {
    "search": ("query",),
    "category": ("category_path",),
    "price": ("price_min", "price_max"),
    "dates": ("date_from", "date_to"),
    "dropdown": ("option", "option_field"),
    "click": ("click_text",),
    "scroll": ("scroll_times", "wait_ms"),
    "pages": ("pages",),
    "fields": ("fields",),
    "order": ("sort_by", "sort_order"),
    "select": ("select_fields",),
}
#: The groups a validation step can guard, and those a page action (forms, navigation) can take.
GUARD_GROUPS = ("price", "fields", "order", "select")
PAGE_GROUPS = tuple(g for g in GROUPS if g not in ("fields", "order", "select"))
#: Where a validation step of a group goes among the validation steps: checks first, then the
#: order (and the count), then the choice of fields (sorting needs fields that may not be shown).
GUARD_RANK = {"order": 1, "select": 2}
#: Facts that switch a group on without a value ("scroll down", "all pages").
PRESENCE = {"scroll": "scroll", "pages": "pages_all"}
#: Groups whose page step may fail without failing the task: a validation step enforces the same.
OPTIONAL_GROUPS = {"price"}
#: What a step of a group does, for the reasoning line.
PURPOSE = {
    "search": "types the search term into the page's search form",
    "category": "opens the category",
    "price": "sets the page's own price filter",
    "dates": "fills the date fields",
    "dropdown": "picks the option in the dropdown",
    "click": "clicks the element",
    "scroll": "scrolls to load more items",
    "pages": "follows the next-page links",
    "fields": "drops items that miss a required field",
    "order": "puts the items in order",
    "select": "keeps only the fields asked for",
}


@dataclass
class Draft:
    """A step of a rule plan being built: its tool, parameters, reasoning line and place (``order``)."""

    manifest: Manifest
    params: dict
    reason: str
    order: tuple
    optional: bool = False
    fallback: str | None = None
    group: str | None = None  # the kind of action (GROUPS) the step was planned for
    speedup: bool = False  # a page action that only helps when more than one page is read


def facts_of_group(facts: Facts, group: str) -> list[Fact]:
    """The facts of a kind of action the instruction states (the switch "all pages" included)."""
    found = [f for k in GROUPS[group] if (f := facts.fact(k)) is not None]
    presence = PRESENCE.get(group)
    if presence and (f := facts.fact(presence)) is not None:
        found.append(f)
    return found


def is_pager(m: Manifest) -> int:
    """Pagers (tools that run an extraction per page) go last among the page steps."""
    return 1 if m.parameter_for("tool") else 0


def doc_step(st: Draft) -> dict:
    """The draft as a plan document's step."""
    doc: dict[str, Any] = {"tool": st.manifest.key, "parameters": st.params, "description": st.reason}
    if st.optional:
        doc["optional"] = True
    if st.fallback:
        doc["fallback"] = st.fallback
    return doc
