"""In-page helpers shared by the forms and navigation tools.

Finding things costs one browser round trip: `scan_fields` and `scan_clickables` run a single
``page.evaluate`` that describes every candidate (labels, placeholders, nearby text, visibility...)
and tags each with a ``data-curllm-ref`` attribute, so that the chosen one is addressed afterwards
as ``[data-curllm-ref="N"]``. Scoring happens in Python, on those descriptions.

`PageWatch` waits, within bounds, for whatever an action set off: a navigation, fetches, DOM changes.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ..errors import SubmitFailed, SubmitUndone, ToolError
from ..events import UrlCompleteEvent, UrlStartEvent
from ..text import fold, squash

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
  "input[type=submit], input[type=button], input[type=image], summary, [onclick]" + (opts.headLinks ? ", link[rel~=next]" : "");
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
    """One scan: the page's address and language, and the elements found."""

    url: str
    lang: str
    items: list


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
) -> Scan:
    """Links, buttons and other clickables; only those whose text contains ``needle`` when given.

    ``prefilter``, a JavaScript regular expression, is a cheap first test of each element's folded
    rel, text content, value, aria-label, title, image alt, class and id: elements it does not match
    are not described at all (a page's hundreds of product links, when looking for "next").
    """
    opts = {
        "needle": needle,
        "limit": limit,
        "headLinks": head_links,
        "previousRef": previous_ref,
        "prefilter": prefilter,
    }
    raw = json.loads(await page.evaluate(_deep(_SCAN_CLICKABLES_JS), opts))
    return Scan(raw["url"], raw["lang"], [Clickable(**_snake(c)) for c in raw["items"]])


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
) -> dict:
    """Submit the form of the field at ``selector``, as a user would, and wait for the result.

    The form's submit button if it has a visible one; else an "apply"-like button near the field;
    else Enter in the field; and if Enter submitted nothing at all (Enter submits nothing natively
    when a form has several text fields), a GET form's ``requestSubmit()``. ``fill`` maps fields to
    the value to set first (with input and change events, as the page's own script would), or to
    None for a field already typed into with `type_text` (its ``change`` fires). One browser call
    prepares all that and arms ``watch`` (made with ``arm=False``). Returns ``{"method",
    "navigated", "values"}`` (``values``: the fields' values after their change events). A submit
    that lands on an HTTP error or a browser error page is undone (`undo_broken`): SubmitFailed is
    raised with the page back where it was.
    """
    before = page.url
    found = await page.evaluate(
        _deep(_PREPARE_SUBMIT_JS), [selector, APPLY_WORDS, list((fill or {}).items())]
    )
    watch.clear()  # what the change events set off is not the submit's doing
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
        await watch.reset()
        await page.evaluate(
            _deep("(sel) => { const el = $q(sel); (el.form || el.closest('form')).requestSubmit(); }"),
            selector,
        )
        method = "form.requestSubmit()"
        settled = await watch.settle(timeout_ms)
    await undo_broken(page, settled, before, f"{what} ({method})")
    return {"method": method, "navigated": settled.navigated, "values": found.get("values") or {}}


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


@dataclass
class Settled:
    """What happened after an action: a navigation (and how its response ended), network traffic,
    DOM changes, whether a form's submit event was fired."""

    navigated: bool
    requests: int
    mutations: int
    submitted: bool = False
    status: int | None = None  # HTTP status of the main frame's last document response
    url: str = ""  # the page's URL afterwards
    target: str = ""  # the URL the last navigation asked for (a chrome-error page does not show it)

    @property
    def reacted(self) -> bool:
        """Whether the page did anything at all."""
        return self.navigated or self.requests > 0 or self.mutations > 0

    @property
    def broken(self) -> bool:
        """The action navigated to an HTTP error (400 or more) or a browser error page."""
        if not self.navigated:
            return False
        return (self.status is not None and self.status >= 400) or self.url.startswith("chrome-error:")


