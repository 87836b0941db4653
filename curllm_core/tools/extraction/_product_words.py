"""The words product pages use, in the languages shops use: stock states, add-to-cart buttons,
what a price beside the product's price is (a saving, an instalment, the price before a discount),
the labels of identifiers ("SKU:", "Artikelnummer", "Kód:"), ratings and review counts.

Read by `product_detail`; no site's words, only each language's ordinary vocabulary.
"""

from __future__ import annotations

import re

#: "Notify me when it is back in stock": a page for a product that is not.
_BACK_IN_STOCK = (
    r"back in stock|wieder (?:auf lager|verf[uü]gbar)|powiadom o dost[eę]pno[sś]ci|de retour en stock"
)
# Checked before IN_STOCK: "niedostępny" contains "dostępny", "nicht verfügbar" "verfügbar",
# "není skladem" "skladem", "non disponibile" "disponibile".
OUT_OF_STOCK = re.compile(
    rf"(?<![^\W\d_])(?:{_BACK_IN_STOCK}|out of stock|sold out|currently unavailable|unavailable|no longer available|"
    r"niedost[eę]pn[yaei]|brak w magazynie|brak towaru|chwilowo niedost[eę]pny|wyprzedan[yae]|"
    r"nicht (?:mehr )?(?:verf[uü]gbar|lieferbar|auf lager|vorr[aä]tig)|ausverkauft|vergriffen|"
    r"rupture de stock|[eé]puis[eé]e?|indisponible|plus disponible|"
    r"agotado|sin stock|no disponible|esaurito|non disponibile|non disponible|"
    r"niet (?:op voorraad|leverbaar|beschikbaar)|uitverkocht|"
    r"nen[ií] skladem|vyprod[aá]no|nedostupn[eéý]|"
    r"slut i lager|slutsåld|ej i lager|tillfälligt slut|"
    r"ni na zalogi|ni dobavljivo|nedostupno|nije (?:dostupno|dostupan|na stanju|na zalihi)|rasprodano|"
    r"vypredan[eéý]|nie je (?:skladom|na sklade)|stoc epuizat|indisponibil|nu este [iî]n stoc|"
    r"esgotado|indispon[ií]vel|sem stock|sem estoque|nincs rakt[aá]ron|elfogyott|t[uü]kendi|stokta yok|"
    r"nav noliktav[aā]|nav pieejams|нет в наличии|распродано|нет на складе|немає в наявності|"
    r"udsolgt|utsolgt|ikke på lager|loppu varastosta|tilapäisesti loppu|εξαντλημένο|μη διαθέσιμο|"
    r"изчерпан|няма наличност|h[eế]t h[aà]ng|stok habis|غير متوفر|نفذت الكمية)(?![^\W\d_])"
    r"|在庫切れ|売り切れ|品切れ|缺货|售罄|无货|품절|일시품절|אזל מהמלאי|אינו במלאי|לא במלאי|สินค้าหมด",  # no spaces between Japanese words: no word boundaries either
    re.I,
)
IN_STOCK = re.compile(
    r"(?<![^\W\d_])(?:in stock|available now|ready to ship|\d+ available|only \d+ left|nur noch \d+|"
    r"[uú]ltimas unidades|ultimi (?:pezzi|disponibili)|derniers articles|laatste stuks|posledn[ií] kusy|"
    r"dost[eę]pn[yae]|w magazynie|na stanie|(?:du[zż]a|[sś]rednia|ma[lł]a) ilo[sś][cć]|ostatnie sztuki|"
    r"(?:auf|an) lager|lieferbar|sofort verf[uü]gbar|verf[uü]gbar|vorr[aä]tig|"
    r"en stock|disponible|disponibile|op voorraad|leverbaar|skladem|i lager|"
    r"na zalogi|dobavljivo|na stanju|dostupno|na sklade|skladom|[iî]n stoc|em stock|em estoque|dispon[ií]vel|"
    r"rakt[aá]ron|stokta(?: var)?|noliktav[aā]|в наличии|есть на складе|є в наявності|"
    r"på lager|varastossa|διαθέσιμο|σε απόθεμα|в наличност|c[oò]n h[aà]ng|tersedia|متوفر|"
    # A marketplace page without its own offer: other sellers sell it.
    r"available from these sellers|erh[aä]ltlich bei diesen anbietern|disponibile presso questi venditori|"
    r"disponible aupr[eè]s de ces vendeurs|disponible con estos vendedores)(?![^\W\d_])"
    r"|在庫あり|有货|现货|재고 있음|במלאי",
    re.I,
)
#: Picking up in a store, a separate matter from whether the product can be bought.
PICKUP = re.compile(
    r"pickup|pick up|click (?:&|and) collect|in store|odbi[oó]r osobisty|w sklepie stacjonarnym|abholung|"
    r"im markt|in der filiale|retrait|en magasin|en tienda|in negozio|v prodejn[eě]",
    re.I,
)
STOCK_IDS = ", ".join(
    f'[id*="{w}" i]'
    for w in ("availability", "stock", "dostepnosc", "verfuegbarkeit", "disponibilit", "lager")
)
CART_IDS = ", ".join(f'[id*="{w}" i]' for w in ("add-to-cart", "addtocart", "add_to_cart", "add-to-basket"))
#: Buttons that put this product in a cart: enabled, the product can be bought.
ADD_TO_CART = re.compile(
    r"add to (?:cart|basket|bag|trolley)|buy (?:it )?now|(?:dodaj )?do koszyka|kup teraz|in den warenkorb|"
    r"jetzt kaufen|ajouter au panier|acheter|a[ñn]adir al carrito|comprar|aggiungi al carrello|"
    r"in (?:de )?winkelwagen|do ko[šs][íi]ku|l[äa]gg i varukorgen|köp|"
    r"do ko[šs][ií]ka|k[uú]pi[tť]|(?:dodaj )?u ko[šs]aricu|v ko[šs]arico|adaug[aă] [iî]n co[sș]|"
    r"adicionar ao carrinho|kos[aá]rba|ielikt grozā|pievienot grozam|sepete ekle|в корзину|купить|"
    r"הוסף לסל|הוספה לסל|장바구니|구매하기|カートに入れる",
    re.I,
)
#: A price that is none of this product's prices: a saving, an instalment, a price without tax, a
#: conversion, a fee, reward points (the roles of `_price_roles` cover shipping, units, 30-day lows).
NOT_A_PRICE_BEFORE = re.compile(
    r"(?<![^\W\d_])(?:you save|save|saving|économisez|[eé]conomie|sparen sie|sie sparen|gespart|oszcz[eę]dzasz|"
    r"ahorras|ahorra|risparmi|bespaar|u bespaart|ušetříte|spara|"
    r"\d+\s*x|\d+\s*rat(?:y|ach)?\s*x?|payments? of|interest-free|sans frais|"
    r"soit|approximately|approx\.?|ca\.|environ|circa|"
    r"dont|éco-participation|eco-participation|pfand)\W*$",
    re.I,
)
#: "Open-Box: from", "12 offres à partir de": another offer's lowest. A label that starts with the
#: word ("From $19.99", "od 19,99 zł") is this product's own lowest price.
OTHER_FROM = re.compile(r"\w\W+(?:from|od|ab|à partir de|dès|desde|vanaf)\W*$", re.I)
PRICE_FROM = re.compile(r"(?:price|cena|preis|prix|precio|prezzo|prijs)\W+\w+\W*$", re.I)
NOT_A_PRICE_AFTER = re.compile(
    r"^\W{0,3}(?:HT|bez DPH|netto|net|excl\.?|ex\.? vat|exkl\.?|ohne mwst|sans frais|x\b|"
    r"/\s*m[åa]n|/\s*mo|per month|kr/m[åa]n|ポイント)",
    re.I,
)
#: A price without tax, labelled before it: "Brez DDV: 36,53 €", "Netto: 81,30 zł", "bez DPH 4 386,00 €"
#: (after it, "29,90 € HT", it is `NOT_A_PRICE_AFTER`'s).
NET_BEFORE = re.compile(
    r"(?<![^\W\d_])(?:netto|net price|prix net|nettopreis|cena netto|cena bez (?:dph|vat|pdv)|"
    r"excl\.? (?:vat|tax)|ex\.? vat|exkl\.? mwst\.?|ohne mwst\.?|without (?:vat|tax)|hors taxes?|sans tva|"
    r"sin iva|senza iva|bez (?:dph|pdv|vat)|brez ddv|f[aă]r[aă] tva|без ндс|без пдв)\W*$",
    re.I,
)
#: "Regular price" words after the price ("1 299,00 zł cena przed obniżką", "(UVP)").
REGULAR_AFTER = re.compile(r"^\W{0,3}(?:cena przed obni[zż]k[aą]|uvp|rrp|msrp)(?![^\W\d_])\D*$", re.I)
#: A regular-price word right after a price that labels the next one ("19,99 € UVP 24,99 €").
NEXT_LABEL = re.compile(
    r"^\W{0,3}(?:uvp|rrp|msrp|statt|was|avant|antes|van|zamiast)(?![^\W\d_])\D{0,20}\d", re.I
)
REGULAR_BEFORE = re.compile(
    r"(?<![^\W\d_])(?:ord\.? pris|ordinarie pris|p[uů]vodn[eě]|p[uů]vodn[ií] cena|b[eě][zž]n[aá] cena|"
    r"doporu[cč]en[aá] cena|prix de r[eé]f[eé]rence|prezzo consigliato|precio recomendado|m\.?r\.?p\.?)\W*$",
    re.I,
)
#: Class names, ids or itemprops of an element holding the brand ("product-brand", "vendor").
BRAND_CLASS = re.compile(r"brand|vendor|manufacturer|marke|marka|marque|hersteller|producent", re.I)
#: Class-name words of a crossed-out price besides those `_price_roles` knows (French, Czech, Spanish).
REGULAR_CLASS = re.compile(r"barr[eé]|puvodni|anterior|standard|durchgestrichen|przekreslon", re.I)

