"""Fitting facts to parameters: which parameter of a manifest takes a kind of fact (`param_for`:
learned from its examples, else by name), and a value written so that it validates (`fit_value`).

Only parameters a manifest declares are set, and only values that validate against its schema.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..manifest import Manifest
from ..plan import fill_defaults
from .facts import Facts, extract_facts
from .memo import memo, properties_of
from .steps import GROUPS

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
    "link_images": ("images",),
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


def learned_aliases(m: Manifest) -> dict[str, str]:
    """Fact kind -> parameter name, taught by the manifest's examples.

    For ``{"instruction": "stories with more than 50 points", "parameters": {"threshold": 51}}`` the
    fact ``min_points=51`` and the parameter ``threshold=51`` agree, so ``min_points`` goes to
    ``threshold`` for this tool. This lets a plugin name its parameters as it likes.
    """

    def compute(m: Manifest) -> dict[str, str]:
        out: dict[str, str] = {}
        props = properties_of(m)
        for example in m.examples:
            facts = extract_facts(str(example.get("instruction", "")))
            for name, value in (example.get("parameters") or {}).items():
                if name not in props:
                    continue
                for fact in facts:
                    if _same(fact.value, value):
                        out.setdefault(fact.kind, name)
        return out

    return memo(m, "aliases", compute)


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
    props = properties_of(m)
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

    return memo(m, "validator", compute)


def fit_value(m: Manifest, name: str, value: Any) -> tuple[bool, Any]:
    """``value`` (or a close variant of it) if it validates as parameter ``name`` of ``m``."""
    validator = _validator(m)
    prop = properties_of(m).get(name) or {}
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


def fill(
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


def complete(m: Manifest, params: dict) -> bool:
    """Whether the parameters (defaults filled in) validate: nothing required is missing."""
    from ..plan import parameter_problems

    return not parameter_problems(m, fill_defaults(m.parameters, params), [])


def neutral_fill(m: Manifest, params: dict, why: list[str]) -> tuple[dict, list[str]]:
    """A required text parameter the instruction says nothing about gets "" if its schema allows that
    (for a pattern: match everything, e.g. "all links")."""
    props = properties_of(m)
    for name in m.parameters.get("required") or []:
        if name in params or not isinstance(props.get(name), dict) or props[name].get("type") != "string":
            continue
        ok, value = fit_value(m, name, "")
        if ok:
            params = {**params, name: value}
            why = [*why, f'{name}="" (the instruction names none: everything matches)']
    return params, why


def adapt_fields(
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


def with_data_key(m: Manifest, params: dict, out_key: str) -> dict:
    """A validation tool works on the extraction's output: its ``data_key`` parameter says which."""
    name = m.parameter_for("data_key")
    prop = properties_of(m).get(name) if name else None
    if name and isinstance(prop, dict) and prop.get("default") != out_key:
        return {**params, name: out_key}
    return params
