"""HTML helpers shared by the extraction tools: parsing, visible text, hidden elements, URLs, numbers.

Every extraction tool works the same way: ONE browser round trip fetches the page's HTML, and a pure
function parses it with selectolax (lexbor) — fast, and testable on saved pages without a browser.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import re
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ...errors import BadParams
from ...prices import currency_for_domain
from ...readiness import PROBE_JS, PROBE_OPTIONS, QUIET_MS, timeout_for, wait_ready
from ...text import collapse_space
from ...tool import require_page
from ...urls import host_of
from ._parse_memo import current as current_memo

#: How many consent answers (a dialog's layers: its settings, then saving them) a read may wait for.
CONSENT_ROUNDS = 3
#: Elements that never contribute visible text; removed before anything else looks at the tree.
JUNK_TAGS = ["script", "style", "noscript", "template", "svg", "iframe", "object", "canvas", "link", "meta"]
#: Inline elements whose boundaries do not separate words ("<b>Can</b>on" is "Canon"). Every other
#: element boundary (div, li, span, sup, br, ...) is a word break in the visible text.
GLUE_TAGS = frozenset(
    "a abbr b bdi bdo cite code data del dfn em font i ins kbd mark q s samp small strike strong sub "
    "time tt u var wbr".split()
)
#: Inline elements whose boundaries separate words only where the text says so (see `clean_text`):
#: ``<span>Sam</span><span>sung</span>`` is "Samsung", ``Ca<sup>2+</sup>`` "Ca2+",
#: ``<span>Nike Air</span><span>men's</span>`` "Nike Air men's" (a field of its own).
SOFT_TAGS = frozenset({"span", "sup", "sub", "label", "big", "nobr"})
#: The elements of HTML; any other tag (``<kw>``, ``<my-card>``) is a custom element, inline as a
#: browser shows it, so its boundaries do not separate words.
HTML_TAGS = frozenset(
    "a abbr address area article aside audio b base bdi bdo big blockquote body br button canvas caption "
    "center cite code col colgroup data datalist dd del details dfn dialog dir div dl dt em embed "
    "fieldset figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr "
    "html i iframe img input ins kbd label legend li link main map mark menu meta meter nav nobr "
    "noscript object ol optgroup option output p param picture pre progress q rp rt ruby s samp "
    "script search section select slot small source span strike strong style sub summary sup table "
    "tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr math svg "
    "marquee center listing plaintext xmp acronym applet basefont blink image keygen menuitem "
    "multicol nextid noembed noframes rb rtc spacer".split()
)
#: Class names that hide an element outright by a common CSS convention (Bootstrap, Tailwind, BEM
#: utilities). Beside these, any class whose last word is "hidden" or "hide" ("is-hidden", "u-hide",
#: "js_hidden") hides, unless it names what is hidden ("overflow-hidden", "visually-hidden").
HIDDEN_CLASSES = frozenset({"hidden", "d-none", "hide", "invisible", "display-none"})
#: Class names of text kept for screen readers only: not part of what a user sees. Beside these, any
#: class whose last word is "offscreen" or that says "sr-only"/"visually-hidden" in any spelling.
SR_ONLY_CLASSES = frozenset(
    {"sr-only", "clipped", "screen-reader-text", "screenreader-only", "sr-text", "assistive-text"}
)
_WORDS_RE = re.compile(r"[-_]+")
#: Words before a final "hidden" that say what is hidden (not the element itself).
_NOT_THE_ELEMENT = frozenset({"overflow", "x", "y", "scroll", "scrollbar", "text", "backface", "visually"})
#: Responsive utilities ("hidden-xs", "sm:hidden", "md-hidden") hide at some screen sizes only.
_SCREEN_SIZES = frozenset({"xs", "sm", "md", "lg", "xl", "xxl", "mobile", "tablet", "desktop", "print"})


def _class_words(token: str) -> list[str]:
    return [w for w in _WORDS_RE.split(token.lower()) if w]


def hides(token: str) -> bool:
    """Whether the class ``token`` hides its element outright, by name."""
    if token in HIDDEN_CLASSES:
        return True
    if ":" in token:  # a variant (sm:hidden, hover:hidden): not always hidden
        return False
    words = _class_words(token)
    return (
        len(words) > 1
        and words[-1] in ("hidden", "hide")
        and not _NOT_THE_ELEMENT & set(words)
        and not _SCREEN_SIZES & set(words)
    )


def screen_reader_only(token: str) -> bool:
    """Whether the class ``token`` keeps text for screen readers only, by name."""
    if token in SR_ONLY_CLASSES:
        return True
    if ":" in token:  # a variant (focus:not-sr-only, md:sr-only): not always off screen
        return False
    words = _class_words(token)
    joined = "".join(words)
    return bool(words) and (
        words[-1] == "offscreen"
        or joined.endswith(("visuallyhidden", "sronly", "screenreaderonly", "screenreadertext"))
    )


#: Attribute a caller may put on elements it knows to be hidden (treated like ``hidden``).
HIDDEN_MARK = "data-curllm-hidden"
#: Attributes of `page_html`'s ``mark_hidden`` mode: text the CSS crosses out; HTML the browser wrote.
STRUCK_MARK = "data-curllm-struck"
STYLED_MARK = "data-curllm-styled"
#: An inline element (a span, a custom element) the stylesheet shows as a block or a flex or grid
#: item: its boundaries separate words, as a block's do (``<span>Nike</span><span>running</span>``
#: in a flex row is two words on screen). Only the browser knows the stylesheet.
BLOCK_MARK = "data-curllm-block"
_HIDDEN_STYLE_RE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_SEP = "\x00"  # a word break inserted at an element boundary; resolved in `clean_text`
_SOFT = "\x01"  # the boundary of an inline element (`SOFT_TAGS`): a word break unless inside a word
_RAISED = "\x02"  # the start of a superscript or subscript: "Ca<sup>2+</sup>" is one word
_BAD_SCHEMES = ("javascript:", "mailto:", "tel:", "data:", "about:", "blob:", "sms:", "callto:")

#: Attributes the generic detectors read; in ``lean`` mode every other attribute is left out.
LEAN_ATTRIBUTES = (
    "class id href src data-src data-original data-lazy-src alt title aria-label aria-hidden aria-level "
    "aria-roledescription role hidden itemprop itemtype data-test data-testid data-a-strike style "
    "data-component-type rel property content colspan rowspan datetime data-ad data-ad-id data-sponsored "
    "data-promoted data-href data-url"
).split()

#: JavaScript for ``page.evaluate(PAGE_HTML_JS, [lean, keep, mark, body_only])``: the document as a
#: user sees it, as compact HTML, built by walking the live DOM once. Moving HTML out of the browser
#: costs about 0.05 ms per KB, so what no extraction reads is left out: script, style, svg, template
#: and comment nodes, event-handler and srcset attributes, other attributes over 400 characters (JSON
#: blobs; href, src, title and the like always kept), indentation (between block elements: dropped;
#: elsewhere: one space). ``lean`` (the generic detector) also leaves out every element the page's
#: CSS hides (display:none, visibility:hidden: templates, closed pop-overs) and every attribute not
#: in ``keep``. ``mark`` (a product page's reader) keeps every attribute and the JSON-LD scripts, and
#: writes an element the CSS hides with `HIDDEN_MARK` instead of leaving it out, so that its metadata
#: (``<meta itemprop>``) stays readable while its text counts as unseen; text the CSS crosses out
#: gets `STRUCK_MARK`, and ``<html>`` `STYLED_MARK` (the CSS has spoken: a class that only looks
#: hiding did not hide). The page itself is never modified.
#:
#: What the page composes the way a user sees it is written in place (`FRAME_MARK`): an open shadow
#: root instead of its host's light children (a ``<slot>`` as the nodes assigned to it), and the
#: body of a rendered same-origin ``<iframe>`` as a ``<div data-curllm-frame="URL">`` (its links made
#: absolute: they resolve against the frame's address). A frame of another origin, which the page's
#: script cannot read, is written as an empty such div with ``data-curllm-frame-slot="N"`` and listed
#: in the result's ``frames`` (`page_html` reads it in its own frame and fills the slot). While a
#: modal dialog is open, ``aria-hidden`` on what is still rendered on screen (the page behind the
#: modal, which Radix, MUI and react-modal mark so) is left out: it says "not for screen readers
#: now", not "not there". ``body_only`` writes the body's content alone (a frame's).
PAGE_HTML_JS = r"""
([lean, keep, mark, bodyOnly]) => {
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'OBJECT', 'CANVAS', 'svg', 'SVG', 'math']);
  const VOID = new Set(['AREA', 'BASE', 'BR', 'COL', 'EMBED', 'HR', 'IMG', 'INPUT', 'LINK', 'META', 'PARAM', 'SOURCE',
                        'TRACK', 'WBR']);
  const LONG_OK = new Set(['href', 'src', 'title', 'alt', 'aria-label', 'content', 'value', 'data-src', 'data-original',
                           'post-title', 'content-href', 'permalink']);
  const KEEP = lean ? new Set(keep) : null;
  const GLUE = new Set(['A', 'ABBR', 'B', 'BDI', 'BDO', 'CITE', 'CODE', 'DATA', 'DEL', 'DFN', 'EM', 'FONT', 'I', 'INS',
                        'KBD', 'MARK', 'Q', 'S', 'SAMP', 'SMALL', 'STRIKE', 'STRONG', 'SUB', 'TIME', 'TT', 'U', 'VAR',
                        'WBR', 'LABEL', 'IMG', 'SPAN', 'SUP', 'SUB', 'BIG', 'NOBR']);
  const SOFT = new Set(['SPAN', 'SUP', 'SUB', 'LABEL', 'BIG', 'NOBR']);
  // Whether a tag is an element of HTML depends on its name alone: asked once per name.
  const KNOWN = new Map();
  const known = (el) => {
    const tag = el.tagName;
    let k = KNOWN.get(tag);
    if (k === undefined) {
      k = !tag.includes('-') && !(el.constructor && el.constructor.name === 'HTMLUnknownElement');
      KNOWN.set(tag, k);
    }
    return k;
  };
  // Inline as shown: the elements above and custom or unknown ones (their boundaries join words).
  const inline = (el) => GLUE.has(el.tagName) || !known(el);
  const BLANK = /^[ \t\n\r\f]+$/;
  const AMP = /&/g, LT = /</g, GT = />/g, QUOT = /"/g;
  const attr = (v) => v.indexOf('&') < 0 && v.indexOf('"') < 0 ? v : v.replace(AMP, '&amp;').replace(QUOT, '&quot;');
  const out = ['<!DOCTYPE html><html>'];
  const frames = [];  // frames of another origin: their slots are filled by the caller
  let view = window, inFrame = bodyOnly, depth = 0, framesRead = 0;
  // An open modal: what it marks aria-hidden behind it is still seen (judged per element below).
  const modal = !!document.querySelector('[aria-modal="true"], dialog[open], [role="dialog"], [role="alertdialog"]');
  const onScreen = (el, cs) => {
    if (cs && (cs.display === 'none' || cs.visibility === 'hidden' || cs.opacity === '0')) return false;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    const doc = el.ownerDocument.documentElement;
    const left = r.left + view.scrollX, top = r.top + view.scrollY;
    return left + r.width > 0 && top + r.height > 0 && left < Math.max(doc.scrollWidth, view.innerWidth);
  };
  const frame = (c, check) => {
    if (depth >= 3 || framesRead >= 20) return;
    const cs = view.getComputedStyle(c);
    if (!onScreen(c, cs) || c.clientWidth < 2 || c.clientHeight < 2) return;  // tracking pixels, closed pop-overs
    framesRead++;
    let doc = null;
    try { doc = c.contentDocument; } catch (e) { doc = null; }
    if (doc && doc.body) {
      out.push('<div data-curllm-frame="' + attr(doc.URL) + '">');
      const saved = [view, inFrame];
      view = doc.defaultView || view; inFrame = true; depth++;
      walk(doc.body, !!(lean || mark));
      depth--; [view, inFrame] = saved;
      out.push('</div>');
    } else {
      frames.push({src: c.src || '', name: c.name || ''});
      out.push('<div data-curllm-frame="' + attr(c.src || '') + '" data-curllm-frame-slot="' + (frames.length - 1)
               + '"></div>');
    }
  };
  // One attribute of an element as written out ('' when left out).
  const attribute = (c, name, v, hide, cs) => {
    if (name === 'aria-hidden' && modal && v === 'true' && !hide && onScreen(c, cs || view.getComputedStyle(c))) return '';
    if (inFrame && (name === 'href' || name === 'src') && typeof c[name] === 'string' && c[name]) v = c[name];
    return ' ' + name + '="' + attr(v) + '"';
  };
  const node = (c, check) => {
    const type = c.nodeType;
    if (type === 3) {
      const d = c.data;
      if (BLANK.test(d)) {
        // Indentation between two block-level neighbours separates nothing: left out.
        const prev = c.previousSibling, next = c.nextSibling;
        if ((prev === null || (prev.nodeType === 1 && !inline(prev)))
            && (next === null || (next.nodeType === 1 && !inline(next)))) return;
        out.push(' ');
      } else if (d.indexOf('&') < 0 && d.indexOf('<') < 0 && d.indexOf('>') < 0) out.push(d);
      else out.push(d.replace(AMP, '&amp;').replace(LT, '&lt;').replace(GT, '&gt;'));
      return;
    }
    if (type !== 1) return;
    const tag = c.tagName;
    if (mark && tag === 'SCRIPT' && (c.type || '').toLowerCase() === 'application/ld+json') {
      out.push('<script type="application/ld+json">' + c.text.replace(/<\/script/gi, '<\\/script') + '</script>');
      return;
    }
    if (SKIP.has(tag)) return;
    if (tag === 'IFRAME' || tag === 'FRAME') { frame(c, check); return; }
    if (tag === 'SLOT') {  // in a shadow tree: the light nodes assigned to it, else its own content
      const assigned = c.assignedNodes();
      if (assigned.length) for (const a of assigned) node(a, check);
      else walk(c, check);
      return;
    }
    let hide = false, checkChildren = check, cs = null;
    if (check) {  // getComputedStyle is cheaper than checkVisibility, and ancestors are known visible
      cs = view.getComputedStyle(c);
      if (cs.display === 'none' || cs.visibility === 'hidden') {
        if (!mark) return;
        hide = true;
        checkChildren = false;  // inside a hidden element everything is hidden already
      }
    }
    let open = '<' + tag + (hide ? ' data-curllm-hidden=""' : '');
    if (mark && cs && !hide && cs.textDecorationLine.includes('line-through')) {
      open += ' data-curllm-struck=""';  // a price crossed out by the stylesheet
    }
    if (KEEP) {  // by name: only the kept ones are read (an attribute's node is made on first access)
      const names = c.getAttributeNames();
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        if (KEEP.has(name)) open += attribute(c, name, c.getAttribute(name), hide, cs);
      }
    } else {
      const attrs = c.attributes;  // indexed: the iterator protocol over a NamedNodeMap costs twice as much
      for (let i = 0; i < attrs.length; i++) {
        const a = attrs[i], name = a.name, v = a.value;
        if (name.startsWith('on') || name === 'srcset' || name === 'sizes' || (v.length > 400 && !LONG_OK.has(name))) {
          continue;
        }
        open += attribute(c, name, v, hide, cs);
      }
    }
    // An inline element shown as a block, or as a flex or grid item (those are blockified): its
    // boundaries separate words on screen.
    if (cs && !hide && (SOFT.has(tag) || !known(c)) && !cs.display.startsWith('inline')
        && cs.display !== 'contents') open += ' data-curllm-block=""';
    out.push(open + '>');
    if (VOID.has(tag)) return;
    walk(c.shadowRoot || c, checkChildren);  // an open shadow root is what is shown
    out.push('</' + tag + '>');
  };
  const walk = (parent, check) => {
    for (let c = parent.firstChild; c; c = c.nextSibling) node(c, check);
  };
  if (bodyOnly) {
    if (document.body) walk(document.body, !!(lean || mark));
    return {html: out.slice(1).join(''), frames};
  }
  // A page may make its <html> or <body> the product's microdata or RDFa scope: those attributes stay.
  const scope = (el) => {
    let s = '';
    for (const name of ['itemscope', 'itemtype', 'itemid', 'itemprop', 'vocab', 'typeof', 'resource', 'prefix']) {
      if (el.hasAttribute(name)) s += ' ' + name + '="' + attr(el.getAttribute(name)) + '"';
    }
    return s;
  };
  out[0] = '<!DOCTYPE html><html' + (mark ? ' data-curllm-styled=""' : '') + scope(document.documentElement) + '>';
  if (document.head) { out.push('<head>'); walk(document.head, false); out.push('</head>'); }
  if (document.body) {
    out.push('<body' + scope(document.body) + '>'); walk(document.body, !!(lean || mark)); out.push('</body>');
  }
  out.push('</html>');
  return {html: out.join(''), frames};
}
"""

#: The attribute of a frame's content written in place (see PAGE_HTML_JS).
FRAME_MARK = "data-curllm-frame"
#: How long a frame of another origin may take to give its HTML: a frame stuck in JavaScript costs
#: the read this much, and its slot stays empty.
FRAME_READ_TIMEOUT_S = 3.0


#: PAGE_HTML_JS with a big result gzip-compressed in the page (CompressionStream, native code) and
#: handed over as base64, ``{"gzip": ...}``: a tenth of the size, and moving the string through the
#: driver to Python is what costs (0.05 ms per KB). Small pages (or a browser without
#: CompressionStream) come back plain, ``{"html": ...}``: compressing has a fixed cost of a few ms.
#: ``ALSO`` is where `page_html`'s ``also`` goes: a function run when the HTML is read, its answer
#: handed back with it (``{"also": ...}``).
_PAGE_HTML_GZIP_JS = (
    "async (args) => {\n"
    # a consent dialog shown since the consent script last looked is answered before the page is read
    "  if (args[4] && typeof window.__curllmConsentNow === 'function' && window.__curllmConsentNow())"
    " return {consent: true};\n"
    # a first look (readiness) in the same call: a page complete and quiet is read at once; any other
    # is left to `wait_ready` (the decision stays in Python: `readiness.verdict`)
    "  if (args[5]) {\n"
    f"    const probe = ({PROBE_JS})(args[5]), look = JSON.parse(probe);\n"
    "    if (look.state === 'loading' || look.inflight || look.quiet_ms < args[5].quiet || look.load_work_ms"
    " || look.signs.length)"
    " return {probe};\n"
    "  }\n"
    f"  const {{html, frames}} = ({PAGE_HTML_JS.strip()})(args);\n"
    "  const also = ALSO;\n"
    """  if (html.length < 100000 || typeof CompressionStream === 'undefined') return {html, frames, also};
  const stream = new Blob([html]).stream().pipeThrough(new CompressionStream('gzip'));
  const blob = await new Response(stream).blob();
  const url = await new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
  return {gzip: url.slice(url.indexOf(',') + 1), frames, also};
}"""
)


@functools.cache
def _read_js(also: str | None) -> str:
    """The read's script with ``also`` (a function's source) called where the HTML is read."""
    return _PAGE_HTML_GZIP_JS.replace("ALSO", f"({also.strip()})()" if also else "null", 1)


async def page_read(
    ctx: Any, *, lean: bool = False, mark_hidden: bool = False, also: str | None = None
) -> tuple[str, str, Any]:
    """The page's HTML as a user sees it (compact, see PAGE_HTML_JS; gzip-compressed on the way when
    big) and URL in one browser round trip: open shadow roots and same-origin frames written in place.

    ``lean`` (for the generic detector) also drops what the page's CSS hides, which markup alone
    cannot tell, and the attributes outside `LEAN_ATTRIBUTES`. ``mark_hidden`` keeps the JSON-LD
    scripts and marks what the page's CSS hides with `HIDDEN_MARK` (see `hidden_self`). A rendered
    frame of another origin costs one more call, in that frame, made at the same time as the others.
    On the HTTP engine (no page, ``ctx.document``) it is the HTML as fetched.

    ``also``, the source of an in-page function without arguments, is run in the same call, when the
    HTML is read: its answer is the third value (None on the HTTP engine), a look at the page that
    costs no round trip of its own.
    """
    document = getattr(ctx, "document", None)
    if getattr(ctx, "page", None) is None and document is not None:
        # The HTTP engine: the HTML as fetched (scripts and all; the extractors drop what no user sees).
        return document.html, document.url, None
    page = require_page(ctx)
    timeout = timeout_for(ctx)
    # Content still on its way (a listing fetched after `load`, skeletons) is waited for, bounded; a
    # page already complete and quiet costs nothing more than its read (the first look is in it).
    look: dict | None = {**PROBE_OPTIONS, "quiet": QUIET_MS} if timeout > 0 else None
    answers = CONSENT_ROUNDS
    while True:
        result = await page.evaluate(
            _read_js(also), [lean, LEAN_ATTRIBUTES, mark_hidden, False, answers > 0, look]
        )
        if not ("probe" in result or result.get("consent")):
            break
        # Not ready yet, or a consent dialog shown late was answered as the page was about to be
        # read (what it let through, a listing held back until a choice, is waited for): wait, then
        # read the page as it is then (a stale placeholder is part of the page; a bound may pass).
        answers -= 1 if result.get("consent") else 0
        look = None
        await wait_ready(page, timeout)
    if "gzip" in result:
        html = zlib.decompress(base64.b64decode(result["gzip"]), wbits=31).decode("utf-8")
    else:  # a browser without CompressionStream
        html = result["html"]
    if result.get("frames"):
        html = await _fill_frames(page, html, result["frames"], [lean, LEAN_ATTRIBUTES, mark_hidden, True])
    return html, page.url, result.get("also")


async def page_html(ctx: Any, *, lean: bool = False, mark_hidden: bool = False) -> tuple[str, str]:
    """The page's HTML and URL, as `page_read` reads them."""
    html, url, _ = await page_read(ctx, lean=lean, mark_hidden=mark_hidden)
    return html, url


