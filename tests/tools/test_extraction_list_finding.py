"""articles_generic: the page's list among its chrome, decided by what the items are and where they sit.

Generated pages (property-style) in five markups (utility-class soup, BEM, hashed CSS-module classes,
data-testid attributes, a table) and three languages (EN/PL/DE): a few records beside a mega-menu of
many more links, a footer sitemap, a class-named "hidden" wrapper around the content, a wrapper whose
class or tag sounds like chrome ("has-sidebar", "fixed-header", a filter form, a ``<header>``) holding
the whole content, and an action or collection link carried by every record ("Learn More")."""

from __future__ import annotations

import random

import pytest

from curllm_core.tools.extraction import articles_generic
from tests.tools.test_extraction_helpers import assert_valid_output

WORDS = {
    "en": {
        "titles": [
            "How the city rebuilt its old harbour",
            "A beginner's guide to sourdough bread",
            "Why trains run late in the winter",
            "Ten lessons from a failed startup",
            "The quiet return of the fountain pen",
            "What we learned from a year of cycling",
            "Inside the workshop of a violin maker",
        ],
        "snippet": "A longer text about the subject that a reader sees under the title of the result.",
        "action": "Learn More",
        "collection": "Community Library",
        "menu": ["Home", "News", "Sports", "Weather", "Travel", "Culture", "Science", "Music"],
        "date": "Mar 3, 2017",
    },
    "pl": {
        "titles": [
            "Jak miasto odbudowało stary port",
            "Przepis na chleb na zakwasie dla początkujących",
            "Dlaczego pociągi zimą się spóźniają",
            "Dziesięć lekcji z nieudanego startupu",
            "Cichy powrót pióra wiecznego",
            "Czego nauczył nas rok jazdy rowerem",
            "W pracowni lutnika od środka",
        ],
        "snippet": "Dłuższy tekst o temacie, który czytelnik widzi pod tytułem wyniku wyszukiwania.",
        "action": "Zobacz więcej",
        "collection": "Biblioteka gminna",
        "menu": ["Start", "Wiadomości", "Sport", "Pogoda", "Podróże", "Kultura", "Nauka", "Muzyka"],
        "date": "3 marca 2017",
    },
    "de": {
        "titles": [
            "Wie die Stadt ihren alten Hafen wieder aufbaute",
            "Sauerteigbrot für Anfänger erklärt",
            "Warum Züge im Winter später kommen",
            "Zehn Lehren aus einem gescheiterten Startup",
            "Die leise Rückkehr des Füllers",
            "Was wir aus einem Jahr Radfahren gelernt haben",
            "Zu Besuch in der Werkstatt eines Geigenbauers",
        ],
        "snippet": "Ein längerer Text über das Thema, den man unter dem Titel des Treffers liest.",
        "action": "Mehr erfahren",
        "collection": "Gemeindebibliothek",
        "menu": ["Start", "Nachrichten", "Sport", "Wetter", "Reisen", "Kultur", "Wissen", "Musik"],
        "date": "3. März 2017",
    },
}

MARKUPS = ("utility", "bem", "hashed", "testid", "table")


def _cls(rng: random.Random, markup: str, role: str) -> str:
    """A class (or data-testid) attribute for a part of the page in the chosen markup."""
    if markup == "utility":
        return f'class="flex {rng.choice(["p-2", "px-4", "mt-3"])} {rng.choice(["text-sm", "gap-2"])}"'
    if markup == "bem":
        return f'class="block__{role} block__{role}--{rng.choice(["wide", "plain"])}"'
    if markup == "hashed":
        return f'class="{role[:3]}_{rng.randrange(16**5):05x} x{rng.randrange(16**4):04x}"'
    if markup == "testid":
        return f'data-testid="{role}"'
    return ""


def _record(rng, markup, lang, i, title, words, extras) -> str:
    url = f"/r/{i}-{rng.randrange(1000)}"
    head = f'<h3 {_cls(rng, markup, "title")}><a href="{url}">{title}</a></h3>'
    parts = [head, f"<p {_cls(rng, markup, 'text')}>{words['snippet']}</p>"]
    if "date" in extras:
        parts.append(f"<span>{words['date']}</span>")
    if "action" in extras:
        parts.append(f'<a href="{url}?more=1">{words["action"]}</a>')
    if "collection" in extras:
        parts.insert(0, f'<a href="/collection/{rng.randrange(3)}">{words["collection"]}</a>')
    if markup == "table":
        return f"<tr><td>{'</td><td>'.join(parts)}</td></tr>"
    return f"<div {_cls(rng, markup, 'item')}>{''.join(parts)}</div>"


def _mega_menu(rng, markup, words) -> str:
    """Many more links than records, in columns, without a nav landmark or a nav-sounding class."""
    columns = []
    for c in range(rng.randint(4, 7)):
        links = "".join(
            f'<li><a href="/m/{c}/{k}">{rng.choice(words["menu"])} {rng.choice(words["menu"])}</a></li>'
            for k in range(rng.randint(6, 12))
        )
        columns.append(f"<div {_cls(rng, markup, 'col')}><b>{words['menu'][c]}</b><ul>{links}</ul></div>")
    return f"<div {_cls(rng, markup, 'top')}>{''.join(columns)}</div>"


def _sitemap(rng, markup, words) -> str:
    links = "".join(
        f'<li><a href="/s/{k}">{rng.choice(words["menu"])} {rng.choice(words["menu"])}</a></li>'
        for k in range(rng.randint(15, 30))
    )
    return f"<div {_cls(rng, markup, 'bottom')}><ul>{links}</ul></div>"


WRAPPERS = (
    '<div class="layout has-sidebar">{}</div>',
    '<div class="fixed-header" id="content">{}</div>',
    '<form class="results-filter">{}</form>',
    "<header>{}</header>",
    '<div class="snippet-hidden">{}</div>',
    '<div class="results is-hidden">{}</div>',
    "<div>{}</div>",
)


