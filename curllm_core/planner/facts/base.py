"""What a fact is (`Fact`), the facts of one instruction (`Facts`), and the text the passes read
(`Text`: the instruction with the spans earlier passes used up masked out).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_RE_CACHE: dict[str, re.Pattern] = {}


def regex(pattern: str) -> re.Pattern:
    """A pattern compiled once (case-insensitive): the passes build theirs from the vocabulary at first use."""
    compiled = _RE_CACHE.get(pattern)
    if compiled is None:
        compiled = _RE_CACHE[pattern] = re.compile(pattern, re.I)
    return compiled


@dataclass(frozen=True)
class Fact:
    """One thing the instruction says: ``kind`` (e.g. ``price_max``), its ``value``, and where."""

    kind: str
    value: Any
    start: int
    text: str

    def why(self) -> str:
        """The words the value came from, quoted for a reasoning line."""
        return f"{self.kind}={self.value!r} from {self.text.strip()!r}"


class Facts:
    """The facts of one instruction; at most one fact per kind (the first one found wins)."""

    def __init__(self, instruction: str, facts: list[Fact], lang: str):
        self.instruction = instruction
        self.lang = lang
        self._by_kind: dict[str, Fact] = {}
        for fact in facts:
            self._by_kind.setdefault(fact.kind, fact)

    def get(self, kind: str, default: Any = None) -> Any:
        fact = self._by_kind.get(kind)
        return default if fact is None else fact.value

    def fact(self, kind: str) -> Fact | None:
        return self._by_kind.get(kind)

    def __contains__(self, kind: str) -> bool:
        return kind in self._by_kind

    def __iter__(self):
        return iter(sorted(self._by_kind.values(), key=lambda f: (f.start, f.kind)))

    def kinds(self) -> set[str]:
        return set(self._by_kind)

    def as_dict(self) -> dict[str, Any]:
        """``{kind: value}``, for tests and debugging."""
        return {f.kind: f.value for f in self}


class Text:
    """The instruction with spans that earlier passes used up masked out (offsets unchanged)."""

    def __init__(self, text: str):
        self.original = text
        self.text = text

    def mask(self, start: int, end: int) -> None:
        # A separator, not spaces: a used-up phrase ends the values around it, and masking never
        # makes long runs of white space (which passes allowing "\s*" would scan again and again).
        self.text = self.text[:start] + ";" * (end - start) + self.text[end:]

    def finditer(self, pattern: str):
        return regex(pattern).finditer(self.text)

    def search(self, pattern: str, pos: int = 0):
        return regex(pattern).search(self.text, pos)


def negated(t: Text, pos: int) -> bool:
    """ "don't click", "nie klikaj", "nicht klicken": the action is ruled out, not asked for."""
    return bool(
        re.search(r"\b(don'?t|do not|never|nie|nicht|kein\w*)\s+$", t.original[max(0, pos - 12) : pos], re.I)
    )
