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
from typing import Any
from urllib.parse import urlsplit

from ..errors import PlanError, PlanningError, UsageError
from ..item_fields import WORDS as FIELD_WORDS
from ..manifest import CATEGORY_ORDER, Category, Manifest
from ..plan import Plan, check_plan, normalise_plan
from ..registry import Registry
from ..text import fold
from .accounting import accounted
from .base import Planned
from .each import with_map
from .examples import example_checks, example_hint, example_steps
from .extraction import extraction_step
from .facts import Fact, Facts, extract_facts, known_site_name, site_pattern
from .fitting import adapt_fields, complete, fill, fit_value, param_for, serves, with_data_key
from .ledger import ALL_FUNCTION_WORDS, fact_spans, is_name_like, leftover, phrases, tokens
from .memo import properties_of, trigger_rx
from .named_sites import named_sites
from .operations import answer_key, operation_steps
from .scoring import Scored, pick_tool, score_tools
from .spelling import correct, known, respell, split_compound
from .steps import (
    GROUPS,
    GUARD_GROUPS,
    GUARD_RANK,
    OPTIONAL_GROUPS,
    PAGE_GROUPS,
    PRESENCE,
    PURPOSE,
    Draft,
    doc_step,
    facts_of_group,
    is_pager,
)
from .wanted import KIND_WORDS, RECORD_NOUNS, kind_by_fields, refused_or_format, wanted_kind

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
    read, corrected = _read_facts(instruction, registry)
    facts = _with_options(read, fields, limit)
    text = facts.instruction  # white space folded and respelled, as every pass reads it
    scored = score_tools(text, url, registry, facts)
    eligible = [s for s in scored if s.eligible]
    kind, kind_words = wanted_kind(text, facts, registry)
    not_done = unsupported_actions(facts, eligible)
    objects = _object_of_action(text, kind_words, facts, not_done) if kind is not None else []
    if objects:
        # "reserve a table for four": the table is what to reserve, not data to read.
        kind, kind_words = None, ""
    if kind is None:
        kind, kind_words = kind_by_fields(facts, registry)
    refused = list(facts.get("refused") or ())
    facts, name_words = _with_name_words(facts, registry, [s.manifest for s in eligible if s.trigger])
    if not _asks_for_something(facts, kind, eligible, not_done, objects):
        unknown = phrases(text, leftover(text, *accounted(facts, registry, [])))
        said = f"; not understood: {_quoted(unknown)}" if unknown else ""
        said += "".join(f"; read {typed!r} as {meant!r}" for typed, meant in corrected)
        if refused or not_done:
            parts = [why if said in why else f"{why} ({said!r})" for said, why in refused] + (
                [f"{_names(not_done)}: no installed tool does that"] if not_done else []
            )
            raise PlanningError(
                f"nothing the instruction asks for can be done: {'; '.join(parts)}{said} (curllm reads "
                "pages: say what to get, e.g. the cheapest products, links to PDF files)"
            )
        raise PlanningError(
            f"the instruction names nothing to get from the page{said}: say what to get (products, articles, "
            'links, tables, ...) or what to do, e.g. "the 5 cheapest products" or "links to PDF files"'
        )
    facts, link_warnings = _resolve_link_target(facts, kind, registry, url)

    # The extraction, unless the data to work on was given and there is no page to read.
    data_only = not url and bool(initial_keys)
    ext: Draft | None = None
    out_key: str
    if data_only:
        out_key = kind if kind is not None and kind in initial_keys else sorted(initial_keys)[0]
    else:
        ext, out_key = extraction_step(scored, kind, kind_words, facts, registry)

    facts = _scores_as_bounds(facts, ext)
    guards = [
        s
        for s in eligible
        if s.manifest.category == Category.VALIDATION
        and (out_key in s.manifest.consumes or s.manifest.parameter_for("data_key") is not None)
    ]
    page_tools = (
        []
        if data_only
        else [s for s in eligible if s.manifest.category in (Category.FORMS, Category.NAVIGATION)]
    )
    used: set[str] = set()
    steps = _action_steps(facts, page_tools, guards, out_key, ext, used)
    steps += _trigger_steps(eligible, {g.manifest.key for g in guards}, facts, out_key, data_only, used)
    steps += example_steps(page_tools, facts, text, used)
    by_example = example_checks(guards, facts, out_key, used)
    steps += by_example
    # The operations on items, unless a tool's example (a plugin's) already does them.
    taken_ops = {kind for st in by_example for kind in (st.group or "").split(",") if kind}
    checks = [s for s in eligible if s.manifest.category == Category.VALIDATION]
    op_steps, op_missing = operation_steps(facts, checks, out_key, skip=taken_ops)
    used.update(st.manifest.key for st in op_steps)
    steps += op_steps
    steps += _place_count(steps, ext, guards, facts, out_key, used)
    steps += _pager_for_filtered_listing(steps, page_tools, ext, used, whole=wants_whole_listing(text))
    if not any(is_pager(st.manifest) for st in steps):
        # On one page the order step alone is exact; the page's own sort control would only risk
        # the page (a saved page's form leads nowhere) for nothing.
        steps = [st for st in steps if not st.speedup]
    steps.sort(key=lambda st: (st.order, st.manifest.key))
    steps = _fold_into_pager(steps, ext)
    if not steps:
        raise PlanningError("nothing to do: the instruction names no data to get and no check to run")
    answer = answer_key(steps, out_key)
    if answer != out_key:  # the answer is a number about the items: no choice of their fields
        steps = [st for st in steps if st.group != "select"]
    doc: dict[str, Any] = {
        "plan": [doc_step(st) for st in steps],
        "expected_output": answer,
        "instruction": instruction,
        "url": url,
        "planner": "rules",
    }
    if "format" in facts:
        doc["format"] = facts.get("format")
    warnings = [f"read {typed!r} as {meant!r}" for typed, meant in corrected] + list(link_warnings)
    if not_done:
        warnings.append(
            f"not done: {_names(not_done)} (no installed tool does that); the plan only gets the {out_key}"
        )
    warnings += [f"not done: {why} ({said!r})" for said, why in refused]
    dropped = facts.fact("order_dropped")
    if dropped is not None:
        warnings.append(
            f"not done: {dropped.text!r} (one list has one order: the plan gives {dropped.value!r})"
        )
    warnings += [f"{word!r} is read as a word the {out_key}' names contain" for word in name_words]
    warnings += [f"not done: {said!r} (no installed tool does that)" for said in op_missing]
    planned = [st.manifest for st in steps] + ([ext.manifest] if ext is not None else [])
    unknown = phrases(text, leftover(text, *accounted(facts, registry, planned)))
    if unknown:
        warnings.append(f"not understood: {_quoted(unknown)} (the plan does not use these words)")
    if warnings:
        doc["warnings"] = warnings
    if not data_only and answer == out_key:
        doc = with_map(doc, text, registry, out_key)  # "for each product ...": each on its own page
    plan = _check(doc, registry, initial_keys)
    return Planned(plan, [f"{s.tool}: {s.description}" for s in plan.steps], "rules")


