"""articles_generic: a record's title where its link shows none.

A record titled by a heading without a link of its own, whose target is a link beside the heading that
shows its address as text, only a picture, or a badge ("verified", "Neu"), is titled by the heading and
links where that link goes; in three markups (utility classes, BEM, hashed classes) and three languages (EN/PL/DE),
beside a menu of more links. A section heading over a list of titled links stays a section."""

from __future__ import annotations

import random

import pytest

from curllm_core.tools.extraction import articles_generic
from tests.tools.test_extraction_helpers import assert_valid_output
from tests.tools.test_extraction_list_finding import WORDS, _mega_menu
from tests.tools.test_extraction_list_finding import _cls as _list_cls

BADGES = {"en": "verified", "pl": "nowość", "de": "Neu"}
TARGETS = ("address", "picture", "badge")
MARKUPS = ("utility", "bem", "hashed")


def _cls(rng: random.Random, markup: str, role: str) -> str:
    """As the list tests' classes; a hashed class always carries a digit (a build tool's hash)."""
    if markup == "hashed":
        return f'class="{role[:3]}_{rng.randrange(10)}{rng.randrange(16**4):04x}"'
    return _list_cls(rng, markup, role)


def _card(rng, markup, lang, i, title, target) -> str:
    url = f"https://gen.example/doc/{i}-{rng.randrange(1000)}"
    if target == "address":
        link = f'<p {_cls(rng, markup, "link")}><a href="{url}">{url}</a></p>'
    elif target == "picture":
        link = f'<a href="{url}" {_cls(rng, markup, "pic")}><img src="/i/{i}.jpg" alt=""></a>'
    else:
        link = f'<a href="{url}"><div><img src="/i/{i}.jpg" alt=""><span>{BADGES[lang]}</span></div></a>'
    heading = f"<div {_cls(rng, markup, 'head')}><h2 {_cls(rng, markup, 'name')}>{title}</h2></div>"
    text = f"<p {_cls(rng, markup, 'text')}>{WORDS[lang]['snippet']}</p>"
    parts = [heading, text, link] if rng.random() < 0.5 else [link, heading, text]
    return f"<div {_cls(rng, markup, 'card')}>{''.join(parts)}</div>", url


@pytest.mark.parametrize("seed", range(18))
def test_a_heading_titles_the_link_beside_it(seed):
    rng = random.Random(seed)
    lang = ("en", "pl", "de")[seed % 3]
    markup = MARKUPS[(seed // 3) % 3]
    target = TARGETS[(seed // 9 + seed) % 3]
    titles = rng.sample(WORDS[lang]["titles"], rng.randint(3, 7))
    cards = [_card(rng, markup, lang, i, t, target) for i, t in enumerate(titles)]
    html = (
        f"<html><body>{_mega_menu(rng, markup, WORDS[lang])}"
        f"<main><h1>{WORDS[lang]['menu'][1]}</h1><div>{''.join(c for c, _ in cards)}</div></main></body></html>"
    )
    out = articles_generic.extract(html, "https://gen.example/search")
    assert_valid_output("articles_generic", out)
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, u) for t, (_, u) in zip(titles, cards, strict=True)
    ], html


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_a_section_heading_over_titled_links_stays_a_section(lang):
    """Sections of titled entries, each with its heading and a "more" link: the entries are the list."""
    words = WORDS[lang]
    sections = []
    for s in range(3):
        entries = "".join(
            f'<li><a href="/e/{s}/{k}">{title}</a></li>'
            for k, title in enumerate(words["titles"][s * 2 : s * 2 + 2])
        )
        sections.append(
            f'<section><h2>{words["menu"][s]}</h2><ul>{entries}</ul><a href="/s/{s}">{words["action"]}</a></section>'
        )
    html = f"<html><body><h1>{words['menu'][4]}</h1>{''.join(sections)}</body></html>"
    titles = [a["title"] for a in articles_generic.extract(html, "https://gen.example/")["articles"]]
    assert not set(titles) & set(words["menu"]), titles
    assert titles and set(titles) <= set(words["titles"]), titles


SCRIPT_ROWS = {
    "postback": (
        '<form method="post" action="results.aspx"><ol>{}</ol></form>',
        '<li><a id="r{i}" href="javascript:__doPostBack(&#39;results$r{i}&#39;,&#39;&#39;)">{title}</a>'
        "<div>{snippet}</div></li>",
    ),
    "table": (
        "<table><tbody>{}</tbody></table>",
        "<tr><td><a href=\"javascript:openRecord({i}, 'doc')\">{title}</a><br><small>{snippet}</small></td></tr>",
    ),
    "cards": (
        '<div class="hits">{}</div>',
        '<div class="hit"><h3><a href="javascript:void(show({i}))" class="hit__t">{title}</a></h3><p>{snippet}</p></div>',
    ),
}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize("kind", list(SCRIPT_ROWS))
def test_title_links_that_run_a_script_link_to_the_page(kind, lang):
    """Results whose title links run a script (a postback inside the page's form, an onclick opener)
    are the results; each links to the page it is on."""
    words = WORDS[lang]
    wrap, row = SCRIPT_ROWS[kind]
    rows = "".join(row.format(i=i, title=t, snippet=words["snippet"]) for i, t in enumerate(words["titles"]))
    menu = "".join(f'<li><a href="/m/{k}">{m}</a></li>' for k, m in enumerate(words["menu"]))
    html = (
        f"<html><body><ul class='top'>{menu}</ul><h1>{words['menu'][2]}</h1>{wrap.format(rows)}</body></html>"
    )
    out = articles_generic.extract(html, "https://gen.example/search?q=x#top")
    assert_valid_output("articles_generic", out)
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, "https://gen.example/search?q=x") for t in words["titles"]
    ], html


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_a_link_to_an_address_titles_its_record_before_a_scripts(lang):
    """A record with a link to its page and a script's link of many words ("Share this ..."): the
    link to the address is the title."""
    words = WORDS[lang]
    rows = "".join(
        f'<div class="r"><a href="javascript:share({i})">{words["snippet"][:30]}</a>'
        f'<a href="/doc/{i}">{t}</a><p>{words["snippet"]}</p></div>'
        for i, t in enumerate(words["titles"])
    )
    out = articles_generic.extract(f"<html><body><main>{rows}</main></body></html>", "https://gen.example/")
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, f"https://gen.example/doc/{i}") for i, t in enumerate(words["titles"])
    ]


