"""The rule planner: instruction + URL + manifests -> a checked plan, without a model.

Every installed tool takes part through its manifest alone. A scorer reads each manifest's
``triggers`` (regular expressions over the instruction), ``sites`` (against the URL host),
``examples`` (similarity to the instruction; their parameters teach which parameter a fact goes to)
and ``parameters`` (which facts of the instruction it can take). The plan is then built in the order
forms, navigation, extraction, validation:

* the **extraction** is the tool that produces what the instruction asks for (products, articles,
  links, tables, or any key a plugin produces), site-specific when the URL's host is one of its
  ``sites``, else a generic one;
* a **forms/navigation** step is added for each kind of action the instruction states (a search
  term, a price range, dates, a dropdown choice, a click, a category, scrolling, pages), taken by
  the best-scoring tool that declares a parameter for it; a pager with an ``extract`` parameter
  folds the extraction into itself. One exception to the order: a category is opened first, since
  a filter set before it would be lost on the way;
* a **validation** step guards what the page may ignore (a price range, required fields);
* a tool no kind of action covers joins on its triggers alone (a URL check), and a page tool whose
  value-free example the instruction contains joins as that example ("accept the cookies").

Only parameters a manifest declares are set, and only values that validate against its schema.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..errors import PlanError, PlanningError, UsageError
from ..item_fields import WORDS as FIELD_WORDS
from ..manifest import CATEGORY_ORDER, Manifest
from ..plan import Plan, check_plan, fill_defaults, normalise_plan
from ..registry import Registry
from ..urls import site_of
from .base import Planned
from .each import with_map
from .params import Fact, Facts, extract_facts

# --- facts and parameters ----------------------------------------------------------------------

#: Parameter names a fact may go to, best first. A manifest's examples can teach others (see
#: `learned_aliases`); the first two names of a list count as a strong match.
ALIASES: dict[str, tuple[str, ...]] = {
    "price_min": ("min", "min_price", "price_min", "minimum", "price_from", "from_price", "low"),
    "price_max": ("max", "max_price", "price_max", "maximum", "price_to", "to_price", "high"),
    "limit": ("limit", "max_items", "count", "top", "n", "max_results", "num"),
    "sort": ("sort", "order", "sort_by", "order_by"),
    "pages": ("max_pages", "pages", "page_count", "page_limit"),
    "scroll_times": ("times", "scrolls", "max_scrolls", "iterations"),
    "wait_ms": ("wait_ms", "delay_ms", "pause_ms"),
    "query": ("query", "q", "search", "term", "search_term", "keywords", "phrase"),
    "date_from": ("from", "date_from", "start", "start_date", "since", "from_date", "check_in"),
    "date_to": ("to", "date_to", "end", "end_date", "until", "to_date", "check_out"),
    "option": ("option", "value", "choice"),
    "option_field": ("field", "select", "dropdown"),
    "click_text": ("text", "label", "target", "button"),
    "category_path": ("path", "category", "categories"),
    "link_pattern": ("pattern", "regex", "href_pattern", "match"),
    "same_domain": ("same_domain", "internal", "same_site"),
    "link_external": ("external", "external_only", "other_sites"),
    "fields": ("fields", "required"),
    "select_fields": ("fields", "select", "columns", "keep_fields"),
    "sort_by": ("by", "sort_by", "order_by", "sort_field"),
    "sort_order": ("order", "direction", "sort_order", "sort_direction"),
    "min_points": ("min_points", "min_score", "points", "score", "min_upvotes"),
    "min_comments": ("min_comments", "comments"),
    "max_rows": ("max_rows", "row_limit", "rows"),
    "largest": ("largest", "biggest"),
    "smallest": ("smallest", "fewest_rows"),
    "strict": ("mode",),
}

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

#: The output kinds an instruction can ask for, by the words that name them (PL/EN/DE).
KIND_WORDS: dict[str, str] = {
    "products": (
        r"\b(products?|items?|offers?|deals?|listings?|goods|produkt\w*|ofert\w*|towar\w*|"
        r"angebot\w*|waren)\b"
    ),
    "articles": (
        r"\b(articles?|stories|story|storys|posts?|news|headlines?|submissions?|threads?|blog\s*posts?|"
        r"artykuł\w*|artykul\w*|wpis\w*|posty|postów|wiadomości|wiadomosci|newsy|nagłówk\w*|"
        r"nachrichten|beiträge|beitrag|schlagzeilen|meldungen|comments?|komentarz\w*|kommentare?|"
        r"search\s+results?|organic\s+results?|results?\s+of\s+(?:the\s+|this\s+|my\s+)?search|"
        r"wyniki\s+(?:tego\s+)?wyszukiwania|\w*suchergebnis\w*|suchtreffer|ergebnisse\s+der\s+suche)\b"
    ),
    "links": r"\b(links?|urls?|hrefs?|hyperlinks?|linki|linków|linkow|odnośnik\w*|odnosnik\w*)\b",
    "tables": r"\b(tables?|tabel\w*|tabelle\w*|\w+tabellen?|spreadsheets?)\b",
}
#: Words that hint at a category of tool (a small nudge for ranking, never decisive).
CATEGORY_CUES: dict[str, str] = {
    "forms": r"\b(fill|form|search|filter|type|enter|wpisz|wyszukaj|formularz|filtr\w*|formular|suche?|filter\w*)\b",
    "navigation": (
        r"\b(click|scroll|pages?|next|open|go to|categor\w*|kliknij|przewiń|stron\w*|kategori\w*|"
        r"seiten?|klick\w*|öffne)\b"
    ),
    "validation": (
        r"\b(every|each|all|must|only|check|verify|validate|każd\w*|tylko|musi|jede[sr]?|nur|muss|"
        r"prüfe)\b"
    ),
    "extraction": r"\b(find|get|extract|list|show|scrape|znajdź|pokaż|pobierz|wyciągnij|finde|zeige|extrahiere)\b",
}
_STOPWORDS = frozenset(
    "the and with from for all any that this find get show list give want page pages site "
    "znajdź znajdz pokaż pokaz wszystkie które oraz finde zeige alle die der das und mit".split()
)

_TLD_LEVEL2 = {"co", "com", "org", "net", "ac", "gov", "edu"}


# --- small helpers -------------------------------------------------------------------------------

_rx_cache: dict[str, re.Pattern | None] = {}


def _rx(pattern: str) -> re.Pattern | None:
    """A compiled trigger (case-insensitive), or None if it does not compile (cached either way)."""
    if pattern not in _rx_cache:
        try:
            _rx_cache[pattern] = re.compile(pattern, re.I)
        except re.error:
            _rx_cache[pattern] = None
    return _rx_cache[pattern]


def _tokens(text: str) -> frozenset[str]:
    """Word stems (first five letters) without stop words: inflection-tolerant for PL and DE."""
    return frozenset(w[:5] for w in re.findall(r"[^\W\d_]{3,}", text.lower()) if w not in _STOPWORDS)


def _dice(a: frozenset[str], b: frozenset[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


def _props(m: Manifest) -> dict:
    return m.parameters.get("properties") or {}


def site_label(site: str) -> str:
    """The name people use for a domain: ``ceneo`` for ceneo.pl, ``amazon`` for amazon.co.uk."""
    labels = site.split(".")[:-1]
    if len(labels) > 1 and labels[-1] in _TLD_LEVEL2:
        labels = labels[:-1]
    return labels[-1] if labels else site


def host_matches(host: str | None, sites: tuple[str, ...] | list[str]) -> bool:
    """``host`` is one of ``sites`` or a subdomain of one (``www.`` already dropped by site_of)."""
    return host is not None and any(host == s or host.endswith("." + s) for s in sites)


def real_host(url: str | None) -> str | None:
    """The host of a web URL, or None for file:// URLs, localhost and IP addresses (test pages)."""
    if not url:
        return None
    parts = urlsplit(url)
    host = site_of(url)
    if (
        parts.scheme not in ("http", "https")
        or not host
        or host == "localhost"
        or re.fullmatch(r"[\d.:\[\]]+", host)
    ):
        return None
    return host


