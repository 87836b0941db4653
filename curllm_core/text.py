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


#: The combining marks of U+0300-U+036F (Latin, Greek and Cyrillic accents; not U+034F, the grapheme
#: joiner, which combines nothing), dropped in one pass by `fold`.
_ACCENTS = {c: None for c in range(0x300, 0x370) if unicodedata.combining(chr(c))}


def fold(text: str | None) -> str:
    """Lower-case, accent-free, single-spaced text for comparisons ("Następna  Strona" -> "nastepna strona").

    Every combining mark of the decomposed text is dropped. Most text is ASCII when lower-cased
    (nothing to decompose) or once its accents are dropped in one pass; only what is left is walked
    character by character (text is compared everywhere: names, labels, link texts)."""
    text = (text or "").casefold().replace("ł", "l")
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text).translate(_ACCENTS)
        if not text.isascii():
            text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(text.split())