ONE_WORD = {
    "en": ["Iliad", "Candide", "octocat/hello-world", "Ulysses", "rust-lang/rust"],
    "pl": ["Lalka", "Potop", "allegro/ui-kit", "Quo vadis", "Ferdydurke"],
    "de": ["Faust", "Siddhartha", "kde/kate", "Effi Briest", "Steppenwolf"],
}
NOTES = {
    "en": "(National Institute of Health)",
    "pl": "(Narodowy Instytut Zdrowia)",
    "de": "(Bundesamt für Gesundheit)",
}
BYLINE = {"en": "by", "pl": "autor:", "de": "von"}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize(
    "row",
    [
        # A title named so by class, then its author's link after a line break (a book search).
        '<tr><td><a class="bookTitle" href="/b/{i}"><span>{title}</span></a><br><span>{by}</span> '
        '<span class="author"><a href="/a/{i}/x">{author}</a></span><br><small>{snippet}</small></td></tr>',
        # A title by its item property, the author's link marked in its own wrapper.
        '<li><a itemprop="name" href="/b/{i}">{title}</a> <span class="byline">{by} <a href="/p/{i}/y">'
        "{author}</a></span><p>{snippet}</p></li>",
    ],
)
def test_one_word_titles_named_by_markup_and_authors_never_titles(row, lang):
    """A one-word or reference title ("Iliad", "owner/repo") marked as a title or name is the record's
    title; a link in a byline ("by <a>Homer</a>") never is."""
    words = WORDS[lang]
    author = words["titles"][0][:24]
    rows = "".join(
        row.format(i=i, title=t, by=BYLINE[lang], author=author, snippet=words["snippet"])
        for i, t in enumerate(ONE_WORD[lang])
    )
    wrap = "<table>{}</table>" if row.startswith("<tr>") else "<ol>{}</ol>"
    html = f"<html><body><h1>{words['menu'][1]}</h1>{wrap.format(rows)}</body></html>"
    out = articles_generic.extract(html, "https://gen.example/")
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, f"https://gen.example/b/{i}") for i, t in enumerate(ONE_WORD[lang])
    ], html


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize("inline", [True, False])
def test_a_note_in_brackets_beside_a_title_leaves_it_a_title(lang, inline):
    """ "<a>Title</a> (Source of the document)": the note is the source's, the link still the title;
    so is a title whose line ends at a break before a longer text."""
    words = WORDS[lang]
    after = f" {NOTES[lang]}" if inline else f"<br>{words['snippet']}"
    rows = "".join(
        f'<li><div><a href="/d/{i}">{t}</a>{after}</div><div>{words["snippet"]}</div></li>'
        for i, t in enumerate(words["titles"])
    )
    menu = "".join(f'<li><a href="/m/{k}">{m}</a></li>' for k, m in enumerate(words["menu"]))
    html = f"<html><body><ul>{menu}</ul><h1>{words['menu'][0]}</h1><ol>{rows}</ol></body></html>"
    out = articles_generic.extract(html, "https://gen.example/")
    assert [a["title"] for a in out["articles"]] == words["titles"], html