async def _fill_frames(page: Any, html: str, slots: list[dict], args: list) -> str:
    """``html`` with each slot of a frame of another origin filled with that frame's body, read in the
    frame itself (one call per frame, all at once, each bounded by FRAME_READ_TIMEOUT_S). A frame is
    found by its address, else by its name; a frame not found or not answering leaves its slot empty."""
    # A frame that failed to load shows the browser's error page: not the page's content.
    children = [
        f for f in page.frames if f != page.main_frame and f.url.startswith(("http:", "https:", "file:"))
    ]
    used: set[int] = set()

    def find(slot: dict) -> Any:
        for match in (
            lambda f: slot["src"] and f.url == slot["src"],
            lambda f: slot["name"] and f.name == slot["name"],
        ):
            for f in children:
                if id(f) not in used and match(f):
                    used.add(id(f))
                    return f
        return None

    async def read(frame: Any) -> str:
        try:
            got = await asyncio.wait_for(frame.evaluate(PAGE_HTML_JS, args), FRAME_READ_TIMEOUT_S)
        except Exception:  # a frame gone, navigating or stuck in JavaScript: its slot stays empty
            return ""
        return got.get("html", "") if isinstance(got, dict) else ""

    found = [(i, find(slot)) for i, slot in enumerate(slots)]
    bodies = await asyncio.gather(*(read(f) for _, f in found if f is not None))
    for (i, _), body in zip([x for x in found if x[1] is not None], bodies, strict=True):
        html = html.replace(f' data-curllm-frame-slot="{i}"></div>', f">{body}</div>", 1)
    return html


