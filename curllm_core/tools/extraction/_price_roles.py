"""What a price shown in a product block stands for: the price to pay, the regular price, shipping...

A product card shows several prices: "Reg. CAD 51.66 Sale CAD 34.42", "was £20 now £15",
"UVP 29,99 € 19,99 €", "+ 4,90 € Versand", "(3,50 €/kg)", "£1.20/100g", "ab 12,99 € mtl.", a
struck-through ``<del>`` next to the current one. Each price gets a **role** from the words right
before and after it (`text_role`, in the languages shops use) and from the markup holding it
(`markup_role`: struck-through elements, class names such as ``price--old`` or ``unit-price``,
matched as whole words so that ``a-text-bold`` is not "old"):

- ``current``: the price to pay (a sale price, or the only price shown);
- ``regular``: the price before a reduction (was, UVP, statt, przed obniżką, au lieu de, struck through);
- ``reference``: a price for comparison only (the lowest price of the last 30 days);
- ``net``: a price before tax ("£4.17 ex VAT", "netto", "HT", "（税抜）", a column headed "Ex VAT"): the price only
  when no price with tax is shown;
- ``other``: another seller's or condition's offer ("Andere Angebote", "more buying choices");
- ``tier``: a price for a quantity ("ab 10 Stk. 3,99 €", "od 10 szt.", "10 pcs: $3.99"): of several,
  the first shown (the smallest quantity's) is the price, not the lowest;
- ``conditional``: a price for members or card holders only ("Member price", "Mitgliederpreis", "cena
  klubowa", "prix adhérent"): the price only when no other is shown;
- ``piece``: a price per piece or pack ("/ szt.", "/ Unit", "each"): the price only when nothing else is;
- ``unit``: a price per measure or per month ("/kg", "/100 g", "1 l = ...", "mtl."): never the price;
- ``shipping``: postage or delivery ("+ 4,90 € Versand", "+£35.27 postage"): never the price; a price
  followed by "zzgl. Versand", "+ shipping" is the product's, shipping extra;
- ``multibuy``: a price for several ("2 for $5", "3 für 10 €", "2 za 15 zł"): never the price;
- ``saving``: what a reduction saves ("Save 40p", "Sie sparen 10 €", "Oszczędzasz 50 zł", "Risparmi
  € 200"): never the price.

No site's words or class names: every word list is a language's ordinary vocabulary.
"""

from __future__ import annotations

import re
from functools import lru_cache

from selectolax.lexbor import LexborNode

CURRENT = "current"
REGULAR = "regular"
REFERENCE = "reference"
NET = "net"
OTHER = "other"
PIECE = "piece"
UNIT = "unit"
SHIPPING = "shipping"
CONDITIONAL = "conditional"
TIER = "tier"
SAVING = "saving"
MULTIBUY = "multibuy"
#: Roles that can be a product's price, best first (the others never are).
PRICE_ROLES = (CURRENT, TIER, NET, OTHER, PIECE, REGULAR, CONDITIONAL)

