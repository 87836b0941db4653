"""In-page helpers shared by the forms and navigation tools.

Finding things costs one browser round trip: `scan_fields` and `scan_clickables` run a single
``page.evaluate`` that describes every candidate (labels, placeholders, nearby text, visibility...)
and tags each with a ``data-curllm-ref`` attribute, so that the chosen one is addressed afterwards
as ``[data-curllm-ref="N"]``. Scoring happens in Python, on those descriptions.

`PageWatch` (`page_watch.py`, re-exported here) waits, within bounds, for whatever an action set
off: a navigation, fetches, DOM changes.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urlsplit

from ..errors import SubmitFailed, SubmitUndone, ToolError
from ..text import fold, squash
from .listing_change import SHOWN_JS, look_options, shown_from
from .page_watch import _STATE_JS as _STATE_JS  # re-exported: tools and tests import the watch from here
from .page_watch import _WATCH_JS, PageWatch, Settled
from .page_watch import GRACE_MS as GRACE_MS
from .page_watch import PlaywrightError as PlaywrightError  # without playwright.async_api (see page_watch)

REF_ATTR = "data-curllm-ref"

#: JavaScript helpers every in-page snippet here starts with: the document as a user sees it, open
#: shadow roots and same-origin frames included. `$all(sel)` matches in all of them (the document
#: first), `$q(sel)` finds the first match (the light DOM is looked at first: no walk when it is
#: there), `$top(x, y)` is the element at a point inside shadow roots, `$frameOffset(el)` where the
#: frame holding ``el`` sits on the page (its coordinates are its frame's).
_DEEP_JS = r"""
const $roots = () => {
  const out = [document], todo = [document];
  while (todo.length && out.length < 500) {
    const root = todo.pop();
    for (const el of root.querySelectorAll("*")) {
      let inner = el.shadowRoot;
      if (!inner && (el.tagName === "IFRAME" || el.tagName === "FRAME")) {
        try { inner = el.contentDocument; } catch (e) { inner = null; }
      }
      if (inner) { out.push(inner); todo.push(inner); }
    }
  }
  return out;
};
const $all = (sel) => {
  const found = Array.from(document.querySelectorAll(sel));
  const roots = $roots();
  for (let i = 1; i < roots.length; i++) for (const el of roots[i].querySelectorAll(sel)) found.push(el);
  return found;
};
const $q = (sel) => {
  const found = document.querySelector(sel);
  if (found) return found;
  const roots = $roots();
  for (let i = 1; i < roots.length; i++) { const el = roots[i].querySelector(sel); if (el) return el; }
  return null;
};
const $top = (doc, x, y) => {
  let top = doc.elementFromPoint(x, y);
  while (top && top.shadowRoot) {
    const inner = top.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === top) break;
    top = inner;
  }
  return top;
};
const $frameOffset = (el) => {
  let x = 0, y = 0;
  for (let win = el.ownerDocument.defaultView; win && win.frameElement; win = win.parent) {
    const f = win.frameElement, r = f.getBoundingClientRect();
    x += r.left + f.clientLeft; y += r.top + f.clientTop;
  }
  return [x, y];
};
"""


def _deep(js: str) -> str:
    """An in-page function whose lookups reach into open shadow roots and same-origin frames: the
    helpers of `_DEEP_JS` around it (Playwright calls the function the expression evaluates to)."""
    return "(() => {" + _DEEP_JS + "return (" + js.strip() + ");\n})()"


# Shared JS: text helpers and one description per element. Kept as plain functions so that both
# scans use the same notion of "label", "nearby text" and "visible".
_JS_COMMON = r"""
const REF = "data-curllm-ref";
const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
const clip = (s, n) => { s = squash(s); return s.length > n ? s.slice(0, n) : s; };
const CONTROLS = "input, select, textarea, button, script, style, noscript, template, svg";
// Text of an element without the text of form controls inside it (a <label> wrapping a <select>
// would otherwise "say" every option).
const ownText = (el) => {
  if (!el) return "";
  if (!el.querySelector || !el.querySelector(CONTROLS)) return el.textContent || "";
  const copy = el.cloneNode(true);
  copy.querySelectorAll(CONTROLS).forEach((c) => c.remove());
  return copy.textContent || "";
};
const isVisible = (el) => {
  if (el.type === "hidden" || el.hidden) return false;
  const style = (el.ownerDocument.defaultView || window).getComputedStyle(el);
  if (style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse") return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
};
const labelOf = (el) => {
  const parts = [];
  if (el.labels) for (const l of el.labels) parts.push(ownText(l));
  const by = el.getAttribute("aria-labelledby");
  const root = el.getRootNode();
  if (by) for (const id of by.split(/\s+/)) { const t = root.getElementById ? root.getElementById(id) : null; if (t) parts.push(ownText(t)); }
  return clip(parts.join(" "), 200);
};
// The nearest text before the element: previous siblings first, then the parent's, and so on up
// a few levels, until a word has been found ("Preis von [ ]", "<header>Cena</header> ... [od]").
const textBefore = (el, maxLen) => {
  let node = el, out = "", levels = 0;
  while (node && levels < 6 && !/[\p{L}\d]{2,}/u.test(out)) {
    for (let sib = node.previousSibling; sib && out.length < maxLen; sib = sib.previousSibling) {
      if (sib.nodeType === 1 && sib.matches("script, style, noscript, template")) continue;
      if (sib.nodeType === 1 && sib.matches("input, select, textarea") && /[\p{L}]{2,}/u.test(out)) break;
      const t = sib.nodeType === 1 ? ownText(sib) : sib.nodeType === 3 ? sib.textContent : "";
      out = squash(t) + " " + out;
      if (/[\p{L}\d]{2,}/u.test(out)) break;
    }
    node = node.parentElement; levels++;
    if (node && node.matches("form, body")) break;
  }
  out = squash(out);
  return out.length > maxLen ? out.slice(out.length - maxLen) : out;
};
const textAfter = (el, maxLen) => {
  let out = "";
  for (let sib = el.nextSibling; sib && out.length < maxLen; sib = sib.nextSibling) {
    if (sib.nodeType === 1 && sib.matches("input, select, textarea, button, script, style")) break;
    out += " " + (sib.nodeType === 1 ? ownText(sib) : sib.nodeType === 3 ? sib.textContent : "");
  }
  return clip(out, maxLen);
};
// Ids of the nearest ancestors, so Python can tell how closely two elements are related.
const ids = new WeakMap(); let nextId = 1;
const ancestry = (el) => {
  const out = [];
  for (let a = el.parentElement; a && out.length < 8; a = a.parentElement) {
    if (!ids.has(a)) ids.set(a, nextId++);
    out.push(ids.get(a));
  }
  return out;
};
const classesAround = (el, levels) => {
  const out = [];
  for (let a = el.parentElement, i = 0; a && i < levels; a = a.parentElement, i++) {
    out.push(a.tagName.toLowerCase(), a.id || "", typeof a.className === "string" ? a.className : "",
             a.getAttribute("role") || "", a.getAttribute("aria-label") || "");
  }
  return clip(out.join(" "), 400);
};
$all("[" + REF + "]").forEach((el) => el.removeAttribute(REF));
// Refs are written after all reading is done: an attribute change between two layout reads would
// make the browser recompute styles for every element (seconds on a big page instead of ms).
const tagged = [];
const tag = (el) => { tagged.push(el); return String(tagged.length); };
const writeRefs = () => tagged.forEach((el, i) => el.setAttribute(REF, String(i + 1)));
"""

_SCAN_FIELDS_JS = (
    "(opts) => {"
    + _JS_COMMON
    + r"""
const SKIP = new Set(["hidden", "submit", "button", "reset", "image", "checkbox", "radio", "file", "color", "range"]);
const forms = Array.from(document.forms);
const out = [];
const all = $all("input, textarea, select");
for (let i = 0; i < all.length && out.length < opts.limit; i++) {
  const el = all[i];
  const type = el.tagName === "INPUT" ? (el.getAttribute("type") || "text").toLowerCase() : el.tagName.toLowerCase();
  if (SKIP.has(type)) continue;
  const form = el.form;
  const fieldset = el.closest("fieldset");
  const d = {
    ref: tag(el), order: i, tag: el.tagName.toLowerCase(), type,
    name: el.getAttribute("name") || "", id: el.id || "",
    cls: typeof el.className === "string" ? clip(el.className, 120) : "",
    label: labelOf(el), placeholder: clip(el.getAttribute("placeholder"), 120),
    aria: clip([el.getAttribute("aria-label"), el.getAttribute("title")].filter(Boolean).join(" "), 160),
    before: textBefore(el, 80), after: textAfter(el, 30),
    legend: fieldset && fieldset.querySelector("legend") ? clip(fieldset.querySelector("legend").textContent, 80) : "",
    value: clip(el.value, 120), pattern: el.getAttribute("pattern") || "",
    visible: isVisible(el), disabled: !!el.disabled, readonly: !!el.readOnly,
    form: form ? forms.indexOf(form) : -1,
    form_action: form ? (form.getAttribute("action") || "") : "",
    form_info: form ? clip([form.id, form.className, form.getAttribute("role"), form.getAttribute("name")].join(" "), 160) : "",
    around: classesAround(el, 4),
    in_header: !!el.closest("header, [role=banner], #header, .header, nav"),
    ancestors: ancestry(el), options: [],
  };
  if (d.tag === "select") {
    d.options = Array.from(el.options).slice(0, 300).map((o, index) => ({
      index, text: squash(o.label || o.textContent), value: o.value, selected: o.selected, disabled: o.disabled,
    }));
    d.onchange = !!el.getAttribute("onchange");
  }
  out.push(d);
}
writeRefs();
// A JSON string: Playwright's own serialisation of thousands of objects is several times slower.
return JSON.stringify({url: location.href, lang: (document.documentElement.lang || "").toLowerCase(), fields: out});
}"""
)

_SCAN_CLICKABLES_JS = (
    "(opts) => {"
    + _JS_COMMON
    + r"""
