"""A product block's name: the product title, not a seller, a badge, a price or a spec line.

Candidates, best first: a heading, an element whose class/itemprop/test id says name or title, the
text of the block's main link, its title/aria-label attributes, its image's alt text. Each loses
points for what titles are not: a rating ("4,5 von 5 Sternen"), a price, a tiny or huge text. On
top of that, in every language shops use:

- **Seller and shop names** are no product names: an element classed seller/shop/store/merchant/
  vendor/user (``seller-name`` says "name" too) and a link to a seller's page are skipped.
- **Badges** ("NEW!", "Neues Angebot", "Sponsored", "Bestseller", "Nowość", "-20%") are no names,
  and one that opens or closes the title element in its own element is cut off.
- **Spec lines** that follow the title in the same element ("… (7D75-001R) Formfaktor: ATX •
  Sockel: AMD AM5 …") are cut off: when a name element holds the main link and more text, the
  link's text is the title; a "Key: value • Key: value" run after a title is cut in text too.
- **Decoration** around a title ("»", "›", "→", "•") is trimmed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from selectolax.lexbor import LexborNode

from ...prices import has_currency_mark, parse_price
from ...text import collapse_space
from ._html import visible_text
from ._price_roles import class_tokens

HEADINGS = "h1, h2, h3, h4, h5, h6, [role=heading]"
NAMED = ", ".join(
    f'[{attr}*="{word}" i]'
    for attr in ("class", "itemprop", "data-test", "data-testid")
    for word in ("name", "title", "titel", "titre", "titolo", "titulo", "tytul", "nazwa", "nombre", "naam")
)
#: "name" and "title" in the languages class names are written in.
_NAME_ATTR_RE = re.compile(
    r"(?<!sub)(?<!unter)(name|title|titel|titre|titolo|titulo|tytul|nazwa|nombre|naam)", re.IGNORECASE
)
_DIGIT_RE = re.compile(r"\d")
_RATING_RE = re.compile(
    r"(\d(?:[.,]\d{1,2})?)\s*(?:out of|of|von|z|de|sur|su|/)\s*5(?![\d.,])", re.IGNORECASE
)
_RATING_WORDS_RE = re.compile(
    r"\b(stars?|sterne[n]?|gwiazdk|étoiles|estrellas|reviews?|ratings?|opini|bewertung|rezension|avis)",
    re.IGNORECASE,
)
#: Labels that mark an ad; exact (a title that contains "ad" is still a title).
SPONSORED_RE = re.compile(
    r"^\[?(sponsored|gesponsert|sponsorowane|sponsorowany|anzeige|reklama|ad|ads|promoted|promowane|"
    r"sponsoris[ée]e?|publicit[ée]|patrocinado|sponsorizzato|gesponsord)\]?$",
    re.IGNORECASE,
)
#: Badges shops put on or above a title.
BADGE_RE = re.compile(
    r"^[\[(]?(?:new|neu|neuheit|neues angebot|nowo(?:ść|sc)|nowy|nowa|nouveau|nouveauté|nouveaute|nuevo|novità|"
    r"sale|hot|top|hit|deal|deal of the day|angebot|tagesangebot|bestseller|best seller|bestseller nr\.? ?\d+|"
    r"#\d+ bestseller|editor'?s choice|top choice|our choice|promo|promocja|promotion|superpromocja|okazja|outlet|exclusive|"
    r"exklusiv|limited|limitiert|free shipping|gratis versand|darmowa dostawa|livraison gratuite|"
    r"-?\d{1,2} ?%(?: off| rabatt| taniej)?|sponsored|gesponsert|sponsorowane|anzeige|reklama|ad|"
    r"sponsoris[ée]e?|publicit[ée])[\])]?\s*[!:.]*$",
    re.IGNORECASE,
)
#: Class words of elements that name a seller, a shop or a user, not the product.
_SELLER_TOKENS = frozenset(
    "seller sellers shop shops store stores merchant merchants vendor vendors user username author "
    "dealer retailer company firma sklep sprzedawca haendler handler verkaeufer verkaufer anbieter "
    "vendeur boutique marchand negozio tienda supplier manufacturer".split()
)
#: Links to a seller's or shop's page (paths), whose text is that seller's name.
SELLER_PATH_RE = re.compile(
    r"/(?:shop|shops|store|stores|seller|sellers|user|users|usr|profile|profil|merchant|vendor|vendors|"
    r"haendler|handler|verkaeufer|sklep|sprzedawca|uzytkownik|boutique|vendeur|supplier|company)(?:/|$|\?|-)",
    re.IGNORECASE,
)
_EDGE_DECORATION = "»«›‹→←↗▶►▸◂◀•·|*✓✔★☆ \u00a0-–—:"
#: ": value •" of a "Key: value • Key: value" spec line glued on after a title.
_SPEC_RE = re.compile(r":\s[^•|·:]{1,80}\s[•|·]\s")


def _cut_spec(text: str) -> str:
    """``text`` without a "Key: value • Key: value" line after its title: the key is the one to three
    words before the first such colon, beginning with a capital ("Formfaktor", "Form factor")."""
    m = _SPEC_RE.search(text)
    if m is None:
        return text
    words = text[: m.start()].split(" ")
    for n in (1, 2, 3):
        if n < len(words) and words[-n][:1].isupper():
            title = " ".join(words[:-n]).rstrip(_EDGE_DECORATION)
            return title if len(title) >= 8 else text
    return text


def clean_name(text: str) -> str:
    """``text`` without decoration around it and without a spec line after the title."""
    return _cut_spec(text.strip(_EDGE_DECORATION))


def _seller_element(node: LexborNode) -> bool:
    cls = node.attributes.get("class") or ""
    test = node.attributes.get("data-testid") or node.attributes.get("data-test") or ""
    return bool((cls or test) and class_tokens(f"{cls} {test}") & _SELLER_TOKENS)


#: Class words (by convention, in any site's naming) of a badge: an element that labels a title.
BADGE_CLASS_WORDS = frozenset(
    "badge badges pill chip chips tag tags flag flags ribbon sticker stamp lozenge label labels "
    "marker callout".split()
)
_WORDS_RE = re.compile(r"[^\W\d_]{3,}")
_EMPHASIS = frozenset({"em", "mark", "b", "strong"})
MAX_BADGE = 24  # a badge is a word or three: a longer piece is part of the title


def _badge_element(leaf: LexborNode, node: LexborNode, piece: str) -> bool:
    """Whether the element holding text ``piece`` (or the one around it, within ``node``) is classed
    or marked as a badge by convention and holds nothing else."""
    if len(piece) > MAX_BADGE or len(piece.split()) > 3:
        return False
    current = leaf.parent
    for _ in range(2):
        if current is None or current.mem_id == node.mem_id:
            return False
        attrs = current.attributes
        flags = " ".join(filter(None, (attrs.get("class"), attrs.get("data-testid"), attrs.get("data-test"))))
        if collapse_space(current.text(deep=True)) != piece:
            return False
        if flags and class_tokens(flags) & BADGE_CLASS_WORDS:
            return True
        current = current.parent
    return False


def without_badges(node: LexborNode, text: str) -> str:
    """``text`` (the visible text of ``node``) without a badge that opens or closes it in an element of
    its own: a badge's words ("<span>NEU</span> Tasse Weiß" -> "Tasse Weiß"), or any short piece in
    an element classed as a badge by convention (badge, pill, chip, tag, flag, ribbon, label: "<span
    class='c-pill'>Top 10</span>Samsung Galaxy" -> "Samsung Galaxy"), or symbols alone ("Park Inn
    <span>★★★★</span>" -> "Park Inn"). "New Balance 574" stays whole."""
    if not text or node.child is None:
        return text
    leaves = [
        n for n in node.traverse(include_text=True) if n.tag == "-text" and (n.text_content or "").strip()
    ]
    if len(leaves) < 2:
        return text
    for leaf in (leaves[0], leaves[-1]):
        piece = collapse_space(leaf.text_content)
        parent = leaf.parent
        if parent is None or parent.mem_id == node.mem_id:
            continue
        if not any(ch.isalnum() for ch in piece):
            pass  # symbols alone in an element of their own (a rating's stars "★★★★"): no words of it
        elif BADGE_RE.match(piece):
            # An emphasised word is a search term highlighted in the title ("<em>New</em> Castle").
            if parent.tag in _EMPHASIS or collapse_space(parent.text(deep=True)) != piece:
                continue
        elif not _badge_element(leaf, node, piece) or _WORDS_RE.search(text.replace(piece, "", 1)) is None:
            continue  # what a classed badge leaves must still read as a title
        if text.startswith(piece) and len(text) - len(piece) >= 3:
            text = text[len(piece) :].lstrip(" :-–|")
        elif text.endswith(piece) and len(text) - len(piece) >= 3:
            text = text[: -len(piece)].rstrip(" :-–|")
    return text


def penalty(text: str) -> float:
    """How unlike a product title ``text`` is (0: not at all; 100: never a title)."""
    if len(text) < 3 or SPONSORED_RE.match(text) or BADGE_RE.match(text):
        return 100.0
    score = 0.0
    if len(text) < 8:
        score += 1.5
    # "4,5 von 5 Sternen", "137 opinii", "9,582 ratings" - but not "Star Projector for Bedroom".
    if _RATING_RE.search(text) or (
        len(text) < 40 and _DIGIT_RE.search(text) and _RATING_WORDS_RE.search(text)
    ):
        score += 3
    if has_currency_mark(text) and (price := parse_price(text)) is not None:
        # A price label is no title; a title that mentions a price ("607hdi 136 ch 950 euro") is.
        score += 100 if len(re.sub(r"[\d\s.,]", "", str(price.amount))) + len(text) < 16 else 2
    if len(text) > 300:
        score += 2
    return score


def _link_text(link: LexborNode, main_links: list[LexborNode]) -> str:
    """The text of a main link, or "" when it is the whole card (a link around the block; a card a
    script opens, ``data-href``, whose lines are blocks of their own)."""
    if link.css_first(HEADINGS) is not None or len(link.text(deep=True)) > 400:
        return ""
    if link.tag != "a" and link.css_first("p, div, li, dd, section") is not None:
        return ""
    return visible_text(link)


def _within(node: LexborNode, ancestor: LexborNode) -> bool:
    current = node.parent
    for _ in range(6):
        if current is None:
            return False
        if current.mem_id == ancestor.mem_id:
            return True
        current = current.parent
    return False


def _named_text(node: LexborNode, main_links: list[LexborNode]) -> str:
    """The text of a name/title element; its main link's text alone when the element also holds a
    spec line or other text after the title."""
    text = without_badges(node, visible_text(node))
    for link in main_links:
        if not _within(link, node):
            continue
        if len(link.text(deep=True).strip()) >= len(node.text(deep=True).strip()):
            break  # the link is the whole element
        link_text = visible_text(link)
        if len(link_text) < 3 or link_text == text:
            break
        rest = text.replace(link_text, "", 1)
        if not re.search(r"[^\W_]", rest) or (len(link_text) >= 8 and len(rest) >= 20):
            return link_text
        if len(link_text) >= 8 and _on_lines_of_their_own(node, link):
            return link_text  # the rest is a line below the name ("SKU 900"), not a part of it
        break
    return text


_LINE_TAGS = frozenset({"div", "p", "ul", "ol", "li", "dl", "dt", "dd", "table", "section"})


def _on_lines_of_their_own(node: LexborNode, link: LexborNode) -> bool:
    """Whether every word of ``node`` outside ``link`` stands in a block element of its own (a line
    below or above the name), not inline beside it."""
    for text_node in node.traverse(include_text=True):
        if text_node.tag != "-text" or not (text_node.text_content or "").strip() or _within(text_node, link):
            continue
        current = text_node.parent
        while current is not None and current.mem_id != node.mem_id and current.tag not in _LINE_TAGS:
            current = current.parent
        if current is None or current.mem_id == node.mem_id:
            return False  # words inline beside the link
    return True


def _name_flags(node: LexborNode) -> str:
    attrs = node.attributes
    return " ".join(v for k in ("class", "itemprop", "data-test", "data-testid") if (v := attrs.get(k)))


def _holds_a_name(node: LexborNode) -> bool:
    """Whether a name/title element holds another one that is no brand, with a title's length of its
    own: the outer one joins the name with a subtitle or a line beside it."""
    for inner in node.css(NAMED):
        if inner.mem_id == node.mem_id:
            continue
        flags = _name_flags(inner)
        if not _NAME_ATTR_RE.search(flags) or "brand" in class_tokens(flags) or _seller_element(inner):
            continue
        text = visible_text(inner)
        if len(text) >= 3 and text != visible_text(node):
            return True
    return False


def best_name(member: LexborNode, main_links: list[LexborNode], skip: Iterable[str] = ()) -> str | None:
    """The product title of block ``member`` whose main link is ``main_links`` (see the module
    docstring); ``skip`` holds texts that are known not to be it (the block's price label)."""
    skipped = set(skip)
    candidates: list[tuple[float, int, str]] = []

    def add(text: str | None, weight: float) -> None:
        text = clean_name(collapse_space(text))
        if not text or text in skipped:
            return
        candidates.append((weight - penalty(text), -len(candidates), text))

    for heading in member.css(HEADINGS):
        if (
            heading.mem_id != member.mem_id
            and len(heading.text(deep=True)) < 600
            and not _seller_element(heading)
        ):
            add(_named_text(heading, main_links), 4)
    if candidates and max(candidates)[0] >= 4:
        return _whole(max(candidates)[2], member)  # a clean heading: nothing else can score higher
    for node in member.css(NAMED):
        if node.mem_id == member.mem_id or len(node.text(deep=True)) >= 600:
            continue
        attrs = node.attributes
        flags = " ".join(v for k in ("class", "itemprop", "data-test", "data-testid") if (v := attrs.get(k)))
        if not _NAME_ATTR_RE.search(flags) or _seller_element(node):
            continue
        if node.tag == "a" and SELLER_PATH_RE.search(attrs.get("href") or ""):
            continue
        if _holds_a_name(node):
            continue  # "product-name" around "display-name" and "subtitle": the inner one is the name
        weight = 3.5 if "name" in flags.lower() else 3
        if "brand" in class_tokens(flags):
            weight -= 1.5  # a brand alone is part of a title, not the title
        add(_named_text(node, main_links), weight)
    for link in main_links:
        if link.tag != "a":  # a card a script opens: its first lines, each a block of its own
            blocks = link.css("p, div, span, li, dd")  # (a node's css() holds the node itself)
            lines = [b for b in blocks if all(d.mem_id == b.mem_id for d in b.css("p, div, li, dd"))]
            for k, line in enumerate([b for b in lines if visible_text(b)][:4]):
                add(without_badges(line, visible_text(line)), 2.5 - 0.1 * k)
        add(without_badges(link, _link_text(link, main_links)), 3)
        add(link.attributes.get("title"), 2)
        add(link.attributes.get("aria-label"), 2)
        img = link.css_first("img[alt]")
        if img is not None:
            add(img.attributes.get("alt"), 1)
    if not candidates:
        return None
    best = max(candidates)
    return _whole(best[2], member) if best[0] > -50 else None


_CUT_RE = re.compile(r"\s*(?:…|\.\.\.)\s*$")


def _whole(name: str, member: LexborNode) -> str:
    """A name the page shows cut short ("Wireless Over-Ear Headphones wi…") in whole, where the block
    holds it whole in an attribute (a link's ``title``, an ``aria-label``, a picture's ``alt``)."""
    cut = _CUT_RE.search(name)
    if cut is None:
        return name
    start = name[: cut.start()].casefold()
    if len(start) < 8:
        return name
    for node in member.css("[title], [aria-label], img[alt]"):
        for key in ("title", "aria-label", "alt"):
            whole = clean_name(collapse_space(node.attributes.get(key)))
            if len(whole) > len(start) and whole.casefold().startswith(start):
                return whole
    return name