_per_manifest: dict[tuple[int, str], tuple[Manifest, Any]] = {}
_MEMO_LIMIT = 20000


def _memo(m: Manifest, name: str, compute):
    """Per-manifest values computed once. Manifests are immutable; the entry keeps its manifest alive
    (so an id is never reused while cached), and the cache is dropped when it grows past a bound."""
    key = (id(m), name)
    hit = _per_manifest.get(key)
    if hit is not None and hit[0] is m:
        return hit[1]
    if len(_per_manifest) >= _MEMO_LIMIT:
        _per_manifest.clear()
    value = compute(m)
    _per_manifest[key] = (m, value)
    return value


def learned_aliases(m: Manifest) -> dict[str, str]:
    """Fact kind -> parameter name, taught by the manifest's examples.

    For ``{"instruction": "stories with more than 50 points", "parameters": {"threshold": 51}}`` the
    fact ``min_points=51`` and the parameter ``threshold=51`` agree, so ``min_points`` goes to
    ``threshold`` for this tool. This lets a plugin name its parameters as it likes.
    """

    def compute(m: Manifest) -> dict[str, str]:
        out: dict[str, str] = {}
        props = _props(m)
        for example in m.examples:
            facts = extract_facts(str(example.get("instruction", "")))
            for name, value in (example.get("parameters") or {}).items():
                if name not in props:
                    continue
                for fact in facts:
                    if _same(fact.value, value):
                        out.setdefault(fact.kind, name)
        return out

    return _memo(m, "aliases", compute)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().lower() == b.strip().lower()
    if isinstance(a, list) and isinstance(b, list):
        return [str(x).lower() for x in a] == [str(x).lower() for x in b]
    return False


def param_for(m: Manifest, kind: str) -> tuple[str | None, int]:
    """The parameter of ``m`` that takes facts of ``kind``, and how sure: 3 learned, 2 strong, 1 weak."""
    props = _props(m)
    learned = learned_aliases(m).get(kind)
    if learned in props:
        return learned, 3
    for i, alias in enumerate(ALIASES.get(kind, ())):
        if alias in props:
            return alias, 2 if i < 2 else 1
    return None, 0


def serves(m: Manifest, group: str) -> int:
    """How well ``m`` can take the facts of ``group`` (0: it declares no parameter for them)."""
    return max((param_for(m, kind)[1] for kind in GROUPS[group]), default=0)


def _validator(m: Manifest):
    """A validator of the parameters with nothing required: checks one value at a time."""

    def compute(m: Manifest):
        from jsonschema import Draft202012Validator

        return Draft202012Validator({**m.parameters, "required": []})

    return _memo(m, "validator", compute)


def fit_value(m: Manifest, name: str, value: Any) -> tuple[bool, Any]:
    """``value`` (or a close variant of it) if it validates as parameter ``name`` of ``m``."""
    validator = _validator(m)
    prop = _props(m).get(name) or {}
    for candidate in _variants(prop, value):
        if not any(
            list(e.absolute_path)[:1] == [name] or not e.absolute_path
            for e in validator.iter_errors({name: candidate})
        ):
            return True, candidate
    return False, None


def _enum_of(prop: dict) -> list:
    if "enum" in prop:
        return list(prop["enum"])
    for key in ("anyOf", "oneOf"):
        for sub in prop.get(key) or []:
            if isinstance(sub, dict) and "enum" in sub:
                return list(sub["enum"])
    return []


_SYNONYMS = {
    "asc": {"asc", "ascending", "low", "lowest", "cheap", "cheapest", "rosnąco", "aufsteigend"},
    "desc": {"desc", "descending", "high", "highest", "expensive", "malejąco", "absteigend"},
    "newest": {"newest", "new", "latest", "recent", "date", "najnowsze", "neueste"},
    "rating": {"rating", "rated", "best", "score", "top"},
}


def _match_enum(value: str, enum: list) -> Any:
    """The enum member that means ``value``: equal, then containing, then sharing the most words."""
    low = value.strip().lower()
    strings = [e for e in enum if isinstance(e, str)]
    for e in strings:
        if e.lower() == low:
            return e
    words = set(re.findall(r"[a-ząćęłńóśźż]+", low))
    expanded = words | {k for k, syn in _SYNONYMS.items() if words & syn}
    best, best_score = None, 0.0
    for e in strings:
        ewords = set(re.findall(r"[a-ząćęłńóśźż]+", e.lower()))
        eexp = ewords | {k for k, syn in _SYNONYMS.items() if ewords & syn}
        score = len(expanded & eexp) / max(len(eexp), 1)
        if score > best_score:
            best, best_score = e, score
    return best if best_score >= 0.5 else None


def _variants(prop: dict, value: Any) -> list:
    """Ways to write ``value`` for a property: as is, as the schema's type, an enum member."""
    out: list = [value]
    enum = _enum_of(prop)
    if value is True and enum:
        out.append("fail")  # a "strict" fact means a check's fail mode
    if isinstance(value, str) and enum:
        member = _match_enum(value, enum)
        if member is not None:
            out.insert(0, member)
    if isinstance(value, int | float) and not isinstance(value, bool):
        out += [int(value) if float(value).is_integer() else value, float(value), str(value)]
    if isinstance(value, str):
        out.append([value])
    if isinstance(value, list):
        strings = [str(v) for v in value]
        out += [" > ".join(strings), strings[-1] if strings else ""]
    return out


# --- sites ------------------------------------------------------------------------------------------