MORE = {"en": "More information", "pl": "Więcej informacji", "de": "Mehr erfahren", "es": "Más información"}
TICKETS = {"en": "Tickets", "pl": "Bilety", "de": "Karten", "es": "Entradas"}
EVENTS = {
    "en": ["Jazz night in the cloister", "Pottery workshop for children", "Summer cinema classics"],
    "pl": ["Wieczór jazzowy w krużgankach", "Warsztaty ceramiki dla dzieci", "Letnie kino klasyki"],
    "de": ["Jazzabend im Kreuzgang", "Töpferkurs für Kinder", "Sommerkino mit Klassikern"],
    "es": ["Concierto de jazz en el claustro", "Taller de cerámica para niños", "Cine de verano: clásicos"],
}


@pytest.mark.parametrize("lang", list(MORE))
@pytest.mark.parametrize("picture", [True, False])
def test_a_link_every_record_shows_titles_none_a_heading_does(lang, picture):
    """Records titled by a heading without a link, each with a "More information" link and a one-word
    action: the heading is the title, the record's first link its target."""
    cards = "".join(
        f'<div class="event">{f"<a href=/e/{i}><img src=/e/{i}.jpg alt></a>" if picture else ""}'
        f'<p class="when">0{i + 1}.12.2026 20:00</p><h2 class="event__name">{title}</h2><p>Centro Cultural</p>'
        f'<a class="more" href="/e/{i}">{MORE[lang]}</a> <a class="btn" href="/t/{i}">{TICKETS[lang]}</a></div>'
        for i, title in enumerate(EVENTS[lang])
    )
    footer = (
        "<footer><ul>"
        + "".join(f'<li><a href="/f/{k}">Footer link {k}</a></li>' for k in range(6))
        + "</ul></footer>"
    )
    out = articles_generic.extract(
        f"<html><body><main><h1>Agenda</h1>{cards}</main>{footer}</body></html>", "https://gen.example/agenda"
    )
    assert_valid_output("articles_generic", out)
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (title, f"https://gen.example/e/{i}") for i, title in enumerate(EVENTS[lang])
    ]


ACTIONS = {
    "en": ("Buy tickets", "More info"),
    "pl": ("Kup bilety", "Więcej informacji"),
    "de": ("Tickets kaufen", "Mehr erfahren"),
    "es": ("Comprar entradas", "Más información"),
}


@pytest.mark.parametrize("lang", list(ACTIONS))
@pytest.mark.parametrize("tag", ["li", "article", "div"])
def test_two_actions_every_record_shows_leave_the_heading_its_title(lang, tag):
    """Records titled by a heading without a link, each with two actions of several words that every
    record shows ("Buy tickets", "More info"), beside a date block: each record's actions differ from
    each other, so the block is one record; the heading titles it, its first link is the target."""
    buy, more = ACTIONS[lang]
    cards = "".join(
        f'<{tag} class="event"><div class="date"><span>{i + 3}</span><span>MAY</span></div>'
        f'<div class="info"><h3>{title}</h3><p class="venue">Centro Cultural</p><p>12,00</p>'
        f'<a class="button" href="/e/{i}/tickets">{buy}</a> <a href="/e/{i}">{more}</a></div></{tag}>'
        for i, title in enumerate(EVENTS[lang])
    )
    if tag == "li":
        cards = f"<ul>{cards}</ul>"
    out = articles_generic.extract(
        f"<html><body><main><h1>Agenda</h1>{cards}</main>{_FOOTER}</body></html>",
        "https://gen.example/agenda",
    )
    assert_valid_output("articles_generic", out)
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (title, f"https://gen.example/e/{i}/tickets") for i, title in enumerate(EVENTS[lang])
    ]