def parse_html(html: str) -> LexborHTMLParser:
    """Parse ``html`` as a browser would (lexbor). Call `strip_junk` once head metadata has been read."""
    return LexborHTMLParser(html or "<html></html>")


_JUNK_QUERY = ", ".join(JUNK_TAGS)


def strip_junk(tree: LexborHTMLParser) -> None:
    """Remove script/style/template/svg/... subtrees (call after reading head metadata): found in one
    query (``strip_tags`` walks the tree once per tag) and taken out last first, so that an element
    inside another goes before it (each is unlinked from its parent, as ``strip_tags`` does)."""
    for node in reversed(tree.css(_JUNK_QUERY)):
        node.decompose(recursive=False)


def load_selectors(manifest_file: str | Path) -> dict:
    """The ``selectors`` block of a manifest file, for calling a pure ``extract`` outside a run."""
    return json.loads(Path(manifest_file).read_text(encoding="utf-8")).get("selectors", {})


class ClassWords:
    """Words searched case-insensitively in class names and similar attributes: the text lower-cased,
    then a case-sensitive pattern of lower-case words (an ``re.IGNORECASE`` alternation is about ten
    times slower, and pages ask it thousands of times)."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: str) -> None:
        if pattern != pattern.lower():
            raise ValueError(f"ClassWords takes lower-case words: {pattern!r}")
        self.pattern = re.compile(pattern)

    def search(self, text: str) -> re.Match | None:
        return self.pattern.search(text.lower())


# --- hidden elements ------------------------------------------------------------------------------


def colspan(cell: LexborNode) -> int:
    """How many columns a table cell spans (its ``colspan``; 1 when absent or absurd)."""
    value = cell.attributes.get("colspan") or ""
    return int(value) if value.isdigit() and 0 < int(value) < 100 else 1


def classes(node: LexborNode) -> list[str]:
    """The class tokens of ``node``."""
    cls = node.attributes.get("class")
    return cls.split() if cls else []


def hidden_self(node: LexborNode, *, screen_reader: bool = True) -> bool:
    """Whether ``node`` itself is hidden: hidden attribute, inline style, hiding class, browser mark.

    ``screen_reader`` also counts screen-reader-only text (sr-only, visually-hidden, ...) as hidden.
    """
    return _hidden_attributes(node.attributes, screen_reader)


def _hidden_attributes(attrs: dict, screen_reader: bool) -> bool:
    """`hidden_self` of an element with the attributes ``attrs`` (a caller that reads them anyway)."""
    if not attrs:
        return False
    if "hidden" in attrs or HIDDEN_MARK in attrs:
        return True
    style = attrs.get("style")
    if style and _HIDDEN_STYLE_RE.search(style):
        return True
    cls = attrs.get("class")
    return bool(cls) and _class_hides(cls, screen_reader)


@functools.lru_cache(maxsize=8192)
def _class_hides(cls: str, screen_reader: bool) -> bool:
    """Whether a class attribute hides its element (pages repeat a few class attributes thousands of times)."""
    return any(hides(token) or (screen_reader and screen_reader_only(token)) for token in cls.split())


def hidden_in_tree(node: LexborNode, cache: dict[int, bool] | None = None, *, strict: bool = False) -> bool:
    """Whether ``node`` or an ancestor is hidden (memoised in ``cache``; use one cache per mode).

    Hidden means: ``hidden`` attribute, inline display:none/visibility:hidden, a hiding class, or the
    browser's computed-style mark. ``strict`` also counts ``aria-hidden="true"`` and screen-reader-only
    containers: right for whole items (a template kept off screen), wrong for prices (Amazon writes
    the price in an off-screen span and shows an aria-hidden copy).
    """
    chain: list[LexborNode] = []
    result = False
    current: LexborNode | None = node
    while current is not None and current.tag not in ("html", "body", "-document"):
        key = current.mem_id
        if cache is not None and key in cache:
            result = cache[key]
            break
        chain.append(current)
        if hidden_self(current, screen_reader=strict) or (
            strict and current.attributes.get("aria-hidden") == "true"
        ):
            result = True
            break
        current = current.parent
    if cache is not None:
        for n in chain:
            cache[n.mem_id] = result
    return result


class PageShare:
    """The share of the page's text an element holds (memoised per element). A page's chrome (a menu,
    a sidebar, a footer) is a small part of it; a wrapper holding most of the text is its content,
    whatever its class says."""

    def __init__(self, tree: LexborHTMLParser) -> None:
        self.tree = tree
        self.total: int | None = None
        self.memo: dict[int, float] = {}
        self.headed: set[int] | None = None  # every h1 and its ancestors (see `holds_most`)

    def __call__(self, node: LexborNode) -> float:
        key = node.mem_id
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if self.total is None:
            body = self.tree.body
            self.total = len(body.text(deep=True, strip=True)) if body is not None else 0
        if node.tag in ("html", "body"):
            value = 1.0
        else:
            value = len(node.text(deep=True, strip=True)) / self.total if self.total else 0.0
        self.memo[key] = value
        return value

    def holds_most(self, node: LexborNode) -> bool:
        """Whether ``node``, flagged hidden by a class name, holds the page's main heading or most of
        its text. A page does not hide its heading or most of itself: without the page's CSS (a saved page) such a class
        ("snippet-hidden", "results-hidden") names a state of something inside, not the wrapper's
        own. The ``hidden`` attribute and inline styles are always believed."""
        attrs = node.attributes
        if "hidden" in attrs or HIDDEN_MARK in attrs or _HIDDEN_STYLE_RE.search(attrs.get("style") or ""):
            return False
        if self.headed is None:  # one query for the page, not one per element asked about
            self.headed = set()
            for h1 in self.tree.css("h1"):
                current: LexborNode | None = h1
                while current is not None and current.mem_id not in self.headed:
                    self.headed.add(current.mem_id)
                    current = current.parent
        return node.mem_id in self.headed or self(node) >= 0.5


class HiddenIndex:
    """`hidden_in_tree` for many nodes of one tree: the elements hidden by their own attributes are
    found once (every element carrying an attribute that may hide it, read in one CSS query, each
    confirmed by `hidden_self`), then each question is a walk up the parents, memoised. ``strict`` as
    in `hidden_in_tree`."""

    # Every attribute `hidden_self` (and ``strict``'s aria-hidden) reads. Presence tests are cheap for
    # the parser; substring tests of class words, one per hiding word, cost more than reading the
    # class attribute of every classed element here (its verdict is cached per attribute value).
    _CANDIDATES = f"[class], [style], [hidden], [aria-hidden], [{HIDDEN_MARK}]"

    def __init__(self, tree: LexborHTMLParser | None = None, *, strict: bool = False) -> None:
        self.roots: set[int] = set()
        self.memo: dict[int, bool] = {}
        if tree is not None:
            page = PageShare(tree)
            for node in tree.css(self._CANDIDATES):
                if (
                    hidden_self(node, screen_reader=strict)
                    or (strict and node.attributes.get("aria-hidden") == "true")
                ) and not page.holds_most(node):
                    self.roots.add(node.mem_id)

    @classmethod
    def pair(cls, tree: LexborHTMLParser) -> tuple[HiddenIndex, HiddenIndex]:
        """The loose and the strict index of ``tree`` from a single query."""
        loose, strict = cls(), cls()
        page = PageShare(tree)
        for node in tree.css(cls._CANDIDATES):
            attrs = node.attributes
            # (what hides loosely hides strictly too: most elements are hidden in neither sense)
            if not (_hidden_attributes(attrs, True) or attrs.get("aria-hidden") == "true"):
                continue
            if page.holds_most(node):
                continue
            strict.roots.add(node.mem_id)
            if _hidden_attributes(attrs, False):
                loose.roots.add(node.mem_id)
        return loose, strict

    def __call__(self, node: LexborNode) -> bool:
        chain: list[int] = []
        result = False
        current: LexborNode | None = node
        while current is not None:
            key = current.mem_id
            if key in self.memo:
                result = self.memo[key]
                break
            chain.append(key)
            if key in self.roots:
                result = True
                break
            if current.tag in ("body", "html"):
                break
            current = current.parent
        for key in chain:
            self.memo[key] = result
        return result


# --- text -----------------------------------------------------------------------------------------


def _collect(node: LexborNode, parts: list[str], memo: dict[int, str] | None) -> None:
    for child in node.iter(include_text=True):
        tag = child.tag
        if tag == "-text":
            parts.append(child.text_content or "")
        elif tag == "br":
            parts.append(" ")
        elif tag in ("-comment", "img", "input", "select", "option", "textarea"):
            continue
        elif not _hidden_attributes(attrs := child.attributes, True):
            if (tag in SOFT_TAGS or tag not in HTML_TAGS) and BLOCK_MARK in attrs:
                parts.append(_SEP)  # shown as a block by the stylesheet
                _gather(child, parts, memo)
                parts.append(_SEP)
            elif tag in GLUE_TAGS or tag not in HTML_TAGS:
                _gather(child, parts, memo)
            elif tag in SOFT_TAGS:
                parts.append(_RAISED if tag in ("sup", "sub") else _SOFT)
                _gather(child, parts, memo)
                parts.append(_SOFT)
            else:
                parts.append(_SEP)
                _gather(child, parts, memo)
                parts.append(_SEP)


def _gather(node: LexborNode, parts: list[str], memo: dict[int, str] | None) -> None:
    """`_collect` of ``node`` onto ``parts``; with a ``memo``, gathered once per element (the pieces of
    an element's subtree are contiguous: joined apart or in one piece, the text is the same)."""
    if memo is None:
        _collect(node, parts, None)
        return
    key = node.mem_id
    hit = memo.get(key)
    if hit is None:
        own: list[str] = []
        _collect(node, own, memo)
        hit = memo[key] = "".join(own)
    parts.append(hit)


_SEP_RUN_RE = re.compile(r"[\x00-\x02]+")
_SEP_CHARS = "\x00\x01\x02"
_SEPS = frozenset(_SEP_CHARS)
_NO_SPACE_AFTER = frozenset(" \t\n\r\f\v\u00a0([{")
_NO_SPACE_BEFORE = frozenset(" \t\n\r\f\v\u00a0,.;:!?)]}%")
_QUOTES = frozenset("\"'\u201c\u201d\u201e\u2018\u2019\u201a\u00ab\u00bb\u2039\u203a")
_SPACES = frozenset(" \t\n\r\f\v\u00a0")


def _quote_side(text: str, at: int, opening: bool) -> bool:
    """Whether the quote mark at ``at`` opens (white space or nothing before it) or closes (after it)."""
    if text[at] not in _QUOTES:
        return False
    near = at - 1 if opening else at + 1
    return near < 0 or near >= len(text) or text[near] in _SPACES or text[near] in _SEPS


def _fragment(text: str, start: int, end: int) -> bool:
    """Whether the text right before ``start`` or right after ``end`` up to the next element boundary
    is a piece of a word (no white space in it): ``<span>Sam</span>sung``, ``lap<span>top</span>``."""
    left = start
    while left > 0 and text[left - 1] not in _SEPS:
        left -= 1
    if not any(ch in _SPACES for ch in text[left:start]):
        return True
    right = end
    while right < len(text) and text[right] not in _SEPS:
        right += 1
    return not any(ch in _SPACES for ch in text[end:right])


def _joined(text: str, start: int, end: int, run: str) -> bool:
    """Whether the inline element boundary ``text[start:end]`` lies inside a word: a lower-case
    continuation of a word piece ("Sam|sung"), a hyphen joining two words ("l|-arginine",
    "state-|of"), a slash of a path ("owner/|repo"), a superscript or subscript right after a word
    ("Ca|2+", "Science|1")."""
    before, after = text[start - 1], text[end]
    if before.isalpha() and after.isalpha() and after.islower():
        return _fragment(text, start, end)
    if after == "-" and before.isalpha() and end + 1 < len(text) and text[end + 1].isalpha():
        return True
    if before == "-" and after.isalpha() and start >= 2 and text[start - 2].isalpha():
        return True
    # A path or reference cut at its slash ("<span>owner/</span>repo", "owner<span>/repo</span>").
    if before == "/" and after.isalnum() and start >= 2 and text[start - 2].isalnum():
        return _fragment(text, start, end)
    if after == "/" and before.isalnum() and end + 1 < len(text) and text[end + 1].isalnum():
        return _fragment(text, start, end)
    return _RAISED in run and before.isalpha() and (after.isdigit() or after in "+-\u2212*\u2020")


# Scripts written without spaces between words: kana, CJK ideographs, Thai, Lao, Khmer, Myanmar.
_UNSPACED_RE = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0eff\u1780-\u17ff\u1000-\u109f]+"
)