def _read_facts(instruction: str, registry: Registry) -> tuple[Facts, list[tuple[str, str]]]:
    """The facts of the instruction as the vocabulary spells it (`spelling`): a word the ledger left
    over, typed without its umlauts or accents or as a small typo of a vocabulary word, is respelled
    and the facts are read again. Also the typos corrected, ``(typed, read as)``, for the plan's
    warnings (a respelled umlaut or accent is the same word, not a correction)."""
    facts = extract_facts(instruction)
    text = facts.instruction
    # A compound of links written as one word is read as its parts, whatever else reads it.
    fixes = [(a, b, parts, False) for a, b, w in tokens(text) if (parts := split_compound(w))]
    compounds = {a for a, _, _, _ in fixes}
    for start, end, word in leftover(text, *accounted(facts, registry, [])):
        if start in compounds:
            continue
        fixed, typo = respell(word), False
        # A capitalised word inside the sentence may be a brand ("Offero"): no typo of ours.
        if (
            fixed is None
            and (start == 0 or word.islower())
            and not is_name_like(word, start, text, facts.lang)
        ):
            fixed, typo = correct(word), True
        if fixed is not None:
            fixes.append((start, end, fixed, typo))
    fixes.sort()
    if not fixes:
        return facts, []
    fixed_text, placed = _respelled(text, fixes)
    read = extract_facts(fixed_text)
    # A correction stands only when the word it gives is read (a fact's or a kind's word): one that
    # gives a word nothing reads ("positiven" as "position") is no correction; the word is quoted.
    used = fact_spans(read)[0] + [
        (x.start(), x.end())
        for rx in [*KIND_WORDS.values(), RECORD_NOUNS]
        for x in re.finditer(rx, fixed_text, re.I)
    ]
    idle = {i for i, (a, b) in enumerate(placed) if fixes[i][3] and not any(s < b and a < e for s, e in used)}
    if idle:
        fixes = [f for i, f in enumerate(fixes) if i not in idle]
        if not fixes:
            return facts, []
        read = extract_facts(_respelled(text, fixes)[0])
    return read, [(text[a:b], fixed) for a, b, fixed, typo in fixes if typo]


