"""The extraction step: the tool that gives what the instruction asks for (the site's own first, then
one that can take every fact that selects items), with the parameters the facts fill."""

from __future__ import annotations

from ..errors import PlanningError
from ..manifest import CATEGORY_ORDER, Category
from ..registry import Registry
from .facts import Facts
from .fitting import complete, fill, neutral_fill, param_for
from .scoring import Scored
from .steps import Draft


def choose_extraction(scored: list[Scored], kind: str | None) -> tuple[list[Scored], str]:
    """Extraction candidates, best first, and the kind they were chosen for."""
    extractors = [s for s in scored if s.manifest.category == Category.EXTRACTION]
    if kind is None:
        # Nothing names a kind: the tool made for this site decides, else the best-scoring one.
        site_tools = [s for s in extractors if s.site in ("match", "named")]
        top = site_tools[0] if site_tools else next((s for s in extractors if s.eligible and s.trigger), None)
        kind = top.manifest.produces[0] if top and top.manifest.produces else "products"

    def tier(s: Scored) -> int:
        return {"match": 0, "named": 0, "": 1, "unknown": 2}.get(s.site, 3)

    cands = [s for s in extractors if kind in s.manifest.produces]
    cands.sort(key=lambda s: (tier(s), -s.score, s.manifest.key))
    return cands, kind


#: Facts an extraction tool may take as parameters (the others describe page actions or checks).
EXTRACTION_FACTS = (
    "limit",
    "sort",
    "min_points",
    "min_comments",
    "min_rows",
    "nth",
    "largest",
    "smallest",
    "table_words",
    "max_rows",
    "item_kind",
    "link_pattern",
    "link_images",
    "same_domain",
    "link_external",
    "price_min",
    "price_max",
)
#: Facts that decide which items come back: an extraction tool that has no parameter for one the
#: instruction states would answer something else (the story instead of its comments).
SELECTING_FACTS = (
    "item_kind",
    "min_points",
    "min_comments",
    "min_rows",
    "nth",
    "largest",
    "smallest",
    "table_words",
)


def takers_first(cands: list[Scored], facts: Facts) -> list[Scored]:
    """Candidates that can take every selecting fact the instruction states before those that would
    drop one (stable: otherwise the site's own tool still comes first)."""
    stated = [k for k in SELECTING_FACTS if k in facts]
    if not stated:
        return cands
    return sorted(cands, key=lambda c: sum(1 for k in stated if param_for(c.manifest, k)[0] is None))


def extraction_step(
    scored: list[Scored], kind: str | None, kind_words: str, facts: Facts, registry: Registry
) -> tuple[Draft, str]:
    """The extraction step and the data key it gives (the plan's expected output)."""
    cands, kind = choose_extraction(scored, kind)
    if not cands:
        producers = sorted(
            k for m in registry.tools.values() if m.category == Category.EXTRACTION for k in m.produces
        )
        raise PlanningError(
            f"no installed extraction tool gives {kind}"
            + (f" (installed tools give: {', '.join(dict.fromkeys(producers))})" if producers else "")
            + "; `curllm tools list` shows what is installed, plugins add more"
        )
    ranked = takers_first(cands, facts)
    passed_over = (
        [c.manifest.key for c in cands[: cands.index(ranked[0])]] if ranked[0] is not cands[0] else []
    )
    cands = ranked
    for cand in cands:
        m = cand.manifest
        params, why = fill(m, facts, EXTRACTION_FACTS)
        params, why = neutral_fill(m, params, why)
        if complete(m, params):
            break
    else:
        raise PlanningError(
            f"no extraction tool for {kind} can be called with what the instruction says "
            f"(tried {', '.join(c.manifest.key for c in cands)})"
        )
    out_key = kind if kind in m.produces else m.produces[0]
    said = f"the instruction asks for {kind} ({kind_words!r})" if kind_words else f"{kind} is what it gives"
    sites = ", ".join(m.sites)
    where = {
        "match": f"made for {sites}, the URL's site",
        "named": f"made for {sites}, the site the instruction names",
        "unknown": f"made for {sites} (the page's site is not known)",
        "mismatch": f"made for {sites}; no installed tool for this site gives {kind}",
        "": "works on any page",
    }[cand.site]
    reason = f"extracts {out_key}: {said}; {where}" + (f"; {', '.join(why)}" if why else "")
    if passed_over and m.key not in passed_over:
        reason += f"; not {', '.join(passed_over)}: it cannot take what the instruction asks for"
    fallback = None
    if m.sites:  # when the site's markup changed, a generic extractor of the same kind still has a go
        fallback = next((c.manifest.key for c in cands if not c.manifest.sites), None)
        if fallback:
            reason += f"; {fallback} takes over if it fails"
    return Draft(
        m, params, reason, (CATEGORY_ORDER[Category.EXTRACTION], 0, 0, 0), fallback=fallback
    ), out_key
