"""Spelling as people type: an instruction's words respelled as the planner's vocabulary spells them.

One place for every pass: the vocabulary is the words the fact passes' patterns hold (read once from
their source, `facts/*.py`), compared by a key that writes ä/ö/ü/ß as ae/oe/ue/ss and drops the other
accents ("guenstigsten", "groesste", "najtansze", "ponizej" read as "günstigsten", "größte",
"najtańsze", "poniżej"). Both steps take a word the ledger left over: `respell` writes it the
vocabulary's way, `correct` maps it to a vocabulary word within a small edit distance (1 for words of
5-8 letters, 2 for longer, never for shorter ones), and the facts are read again. A word neither step
knows stays as it was typed, and the ledger quotes it.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from functools import cache, lru_cache
from pathlib import Path

_HERE = Path(__file__).parent
#: The modules whose patterns hold the vocabulary: the fact passes, the kinds and the item fields.
#: Not the actions no tool may do (facts/actions.py: log in, buy, post): a typo is never read as one;
#: nor the nouns of records (facts/records.py: "stuff" is no typo of "staff", "heute" none of "Leute").
_SOURCES = (
    *sorted(p for p in (_HERE / "facts").glob("*.py") if p.name not in ("actions.py", "records.py")),
    _HERE / "wanted.py",
    _HERE.parent / "item_fields.py",
)
_STEM = "\x00"  # marks a pattern word followed by \w* or \w+ (a stem: "najtańsz\w*")
_ESCAPE = re.compile(r"\\[wW][*+]")
_OTHER_ESCAPE = re.compile(r"\\.")
_WORD = re.compile(r"([^\W\d_]{3,})(" + _STEM + r")?")
_UMLAUT = re.compile("[äöüß]")
_TRANSCRIBED = re.compile("ae|oe|ue|ss")


def key(word: str) -> str:
    """How a word compares: lower case, ä/ö/ü/ß as ae/oe/ue/ss, the other accents dropped."""
    low = word.casefold().replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("ß", "ss")
    low = low.replace("ł", "l")
    return "".join(c for c in unicodedata.normalize("NFKD", low) if not unicodedata.combining(c))


@cache
def vocabulary() -> tuple[dict[str, set[str]], dict[str, set[str]], frozenset[str]]:
    """``(words, stems, spelled)``: the spellings of the patterns' words and stems by their key, and
    every spelling (a stem's marked), read once from `_SOURCES`."""
    words: dict[str, set[str]] = {}
    stems: dict[str, set[str]] = {}
    spelled: set[str] = set()
    for path in _SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in docs:
                continue
            text = _OTHER_ESCAPE.sub(" ", _ESCAPE.sub(_STEM, node.value))
            for m in _WORD.finditer(text):
                word = m.group(1).lower()
                spelled.add(word + (m.group(2) or ""))
                (stems if m.group(2) else words).setdefault(key(word), set()).add(word)
    return words, stems, frozenset(spelled)


def known(word: str) -> bool:
    """Whether the patterns spell ``word`` this way (a word of theirs, or a stem of theirs and more)."""
    low = word.lower()
    spelled = vocabulary()[2]
    return low in spelled or any(low[:n] + _STEM in spelled for n in range(len(low), 3, -1))


def _pick(typed: str, spellings: set[str]) -> str | None:
    """The spelling meant by ``typed`` (in plain letters): an umlaut for ae/oe/ue/ss, else the one
    other spelling of the key. None when ``typed`` is a spelling of its own ("maja" beside "mają")."""
    umlauts = [s for s in spellings if _UMLAUT.search(s)]
    if len(umlauts) == 1 and _TRANSCRIBED.search(typed):
        return umlauts[0]
    others = spellings - {typed}
    return next(iter(others)) if typed not in spellings and len(others) == 1 else None


def _as_typed(proper: str, typed: str) -> str:
    return proper[:1].upper() + proper[1:] if typed[:1].isupper() else proper


@lru_cache(maxsize=4096)
def respell(word: str) -> str | None:
    """``word`` as the vocabulary spells it when typed without its umlauts or accents, else None."""
    words, stems, _ = vocabulary()
    low = word.lower()
    k = key(low)
    if k != low or not low.isalpha():  # typed with accents: as the patterns read it
        return None
    proper = None
    if k in words:
        proper = _pick(low, words[k])
    else:
        for n in range(len(k), 3, -1):
            if k[:n] in stems:
                found = _pick(low[:n], stems[k[:n]])
                proper = None if found is None else found + low[n:]
                break
    return None if proper is None else _as_typed(proper, word)


_COMPOUND_LINKS = re.compile(r"([^\W\d_]{3,}?)-?(links?)", re.I)


def split_compound(word: str) -> str | None:
    """A German compound of links written as one word, as its parts ("Facebooklinks" ->
    "Facebook-Links", "Bilderlinks" -> "Bilder-Links"): the planner reads "X-Links" as links to X."""
    m = _COMPOUND_LINKS.fullmatch(word)
    if m is None or "-" in word or m.group(1).lower() == "hyper":
        return None
    return f"{m.group(1)}-{m.group(2)[0].upper()}{m.group(2)[1:].lower()}"


def _distance(a: str, b: str, limit: int) -> int:
    """Edit distance with swaps of neighbours (optimal string alignment), cut off above ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before = None
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        new = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            new[j] = min(row[j] + 1, new[j - 1] + 1, row[j - 1] + cost)
            if before is not None and i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                new[j] = min(new[j], before[j - 2] + 1)
        if min(new) > limit:
            return limit + 1
        before, row = row, new
    return row[-1]


def allowed_edits(word: str) -> int:
    """How many edits a typo may be from the word meant: none under 5 letters, 1 up to 8, else 2."""
    return 0 if len(word) < 5 else 1 if len(word) <= 8 else 2


def _deletes(word: str, depth: int) -> set[str]:
    """``word`` with up to ``depth`` letters left out (itself included)."""
    out = {word}
    for _ in range(depth):
        out |= {w[:i] + w[i + 1 :] for w in out for i in range(len(w))}
    return out


@cache
def _near() -> dict[str, set[str]]:
    """The vocabulary's words (keys, 5 letters or more) by every form with the letters left out that a
    typo of them may share: a word's candidates are looked up, not compared with the whole vocabulary."""
    near: dict[str, set[str]] = {}
    for k in vocabulary()[0]:
        if len(k) >= 5:
            for form in _deletes(k, allowed_edits(k) if len(k) <= 8 else 2):
                near.setdefault(form, set()).add(k)
    return near


@lru_cache(maxsize=4096)
def correct(word: str) -> str | None:
    """The vocabulary word ``word`` is a typo of (a single closest one), or None."""
    limit = allowed_edits(word)
    if not limit or not word.isalpha() or known(word):
        return None
    k = key(word)
    words, near = vocabulary()[0], _near()
    candidates = {c for form in _deletes(k, limit) for c in near.get(form, ())}
    best: list[str] = []
    least = limit + 1
    for wk in sorted(candidates):
        if abs(len(wk) - len(k)) > limit or wk.startswith(k) or k.startswith(wk):
            continue  # an inflection ("movie", "movies") is no typo
        d = _distance(k, wk, limit)
        spelling = min(words[wk])
        if d < least:
            least, best = d, [spelling]
        elif d == least and spelling not in best:
            best.append(spelling)
    return _as_typed(best[0], word) if len(best) == 1 and least <= limit else None
