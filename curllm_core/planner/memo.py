"""What the rule planner reads off a manifest, computed once per manifest (`memo`), and the word
helpers it compares texts with: compiled triggers (`trigger_rx`), word stems (`stems`), their
overlap (`dice`).
"""

from __future__ import annotations

import re
from typing import Any

from ..manifest import Manifest

_STOPWORDS = frozenset(
    "the and with from for all any that this find get show list give want page pages site "
    "znajdź znajdz pokaż pokaz wszystkie które oraz finde zeige alle die der das und mit".split()
)
_rx_cache: dict[str, re.Pattern | None] = {}


def trigger_rx(pattern: str) -> re.Pattern | None:
    """A compiled trigger (case-insensitive), or None if it does not compile (cached either way)."""
    if pattern not in _rx_cache:
        try:
            _rx_cache[pattern] = re.compile(pattern, re.I)
        except re.error:
            _rx_cache[pattern] = None
    return _rx_cache[pattern]


def stems(text: str) -> frozenset[str]:
    """Word stems (first five letters) without stop words: inflection-tolerant for PL and DE."""
    return frozenset(w[:5] for w in re.findall(r"[^\W\d_]{3,}", text.lower()) if w not in _STOPWORDS)


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """How much two sets of stems overlap: 0 (nothing shared) to 1 (the same)."""
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


def properties_of(m: Manifest) -> dict:
    """The parameters a manifest declares, by name (their JSON Schemas)."""
    return m.parameters.get("properties") or {}


_per_manifest: dict[tuple[int, str], tuple[Manifest, Any]] = {}
_MEMO_LIMIT = 20000


def memo(m: Manifest, name: str, compute):
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


def memo_stems(m: Manifest, index: int) -> frozenset[str]:
    """Stems of example ``index`` (or of the description for -1), computed once per manifest."""

    def compute(m: Manifest) -> list[frozenset[str]]:
        return [stems(str(e.get("instruction", ""))) for e in m.examples] + [stems(m.description)]

    return memo(m, "tokens", compute)[index]