def without_spaces(text: str) -> bool:
    """Whether ``text`` has words of a script written without spaces between them."""
    return _UNSPACED_RE.search(text) is not None


def reading_length(text: str) -> int:
    """The length of ``text`` with each sign of a script written without spaces counted twice: a sign
    carries about what two letters do ("哈尔滨初雪", Harbin's first snow, is no shorter than a date)."""
    return len(text) + sum(len(run) for run in _UNSPACED_RE.findall(text))


def word_count(text: str) -> int:
    """Words in ``text`` as a reader counts them: words between spaces, and in scripts written without
    spaces (Japanese, Chinese, Thai) a word per two characters ("東京で新しい美術館が開館" is six)."""
    count = len(text.split())
    for run in _UNSPACED_RE.findall(text):
        count += len(run) // 2 - 1 if len(run) >= 4 else 0
    return count


def clean_text(text: str) -> str:
    """Fold white space; element-boundary breaks become one space except next to punctuation, inside
    a quotation's marks, and (inline elements) inside a word."""
    if _SEP in text or _SOFT in text or _RAISED in text:
        text = text.strip(_SEP_CHARS)  # a break at either end separates nothing (see `boundary`)

        def boundary(m: re.Match) -> str:
            start, end = m.start(), m.end()
            if (
                start == 0
                or end == len(text)
                or text[start - 1] in _NO_SPACE_AFTER
                or text[end] in _NO_SPACE_BEFORE
                or _quote_side(text, start - 1, opening=True)
                or _quote_side(text, end, opening=False)
            ):
                return ""
            run = m.group(0)
            if _SEP not in run and _joined(text, start, end, run):
                return ""
            return " "

        text = _SEP_RUN_RE.sub(boundary, text)
    return collapse_space(text)