# Labels of a product's identifiers, as shops print them ("SKU: X", "Artikelnummer | X"). Each
# field's labels best first: a field's first label found decides, even when it says "no value".
_LABELS = {
    "sku": [
        # The shop's own number for the product, named as such.
        r"sku|kod produktu|kod towaru|numer katalogowy|nr kat(?:alogowy)?\.?|artikelnummer|artikel-?nr\.?|"
        r"art\.?-nr\.?|art\.?\s?nr\.?|artikel-id|produktnummer|produkt-id|bestellnummer|best\.?-nr\.?|"
        r"item (?:no\.?|code)|product (?:code|id|no\.?)|asin|"
        r"codice (?:prodotto|articolo)|c[oó]digo (?:del )?(?:producto|art[ií]culo|produto)|code (?:produit|article)|"
        r"num[ée]ro (?:d'article|de produit)|cod(?:ul)? produs|[sš]ifra(?: (?:proizvoda|artikla|izdelka))?|"
        r"k[oó]d (?:produktu|tovaru|proizvoda)|katalogov[eé] [cč][ií]slo|tootekood|preces kods|prek[eė]s kodas|"
        r"cikksz[aá]m|term[eé]kk[oó]d|[uü]r[uü]n kodu|артикул|код товара|код продукта|קוד מוצר|מק\"ט|"
        r"varenummer|varenr\.?|artikelnr\.?|tuotekoodi|tuotenumero|κωδικός(?: προϊόντος)?|κωδ\.|"
        r"код на продукта|kod produktu|m[aã] s[aả]n ph[aẩ]m|kode produk|"
        r"商品番号|品番|商品コード|商品编号|商品編號|货号|상품번호|상품코드|품번",
        # A shorter word that is a product number on a product's page, after the ones above.
        r"kod|k[oó]d|indeks|symbol|r[ée]f[ée]rence|r[ée]f\.?|ref\.?|referencia|refer[eê]ncia|codice|c[oó]digo|"
        r"style|код",
        # A marketplace's number for the listing: the product's number when nothing else names one.
        # A marketplace's own name may stand before or after it ("X item number", "X-Artikelnummer",
        # "Número de artículo de X").
        r"(?:\w+[ -])?(?:item (?:number|id)|artikelnummer|numer przedmiotu|num[ée]ro (?:dell'oggetto|oggetto|de "
        r"l'objet)|n[uú]mero (?:del art[ií]culo|de art[ií]culo|do an[uú]ncio))(?: (?:de |di )?\w+)?|"
        r"listing (?:number|id)|objektnummer|post id|ad (?:id|number|no\.?)|"
        r"anzeige(?:nnummer|n-id|-nr\.?)?|angebotsnummer|numer ogłoszenia|id ogłoszenia|oglas(?: id| br\.?)?|"
        r"id oglasa|n° (?:de l')?annonce|r[ée]f[ée]rence de l'annonce|номер объявления|объявление №|딜번호",
    ],
    "mpn": [
        r"mpn|manufacturer part number|kod producenta|herstellernummer|hersteller-?nr\.?|herstellerartikelnummer|"
        r"part number|r[ée]f[ée]rence fabricant",
        r"(?:item )?model(?:l)?(?: number| no\.?| name|nummer|name)?|numer modelu|mod[eè]le|modelo|modello",
    ],
    "gtin": [r"ean(?:[- ]?13)?(?: \(gtin\))?|gtin(?:-?1[34])?|upc|isbn(?:-?13)?|jan|kod ean|ean k[oó]d"],
    "brand": [
        r"brand|marka|marke|marque|marca|merk|zna[cč]ka|varum[äa]rke|ブランド",
        r"producent|hersteller|manufacturer|fabricant|fabricante|produttore|fabrikant|v[ýy]robce|tillverkare|メーカー|"
        r"proizvajalec|proizvo[dđ]a[cč]|v[ýy]robca|produc[aă]tor|производитель|יצרן|제조사",
    ],
}
LABEL_RES = {
    field: [re.compile(rf"^\s*(?:{alt})(?:\s*\([^)]{{0,40}}\))?\s*[:：#]?\s*$", re.I) for alt in alts]
    for field, alts in _LABELS.items()
}
INLINE_LABEL_RES = {
    field: [re.compile(rf"(?<![^\W\d_])(?:{alt})\s*[:：#]\s*(\S[^\n|•·]{{0,60}})", re.I) for alt in alts]
    for field, alts in _LABELS.items()
}
#: Any label word at all: a cheap test before the labels one by one.
ANY_LABEL = re.compile("|".join(alt for alts in _LABELS.values() for alt in alts), re.I)
#: A label word at the start of a text (`re.match`): the test for an element that is only a label.
LABEL_START = re.compile(r"\s*(?:" + "|".join(alt for alts in _LABELS.values() for alt in alts) + ")", re.I)
NOT_APPLICABLE = re.compile(r"^(?:does not apply|n/?a|none|brak|nie dotyczy|keine angabe|-+|—)$", re.I)
RATING = re.compile(r"(\d(?:[.,]\d{1,2})?)\s*(?:out of|von|na|sur|su|de|van|z|ze|av)\s*5(?![\d.,])", re.I)
_COUNT = r"(\d{1,3}(?:[,. \u00a0]\d{3})+|\d+)\s*(?:customer\s+)?"
#: Review counts, written reviews first: "12,483 Ratings & 1,377 Reviews" has 1,377 reviews.
REVIEWS = (
    re.compile(
        _COUNT + r"(?:reviews?|opinii|opinie|recenzj[ia]|rezensionen|avis|recensioni|rese[ñn]as|"
        r"beoordelingen|recenz[ií]|omd[öo]men|recensioner|件のレビュー)(?![^\W\d_])",
        re.I,
    ),
    re.compile(_COUNT + r"(?:ratings?|ocen|bewertungen|valoraciones|hodnocen[ií]|betyg)(?![^\W\d_])", re.I),
)
#: A rating written alone beside its count ("4.2 ★", "4,5").
LONE_RATING = re.compile(r"^\s*([0-5](?:[.,]\d{1,2})?)\s*(?:★|stars?|/\s*5)?\s*$", re.I)
#: A discount written as a percentage ("35% off", "-14 %"): the higher price beside it is the regular one.
PERCENT_OFF = re.compile(
    r"[-–]\s?\d{1,2}\s?%|\d{1,2}\s?%\s?(?:off|taniej|rabatt|de r[eé]duction|sconto|korting)", re.I
)
