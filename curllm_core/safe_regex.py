"""Regular expressions from untrusted text (plans, models' replies, task files): bounded in time.

Python's ``re`` backtracks without limit: ``(a+)+$`` against a long URL runs for minutes and, on
the event loop, stops every time limit with it. `UntrustedPattern` compiles with the ``regex``
module (the same syntax as ``re``) and gives all its matches together a time budget; matching
releases the GIL, so a tool can run it in a thread and the loop's time limits still fire. Use it
for every pattern a plan can set; patterns written in manifests and code are trusted and use ``re``.
"""

from __future__ import annotations

import time
from typing import Any

from .errors import BadParams

MATCH_BUDGET_S = 2.0  # all matches of one pattern object, together
MAX_PATTERN_LENGTH = 2000


class UntrustedPattern:
    """A case-insensitive pattern whose matching stops with BAD_PARAMS when its budget is spent."""

    def __init__(self, pattern: str, *, what: str = "pattern", budget_s: float = MATCH_BUDGET_S):
        import regex

        if not isinstance(pattern, str):
            raise BadParams(f"{what} must be a string (a regular expression), got {pattern!r}")
        if len(pattern) > MAX_PATTERN_LENGTH:
            raise BadParams(
                f"{what} is {len(pattern)} characters long; a pattern may have at most {MAX_PATTERN_LENGTH}"
            )
        try:
            self._compiled = regex.compile(pattern, regex.IGNORECASE | regex.V0)
        except (regex.error, ValueError, OverflowError, RecursionError) as e:
            raise BadParams(f"{what} {pattern!r} is not a valid regular expression: {e}") from None
        self.pattern, self.what, self.budget_s = pattern, what, budget_s
        self.spent_s = 0.0

    def search(self, text: str) -> Any:
        """``regex.search`` within what is left of the budget; BadParams when it runs out."""
        left = self.budget_s - self.spent_s
        if left <= 0:
            raise self._too_slow()
        started = time.perf_counter()
        try:
            return self._compiled.search(text, timeout=left, concurrent=True)
        except TimeoutError:
            raise self._too_slow() from None
        finally:
            self.spent_s += time.perf_counter() - started

    def _too_slow(self) -> BadParams:
        return BadParams(
            f"{self.what} {self.pattern[:200]!r} took more than {self.budget_s:g} s to match (it backtracks "
            "without end, e.g. a nested repeat like (a+)+): use a simpler pattern"
        )
