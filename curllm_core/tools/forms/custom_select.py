"""Choosing an option of a control that is not a native ``<select>``: ARIA listboxes and comboboxes
(``role=option`` in a ``role=listbox``, opened by a button with ``aria-haspopup`` or a
``role=combobox``), and div dropdowns without roles (a toggle whose text names what it chooses,
"Sort by: Relevance" / "Sortuj" / "Sortieren nach", opening a menu of plain elements).

Options are matched by their text with `dropdown_select.option_score` (so sort orders by meaning, in
PL/EN/DE: "price ascending" is "Cena: od najniższej", "Price: low to high", "Preis aufsteigend").
A closed listbox is opened first by the control that owns it; a div dropdown's options are the
elements its toggle makes visible. Two browser calls to find, one click to open, one to choose.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...text import fold
from ..page_helpers import PageWatch, Settled, click_like_user

ATTR = "data-curllm-pick"

# Words a toggle of a div dropdown shows before its current choice (folded).
TOGGLE_WORDS = r"^(sort|sort by|order by|sortuj|sortowanie|sortuj wedlug|sortuj po|kolejnosc|sortieren|sortieren nach|sortierung|reihenfolge)\b"

_SCAN_JS = r"""(opts) => {
  const A = opts.attr;
  document.querySelectorAll("[" + A + "]").forEach((e) => e.removeAttribute(A));
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  const fold = (s) => squash(s).toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/ł/g, "l");
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    const s = getComputedStyle(el);
    return s.display !== "none" && s.visibility !== "hidden";
  };
  let n = 0;
  const tag = (el) => { const ref = String(++n); el.setAttribute(A, ref); return ref; };
  const options = [];
  for (const el of document.querySelectorAll("[role=option]")) {
    if (options.length >= 300) break;
    const box = el.closest("[role=listbox]");
    options.push({ref: tag(el), text: squash(el.textContent).slice(0, 120),
      value: el.getAttribute("data-value") || el.getAttribute("value") || "", visible: shown(el),
      selected: el.getAttribute("aria-selected") === "true", listbox: box ? (box.id || "") : "",
      disabled: el.getAttribute("aria-disabled") === "true"});
  }
  const toggles = [];
  const word = new RegExp(opts.words);
  for (const el of document.querySelectorAll("button, [role=button], [role=combobox], [aria-haspopup], [aria-expanded], div, span, a")) {
    if (toggles.length >= 12) break;
    const aria = el.matches("[role=combobox], [aria-haspopup], [aria-expanded]");
    if (!aria && el.children.length > 2) continue;  // a toggle says a few words, not a section
    const text = squash(el.textContent).slice(0, 80);
    const named = text.length <= 60 && word.test(fold(text)) && !el.querySelector("[role=option]");
    if (!aria && !named) continue;
    if (!shown(el)) continue;
    // the innermost element that says it (a div around a div says it too)
    if (!aria && Array.from(el.children).some((c) => word.test(fold(c.textContent)))) continue;
    toggles.push({ref: tag(el), text, controls: el.getAttribute("aria-controls") || "",
      haspopup: el.getAttribute("aria-haspopup") || "", aria});
  }
  return JSON.stringify({options, toggles});
}"""

# After a toggle was clicked: the visible elements near it (its container, up to 3 levels) that
# were not visible before, with a short text of their own: the menu's items.
_MENU_JS = r"""([attr, ref, before]) => {
  const toggle = document.querySelector("[" + attr + "='" + ref + "']");
  if (!toggle) return "[]";
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    const s = getComputedStyle(el);
    return s.display !== "none" && s.visibility !== "hidden";
  };
  let scope = toggle.parentElement;
  for (let i = 0; i < 2 && scope && scope.parentElement && scope !== document.body; i++) scope = scope.parentElement;
  const out = [];
  let n = 0;
  for (const el of scope.querySelectorAll("*")) {
    if (el === toggle || toggle.contains(el) || el.children.length > 1) continue;
    const text = squash(el.textContent);
    if (!text || text.length > 60 || !shown(el)) continue;
    if (before.includes(text) && el.hasAttribute("data-curllm-seen")) continue;
    const key = "m" + (++n);
    el.setAttribute(attr, key);
    out.push({ref: key, text, value: el.getAttribute("data-value") || ""});
  }
  return JSON.stringify(out);
}"""

_SEEN_JS = r"""([attr, ref]) => {
  const toggle = document.querySelector("[" + attr + "='" + ref + "']");
  if (!toggle) return [];
  let scope = toggle.parentElement;
  for (let i = 0; i < 2 && scope && scope.parentElement && scope !== document.body; i++) scope = scope.parentElement;
  const seen = [];
  for (const el of scope.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden") {
      el.setAttribute("data-curllm-seen", "");
      seen.push((el.textContent || "").replace(/\s+/g, " ").trim());
    }
  }
  return seen;
}"""


@dataclass
class Chosen:
    """The option chosen in a custom control, and what the page did."""

    kind: str  # "listbox" or "dropdown"
    toggle: str  # the text of the control that opened it ("" when the listbox was open)
    text: str
    value: str
    changed: bool
    settled: Settled


def _sel(ref: str) -> str:
    return f"[{ATTR}='{ref}']"


async def choose_custom(
    page: Any, option: str, score: Callable[[str, dict], float], emit: Callable[..., object] | None = None
) -> Chosen | None:
    """Choose ``option`` in a custom listbox or dropdown of ``page``; None when none offers it."""
    scan = json.loads(await page.evaluate(_SCAN_JS, {"attr": ATTR, "words": TOGGLE_WORDS}))
    ranked = sorted(
        ((score(option, o), o) for o in scan["options"] if not o["disabled"]), key=lambda t: -t[0]
    )
    if ranked and ranked[0][0] > 0:
        best = ranked[0][1]
        toggle_text = ""
        if not best["visible"]:
            toggles = sorted(
                scan["toggles"],
                key=lambda t: (
                    not (best["listbox"] and t["controls"] == best["listbox"]),
                    t["haspopup"] not in ("listbox", "true"),
                    not t["aria"],
                ),
            )
            if not toggles:
                return None
            toggle_text = toggles[0]["text"]
            await click_like_user(page, _sel(toggles[0]["ref"]))
        async with PageWatch(page, emit=emit) as watch:
            await click_like_user(page, _sel(best["ref"]))
            settled = await watch.settle(15000)
        return Chosen("listbox", toggle_text, best["text"], best["value"], not best["selected"], settled)
    for toggle in [t for t in scan["toggles"] if not t["aria"]][:3]:
        seen = await page.evaluate(_SEEN_JS, [ATTR, toggle["ref"]])
        await click_like_user(page, _sel(toggle["ref"]))
        items = json.loads(await page.evaluate(_MENU_JS, [ATTR, toggle["ref"], seen]))
        scored = sorted(((score(option, i), i) for i in items), key=lambda t: -t[0])
        if not scored or scored[0][0] <= 0:
            await click_like_user(page, _sel(toggle["ref"]))  # close it again
            continue
        item = scored[0][1]
        current = fold(toggle["text"]).endswith(fold(item["text"]))
        async with PageWatch(page, emit=emit) as watch:
            await click_like_user(page, _sel(item["ref"]))
            settled = await watch.settle(15000)
        return Chosen("dropdown", toggle["text"], item["text"], item["value"], not current, settled)
    return None