def _respelled(text: str, fixes: list[tuple[int, int, str, bool]]) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with each ``(start, end, word, _)`` of ``fixes`` (in order) written in, and where each
    new word stands in the new text."""
    parts: list[str] = []
    placed: list[tuple[int, int]] = []
    at = length = 0
    for start, end, word, _ in fixes:
        parts.append(text[at:start])
        length += start - at
        placed.append((length, length + len(word)))
        parts.append(word)
        length += len(word)
        at = end
    parts.append(text[at:])
    return "".join(parts), placed


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
            if m.category == Category.VALIDATION and m.parameter_for("data_key") and param_for(m, kind)[0]
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
            {
                "tool": m.key,
                "parameters": with_data_key(m, {name: fitted}, key),
                "description": f"{what} (given)",
            }
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
    kinds = [trigger_rx(rx) for rx in KIND_WORDS.values()] + [
        trigger_rx(rf"(?:{rx})\w*") for rx in FIELD_WORDS.values()
    ]
    out = []
    for name, start, end in fact.value:
        done = False
        # The words that say the action: its first and last word ("add ... to my cart"); the words
        # between name what to act on ("the cheapest cat food"), which reading tools match too.
        said = text[start:end].split()
        first = (start, start + len(said[0])) if said else (start, end)
        last = (end - len(said[-1]), end) if said else (start, end)
        if len(said) > 1 and fold(said[-1]) in ALL_FUNCTION_WORDS:
            last = first  # "vote for": a preposition says no action, whatever trigger has it
        for s in eligible:
            for trigger in s.manifest.triggers:
                rx = trigger_rx(trigger)
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
_NO_REQUEST = {
    "actions",
    "option_implied",
    "strict",
    "link_target_unknown",
    "refused",
    "format",
    "order_dropped",
}


def _asks_for_something(
    facts: Facts,
    kind: str | None,
    eligible: list[Scored],
    not_done: list[tuple[str, str]],
    objects: list[tuple[int, int]] = [],  # noqa: B006 (never changed)
) -> bool:
    """Whether the instruction asks for anything the tools can do: a kind of data, a fact a tool
    takes, a tool's trigger outside the words of an action no tool does, or an action a tool does."""
    if kind is not None or facts.kinds() - _NO_REQUEST:
        return True
    fact = facts.fact("actions")
    actions = (fact.value if fact is not None else ()) or ()
    if len(actions) > len(not_done):
        return True
    # The words of an action no tool does, of an object of one, or of something refused ("jako pdf")
    # are no request, whatever trigger they match.
    spans = (
        [(start, end) for _, start, end in actions] + list(objects) + refused_or_format(facts, formats=False)
    )
    for s in eligible:
        for trigger in s.manifest.triggers:
            rx = trigger_rx(trigger)
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
        if m.category == Category.EXTRACTION and "links" in m.produces
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
    if kind not in (None, "links"):
        return _items_linking_to(facts, kind, site, named, registry)
    if not named:
        names = facts.get("link_site_names") or [site.value.split()[0]]
        # A word no tool knows as a site, and no well-known site: matched as a site's name all the same
        # (it may be one), but said, so that "links to bananas" never passes for an answer silently.
        return facts, [
            f"{name!r} is no site curllm knows: the links kept are those to a host named {name} (any "
            f'top-level domain, and its subdomains); name the domain ("{name}.com") to be exact'
            for name in names
            if not known_site_name(name) and not named_sites(name, registry)
        ]
    given = Fact("link_pattern", site_pattern(named[0]), site.start, site.text)
    return Facts(facts.instruction, [given, *(f for f in facts if f.kind != "link_pattern")], facts.lang), []


