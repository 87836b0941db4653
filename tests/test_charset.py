"""The charset decision: declarations that are missing or wrong, decided from the bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curllm_core.charset import canonical, content_type_with, decode_html, is_html_type, sniff
from tests.conftest import realpage

TEXTS = {
    "fr": "Voiture Rhône, prix à débattre, très bon état, première main. Août, Noël, cœur, 19 500 €.",
    "de": "Größe, Käse, Übergröße, schön, Straße: Grüße aus München, 24,99 €.",
    "pl": "Zażółć gęślą jaźń. Łódź, Kraków, Gdańsk, cena 12,99 zł, dostawa gratis.",
    "pl_short": "Kubek czerwony, cena: 39,99 zł",
    "cs": "Příliš žluťoučký kůň úpěl ďábelské ódy. Cena 199 Kč.",
    "ru": "Привет мир, цена 100 рублей, доставка бесплатно. Москва.",
    "es": "¿Qué tal? El niño compró una pequeña canción, 12 €.",
}
#: The code page each text is written in by pages that do not use UTF-8.
LEGACY = {
    "fr": "cp1252",
    "de": "cp1252",
    "pl": "cp1250",
    "pl_short": "cp1250",
    "cs": "cp1250",
    "ru": "cp1251",
    "es": "cp1252",
}
EXPECTED_NAME = {"cp1252": "windows-1252", "cp1250": "windows-1250", "cp1251": "windows-1251"}


def page(text: str, head: str = "") -> str:
    return f"<!doctype html><html><head>{head}<title>t</title></head><body><p>{text}</p></body></html>"


@pytest.mark.parametrize("lang", sorted(TEXTS))
def test_a_page_declaring_utf8_in_a_legacy_code_page(lang):
    html = page(TEXTS[lang], '<meta charset="utf-8">')
    body = html.encode(LEGACY[lang])
    enc = sniff(body, "text/html")
    assert (enc.name, enc.declared, enc.source, enc.fixes) == (
        EXPECTED_NAME[LEGACY[lang]],
        "utf-8",
        "bytes",
        True,
    )
    assert decode_html(body, "text/html") == html


@pytest.mark.parametrize("lang", sorted(TEXTS))
def test_utf8_without_any_declaration(lang):
    html = page(TEXTS[lang])
    enc = sniff(html.encode(), "text/html")
    # A browser would read it as windows-1252 (mojibake): the bytes say UTF-8.
    assert (enc.name, enc.declared, enc.browser, enc.fixes) == ("utf-8", None, "windows-1252", True)
    assert decode_html(html.encode()) == html


@pytest.mark.parametrize("lang", sorted(TEXTS))
def test_a_header_charset_that_is_wrong(lang):
    html = page(TEXTS[lang])
    enc = sniff(html.encode(LEGACY[lang]), "text/html; charset=UTF-8")
    assert (enc.name, enc.declared, enc.fixes) == (EXPECTED_NAME[LEGACY[lang]], "utf-8", True)


@pytest.mark.parametrize("lang", sorted(TEXTS))
def test_a_legacy_code_page_without_declaration(lang):
    html = page(TEXTS[lang])
    assert decode_html(html.encode(LEGACY[lang])) == html


def test_right_declarations_are_kept():
    html = page(TEXTS["fr"], '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-15">')
    enc = sniff(html.encode("iso8859_15"), "text/html")
    assert (enc.name, enc.source, enc.fixes) == ("iso-8859-15", "meta", False)
    enc = sniff(page(TEXTS["pl"]).encode("cp1250"), "text/html; charset=windows-1250")
    assert (enc.name, enc.source, enc.fixes) == ("windows-1250", "header", False)
    enc = sniff(page(TEXTS["de"], "<meta charset=utf-8>").encode(), None)
    assert (enc.name, enc.source, enc.fixes) == ("utf-8", "meta", False)
    # The header comes before the <meta>, as in a browser.
    enc = sniff(page(TEXTS["de"], "<meta charset=windows-1252>").encode(), "text/html; charset=utf-8")
    assert (enc.name, enc.source, enc.fixes) == ("utf-8", "header", False)


def test_a_declared_legacy_page_with_utf8_bytes():
    html = page(TEXTS["pl"], '<meta charset="iso-8859-2">')
    enc = sniff(html.encode(), None)
    assert (enc.name, enc.declared, enc.fixes) == ("utf-8", "iso-8859-2", True)


def test_byte_order_marks_decide():
    html = page(TEXTS["ru"], '<meta charset="windows-1251">')
    assert sniff(b"\xef\xbb\xbf" + html.encode()).name == "utf-8"
    assert decode_html(b"\xef\xbb\xbf" + html.encode()) == html
    assert sniff(b"\xff\xfe" + html.encode("utf-16-le")).name == "utf-16le"
    assert decode_html(b"\xff\xfe" + html.encode("utf-16-le")) == html


def test_ascii_is_what_was_declared():
    enc = sniff(page("plain words 12.99").encode(), "text/html")
    assert (enc.name, enc.fixes) == ("windows-1252", False)
    enc = sniff(page("plain words", "<meta charset=utf-8>").encode(), None)
    assert (enc.name, enc.fixes) == ("utf-8", False)


def test_a_few_stray_bytes_keep_a_utf8_page_utf8():
    html = page(TEXTS["de"] * 5, "<meta charset=utf-8>")
    body = html.encode().replace(b"Gr", b"\xe9Gr", 1)  # one Latin-1 byte among many UTF-8 letters
    assert sniff(body).name == "utf-8"


def test_labels_and_content_types():
    assert canonical("UTF8") == "utf-8"
    assert canonical("latin1") == canonical("ISO-8859-1") == canonical("us-ascii") == "windows-1252"
    assert canonical("no-such-charset") is None
    enc = sniff(page(TEXTS["fr"], '<meta charset="no-such-charset">').encode("cp1252"))
    assert (enc.declared, enc.name) == (None, "windows-1252")
    assert content_type_with("text/html; charset=utf-8", "windows-1252") == "text/html; charset=windows-1252"
    assert content_type_with(None, "utf-8") == "text/html; charset=utf-8"
    assert (
        is_html_type("text/html; charset=x") and is_html_type(None) and is_html_type("application/xhtml+xml")
    )
    assert not is_html_type("application/json") and not is_html_type("image/png")


# Words of each script; pages mix them with ASCII markup, digits and punctuation.
_LATIN1_WORDS = st.sampled_from("Rhône été déjà Größe Straße für naïve façade señor cœur Noël".split())
_CE_WORDS = st.sampled_from("zażółć gęślą jaźń Łódź żółty Kraków środa źdźbło příliš kůň úpěl".split())
_CYRILLIC_WORDS = st.sampled_from("привет мир цена рублей доставка Москва товар купить".split())
_ASCII_WORDS = st.sampled_from("price shop item 12,99 new the and 100 kg <b>x</b> (3)".split())


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    script=st.sampled_from([("cp1252", _LATIN1_WORDS), ("cp1250", _CE_WORDS), ("cp1251", _CYRILLIC_WORDS)]),
    declare=st.sampled_from([None, "utf-8", "header-utf-8"]),
)
def test_any_text_in_a_legacy_code_page_reads_back(data, script, declare):
    codec, words = script
    chosen = data.draw(st.lists(st.one_of(words, _ASCII_WORDS), min_size=6, max_size=40))
    # Enough words of the script that a reader could tell (a page is more than three words).
    chosen += data.draw(st.lists(words, min_size=4, max_size=8))
    text = " ".join(chosen)
    html = page(text, '<meta charset="utf-8">' if declare == "utf-8" else "")
    header = "text/html; charset=utf-8" if declare == "header-utf-8" else "text/html"
    body = html.encode(codec)
    assert decode_html(body, header) == html


@settings(max_examples=60, deadline=None)
@given(text=st.text(min_size=1, max_size=200), declare=st.sampled_from([None, "windows-1252", "iso-8859-2"]))
def test_any_utf8_text_reads_back_whatever_is_declared(text, declare):
    html = page(text.replace("\x00", ""))
    header = f"text/html; charset={declare}" if declare else None
    body = html.encode("utf-8", "replace")  # lone surrogates cannot be written
    expected = body.decode("utf-8")
    if body.isascii():
        return  # nothing to decide: every declaration reads it alike
    assert decode_html(body, header) == expected


@settings(max_examples=100, deadline=None)
@given(body=st.binary(max_size=300), header=st.one_of(st.none(), st.text(max_size=40)))
def test_never_raises(body, header):
    enc = sniff(body, header)
    assert isinstance(decode_html(body, header), str)
    assert enc.name


@pytest.mark.parametrize(
    "name, encoding, fixes",
    [
        ("leboncoin_fr_voitures_2018.html", "windows-1252", True),  # declares UTF-8, is Latin-1
        ("ceneo_pl_gitary_yamaha_grid.html", "utf-8", True),  # declares nothing, is UTF-8
        ("hackernews_front_2020.html", "utf-8", True),  # declares nothing, is UTF-8
        ("leboncoin_fr_voitures_laguna_2016.html", "windows-1252", False),  # declared right
        ("ceneo_search_canon.html", "utf-8", False),
    ],
)
def test_real_pages(name, encoding, fixes):
    enc = sniff(realpage(name).read_bytes(), "text/html")
    assert (enc.name, enc.fixes) == (encoding, fixes)
    text = decode_html(realpage(name).read_bytes(), "text/html")
    assert "\ufffd" not in text and "Ã" not in text


@pytest.mark.parametrize(
    ("text", "codec"),
    [
        ("Kraków Kraków środa", "cp1250"),  # ś (0x9c) is œ in windows-1252: "œroda" beside "ó"
        ("Wrocław — świetny sklep, ośmiu klientów", "cp1250"),
        ("le cœur et l'œuvre à côté", "cp1252"),
        ("Straße für Größe", "cp1252"),
        ("příliš žluťoučký kůň úpěl", "cp1250"),
    ],
)
def test_words_that_read_alike_in_two_code_pages_go_to_the_one_alphabet(text, codec):
    """Where both Latin code pages give letters beside letters, the reading whose letters belong to
    one language's alphabet wins over one mixing alphabets (no page language to break the tie)."""
    html = page(text)
    assert decode_html(html.encode(codec), "text/html") == html