def named_sites(instruction: str, registry: Registry) -> list[str]:
    """Sites of installed tools that the instruction names: "on Ceneo", "na allegro", "amazon.de".

    Best first: a full domain beats a bare name; among sites sharing a name (amazon.com, amazon.de)
    the one whose country matches the instruction's language wins, then the order in the manifest.
    """
    from .params import detect_lang

    low = instruction.lower()
    lang = detect_lang(instruction)
    found: list[tuple[int, int, str]] = []
    seen: set[str] = set()
    order = 0
    for m in registry:
        for site in m.sites:
            order += 1
            if site in seen:
                continue
            seen.add(site)
            if re.search(r"(?<![\w.-])" + re.escape(site) + r"(?![\w-])", low):
                found.append((0, order, site))
                continue
            label = site_label(site)
            # A trigger that matches the site's own name names the site ("hacker ?news|\\bhn\\b|ycombinator").
            naming = [rx for t in m.triggers if (rx := _rx(t)) is not None and rx.search(label)]
            if (len(label) >= 3 and re.search(r"(?<![\w.-])" + re.escape(label) + r"(?![\w-])", low)) or any(
                rx.search(instruction) for rx in naming
            ):
                tld = site.rsplit(".", 1)[-1]
                native = (
                    (lang == "pl" and tld == "pl")
                    or (lang == "de" and tld == "de")
                    or (lang == "en" and tld == "com")
                )
                found.append((1 if native else 2, order, site))
    return [site for *_, site in sorted(found)]


def site_url(site: str) -> str:
    """``https://www.ceneo.pl/`` for a registrable domain, ``https://news.example.com/`` for a subdomain."""
    labels = site.split(".")
    bare = len(labels) == 2 or (len(labels) == 3 and labels[1] in _TLD_LEVEL2)
    return f"https://www.{site}/" if bare else f"https://{site}/"


def resolve_start_url(instruction: str, url: str | None, registry: Registry) -> str | None:
    """The page to start from: ``url`` when given, else a site the instruction names, else the default.

    The default is ``CURLLM_DEFAULT_URL`` or the config's ``default_url``. With none of these, raises
    UsageError saying how to give a URL and which sites the installed tools know.
    """
    import os

    if url:
        return url
    check_instruction(instruction)
    sites = named_sites(instruction, registry)
    if sites:
        return site_url(sites[0])
    default = os.environ.get("CURLLM_DEFAULT_URL")
    if not default:
        from ..config import load_config

        default = load_config().get("default_url")
    if default:
        return default
    by_label: dict[str, list[str]] = {}
    for m in registry:
        for site in m.sites:
            if site not in by_label.setdefault(site_label(site), []):
                by_label[site_label(site)].append(site)
    known = [
        sites[0] + (f" (+{len(sites) - 1} more)" if len(sites) > 1 else "")
        for _, sites in sorted(by_label.items())
    ]
    hint = f", or name a site the installed tools know: {', '.join(known)}" if known else ""
    raise UsageError(
        f"no URL to start from: give one with --url URL or as a URL argument, e.g. "
        f'`curllm https://shop.example/ "{instruction}"`; or set CURLLM_DEFAULT_URL{hint}'
    )


# --- scoring -----------------------------------------------------------------------------------------


@dataclass
class Scored:
    """A manifest's score for one task, with the evidence for the reasoning line."""

    manifest: Manifest
    score: float
    site: str  # "" (no sites), "match", "named", "unknown" (no real host) or "mismatch"
    trigger: str | None = None  # the first trigger's matched text
    trigger_pos: int | None = None
    reasons: list[str] = field(default_factory=list)

    @property
    def eligible(self) -> bool:
        return self.site != "mismatch"


def _site_status(m: Manifest, host: str | None, named: list[str]) -> str:
    if not m.sites:
        return ""
    if host_matches(host, m.sites):
        return "match"
    if any(host_matches(s, m.sites) for s in named):
        return "named"
    return "unknown" if host is None else "mismatch"


def score_tools(
    instruction: str, url: str | None, registry: Registry, facts: Facts | None = None
) -> list[Scored]:
    """Every installed tool scored for the task, best first (ties by name: deterministic)."""
    facts = facts or extract_facts(instruction)
    host = real_host(url)
    named = named_sites(instruction, registry) if host is None else []
    words = _tokens(instruction)
    kind = wanted_kind(instruction, facts, registry)[0]
    cues = {c: bool(re.search(rx, instruction, re.I)) for c, rx in CATEGORY_CUES.items()}
    lists = _field_lists(facts)
    scored: list[Scored] = []
    for m in registry:
        s = Scored(m, 0.0, _site_status(m, host, named))
        hits = 0
        for trigger in m.triggers:
            rx = _rx(trigger)
            # Words of a list of fields ("name, price and link") name fields, not a tool's job.
            match = (
                next((x for x in rx.finditer(instruction) if not _inside(x.start(), lists)), None)
                if rx
                else None
            )
            if match:
                hits += 1
                if s.trigger is None or match.start() < (s.trigger_pos or 0):
                    s.trigger, s.trigger_pos = match.group(0).strip() or trigger, match.start()
        if hits:
            s.score += 2 + 0.5 * min(hits - 1, 3)
            s.reasons.append(f"its trigger matched {s.trigger!r}")
        s.score += {"match": 6, "named": 4, "unknown": -1, "mismatch": -6}.get(s.site, 0)
        if s.site in ("match", "named"):
            s.reasons.append(f"made for {', '.join(m.sites)}")
        for fact in facts:
            name, strength = param_for(m, fact.kind)
            if name:
                s.score += 0.75 * strength
        example_sim = max((_dice(words, _memo_tokens(m, i)) for i in range(len(m.examples))), default=0.0)
        s.score += 3 * example_sim + _dice(words, _memo_tokens(m, -1))
        if example_sim >= 0.4:
            s.reasons.append("the instruction reads like its examples")
        if m.category == "extraction" and kind in m.produces:
            s.score += 3
        if cues.get(m.category):
            s.score += 0.5
        scored.append(s)
    scored.sort(key=lambda s: (-s.score, s.manifest.key))
    return scored


def _memo_tokens(m: Manifest, index: int) -> frozenset[str]:
    """Tokens of example ``index`` (or of the description for -1), computed once per manifest."""

    def compute(m: Manifest) -> list[frozenset[str]]:
        return [_tokens(str(e.get("instruction", ""))) for e in m.examples] + [_tokens(m.description)]

    return _memo(m, "tokens", compute)[index]


def rank_tools(instruction: str, url: str | None, registry: Registry, k: int = 8) -> list[Manifest]:
    """The ``k`` tools most likely to serve the task (for a model's prompt), eligible ones only."""
    return [s.manifest for s in score_tools(instruction, url, registry) if s.eligible][:k]


# --- what is asked for -----------------------------------------------------------------------------


def kind_by_fields(facts: Facts, registry: Registry) -> tuple[str | None, str]:
    """The kind whose items have the fields asked for, when no word names one: "only the titles"
    asks for items with titles (articles), "names and prices" for items with names and prices
    (products). Only an unambiguous answer counts; (None, "") otherwise."""
    fact = facts.fact("select_fields") or facts.fact("fields")
    if fact is None:
        return None, ""
    best: dict[str, int] = {}
    for m in registry.tools.values():
        if m.category != "extraction" or not m.produces:
            continue
        key = m.produces[0]
        schema = (m.output_schema.get("properties") or {}).get(key) or {}
        props = ((schema.get("items") or {}).get("properties") or {}) if isinstance(schema, dict) else {}
        hits = sum(1 for f in fact.value if f in props)
        best[key] = max(best.get(key, 0), hits)
    top = max(best.values(), default=0)
    kinds = [k for k, n in best.items() if n == top]
    if top == 0 or len(kinds) != 1:
        return None, ""
    return kinds[0], fact.text