def _items_linking_to(
    facts: Facts, kind: str, site: Fact, named: list[str], registry: Registry
) -> tuple[Facts, list[str]]:
    """Items (stories, products) that link to a site ("stories linking to bananas"): a filter on the
    host of each item's link (`op_text` with ``domain``), never the plain listing; a name no tool
    and no well-known site is matched as a host of that name, and said so."""
    names = named[:1] or facts.get("link_site_names") or [site.value.split()[0]]
    wanted = Fact(
        "op_text", ({"domain": names[0] if len(names) == 1 else list(names)},), site.start, site.text
    )
    old = facts.fact("op_text")
    if old is not None:  # as `_with_name_words` joins them: both read, the words of both used
        wanted = Fact(
            "op_text", (*old.value, *wanted.value), min(old.start, site.start), f"{old.text} / {site.text}"
        )
    kept = [f for f in facts if not f.kind.startswith("link_") and f.kind != "op_text"]
    facts = Facts(facts.instruction, [wanted, *kept], facts.lang)
    return facts, [
        f"{name!r} is no site curllm knows: the {kind} kept are those linking to a host named {name} "
        f'(any top-level domain, and its subdomains); name the domain ("{name}.com") to be exact'
        for name in names
        if not named and not known_site_name(name) and not named_sites(name, registry)
    ]