def generated_page(seed: int) -> tuple[str, list[str]]:
    rng = random.Random(seed)
    lang = rng.choice(list(WORDS))
    words = WORDS[lang]
    markup = MARKUPS[seed % len(MARKUPS)]
    titles = rng.sample(words["titles"], rng.randint(3, 7))
    extras = {e for e in ("date", "action", "collection") if rng.random() < 0.5}
    records = "".join(_record(rng, markup, lang, i, t, words, extras) for i, t in enumerate(titles))
    listing = f"<table><tbody>{records}</tbody></table>" if markup == "table" else f"<div>{records}</div>"
    content = f"<h1>{rng.choice(words['menu'])}</h1>{listing}"
    wrapper = WRAPPERS[seed % len(WRAPPERS)]
    html = (
        f"<html><body>{_mega_menu(rng, markup, words)}{wrapper.format(content)}"
        f"{_sitemap(rng, markup, words)}</body></html>"
    )
    return html, titles


@pytest.mark.parametrize("seed", range(35))
def test_records_win_over_chrome(seed):
    html, titles = generated_page(seed)
    out = articles_generic.extract(html, "https://gen.example/search")
    assert_valid_output("articles_generic", out)
    assert [a["title"] for a in out["articles"]] == titles, html


def test_a_page_hidden_by_its_attribute_stays_hidden():
    """The ``hidden`` attribute and inline styles are believed whatever they wrap: only a class name
    on a wrapper of most of the page is read as a state of something inside."""
    html, titles = generated_page(6)
    inner = html.split("<body>", 1)[1].split("</body>", 1)[0]
    hidden_page = f'<html><body><div style="display:none">{inner}</div><p>Nothing to see</p></body></html>'
    assert articles_generic.extract(hidden_page, "https://gen.example/")["articles"] == []


@pytest.mark.parametrize(
    "row, wrap, lang",
    [
        ('<li class="{kind}"><a href="/f/{i}">{title}</a> <small>{note}</small></li>', "<ul>{}</ul>", "en"),
        (
            '<tr class="{kind}"><td><a href="/f/{i}">{title}</a></td><td>{note}</td></tr>',
            "<table>{}</table>",
            "pl",
        ),
        (
            '<div class="row row--{kind}"><h4 class="row__t"><a href="/f/{i}">{title}</a></h4><p>{note}</p></div>',
            "<section>{}</section>",
            "de",
        ),
        (
            '<div class="{kind}_4f2a1"><a href="/f/{i}">{title}</a><span>{note}</span></div>',
            "<div>{}</div>",
            "en",
        ),
    ],
)
def test_rows_of_two_kinds_taking_turns_are_one_list(row, wrap, lang):
    """Rows classed odd and even (or any two kinds taking turns) are one list, not two halves."""
    words = WORDS[lang]
    kinds = [("odd", "even"), ("light", "dark"), ("a", "b"), ("alt0", "alt1")][len(row) % 4]
    rows = "".join(
        row.format(kind=kinds[i % 2], i=i, title=title, note=words["date"])
        for i, title in enumerate(words["titles"])
    )
    html = f"<html><body><h1>{words['menu'][0]}</h1>{wrap.format(rows)}</body></html>"
    out = articles_generic.extract(html, "https://gen.example/")
    assert [a["title"] for a in out["articles"]] == words["titles"], html


@pytest.mark.parametrize(
    "column, lang",
    [
        ('<div class="search-results">{}</div>', "en"),
        ('<section class="wyniki-wyszukiwania">{}</section>', "pl"),
        ('<div class="suchergebnisse__liste">{}</div>', "de"),
        ('<div class="results-container"><div>{}</div></div>', "de"),
    ],
)
def test_results_in_a_box_of_the_results_column_are_the_results(column, lang):
    """Results set in an ``<aside>`` inside the results' container (one kind of results in a box of
    its own) beat a longer list of short links elsewhere: the box is content, not a sidebar. An
    ``<aside>`` outside such a container stays a sidebar: the main column's own list wins."""
    words = WORDS[lang]

    def box(titles: list[str]) -> str:
        docs = "".join(
            f'<div class="doc"><p class="doc-t"><a href="/d/{i}">{t}</a></p><p>{words["snippet"]}</p></div>'
            for i, t in enumerate(titles)
        )
        return f'<aside class="module">{docs}</aside>'

    menu = words["menu"]
    topics = "".join(  # three-word topic links, many of them
        f'<li><a href="/t/{k}">{menu[k % 8]} {menu[(k + 1) % 8]} {menu[(k + 3) % 8]}</a></li>'
        for k in range(32)
    )
    intro = "".join(f"<p>{words['snippet']} {words['snippet']}</p>" for _ in range(12))  # most of the text
    results = column.format(box(words["titles"][:5]))
    page = f"<html><body><main><div>{intro}</div><div><ul>{topics}</ul></div>{results}</main></body></html>"
    titles = [a["title"] for a in articles_generic.extract(page, "https://gen.example/")["articles"]]
    assert titles == words["titles"][:5], page
    own = "".join(
        f'<div class="row"><h3><a href="/o/{i}">{t}</a></h3><p>{words["snippet"]}</p></div>'
        for i, t in enumerate(words["titles"][3:])
    )
    sidebar = f"<html><body><main><div>{own}</div><div>{box(words['titles'][:3])}</div></main></body></html>"
    titles = [a["title"] for a in articles_generic.extract(sidebar, "https://gen.example/")["articles"]]
    assert titles == words["titles"][3:], sidebar


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_a_short_page_s_footer_is_still_its_footer(lang):
    """A short list of topics whose rows are nearly all links (a forum's table) beside a footer of
    more links that holds a good share of the short page's text: the topics are the list."""
    titles = WORDS[lang]["titles"]
    rows = "".join(
        f'<tr class="topic"><td class="main"><span class="line"><a class="title" href="/t/{i}">{t}</a></span>'
        f'<div class="tags"><a href="/c/{i}">{WORDS[lang]["menu"][i]}</a></div></td>'
        f'<td class="num">{i * 3 + 1}</td><td class="num">{i * 120 + 40}</td><td><a href="/t/{i}/last">{i + 1}h</a></td></tr>'
        for i, t in enumerate(titles)
    )
    menu = WORDS[lang]["menu"]
    sections = "".join(
        "<section><ul>"
        + "".join(f"<li><a href=/f/{k}/{j}>{menu[j]} {menu[j + 1]} {k}.{j}</a></li>" for j in range(6))
        + "</ul></section>"
        for k in range(3)
    )
    footer = f'<footer class="site-footer">{sections}</footer>'
    html = f'<html><body><table class="topics"><tbody>{rows}</tbody></table>{footer}</body></html>'
    out = articles_generic.extract(html, "https://gen.example/latest")
    assert [a["title"] for a in out["articles"]] == titles


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_rows_taking_turns_under_a_header_row_are_one_list(lang):
    """A catalogue table: a header row of its own, then rows classed odd and even by turns."""
    titles = WORDS[lang]["titles"]
    rows = "".join(
        f'<tr class="{"odd" if i % 2 else "even"}"><td>{i + 1}.</td><td class="title"><a href="/r/{i}">{t}</a> / '
        f"{WORDS[lang]['collection']}</td><td>{1990 + i}</td></tr>"
        for i, t in enumerate(titles)
    )
    table = f"<table><tr><th>#</th><th>{WORDS[lang]['menu'][1]}</th><th>{WORDS[lang]['date']}</th></tr>{rows}</table>"
    out = articles_generic.extract(
        f"<html><body><main><h1>Search</h1>{table}</main></body></html>", "https://gen.example/s"
    )
    assert [a["title"] for a in out["articles"]] == titles