_REGULAR_WORDS = (
    # en
    "was", "were", "reg", "regular", "regularly", "orig", "original", "originally", "list", "list price",
    "rrp", "msrp", "srp", "compare at", "typical price", "instead of", "before", "retail",
    # de
    "uvp", "statt", "anstatt", "vorher", "bisher", "früher", "zuvor", "ursprünglich", "alter preis",
    "streichpreis", "unverbindliche preisempfehlung", "listenpreis",
    # pl
    "przed obniżką", "cena regularna", "regularna", "poprzednia cena", "poprzednio", "stara cena",
    "cena katalogowa", "zamiast", "było", "bylo",
    # fr
    "avant", "au lieu de", "prix barré", "ancien prix", "prix initial", "prix conseillé", "pvc", "prix de référence",
    # es, it, nl
    "antes", "precio anterior", "prima", "prezzo consigliato", "era", "van", "adviesprijs",
)  # fmt: skip
_REFERENCE_WORDS = (
    "lowest price", "najniższa cena", "najnizsza cena", "niedrigster preis", "niedrigster gesamtpreis",
    "tiefstpreis", "prix le plus bas", "precio más bajo", "prezzo più basso", "laagste prijs",
)  # fmt: skip
# "... of the last 30 days": the number ends ``before`` just ahead of these words.
_DAYS = ("days", "day", "dni", "dniach", "tage", "tagen", "jours", "días", "dias", "giorni", "dagen")
_CURRENT_WORDS = (
    "now", "sale", "sale price", "our price", "special price", "deal", "only", "you pay", "price",
    "jetzt", "nur", "nur noch", "aktionspreis", "angebot", "preis", "sonderpreis",
    "teraz", "tylko", "cena", "cena promocyjna", "promocja", "w promocji", "za",
    "maintenant", "prix", "soldé", "seulement", "ahora", "ora", "prezzo", "nu", "prijs",
)  # fmt: skip
_OTHER_WORDS = (
    "other offers", "other sellers", "more buying choices", "used from", "new from", "refurbished from",
    "andere angebote", "weitere angebote", "gebraucht ab", "gebraucht", "neu ab",
    "inne oferty", "używany", "uzywany", "autres offres", "d'occasion", "occasion dès",
)  # fmt: skip
_CONDITIONAL_WORDS = (
    "member price", "members price", "member's price", "members' price", "member", "members", "for members",
    "club price", "card price", "with card", "with club card", "loyalty price", "with subscription",
    "subscribe & save", "subscribe and save", "mitgliederpreis", "für mitglieder", "mitglieder", "clubpreis",
    "kartenpreis", "mit karte", "mit kundenkarte", "cena klubowa", "dla członków", "z kartą", "cena z kartą",
    "z kartą klubową", "cena w aplikacji", "w aplikacji", "z aplikacją", "prix adhérent", "prix adhérents",
    "prix membre", "avec la carte", "prix carte", "prix fidélité", "precio socio", "precio para socios",
    "para socios", "con tarjeta", "prezzo soci", "prezzo socio", "per i soci", "con carta", "con la carta",
    "ledenprijs", "voor leden", "met klantenkaart", "met bonuskaart",
)  # fmt: skip
_SHIPPING_WORDS = (
    "shipping", "postage", "delivery", "p&p", "s&h", "shipping & handling", "freight",
    "versand", "versandkosten", "lieferung", "lieferkosten", "porto", "zzgl. versand",
    "dostawa", "dostawą", "dostawy", "z dostawą", "wysyłka", "wysyłką", "przesyłka", "kurier",
    "livraison", "frais de port", "frais de livraison", "envío", "envio", "spedizione", "verzending",
)  # fmt: skip
_SAVING_WORDS = (
    "save", "you save", "saving", "savings", "sparen", "sie sparen", "du sparst", "ersparnis", "gespart",
    "oszczędzasz", "oszczedzasz", "oszczędź", "oszczedz", "oszczędność", "oszczednosc", "taniej o",
    "économisez", "economisez", "économie", "ahorra", "ahorras", "ahorro", "risparmi", "risparmia",
    "risparmio", "bespaar", "je bespaart", "besparing",
)  # fmt: skip
_TAXES = ("vat", "tax", "taxes", "mwst", "ust", "gst", "tva", "iva", "btw", "podatku", "vat-u")
_WITHOUT = (
    "ex", "exc", "excl", "excluding", "exclusive of", "plus", "exkl", "zzgl", "ohne", "bez", "hors", "sans",
    "sin", "senza", "exclusief", "+",
)  # fmt: skip
#: A price before tax named so right after it ("ex VAT", "zzgl. MwSt.", "netto", "HT").
_NET_AFTER = (
    rf"(?:{'|'.join(re.escape(w) for w in _WITHOUT)})\.?\s*(?:{'|'.join(_TAXES)})(?!{{w}})|netto(?!{{w}})|ht(?!{{w}})"
    rf"|hors taxes|iva (?:esclusa|excluida)|税抜き?|税別|不含税"
)
#: ... or right before it ("Netto:", "cena netto", "Prix HT", a column headed "Ex VAT").
_NET_BEFORE = rf"(?:{_NET_AFTER}|net price|nettopreis|preis netto|cena netto|prix ht|本体価格)\W*$"
#: Words after a price that add something to it ("zzgl. Versand", "+ shipping"): the price is not that.
_ADDED = r"\W*(?:\+|zzgl|plus|excl|exkl|excluding|bez|ohne|sans|hors|sin)"
_MEASURES = (
    "kg", "g", "mg", "dag", "dkg", "l", "ltr", "ml", "cl", "dl", "m", "cm", "mm", "km", "m²", "m2", "m³", "m3",
    "qm", "lb", "lbs", "oz", "fl oz", "gal", "ft", "sq ft", "yd", "liter", "litre", "litr", "meter", "metre",
    "metr", "kilo", "kilogram", "kilogramm", "gramm", "gram", "stunde", "hour", "hr", "h", "godz",
    "wash", "waschgang", "wl", "tab", "kwh",
)  # fmt: skip
_PIECES = (
    "szt", "sztuka", "sztukę", "stk", "stück", "st", "pc", "pcs", "piece", "pieces", "unit", "units", "item",
    "ea", "each", "pièce", "pce", "unité", "paar", "pair", "para", "pack", "packung", "opak", "op",
)  # fmt: skip
#: A price per piece said without "per" ("$2.99 each", "3,99 € pro Stück", "1,20 zł za sztukę").
_EACH = (
    "each", "ea", "apiece", "pro stück", "je stück", "das stück", "za sztukę", "za sztuke", "la pièce",
    "l'unité", "cada uno", "cad.", "al pezzo", "per stuk", "per stuk.",
)  # fmt: skip
_MONTHS = (
    "mo", "mon", "month", "monat", "mtl", "mies", "miesiąc", "miesięcznie", "mois", "mes", "mese", "maand",
    "monatlich", "per month", "a month", "pro monat", "im monat", "par mois", "al mes", "rat", "raty", "rata",
)  # fmt: skip
_PER = r"(?:/|per\b|je\b|pro\b|za\b|le\b|la\b|a\b|the\b|an\b|x\b)"


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_W = r"[^\W\d_]"  # a letter
_DIGIT_RE = re.compile(r"\d")
# Words standing right before the price (at the end of ``before``) or right after it.
_FROM = r"(?:\W+(?:from|od|ab|dès|desde|da|vanaf))?"
_BEFORE_RES = {
    MULTIBUY: re.compile(r"(?:^|\s)\d{1,2}\s*(?:for|für|fuer|za|pour|por|per|voor)\s*$", re.I),
    SAVING: re.compile(rf"(?<!{_W})(?:{_alternation(_SAVING_WORDS)})\W*$", re.I),
    SHIPPING: re.compile(rf"(?:^|\s|\()\+\s*$|(?<!{_W})(?:{_alternation(_SHIPPING_WORDS)}){_FROM}\W*$", re.I),
    CONDITIONAL: re.compile(rf"(?<!{_W})(?:{_alternation(_CONDITIONAL_WORDS)})\W*$", re.I),
    # Nothing but pieces since the quantity before it: "ab 10 Stk. 3,99 €", "10 pcs: $3.99".
    TIER: re.compile(rf"(?:^\W*|\d\+?\s*)(?:{_alternation(_PIECES)})(?!{_W})[.:\s]*$", re.I),
    REFERENCE: re.compile(
        rf"(?<!{_W})(?:{_alternation(_REFERENCE_WORDS)})(?!{_W})|^\W*(?:{_alternation(_DAYS)})(?!{_W})", re.I
    ),
    REGULAR: re.compile(rf"(?<!{_W})(?:{_alternation(_REGULAR_WORDS)})\W*$", re.I),
    OTHER: re.compile(rf"(?<!{_W})(?:{_alternation(_OTHER_WORDS)})(?!{_W})[^\d]{{0,24}}$", re.I),
    NET: re.compile(rf"(?<!{_W})(?:{_NET_BEFORE.format(w=_W)})", re.I),
    UNIT: re.compile(
        rf"(?:^|\d)\s*(?:{_alternation(_MEASURES)})\s*[=:]\s*$|(?<!{_W})(?:{_alternation(_MEASURES)})\s*=\s*$",
        re.I,
    ),
}
_AFTER_RES = {
    SHIPPING: re.compile(rf"^(?!{_ADDED}(?!{_W}))\W{{0,3}}(?:{_alternation(_SHIPPING_WORDS)})(?!{_W})", re.I),
    NET: re.compile(rf"^\W{{0,3}}(?:{_NET_AFTER.format(w=_W)})", re.I),
    UNIT: re.compile(
        rf"^\s*(?:{_PER}\s*(?:\d+(?:[.,]\d+)?\s*)?(?:{_alternation(_MEASURES + _MONTHS)})(?!{_W})"
        rf"|\.?\s*(?:{_alternation(_MONTHS)})(?!{_W}))",
        re.I,
    ),
    PIECE: re.compile(
        rf"^\s*(?:{_PER}\s*(?:\d+\s*)?(?:{_alternation(_PIECES)})|{_alternation(_EACH)})(?!{_W})", re.I
    ),
    REGULAR: re.compile(r"^\s*\)?\s*(?:uvp|rrp|msrp)(?![^\W\d_])", re.I),
}
_CURRENT_BEFORE_RE = re.compile(rf"(?<!{_W})(?:{_alternation(_CURRENT_WORDS)})\W*$", re.I)
#: The unit price by its label anywhere before it ("Grundpreis: 3,50 €/kg", "cena jednostkowa").
_UNIT_LABEL_RE = re.compile(
    r"grundpreis|unit price|price per|cena jednostkowa|cena za (?:kg|litr|l|100)|prix au (?:kilo|litre)|prix unitaire|"
    r"preis pro|preis je|prezzo al",
    re.I,
)


