"""text.fold: lower-case, accent-free, single-spaced, in every language; the same as dropping every
combining mark of the decomposed text, whatever shortcut it takes."""

from __future__ import annotations

import random
import unicodedata

import pytest

from curllm_core.text import fold


def _by_definition(text: str | None) -> str:
    text = (text or "").casefold().replace("ł", "l")
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(text.split())


@pytest.mark.parametrize(
    "text,folded",
    [
        ("Następna  Strona ›", "nastepna strona ›"),
        ("ŁÓDŹ, Żółć", "lodz, zolc"),
        ("Nächste Seite", "nachste seite"),
        ("Straße", "strasse"),
        ("Next PAGE", "next page"),
        ("  ", ""),
        (None, ""),
        ("ﬁne", "fine"),
        ("x\u034fy", "x\u034fy"),  # the grapheme joiner combines nothing: kept
        ("a\u0301\u1ab0b", "ab"),  # a mark beyond U+036F is dropped too
        ("Привет, мир", "привет, мир"),
    ],
)
def test_fold(text, folded):
    assert fold(text) == folded


def test_fold_is_its_definition_on_any_text():
    rng = random.Random(28)
    ranges = [(0x20, 0x7E), (0xA0, 0x24F), (0x300, 0x36F), (0x370, 0x52F), (0x1AB0, 0x1DFF), (0x1E00, 0x2FFF)]
    for _ in range(20000):
        text = "".join(chr(rng.randint(*rng.choice(ranges))) for _ in range(rng.randint(0, 10)))
        assert fold(text) == _by_definition(text), text