CARD_FIELDS = {
    "en": ("30 min", "★ 4.3", "Dinners", "Most read", "A most read story of this week number"),
    "pl": ("30 min", "★ 4,3", "Obiady", "Popularne", "Popularny przepis tygodnia numer"),
    "de": (
        "30 Min.",
        "★ 4,3",
        "Hauptgerichte",
        "Meistgelesen",
        "Ein meistgelesener Beitrag der Woche Nummer",
    ),
}
CARD_TITLES = {  # names of a few words: dishes, places, products
    "en": [
        "Shepherd's pie",
        "Tomato soup with basil",
        "Apple crumble",
        "Roast chicken with lemon",
        "Pancakes",
    ],
    "pl": ["Pierogi ruskie", "Barszcz czerwony na zakwasie", "Sernik wiedeński", "Gołąbki w sosie", "Placki"],
    "de": [
        "Käsespätzle",
        "Rinderrouladen mit Rotkohl",
        "Apfelstrudel",
        "Kartoffelsuppe mit Würstchen",
        "Semmelknödel",
    ],
}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize(
    "card, box",
    [
        (
            '<div class="tile"><a href="/r/{i}"><img src="/p/{i}.jpg" alt=""><h3>{t}</h3></a>'
            '<div class="tile__meta"><span>⏱ {time}</span><span>{stars}</span><a href="/c/{i}">{cat}</a></div></div>',
            "<aside><h2>{head}</h2><ol>{links}</ol></aside>",
        ),
        (
            '<li class="card"><a class="card__link" href="/r/{i}"><figure><img src="/p/{i}.jpg" alt="">'
            '<figcaption><h2 class="card__title">{t}</h2></figcaption></figure></a><ul class="facts">'
            "<li>{time}</li><li>{stars}</li><li><a href='/c/{i}'>{cat}</a></li></ul></li>",
            '<div class="sidebar-box"><h2>{head}</h2><ul>{links}</ul></div>',
        ),
        (
            '<article><a href="/r/{i}"><picture><img src="/p/{i}.jpg" alt=""></picture>'
            '<h4>{t}</h4></a><p><time>{time}</time> · <span class="r">{stars}</span></p></article>',
            '<section role="complementary"><h2>{head}</h2><ul>{links}</ul></section>',
        ),
    ],
)
def test_cards_showing_fields_beat_a_box_of_longer_links(card, box, lang):
    """Cards whose link wraps a picture and a heading and which show short fields beside it (a time, a
    rating, a category) and no teaser, beside a box of popular links whose longer texts hold a good
    share of the short page: the cards are the list. A menu's entry shows its label alone; a record
    shows more than its title, in words or in fields."""
    titles = CARD_TITLES[lang]
    time, stars, cat, head, popular = CARD_FIELDS[lang]
    cards = "".join(card.format(i=i, t=t, time=time, stars=stars, cat=cat) for i, t in enumerate(titles))
    wrap = "ul" if card.startswith("<li") else "div"
    links = "".join(f'<li><a href="/pop/{k}">{popular} {k + 1}</a></li>' for k in range(5))
    html = (
        f"<html><body><main><h1>{WORDS[lang]['menu'][1]}</h1><{wrap} class='grid'>{cards}</{wrap}>"
        f"{box.format(head=head, links=links)}</main></body></html>"
    )
    out = articles_generic.extract(html, "https://gen.example/list")
    assert [a["title"] for a in out["articles"]] == titles, html


MORE_LINKS = {
    "en": ["More »", "Read more"],
    "pl": ["Więcej »", "Czytaj więcej »"],
    "de": ["Mehr", "Weiterlesen »"],
}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize(
    "record, wrap",
    [
        (
            '<a href="/r/{i}"><b>{t}</b></a><br>{snippet}<br><a href="/r/{i}">{more}</a><br><br>',
            "<td>{}</td>",
        ),
        ('<a href="/r/{i}">{t}</a><br>{snippet} <a href="/r/{i}">{more}</a><hr>', "<td>{}</td>"),
        (
            '<a class="t" href="/r/{i}">{t}</a><br><small>{snippet}</small> <a href="/r/{i}">{more}</a><br>',
            "<td>{}</td>",
        ),
    ],
)
def test_records_set_one_after_another_keep_their_more_link_out(record, wrap, which, lang):
    """Records written one after another in one cell (no element of their own, ``<br>`` or ``<hr>``
    between), each with a second link to its address ("More »", "Czytaj więcej »", "Weiterlesen"):
    one record each, titled by its title, whether the second link's words read as a title or not."""
    words = WORDS[lang]
    titles = words["titles"][:5]
    more = MORE_LINKS[lang][which]
    cell = "".join(record.format(i=i, t=t, snippet=words["snippet"], more=more) for i, t in enumerate(titles))
    menu = "".join(f'<a href="/m/{k}">{m}</a><br>' for k, m in enumerate(words["menu"][:6]))
    html = f"<html><body><table><tr><td>{menu}</td>{wrap.format(cell)}</tr></table></body></html>"
    out = articles_generic.extract(html, "https://gen.example/list")
    assert [a["title"] for a in out["articles"]] == titles, html