def _place_count(
    steps: list[Draft], ext: Draft | None, guards: list[Scored], facts: Facts, out_key: str, used: set[str]
) -> list[Draft]:
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
        st
        for st in steps
        if st.manifest.category == Category.VALIDATION and st.group not in ("order", "select")
    ]
    if order is None and not filters and (on_ext or ext is None):
        return []
    value = ext.params[ext_name] if ext is not None and on_ext else fact.value
    target: Draft
    added: list[Draft] = []
    if order is not None and param_for(order.manifest, "limit")[0]:
        target = order
    else:
        pick = next(
            (
                g
                for g in guards
                if g.manifest.key not in used
                and param_for(g.manifest, "limit")[0]
                and complete(g.manifest, with_data_key(g.manifest, {}, out_key))
            ),
            None,
        )
        if pick is None:
            return []  # no tool counts after the checks: the count stays where it was
        used.add(pick.manifest.key)
        target = Draft(
            pick.manifest,
            with_data_key(pick.manifest, {}, out_key),
            f"keeps the first {out_key}",
            (CATEGORY_ORDER[Category.VALIDATION], GUARD_RANK["order"], 1 << 30, 1),
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


def _action_steps(
    facts: Facts,
    page_tools: list[Scored],
    guards: list[Scored],
    out_key: str,
    ext: Draft | None,
    used: set[str],
) -> list[Draft]:
    """One page step (forms/navigation) and one guard (validation) per kind of action the instruction states."""
    steps: list[Draft] = []
    for group in GROUPS:
        group_facts = facts_of_group(facts, group)
        if not group_facts:
            continue
        pos = min(f.start for f in group_facts)
        for pool, groups in ((page_tools, PAGE_GROUPS), (guards, GUARD_GROUPS)):
            if group not in groups:
                continue
            pick = pick_tool([c for c in pool if c.manifest.key not in used], group)
            if pick is None:
                continue
            m = pick.manifest
            guard = m.category == Category.VALIDATION
            params, why = fill(m, facts, GROUPS[group] + (("strict",) if guard else ()))
            if not params and group in PRESENCE:
                params, why = example_hint(m, group, facts)
            if group in ("fields", "select") and ext is not None:
                params, why = adapt_fields(m, params, why, ext.manifest, out_key)
            if guard:
                params = with_data_key(m, params, out_key)
            if not complete(m, params) or (not params and group not in PRESENCE):
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
            rank = (
                -1
                if group == "category" and m.category == Category.NAVIGATION
                else CATEGORY_ORDER[m.category]
            )
            # Forms in the order a person fills them (search, then filters, then sorting); page
            # navigation in the order the instruction says it.
            then = (list(GROUPS).index(group), pos) if m.category == Category.FORMS else (pos, 0)
            second = GUARD_RANK.get(group, 0) if guard else is_pager(m)
            steps.append(
                Draft(m, params, reason, (rank, second, *then), optional, group=group, speedup=speedup)
            )
    return steps


def _trigger_steps(
    eligible: list[Scored], guard_keys: set[str], facts: Facts, out_key: str, data_only: bool, used: set[str]
) -> list[Draft]:
    """Tools that no kind of action covers (a URL check, a cookie banner) join on their triggers alone."""
    steps: list[Draft] = []
    for s in eligible:
        m = s.manifest
        groups = GUARD_GROUPS if m.category == Category.VALIDATION else PAGE_GROUPS
        if (
            m.key in used
            or m.category == Category.EXTRACTION
            or not s.trigger
            or any(serves(m, g) for g in groups)
        ):
            continue
        if (m.category == Category.VALIDATION and m.key not in guard_keys) or (
            data_only and m.category != Category.VALIDATION
        ):
            continue
        params = with_data_key(m, {}, out_key) if m.category == Category.VALIDATION else {}
        extra, why = fill(m, facts, ("strict",) if m.category == Category.VALIDATION else ())
        params.update(extra)
        if not complete(m, params):
            continue
        used.add(m.key)
        what = re.split(r"(?<=[a-z])[.:;] ", m.description)[0].rstrip(".")
        what = what if len(what) <= 100 else what[:99] + "…"
        reason = f"{what[:1].lower()}{what[1:]}: its trigger matched {s.trigger!r}"
        steps.append(
            Draft(
                m,
                params,
                reason + (f"; {', '.join(why)}" if why else ""),
                (CATEGORY_ORDER[m.category], is_pager(m), s.trigger_pos or 0, 0),
            )
        )
    return steps


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


#: "All the products", "wszystkie produkty", "alle Angebote": the whole listing is asked for.
_WHOLE_LISTING = re.compile(
    r"\b(?:all|wszystki\w*|alle[nrs]?|samtliche\w*)\s+(?:(?:the|of the|these|die|der|den)\s+)?"
    r"(?:\w+\s+)?(?:products?|items?|offers?|results?|listings?|deals?|produkt\w*|ofert\w*|wynik\w*|"
    r"przedmiot\w*|towar\w*|artikel\w*|angebot\w*|ergebnis\w*)\b"
)


def wants_whole_listing(text: str) -> bool:
    """Whether the instruction asks for every item of a listing ("all products", "alle Produkte")."""
    return _WHOLE_LISTING.search(fold(text)) is not None


def _pager_for_filtered_listing(
    steps: list[Draft], page_tools: list[Scored], ext: Draft | None, used: set[str], *, whole: bool = False
) -> list[Draft]:
    """A listing bounded or ordered by price is read to its end: the items asked for (in the range,
    the cheapest) rarely all sit on page one. So is a listing asked for whole ("all products"), unless
    the instruction says itself how to get more (a scroll, a click): the pager reads it by the page's
    own mechanism (next links, load more, scrolling).

    Added only with an extraction, a price form step or an order by price, and no pager yet; the
    extraction is the pager's fallback, so a page without next links still gives its own items. A
    count ("top 10") then counts over all pages: it moves from the extraction to the pager, or, when
    the pager takes no count, no pager is added (the first page is read). A listing longer than the
    pager reads says so in the result's warnings.
    """
    if ext is None or any(is_pager(st.manifest) for st in steps):
        return []
    by_price = any(
        serves(st.manifest, "price") for st in steps if st.manifest.category == Category.FORMS
    ) or any(st.group == "order" and "price" in st.params.values() for st in steps)
    # (products: a listing of articles or search results has its own pagers' words, "all pages")
    whole = (
        whole
        and "products" in ext.manifest.produces
        and not any(st.manifest.category == Category.NAVIGATION for st in steps)
    )
    if not (by_price or whole):
        return []
    pager = pick_tool([c for c in page_tools if is_pager(c.manifest) and c.manifest.key not in used], "pages")
    if pager is None:
        return []
    params: dict = {}
    if "limit" in ext.params:
        if "limit" not in properties_of(pager.manifest):
            return []
        params["limit"] = ext.params.pop("limit")
    used.add(pager.manifest.key)
    what = f"the first {params['limit']} items" if params else "all the items"
    asked = "in the price range or by price" if by_price else "of the listing"
    reason = (
        f"{PURPOSE['pages']}: {what} {asked} are asked for, and a "
        f"listing rarely fits on one page; {ext.manifest.key} takes over if it fails"
    )
    return [
        Draft(
            pager.manifest,
            params,
            reason,
            (CATEGORY_ORDER[Category.NAVIGATION], 1, 0, 0),
            fallback=ext.manifest.key,
        )
    ]


def _fold_into_pager(steps: list[Draft], ext: Draft | None) -> list[Draft]:
    """Put the extraction after the page steps; a pager with ``extract`` runs it on every page instead."""
    if ext is None:
        return steps
    pager = next(
        (st for st in steps if st.manifest.category == Category.NAVIGATION and is_pager(st.manifest)), None
    )
    if pager is None:
        return sorted([*steps, ext], key=lambda st: (st.order, st.manifest.key))
    tool, tool_params = (pager.manifest.parameter_for(r) for r in ("tool", "tool_parameters"))
    assert tool is not None  # a pager (`is_pager`)
    pager.params = {**pager.params, tool: ext.manifest.key}
    if tool_params and ext.params:
        pager.params[tool_params] = dict(ext.params)
    pager.reason += f"; runs {ext.manifest.key} on every page ({ext.reason})"
    return steps


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
                if i not in bad or "map" in s or registry.resolve(s["tool"]).category == Category.EXTRACTION
            ]
            if not bad or len(keep) == len(doc["plan"]) or not keep:
                raise PlanningError(
                    "the rule planner made a plan the checker rejects (a manifest may be inconsistent)",
                    problems=e.problems,
                ) from None
            doc = {**doc, "plan": keep}
    raise PlanningError("the rule planner could not make a valid plan")