def _field_lists(facts: Facts) -> list[tuple[int, int]]:
    """Where the instruction lists item fields (to return, or required)."""
    return [(f.start, f.start + len(f.text)) for k in ("select_fields", "fields") if (f := facts.fact(k))]


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def wanted_kind(instruction: str, facts: Facts, registry: Registry) -> tuple[str | None, str]:
    """The data key the instruction asks for and the words that say so (earliest mention wins).

    Products, articles, links and tables by their PL/EN/DE names; any other key an installed
    extraction tool produces (``jobs``) by its own name. (None, "") when nothing names a kind.
    """
    best: tuple[int, str, str] | None = None
    patterns = dict(KIND_WORDS)
    for m in registry.tools.values():
        if m.category != "extraction":
            continue
        for key in m.produces:
            if key not in patterns:
                stem = key[:-1] if key.endswith("s") and len(key) > 4 else key
                patterns[key] = rf"\b{re.escape(stem)}\w*\b"
    # Words inside a list of fields ("name, price and url of the products") name fields, not a kind.
    lists = _field_lists(facts)
    for key, pattern in patterns.items():
        hit = next(
            (x for x in re.finditer(pattern, instruction, re.I) if not _inside(x.start(), lists)), None
        )
        if hit and (best is None or hit.start() < best[0]):
            best = (hit.start(), key, hit.group(0))
    if best is None and "link_pattern" in facts:
        fact = facts.fact("link_pattern")
        return "links", fact.text if fact else ""
    if best is None:
        # Bare "results" ("the first 5 results", "wyniki", "Treffer") are what a search gave: the
        # organic results (articles: title, url, snippet); with a price to filter by, a shop's offers.
        hit = next(
            (x for x in re.finditer(_RESULTS, instruction, re.I) if not _inside(x.start(), lists)), None
        )
        if hit:
            priced = "price_min" in facts or "price_max" in facts or facts.get("sort_by") == "price"
            return ("products" if priced else "articles"), hit.group(0)
    return (best[1], best[2]) if best else (None, "")


#: Results with no word for what they are.
_RESULTS = r"\b(?:results?|hits|wynik(?:i|ów|ow)?|treffer|ergebnisse?)\b"


# --- building a plan --------------------------------------------------------------------------------


@dataclass
class _Step:
    manifest: Manifest
    params: dict
    reason: str
    order: tuple
    optional: bool = False
    fallback: str | None = None
    group: str | None = None  # the kind of action (GROUPS) the step was planned for
    speedup: bool = False  # a page action that only helps when more than one page is read


def _fill(
    m: Manifest, facts: Facts, kinds: tuple[str, ...] | None = None, taken: set[str] | None = None
) -> tuple[dict, list[str]]:
    """Parameters of ``m`` from the facts (only declared ones, only values that validate)."""
    params: dict = {}
    why: list[str] = []
    for fact in facts:
        if kinds is not None and fact.kind not in kinds:
            continue
        name, _ = param_for(m, fact.kind)
        if not name or name in params or (taken and name in taken):
            continue
        value = fact.value
        if fact.kind == "strict":
            value = True
        ok, fitted = fit_value(m, name, value)
        if ok:
            params[name] = fitted
            why.append(f"{name}={json.dumps(fitted, ensure_ascii=False)} from {fact.text.strip()!r}")
    return params, why


def _complete(m: Manifest, params: dict) -> bool:
    """Whether the parameters (defaults filled in) validate: nothing required is missing."""
    from ..plan import parameter_problems

    return not parameter_problems(m, fill_defaults(m.parameters, params), [])


def _group_facts(facts: Facts, group: str) -> list[Fact]:
    found = [f for k in GROUPS[group] if (f := facts.fact(k)) is not None]
    presence = PRESENCE.get(group)
    if presence and (f := facts.fact(presence)) is not None:
        found.append(f)
    return found


def _pick(cands: list[Scored], group: str) -> Scored | None:
    """The tool for a kind of action: made for the site, then the surest parameter match, then an
    installed plugin over a built-in tool that does the same (as a plugin's tool of the same name
    replaces a built-in one), then the score."""
    ranked = sorted(
        (c for c in cands if serves(c.manifest, group)),
        key=lambda c: (
            c.site in ("match", "named"),
            serves(c.manifest, group),
            c.manifest.source != "builtin",
            c.score,
        ),
        reverse=True,
    )
    # sorted() is stable and the candidates arrive ordered by (-score, key): ties stay deterministic
    return ranked[0] if ranked else None


def _choose_extraction(scored: list[Scored], kind: str | None) -> tuple[list[Scored], str]:
    """Extraction candidates, best first, and the kind they were chosen for."""
    extractors = [s for s in scored if s.manifest.category == "extraction"]
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


def _takers_first(cands: list[Scored], facts: Facts) -> list[Scored]:
    """Candidates that can take every selecting fact the instruction states before those that would
    drop one (stable: otherwise the site's own tool still comes first)."""
    stated = [k for k in SELECTING_FACTS if k in facts]
    if not stated:
        return cands
    return sorted(cands, key=lambda c: sum(1 for k in stated if param_for(c.manifest, k)[0] is None))


#: The longest instruction the rule planner reads. Instructions are sentences; anything longer is not
#: one, and reading untrusted text must stay bounded in time (every pass is linear, and this caps it).
MAX_INSTRUCTION_CHARS = 10_000