DESCRIPTIONS = {
    "en": "A longer description of the site that a reader sees beside its title, on the same line.",
    "pl": "Dłuższy opis strony, który czytelnik widzi obok jej tytułu, w tym samym wierszu tekstu.",
    "de": "Eine längere Beschreibung der Seite, die der Leser neben ihrem Titel in derselben Zeile sieht.",
}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize(
    "record, wrap",
    [
        ('<li><a href="/r/{i}">{t}</a> - {d}</li>', "<ul>{}</ul>"),
        ('<li><a href="/r/{i}"><b>{t}</b></a> — {d} <i>(2017)</i></li>', "<ol>{}</ol>"),
        ('<p><a href="/r/{i}">{t}</a>: {d}</p>', "<div>{}</div>"),
        ('<p>{n}. <a href="/r/{i}">{t}</a> – {d}</p>', "<td>{}</td>"),
    ],
)
def test_a_directory_entry_is_titled_by_the_link_opening_its_line(record, wrap, lang):
    """A directory's entries: a link that opens its line, then a dash or a colon and a description
    longer than the title. The link is the entry's title; a link inside a sentence stays no title."""
    words = WORDS[lang]
    titles = words["titles"][:5]
    entries = "".join(record.format(i=i, n=i + 1, t=t, d=DESCRIPTIONS[lang]) for i, t in enumerate(titles))
    menu = "".join(f'<a href="/m/{k}">{m}</a> ' for k, m in enumerate(words["menu"][:5]))
    html = f"<html><body><div>{menu}</div><h1>{words['menu'][1]}</h1>{wrap.format(entries)}</body></html>"
    if wrap.startswith("<td>"):
        html = html.replace(wrap.format(entries), f"<table><tr>{wrap.format(entries)}</tr></table>")
    out = articles_generic.extract(html, "https://gen.example/dir")
    assert [a["title"] for a in out["articles"]] == titles, html
    in_sentences = "".join(
        f'<p>{DESCRIPTIONS[lang]} <a href="/r/{i}">{t}</a> – {DESCRIPTIONS[lang]}</p>'
        for i, t in enumerate(titles)
    )
    out = articles_generic.extract(
        f"<html><body><h1>x</h1>{in_sentences}</body></html>", "https://gen.example/"
    )
    assert out["articles"] == []


UNSPACED = {
    "ja": (
        [
            "東京で新しい美術館が開館",
            "大阪の夏祭りに十万人が参加",
            "京都の紅葉が見頃",
            "北海道で初雪を観測",
            "名古屋城の修復が完了",
        ],
        ["ホーム", "ニュース", "スポーツ", "天気", "お問い合わせ"],
        "検索結果",
    ),
    "zh": (
        [
            "北京新建博物馆开放",
            "上海夏季音乐节吸引十万人",
            "杭州西湖迎来赏花季",
            "哈尔滨初雪",
            "广州地铁新线路开通",
        ],
        ["首页", "新闻", "体育", "天气", "联系我们"],
        "搜索结果",
    ),
    "th": (
        [
            "พิพิธภัณฑ์ใหม่เปิดในกรุงเทพ",
            "เทศกาลดนตรีฤดูร้อน",
            "ฝนตกหนักในเชียงใหม่",
            "รถไฟฟ้าสายใหม่เปิดให้บริการ",
            "ตลาดน้ำยอดนิยม",
        ],
        ["หน้าแรก", "ข่าว", "กีฬา", "สภาพอากาศ", "ติดต่อเรา"],
        "ผลการค้นหา",
    ),
}


@pytest.mark.parametrize("lang", sorted(UNSPACED))
@pytest.mark.parametrize(
    "record",
    [
        '<li><h3><a href="/n/{i}">{t}</a></h3><p>2017-03-{d:02d}</p></li>',
        '<li class="item"><a class="title" href="/n/{i}">{t}</a><span class="date">2017-03-{d:02d}</span></li>',
    ],
)
def test_titles_in_scripts_written_without_spaces_are_titles(record, lang):
    """Japanese, Chinese and Thai titles have no spaces between their words: a title of a few signs
    is a title as one of a few words is, and the menu's labels stay a menu."""
    titles, menu, heading = UNSPACED[lang]
    items = "".join(record.format(i=i, t=t, d=i + 1) for i, t in enumerate(titles))
    nav = "".join(f'<a href="/m/{k}">{m}</a> ' for k, m in enumerate(menu))
    html = f"<html><body><nav>{nav}</nav><h1>{heading}</h1><ul>{items}</ul></body></html>"
    out = articles_generic.extract(html, "https://gen.example/search")
    assert [a["title"] for a in out["articles"]] == titles, html