def _quoted(found: list[str]) -> str:
    """Phrases quoted for a message (a long one cut, at most 8, with how many more)."""
    shown = [repr(f if len(f) <= 60 else f[:59] + "…") for f in found[:8]]
    more = f" and {len(found) - 8} more" if len(found) > 8 else ""
    return ", ".join(shown) + more


def _object_of_action(
    text: str, kind_words: str, facts: Facts, not_done: list[tuple[str, str]]
) -> list[tuple[int, int]]:
    """Where the words naming the kind are the object of an action no tool does ("reserve a table
    for four", "book a table") when no other word names what to read; else nothing."""
    fact = facts.fact("actions")
    if fact is None or not not_done or not kind_words:
        return []
    undone = {name for name, _ in not_done}
    for name, _, end in fact.value:
        if name not in undone:
            continue
        after = text[end:]
        m = re.match(r"\s*(?:(?:a|an|the|my|our|one|two|some|ein\w*|den|die|das|mi|moj\w*)\s+)*", after, re.I)
        start = end + (m.end() if m else 0)
        if (
            text[start : start + len(kind_words)].lower() == kind_words.lower()
            or text.lower().find(kind_words.lower(), end - len(kind_words), end) >= 0
        ):
            if not any(x.start() != start for x in re.finditer(re.escape(kind_words), text, re.I)):
                return [(start, start + len(kind_words))]
    return []