def plan_with_rules(
    instruction: str,
    url: str | None,
    registry: Registry,
    *,
    initial_keys: set[str] | frozenset = frozenset(),
    fields: list[str] | None = None,
    limit: int | None = None,
) -> Planned:
    """Plan without a model. Raises PlanningError when no installed tool can give what is asked for.

    Parts of the instruction no installed tool does ("log in", "buy") are named in the plan's
    ``warnings``; when nothing else is asked, planning fails instead, naming them. ``fields`` and
    ``limit`` (``--fields``, ``--limit``) count as the instruction saying them, and win over it.
    """
    check_instruction(instruction)
    facts = _with_options(extract_facts(instruction), fields, limit)
    text = facts.instruction  # white space folded, as every pass reads it
    scored = score_tools(text, url, registry, facts)
    eligible = [s for s in scored if s.eligible]
    kind, kind_words = wanted_kind(text, facts, registry)
    if kind is None:
        kind, kind_words = kind_by_fields(facts, registry)
    not_done = unsupported_actions(facts, eligible)
    if not _asks_for_something(facts, kind, eligible, not_done):
        if not_done:
            raise PlanningError(
                f"nothing the instruction asks for can be done: {_names(not_done)} (no installed tool "
                "does that; curllm reads pages: say what to get, e.g. the cheapest products, links to PDF files)"
            )
        raise PlanningError(
            "the instruction names nothing to get from the page: say what to get (products, articles, links, "
            'tables, ...) or what to do, e.g. "the 5 cheapest products" or "links to PDF files"'
        )
    facts, link_warnings = _resolve_link_target(facts, kind, registry, url)

    # The extraction, unless the data to work on was given and there is no page to read.
    data_only = not url and bool(initial_keys)
    ext: _Step | None = None
    out_key: str
    if data_only:
        out_key = kind if kind is not None and kind in initial_keys else sorted(initial_keys)[0]
    else:
        ext, out_key = _extraction_step(scored, kind, kind_words, facts, registry)

    guards = [
        s
        for s in eligible
        if s.manifest.category == "validation"
        and (out_key in s.manifest.consumes or s.manifest.parameter_for("data_key") is not None)
    ]
    page_tools = [] if data_only else [s for s in eligible if s.manifest.category in ("forms", "navigation")]
    used: set[str] = set()
    steps = _action_steps(facts, page_tools, guards, out_key, ext, used)
    steps += _trigger_steps(eligible, {g.manifest.key for g in guards}, facts, out_key, data_only, used)
    steps += _example_steps(page_tools, facts, text, used)
    steps += _example_checks(guards, text, out_key, used)
    steps += _place_count(steps, ext, guards, facts, out_key, used)
    steps += _pager_for_filtered_listing(steps, page_tools, ext, used)
    if not any(_is_pager(st.manifest) for st in steps):
        # On one page the order step alone is exact; the page's own sort control would only risk
        # the page (a saved page's form leads nowhere) for nothing.
        steps = [st for st in steps if not st.speedup]
    steps.sort(key=lambda st: (st.order, st.manifest.key))
    steps = _fold_into_pager(steps, ext)
    if not steps:
        raise PlanningError("nothing to do: the instruction names no data to get and no check to run")
    doc: dict[str, Any] = {
        "plan": [_doc_step(st) for st in steps],
        "expected_output": out_key,
        "instruction": instruction,
        "url": url,
        "planner": "rules",
    }
    warnings = list(link_warnings)
    if not_done:
        warnings.append(
            f"not done: {_names(not_done)} (no installed tool does that); the plan only gets the {out_key}"
        )
    if warnings:
        doc["warnings"] = warnings
    if not data_only:
        doc = with_map(doc, text, registry, out_key)  # "for each product ...": each on its own page
    plan = _check(doc, registry, initial_keys)
    return Planned(plan, [f"{s.tool}: {s.description}" for s in plan.steps], "rules")


def _with_options(facts: Facts, fields: list[str] | None, limit: int | None) -> Facts:
    """The facts with ``--fields``/``--limit`` first (a fact of a kind is its first one)."""
    given = []
    end = len(facts.instruction)
    if fields:
        given.append(Fact("select_fields", list(fields), end, f"--fields {','.join(fields)}"))
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise UsageError(f"limit must be a whole number of at least 1, got {limit!r}")
        given.append(Fact("limit", limit, end, f"--limit {limit}"))
    if not given:
        return facts
    return Facts(facts.instruction, [*given, *facts], facts.lang)


def with_fields_and_limit(
    plan: Plan,
    registry: Registry,
    fields: list[str] | None,
    limit: int | None,
    initial_keys: set[str] | frozenset = frozenset(),
) -> Plan:
    """A given plan (``--plan``) with ``--limit``/``--fields`` as its last steps: the first ``limit``
    items of its expected output, with only ``fields``. The plan unchanged when neither is given."""
    if not fields and limit is None:
        return plan
    key = plan.expected_output
    if not key:
        raise UsageError("--fields and --limit need a plan with an expected_output (the item list to cut)")
    doc = plan.to_dict()
    for group, kind, value in (("count", "limit", limit), ("select", "select_fields", fields)):
        if not value:
            continue
        tools = [
            m
            for m in registry
            if m.category == "validation" and m.parameter_for("data_key") and param_for(m, kind)[0]
        ]
        tools.sort(key=lambda m: (m.source != "builtin", -param_for(m, kind)[1], m.key))
        if not tools:
            raise UsageError(
                f"no installed tool takes {kind.replace('_', ' ')} (validation.order_items does)"
            )
        m = tools[0]
        name = param_for(m, kind)[0] or ""
        ok, fitted = fit_value(m, name, value)
        if not ok:
            raise UsageError(f"{m.key} does not take {name}={value!r}")
        what = f"--limit {limit}" if group == "count" else f"--fields {','.join(fields or [])}"
        doc["plan"].append(
            {"tool": m.key, "parameters": _keyed(m, {name: fitted}, key), "description": f"{what} (given)"}
        )
    return check_plan(normalise_plan(doc, registry), registry, initial_keys=set(initial_keys))


def check_instruction(instruction: str) -> None:
    """Refuse an instruction too long to be one (bad input: exit 2), before any pass reads it."""
    if len(instruction) > MAX_INSTRUCTION_CHARS:
        raise UsageError(
            f"the instruction is {len(instruction):,} characters long; at most {MAX_INSTRUCTION_CHARS:,} "
            "are read: say in a sentence what to get (a plan file, --plan, takes any detail)"
        )


def _names(actions: list[tuple[str, str]]) -> str:
    return ", ".join(f"{name} ({words!r})" for name, words in actions)


def unsupported_actions(facts: Facts, eligible: list[Scored]) -> list[tuple[str, str]]:
    """The actions the instruction asks for (``params.ACTIONS``: log in, buy, ...) that no installed
    tool does, as ``(name, words)``. A tool does an action when one of its triggers matches the
    action's words, other than a word that names what to extract ("post" is also a kind of item)."""
    fact = facts.fact("actions")
    if fact is None:
        return []
    text = facts.instruction
    # Words that name what to read (a kind of item, a field: "post", "upvotes") are no action a
    # tool does, even when a reading tool's trigger matches them ("upvote the top story").
    kinds = [_rx(rx) for rx in KIND_WORDS.values()] + [_rx(rf"(?:{rx})\w*") for rx in FIELD_WORDS.values()]
    out = []
    for name, start, end in fact.value:
        done = False
        # The words that say the action: its first and last word ("add ... to my cart"); the words
        # between name what to act on ("the cheapest cat food"), which reading tools match too.
        said = text[start:end].split()
        first = (start, start + len(said[0])) if said else (start, end)
        last = (end - len(said[-1]), end) if said else (start, end)
        for s in eligible:
            for trigger in s.manifest.triggers:
                rx = _rx(trigger)
                for m in rx.finditer(text) if rx else ():
                    if m.start() >= end:
                        break
                    on_verb = any(m.end() > a and m.start() < b for a, b in (first, last))
                    if on_verb and not any(k and k.fullmatch(m.group(0).strip()) for k in kinds):
                        done = True
                        break
                if done:
                    break
            if done:
                break
        if not done:
            out.append((name, text[start:end]))
    return out


#: Facts that are no request by themselves.
_NO_REQUEST = {"actions", "option_implied", "strict", "link_target_unknown"}


