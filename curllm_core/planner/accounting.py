"""What the ledger counts as used in a plan's context: beside the facts' words, the words that name
kinds and fields, the sites the installed tools know, the triggers and example wording of the planned
tools, and a request said in the negative ("don't buy anything"). The rest is what `ledger.leftover`
quotes as not understood.
"""

from __future__ import annotations

import re
from typing import Any

from ..item_fields import WORDS as FIELD_WORDS
from ..manifest import Category, Manifest
from ..registry import Registry
from .facts import ACTIONS, Facts
from .facts.base import Text, negated
from .ledger import fact_spans, tokens
from .memo import memo, trigger_rx
from .wanted import KIND_WORDS, RECORD_NOUNS, RESULT_WORDS

_STATIC_WORDS: dict[str, tuple[re.Pattern, frozenset[str]]] = {}
#: The static words' places in the last instruction read (the ledger reads it twice).
_LAST_STATIC: dict[str, tuple[str, list[tuple[int, int]]]] = {}


def _static_words(registry: Registry) -> tuple[re.Pattern, frozenset[str]]:
    """One pattern of every word that names a kind, a field or a per-item request, and the words of
    the installed tools' sites (once per set of installed tools)."""
    from .each import ALL_ITEMS, DETAIL_FIELDS, DETAILS, EACH_ITEM, PER_ITEM, WITH_FIELD

    key = registry.fingerprint
    if key not in _STATIC_WORDS:
        # Whole words only: a field word's inflections are in its pattern ("Imagex" is no "image").
        patterns = [
            *KIND_WORDS.values(),
            RECORD_NOUNS,
            RESULT_WORDS,
            *(rf"\b(?:{rx})\b" for rx in FIELD_WORDS.values()),
        ]
        patterns += [rx.pattern for rx in (EACH_ITEM, PER_ITEM, ALL_ITEMS, DETAILS, WITH_FIELD)]
        patterns += [rf"(?<![\w-])(?:{rx})(?![\w-])" for rx in DETAIL_FIELDS.values()]
        words: set[str] = set()
        for m in registry.tools.values():
            if m.category == Category.EXTRACTION:
                patterns += [
                    rf"\b{re.escape(k[:-1] if k.endswith('s') and len(k) > 4 else k)}(?:s|es)?\b"
                    for k in m.produces
                ]
            for site in m.sites:
                words.update(part for part in site.split(".") if len(part) > 2)
                words.add(site)
        if len(_STATIC_WORDS) > 8:
            _STATIC_WORDS.clear()
        _STATIC_WORDS[key] = (re.compile("|".join(f"(?:{p})" for p in patterns), re.I), frozenset(words))
    return _STATIC_WORDS[key]


def accounted(facts: Facts, registry: Registry, planned: list[Any]) -> tuple[list[tuple[int, int]], set[str]]:
    """What the ledger counts as used: the facts' words, the words that name kinds and fields, the
    sites the installed tools know, and the triggers and examples of the planned tools."""
    text = facts.instruction
    spans, words = fact_spans(facts)
    static, site_words = _static_words(registry)
    words |= site_words
    last = _LAST_STATIC.get(registry.fingerprint)
    if last is None or last[0] != text:
        last = (text, [(x.start(), x.end()) for x in static.finditer(text)])
        _LAST_STATIC.clear()
        _LAST_STATIC[registry.fingerprint] = last
    spans += last[1]
    for m in planned:
        for trigger in m.triggers:
            rx = trigger_rx(trigger)
            spans += [(x.start(), x.end()) for x in rx.finditer(text)] if rx else []
        words |= memo(m, "example_words", _example_words)
    # A negated request ("don't buy anything") is understood: it is not asked for.
    if re.search(r"(?i)n'?t\b|\bnot\b|\bnever\b|\bnie\b|\bnicht\b|\bkein", text):
        for pattern in ACTIONS.values():
            rx = trigger_rx(pattern)
            spans += (
                [(x.start(), x.end()) for x in rx.finditer(text) if negated_at(text, x.start())] if rx else []
            )
    return spans, words


def _example_words(m: Manifest) -> frozenset[str]:
    """The words of a tool's examples' wording, not their values: a number in one is no number of
    the instruction (once per manifest)."""
    return frozenset(
        w
        for example in m.examples
        for _, _, w in tokens(str(example.get("instruction", "")))
        if not any(c.isdigit() for c in w)
    )


def negated_at(text: str, pos: int) -> bool:
    """Whether the words at ``pos`` are negated ("don't buy")."""
    return negated(Text(text), pos)
