"""Tool scoring: every installed tool scored for a task from its manifest alone (triggers, sites,
examples, parameters), `rank_tools` for a model's prompt, and `pick_tool` for a kind of action."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..manifest import Category, Manifest
from ..registry import Registry
from ..sites import host_matches, web_site
from .facts import Facts, extract_facts
from .fitting import param_for, serves
from .memo import dice, memo_stems, stems, trigger_rx
from .named_sites import named_sites
from .wanted import field_lists, inside, wanted_kind

#: Words that hint at a category of tool (a small nudge for ranking, never decisive).
CATEGORY_CUES: dict[str, str] = {
    Category.FORMS: r"\b(fill|form|search|filter|type|enter|wpisz|wyszukaj|formularz|filtr\w*|formular|suche?|filter\w*)\b",
    Category.NAVIGATION: (
        r"\b(click|scroll|pages?|next|open|go to|categor\w*|kliknij|przewiń|stron\w*|kategori\w*|"
        r"seiten?|klick\w*|öffne)\b"
    ),
    Category.VALIDATION: (
        r"\b(every|each|all|must|only|check|verify|validate|każd\w*|tylko|musi|jede[sr]?|nur|muss|"
        r"prüfe)\b"
    ),
    Category.EXTRACTION: r"\b(find|get|extract|list|show|scrape|znajdź|pokaż|pobierz|wyciągnij|finde|zeige|extrahiere)\b",
}


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
    host = web_site(url)
    named = named_sites(instruction, registry) if host is None else []
    words = stems(instruction)
    kind = wanted_kind(instruction, facts, registry)[0]
    cues = {c: bool(re.search(rx, instruction, re.I)) for c, rx in CATEGORY_CUES.items()}
    lists = field_lists(facts)
    scored: list[Scored] = []
    for m in registry:
        s = Scored(m, 0.0, _site_status(m, host, named))
        hits = 0
        for trigger in m.triggers:
            rx = trigger_rx(trigger)
            # Words of a list of fields ("name, price and link") name fields, not a tool's job.
            match = (
                next((x for x in rx.finditer(instruction) if not inside(x.start(), lists)), None)
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
        example_sim = max((dice(words, memo_stems(m, i)) for i in range(len(m.examples))), default=0.0)
        s.score += 3 * example_sim + dice(words, memo_stems(m, -1))
        if example_sim >= 0.4:
            s.reasons.append("the instruction reads like its examples")
        if m.category == Category.EXTRACTION and kind in m.produces:
            s.score += 3
        if cues.get(m.category):
            s.score += 0.5
        scored.append(s)
    scored.sort(key=lambda s: (-s.score, s.manifest.key))
    return scored


def rank_tools(instruction: str, url: str | None, registry: Registry, k: int = 8) -> list[Manifest]:
    """The ``k`` tools most likely to serve the task (for a model's prompt), eligible ones only."""
    return [s.manifest for s in score_tools(instruction, url, registry) if s.eligible][:k]


def pick_tool(cands: list[Scored], group: str) -> Scored | None:
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