def _asks_for_something(
    facts: Facts, kind: str | None, eligible: list[Scored], not_done: list[tuple[str, str]]
) -> bool:
    """Whether the instruction asks for anything the tools can do: a kind of data, a fact a tool
    takes, a tool's trigger outside the words of an action no tool does, or an action a tool does."""
    if kind is not None or facts.kinds() - _NO_REQUEST:
        return True
    fact = facts.fact("actions")
    actions = (fact.value if fact is not None else ()) or ()
    if len(actions) > len(not_done):
        return True
    spans = [(start, end) for _, start, end in actions]
    for s in eligible:
        for trigger in s.manifest.triggers:
            rx = _rx(trigger)
            for m in rx.finditer(facts.instruction) if rx else ():
                if m.group(0).strip() and not any(a < m.end() and m.start() < b for a, b in spans):
                    return True
    return False


def _resolve_link_target(
    facts: Facts, kind: str | None, registry: Registry, url: str | None
) -> tuple[Facts, list[str]]:
    """A site named as a link target that an installed tool knows ("links to hacker news") is that
    tool's domain; "external links" are those to any host but the page's; a target that names
    nothing matchable is an error, never "every link"."""
    ext = facts.fact("link_external")
    # A links tool that knows the page's own site (its <base> included, or none for a saved file)
    # takes "external" itself; only for one that does not is the URL's host turned into a pattern.
    by_tool = any(
        param_for(m, "link_external")[0]
        for m in registry.tools.values()
        if m.category == "extraction" and "links" in m.produces
    )
    if ext is not None and "link_pattern" not in facts and not by_tool:
        host = urlsplit(url or "").hostname
        if not host or urlsplit(url or "").scheme not in ("http", "https"):
            raise PlanningError(
                f"{ext.text.strip()!r}: which links are external depends on the page's own site, and this "
                'task has no web page to compare with; name a site instead ("links to github")'
            )
        own = re.escape(host.removeprefix("www."))
        port = urlsplit(url or "").port
        own_port = f"(?::{port})" if port else "(?::[0-9]+)?"
        # Any http(s) link whose host is not the page's own (www. ignored) or a subdomain of it.
        pattern = rf"^https?://(?!(?:[^/?#@]*\.)?{own}{own_port}(?:[/?#]|$))"
        facts = Facts(
            facts.instruction, [Fact("link_pattern", pattern, ext.start, ext.text), *facts], facts.lang
        )
    unknown = facts.fact("link_target_unknown")
    if unknown is not None and "link_pattern" not in facts and kind in (None, "links"):
        fact = unknown
        raise PlanningError(
            f"the links asked for ({fact.text.strip()!r}) name no target to match: name a site "
            '("links to github"), a domain ("links to example.com"), a kind of file ("links to PDF files") '
            "or a part of the address in quotes (\"links containing '/product/'\"); "
            '"all links" gives every link'
        )
    site = facts.fact("link_site")
    if site is None:
        return facts, []
    named = named_sites(site.value, registry)
    if not named:
        from .params import known_site_name

        names = facts.get("link_site_names") or [site.value.split()[0]]
        # A word no tool knows as a site, and no well-known site: matched as a site's name all the same
        # (it may be one), but said, so that "links to bananas" never passes for an answer silently.
        return facts, [
            f"{name!r} is no site curllm knows: the links kept are those to a host named {name} (any "
            f'top-level domain, and its subdomains); name the domain ("{name}.com") to be exact'
            for name in names
            if not known_site_name(name) and not named_sites(name, registry)
        ]
    from .params import site_pattern

    given = Fact("link_pattern", site_pattern(named[0]), site.start, site.text)
    return Facts(facts.instruction, [given, *(f for f in facts if f.kind != "link_pattern")], facts.lang), []


def _place_count(
    steps: list[_Step], ext: _Step | None, guards: list[Scored], facts: Facts, out_key: str, used: set[str]
) -> list[_Step]:
    """A count ("the 5 cheapest", "top 10") applies last: after the checks that drop items and after
    the order. It stays with the extraction when nothing follows that would change which items count;
    else it moves to the order step, or to a step of its own (the first tool that orders items and
    takes a count: `validation.order_items`). Returns the new step, if one is added."""
    fact = facts.fact("limit")
    if fact is None:
        return []
    ext_name = param_for(ext.manifest, "limit")[0] if ext is not None else None
    on_ext = ext is not None and ext_name in ext.params
    order = next((st for st in steps if st.group == "order"), None)
    filters = [
        st for st in steps if st.manifest.category == "validation" and st.group not in ("order", "select")
    ]
    if order is None and not filters and (on_ext or ext is None):
        return []
    value = ext.params[ext_name] if ext is not None and on_ext else fact.value
    target: _Step
    added: list[_Step] = []
    if order is not None and param_for(order.manifest, "limit")[0]:
        target = order
    else:
        pick = next(
            (
                g
                for g in guards
                if g.manifest.key not in used
                and param_for(g.manifest, "limit")[0]
                and _complete(g.manifest, _keyed(g.manifest, {}, out_key))
            ),
            None,
        )
        if pick is None:
            return []  # no tool counts after the checks: the count stays where it was
        used.add(pick.manifest.key)
        target = _Step(
            pick.manifest,
            _keyed(pick.manifest, {}, out_key),
            f"keeps the first {out_key}",
            (CATEGORY_ORDER["validation"], GUARD_RANK["order"], 1 << 30, 1),
            group="count",
        )
        added.append(target)
    name = param_for(target.manifest, "limit")[0] or "limit"
    ok, fitted = fit_value(target.manifest, name, value)
    if not ok:
        return []
    target.params[name] = fitted
    after = "the order" if order is not None else "the checks"
    target.reason += f"; {name}={json.dumps(fitted)} from {fact.text.strip()!r}, counted after {after}"
    if ext is not None and on_ext:
        said = f"{ext_name}={json.dumps(value, ensure_ascii=False)} from {fact.text.strip()!r}"
        ext.reason = ext.reason.replace(f"; {said}", "").replace(f", {said}", "")
        del ext.params[ext_name]
    return added


def _extraction_step(
    scored: list[Scored], kind: str | None, kind_words: str, facts: Facts, registry: Registry
) -> tuple[_Step, str]:
    """The extraction step and the data key it gives (the plan's expected output)."""
    cands, kind = _choose_extraction(scored, kind)
    if not cands:
        producers = sorted(
            k for m in registry.tools.values() if m.category == "extraction" for k in m.produces
        )
        raise PlanningError(
            f"no installed extraction tool gives {kind}"
            + (f" (installed tools give: {', '.join(dict.fromkeys(producers))})" if producers else "")
            + "; `curllm tools list` shows what is installed, plugins add more"
        )
    ranked = _takers_first(cands, facts)
    passed_over = (
        [c.manifest.key for c in cands[: cands.index(ranked[0])]] if ranked[0] is not cands[0] else []
    )
    cands = ranked
    for cand in cands:
        m = cand.manifest
        params, why = _fill(m, facts, EXTRACTION_FACTS)
        params, why = _neutral_fill(m, params, why)
        if _complete(m, params):
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
    return _Step(m, params, reason, (CATEGORY_ORDER["extraction"], 0, 0, 0), fallback=fallback), out_key