def visible_text(node: LexborNode | None) -> str:
    """The text a user sees in ``node``: hidden and screen-reader-only parts left out, words separated
    at block and span boundaries (``Revenue<br>in US$<sup>[1]</sup>`` -> ``Revenue in US$ [1]``),
    white space folded. Within `_parse_memo.remembering` each element's text is gathered once and
    kept: a reader that reads nested elements (a link, its line, then its card) walks each element once."""
    if node is None:
        return ""
    memo = current_memo()
    parts: list[str] = []
    if memo is None:
        _collect(node, parts, None)
        return clean_text("".join(parts))
    key = node.mem_id
    text = memo.visible.get(key)
    if text is None:
        _gather(node, parts, memo.gathered)
        text = memo.visible[key] = clean_text(parts[0])
    return text


def raw_text(node: LexborNode | None) -> str:
    """All text of ``node`` concatenated as written (``7 998<span>,00</span>zł`` -> ``7 998,00zł``)."""
    if node is None:
        return ""
    return collapse_space(node.text(deep=True))


#: Elements that hold the cents of a price written apart ("$19<sup>97</sup>",
#: "<span class=whole>62</span><span class=fraction>99</span>").
_CENTS_CLASS_RE = re.compile(
    r"fraction|cent|decimal|minor|penny|pennies|grosz|kopeck|rappen|sup", re.IGNORECASE
)


