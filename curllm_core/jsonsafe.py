"""Values JSON and UTF-8 can carry: page text cleaned where it enters, and JSON text that always is.

A page can hand curllm what no JSON document may hold: a lone UTF-16 surrogate (JSON-LD
``"Lamp \\ud83d"``, text cut inside an emoji, a script's ``document.title``), which no UTF-8 writer
accepts, and numbers JSON has no spelling for (``1e309`` parses as infinity, ``NaN``), which
Python's json writes as ``Infinity``/``NaN``: output that is not JSON. `clean` makes a value
carriable (a lone surrogate becomes U+FFFD, a pair written as two escapes becomes its character, a
non-finite number becomes ``null``: unknown, as the page gave no number); the executor applies it to
every tool's output, step error and page title, and the event bus to every event. `dumps` is the
writers' guard: valid JSON that encodes as UTF-8, whatever reached it.
"""

from __future__ import annotations

import json
import math
from typing import Any


def clean_text(text: str) -> str:
    """``text`` without lone surrogates (each becomes U+FFFD; a pair becomes its character)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def clean(value: Any) -> Any:
    """JSON-like data with every string (keys included) cleaned and every non-finite float ``None``;
    what needs nothing is returned as it is."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {clean_text(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)`` that is always JSON (never ``Infinity``)
    and always encodes as UTF-8: a value that is not is cleaned first."""
    options = {"ensure_ascii": False, "allow_nan": False, **options}
    try:
        text = json.dumps(value, **options)
        if not text.isascii():
            text.encode("utf-8")
        return text
    except (ValueError, UnicodeEncodeError) as first:
        try:
            cleaned = clean(value)
        except RecursionError:  # a self-referencing structure: no JSON at all
            raise first from None
        return json.dumps(cleaned, **options)