def _neutral_fill(m: Manifest, params: dict, why: list[str]) -> tuple[dict, list[str]]:
    """A required text parameter the instruction says nothing about gets "" if its schema allows that
    (for a pattern: match everything, e.g. "all links")."""
    props = _props(m)
    for name in m.parameters.get("required") or []:
        if name in params or not isinstance(props.get(name), dict) or props[name].get("type") != "string":
            continue
        ok, value = fit_value(m, name, "")
        if ok:
            params = {**params, name: value}
            why = [*why, f'{name}="" (the instruction names none: everything matches)']
    return params, why


def _action_steps(
    facts: Facts,
    page_tools: list[Scored],
    guards: list[Scored],
    out_key: str,
    ext: _Step | None,
    used: set[str],
) -> list[_Step]:
    """One page step (forms/navigation) and one guard (validation) per kind of action the instruction states."""
    steps: list[_Step] = []
    for group in GROUPS:
        group_facts = _group_facts(facts, group)
        if not group_facts:
            continue
        pos = min(f.start for f in group_facts)
        for pool, groups in ((page_tools, PAGE_GROUPS), (guards, GUARD_GROUPS)):
            if group not in groups:
                continue
            pick = _pick([c for c in pool if c.manifest.key not in used], group)
            if pick is None:
                continue
            m = pick.manifest
            guard = m.category == "validation"
            params, why = _fill(m, facts, GROUPS[group] + (("strict",) if guard else ()))
            if not params and group in PRESENCE:
                params, why = _example_hint(m, group, facts)
            if group in ("fields", "select") and ext is not None:
                params, why = _adapt_fields(m, params, why, ext.manifest, out_key)
            if guard:
                params = _keyed(m, params, out_key)
            if not _complete(m, params) or (not params and group not in PRESENCE):
                continue  # a form with nothing to fill, or a tool missing a required value
            used.add(m.key)
            purpose = _guard_purpose(group, out_key) if guard else PURPOSE[group]
            reason = purpose + (f": {', '.join(why)}" if why else f" ({group_facts[0].text.strip()!r})")
            if pick.site in ("match", "named"):
                reason += f"; made for {', '.join(m.sites)}"
            optional = speedup = False
            if not guard and group in OPTIONAL_GROUPS and any(serves(g.manifest, group) for g in guards):
                optional = True
                reason += "; optional: many pages have no such form, the validation step guarantees the range"
            elif (
                not guard
                and group == "dropdown"
                and "sort_by" in facts
                and any(serves(g.manifest, "order") for g in guards)
            ):
                optional = speedup = True
                reason += (
                    "; optional: sorted on the site, the pages read hold the items first in that order; "
                    "the order step sorts them whatever the page does"
                )
            elif not guard and group == "dropdown" and "option_implied" in facts:
                optional = True
                reason += "; optional: the order is only implied, and many pages have no sort dropdown"
            # A category is opened before the forms on its page are filled (a filter set first would be
            # lost on the way); otherwise forms, navigation, extraction, validation, pagers last.
            rank = -1 if group == "category" and m.category == "navigation" else CATEGORY_ORDER[m.category]
            # Forms in the order a person fills them (search, then filters, then sorting); page
            # navigation in the order the instruction says it.
            then = (list(GROUPS).index(group), pos) if m.category == "forms" else (pos, 0)
            second = GUARD_RANK.get(group, 0) if guard else _is_pager(m)
            steps.append(
                _Step(m, params, reason, (rank, second, *then), optional, group=group, speedup=speedup)
            )
    return steps


def _trigger_steps(
    eligible: list[Scored], guard_keys: set[str], facts: Facts, out_key: str, data_only: bool, used: set[str]
) -> list[_Step]:
    """Tools that no kind of action covers (a URL check, a cookie banner) join on their triggers alone."""
    steps: list[_Step] = []
    for s in eligible:
        m = s.manifest
        groups = GUARD_GROUPS if m.category == "validation" else PAGE_GROUPS
        if m.key in used or m.category == "extraction" or not s.trigger or any(serves(m, g) for g in groups):
            continue
        if (m.category == "validation" and m.key not in guard_keys) or (
            data_only and m.category != "validation"
        ):
            continue
        params = _keyed(m, {}, out_key) if m.category == "validation" else {}
        extra, why = _fill(m, facts, ("strict",) if m.category == "validation" else ())
        params.update(extra)
        if not _complete(m, params):
            continue
        used.add(m.key)
        what = re.split(r"(?<=[a-z])[.:;] ", m.description)[0].rstrip(".")
        what = what if len(what) <= 100 else what[:99] + "…"
        reason = f"{what[:1].lower()}{what[1:]}: its trigger matched {s.trigger!r}"
        steps.append(
            _Step(
                m,
                params,
                reason + (f"; {', '.join(why)}" if why else ""),
                (CATEGORY_ORDER[m.category], _is_pager(m), s.trigger_pos or 0, 0),
            )
        )
    return steps


def _example_facts(m: Manifest) -> list[tuple[dict, frozenset[str], Facts]]:
    """Each example's parameters, word stems and facts (computed once per manifest)."""
    return _memo(
        m,
        "example_facts",
        lambda m: [
            (
                dict(e.get("parameters") or {}),
                _tokens(str(e.get("instruction", ""))),
                extract_facts(str(e.get("instruction", ""))),
            )
            for e in m.examples
        ],
    )


def _example_hint(m: Manifest, group: str, facts: Facts) -> tuple[dict, list[str]]:
    """Values for a group switched on without one ("all pages"), from the example that says the same.

    ``{"instruction": "zbierz produkty ze wszystkich stron", "parameters": {"max_pages": 20}}`` teaches
    that "all pages" means 20 pages for this tool.
    """
    presence = PRESENCE[group]
    names = {param_for(m, k)[0] for k in GROUPS[group]} - {None}
    words = _tokens(facts.instruction)
    best: tuple[float, dict, str] | None = None
    for params, tokens, ex_facts in _example_facts(m):
        if presence not in ex_facts or ex_facts.kinds() & set(GROUPS[group]):
            continue
        hint = {k: v for k, v in params.items() if k in names}
        sim = _dice(words, tokens)
        if hint and (best is None or sim > best[0]):
            best = (sim, hint, ex_facts.instruction)
    if best is None:
        return {}, []
    return best[1], [
        f"{k}={json.dumps(v, ensure_ascii=False)} as in its example {best[2]!r}" for k, v in best[1].items()
    ]


def _example_steps(page_tools: list[Scored], facts: Facts, instruction: str, used: set[str]) -> list[_Step]:
    """A page tool whose example (with no values of its own) the instruction contains, as that example.

    ``{"instruction": "accept the cookies", "parameters": {"text": "Accept all"}}`` makes "accept the
    cookies and find products" click "Accept all" first. Such a step is optional: the page may not need it.
    """
    words = _tokens(instruction)
    steps: list[_Step] = []
    for s in page_tools:
        m = s.manifest
        if m.key in used:
            continue
        for params, tokens, ex_facts in _example_facts(m):
            if (
                ex_facts.kinds()
                or not params
                or len(tokens) < 2
                or not tokens <= words
                or not _complete(m, params)
            ):
                continue
            used.add(m.key)
            # First of all: such steps prepare the page (a cookie banner), before any form is touched.
            steps.append(
                _Step(
                    m,
                    params,
                    f"the instruction contains its example {ex_facts.instruction!r}; optional: "
                    "the page may not need it",
                    (-2, 0, 0, 0),
                    optional=True,
                )
            )
            break
    return steps