@lru_cache(maxsize=8192)
def text_role(before: str, after: str) -> str | None:
    """The role the words around a price give it (None: they say nothing). ``before`` is the text
    between the previous number and the price, ``after`` the text up to the next number."""
    digit = _DIGIT_RE.search(after)
    head = after[: digit.start()] if digit else after
    for role, rx in _AFTER_RES.items():
        if role == REGULAR or not rx.search(after):
            continue
        # "39,99 zł Dostawa od 9,99 zł": a shipping word that leads to the next price is that one's.
        if role == SHIPPING and digit and _BEFORE_RES[SHIPPING].search(head):
            continue
        return role
    for role, rx in _BEFORE_RES.items():
        if rx.search(before):
            return role
    if _UNIT_LABEL_RE.search(before):
        return UNIT
    if before.rstrip().endswith("(") and after.lstrip().startswith("/"):
        return UNIT
    if _AFTER_RES[REGULAR].search(after):
        return REGULAR
    return None


@lru_cache(maxsize=8192)
def says_current(before: str) -> bool:
    """Whether the words right before a price name it the price to pay ("now", "Sale", "jetzt", "teraz")."""
    return bool(_CURRENT_BEFORE_RE.search(before))


# --- markup ----------------------------------------------------------------------------------------

_CAMEL_RE = re.compile(r"(?<=[a-z])(?=[A-Z])")
_TOKEN_SPLIT_RE = re.compile(r"[^a-z0-9]+")
_REGULAR_TOKENS = frozenset(
    "old was before regular reg rrp msrp uvp previous prev original orig strike striked strikethrough "
    "strikeout struck crossed crossedout linethrough oldprice wasprice listprice regularprice "
    "crossprice streich streichpreis retail compareat".split()
)
_UNIT_TOKENS = frozenset("unitprice baseprice grundpreis perunit ppu priceperunit basisprice".split())
_SHIPPING_TOKENS = frozenset("shipping delivery postage versand dostawa livraison freight".split())
_SAVING_TOKENS = frozenset("save saving savings yousave ersparnis risparmio ahorro".split())
_CONDITIONAL_TOKENS = frozenset(
    "member members memberprice clubprice loyalty loyaltyprice mitglied mitglieder klubowa adherent".split()
)
_PRICE_TOKEN_RE = re.compile(r"price|preis|cena|prix|prezzo|precio|amount|cost", re.IGNORECASE)