_TRAILING_NUMBER_RE = re.compile(r"\d[\d.,'’\u00a0\u202f ]*$")
_HAS_DECIMALS_RE = re.compile(r"[.,]\d{1,2}$")  # "19.9", "19,99": cents already written


def _cents_element(node: LexborNode | None, stop: LexborNode) -> bool:
    for _ in range(2):
        if node is None or node.mem_id == stop.mem_id:
            return False
        if node.tag == "sup" or _CENTS_CLASS_RE.search(node.attributes.get("class") or ""):
            return True
        node = node.parent
    return False


def price_text(node: LexborNode | None) -> str:
    """The text of a price element as written (``7 998<span>,00</span>zł`` -> ``7 998,00zł``), with
    digits in different elements kept apart and cents set apart in markup joined to their whole
    number: ``$19<sup>97</sup>`` -> ``$19.97``, ``<b>62</b><span class=fraction>99</span>`` ->
    ``62.99``, ``<span>19</span><span>97</span>`` -> ``19 97`` (which `parse_price` reads as 19.97
    next to a currency mark). White space folded."""
    if node is None:
        return ""
    child = node.child
    if child is None or (child.next is None and child.tag == "-text"):
        return collapse_space(node.text(deep=True))  # one text node: nothing to join
    parts: list[str] = []
    last_parent: int | None = None
    for text_node in node.traverse(include_text=True):
        if text_node.tag != "-text":
            continue
        text = text_node.text_content or ""
        if not text:
            continue
        parent = text_node.parent
        if parts and last_parent is not None and parent is not None and parent.mem_id != last_parent:
            stripped = text.strip()
            if parts[-1][-1:].isdigit() and stripped[:1].isdigit():
                joined = "".join(parts)
                number = _TRAILING_NUMBER_RE.search(joined)
                digits = number.group(0) if number else ""
                cents = len(stripped) == 2 and stripped.isdigit() and _cents_element(parent, node)
                if cents and not _HAS_DECIMALS_RE.search(digits):
                    # The decimal mark the whole part's thousands separator is not ("1.000" -> ",").
                    parts.append("," if "." in digits else ".")
                else:
                    parts.append(" ")
        parts.append(text)
        last_parent = parent.mem_id if parent is not None else None
    return collapse_space("".join(parts))


