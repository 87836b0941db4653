"""Tools chosen by the page: which installed tool's site markup (its manifest's ``detect``) a page shows.

A site tool is planned by the page's address; a saved page, a proxy or a mirror of the site has
another address but the same markup. Before an extraction step runs, `choose` tests, in ONE browser
call, the ``detect`` selectors of every tool that could do the step's job (a page tool producing the
same data keys); when the planned tool's markup is absent (a generic tool has none) and another's is
there, that tool runs instead. `alternatives` lists what to try when an extraction came back empty:
the tools whose markup the page shows, then the generic tools of the same kind.

A tool only stands in for another when it takes every parameter the step sets (a ``min_points``
the other tool does not know would be silently dropped otherwise): parameters carry over by name.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import Any

from ..manifest import Category, Manifest
from ..plan.params import fill_defaults, parameter_problems, step_io
from ..registry import Registry

# Counts per selector; a selector the browser rejects counts as no match (discovery checks them
# with selectolax already, whose CSS dialect is close to but not the browser's).
_COUNT_JS = r"""(groups) => groups.map((selectors) => selectors.map((s) => {
  try { return document.querySelectorAll(s).length; } catch (e) { return 0; }
}))"""


@dataclass
class Sighting:
    """A tool whose markup the page shows: the first of its ``detect`` selectors that matched."""

    manifest: Manifest
    selector: str
    count: int

    def describe(self) -> str:
        return (
            f"{self.manifest.key}'s markup ({self.selector}: {self.count} element{'s' * (self.count != 1)})"
        )


@dataclass
class Choice:
    """The tool a step runs instead of the planned one, its parameters, and why (for the step report)."""

    manifest: Manifest  # the tool that runs (for an ``extract`` step: the step's own tool, unchanged)
    params: dict
    planned: str  # the key of the planned extraction tool
    chosen: str  # the key of the extraction tool that runs
    reason: str

    def report(self) -> dict:
        return {"planned": self.planned, "chosen": self.chosen, "reason": self.reason}


def is_generic(m: Manifest) -> bool:
    """A tool made for no site in particular."""
    return not m.sites and not m.detect


def candidates(registry: Registry, produces: list[str]) -> list[Manifest]:
    """Page tools with ``detect`` markup that produce every key in ``produces``."""
    if not produces:
        return []
    return [
        m
        for m in registry
        if m.detect
        and m.needs_page
        and m.category == Category.EXTRACTION
        and set(produces) <= set(m.produces)
    ]


async def sightings(page: Any, manifests: list[Manifest]) -> dict[str, Sighting]:
    """The tools among ``manifests`` whose markup the page shows, by key (one ``page.evaluate``;
    ``page`` may also be a fetched `http_fetch.Document`, read without a browser)."""
    if not manifests:
        return {}
    html = getattr(page, "html", None)
    groups = [list(m.detect) for m in manifests]
    # A fetched `Document` (the HTTP engine) is counted in its HTML.
    counts = _count_in_html(html, groups) if isinstance(html, str) else await _count_on_page(page, groups)
    if counts is None:
        return {}  # the page would not answer: no sighting, the planned tool runs and says what it finds
    found = {}
    for m, per_selector in zip(manifests, counts, strict=True):
        hit = next(((s, n) for s, n in zip(m.detect, per_selector, strict=True) if n), None)
        if hit:
            found[m.key] = Sighting(m, *hit)
    return found


async def _count_on_page(page: Any, groups: list[list[str]]) -> list[list[int]] | None:
    """`_COUNT_JS` on the live page. A page still navigating (a form's submit that lands after the
    step that sent it: "Execution context was destroyed") is asked again once it has loaded, up to
    `_ASKS` times; None when it still cannot answer."""
    for attempt in range(_ASKS):
        try:
            counts: list[list[int]] = await page.evaluate(_COUNT_JS, groups)
            return counts
        except Exception as e:  # noqa: BLE001 - playwright's Error, imported only at the edges
            if not _NAVIGATING_RE.search(str(e)):
                raise
            if attempt == _ASKS - 1:
                return None
            with contextlib.suppress(Exception):
                await page.wait_for_load_state("load", timeout=5000)
    return None


_NAVIGATING_RE = re.compile(r"context was destroyed|navigat", re.IGNORECASE)
_ASKS = 3  # a page asked this often while it keeps navigating (a redirect after the submit's landing)


def _count_in_html(html: str, groups: list[list[str]]) -> list[list[int]]:
    """`_COUNT_JS` on HTML as fetched: the elements each selector matches (a bad selector: 0)."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    counts = []
    for selectors in groups:
        row = []
        for selector in selectors:
            try:
                row.append(len(tree.css(selector)))
            except Exception:  # a selector lexbor rejects counts as no match, as in the browser
                row.append(0)
        counts.append(row)
    return counts