#: Words of a class name about type ("font-size--regular", "fw-regular", "text-regular"): a style
#: word beside them is the typeface's, not the price's role.
_TYPE_WORDS = frozenset("font fontsize size weight fw fs text type typo typeface line".split())
_TYPE_STYLES = frozenset({"regular", "old", "original"})


@lru_cache(maxsize=8192)
def class_tokens(flags: str) -> frozenset:
    """The words of class names and similar attributes: ``price--old`` -> {price, old},
    ``oldPrice`` -> {old, price, oldprice}, ``a-text-bold`` -> {a, text, bold}."""
    tokens: set[str] = set()
    for name in flags.split():
        words = [w for w in _TOKEN_SPLIT_RE.split(_CAMEL_RE.sub("-", name).lower()) if w]
        if _TYPE_WORDS.intersection(words):  # "font-size--regular", "fw-regular": a typeface, no role
            words = [w for w in words if w not in _TYPE_STYLES]
        tokens.update(words)
        tokens.add("".join(words))  # "old-price" also as "oldprice"
    return frozenset(tokens)


#: Words that join two things in one class name ("product-price-and-shipping"): such a name is a
#: wrapper of both, and says nothing of the role of the prices in it.
_JOIN_WORDS = frozenset("and und et n".split())


@lru_cache(maxsize=8192)
def _role_tokens(flags: str) -> frozenset:
    """`class_tokens` of the names that can give a price a role: not those joining two things."""
    kept = []
    for name in flags.split():
        words = _TOKEN_SPLIT_RE.split(_CAMEL_RE.sub("-", name).lower())
        if not _JOIN_WORDS.intersection(words[1:-1]):
            kept.append(name)
    return class_tokens(" ".join(kept))