# --- URLs -----------------------------------------------------------------------------------------


def page_base(tree: LexborHTMLParser, url: str, fallback: str | None = None) -> str:
    """The URL relative links resolve against.

    ``<base href>`` applies as in a browser. A page read from a file (not http/https) resolves
    against its canonical URL (``link rel=canonical`` / ``og:url``) when it names one, else against
    ``fallback`` (a site tool's home, e.g. https://news.ycombinator.com/), so saved pages still yield
    real links.
    """
    url = url or ""
    if urlsplit(url).scheme not in ("http", "https"):
        found = None
        for selector, attr in (('link[rel="canonical"]', "href"), ('meta[property="og:url"]', "content")):
            el = tree.css_first(selector)
            value = (el.attributes.get(attr) or "").strip() if el is not None else ""
            if value.startswith(("http://", "https://")):
                found = value
                break
        url = found or fallback or url
    base_el = tree.css_first("base[href]")
    if base_el is not None:
        href = (base_el.attributes.get("href") or "").strip()
        if href:
            url = urljoin(url, href)
    return url


#: Elements a script makes links of (a card with ``role="link"`` and ``data-href``, an app's
#: ``data-url``): where a record has no ``<a>``, the address it opens.
SCRIPT_LINKS = "[data-href], [data-url]"