def _example_checks(guards: list[Scored], instruction: str, out_key: str, used: set[str]) -> list[_Step]:
    """A validation tool whose example (with no values of its own) the instruction contains, with that
    example's parameters: a plugin's ``{"instruction": "only products in stock", "parameters":
    {"field": "availability"}}`` is planned for "only products in stock under 100 zł", as a built-in
    check is for the words it understands."""
    words = _tokens(instruction)
    steps: list[_Step] = []
    for s in guards:
        m = s.manifest
        if m.key in used:
            continue
        for params, tokens, ex_facts in _example_facts(m):
            keyed = _keyed(m, dict(params), out_key)
            if (
                ex_facts.kinds()
                or not params
                or len(tokens) < 2
                or not tokens <= words
                or not _complete(m, keyed)
            ):
                continue
            used.add(m.key)
            steps.append(
                _Step(
                    m,
                    keyed,
                    f"the instruction contains its example {ex_facts.instruction!r}",
                    (CATEGORY_ORDER["validation"], 0, 0, 0),
                )
            )
            break
    return steps


def _adapt_fields(
    m: Manifest, params: dict, why: list[str], ext: Manifest, out_key: str
) -> tuple[dict, list[str]]:
    """Fields named as the extraction names them ("name" of a story is its "title", "points" of a
    Reddit post its "score": `item_fields`); a field its items do not declare stays as said."""
    from ..item_fields import key_in_schema

    name = next((n for n in ("fields", "select", "columns") if isinstance(params.get(n), list)), None)
    schema = (ext.output_schema.get("properties") or {}).get(out_key) or {}
    item_props = ((schema.get("items") or {}).get("properties") or {}) if isinstance(schema, dict) else {}
    if name is None or not item_props:
        return params, why
    fields = []
    for f in params[name]:
        f = key_in_schema(item_props, f) or f
        if f not in fields:
            fields.append(f)
    if fields == params[name]:
        return params, why
    return {**params, name: fields}, [*why, f"as {ext.key} names them: {', '.join(fields)}"]


def _keyed(m: Manifest, params: dict, out_key: str) -> dict:
    """A validation tool works on the extraction's output: its ``data_key`` parameter says which."""
    name = m.parameter_for("data_key")
    prop = _props(m).get(name) if name else None
    if name and isinstance(prop, dict) and prop.get("default") != out_key:
        return {**params, name: out_key}
    return params


def _guard_purpose(group: str, out_key: str) -> str:
    if group == "order":
        return f"puts the {out_key} in order"
    if group == "select":
        return f"keeps only the fields of the {out_key} that were asked for"
    if group == "price":
        return (
            f"drops {out_key} priced outside the range, so the answer holds even when the page "
            "ignores its price filter"
        )
    return PURPOSE.get(group, "checks the items").replace("items", out_key)


def _is_pager(m: Manifest) -> int:
    """Pagers (tools that run an extraction per page) go last among the page steps."""
    return 1 if m.parameter_for("tool") else 0


def _pager_for_filtered_listing(
    steps: list[_Step], page_tools: list[Scored], ext: _Step | None, used: set[str]
) -> list[_Step]:
    """A listing bounded or ordered by price is read to its end: the items asked for (in the range,
    the cheapest) rarely all sit on page one.

    Added only with an extraction, a price form step or an order by price, and no pager yet; the
    extraction is the pager's fallback, so a page without next links still gives its own items. A
    count ("top 10") then counts over all pages: it moves from the extraction to the pager, or, when
    the pager takes no count, no pager is added (the first page is read). A listing longer than the
    pager reads says so in the result's warnings.
    """
    if ext is None or any(_is_pager(st.manifest) for st in steps):
        return []
    by_price = any(serves(st.manifest, "price") for st in steps if st.manifest.category == "forms") or any(
        st.group == "order" and "price" in st.params.values() for st in steps
    )
    if not by_price:
        return []
    pager = _pick([c for c in page_tools if _is_pager(c.manifest) and c.manifest.key not in used], "pages")
    if pager is None:
        return []
    params: dict = {}
    if "limit" in ext.params:
        if "limit" not in _props(pager.manifest):
            return []
        params["limit"] = ext.params.pop("limit")
    used.add(pager.manifest.key)
    what = f"the first {params['limit']} items" if params else "all the items"
    reason = (
        f"{PURPOSE['pages']}: {what} in the price range or by price are asked for, and a "
        f"listing rarely fits on one page; {ext.manifest.key} takes over if it fails"
    )
    return [
        _Step(
            pager.manifest, params, reason, (CATEGORY_ORDER["navigation"], 1, 0, 0), fallback=ext.manifest.key
        )
    ]


def _fold_into_pager(steps: list[_Step], ext: _Step | None) -> list[_Step]:
    """Put the extraction after the page steps; a pager with ``extract`` runs it on every page instead."""
    if ext is None:
        return steps
    pager = next(
        (st for st in steps if st.manifest.category == "navigation" and _is_pager(st.manifest)), None
    )
    if pager is None:
        return sorted([*steps, ext], key=lambda st: (st.order, st.manifest.key))
    tool, tool_params = (pager.manifest.parameter_for(r) for r in ("tool", "tool_parameters"))
    assert tool is not None  # a pager (`_is_pager`)
    pager.params = {**pager.params, tool: ext.manifest.key}
    if tool_params and ext.params:
        pager.params[tool_params] = dict(ext.params)
    pager.reason += f"; runs {ext.manifest.key} on every page ({ext.reason})"
    return steps


def _doc_step(st: _Step) -> dict:
    doc: dict[str, Any] = {"tool": st.manifest.key, "parameters": st.params, "description": st.reason}
    if st.optional:
        doc["optional"] = True
    if st.fallback:
        doc["fallback"] = st.fallback
    return doc


def _check(doc: dict, registry: Registry, initial_keys: set[str] | frozenset) -> Plan:
    """Check the built plan; a step the checker rejects is dropped (the extraction never is)."""
    doc = normalise_plan(doc, registry)  # the problems then point at the steps dropped below
    for _ in range(len(doc["plan"]) + 1):
        try:
            return check_plan(doc, registry, initial_keys=initial_keys)
        except PlanError as e:
            bad = {p.step for p in e.problems if p.step is not None}
            keep = [
                s
                for i, s in enumerate(doc["plan"])
                if i not in bad or "map" in s or registry.resolve(s["tool"]).category == "extraction"
            ]
            if not bad or len(keep) == len(doc["plan"]) or not keep:
                raise PlanningError(
                    "the rule planner made a plan the checker rejects (a manifest may be inconsistent)",
                    problems=e.problems,
                ) from None
            doc = {**doc, "plan": keep}
    raise PlanningError("the rule planner could not make a valid plan")