_FOOTER = (
    "<footer><ul>"
    + "".join(f'<li><a href="/f/{k}">Footer link {k}</a></li>' for k in range(6))
    + "</ul></footer>"
)


REFERENCES = {
    "en": ["acme/fastqueue", "jdoe/tiny-json", "org-labs/edgekit", "pk/pyrender"],
    "pl": ["Rdz 1:1", "Wj 3:14", "Ps 23:1", "Iz 40:31"],
    "de": ["Kap. 12.3", "Kap. 14.1", "Kap. 15.2", "Kap. 20.4"],
}


@pytest.mark.parametrize("lang", list(REFERENCES))
@pytest.mark.parametrize("split", [True, False])
def test_references_in_headings_are_titles(lang, split):
    """A record titled by a reference ("owner/repo", "Ps 23:1", "Kap. 12.3") in a heading's link, the link
    printed in pieces or whole; a section word in a heading above it ("Reuters") is no title."""

    def shown(ref: str) -> str:
        head, sep, tail = ref.partition("/")
        return f'<span class="muted">{head}/</span>{tail}' if split and sep else ref

    rows = "".join(
        f'<li class="hit"><h3><a href="/r/{i}">{shown(ref)}</a></h3><p>{WORDS[lang]["snippet"]}</p>'
        f'<span class="meta">{100 + i} ★</span></li>'
        for i, ref in enumerate(REFERENCES[lang])
    )
    out = articles_generic.extract(
        f"<html><body><main><h1>Search</h1><ul>{rows}</ul></main></body></html>", "https://gen.example/s"
    )
    assert [a["title"] for a in out["articles"]] == REFERENCES[lang]


OFFERS = {
    "en": ["Two-bedroom flat with a balcony", "Studio next to the station", "Terraced house with a garden"],
    "pl": ["Mieszkanie 3 pokoje z balkonem", "Kawalerka przy metrze", "Dom szeregowy z ogrodem"],
    "de": ["Dreizimmerwohnung mit Balkon", "Apartment am Bahnhof", "Reihenhaus mit Garten"],
}


@pytest.mark.parametrize("lang", list(OFFERS))
@pytest.mark.parametrize(
    "named", ['class="css-title"', 'data-testid="listing-item-title"', 'class="offer__title"']
)
def test_a_named_title_beside_a_picture_link_titles_its_record(lang, named):
    """Offer cards that link only their photo and show their title in an element named a title (no
    heading, no link), under the page's heading: each title with its photo's link."""
    cards = "".join(
        f'<li class="c{i % 2}"><a class="lnk" href="/offer/{i}"><img src="/o/{i}.jpg" alt=""></a>'
        f'<div class="body"><p {named}>{title}</p><p>Warszawa · Berlin · Leeds</p><span>{40 + i} m²</span>'
        f"<span>{500 + i * 20} 000</span></div></li>"
        for i, title in enumerate(OFFERS[lang])
    )
    html = f"<html><body><main><h1>{WORDS[lang]['menu'][1]}</h1><ul>{cards}</ul></main></body></html>"
    out = articles_generic.extract(html, "https://gen.example/search")
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, f"https://gen.example/offer/{i}") for i, t in enumerate(OFFERS[lang])
    ]


DOCUMENTS = {
    "en": (["Annual report 2025", "Budget statement", "Planning application notes"], "(PDF, 1.2 MB)"),
    "pl": (["Sprawozdanie roczne 2025", "Uchwała budżetowa", "Plan zagospodarowania"], "[PDF 850 KB]"),
    "de": (["Jahresbericht 2025", "Haushaltssatzung", "Bebauungsplan Nr. 12"], "(DOCX, 45 kB)"),
}


@pytest.mark.parametrize("lang", list(DOCUMENTS))
def test_a_document_link_s_file_note_is_no_part_of_its_title(lang):
    titles, note = DOCUMENTS[lang]
    items = "".join(
        f'<li><a href="/doc/{i}.pdf"><span>{t}</span> <span class="info">{note}</span></a>'
        f"<span>{10 + i}.11.2026</span></li>"
        for i, t in enumerate(titles)
    )
    html = f"<html><body><main><h1>Docs</h1><ul>{items}</ul></main></body></html>"
    out = articles_generic.extract(html, "https://gen.example/docs")
    assert [a["title"] for a in out["articles"]] == titles