def markup(node: LexborNode) -> tuple[str | None, bool]:
    """What an element's own markup says of the prices in it: (role, price-classed). The role is
    ``regular`` when struck through or classed old, ``unit`` when classed per unit, ``shipping``,
    ``saving``, ``conditional`` when classed for members, or None; price-classed when a class, itemprop, test id
    or id names a price."""
    attrs = node.attributes
    if not attrs:
        return (REGULAR if node.tag in ("s", "del", "strike") else None), False
    flags = " ".join(
        v for k in ("class", "itemprop", "data-test", "data-testid", "id") if (v := attrs.get(k))
    )
    classed = bool(flags) and _PRICE_TOKEN_RE.search(flags) is not None
    if (
        node.tag in ("s", "del", "strike")
        or attrs.get("data-a-strike") == "true"
        or "line-through" in (attrs.get("style") or "")
    ):
        return REGULAR, classed
    if not flags:
        return None, False
    tokens = _role_tokens(flags)
    if tokens & _SHIPPING_TOKENS:
        return SHIPPING, classed
    if tokens & _SAVING_TOKENS:
        return SAVING, classed
    if (
        tokens & _UNIT_TOKENS
        or ("unit" in tokens and "price" in tokens)
        or ("per" in tokens and "unit" in tokens)
    ):
        return UNIT, classed
    if tokens & _REGULAR_TOKENS:
        return REGULAR, classed
    if tokens & _CONDITIONAL_TOKENS:
        return CONDITIONAL, classed
    return None, classed


def markup_role(node: LexborNode) -> str | None:
    """The role an element's own markup gives the prices in it (see `markup`)."""
    return markup(node)[0]


def price_classed(node: LexborNode) -> bool:
    """Whether an element says it holds a price (class, itemprop, test id or id naming one)."""
    attrs = node.attributes
    for name in ("class", "itemprop", "data-test", "data-testid", "id"):
        value = attrs.get(name)
        if value and _PRICE_TOKEN_RE.search(value):
            return True
    return False