SHELF = {  # a strip of clips or covers above the results: a caption of a few words and a count each
    "en": ("Short", "Quick tip #{k} in 30 seconds", "{k} M views"),
    "pl": ("Krótkie", "Szybka porada #{k} w 30 sekund", "{k} mln wyświetleń"),
    "de": ("Kurz", "Schneller Tipp #{k} in 30 Sekunden", "{k} Mio. Aufrufe"),
}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize(
    "shelf_item, result",
    [
        (
            '<a href="/shorts/{k}"><img src="/s/{k}.jpg" alt=""><span>{caption}</span><span>{count}</span></a>',
            '<div class="video"><a class="thumb" href="/watch/{i}"><img src="/v/{i}.jpg" alt=""><span>4:{i}7</span>'
            '</a><div class="details"><h3><a href="/watch/{i}">{t}</a></h3><a class="channel" href="/c/{i}">'
            'Channel {i}</a> · {date}<p class="desc">{snippet}</p></div></div>',
        ),
        (
            '<a class="shelf__link" href="/clip/{k}"><figure><img src="/s/{k}.jpg" alt="">'
            "<figcaption>{caption}</figcaption></figure><small>{count}</small></a>",
            '<article class="result"><h2><a href="/doc/{i}">{t}</a></h2><p>{snippet}</p>'
            '<footer><a href="/by/{i}">Author {i}</a> <time>{date}</time></footer></article>',
        ),
        (
            '<a class="cover" href="/book/{k}"><img src="/c/{k}.jpg" alt=""><b>{caption}</b> <i>{count}</i></a>',
            '<tr><td><a href="/record/{i}">{t}</a><br><font size="-1">{snippet}<br>{date}</font></td></tr>',
        ),
    ],
)
def test_a_shelf_of_more_captioned_thumbnails_does_not_outweigh_the_results(shelf_item, result, lang):
    """Five results (a title link, a line to read, a date) under a strip of eight links, each a
    thumbnail with a caption and a count and no element around it: the strip shows more blocks, but
    such a link's words are all its title, no fields beside it, and the results are the list."""
    words = WORDS[lang]
    head, caption, count = SHELF[lang]
    titles = words["titles"][:5]
    shelf = "".join(
        shelf_item.format(k=k, caption=caption.format(k=k), count=count.format(k=k + 1)) for k in range(8)
    )
    results = "".join(
        result.format(i=i, t=t, snippet=words["snippet"], date=words["date"]) for i, t in enumerate(titles)
    )
    results = f"<table>{results}</table>" if result.startswith("<tr") else f"<div>{results}</div>"
    html = f"<html><body><div class='content'><section><h2>{head}</h2><div class='strip'>{shelf}</div></section>{results}</div></body></html>"
    out = articles_generic.extract(html, "https://gen.example/search")
    assert [a["title"] for a in out["articles"]] == titles, html


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_a_long_list_of_one_line_records_still_beats_a_box_of_rich_ones(lang):
    """Thirty catalogue entries of a title each and a box of three featured stories with teasers: the
    catalogue is the list (how much a record reads weighs less than how many records there are)."""
    words = WORDS[lang]
    entries = [f"{t} ({1990 + k})" for k, t in enumerate((words["titles"] * 5)[:30])]
    featured = "".join(
        f'<div class="feature"><h3><a href="/f/{i}">{t}</a></h3><p>{words["snippet"]} {words["snippet"]}</p></div>'
        for i, t in enumerate(words["titles"][:3])
    )
    catalogue = "".join(f'<li><a href="/item/{k}">{t}</a></li>' for k, t in enumerate(entries))
    html = f"<html><body><div class='content'>{featured}<ul>{catalogue}</ul></div></body></html>"
    out = articles_generic.extract(html, "https://gen.example/catalogue")
    assert [a["title"] for a in out["articles"]] == entries, html


GROUP_HEADS = {
    "en": ["Today", "Yesterday", "Monday, 3 April"],
    "pl": ["Dziś", "Wczoraj", "Poniedziałek, 3 kwietnia"],
    "de": ["Heute", "Gestern", "Montag, 3. April"],
}
CATEGORIES = {
    "en": ["Bikes", "Accessories", "Parts"],
    "pl": ["Rowery", "Akcesoria", "Części"],
    "de": ["Fahrräder", "Zubehör", "Ersatzteile"],
}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize(
    "group, entry",
    [
        (
            '<h3 class="day">{head}</h3><ul class="news">{entries}</ul>',
            '<li><span>{k}:15</span> <a href="/n/{i}">{t}</a></li>',
        ),
        (
            '<div class="category"><h2><a href="/c/{g}">{category}</a></h2><ul>{entries}</ul></div>',
            '<li><a href="/p/{i}">{t}</a> <span class="count">({k})</span></li>',
        ),
        (
            '<h4>{head}</h4><table class="group">{entries}</table>',
            '<tr><td><a href="/doc/{i}">{t}</a></td><td>{k}</td></tr>',
        ),
    ],
)
def test_a_list_split_under_headings_is_one_list(group, entry, lang):
    """Records of one kind split in parts of three, two and three under headings of their own (a news
    archive by day, a shop's results by category, tables by year): every record is the list, not the
    first of each part. A part of two records is a list of its own, not one record."""
    titles = WORDS[lang]["titles"][:7] + [WORDS[lang]["titles"][0] + " (2)"]
    parts, start = [], 0
    for g, size in enumerate((3, 2, 3)):
        entries = "".join(entry.format(i=start + k, k=k + 8, t=titles[start + k]) for k in range(size))
        head, category = GROUP_HEADS[lang][g], CATEGORIES[lang][g]
        parts.append(group.format(g=g, head=head, category=category, entries=entries))
        start += size
    html = f"<html><body><main><h1>{WORDS[lang]['menu'][1]}</h1>{''.join(parts)}</main></body></html>"
    out = articles_generic.extract(html, "https://gen.example/archive")
    assert [a["title"] for a in out["articles"]] == titles, html