# The in-page side of PageWatch. It counts DOM changes, and notes the work an action has set going
# that a moment later shows as a reaction: a submit or link click that no script prevented, or a
# form.submit() (the browser is about to load another document), fetches and XHRs (requests), and
# timers due soon (a debounced handler). Listeners and wrappers go in once per document; each reset
# starts afresh.
_WATCH_JS = r"""() => {
  window.__curllmWatch = {count: 0, last: performance.now(), submits: 0, event: null, leaving: false,
                          calls: 0, due: 0, messages: 0, messagesDue: 0};
  if (window.__curllmObserver) window.__curllmObserver.disconnect();
  window.__curllmObserver = new MutationObserver((records) => {
    const w = window.__curllmWatch;
    for (const r of records) {
      if (r.type === "attributes" && r.attributeName && r.attributeName.startsWith("data-curllm")) continue;
      w.count++; w.last = performance.now();
    }
  });
  window.__curllmObserver.observe(document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});
  if (window.__curllmListening) return true;
  window.__curllmListening = true;
  const watch = () => window.__curllmWatch;
  const here = (t) => !t || t === "_self" || t === window.name;
  // Capture phase on window: first to see the event, even when a handler stops its propagation;
  // whether a script prevented its default is read later, when that is final.
  window.addEventListener("submit", (e) => {
    const w = watch(), f = e.target;
    w.submits++;
    if (here(f.getAttribute("target")) && !/^\s*javascript:/i.test(f.getAttribute("action") || "")) w.event = e;
  }, true);
  window.addEventListener("click", (e) => {
    const a = e.target && e.target.closest ? e.target.closest("a[href]") : null;
    if (!a || a.hasAttribute("download") || !here(a.getAttribute("target"))) return;
    const href = a.href || "";
    if (/^(https?|file):/i.test(href) && href.split("#")[0] !== location.href.split("#")[0]) watch().event = e;
  }, true);
  window.addEventListener("beforeunload", () => { watch().leaving = true; });
  const submit = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function () { watch().leaving = true; return submit.apply(this, arguments); };
  if (window.fetch) {
    const fetch = window.fetch;
    window.fetch = function () { watch().calls++; return fetch.apply(this, arguments); };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function () { watch().calls++; return send.apply(this, arguments); };
  // Work scheduled for later by a handler of what the user (curllm) did: when it is due, the page may
  // react (a debounced handler, a framework's render in the next frame or after a message). Counted:
  // what is scheduled within 30 ms of such an event, and what the callbacks scheduled so run in turn,
  // three generations deep; an animation or a poller (a callback scheduling itself) is not waited on.
  const ACTIONS = ["click", "submit", "keydown", "keyup", "input", "change", "pointerup", "mouseup"];
  for (const type of ACTIONS) window.addEventListener(type, () => { window.__curllmActingUntil = performance.now() + 30; }, true);
  let generation = null, running = null;  // the counted callback running now, and its generation
  const acting = () => generation !== null ? generation : performance.now() < (window.__curllmActingUntil || 0) ? 0 : null;
  const later = (obj, name, delayOf, callbackAt) => {
    const orig = obj && obj[name];
    if (typeof orig !== "function") return;
    obj[name] = function () {
      const gen = acting();
      const fn = callbackAt === null ? null : arguments[callbackAt];
      // a callback that schedules itself again is a loop (an animation, a poller), not a reaction
      if (gen !== null && gen < 3 && !(fn && fn === running)) {
        const delay = delayOf(arguments);
        if (delay <= 1500) { const w = watch(); w.due = Math.max(w.due, performance.now() + delay); }
        if (typeof fn === "function") {
          arguments[callbackAt] = function () {
            const outer = [generation, running];
            generation = gen + 1;
            running = fn;
            try { return fn.apply(this, arguments); } finally { [generation, running] = outer; }
          };
        } else if (callbackAt === null) {  // a message: the wait lasts until it arrives (see `arrived`)
          const w = watch();
          w.messages++;
          w.messagesDue = performance.now() + 1500;
        }
      }
      return orig.apply(this, arguments);
    };
  };
  // A counted message arriving: what its handler schedules counts too (it runs right after this
  // listener, which is added before the page's own), and the wait for it is over. However loaded the
  // machine, the wait lasts until the message is handled (up to 1.5 s), not a guessed delay.
  const arrived = () => {
    const w = watch();
    if (w.messages <= 0) return;
    w.messages--;
    window.__curllmActingUntil = Math.max(window.__curllmActingUntil || 0, performance.now() + 30);
  };
  window.addEventListener("message", arrived, true);
  const receiving = (proto) => {
    if (!proto) return;
    const ours = new WeakSet();
    const listen = (target) => {
      if (!ours.has(target)) { ours.add(target); add.call(target, "message", arrived); }
    };
    const add = proto.addEventListener;
    proto.addEventListener = function (type) {
      if (type === "message") listen(this);
      return add.apply(this, arguments);
    };
    const prop = Object.getOwnPropertyDescriptor(proto, "onmessage");
    if (prop && prop.set) {
      Object.defineProperty(proto, "onmessage", {...prop, set(fn) { listen(this); prop.set.call(this, fn); }});
    }
  };
  receiving(window.MessagePort && MessagePort.prototype);
  receiving(window.Worker && Worker.prototype);
  later(window, "setTimeout", (a) => Number(a[1]) || 0, 0);
  later(window, "requestAnimationFrame", () => 20, 0);
  later(window, "requestIdleCallback", (a) => Math.min(Number(a[1] && a[1].timeout) || 50, 50), 0);
  later(window, "postMessage", () => 5, null);
  later(window.MessagePort && MessagePort.prototype, "postMessage", () => 5, null);
  // work handed to another thread: its answer comes back as a message, a little later
  later(window.Worker && Worker.prototype, "postMessage", () => 100, null);
  return true;
}"""
# [DOM changes, ms since the last one, submit events, a navigation is coming, fetch/XHR calls,
#  ms until the last timer set since the reset is due, or a message posted since has arrived]
_STATE_JS = r"""() => {
  const w = window.__curllmWatch;
  if (!w) return null;
  const now = performance.now();
  return [w.count, now - w.last, w.submits, (!!w.event && !w.event.defaultPrevented) || w.leaving, w.calls,
          Math.max(0, w.due - now, w.messages > 0 ? w.messagesDue - now : 0)];
}"""