def carry(params: dict, planned: Manifest, other: Manifest) -> tuple[dict | None, list[str]]:
    """``params`` of ``planned`` for ``other``: the ones it takes, with its defaults.

    None and the names of the parameters it cannot take, when the step sets one it does not know
    (a planned tool's own default does not count as set) or the values do not validate.
    """
    props = planned.parameters.get("properties") or {}
    theirs = other.parameters.get("properties") or {}
    unset = {k for k, v in params.items() if isinstance(props.get(k), dict) and props[k].get("default") == v}
    lost = sorted(k for k, v in params.items() if k not in theirs and k not in unset and v is not None)
    if lost:
        return None, lost
    adapted = fill_defaults(other.parameters, {k: v for k, v in params.items() if k in theirs})
    problems = parameter_problems(other, adapted, [])
    return (None, [p.message for p in problems]) if problems else (adapted, [])


def _inner(manifest: Manifest, params: dict, registry: Registry) -> tuple[Manifest, dict, bool] | None:
    """The extraction a step does: the tool itself, or the one its ``extract`` parameter names."""
    tool = manifest.parameter_for("tool")
    if tool is not None and isinstance(params.get(tool), str):
        inner = registry.get(params[tool])
        if inner is not None and inner.category == Category.EXTRACTION and inner.needs_page:
            return inner, dict(params.get(manifest.parameter_for("tool_parameters") or "") or {}), True
        return None
    if manifest.category == Category.EXTRACTION and manifest.needs_page:
        return manifest, params, False
    return None


def _replace(step_tool: Manifest, params: dict, nested: bool, other: Manifest, other_params: dict) -> tuple:
    """The step's tool and parameters with ``other`` doing the extraction."""
    if nested:
        tool, tool_params = step_tool.parameter_for("tool"), step_tool.parameter_for("tool_parameters")
        assert tool is not None  # nested: the step's tool has one (`_inner`)
        return step_tool, {**params, tool: other.key, **({tool_params: other_params} if tool_params else {})}
    return other, other_params


async def choose(page: Any, registry: Registry, manifest: Manifest, params: dict) -> Choice | None:
    """What the step should run, given the page's markup; None when the planned tool stays
    without anything to report (no other tool for this kind of data declares markup)."""
    inner = _inner(manifest, params, registry)
    if inner is None:
        return None
    planned, planned_params, nested = inner
    _, produces = step_io(planned, planned_params, registry)
    pool = candidates(registry, produces)
    if not [m for m in pool if m.key != planned.key]:
        return None
    seen = await sightings(page, pool)
    if planned.key in seen or not seen:
        return None  # its own markup is there, or nobody's is
    why_not = []
    for s in sorted(seen.values(), key=lambda s: -s.count):
        other_params, lost = carry(planned_params, planned, s.manifest)
        if other_params is None:
            why_not.append(f"the page shows {s.describe()}, but it cannot take {', '.join(lost)}")
            continue
        own = (
            f"{planned.key}'s markup is not on the page"
            if planned.detect
            else f"{planned.key} declares no markup"
        )
        tool, tool_params = _replace(manifest, params, nested, s.manifest, other_params)
        reason = f"the page shows {s.describe()}; {own}"
        return Choice(tool, tool_params, planned.key, s.manifest.key, reason)
    return Choice(manifest, params, planned.key, planned.key, "; ".join(why_not))


async def alternatives(
    page: Any, registry: Registry, manifest: Manifest, params: dict, tried: set[str]
) -> list[Choice]:
    """What to try when the step's extraction returned nothing: the tools whose markup the page shows,
    then the generic tools producing the same data; never a tool in ``tried``, nor one that cannot
    take the step's parameters."""
    inner = _inner(manifest, params, registry)
    if inner is None:
        return []
    planned, planned_params, nested = inner
    _, produces = step_io(planned, planned_params, registry)
    if not produces:
        return []
    seen = await sightings(page, [m for m in candidates(registry, produces) if m.key not in tried])
    generic = [
        m
        for m in registry
        if is_generic(m)
        and m.category == Category.EXTRACTION
        and m.needs_page
        and m.key not in tried
        and set(produces) <= set(m.produces)
    ]
    found = planned.key + " found no " + ", ".join(produces)
    out = []
    ranked = [
        (s.manifest, f"{found}; the page shows {s.describe()}")
        for s in sorted(seen.values(), key=lambda s: -s.count)
    ]
    ranked += [(m, f"{found}; {m.key} is the generic tool for {', '.join(produces)}") for m in generic]
    for other, reason in ranked:
        other_params, _ = carry(planned_params, planned, other)
        if other_params is not None:
            tool, tool_params = _replace(manifest, params, nested, other, other_params)
            out.append(Choice(tool, tool_params, planned.key, other.key, reason))
    return out


def empty(output: dict | None, produces: list[str]) -> bool:
    """Every list the step produces is empty (nothing extracted); False when it produced no list."""
    lists = [(output or {}).get(k) for k in produces if isinstance((output or {}).get(k), list)]
    return bool(lists) and not any(lists)