def address(link: LexborNode) -> str:
    """Where a link leads: its ``href``, or the address a script opens (`SCRIPT_LINKS`)."""
    attrs = link.attributes
    return (
        (attrs.get("href") if link.tag in ("a", "area") else None)
        or attrs.get("data-href")
        or attrs.get("data-url")
        or ""
    ).strip()


def absolute_url(href: str | None, base: str) -> str | None:
    """``href`` resolved against ``base``; None for empty, in-page (#...) and non-web links."""
    if not href:
        return None
    href = href.strip()
    if not href or href.startswith("#") or href.lower().startswith(_BAD_SCHEMES):
        return None
    try:
        return urljoin(base, href) if base else href
    except ValueError:
        return None


def default_currency(base: str) -> str | None:
    """The currency the page's domain implies (``.pl`` -> PLN), if any."""
    return currency_for_domain(host_of(base))


# --- numbers --------------------------------------------------------------------------------------

_COUNT_RE = re.compile(r"(\d{1,3}(?:[,.\u00a0\u202f ]\d{3})+|\d+(?:[.,]\d+)?)\s*([kKmM](?![a-zA-Z]))?")
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)?")


def parse_count(text: str | None) -> int | None:
    """The first count in ``text``: ``"284 points"`` -> 284, ``"9,582"`` -> 9582, ``"52.1k"`` -> 52100."""
    if not text:
        return None
    m = _COUNT_RE.search(text)
    if not m:
        return None
    num, suffix = m.group(1), m.group(2)
    if suffix:
        value = float(num.replace(",", "."))
        return int(round(value * (1000 if suffix in "kK" else 1_000_000)))
    digits = re.sub(r"\D", "", num) if re.fullmatch(r"\d{1,3}(?:[,.\u00a0\u202f ]\d{3})+", num) else num
    try:
        return int(float(digits.replace(",", ".")))
    except ValueError:  # pragma: no cover - the pattern admits numbers only
        return None


def parse_number(text: str | None) -> float | None:
    """The first decimal number in ``text``, comma or dot decimal: ``"4,4 von 5"`` -> 4.4."""
    if not text:
        return None
    m = _NUMBER_RE.search(text)
    return float(m.group(0).replace(",", ".")) if m else None


def check_count(name: str, value: Any) -> None:
    """A count parameter (``min_points``, ``min_score``): None or an integer, else a parameter error."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise BadParams(f"{name} must be an integer, got {value!r}")


def comment_count(text: str | None, none_yet: re.Pattern[str]) -> int | None:
    """A comments link's count: ``"145 comments"`` -> 145, ``"25.4k comments"`` -> 25400, a link
    matching ``none_yet`` ("discuss", a bare "comment") -> 0, no link -> None."""
    if text is None:
        return None
    if none_yet.match(text):
        return 0
    return parse_count(text)


def apply_limit(items: list, limit: int | None) -> list:
    """The first ``limit`` items (all when None); a limit below 1 is a parameter error."""
    if limit is None:
        return items
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise BadParams(f"limit must be an integer >= 1, got {limit!r}")
    return items[:limit]