# Before a submit, in one call: the fields' values set (as the page's own script would) or, for
# fields typed into, their change events; their values then; the submit control found and marked,
# where to click it, the focus on the field when Enter is to submit; and the page watch armed.
_PREPARE_SUBMIT_JS = (
    "([sel, words, fill]) => {\n  const values = {};\n"
    "  for (const [t, value] of fill) { const f = $q(t); if (!f) continue;\n"
    "    if (value === null) f.dispatchEvent(new Event('change', {bubbles: true}));\n"
    "    else (" + _SET_VALUE_JS + ")([t, value]);\n"
    "    values[t] = f.value; }\n"
    "  const found = (" + _FIND_SUBMIT_JS + ")([sel, words]);\n"
    "  if (found.how) found.point = (" + _CLICK_POINT_JS + ")('[data-curllm-ref=\"submit\"]');\n"
    "  else { const el = $q(sel); if (el) el.focus(); }\n"
    "  (" + _WATCH_JS + ")();\n"
    "  return {...found, values};\n}"
)

#: How long an action has to show a reaction (a request, a DOM change) when it set nothing going
#: that the page watch can see: an action after which nothing happens costs about this much. Work
#: it scheduled (timers, animation frames, messages) extends the wait to when that is due (up to
#: 1.5 s); a submit or link click that no script prevented waits for the next document (its first
#: request within PENDING_MS).
GRACE_MS = 10
PENDING_MS = 3000
TIMERS_MS = 1600