SERVICES = {  # an authority's services A-Z: one word each, and what it is about
    "en": [
        ("Recycling", "Bin days and what goes where"),
        ("Parking", "Permits for residents and visitors"),
        ("Libraries", "Opening hours and online loans"),
        ("Elections", "How to register and where to vote"),
        ("Licensing", "Alcohol, taxis and street trading"),
    ],
    "pl": [
        ("Meldunek", "Zameldowanie na pobyt stały i czasowy"),
        ("Paszporty", "Wniosek i odbiór dokumentu"),
        ("Podatki", "Podatek od nieruchomości i środków transportu"),
        ("Śmieci", "Harmonogram odbioru odpadów"),
        ("Parkowanie", "Abonamenty i strefa płatnego parkowania"),
    ],
    "de": [
        ("Abfallkalender", "Termine der Müllabfuhr"),
        ("Bauantrag", "Unterlagen und Gebühren"),
        ("Fundbüro", "Verlorenes melden und abholen"),
        ("Führungszeugnis", "Online beantragen und bezahlen"),
        ("Hundesteuer", "Anmeldung und Abmeldung eines Hundes"),
    ],
}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize(
    "entry, wrap",
    [
        ('<li><a href="/service/{i}">{name}</a><p>{about}</p></li>', "<ul class='services'>{}</ul>"),
        ('<tr><td><a href="/service/{i}">{name}</a></td><td>{about}</td></tr>', "<table>{}</table>"),
        (
            '<div class="entry"><a href="/service/{i}">{name}</a><br><span>{about}</span></div>',
            "<div>{}</div>",
        ),
    ],
)
def test_one_word_titles_of_a_directory_with_descriptions_are_its_list(entry, wrap, lang):
    """A directory of one-word entries, each with a description of its own below or beside it, under a
    menu of one-word links and beside a facet box of one-word links with counts: the entries are the
    list (a menu's entry shows its label alone, a facet a count)."""
    services = SERVICES[lang]
    menu = "".join(f'<li><a href="/m/{k}">{w}</a></li>' for k, w in enumerate(WORDS[lang]["menu"]))
    facets = "".join(
        f'<li><a href="/f/{k}">{w}</a> ({k + 3})</li>' for k, w in enumerate(WORDS[lang]["menu"][:5])
    )
    entries = "".join(entry.format(i=i, name=n, about=a) for i, (n, a) in enumerate(services))
    html = (
        f"<html><body><nav><ul>{menu}</ul></nav><main><h1>A-Z</h1>{wrap.format(entries)}</main>"
        f"<div class='box'><ul>{facets}</ul></div></body></html>"
    )
    out = articles_generic.extract(html, "https://city.example/a-z")
    assert [a["title"] for a in out["articles"]] == [n for n, _ in services], html


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_a_one_word_label_over_a_records_title_link_stays_no_title(lang):
    """A one-word section label opening each record, above the record's own title link and teaser: the
    title link titles the record, not the label."""
    titles = WORDS[lang]["titles"][:5]
    records = "".join(
        f'<div class="story"><a class="section" href="/s/{i}">{WORDS[lang]["menu"][i + 1]}</a>'
        f'<h3><a href="/story/{i}">{t}</a></h3><p>{WORDS[lang]["snippet"]}</p></div>'
        for i, t in enumerate(titles)
    )
    out = articles_generic.extract(
        f"<html><body><main>{records}</main></body></html>", "https://news.example/"
    )
    assert [a["title"] for a in out["articles"]] == titles


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize(
    "lead, entry, wrap",
    [
        (  # a lead story over a news list
            '<div class="top-story"><a href="/article/{i}"><img src="/t.jpg" alt=""></a><h2><a href="/article/{i}">{t}</a>'
            '</h2><p class="standfirst">{snippet}</p><span class="date">{date}</span></div>',
            '<li><h3><a href="/article/{i}">{t}</a></h3><p>{snippet}</p><span>{date}</span></li>',
            '<ul class="stories">{}</ul>',
        ),
        (  # a "best match" box over the results, a rule between
            '<div id="best"><p class="special">★</p><div><a class="result" href="/docs/guide/{i}.html">{t}</a>'
            "<p>{snippet}</p></div></div><hr>",
            '<div class="item"><a class="result" href="/docs/guide/{i}.html">{t}</a><p>{snippet}</p></div>',
            '<div class="list">{}</div>',
        ),
        (  # the first result outside the container the others were loaded into
            '<div class="res"><div class="title"><a href="https://site.example/p/{i}/">{t}</a></div>'
            '<div class="snip">{snippet}</div></div>',
            '<div class="res"><div class="title"><a href="https://site.example/p/{i}/">{t}</a></div>'
            '<div class="snip">{snippet}</div></div>',
            '<div class="expansion">{}</div>',
        ),
    ],
)
def test_the_first_record_in_a_markup_of_its_own_opens_the_list(lead, entry, wrap, lang):
    """The list's first record drawn in a markup of its own right before the list (a lead story, a
    "best match" box, the first result outside the container of the others): it is the first record."""
    words = WORDS[lang]
    titles = words["titles"][:6]
    fill = {"snippet": words["snippet"], "date": words["date"]}
    first = lead.format(i=0, t=titles[0], **fill)
    rest = "".join(entry.format(i=i, t=t, **fill) for i, t in enumerate(titles[1:], 1))
    html = f"<html><body><main><h1>{words['menu'][1]}</h1>{first}{wrap.format(rest)}</main></body></html>"
    out = articles_generic.extract(html, "https://site.example/search?q=x")
    assert [a["title"] for a in out["articles"]] == titles, html


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize(
    "box",
    [
        '<p class="spell">Did you mean: <a href="/article/search?q=y">{t}</a></p>',  # nothing beside as a record
        '<div class="promo"><h2><a href="/shop/offer/1">{t}</a></h2><p>{snippet}</p></div>',  # elsewhere
        '<div class="sort"><h4>{t}</h4><ul><li><a href="/article/list?order=date">{word}</a></li></ul></div>',
    ],
)
def test_a_box_before_the_list_that_is_no_record_of_it_stays_out(box, lang):
    """A line or box right before the list that is not its first record: a spelling suggestion, a
    promotion linking elsewhere than the records do, a sort box titled by its heading."""
    words = WORDS[lang]
    titles = words["titles"][1:6]
    rest = "".join(
        f'<li><h3><a href="/article/{i}">{t}</a></h3><p>{words["snippet"]}</p></li>'
        for i, t in enumerate(titles)
    )
    before = box.format(t=words["titles"][0], snippet=words["snippet"], word=words["menu"][2])
    html = f"<html><body><main><h1>{words['menu'][1]}</h1>{before}<ul>{rest}</ul></main></body></html>"
    out = articles_generic.extract(html, "https://site.example/search?q=x")
    assert [a["title"] for a in out["articles"]] == titles, html


