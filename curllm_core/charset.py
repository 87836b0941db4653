"""A document's character encoding, decided from its bytes when the declaration is missing or wrong.

Browsers believe what a page declares (a byte order mark, then the HTTP ``charset``, then a
``<meta charset>``) and, over http without any declaration, fall back to windows-1252. Real pages
get this wrong both ways: a page saved as Latin-1 that still says ``<meta charset="utf-8">`` shows
"Rh�ne"; a UTF-8 page with no charset anywhere, served without a charset header, shows "RhÃ´ne".
`sniff` looks at the bytes themselves:

- A byte order mark decides (as in a browser).
- Bytes that are valid UTF-8 with non-ASCII characters are UTF-8, whatever the declaration says:
  legacy text almost never happens to form valid multi-byte sequences. A handful of stray bytes in
  an otherwise UTF-8 page keep it UTF-8 (one bad byte must not turn every "é" into "Ã©").
- Bytes that are not UTF-8 keep a declared legacy encoding; when the declaration says UTF-8 or
  nothing, the single-byte code page whose decoding reads most like words wins (windows-1252 for
  Western languages, windows-1250 for Central European, windows-1251 for Cyrillic; the page's
  ``lang`` breaks ties).
- Pure ASCII is whatever was declared (every declaration reads it alike).

`Encoding.fixes` says whether a browser following the declaration would decode differently: only
then does the browser layer hand the document over with the right ``charset``. No dependencies.
"""

from __future__ import annotations

import codecs
import itertools
import re
from dataclasses import dataclass

__all__ = ["Encoding", "sniff", "decode_html", "content_type_with", "is_html_type"]

#: How far into a document a ``<meta charset>`` is looked for (browsers pre-scan 1024 bytes; saved
#: pages often put a long <title> or comments first).
META_SCAN_BYTES = 8192
#: What a browser uses for an http(s) document that declares nothing.
BROWSER_DEFAULT = "windows-1252"
#: Stray invalid bytes tolerated in a UTF-8 document: one per this many valid multi-byte characters.
UTF8_VALID_PER_INVALID = 4