const SELECTOR = "a[href], button, [role=button], [role=link], [role=tab], [role=menuitem], [role=treeitem], " +
  "input[type=submit], input[type=button], input[type=image], summary, [onclick]" + (opts.headLinks ? ", link[rel~=next], link[rel~=prev]" : "");
const fold = (s) => squash(s).toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/ł/g, "l");
const needle = opts.needle ? fold(opts.needle) : "";
// A cheap first test (no layout: textContent, attributes) that most elements fail, when the caller
// knows which words it looks for.
const pre = opts.prefilter ? new RegExp(opts.prefilter) : null;
const img0 = (el) => { const i = el.querySelector && el.querySelector("img[alt]"); return i ? i.getAttribute("alt") : ""; };
// With a previous click on this page (category trees), the subtree it belongs to: its <li> or <details>.
const prev = opts.previousRef ? $q("[data-curllm-prev='" + opts.previousRef + "']") : null;
const prevScope = prev ? (prev.closest("li, details") || prev.parentElement) : null;
const out = [];
const all = $all(SELECTOR);
for (let i = 0; i < all.length && out.length < opts.limit; i++) {
  const el = all[i];
  if (pre && !pre.test(fold([el.getAttribute("rel"), (el.textContent || "").slice(0, 300), el.value,
                             el.getAttribute("aria-label"), el.getAttribute("title"), img0(el),
                             typeof el.className === "string" ? el.className : "", el.id].join(" ")))) continue;
  const tagName = el.tagName.toLowerCase();
  const visible = tagName === "link" ? false : isVisible(el);
  let text = "";
  if (tagName === "input") text = el.value || el.getAttribute("alt") || "";
  else if (tagName !== "link") text = visible ? el.innerText : ownText(el);
  text = clip(text, 200);
  const img = tagName === "link" ? null : el.querySelector("img[alt]");
  const aria = clip([el.getAttribute("aria-label"), el.getAttribute("title"), img && img.getAttribute("alt")]
                    .filter(Boolean).join(" "), 160);
  if (needle && !fold(text).includes(needle) && !fold(aria).includes(needle)) continue;
  const li = el.closest("li");
  out.push({
    ref: tag(el), order: i, tag: tagName, text, aria,
    role: el.getAttribute("role") || "", rel: (el.getAttribute("rel") || "").toLowerCase(),
    raw_href: el.getAttribute("href") || "", href: el.href && typeof el.href === "string" ? el.href : "",
    id: el.id || "", cls: typeof el.className === "string" ? clip(el.className, 160) : "",
    visible,
    disabled: !!el.disabled || el.getAttribute("aria-disabled") === "true",
    current: el.getAttribute("aria-current") || "",
    around: classesAround(el, opts.aroundLevels || 4),
    in_head: !!el.closest("head"),
    in_card: !!el.closest("article, [itemtype*=Product], .product, .product-card, .card"),
    inside_previous: !!prevScope && prevScope.contains(el) && el !== prev,
    li_depth: li ? (() => { let d = 0; for (let a = li; a; a = a.parentElement) if (a.tagName === "UL" || a.tagName === "OL") d++; return d; })() : 0,
    ancestors: ancestry(el),
  });
}
writeRefs();
// A JSON string: Playwright's own serialisation of thousands of objects is several times slower.
return JSON.stringify({url: location.href, lang: (document.documentElement.lang || "").toLowerCase(), items: out});
}"""
)

_SET_VALUE_JS = r"""([sel, value]) => {
  const el = $q(sel);
  // The native setter, so frameworks that track the value (React) see the change.
  const win = el.ownerDocument.defaultView || window;
  const proto = el.tagName === "TEXTAREA" ? win.HTMLTextAreaElement.prototype : win.HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, "value").set;
  setter.call(el, value);
  el.dispatchEvent(new Event("input", {bubbles: true}));
  el.dispatchEvent(new Event("change", {bubbles: true}));
  return el.value;
}"""

# Ready a field for typing as a user would: focused, its text selected (typing replaces it). False
# when a user could not type into it (disabled, read-only, hidden, a type whose value is not typed).
_FOCUS_JS = r"""(sel) => {
  const el = $q(sel);
  if (!el || el.disabled || el.readOnly) return false;
  const type = (el.getAttribute("type") || "text").toLowerCase();
  if (el.tagName === "INPUT" && ["date", "time", "datetime-local", "month", "week", "color", "range"].includes(type)) return false;
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return false;
  el.focus();
  if (el.getRootNode().activeElement !== el) return false;
  try { el.select(); } catch (e) { return false; }
  return true;
}"""

_CHANGED_JS = r"""(sel) => {
  const el = $q(sel);
  el.dispatchEvent(new Event("change", {bubbles: true}));
  return el.value;
}"""

# Where a user would click the element: its centre, scrolled into view; ``hit`` is false when
# something else (a cookie banner) is on top there.
_CLICK_POINT_JS = r"""(sel) => {
  const el = $q(sel);
  if (!el) return null;
  let r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return {hit: false};
  const win = el.ownerDocument.defaultView || window;
  if (r.top < 0 || r.left < 0 || r.bottom > win.innerHeight || r.right > win.innerWidth || win !== window) {
    el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
    r = el.getBoundingClientRect();
  }
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const top = $top(el.ownerDocument, x, y);
  // In a frame, the point on the page is the frame's own point moved by where the frame sits.
  const [ox, oy] = $frameOffset(el);
  return {x: x + ox, y: y + oy, hit: !!top && (top === el || el.contains(top))};
}"""

_DISPATCH_CLICK_JS = r"""(sel) => {
  const el = $q(sel);
  if (!el) return false;
  el.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, composed: true, view: window}));
  return true;
}"""

_FIND_SUBMIT_JS = r"""([sel, words]) => {
  const el = $q(sel);
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  const fold = (s) => squash(s).toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/ł/g, "l");
  const visible = (b) => {
    const st = getComputedStyle(b);
    const r = b.getBoundingClientRect();
    return st.display !== "none" && st.visibility !== "hidden" && r.width > 0 && r.height > 0;
  };
  const textOf = (b) => squash(b.tagName === "INPUT" ? (b.value || b.getAttribute("aria-label") || "")
                                                    : (b.innerText || b.getAttribute("aria-label") || b.title || ""));
  const mark = (b, how) => { b.setAttribute("data-curllm-ref", "submit"); return {how, text: textOf(b), tag: b.tagName.toLowerCase()}; };
  $all("[data-curllm-ref=submit]").forEach((b) => b.removeAttribute("data-curllm-ref"));
  const form = el.form || el.closest("form");
  if (form) {
    const submits = Array.from(form.elements).filter((b) =>
      ((b.tagName === "BUTTON" && (b.getAttribute("type") || "submit").toLowerCase() === "submit") ||
       (b.tagName === "INPUT" && ["submit", "image"].includes((b.type || "").toLowerCase()))) && !b.disabled);
    const shown = submits.filter(visible);
    if (shown.length) return {...mark(shown[0], "button"), inForm: true};
  }
  // No form button: an "apply" button close to the field (JS-driven filters), nearest container first.
  const re = new RegExp("^(?:" + words + ")$", "i");
  let scope = el.parentElement;
  for (let level = 0; scope && level < 5; level++, scope = scope.parentElement) {
    if (scope === document.body) break;
    const buttons = scope.querySelectorAll("button, [role=button], input[type=submit], input[type=button], a[href]");
    for (const b of buttons) if (visible(b) && re.test(fold(textOf(b)))) return {...mark(b, "nearby"), inForm: !!form};
  }
  // A GET form may be submitted again safely if Enter did nothing; a POST form may not.
  return {how: null, inForm: !!form, getForm: !!form && (form.getAttribute("method") || "get").toLowerCase() === "get"};
}"""


# --- text ---------------------------------------------------------------------------------------


def words(*texts: str | None) -> str:
    """Texts as space-separated folded words, identifiers split too: "priceMin" / "price-min" -> "price min"."""
    joined = " ".join(t for t in texts if t)
    joined = re.sub(r"([a-z])([A-Z])", r"\1 \2", joined)
    return " " + " ".join(re.split(r"[^\w]+|_", fold(joined))).strip() + " "


def has_word(text: str, pattern: str) -> re.Match | None:
    """Search ``pattern`` as whole words in a `words` string."""
    return re.search(rf"(?<![^\W_])(?:{pattern})(?![^\W_])", text)


def side_score(f: Field, side: str, sides: dict[str, str]) -> float:
    """How clearly a field is one end (``side``) of a two-field range, e.g. "min"/"max" or "from"/"to".

    ``sides`` maps each of the two ends to the word pattern that names it. 3: its own label says this
    end; 1 or 0: it names both ("od ... do"), whichever comes first; 1.5: the text just before it
    does; 0: nothing says so.
    """
    other = next(s for s in sides if s != side)
    own = f.own_words
    mine, theirs = has_word(own, sides[side]), has_word(own, sides[other])
    if mine and not theirs:
        return 3.0
    if mine and theirs:
        return 1.0 if mine.start() < theirs.start() else 0.0
    if theirs:
        return 0.0
    near = words(f.before)
    return 1.5 if has_word(near, sides[side]) and not has_word(near, sides[other]) else 0.0


# --- scans --------------------------------------------------------------------------------------


@dataclass
class Field:
    """A form control as `scan_fields` describes it."""

    ref: str
    order: int
    tag: str
    type: str
    name: str = ""
    id: str = ""
    cls: str = ""
    label: str = ""
    placeholder: str = ""
    aria: str = ""
    before: str = ""
    after: str = ""
    legend: str = ""
    value: str = ""
    pattern: str = ""
    visible: bool = True
    disabled: bool = False
    readonly: bool = False
    form: int = -1
    form_action: str = ""
    form_info: str = ""
    around: str = ""
    in_header: bool = False
    ancestors: list[int] = field(default_factory=list)
    options: list[dict] = field(default_factory=list)
    onchange: bool = False

    @property
    def selector(self) -> str:
        """CSS selector of this element, valid until the next scan of the page."""
        return f'[{REF_ATTR}="{self.ref}"]'

    @property
    def own_words(self) -> str:
        """What names the field itself: label, placeholder, aria-label/title, name, id."""
        return words(self.label, self.placeholder, self.aria, self.name, self.id)

    @property
    def near_words(self) -> str:
        """Text around the field: before and after it, its fieldset legend."""
        return words(self.before, self.after, self.legend)

    def describe(self) -> dict:
        """A short, JSON-able description for reports and error messages."""
        out = {"tag": self.tag, "type": self.type}
        for key in ("name", "id", "label", "placeholder"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if not (self.label or self.placeholder):
            if self.aria:
                out["aria_label"] = self.aria
            elif self.before:
                out["text"] = self.before
        return out


@dataclass
class Clickable:
    """A link, button or other clickable element as `scan_clickables` describes it."""

    ref: str
    order: int
    tag: str
    text: str = ""
    aria: str = ""
    role: str = ""
    rel: str = ""
    raw_href: str = ""
    href: str = ""
    id: str = ""
    cls: str = ""
    visible: bool = True
    disabled: bool = False
    current: str = ""
    around: str = ""
    in_head: bool = False
    in_card: bool = False
    inside_previous: bool = False
    li_depth: int = 0
    ancestors: list[int] = field(default_factory=list)

    @property
    def selector(self) -> str:
        """CSS selector of this element, valid until the next scan of the page."""
        return f'[{REF_ATTR}="{self.ref}"]'

    def describe(self) -> dict:
        """A short, JSON-able description for reports."""
        out: dict[str, Any] = {"tag": self.tag, "text": self.text or self.aria}
        if self.href:
            out["href"] = self.href
        return out


@functools.cache
def _snake_key(key: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def _snake(doc: dict) -> dict:
    """JS camelCase keys as Python field names (a few names, thousands of elements: cached)."""
    return {_snake_key(k): v for k, v in doc.items()}


@dataclass
class Scan:
    """One scan: the page's address and language, and the elements found; ``also``: what the scan's
    ``also`` script answered in the same call (`scan_clickables`)."""

    url: str
    lang: str
    items: list
    also: Any = None


async def scan_fields(page: Any, limit: int = 2000) -> Scan:
    """Every fillable control of the page (not buttons, checkboxes or hidden inputs), in document order."""
    raw = json.loads(await page.evaluate(_deep(_SCAN_FIELDS_JS), {"limit": limit}))
    return Scan(raw["url"], raw["lang"], [Field(**_snake(f)) for f in raw["fields"]])


async def scan_clickables(
    page: Any,
    *,
    needle: str = "",
    limit: int = 5000,
    head_links: bool = False,
    previous_ref: str = "",
    prefilter: str = "",
    also: tuple[str, Any] | None = None,
) -> Scan:
    """Links, buttons and other clickables; only those whose text contains ``needle`` when given.

    ``prefilter``, a JavaScript regular expression, is a cheap first test of each element's folded
    rel, text content, value, aria-label, title, image alt, class and id: elements it does not match
    are not described at all (a page's hundreds of product links, when looking for "next").
    ``also``: an in-page function and its argument, run right after the scan in the same browser
    call (a round trip saved); its answer is the scan's ``also``.
    """
    opts = {
        "needle": needle,
        "limit": limit,
        "headLinks": head_links,
        "previousRef": previous_ref,
        "prefilter": prefilter,
    }
    extra = None
    if also is None:
        raw = json.loads(await page.evaluate(_deep(_SCAN_CLICKABLES_JS), opts))
    else:
        script = "([opts, arg]) => [(" + _deep(_SCAN_CLICKABLES_JS) + ")(opts), (" + also[0] + ")(arg)]"
        scanned, extra = await page.evaluate(script, [opts, also[1]])
        raw = json.loads(scanned)
    return Scan(raw["url"], raw["lang"], [Clickable(**_snake(c)) for c in raw["items"]], extra)


def closeness(a: list[int], b: list[int]) -> int:
    """How many levels up from ``a`` their nearest common ancestor is (99: none within reach)."""
    common = set(b)
    for i, x in enumerate(a):
        if x in common:
            return i
    return 99


# --- acting -------------------------------------------------------------------------------------


async def fill_value(
    page: Any, selector: str, value: str, *, typed: bool = True, timeout_ms: int = 5000
) -> str:
    """Type ``value`` into a field like a user, then fire ``change``; the field's value afterwards.

    The field is focused, its text selected and ``value`` typed over it (trusted input events, as
    from a keyboard). Read-only or covered inputs (JS date pickers, masked fields) refuse a user's
    typing; their value is set as the page's own script would, with input and change events
    (``typed=False`` goes there directly, for fields known to be read-only). A few in-page calls, no
    locator: Playwright's first locator call on a page costs ~40 ms of set-up.
    """
    if typed and await type_text(page, selector, value):
        return await page.evaluate(_deep(_CHANGED_JS), selector)
    return await page.evaluate(_deep(_SET_VALUE_JS), [selector, value])


async def type_text(page: Any, selector: str, value: str) -> bool:
    """Focus the field, select its text and type ``value`` over it (trusted input events), without
    the ``change`` event (`submit_from` fires it for the fields it is given); False, having done
    nothing, when a user could not type into the field."""
    if not await page.evaluate(_deep(_FOCUS_JS), selector):
        return False
    if value:
        await page.keyboard.insert_text(value)
    else:
        await page.keyboard.press("Delete")
    return True


async def click_like_user(page: Any, selector: str, *, visible: bool = True, timeout_ms: int = 5000) -> str:
    """Click as a user (the mouse, at the element's centre); when something covers the element (a
    cookie banner) or it is not visible, fire the click on the element itself. Returns "click" or
    "dispatch". Unlike Playwright's ``click`` it does not wait for the element to stop moving (two
    animation frames, ~35 ms a click): the elements clicked here were just found by a scan."""
    if visible:
        point = await page.evaluate(_deep(_CLICK_POINT_JS), selector)
        if point and point.get("hit"):
            await page.mouse.click(point["x"], point["y"])
            return "click"
    if not await page.evaluate(_deep(_DISPATCH_CLICK_JS), selector):
        raise ToolError(f"the element to click ({selector}) is no longer on the page")
    return "dispatch"


APPLY_WORDS = (
    "filtruj|zastosuj|pokaz|pokaz wyniki|szukaj|wyszukaj|ok|apply|filter|search|go|update|refine|"
    "anwenden|filtern|suchen|ubernehmen|aktualisieren|los|zeigen"
)


async def submit_from(
    page: Any,
    selector: str,
    watch: PageWatch,
    timeout_ms: int = 15000,
    *,
    what: str = "the form's submit",
    fill: dict[str, str | None] | None = None,
    look: bool = False,
) -> dict:
    """Submit the form of the field at ``selector``, as a user would, and wait for the result.

    The form's submit button if it has a visible one; else an "apply"-like button near the field;
    else Enter in the field; and if Enter submitted nothing at all (Enter submits nothing natively
    when a form has several text fields), a GET form's ``requestSubmit()``. ``fill`` maps fields to
    the value to set first (with input and change events, as the page's own script would), or to
    None for a field already typed into with `type_text` (its ``change`` fires). One browser call
    prepares all that and arms ``watch`` (made with ``arm=False``). Returns ``{"method",
    "navigated", "values", "same_page"}`` (``values``: the fields' values after their change events;
    ``same_page``: the submit would only have loaded this same address again, and was not sent, see
    `page_watch`). A submit
    that lands on an HTTP error or a browser error page is undone (`undo_broken`): SubmitFailed is
    raised with the page back where it was.

    ``look``: the listing's fingerprint is taken in the same call, before anything is set
    (``"shown"``, a `listing_change.Shown`), and again in the watch's last look when nothing was seen
    happening (``"look"``, for `listing_change.wait_changed`'s ``first``; None otherwise): whether the
    submit changed the listing then costs no call of its own.
    """
    before = page.url
    found = await page.evaluate(
        _deep(_PREPARE_SUBMIT_JS), [selector, APPLY_WORDS, list((fill or {}).items()), look]
    )
    watch.clear()  # what the change events set off is not the submit's doing
    shown = shown_from(found["shown"]) if look else None
    if shown is not None:
        watch.look = look_options(shown)
    point = found.get("point") or {}
    if found.get("how"):
        if point.get("hit"):
            await page.mouse.click(point["x"], point["y"])
        else:
            await page.evaluate(_deep(_DISPATCH_CLICK_JS), f'[{REF_ATTR}="submit"]')
        method = f"{found['how']}: {found.get('text') or found.get('tag')}"
    else:
        await page.keyboard.press("Enter")  # the field has the focus (the prepare call gave it)
        method = "enter"
    settled = await watch.settle(timeout_ms)
    if method == "enter" and found.get("getForm") and not settled.navigated and not settled.submitted:
        await watch.reset(forms=True)
        await page.evaluate(
            _deep("(sel) => { const el = $q(sel); (el.form || el.closest('form')).requestSubmit(); }"),
            selector,
        )
        method = "form.requestSubmit()"
        settled = await watch.settle(timeout_ms)
    await undo_broken(page, settled, before, f"{what} ({method})")
    return {
        "method": method,
        "navigated": settled.navigated,
        "values": found.get("values") or {},
        "same_page": settled.same_page,
        "shown": shown,
        "look": settled.look,
    }


async def undo_broken(page: Any, settled: Settled, before: str, what: str) -> None:
    """When an action landed on an HTTP error or a browser error page, go back to ``before`` and raise
    SubmitFailed (``undone`` when the page is back as it was, so the plan can go on without it)."""
    if not settled.broken:
        return
    landed = f"HTTP {settled.status}" if settled.status and settled.status >= 400 else "a browser error page"
    target = settled.target or settled.url
    back = await go_back_to(page, before)
    raise (SubmitUndone if back else SubmitFailed)(
        f"{what} landed on {landed} ({target}); "
        + (
            "went back to the page as it was"
            if back
            else f"could not go back to {before} (now at {page.url})"
        )
    )


async def go_back_to(page: Any, url: str, timeout_ms: int = 15000) -> bool:
    """Back in the page's history to ``url`` (as a user's Back button: the page as it was), else load
    it again; whether the page is at ``url`` afterwards."""
    try:
        await page.go_back(wait_until="domcontentloaded", timeout=timeout_ms)
    except PlaywrightError:
        pass  # no history entry, or it failed: loaded again below
    if urldefrag(page.url)[0] != urldefrag(url)[0]:
        try:
            await page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms)
        except PlaywrightError:
            return False
    try:
        await page.wait_for_load_state("load", timeout=5000)
    except PlaywrightError:
        pass  # a slow sub-resource: the document is there
    return urldefrag(page.url)[0] == urldefrag(url)[0]


# Before a submit, in one call: the fields' values set (as the page's own script would) or, for
# fields typed into, their change events; their values then; the submit control found and marked,
# where to click it, the focus on the field when Enter is to submit; and the page watch armed.
_PREPARE_SUBMIT_JS = (
    "([sel, words, fill, look]) => {\n  const values = {};\n"
    "  const shown = look ? (" + SHOWN_JS + ")() : null;\n"
    "  for (const [t, value] of fill) { const f = $q(t); if (!f) continue;\n"
    "    if (value === null) f.dispatchEvent(new Event('change', {bubbles: true}));\n"
    "    else (" + _SET_VALUE_JS + ")([t, value]);\n"
    "    values[t] = f.value; }\n"
    "  const found = (" + _FIND_SUBMIT_JS + ")([sel, words]);\n"
    "  if (found.how) found.point = (" + _CLICK_POINT_JS + ")('[data-curllm-ref=\"submit\"]');\n"
    "  else { const el = $q(sel); if (el) el.focus(); }\n"
    "  (" + _WATCH_JS + ")({forms: true});\n"
    "  return {...found, values, shown};\n}"
)


# --- links --------------------------------------------------------------------------------------


def followable(href: str) -> bool:
    """An address a page can be loaded from (not javascript:, mailto: or a bare fragment)."""
    return urlsplit(href).scheme in ("http", "https", "file")


def deadline(ctx: Any, default_ms: int, share: float = 0.8) -> float:
    """Event-loop time by which a long-running tool should wrap up: ``share`` of its manifest's time
    limit, so it returns what it has gathered instead of being cancelled by the executor with nothing."""
    manifest = getattr(ctx, "manifest", None)
    limit_ms = manifest.timeout_ms if manifest is not None else default_ms
    return asyncio.get_running_loop().time() + limit_ms * share / 1000


# --- matching visible text ----------------------------------------------------------------------

_TRAILING_COUNT = re.compile(r"\s*[(\[]?\s*\d[\d\s.,]*[)\]]?\s*$")


def text_match(wanted: str, text: str) -> tuple[int, str]:
    """How ``text`` matches ``wanted``: 3 exact, 2 same ignoring case/spaces/accents, 1 contains; 0 no.

    The second value names the kind of match for reports ("exact", "normalized", "contains").
    """
    if not text or not wanted:
        return 0, ""
    if squash(text) == squash(wanted):
        return 3, "exact"
    w, t = fold(wanted), fold(text)
    if t == w or (_TRAILING_COUNT.sub("", t) == w and _TRAILING_COUNT.sub("", t)):
        return 2, "normalized"  # also "Elektronika (10)": a count after the name
    if w and w in t:
        return 1, "contains"
    return 0, ""