CRUMBS = {"en": ("Home", "Garden"), "pl": ("Start", "Ogród"), "de": ("Start", "Garten")}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize(
    "crumbs, title",
    [
        (
            '<div class="path"><a href="/">{0}</a> › <a href="/g">{1}</a> › <a href="/g/h">{2}</a></div>',
            '<a href="/guide/{i}"><h2>{t}</h2></a>',
        ),
        (
            '<ol class="crumbs"><li><a href="/">{0}</a></li><li><a href="/g">{1}</a></li><li><a href="/g/h">{2}</a></li></ol>',
            '<a class="result-link" href="/guide/{i}"><h3 class="t">{t}</h3><span>/guide/{i}</span></a>',
        ),
        (
            '<nav><a href="/g">{1}</a> / <a href="/g/h">{2}</a></nav>',
            '<a href="/guide/{i}"><span role="heading" aria-level="2">{t}</span></a>',
        ),
    ],
)
def test_a_link_holding_the_records_heading_titles_it_not_the_breadcrumb_above(crumbs, title, lang):
    """Each result under a breadcrumb whose last link reads as a title ("News Sports", another on each
    record), its own title a link holding a heading: the link holding the heading titles the record."""
    words = WORDS[lang]
    titles = words["titles"][:5]
    menu = words["menu"]
    records = "".join(
        f'<div class="result">{crumbs.format(*CRUMBS[lang], f"{menu[i + 1]} {menu[i + 2]}")}'
        f"{title.format(i=i, t=t)}<p>{words['snippet']}</p></div>"
        for i, t in enumerate(titles)
    )
    html = f"<html><body><main><h1>{words['menu'][1]}</h1>{records}</main></body></html>"
    out = articles_generic.extract(html, "https://site.example/search")
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, f"https://site.example/guide/{i}") for i, t in enumerate(titles)
    ], html


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize(
    "story, video",
    [
        (
            '<div class="hit-article"><h3><a href="/a/{i}">{t}</a></h3><p>{snippet}</p><span>{date}</span></div>',
            '<div class="hit-video"><a class="thumb" href="/v/{i}"><img src="/v/{i}.jpg" alt=""><span>4:1{i}</span></a>'
            '<h3><a href="/v/{i}">{t}</a></h3><span>{date}</span></div>',
        ),
        (
            '<li class="story"><div class="body"><h2 class="title"><a href="/a/{i}">{t}</a></h2><p>{snippet}</p></div></li>',
            '<li class="clip"><div class="body"><h2 class="title"><a href="/v/{i}">{t}</a></h2></div></li>',
        ),
        (
            '<article class="type-post"><header><h4><a href="/a/{i}">{t}</a></h4></header><p>{snippet}</p></article>',
            '<article class="type-gallery"><header><h4><a href="/v/{i}">{t}</a></h4></header><figure><img src="/g.jpg" alt=""></figure></article>',
        ),
    ],
)
def test_records_of_two_kinds_in_one_list_are_all_its_records(story, video, lang):
    """A list of articles with two videos (or galleries) among them, classed otherwise and shaped
    otherwise, their title links at the same place: every record, in page order."""
    words = WORDS[lang]
    titles = words["titles"][:7]
    fill = {"snippet": words["snippet"], "date": words["date"]}
    blocks = "".join((video if i in (2, 5) else story).format(i=i, t=t, **fill) for i, t in enumerate(titles))
    wrap = "ul" if story.startswith("<li") else "div"
    html = f"<html><body><main><h1>{words['menu'][1]}</h1><{wrap} class='hits'>{blocks}</{wrap}></main></body></html>"
    out = articles_generic.extract(html, "https://site.example/search")
    assert [a["title"] for a in out["articles"]] == titles, html


SOURCE_TABLES = {  # (header of the people column, header of the titles column, people, titles)
    "en": (
        "Employer",
        "Position",
        ["Acme Ltd", "Globex", "Initech", "Umbrella plc"],
        ["Warehouse operative", "Java developer", "Care assistant", "Electrician with licence"],
    ),
    "pl": (
        "Pracodawca",
        "Stanowisko",
        ["Budimex Serwis", "Apteka Zdrowie", "Piekarnia Malinowski", "Hurtownia Elektro"],
        ["Magazynier na zmiany", "Programista Java", "Opiekunka osób starszych", "Elektryk z uprawnieniami"],
    ),
    "de": (
        "Autor",
        "Titel",
        ["Thomas Mann", "Hermann Hesse", "Günter Grass", "Heinrich Böll"],
        ["Der Zauberberg", "Der Steppenwolf", "Die Blechtrommel", "Ansichten eines Clowns"],
    ),
}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize("layout", ["th-row", "thead", "colspan"])
def test_a_column_of_people_or_organisations_does_not_title_the_rows(layout, lang):
    """A table whose first column links the employer or the author and whose second links the record:
    the column headed "Employer", "Pracodawca", "Autor" holds no titles; the record's link titles it."""
    who, what, people, titles = SOURCE_TABLES[lang]
    head = f"<tr><th>{who}</th><th>{what}</th><th>2017</th></tr>"
    if layout == "colspan":
        head = f"<tr><th>{who}</th><th colspan='2'>{what}</th></tr>"
    rows = "".join(
        f'<tr><td><a href="/org/{i}">{p}</a></td><td><a href="/item/{i}">{t}</a></td><td>0{i + 1}.03.</td></tr>'
        for i, (p, t) in enumerate(zip(people, titles, strict=True))
    )
    table = (
        f"<table><thead>{head}</thead><tbody>{rows}</tbody></table>"
        if layout == "thead"
        else f"<table>{head}{rows}</table>"
    )
    html = f"<html><body><main><h1>{WORDS[lang]['menu'][1]}</h1>{table}</main></body></html>"
    out = articles_generic.extract(html, "https://site.example/list")
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, f"https://site.example/item/{i}") for i, t in enumerate(titles)
    ], html