_META_RE = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE)
_LANG_RE = re.compile(rb"<html[^>]*?\blang\s*=\s*[\"']?([A-Za-z]{2,3})", re.IGNORECASE)
_PARAM_RE = re.compile(r"charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE)

# Python codec names -> the WHATWG names browsers use. Latin-1 and ASCII labels mean windows-1252
# to a browser (the HTML standard maps them so).
_WHATWG = {
    "utf_8": "utf-8",
    "utf_8_sig": "utf-8",
    "latin_1": "windows-1252",
    "iso8859_1": "windows-1252",
    "ascii": "windows-1252",
    "cp1252": "windows-1252",
    "cp1250": "windows-1250",
    "cp1251": "windows-1251",
    "cp1253": "windows-1253",
    "cp1254": "windows-1254",
    "cp1257": "windows-1257",
    "iso8859_2": "iso-8859-2",
    "iso8859_5": "iso-8859-5",
    "iso8859_7": "iso-8859-7",
    "iso8859_9": "windows-1254",
    "iso8859_15": "iso-8859-15",
    "koi8_r": "koi8-r",
    "koi8_u": "koi8-u",
    "shift_jis": "shift_jis",
    "cp932": "shift_jis",
    "euc_jp": "euc-jp",
    "iso2022_jp": "iso-2022-jp",
    "gbk": "gbk",
    "gb2312": "gbk",
    "gb18030": "gb18030",
    "big5": "big5",
    "big5hkscs": "big5",
    "euc_kr": "euc-kr",
    "cp949": "euc-kr",
    "utf_16": "utf-16le",
    "utf_16_le": "utf-16le",
    "utf_16_be": "utf-16be",
}
_PYTHON = {
    "utf-8": "utf-8",
    "windows-1252": "cp1252",
    "windows-1250": "cp1250",
    "windows-1251": "cp1251",
    "windows-1253": "cp1253",
    "windows-1254": "cp1254",
    "windows-1257": "cp1257",
    "shift_jis": "cp932",
    "gbk": "gb18030",
    "euc-kr": "cp949",
}
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16le"), (codecs.BOM_UTF16_BE, "utf-16be"))
# Single-byte code pages tried for bytes that are not UTF-8, in order of preference by page language.
_LEGACY_BY_LANG = {
    **dict.fromkeys(("pl", "cs", "sk", "hu", "hr", "sl", "ro", "bs", "sq"), "windows-1250"),
    **dict.fromkeys(("ru", "uk", "bg", "be", "sr", "mk", "kk"), "windows-1251"),
}
#: Non-ASCII runs (with the letters around them) read to choose a code page: enough to be sure.
LEGACY_SAMPLE = 500
_NON_ASCII_RE = re.compile(rb"[\x80-\xff]+")


@dataclass(frozen=True)
class Encoding:
    """The decision for one document.

    ``name`` is the encoding to read it with (a WHATWG label, e.g. ``"windows-1252"``); ``declared``
    what its header or ``<meta>`` said (None: nothing); ``source`` why: ``"bom"``, ``"header"``,
    ``"meta"`` (the declaration was right) or ``"bytes"`` (decided from the bytes); ``browser`` what
    a browser following the declaration would use.
    """

    name: str
    declared: str | None
    source: str
    browser: str

    @property
    def fixes(self) -> bool:
        """Whether a browser left to the declaration would decode this document differently."""
        return self.name != self.browser

    @property
    def codec(self) -> str:
        """The Python codec for `name`."""
        return python_codec(self.name)


def canonical(label: str | None) -> str | None:
    """The WHATWG name of an encoding label (``"UTF8"`` -> ``"utf-8"``, ``"latin1"`` ->
    ``"windows-1252"``), or None for a label Python does not know."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except LookupError:
        return None
    return _WHATWG.get(name.replace("-", "_"), name.replace("_", "-"))


def python_codec(name: str) -> str:
    """The Python codec that reads a WHATWG encoding (windows-1252 -> cp1252: not strict Latin-1)."""
    return _PYTHON.get(name, name)


def _declared(body: bytes, content_type: str | None) -> tuple[str | None, str | None]:
    """(encoding, "header"|"meta") as declared; an unknown label counts as no declaration."""
    if content_type:
        m = _PARAM_RE.search(content_type)
        if m and (name := canonical(m.group(1))):
            return name, "header"
    meta = _META_RE.search(body[:META_SCAN_BYTES])
    if meta and (name := canonical(meta.group(1).decode("ascii", "replace"))):
        # A <meta> cannot declare UTF-16: the bytes it is written in are ASCII-compatible.
        return ("utf-8" if name.startswith("utf-16") else name), "meta"
    return None, None


def _utf8_verdict(body: bytes) -> bool | None:
    """True: UTF-8 (a few stray bytes tolerated); False: not UTF-8; None: pure ASCII."""
    if body.isascii():
        return None
    try:
        body.decode("utf-8")
        return True
    except UnicodeDecodeError:
        pass
    text = body.decode("utf-8", "replace")
    invalid = text.count("\ufffd")
    valid = len(text) - len(text.encode("ascii", "ignore")) - invalid
    return valid >= UTF8_VALID_PER_INVALID * invalid


# Punctuation a Latin-script text puts next to letters; every other non-letter of the upper half of
# windows-1252/1250 touching a letter is what a wrong code page makes of one ("zł" read as "z³").
_WORD_PUNCTUATION = "«»‘’“”„‚‹›–—…•·¡¿°€§¶†‡‰™©®\u00a0\u00ad"
_ODD = "".join(
    sorted(
        {
            ch
            for cp in ("cp1252", "cp1250")
            for ch in bytes(range(0x80, 0x100)).decode(cp, "replace")
            if not ch.isalpha() and ch not in _WORD_PUNCTUATION and ch != "\ufffd"
        }
    )
)
_ODD_SET = frozenset(_ODD)
_NON_ASCII_CHAR_RE = re.compile(r"[^\x00-\x7f]")
_BAD = frozenset("\ufffd" + "".join(chr(c) for c in range(0x80, 0xA0)))
_WORD_RE = re.compile(r"[^\W\d_]+")


def _latin_score(text: str) -> int:
    """How much ``text`` reads like words of a Latin-script language, judged at each non-ASCII
    character: a letter beside an ASCII letter counts for ("Rh|ô|ne"); against count replacement and
    control characters, an odd symbol touching a letter ("z³" for "zł"; "¿" only after a letter, as
    "¿Qué" is Spanish) and a change of case inside a word ("£ódŸ" for "Łódź", "żQué" for "¿Qué")."""
    score = 0
    padded = f" {text} "
    for m in _NON_ASCII_CHAR_RE.finditer(padded):
        i = m.start()
        ch, prev, nxt = padded[i], padded[i - 1], padded[i + 1]
        if ch in _BAD:
            score -= 3
        elif ch.isalpha():
            if (prev.isascii() and prev.isalpha()) or (nxt.isascii() and nxt.isalpha()):
                score += 2
            if (ch.islower() and nxt.isupper()) or (ch.isupper() and prev.islower()):
                score -= 3
        elif (ch in _ODD_SET and (prev.isalpha() or nxt.isalpha())) or (ch == "¿" and prev.isalpha()):
            score -= 3
    return score


#: The non-ASCII letters of Latin-script languages written in windows-1252 or windows-1250. A text's
#: letters nearly always come from one of them; a wrong code page's reading mixes alphabets (a
#: Polish "ś" read as the French "œ" beside a Polish "ó").
_ALPHABETS = tuple(
    frozenset(letters)
    for letters in (
        "àâæçéèêëîïôœùûüÿ",  # French
        "äöüß",  # German
        "áéíñóúü",  # Spanish
        "áâãàçéêíóôõú",  # Portuguese
        "àèéìíîòóùú",  # Italian
        "àçèéíïòóúü",  # Catalan
        "éëïóöü",  # Dutch
        "åäöæøé",  # Scandinavian
        "áéíóúýþæöð",  # Icelandic
        "ąćęłńóśźż",  # Polish
        "áčďéěíňóřšťúůýž",  # Czech
        "áäčďéíĺľňóôŕšťúýž",  # Slovak
        "áéíóöőúüű",  # Hungarian
        "čćđšž",  # Croatian, Slovenian, Bosnian
        "ăâîşţșț",  # Romanian
    )
)


def _foreign_letters(text: str) -> int:
    """How many distinct non-ASCII letters of ``text`` the alphabet that covers most of them lacks."""
    letters = {c.lower() for c in _NON_ASCII_CHAR_RE.findall(text) if c.isalpha()}
    if not letters:
        return 0
    return min(len(letters - alphabet) for alphabet in _ALPHABETS)


def _cyrillic(text: str) -> bool:
    """Whether ``text`` (a windows-1251 reading) is Cyrillic: its words with Cyrillic letters are
    mostly made of them alone. A Latin text read so mixes them with ASCII ("zaїуіж" for "zażółć")."""
    whole = mixed = 0
    for word in _WORD_RE.findall(text):
        if any("\u0400" <= c <= "\u04ff" for c in word):
            if any("a" <= c <= "z" or "A" <= c <= "Z" for c in word):
                mixed += 1
            else:
                whole += 1
    return whole > 2 * mixed


def _legacy(body: bytes) -> str:
    """The single-byte code page whose reading of ``body`` looks most like words."""
    m = _LANG_RE.search(body[:META_SCAN_BYTES])
    lang = m.group(1).decode("ascii").lower() if m else ""
    preferred = _LEGACY_BY_LANG.get(lang, "windows-1252")
    # Only the non-ASCII bytes and their neighbours matter; a sample keeps big pages cheap.
    sample = b" ".join(
        body[max(0, m.start() - 12) : m.end() + 12]
        for m in itertools.islice(_NON_ASCII_RE.finditer(body), LEGACY_SAMPLE)
    )
    if _cyrillic(sample.decode("cp1251", "replace")):
        return "windows-1251"
    latin = (
        ("windows-1250", "windows-1252") if preferred == "windows-1250" else ("windows-1252", "windows-1250")
    )
    readings = {name: sample.decode(python_codec(name), "replace") for name in latin}
    # Words first; between readings that read alike, the one whose letters belong to one language;
    # max() keeps the first of equal scores: the page language's code page wins what is left.
    return max(latin, key=lambda name: (_latin_score(readings[name]), -_foreign_letters(readings[name])))


def sniff(body: bytes, content_type: str | None = None) -> Encoding:
    """The encoding of an HTML document ``body`` served with header ``content_type`` (see the module
    docstring). Never raises."""
    declared, where = _declared(body, content_type)
    browser = declared or BROWSER_DEFAULT
    for bom, name in _BOMS:
        if body.startswith(bom):
            return Encoding(name, declared, "bom", name)
    if declared and declared.startswith("utf-16"):
        # A header declaring UTF-16 without a BOM, over bytes that are plainly ASCII-compatible.
        if b"\x00" not in body[:1024]:
            return Encoding(
                "utf-8" if _utf8_verdict(body) is not False else _legacy(body), declared, "bytes", browser
            )
        return Encoding(declared, declared, where or "header", browser)
    verdict = _utf8_verdict(body)
    if verdict is None:  # pure ASCII: every ASCII-compatible declaration reads it the same
        return Encoding(browser, declared, where or "bytes", browser)
    if verdict:
        return Encoding("utf-8", declared, (where or "bytes") if declared == "utf-8" else "bytes", browser)
    if declared and declared != "utf-8":
        try:
            body.decode(python_codec(declared))
            return Encoding(declared, declared, where or "header", browser)
        except (UnicodeDecodeError, LookupError):
            pass
    return Encoding(_legacy(body), declared, "bytes", browser)


def decode_html(body: bytes, content_type: str | None = None) -> str:
    """``body`` as text, read with the encoding `sniff` decides (a BOM dropped, bad bytes replaced)."""
    enc = sniff(body, content_type)
    text = body.decode(enc.codec, "replace")
    return text[1:] if text.startswith("\ufeff") else text


def is_html_type(content_type: str | None) -> bool:
    """Whether a response's Content-Type is an HTML document (or says nothing, as some servers do)."""
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    return mime in ("", "text/html", "application/xhtml+xml")


def content_type_with(content_type: str | None, encoding: str) -> str:
    """``content_type`` with its charset parameter set to ``encoding`` (``text/html`` when empty)."""
    mime = (content_type or "").split(";", 1)[0].strip() or "text/html"
    return f"{mime}; charset={encoding}"