@pytest.mark.parametrize("lang", list(MORE))
@pytest.mark.parametrize("named", ['class="title"', 'class="course__title"', 'data-testid="item-title"'])
def test_a_named_title_beside_a_link_every_record_shows_titles_its_record(lang, named):
    """Cards whose title is an element named a title (no heading, no link) and whose one link shows
    the words every card's link shows ("More information", "Ver detalles"): the named title titles
    the card, the link is its target."""
    cards = "".join(
        f'<div class="card"><span {named}>{title}</span><p class="info">{i + 4} weeks · 18:00</p>'
        f'<a class="btn" href="/c/{i}">{MORE[lang]}</a></div>'
        for i, title in enumerate(EVENTS[lang])
    )
    html = f"<html><body><main><h1>Agenda</h1><div class='cards'>{cards}</div></main></body></html>"
    out = articles_generic.extract(html, "https://gen.example/list")
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, f"https://gen.example/c/{i}") for i, t in enumerate(EVENTS[lang])
    ]


JOBS = {
    "en": ["Senior Java Developer", "Accounts Payable Clerk", "Registered Nurse, part time"],
    "pl": ["Programista Java (k/m)", "Specjalista ds. księgowości", "Pielęgniarka na pół etatu"],
    "de": ["Softwareentwickler Java (m/w/d)", "Sachbearbeiter Buchhaltung", "Pflegefachkraft in Teilzeit"],
}


@pytest.mark.parametrize("lang", list(JOBS))
@pytest.mark.parametrize("named", ['class="job-title"', 'class="card__name"', 'data-testid="job-title"'])
def test_a_card_wide_link_of_inline_parts_is_titled_by_its_named_part(lang, named):
    """A link around a whole card drawn with inline elements only (title, company, place, date, no
    white space between them): the part the markup names a title is the title."""
    cards = "".join(
        f'<a class="job-card" href="/job/{i}"><span {named}>{title}</span><span class="company">ACME {i}</span>'
        f'<span class="place">Leeds</span><span class="posted">{i + 1}d</span></a>'
        for i, title in enumerate(JOBS[lang])
    )
    html = f"<html><body><main><h1>Jobs</h1><div class='jobs'>{cards}</div></main></body></html>"
    out = articles_generic.extract(html, "https://gen.example/jobs")
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, f"https://gen.example/job/{i}") for i, t in enumerate(JOBS[lang])
    ]


PAPERS = {
    "en": [
        "Deep learning for medical image segmentation",
        "Fast motif search in large graphs",
        "Formal checks of protocols",
    ],
    "pl": [
        "Głębokie uczenie w segmentacji obrazów",
        "Szybkie wyszukiwanie wzorców w grafach",
        "Weryfikacja protokołów",
    ],
    "de": [
        "Tiefes Lernen für medizinische Bilder",
        "Schnelle Mustersuche in Graphen",
        "Formale Prüfung von Protokollen",
    ],
}


@pytest.mark.parametrize("lang", list(PAPERS))
@pytest.mark.parametrize("named", ['class="title"', 'class="pub-title"', 'itemprop="title"'])
def test_a_named_title_beside_a_file_link_titles_its_record(lang, named):
    """A publication list: authors, a title the markup names (no heading, no link), a venue, and links
    that show no title ("[PDF]", "[BibTeX]"): the named title titles the record, its first link the
    target."""
    rows = "".join(
        f'<li class="pub"><span class="authors">A. Nowak, B. Schmidt.</span> <b {named}>{title}</b>. '
        f'<em>Proceedings {2020 + i}</em>, p. {10 + i}–{18 + i}. <a href="/pdf/{i}.pdf">[PDF]</a> '
        f'<a href="/bib/{i}.bib">[BibTeX]</a></li>'
        for i, title in enumerate(PAPERS[lang])
    )
    html = f"<html><body><main><h1>{WORDS[lang]['menu'][1]}</h1><ol>{rows}</ol></main></body></html>"
    out = articles_generic.extract(html, "https://gen.example/pubs")
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, f"https://gen.example/pdf/{i}.pdf") for i, t in enumerate(PAPERS[lang])
    ]