ONE_WORD_TITLES = {  # (header of the titles column, header of the people column, titles, people)
    "en": (
        "Title",
        "Author",
        ["Ulysses", "Middlemarch", "Dracula Revisited Again"],
        ["Joyce, James", "Eliot, George", "Stoker, Bram"],
    ),
    "pl": (
        "Tytuł",
        "Autor",
        ["Lalka", "Ferdydurke", "Pan Tadeusz"],
        ["Prus, Bolesław", "Gombrowicz, Witold", "Mickiewicz, Adam"],
    ),
    "de": (
        "Titel",
        "Verfasser",
        ["Buddenbrooks", "Woyzeck", "Der Prozess"],
        ["Mann, Thomas", "Büchner, Georg", "Kafka, Franz"],
    ),
}


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
@pytest.mark.parametrize("order", ["title-first", "people-first"])
def test_one_word_titles_in_a_column_headed_title_are_the_titles(order, lang):
    """A catalogue table whose column headed "Title" / "Tytuł" / "Titel" links one-word titles
    ("Buddenbrooks") beside a column of authors written "Surname, Name": the header names the titles,
    whichever column comes first; the authors' links title nothing."""
    what, who, titles, people = ONE_WORD_TITLES[lang]
    cells = [
        (f"<th>{what}</th>", "<td><a href='/item/{i}'>{t}</a><br><small>Book</small></td>"),
        (f"<th>{who}</th>", "<td><a href='/person/{i}'>{p}</a></td>"),
    ]
    if order == "people-first":
        cells.reverse()
    head = "<tr><th></th><th>No.</th>" + "".join(h for h, _ in cells) + "<th>Year</th></tr>"
    rows = "".join(
        f"<tr><td><input type='checkbox' name='sel' value='{i}'></td><td>{i + 1}</td>"
        + "".join(c.format(i=i, t=t, p=p) for _, c in cells)
        + f"<td>19{i}5</td></tr>"
        for i, (t, p) in enumerate(zip(titles, people, strict=True))
    )
    html = f"<html><body><main><h1>{WORDS[lang]['menu'][1]}</h1><table><thead>{head}</thead><tbody>{rows}</tbody></table></main></body></html>"
    out = articles_generic.extract(html, "https://site.example/catalogue")
    assert [(a["title"], a["url"]) for a in out["articles"]] == [
        (t, f"https://site.example/item/{i}") for i, t in enumerate(titles)
    ], html


@pytest.mark.parametrize("lang", ["en", "pl", "de"])
def test_a_directory_of_companies_keeps_its_company_column_as_titles(lang):
    """A table headed "Company" / "Firma" / "Unternehmen" whose only links are the companies': they are
    the records, titled by their names."""
    who = {"en": "Company", "pl": "Firma", "de": "Unternehmen"}[lang]
    people = {
        "en": ["Acme Tools Ltd", "Globex Logistics", "Initech Software", "Umbrella Pharma plc"],
        "pl": SOURCE_TABLES["pl"][2],
        "de": ["Müller Bau GmbH", "Schmidt Elektro", "Weber Logistik", "Fischer Druck"],
    }[lang]
    rows = "".join(
        f'<tr><td><a href="/org/{i}">{p}</a></td><td>Street {i}</td><td>+48 12 345 67 8{i}</td></tr>'
        for i, p in enumerate(people)
    )
    html = f"<html><body><main><h1>{WORDS[lang]['menu'][1]}</h1><table><tr><th>{who}</th><th>Address</th><th>Phone</th></tr>{rows}</table></main></body></html>"
    out = articles_generic.extract(html, "https://site.example/companies")
    assert [a["title"] for a in out["articles"]] == people, html


LOCAL_TITLE_CLASSES = [  # (language, the class word for "title", titles, the other parts' words)
    (
        "pl",
        "tytul",
        ["Nowy wózek dla Kuby", "Operacja serca dla Zosi", "Schronisko dla psów", "Książki dla biblioteki"],
        "Zebrano 1 200 zł z 5 000 zł",
    ),
    (
        "de",
        "titel",
        ["Neuer Rollstuhl für Tom", "Herz-OP für Lena", "Tierheim in Leipzig", "Bücher für die Dorfbücherei"],
        "1.200 € von 5.000 € gesammelt",
    ),
    (
        "fr",
        "titre",
        ["Un fauteuil pour Léo", "Opération du cœur de Zoé", "Refuge pour chiens", "Des livres pour l'école"],
        "1 200 € collectés sur 5 000 €",
    ),
    (
        "it",
        "titolo",
        [
            "Una carrozzina per Luca",
            "Operazione al cuore di Sara",
            "Rifugio per cani",
            "Libri per la biblioteca",
        ],
        "Raccolti 1.200 € su 5.000 €",
    ),
    (
        "es",
        "titulo",
        [
            "Una silla para Pablo",
            "Operación de corazón de Lucía",
            "Refugio de perros",
            "Libros para la escuela",
        ],
        "Recaudados 1.200 € de 5.000 €",
    ),
]


@pytest.mark.parametrize("lang, word, titles, progress", LOCAL_TITLE_CLASSES)
@pytest.mark.parametrize(
    "card",
    [
        '<a class="card" href="/c/{i}"><img src="/i/{i}.jpg" alt=""><span class="card__{word}">{t}</span><span class="card__progress">{progress}</span><span class="card__count">{n} supporters</span></a>',
        '<a class="tile" href="/c/{i}"><span class="tile-{word}">{t}</span> <small>{progress}</small> <em>{n}</em></a>',
        '<a href="/c/{i}"><b class="{word}">{t}</b><span>{progress}</span></a>',
    ],
)
def test_a_card_wide_link_is_titled_by_the_part_named_title_in_the_pages_language(
    card, lang, word, titles, progress
):
    """Card-wide links made of inline parts, the title named in the site's language ("tytul", "titel",
    "titre", "titolo", "titulo"): the named part titles the card, not all its words."""
    cards = "".join(
        card.format(i=i, t=t, word=word, progress=progress, n=100 + i) for i, t in enumerate(titles)
    )
    html = f"<html lang='{lang}'><body><main><h1>{titles[0].split()[0]}</h1><div class='grid'>{cards}</div></main></body></html>"
    out = articles_generic.extract(html, "https://site.example/search")
    assert [a["title"] for a in out["articles"]] == titles, html
