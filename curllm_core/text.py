"""Normalising text, one name per meaning (a leaf module: standard library only).

- `collapse_space`: every run of white space (zero-width and no-break included) as one space,
  case and accents kept. For text that is output (names, titles, labels).
- `squash`: runs of Unicode white space as one space, case kept (zero-width characters kept too).
- `fold`: lower-case, accent-free, single-spaced text for comparing words across languages
  ("Następna  Strona" -> "nastepna strona", "Straße" -> "strasse"). Never output.

URL hosts have their own names in `curllm_core.urls` (`host_of`) and `curllm_core.sites` (`bare_host`,
`registrable_domain`).
"""

from __future__ import annotations

import re
import unicodedata

_SPACE_RE = re.compile(r"[\s\u200b\u200c\u200d\u2060\ufeff]+")


def collapse_space(text: str | None) -> str:
    """``text`` with every run of white space (zero-width and no-break included) as one space, trimmed."""
    return _SPACE_RE.sub(" ", text or "").strip()


def squash(text: str | None) -> str:
    """White space folded to single spaces, case kept."""
    return " ".join((text or "").split())


def fold(text: str | None) -> str:
    """Lower-case, accent-free, single-spaced text for comparisons ("Następna  Strona" -> "nastepna strona")."""
    text = (text or "").casefold().replace("ł", "l")
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(text.split())