TERMS = {  # (the link every description shows, terms)
    "en": (
        "Details",
        ["CS 101 — Introduction to Programming", "CS 201 — Data Structures", "CS 330 — Databases"],
    ),
    "pl": (
        "Szczegóły",
        ["INF 101 — Wstęp do programowania", "INF 201 — Struktury danych", "INF 330 — Bazy danych"],
    ),
    "de": (
        "Mehr",
        ["INF 101 — Einführung in die Programmierung", "INF 201 — Datenstrukturen", "INF 330 — Datenbanken"],
    ),
}


@pytest.mark.parametrize("lang", list(TERMS))
@pytest.mark.parametrize("descriptions", [1, 2])
def test_a_definition_lists_terms_title_the_links_of_their_descriptions(lang, descriptions):
    """A catalogue as a definition list: each term (``<dt>``, no link) is a record's title, its
    description's link ("Details", one or two ``<dd>`` after it) the record's target; the page's
    heading above the list titles nothing."""
    more, terms = TERMS[lang]
    entries = "".join(
        f"<dt>{term}</dt>"
        + ("<dd>6 ECTS, lectures and labs.</dd>" if descriptions == 2 else "")
        + f'<dd><p>{WORDS[lang]["snippet"]}</p><a href="/courses/{i}">{more}</a></dd>'
        for i, term in enumerate(terms)
    )
    out = articles_generic.extract(
        f"<html><body><main><h1>{WORDS[lang]['menu'][1]}</h1><dl>{entries}</dl></main>{_FOOTER}</body></html>",
        "https://gen.example/catalogue",
    )
    assert_valid_output("articles_generic", out)
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (term, f"https://gen.example/courses/{i}") for i, term in enumerate(terms)
    ]


HEADLINES = {
    "en": [
        "Episode 12: The Treasure in the Bog",
        "Episode 11: Fog over the City",
        "Episode 10: The Last Ferry",
    ],
    "pl": ["Odcinek 12: Skarb na bagnach", "Odcinek 11: Mgła nad miastem", "Odcinek 10: Ostatni prom"],
    "de": ["Folge 12: Der Schatz im Moor", "Folge 11: Nebel über der Stadt", "Folge 10: Die letzte Fähre"],
}


@pytest.mark.parametrize("lang", list(HEADLINES))
@pytest.mark.parametrize("named", ['class="teaser__headline"', 'class="headline"', 'class="card-headline"'])
def test_a_headline_beside_a_picture_link_titles_its_record(lang, named):
    """Cards whose only link is a picture with a duration over it ("44 Min.") and whose title is an
    element classed a headline, beside a topline and a date: the headline titles the record."""
    cards = "".join(
        f'<div class="teaser"><a href="/video/{i}" aria-label="Play"><img src="/v/{i}.jpg" alt="">'
        f'<span class="dur">4{i} Min.</span></a><div class="text"><span class="topline">Krimi</span>'
        f'<span {named}>{title}</span><span class="date">{i + 1}.11.2026</span></div></div>'
        for i, title in enumerate(HEADLINES[lang])
    )
    out = articles_generic.extract(
        f"<html><body><main><h1>{WORDS[lang]['menu'][1]}</h1><div class='list'>{cards}</div></main>{_FOOTER}</body></html>",
        "https://gen.example/episodes",
    )
    assert_valid_output("articles_generic", out)
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (title, f"https://gen.example/video/{i}") for i, title in enumerate(HEADLINES[lang])
    ]


STAFF = {  # (the page's heading, people, their roles)
    "en": ("Our team", ["Jane Doe", "Omar Haddad", "Mei Lin", "Piotr Nowak"], "Senior Researcher"),
    "pl": (
        "Nasz zespół",
        ["Anna Kowalska", "Jan Wiśniewski", "Ewa Zielińska", "Marek Lewandowski"],
        "Starszy specjalista",
    ),
    "de": (
        "Unser Team",
        ["Anna Müller", "Jonas Schmidt", "Lea Fischer", "Paul Weber"],
        "Wissenschaftliche Mitarbeiterin",
    ),
}
STAFF_MARKUPS = {
    "cards": '<div class="person"><img src="/p/{i}.jpg" alt=""><h3><a href="/people/{slug}">{name}</a></h3><p>{role}</p>'
    '<a href="mailto:{slug}@uni.example">E-mail</a></div>',
    "list": '<li><a class="name" href="/team/member/{slug}">{name}</a> – {role}, room {i}.0{i}</li>',
    "table": '<tr><td><a href="/profile/{slug}">{name}</a></td><td>{role}</td><td>+48 12 000 00 0{i}</td></tr>',
}