def _scores_as_bounds(facts: Facts, ext: Draft | None) -> Facts:
    """A least number of points or comments ("more than 100 points") the extraction does not take
    itself (a products tool, given data) as a bound on that field (``op_number``): never dropped."""
    bounds = []
    for kind in ("min_points", "min_comments"):
        fact = facts.fact(kind)
        name = param_for(ext.manifest, kind)[0] if ext is not None else None
        if fact is None or (ext is not None and name is not None and name in ext.params):
            continue
        bounds.append((fact, {"field": kind.removeprefix("min_"), "at_least": fact.value}))
    if not bounds:
        return facts
    old = facts.fact("op_number")
    value = (*(old.value if old is not None else ()), *(b for _, b in bounds))
    texts = ([old.text] if old is not None else []) + [f.text for f, _ in bounds]
    start = min([f.start for f, _ in bounds] + ([old.start] if old is not None else []))
    fact = Fact("op_number", value, start, " / ".join(texts))
    return Facts(facts.instruction, [fact, *(f for f in facts if f.kind != "op_number")], facts.lang)


_MAKER = re.compile(
    r"\s+(?:from|made\s+by|of\s+the\s+brand|od|firmy|marki|producenta|von|der\s+marke|vom\s+hersteller)\s+",
    re.I,
)


def _with_name_words(facts: Facts, registry: Registry, triggered: list[Manifest]) -> tuple[Facts, list[str]]:
    """A brand or model beside the listing's noun ("Philips kettles", "wiertarki Bosch", "Bosch-Bohrer",
    "RTX 4090 cards") as a word the items' names must contain (an ``op_text`` fact). A word a tool's
    trigger matched ("Smart products" for a tool that keeps Smart offers) is that tool's, not a name."""
    text = facts.instruction
    # A triggered tool's trigger words are its own; the words of its examples are not (an example's
    # "RTX 4070" names no brand of this instruction).
    spans, words = accounted(facts, registry, [])
    for m in triggered:
        for trigger in m.triggers:
            rx = trigger_rx(trigger)
            spans += [(x.start(), x.end()) for x in rx.finditer(text)] if rx else []
    rest = leftover(text, spans, words)
    if not rest:
        return facts, []
    kinds = [(x.start(), x.end()) for rx in KIND_WORDS.values() for x in re.finditer(rx, text, re.I)]
    starts = {a for a, _ in kinds} | {a for a, _, _ in rest}
    ends = {b for _, b in kinds} | {b for _, b, _ in rest}
    # "products from Felix", "produkty od Imagex", "Produkte von Felix", "produkty marki Bosch": the
    # maker named after the noun (a capitalised word nothing else reads, German nouns included), also
    # after a noun the planner has no word for ("das billigste Mainboard von MSI").
    makers = {
        x.end()
        for b in [*(b for _, b in kinds), *(b for _, b, _ in rest)]
        if (x := _MAKER.match(text, b)) and not text[b : b + 1].isalnum()
    }
    found: list[tuple[int, int, str]] = []
    for start, end, word in rest:
        if word.isdigit() and found and 0 < start - found[-1][1] <= 1:
            found.append((start, end, word))  # "RTX 4070", "iPhone 15": a model number after its name
            continue
        parts = word.split("-")
        if len(parts) == 2 and parts[0][:1].isupper() and parts[1][:1].isupper():
            found.append((start, start + len(parts[0]), parts[0]))  # "Bosch-Bohrer"
            continue
        if start in makers and word[:1].isupper() and not known(word):
            found.append((start, end, word))
            continue
        if not is_name_like(word, start, text, facts.lang):
            continue
        near = any(end + d in starts for d in range(3)) or any(start - d in ends for d in range(3))
        if near:
            found.append((start, end, word))
    if not found:
        return facts, []
    joined: list[tuple[int, int, str]] = []
    for start, end, word in found:  # "RTX 4090" is one name
        if joined and start - joined[-1][1] <= 1:
            joined[-1] = (joined[-1][0], end, text[joined[-1][0] : end])
        else:
            joined.append((start, end, word))
    extra = [
        Fact(
            "op_text",
            tuple({"field": "name", "word": w} for _, _, w in joined),
            joined[0][0],
            " / ".join(w for _, _, w in joined),
        )
    ]
    old = facts.fact("op_text")
    if old is not None:
        extra = [
            Fact(
                "op_text",
                (*old.value, *extra[0].value),
                min(old.start, extra[0].start),
                f"{old.text} / {extra[0].text}",
            )
        ]
    return Facts(text, [*extra, *(f for f in facts if f.kind != "op_text")], facts.lang), [
        w for _, _, w in joined
    ]