class PageWatch:
    """Watches a page while an action runs; ``await watch.settle()`` waits, within bounds, for the effects.

    With ``emit`` (a tool's ``ctx.emit``), a page the action loads is reported like every page the run
    visits: ``url_start`` when its navigation starts, ``url_complete`` when ``settle`` has waited for it.

    >>> async with PageWatch(page, emit=ctx.emit) as watch:
    ...     await page.click("text=Filtruj")
    ...     settled = await watch.settle()
    """

    def __init__(self, page: Any, *, arm: bool = True, emit: Callable[..., object] | None = None):
        self.page = page
        self.arm = arm  # False: the caller arms the in-page side within its own call (submit_from)
        self.emit = emit
        self.loading: tuple[str, float] | None = None  # a reported page not yet complete: (url, start)
        self.inflight: set = set()
        self.requests = 0
        self.nav_started = False
        self.navigated = asyncio.Event()
        self.status: int | None = None
        self.target = ""

    def _main_navigation(self, request: Any) -> bool:
        try:
            return request.is_navigation_request() and request.frame == self.page.main_frame
        except PlaywrightError:
            return False  # a service worker's request: not a navigation of this page

    def _on_request(self, request: Any) -> None:
        self.requests += 1
        self.inflight.add(request)
        if self._main_navigation(request):
            self.nav_started = True
            self.target = request.url
            # A redirect's next hop is the same page visit, still loading.
            if self.emit is not None and self.loading is None and request.redirected_from is None:
                self.loading = (request.url, time.perf_counter())
                self.emit(UrlStartEvent(url=request.url))

    def _on_response(self, response: Any) -> None:
        if self._main_navigation(response.request):
            self.status = response.status

    def _on_done(self, request: Any) -> None:
        self.inflight.discard(request)

    def _on_navigated(self, frame: Any) -> None:
        if frame == self.page.main_frame:
            self.navigated.set()

    def _listeners(self) -> tuple:
        return (
            ("request", self._on_request),
            ("response", self._on_response),
            ("requestfinished", self._on_done),
            ("requestfailed", self._on_done),
            ("framenavigated", self._on_navigated),
        )

    async def __aenter__(self) -> PageWatch:
        for event, fn in self._listeners():
            self.page.on(event, fn)
        if self.arm:
            await self.reset()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        for event, fn in self._listeners():
            self.page.remove_listener(event, fn)
        # A page loaded after `settle` (going back after a broken submit) or while the action failed.
        await self.report()

    async def report(self, *, error: str | None = None) -> None:
        """``url_complete`` for the page reported loading: its title, or why it failed."""
        if self.loading is None or self.emit is None:
            return
        url, started = self.loading
        self.loading = None
        ms = int((time.perf_counter() - started) * 1000)
        if error is None and self.status is not None and self.status >= 400:
            error = f"HTTP {self.status}"
        if error is None and self.page.url.startswith("chrome-error:"):
            error = "the browser showed an error page"
        if error is not None:
            self.emit(UrlCompleteEvent(url=url, duration_ms=ms, error=error))
            return
        try:
            title = await asyncio.wait_for(self.page.title(), 2.0)
        except Exception:  # a page stuck in JavaScript, or gone: no title, no reason to wait
            title = None
        self.emit(UrlCompleteEvent(url=self.page.url, duration_ms=ms, title=title))

    def clear(self) -> None:
        """Forget what this side has seen so far (the in-page side is reset by arming it)."""
        self.requests = 0
        self.nav_started = False
        self.navigated.clear()
        self.status = None
        self.target = ""

    async def reset(self) -> None:
        """Start counting afresh (before the next action)."""
        self.clear()
        await self._evaluate(_WATCH_JS)

    async def _evaluate(self, script: str) -> Any:
        try:
            return await self.page.evaluate(script)
        except PlaywrightError:
            return None  # the document is being replaced: a navigation, which the events report

    async def settle(self, timeout_ms: int = 10000, grace_ms: int = GRACE_MS) -> Settled:
        """Wait until the page is done reacting, never longer than ``timeout_ms``.

        A navigation is waited for to its ``load`` event and then for the fetches still in flight;
        otherwise fetches until none is in flight for 300 ms (capped at 5 s, since pages with polling
        never go quiet); DOM changes until none for 200 ms. ``grace_ms`` is how long a reaction may
        take to start at all: an action after which nothing happened costs about that much, unless a
        submit or link click went through unprevented (then the next document is waited for).
        """
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + timeout_ms / 1000
        pending_until = min(deadline, start + PENDING_MS / 1000)
        timers_until = start + TIMERS_MS / 1000  # a page that keeps setting timers is not waited on forever

        def left() -> float:
            return max(0.0, deadline - loop.time())

        # 1. did anything start? A navigation request shows within a few ms of a click or submit;
        # a fetch or a DOM change shows the page reacted in place.
        submitted, state = False, None
        pause = grace_ms / 1000  # the first look after the grace: a look costs a round trip
        while not (self.nav_started or self.navigated.is_set()):
            await asyncio.sleep(pause)
            pause = 0.02
            if self.nav_started or self.navigated.is_set():
                break
            state = await self._evaluate(_STATE_JS)
            if state:
                submitted = submitted or state[2] > 0
            if self.requests or (state and (state[0] or state[4])):
                break
            if state is None or state[3]:  # the document is going away, or about to be replaced
                until = pending_until
            else:  # nothing seen yet: a short grace, or until the timers set since are due
                due = loop.time() + state[5] / 1000 + 0.02 if state[5] else 0.0
                until = min(deadline, timers_until, max(start + grace_ms / 1000, due))
            if loop.time() >= until:
                break
        navigated = self.nav_started or self.navigated.is_set()
        if not (navigated or self.requests or (state and (state[0] or state[4]))):
            return Settled(False, 0, 0, submitted, None, self.page.url)
        if navigated:
            try:
                await asyncio.wait_for(self.navigated.wait(), left())
                await self.page.wait_for_load_state("load", timeout=max(1.0, left() * 1000))
            except (TimeoutError, PlaywrightTimeout):
                pass  # bounded: a page still loading after the deadline is used as it is
        # 2. network quiet: nothing in flight for 300 ms; after a navigation, whose load event has
        # already waited for the document and its resources, only what is still in flight
        quiet_needed = 0.0 if navigated else 0.3
        quiet_since = None
        net_deadline = min(deadline, loop.time() + 5.0)
        while loop.time() < net_deadline:
            if self.inflight:
                quiet_since = None
            elif quiet_since is None:
                quiet_since = loop.time()
            elif loop.time() - quiet_since >= quiet_needed:
                break
            await asyncio.sleep(0.05)
        # 3. DOM quiet (same document only: a new document starts with its own changes)
        mutations = 0
        if not (navigated or self.navigated.is_set()):
            while loop.time() < deadline:
                state = await self._evaluate(_STATE_JS)
                if not state:
                    break
                mutations = state[0]
                submitted = submitted or state[2] > 0
                if state[1] >= 200:
                    break
                await asyncio.sleep(0.1)
        navigated = navigated or self.navigated.is_set()
        await self.report()
        return Settled(
            navigated, self.requests, mutations, submitted, self.status, self.page.url, self.target
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