@pytest.mark.parametrize("lang", list(STAFF))
@pytest.mark.parametrize("markup", list(STAFF_MARKUPS))
def test_a_directory_of_people_gives_them_when_people_are_asked_for(lang, markup):
    """A staff directory whose every entry links to the person's profile ("/people/jane-doe"): asked
    for people (``kind="people"``), each person is a record titled by their name and linked to their
    profile; asked for any list, a link to a person is never a title (a byline, a list of authors),
    and the directory gives no record."""
    heading, names, role = STAFF[lang]
    rows = "".join(
        STAFF_MARKUPS[markup].format(i=i, slug=name.lower().replace(" ", "-"), name=name, role=role)
        for i, name in enumerate(names)
    )
    wrap = {"cards": '<div class="people">{}</div>', "list": "<ul>{}</ul>", "table": "<table>{}</table>"}[
        markup
    ]
    html = f"<html><body><main><h1>{heading}</h1>{wrap.format(rows)}</main>{_FOOTER}</body></html>"
    out = articles_generic.extract(html, "https://uni.example/team", kind="people")
    assert_valid_output("articles_generic", out)
    assert [a["title"] for a in out["articles"]] == names
    assert all(
        a["url"].startswith("https://uni.example/") and "mailto" not in a["url"] for a in out["articles"]
    )
    assert all(a.get("author") in (None, "") for a in out["articles"])
    assert [
        a["title"] for a in articles_generic.extract(html, "https://uni.example/team")["articles"]
    ] != names


COMMENTERS = ["alice_w", "bob1984", "carol-k", "dave", "alice_w"]
MORE_OF_THREAD = {"en": "Continue this thread", "pl": "Kontynuuj ten wątek", "de": "Diesen Thread fortsetzen"}


@pytest.mark.parametrize("lang", list(MORE_OF_THREAD))
def test_people_asked_for_on_a_thread_are_its_profiles_once_each(lang):
    """Asked for people on a comment thread: the users whose profiles the comments link (a user name
    of one word, in a byline beside its points and age), each once; never the "Continue this thread"
    link every comment shows."""
    comments = "".join(
        f'<div class="comment"><p class="meta"><a href="/user/{u}">{u}</a> · {i + 2} points · 3h</p>'
        f'<p>{WORDS[lang]["snippet"]}</p><a href="/c/{i}">{MORE_OF_THREAD[lang]}</a></div>'
        for i, u in enumerate(COMMENTERS)
    )
    html = f"<html><body><h1>Thread</h1><div class='comments'>{comments}</div>{_FOOTER}</body></html>"
    out = articles_generic.extract(html, "https://forum.example/t/1", kind="people")
    assert_valid_output("articles_generic", out)
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (u, f"https://forum.example/user/{u}") for u in dict.fromkeys(COMMENTERS)
    ]


def test_people_asked_for_are_titled_by_names_not_dates():
    """Asked for people on a table whose rows link a date and nothing named: no record (an honest
    empty answer), never the dates."""
    rows = "".join(
        f'<tr><td><a href="/box/{i}">Tue, Oct {i + 10}, 2016</a></td><td>{100 + i}</td><td>W</td></tr>'
        for i in range(6)
    )
    html = f"<html><body><h1>Games</h1><table>{rows}</table></body></html>"
    assert articles_generic.extract(html, "https://stats.example/games", kind="people")["articles"] == []


ROW_HEADERS = {  # (the link every row shows, row headers)
    "it": ("Scheda", ["Analisi matematica I", "Fisica generale", "Chimica organica"]),
    "en": ("Details", ["Calculus I", "General Physics", "Organic Chemistry"]),
    "de": ("Mehr", ["Analysis I", "Allgemeine Physik", "Organische Chemie"]),
}


@pytest.mark.parametrize("lang", list(ROW_HEADERS))
@pytest.mark.parametrize("scoped", [True, False])
def test_a_rows_header_cell_titles_the_link_of_its_row(lang, scoped):
    """A table whose rows are headed by a ``<th>`` (no link; ``scope="row"`` or not) and link their
    record by a word every row shows ("Scheda", "Details"): each row is a record titled by its header
    cell; the header row's cells title nothing."""
    more, names = ROW_HEADERS[lang]
    scope = ' scope="row"' if scoped else ""
    rows = "".join(
        f'<tr><th{scope}>{name}</th><td>{6 + i}</td><td><a href="/c/{i}">{more}</a></td></tr>'
        for i, name in enumerate(names)
    )
    html = (
        f"<html><body><main><h1>{WORDS[lang if lang != 'it' else 'en']['menu'][1]}</h1><table><thead><tr><th>Course</th>"
        f"<th>ECTS</th><th></th></tr></thead><tbody>{rows}</tbody></table></main>{_FOOTER}</body></html>"
    )
    out = articles_generic.extract(html, "https://uni.example/courses")
    assert_valid_output("articles_generic", out)
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (name, f"https://uni.example/c/{i}") for i, name in enumerate(names)
    ]


