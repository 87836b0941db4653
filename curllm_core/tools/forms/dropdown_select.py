"""Choose an option in a ``<select>`` by its visible label or value, and let the page react; a
custom control (an ARIA listbox or combobox, a div dropdown: `custom_select`) when no native select
offers it.

Matching is case-, accent- and space-insensitive: exact label first, then value, then "contains".
Sort orders are also understood by meaning when no label matches ("price ascending" picks
"Cena: od najniższej", "Price: Low to High" or ``price-asc-rank``). ``field`` narrows the choice to
the select whose label, name or id mentions it. After the change the tool waits for what the page
does (a navigation, a fetch); when nothing happens and the select's form has one obvious "apply"
button, it presses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...errors import NoEffect, OptionNotFound, ToolError
from ...text import fold, squash
from ...tool import ToolContext, require_page
from ..listing_change import Shown, look, wait_changed
from ..page_helpers import (
    REF_ATTR,
    Field,
    PageWatch,
    scan_fields,
    undo_broken,
    words,
)
from .custom_select import choose_custom

PRICE = r"price|cen\w*|preis\w*|prix|precio|koszt|cost"
ASC = (
    r"asc\w*|low\w*|rosn\w*|najniz\w*|niedrig\w*|aufsteig\w*|najtan\w*|tansz\w*|cheap\w*|croissant|"
    r"gunstig\w*|min"
)
DESC = (
    r"desc\w*|high\w*|malej\w*|najwyz\w*|hoch\w*|hochst\w*|absteig\w*|najdroz\w*|drozsz\w*|expensive|"
    r"decroissant|teuer\w*|max"
)
CHEAP = r"cheapest|cheap|najtansz\w*|tansz\w*|gunstigst\w*|najnizsz\w* cen\w*"
DEAR = r"most expensive|expensive|najdrozsz\w*|drozsz\w*|teuerst\w*"
CONCEPTS = {
    "newest": r"new\w*|najnow\w*|nowe|nowosci|neu\w*|latest|recent\w*|date desc|data dodania|ostatnio dodane",
    "relevance": r"relev\w*|trafn\w*|featured|polecan\w*|best match|beste ergebnisse|empfohlen|domysln\w*|default",
    "rating": r"rating\w*|review\w*|ocen\w*|bewert\w*|opini\w*|popular\w*|najpopul\w*|bestsell\w*|beliebt\w*",
}
APPLY = (
    r"apply|ok|go|filter|filtruj|zastosuj|sortuj|sort|pokaz|show|update|refresh|anwenden|sortieren|filtern|"
    r"ubernehmen|aktualisieren|zeigen"
)


def _find(pattern: str, text: str) -> re.Match | None:
    return re.search(rf"(?<![^\W_])(?:{pattern})(?![^\W_])", text)


def sort_concept(text: str) -> str | None:
    """What sort order a phrase means: price_asc, price_desc, newest, relevance, rating; or None."""
    t = words(text)
    asc, desc = _find(ASC, t), _find(DESC, t)
    if _find(PRICE, t) and (asc or desc):
        if asc and desc:  # "low to high" vs "high to low": whichever comes first
            return "price_asc" if asc.start() < desc.start() else "price_desc"
        return "price_asc" if asc else "price_desc"
    if _find(CHEAP, t):
        return "price_asc"
    if _find(DEAR, t):
        return "price_desc"
    for name, pattern in CONCEPTS.items():
        if _find(pattern, t):
            return name
    return None


def option_score(wanted: str, option: dict) -> float:
    """How well an option matches what was asked for (0: not at all)."""
    if option.get("disabled"):
        return 0.0
    text, value = squash(option["text"]), option["value"]
    if text == squash(wanted):
        return 100.0
    w, ft, fv = fold(wanted), fold(text), fold(value)
    if not w:
        return 0.0
    if ft == w:
        return 90.0
    if fv == w:
        return 85.0
    if w in ft:
        return 60.0 - min(
            20.0, (len(ft) - len(w)) / 2
        )  # "Laptopy" in "Laptopy (3)" beats "Laptopy gamingowe"
    if len(w) >= 3 and w in fv:
        return 45.0
    concept = sort_concept(wanted)
    if concept and concept == sort_concept(f"{text} {value.replace('-', ' ').replace('_', ' ')}"):
        return 40.0
    return 0.0


def field_score(field: str | None, f: Field) -> float:
    """How well a select matches the ``field`` hint (its label, name, id, nearby text)."""
    if not field:
        return 0.0
    hint = fold(field)
    own = fold(" ".join((f.label, f.aria, f.name, f.id, f.placeholder)))
    near = fold(" ".join((f.before, f.legend)))
    if hint and hint in own:
        return 30.0
    if hint and hint in near:
        return 20.0
    hint_words = set(words(field).split())
    own_words = set(words(own, near).split())
    return 10.0 * len(hint_words & own_words) / max(1, len(hint_words))


@dataclass
class Pick:
    """The chosen select, option and their combined score."""

    score: float
    field: Field
    option: dict


def choose(fields: list[Field], option: str, field: str | None) -> Pick | None:
    """The select and option that best match; visible selects and earlier ones win ties."""
    best: Pick | None = None
    for f in fields:
        if f.tag != "select" or f.disabled:
            continue
        fs = field_score(field, f)
        if field and fs <= 0:
            continue
        for opt in f.options:
            score = option_score(option, opt)
            if score <= 0:
                continue
            total = score + fs + (5 if f.visible else 0)
            if best is None or total > best.score:
                best = Pick(total, f, opt)
    return best


_OBVIOUS_SUBMIT_JS = r"""(el, apply) => {
  // The select's form's single submit control, if pressing it can only mean "apply this choice":
  // its text says so, or the form has no other visible fields (so no half-filled search).
  const form = el.form;
  if (!form) return null;
  const visible = (b) => { const r = b.getBoundingClientRect(); const s = getComputedStyle(b);
                           return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none"; };
  const submits = Array.from(form.elements).filter((b) => visible(b) && !b.disabled &&
    ((b.tagName === "BUTTON" && (b.getAttribute("type") || "submit").toLowerCase() === "submit") ||
     (b.tagName === "INPUT" && ["submit", "image"].includes(b.type))));
  if (submits.length !== 1) return null;
  const b = submits[0];
  const text = (b.tagName === "INPUT" ? b.value : b.innerText || b.getAttribute("aria-label") || "")
    .toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/ł/g, "l").trim();
  const others = Array.from(form.elements).filter((x) => x !== el && x !== b && visible(x) &&
    ["INPUT", "TEXTAREA", "SELECT"].includes(x.tagName) && !["hidden", "submit", "button", "image"].includes(x.type));
  if (!new RegExp("^(?:" + apply + ")\\b", "i").test(text) && others.length) return null;
  b.setAttribute("data-curllm-ref", "apply");
  return text || b.tagName.toLowerCase();
}"""


async def run(
    ctx: ToolContext, option: str, field: str | None = None, submit: str | bool = "auto", **_: Any
) -> dict:
    """Select ``option`` (label or value) in the best-matching ``<select>`` and wait for the page to react.

    ``submit``: "auto" presses the form's obvious apply button only if the change itself did nothing;
    true always submits the select's form; false never does.
    """
    page = require_page(ctx)
    if not option or not str(option).strip():
        raise ToolError("dropdown_select needs a non-empty option")
    scan = await scan_fields(page)
    pick = choose(scan.items, str(option), field)
    shown = await look(page)
    if pick is None:
        # Not a native select: an ARIA listbox or combobox, or a div dropdown.
        chosen = await choose_custom(page, str(option), option_score, ctx.emit)
        if chosen is not None:
            custom: dict[str, Any] = {
                "field": {"tag": chosen.kind, "label": chosen.toggle},
                "selected": {"text": chosen.text, "value": chosen.value},
                "changed": chosen.changed,
                "submitted": False,
                "navigated": chosen.settled.navigated,
            }
            await undo_broken(page, chosen.settled, scan.url, f"choosing {chosen.text!r}")
            await _changed_or_fail(ctx, page, shown, chosen.changed, chosen.text)
            custom["url"] = page.url
            return {"dropdown_select": custom}
        selects = [f for f in scan.items if f.tag == "select"]
        known = (
            "; ".join(
                f"{f.label or f.aria or f.name or f.id or 'select'}: "
                + ", ".join(repr(o["text"]) for o in f.options[:8])
                + (" ..." if len(f.options) > 8 else "")
                for f in selects[:6]
            )
            or "the page has no <select>"
        )
        where = f" matching field {field!r}" if field else ""
        raise OptionNotFound(f"no option {option!r} in a select{where} on {scan.url} ({known})")

    f, opt = pick.field, pick.option
    changed = not opt.get("selected")
    report: dict[str, Any] = {
        "field": f.describe(),
        "selected": {"text": opt["text"], "value": opt["value"]},
        "changed": changed,
        "submitted": False,
        "navigated": False,
    }
    before = page.url
    async with PageWatch(page, emit=ctx.emit) as watch:
        # force: custom dropdown widgets hide the native select but still read it
        await page.locator(f.selector).select_option(index=opt["index"], force=not f.visible, timeout=5000)
        settled = await watch.settle(timeout_ms=15000)
        report["navigated"] = settled.navigated
        do_submit = submit is True or submit == "true"
        if submit == "auto" and changed and not settled.reacted:
            do_submit = bool(await page.locator(f.selector).evaluate(_OBVIOUS_SUBMIT_JS, APPLY))
        if do_submit and not settled.navigated:
            await watch.reset()
            applied = page.locator(f'[{REF_ATTR}="apply"]')
            if await applied.count():
                await applied.first.click(timeout=5000)
                report["method"] = "button"
            else:
                has_form = await page.locator(f.selector).evaluate(
                    "el => !!el.form && (el.form.requestSubmit(), true)"
                )
                if not has_form:
                    raise ToolError(
                        f"dropdown_select: submit requested but the select on {scan.url} is in no form"
                    )
                report["method"] = "form.requestSubmit()"
            settled = await watch.settle(timeout_ms=15000)
            report.update(submitted=True, navigated=settled.navigated)
        await undo_broken(
            page,
            settled,
            before,
            f"choosing {opt['text']!r}" + (" and submitting" if report["submitted"] else ""),
        )
    report["url"] = page.url
    return {"dropdown_select": report}


async def _changed_or_fail(ctx: ToolContext, page: Any, shown: Shown, changed: bool, text: str) -> None:
    """A choice in a custom control that changed it and left the page's listing as it was did nothing:
    the step fails (optional: the order and filters are still checked by the validation steps) and
    says so. (A native select keeps its contract: it may be one field of a form submitted later.)"""
    if not changed or await wait_changed(page, shown):
        return
    why = f"{text!r} was chosen and the page's listing did not change: it may not sort or filter by it"
    ctx.warn(why)
    raise NoEffect(f"{why} ({page.url})")
