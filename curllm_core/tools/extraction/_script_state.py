"""State a page's inline scripts assign (``window.__INITIAL_STATE__ = {...}``, ``self["x"] = [...]``,
``var pageData = JSON.parse('...')``), read from the scripts' text without running them: the HTTP
engine's counterpart of the objects the browser reads from ``window`` (`_embedded.EMBEDDED_JS`).

An assignment is found the way the browser's script finds it (a global by ``window``/``self``/
``globalThis``, or a ``var``, within a script's first `SCAN_CHARS` characters, each name once, its
last value); its value is read only when it is written as data: a JSON object or array literal, or
``JSON.parse`` of one string literal. Anything else (a function call, an expression, JavaScript
object syntax that is not JSON) is left to the browser. Hostile input is bounded: the literals taken
together at most `MAX_BYTES` characters, the text tried at most `MAX_SCAN` characters (a literal
that fails to parse is charged up to where it failed), at most `MAX_TRIES` literals tried and
`MAX_ESCAPES` string escapes decoded; no regular expression here backtracks, nothing is evaluated.
"""

from __future__ import annotations

import json
import re

#: How far into a script assignments are looked for (the browser's script: ``s.text.slice(0, 20000)``).
SCAN_CHARS = 20_000
#: The literals taken, together (`_embedded.MAX_JSON_BYTES`: what the browser hands over at most).
MAX_BYTES = 4_000_000
#: The text parsed, failed attempts included, and the number of literals tried, per page.
MAX_SCAN = 2 * MAX_BYTES
MAX_TRIES = 64
#: Escapes of ``JSON.parse`` strings decoded, per page (each costs a call: ~1 µs).
MAX_ESCAPES = 500_000

# ``window.X =``, ``self["x"] =``, ``globalThis.X =``, ``var X =`` (not ``==``/``===``): the browser's
# pattern, plus ``var`` (a global in a classic script), and never inside a longer name (``mywindow.x``).
_ASSIGN = re.compile(
    r"(?:(?<![\w$.])(?:window|self|globalThis)\s*+(?:\.\s*+([A-Za-z_$][\w$]*+)"
    r"|\[\s*+[\"']([^\"'\]]{1,80})[\"']\s*+\])|(?<![\w$.])var\s++([A-Za-z_$][\w$]*+))\s*+=(?!=)",
    re.ASCII,
)
_SPACE = re.compile(r"\s{0,200}")
_JSON_PARSE = re.compile(r"JSON[ \t]*\.[ \t]*parse[ \t]*\([ \t\n]*([\"'])")
# The body of a string literal up to its closing quote and the call's ``)``: runs of plain characters
# and escapes, each matched one way only, possessively (nothing to backtrack into).
_BODY = {
    q: re.compile(rf"[^{q}\\\r\n]*+(?:\\(?:\r\n|[\s\S])[^{q}\\\r\n]*+)*+{q}\s*+\)", re.ASCII)
    for q in ("'", '"')
}
_ESCAPE = re.compile(r"\\(?:u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(\r\n|[\s\S]))")
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_DECODER = json.JSONDecoder()


class _Budget:
    """What one page may still cost: literals taken, text parsed, tries."""

    def __init__(self) -> None:
        self.taken, self.scanned, self.tries, self.escapes = 0, 0, 0, 0

    def window(self) -> int:
        """How many characters a literal may still span (0: no more tries)."""
        if self.tries >= MAX_TRIES:
            return 0
        return max(0, min(MAX_BYTES - self.taken, MAX_SCAN - self.scanned))


def script_state(scripts: list[tuple[str, bool]]) -> list[tuple[int, str]]:
    """The JSON texts of the data ``scripts`` (each one's text, and whether it is a module: a ``var``
    there is no global) assign to globals, each with the index of the script where its name first
    appears (where the browser's script lists it); a name assigned again keeps its last literal value."""
    budget = _Budget()
    found: dict[str, tuple[int, str | None]] = {}
    for index, (text, module) in enumerate(scripts):
        for m in _ASSIGN.finditer(text[:SCAN_CHARS]):
            name = m.group(1) or m.group(2) or m.group(3)
            if m.group(3) and module:
                continue
            value = _literal(text, m.end(), budget)
            first, before = found.get(name, (index, None))
            found[name] = (first, value if value is not None else before)
    return [(first, value) for first, value in found.values() if value is not None]


def _literal(text: str, at: int, budget: _Budget) -> str | None:
    """The JSON text of the data assigned at ``at`` (after the ``=``), or None when it is not data."""
    at = _SPACE.match(text, at).end()  # type: ignore[union-attr]  # (matches the empty string)
    head = text[at : at + 1]
    if head in ("{", "["):
        return _json_at(text, at, budget)
    call = _JSON_PARSE.match(text, at)
    if call is None:
        return None
    window = budget.window()
    if window <= 0:
        return None
    budget.tries += 1
    start = call.end()
    body = _BODY[call.group(1)].match(text[: start + window + 200], start)
    budget.scanned += (body.end() if body is not None else min(len(text), start + window)) - start
    if body is None:
        return None
    closing = text.rindex(call.group(1), start, body.end())
    escapes = text.count("\\", start, closing)
    budget.escapes += escapes
    if budget.escapes > MAX_ESCAPES:
        return None
    decoded = _unescape(text[start:closing])
    begin = _SPACE.match(decoded).end()  # type: ignore[union-attr]  # (matches the empty string)
    value = _json_at(decoded, begin, budget)
    if value is None or decoded[begin + len(value) :].strip():
        return None  # not one JSON document
    return value


def _json_at(text: str, at: int, budget: _Budget) -> str | None:
    """The JSON value (an object or an array) that starts at ``at``, as its text; None when none
    parses within the budget."""
    window = budget.window()
    if window <= 0 or text[at : at + 1] not in ("{", "["):
        return None
    budget.tries += 1
    part = text[at : at + window]
    try:
        _, end = _DECODER.raw_decode(part)
    except json.JSONDecodeError as e:
        budget.scanned += e.pos
        return None
    except (RecursionError, ValueError):
        budget.scanned += len(part)
        return None
    budget.scanned += end
    budget.taken += end
    return part[:end]


def _unescape(body: str) -> str:
    """A JavaScript string literal's body as the string it stands for."""

    def one(m: re.Match[str]) -> str:
        braced, four, two, other = m.groups()
        if braced or four or two:
            code = int(braced or four or two, 16)
            return chr(code) if code <= 0x10FFFF else "\ufffd"
        if other in ("\n", "\r", "\r\n", "\u2028", "\u2029"):
            return ""  # a line continuation
        return _SIMPLE.get(other, other)

    return _ESCAPE.sub(one, body)