REVIEWS = {
    "en": ["Great value for the price", "Stopped working after a month", "Exactly as described"],
    "pl": ["Świetny stosunek jakości do ceny", "Przestał działać po miesiącu", "Zgodny z opisem"],
    "de": ["Preis-Leistung top", "Nach einem Monat defekt", "Genau wie beschrieben"],
}


@pytest.mark.parametrize("lang", list(REVIEWS))
def test_reviews_are_comments_titled_by_their_own_heading(lang):
    """Reviews (no links; a heading, an author, stars and a text each) read as comments: each titled
    by its own heading, its text whole, its author kept."""
    reviews = "".join(
        f'<div class="review"><h4>{title}</h4><span class="author">Kunde {i}</span><span>★★★★☆</span>'
        f"<p>{WORDS[lang]['snippet']} {i}</p></div>"
        for i, title in enumerate(REVIEWS[lang])
    )
    html = f"<html><body><main><h1>Reviews</h1><div class='reviews'>{reviews}</div></main>{_FOOTER}</body></html>"
    out = articles_generic.extract(html, "https://shop.example/p/1", kind="comments")
    assert_valid_output("articles_generic", out)
    assert [a["title"] for a in out["articles"]] == REVIEWS[lang]
    assert [a["text"] for a in out["articles"]] == [f"{WORDS[lang]['snippet']} {i}" for i in range(3)]


def test_row_headers_every_record_repeats_are_labels_not_titles():
    """Records each with a small table of labelled links ("Brand", "Series"): the labels repeat on
    every record, so they title nothing; each record is titled by its own link."""
    names = ["MSI MAG B650 Tomahawk WIFI", "ASUS TUF Gaming B650-Plus", "Gigabyte B650 Aorus Elite AX"]
    cards = "".join(
        f'<div class="item"><h3><a href="/p/{i}">{name}</a></h3><table><tr><th>Brand</th><td><a href="/b/{i}">'
        f'Brand{i}</a></td></tr><tr><th>Series</th><td><a href="/s/{i}">Series{i}</a></td></tr></table></div>'
        for i, name in enumerate(names)
    )
    html = f"<html><body><main><h1>Mainboards</h1>{cards}</main>{_FOOTER}</body></html>"
    out = articles_generic.extract(html, "https://shop.example/boards")
    assert [a["title"] for a in out["articles"]] == names


SCRIPT_CARDS = [
    '<div class="card" role="link" tabindex="0" data-href="/j/{i}"><h2>{title}</h2><p>{snippet}</p></div>',
    '<li data-url="/j/{i}"><h3 class="title">{title}</h3><p>{snippet}</p><span>5 min</span></li>',
    '<article data-href="/j/{i}" class="x1f"><div class="k2"><h2>{title}</h2></div><p>{snippet}</p></article>',
]


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize("card", SCRIPT_CARDS)
def test_records_a_script_opens_are_titled_by_their_heading(card, lang):
    """Records with no ``<a>`` that a script opens (``role="link"`` with ``data-href``, an app's
    ``data-url``), each with a heading and a teaser: each is a record titled by its heading and
    linked to that address."""
    titles = WORDS[lang]["titles"][:4]
    items = "".join(card.format(i=i, title=t, snippet=WORDS[lang]["snippet"]) for i, t in enumerate(titles))
    wrap = "<ul class='list'>{}</ul>" if card.startswith("<li") else "<div class='list'>{}</div>"
    html = f"<html><body><main><h1>{WORDS[lang]['menu'][1]}</h1>{wrap.format(items)}</main>{_FOOTER}</body></html>"
    out = articles_generic.extract(html, "https://gen.example/journal")
    assert_valid_output("articles_generic", out)
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, f"https://gen.example/j/{i}") for i, t in enumerate(titles)
    ]
