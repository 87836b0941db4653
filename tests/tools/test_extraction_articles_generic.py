"""articles_generic: stories, posts, comments and search results on any page.

Exact against TRUTH.json on the Hacker News (2020, 2026) and old-reddit listings; the comments of a
Hacker News item page and of a new-reddit post page; Bing's ten organic results. Local fixtures in
several markups and languages (a German forum table, a Polish blog, an English search page with ads
and a redirecting result link, comment threads in English and German, a Polish site's results with
an ad), and generated listings in many markups (property-style)."""

from __future__ import annotations

import random
from urllib.parse import urljoin

import pytest

from curllm_core.errors import ToolError
from curllm_core.tools.extraction import articles_generic
from tests.conftest import realpage
from tests.tools.test_extraction_helpers import (
    FIXTURES,
    assert_valid_output,
    open_offline,
    page_text,
    truth,
)

HN = "https://news.ycombinator.com/"


def extract(html: str, url: str = "https://site.example/list", **params) -> list[dict]:
    out = articles_generic.extract(html, url, **params)
    assert_valid_output("articles_generic", out)
    return out["articles"]


def fixture(name: str) -> str:
    return (FIXTURES / "articles" / name).read_text(encoding="utf-8")


# --- the truths -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, url",
    [
        ("hn_front_2026.html", HN),
        ("hackernews_front_2020.html", HN),
        ("reddit_old_dataisbeautiful_top.html", "https://old.reddit.com/r/dataisbeautiful/top/"),
    ],
)
def test_listings_match_truth(name, url):
    articles = extract(page_text(name), url)
    expected = truth()[name]["items"]
    assert len(articles) == len(expected)
    for got, want in zip(articles, expected, strict=True):
        assert got["title"] == want["title"]
        assert got["url"] == urljoin(url, want["url"])  # the truth keeps Ask HN links relative
        assert got.get("points") == want.get("points", want.get("score"))  # score is points
        for key, field in (("comments", "comments"), ("user", "author"), ("rank", "rank")):
            if key in want:
                assert got[field] == want[key]


def test_hn_listing_details():
    articles = extract(page_text("hn_front_2026.html"), HN)
    first = articles[0]
    assert first | {} == {
        "title": "The West Forgot How to Make Things. Now It's Forgetting How to Code",
        "url": "https://techtrenches.dev/p/the-west-forgot-how-to-make-things",
        "points": 284,
        "comments": 145,
        "author": "milkglass",
        "date": "2026-04-26T06:24:42",
        "rank": 1,
    }
    job = next(a for a in articles if "Hiring" in a["title"])
    assert job["points"] is None and job["comments"] is None  # a job ad shows neither


def test_hn_item_page_gives_its_comments():
    articles = extract(page_text("hn_item_36817231.html"), "https://news.ycombinator.com/item?id=36817231")
    assert len(articles) == 100  # every comment row, short ones too; not the story on top
    assert all(a["url"].startswith("https://news.ycombinator.com/item?id=") for a in articles)
    assert all(a["author"] and a["date"] and a["text"] for a in articles)
    first = articles[0]
    assert first["author"] == "PaulRobinson" and first["date"] == "2023-07-21T19:51:36"
    assert first["text"].startswith('Claude Shannon\'s "A Mathematical Theory of Communication"')
    assert len(first["title"]) <= 125 and first["title"].endswith("…")
    assert not any(a["text"].endswith("reply") for a in articles)  # the reply link is not text


def test_new_reddit_post_page_gives_its_comments():
    articles = extract(page_text("reddit_new_askreddit_post.html"), "https://www.reddit.com/r/AskReddit/")
    assert len(articles) == 12  # the three deleted comments have no text
    assert [a["points"] for a in articles[:3]] == [364, 289, 2900]
    assert articles[0]["author"] == "TheEngLife" and articles[0]["date"] == "3 yr. ago"
    assert articles[4]["text"] == "10 ft charging cord for my phone."
    assert all("/comment/" in a["url"] for a in articles)


BING_TITLES = [
    "Microsoft - Wikipedia",
    "History of Microsoft - Wikipedia",
    "Microsoft Windows - Wikipedia",
    "Microsoft - Simple English Wikipedia, the free encyclopedia",
    "About Microsoft | Mission and Vision | Microsoft",
    "Timeline of Microsoft - Wikipedia",
    "Microsoft Corporation | History, Products, & Facts",
    "A Short History of Microsoft - ThoughtCo",
    "Microsoft - Wikiwand",
    "Outline of Microsoft - Wikipedia",
]


def test_search_engine_results_are_the_organic_ten():
    articles = extract(page_text("bing_serp_microsoft_wikipedia.html"), "https://www.bing.com/search?q=x")
    assert [a["title"] for a in articles] == BING_TITLES
    assert articles[0]["url"] == "https://en.wikipedia.org/wiki/Microsoft"  # the redirect's target
    assert articles[6]["url"] == "https://www.britannica.com/topic/Microsoft-Corporation"
    assert not any("bing.com" in a["url"] for a in articles)
    assert articles[2]["snippet"].startswith("Microsoft Windows is a product line")  # no "WEB" badge
    assert articles[6]["date"] == "2 days ago" and articles[6]["snippet"].startswith(
        "Microsoft Corporation is"
    )
    assert set(articles[0]) == {"title", "url", "snippet", "date"}  # nothing the page does not show
    assert [
        a["title"] for a in extract(page_text("bing_serp_microsoft_wikipedia.html"), limit=3)
    ] == BING_TITLES[:3]


PRODUCT_TRUTHS = [
    "ceneo_search_canon.html",
    "amazon_de_search_katzenfutter.html",
    "amazon_de_search_plastikfrei_besteck.html",
    "ceneo_pl_bluray_sensacyjne_list.html",
    "ceneo_pl_gitary_yamaha_grid.html",
    "geizhals_de_grafikkarten_2024.html",
    "geizhals_de_mainboards_am5_2024.html",
    "leboncoin_fr_voitures_2018.html",
    "leboncoin_fr_voitures_laguna_2016.html",
]


@pytest.mark.parametrize("name", PRODUCT_TRUTHS)
def test_a_sites_results_page_gives_its_results_without_ads(name):
    """ "search results" on a shop's or a classifieds site's results page: every result, titled as the
    page titles it, the ones marked as ads left out (and flagged when asked for)."""
    from curllm_core.charset import decode_html

    html = decode_html(realpage(name).read_bytes())  # two of them are not UTF-8
    expected = truth()[name]["items"]
    with_ads = extract(html, "https://shop.example/search", include_ads=True)
    assert [(a["title"], a["sponsored"]) for a in with_ads] == [
        (t["name"], bool(t.get("sponsored"))) for t in expected
    ]
    organic = extract(html, "https://shop.example/search")
    assert [a["title"] for a in organic] == [t["name"] for t in expected if not t.get("sponsored")]


# --- local fixtures -----------------------------------------------------------------------------------


def test_german_forum_table():
    articles = extract(fixture("forum_de.html"), "https://rad.example.de/forum/")
    assert [(a["title"], a["points"], a["comments"], a["author"], a["date"]) for a in articles] == [
        ("Regeln für dieses Forum", 12, 0, "moderator", "vor 3 Tagen"),
        ("Welche Kette für 11-fach?", 57, 14, "radlerin", "vor 2 Stunden"),
        ("Bremsen quietschen nach Regen", 3, 1, "bergfex", "gestern"),
        ("Tubeless-Umbau: Erfahrungen?", 1200, 31, "k_mueller", "vor 5 Minuten"),
    ]
    assert articles[1]["url"] == "https://rad.example.de/forum/t/202-welche-kette-fuer-11-fach"
    assert [a["title"] for a in extract(fixture("forum_de.html"), min_points=50)] == [
        "Welche Kette für 11-fach?",
        "Tubeless-Umbau: Erfahrungen?",
    ]
    assert [a["title"] for a in extract(fixture("forum_de.html"), min_comments=10, limit=1)] == [
        "Welche Kette für 11-fach?"
    ]


def test_polish_blog_list():
    articles = extract(fixture("blog_pl.html"), "file:///tmp/blog_pl.html")
    assert [a["url"] for a in articles] == [  # a saved page resolves against its canonical URL
        "https://gotuj.example.pl/blog/zurek-na-zakwasie",
        "https://gotuj.example.pl/blog/pierogi-ruskie",
        "https://gotuj.example.pl/blog/sernik-krakowski",
    ]
    assert [(a["points"], a["comments"], a["author"]) for a in articles] == [
        (48, 12, "Anna Nowak"),
        (7, 0, "Jan Kowalski"),  # "Skomentuj": no comments yet
        (130, 3, "Anna Nowak"),
    ]
    assert articles[0]["date"] == "2024-03-02T10:15:00+01:00"
    assert articles[2]["snippet"].startswith("Najlepszy twaróg do sernika")


def test_english_search_page_without_ads():
    articles = extract(fixture("search_en.html"), "https://search.example/search?q=rust")
    assert [(a["title"], a["url"]) for a in articles] == [
        ("Tokio - An asynchronous Rust runtime", "https://tokio.rs/"),
        ("smol-rs/smol: A small and fast async runtime - GitHub", "https://github.com/smol-rs/smol"),
        ("Asynchronous Programming in Rust", "https://rust-lang.github.io/async-book/"),
        ("async_std - Rust - Docs.rs", "https://docs.rs/async-std"),
    ]
    assert articles[2]["date"] == "Mar 3, 2024" and articles[2]["snippet"].startswith("This book aims")
    with_ads = extract(fixture("search_en.html"), include_ads=True)
    assert [a["sponsored"] for a in with_ads] == [False, True, False, False, False]
    assert with_ads[1]["title"] == "The Rust Book, Printed Edition - Free Shipping"


def test_polish_site_results_without_the_ad():
    articles = extract(fixture("results_pl.html"))
    assert [a["title"] for a in articles] == [
        "Jak wybrać rower miejski? Poradnik 2024",
        "Rower miejski czy trekkingowy na dojazdy?",
        "Rower miejski – Wikipedia, wolna encyklopedia",
    ]
    assert articles[0]["snippet"].startswith("Rama, przerzutki w piaście")


def test_comment_threads():
    en = extract(fixture("comments_en.html"), "https://talk.example.org/t/991")
    assert [(a["author"], a["points"], a["url"]) for a in en] == [
        ("mkay", 42, "https://talk.example.org/t/991/1"),
        ("dora", 7, "https://talk.example.org/t/991/2"),
        ("pete_r", 1500, "https://talk.example.org/t/991/3"),
    ]
    assert en[0]["text"] == (
        "Reading other people's code, lots of it. Pick a library you use every day and read it end "
        "to end. You will find patterns you never thought about, and a few bugs too."
    )
    assert en[1]["title"] == en[1]["text"] == "Code review by someone strict."
    de = extract(fixture("comments_de.html"))
    assert [(a["author"], a["points"], a["date"], a["text"][:12]) for a in de] == [
        ("Leserin_42", 18, "vor 5 Stunden", "Endlich! Der"),
        ("Hans W.", 3, "vor 4 Stunden", "Und wer beza"),
        ("radfahrer", 0, "14.03.2024", "Gut so."),
    ]


def test_a_site_tools_parameter_names_reach_it_as_its_fallback():
    # articles_reddit says min_score / include_promoted: as its fallback, the same filter holds.
    html = page_text("reddit_old_dataisbeautiful_top.html")
    by_score = extract(html, min_score=2000)
    assert (
        [a["points"] for a in by_score]
        == [2395, 2066, 2044]
        == [a["points"] for a in extract(html, min_points=2000)]
    )
    assert len(extract(fixture("search_en.html"), include_promoted=True)) == 5


def test_kind_and_bad_parameters():
    assert extract(fixture("comments_en.html"), kind="posts") == []  # one topic is not a list
    assert len(extract(fixture("comments_en.html"), kind="comments")) == 3
    assert extract("<html><body><p>nothing here</p></body></html>") == []
    for bad in ({"limit": 0}, {"min_points": "5"}, {"kind": "stories"}):
        with pytest.raises(ToolError):
            articles_generic.extract(fixture("forum_de.html"), "", **bad)


# --- generated listings: many markups, three languages ----------------------------------------------

WORDS = {
    "en": ("{n} points", "{n} comments", "by {a}", "{h} hours ago", "Sponsored"),
    "pl": ("{n} punktów", "{n} komentarzy", "autor: {a}", "{h} godzin temu", "Reklama"),
    "de": ("{n} Punkte", "{n} Kommentare", "von {a}", "vor {h} Stunden", "Anzeige"),
}
TITLES = [
    "Why the new bridge took ten years",
    "Nowy most otwarty po dziesięciu latach",
    "Die Brücke ist endlich fertig gebaut",
    "Show: a tiny database in one file",
    "Jak nauczyłem się grać na skrzypcach",
    "Warum Züge im Winter später kommen",
    "Ten lessons from a failed startup",
    "Przepis na chleb bez drożdży",
]


def generated_listing(seed: int) -> tuple[str, list[dict]]:
    rng = random.Random(seed)
    lang = rng.choice(list(WORDS))
    points_w, comments_w, by_w, ago_w, ad_w = WORDS[lang]
    outer, inner = rng.choice([("ul", "li"), ("ol", "li"), ("div", "div"), ("section", "article")])
    item_cls = rng.choice(["item", "story", "entry", "wpis", "beitrag", "row"])
    heading = rng.choice(["h2", "h3", None])
    titles = rng.sample(TITLES, rng.randint(3, 7))
    ad_at = rng.choice([None, 0, 1, len(titles)])
    expected: list[dict] = []
    rows = []
    ad = (
        f'<{inner} class="{item_cls}"><span class="label">{ad_w}</span>'
        f'<a href="https://ads.example/">Buy the best shoes online today</a>'
        f"<span>{points_w.format(n=1)}</span></{inner}>"
    )
    for i, title in enumerate(titles):
        if ad_at == i:
            rows.append(ad)
        n, c, h = rng.randint(1, 999), rng.randint(0, 300), rng.randint(1, 23)
        author = rng.choice(["anna_k", "jsmith", "müller", "zoe"])
        link = f'<a href="/p/{seed}-{i}">{title}</a>'
        head = f"<{heading}>{link}</{heading}>" if heading else f'<span class="title">{link}</span>'
        meta = [
            f'<span class="score">{points_w.format(n=n)}</span>',
            f'<a href="/p/{seed}-{i}#c">{comments_w.format(n=c)}</a>',
            f'<span class="byline">{by_w.format(a=author)}</span>',
            f"<span>{ago_w.format(h=h)}</span>",
        ]
        rng.shuffle(meta)
        rows.append(f'<{inner} class="{item_cls}">{head}<div class="meta">{" · ".join(meta)}</div></{inner}>')
        expected.append(
            {
                "title": title,
                "url": f"https://gen.example/p/{seed}-{i}",
                "points": n,
                "comments": c,
                "author": author,
            }
        )
    if ad_at == len(titles):
        rows.append(ad)
    nav = '<nav><a href="/a">About this site</a> <a href="/b">Contact the team</a> <a href="/c">Privacy policy page</a></nav>'
    side = '<aside><ul><li><a href="/x">Most read this week</a></li><li><a href="/y">Editors picks for you</a></li></ul></aside>'
    html = (
        f"<html><body>{nav}<main><{outer} class='list'>{''.join(rows)}</{outer}></main>{side}</body></html>"
    )
    return html, expected


@pytest.mark.parametrize("seed", range(24))
def test_generated_listings(seed):
    html, expected = generated_listing(seed)
    articles = extract(html, "https://gen.example/")
    got = [{k: a.get(k) for k in ("title", "url", "points", "comments", "author")} for a in articles]
    assert got == expected, html


# --- in a browser ---------------------------------------------------------------------------------------


@pytest.mark.browser
async def test_run_in_a_real_browser(page, on_page):
    await open_offline(page, realpage("bing_serp_microsoft_wikipedia.html"))
    out = await on_page("extraction.articles_generic", limit=10)
    assert_valid_output("articles_generic", out)
    assert [a["title"] for a in out["articles"]] == BING_TITLES


def _results_with_ads(lang: str, label: str, titles: list[str], ads: set[int]) -> str:
    items = "".join(
        f'<li class="result"><a href="/r/{i}">{title}</a>'
        + (f' <span class="badge">{label}</span>' if i in ads else "")
        + "<p>A few words about this result, as a results page shows them.</p></li>"
        for i, title in enumerate(titles)
    )
    return f'<html lang="{lang}"><body><h1>{titles[0].split()[0]}</h1><ul class="results">{items}</ul></body></html>'


ADS_CASES = [
    (
        "en",
        "Promoted",
        ["Senior Backend Engineer", "Product Designer", "Data Analyst Growth", "Technical Writer"],
    ),
    (
        "de",
        "Anzeige",
        ["Wohnung in Berlin Mitte", "Altbau mit Balkon", "Penthouse am Park", "Loft im Hinterhof"],
    ),
    (
        "pl",
        "Sponsorowane",
        ["Rower miejski damski", "Rower górski męski", "Rower dziecięcy 20 cali", "Hulajnoga"],
    ),
]


@pytest.mark.parametrize(("lang", "label", "titles"), ADS_CASES)
def test_the_ads_left_out_are_counted(lang, label, titles):
    out = articles_generic.extract(_results_with_ads(lang, label, titles, {0, 2}), "https://site.example/")
    assert [a["title"] for a in out["articles"]] == [titles[1], titles[3]]
    assert out["ads_left_out"] == 2
    with_ads = articles_generic.extract(
        _results_with_ads(lang, label, titles, {0, 2}), "https://site.example/", include_ads=True
    )
    assert [a["title"] for a in with_ads["articles"]] == titles and "ads_left_out" not in with_ads
    plain = articles_generic.extract(_results_with_ads(lang, label, titles, set()), "https://site.example/")
    assert len(plain["articles"]) == 4 and "ads_left_out" not in plain


MORE_AD_LABELS = [
    ("it", "Pubblicità", ["Casa con giardino", "Bilocale in centro", "Attico con terrazzo", "Villa al mare"]),
    (
        "fr",
        "Publicité",
        ["Maison avec jardin", "Studio au centre", "Loft avec terrasse", "Villa en bord de mer"],
    ),
    (
        "es",
        "Publicidad",
        ["Casa con jardín", "Estudio en el centro", "Ático con terraza", "Chalet junto al mar"],
    ),
    ("nl", "Advertentie", ["Huis met tuin", "Studio in het centrum", "Loft met dakterras", "Villa aan zee"]),
    ("sv", "Annons", ["Hus med trädgård", "Etta i centrum", "Vindsvåning med terrass", "Villa vid havet"]),
]


@pytest.mark.parametrize(("lang", "label", "titles"), MORE_AD_LABELS)
def test_ads_labelled_in_more_languages_are_left_out_and_counted(lang, label, titles):
    """An ad among the results, labelled in the page's language ("Pubblicità", "Publicité",
    "Publicidad", "Advertentie", "Annons") as the shops' ads already are."""
    out = articles_generic.extract(_results_with_ads(lang, label, titles, {1, 3}), "https://site.example/")
    assert [a["title"] for a in out["articles"]] == [titles[0], titles[2]] and out["ads_left_out"] == 2


@pytest.mark.parametrize("markup", ["adv", "adv-box", "is-adv"])
def test_an_ad_classed_adv_among_the_results_is_left_out(markup):
    """Results with an ad block between them in the same list, classed ``adv`` (a shortening Italian,
    Polish and Spanish sites use for advertising) and labelled nowhere else."""
    titles = ["Casa con giardino", "Bilocale in centro", "Attico con terrazzo", "Villa al mare"]
    items = "".join(
        f'<div class="result"><h3><a href="/casa/{i}">{t}</a></h3><p>Luminoso, ristrutturato, con cantina.</p></div>'
        + (
            f'<div class="result {markup}"><h3><a href="/x/{i}">Mutuo casa al tasso più basso oggi</a></h3>'
            "<p>Offerta riservata ai nuovi clienti, preventivo gratuito.</p></div>"
            if i % 2
            else ""
        )
        for i, t in enumerate(titles)
    )
    html = f'<html lang="it"><body><h1>Case</h1><div class="list">{items}</div></body></html>'
    out = articles_generic.extract(html, "https://site.example/")
    assert [a["title"] for a in out["articles"]] == titles and out["ads_left_out"] == 2


@pytest.mark.browser
async def test_a_result_without_its_ads_says_so(curllm_run_plan):
    """Leaving the ads out is the tool's default; the result says how many, and how to keep them."""
    for lang, label, titles in ADS_CASES:
        plan = {"plan": [{"tool": "extraction.articles_generic"}]}
        result = await curllm_run_plan(plan, html=_results_with_ads(lang, label, titles, {0, 2}))
        assert [a["title"] for a in result.data["articles"]] == [titles[1], titles[3]]
        assert result.warnings == [
            "extraction.articles_generic: left out 2 item(s) marked as ads (Sponsored, Promoted, Anzeige, "
            "...); the parameter include_ads keeps them"
        ], result.warnings
        result = await curllm_run_plan(plan, html=_results_with_ads(lang, label, titles, set()))
        assert len(result.data["articles"]) == 4 and result.warnings == []


def _figure_cards(titles: list[str], makers: list[str], markup: str) -> str:
    if markup == "figure":
        card = (
            '<a class="card" href="/item/{i}"><figure><img src="/i/{i}.jpg" alt=""><figcaption>'
            '<em class="card__title">{title}</em><span class="card__maker">{maker}</span></figcaption></figure></a>'
        )
    else:  # a description list inside the link
        card = (
            '<a class="tile" href="/item/{i}"><img src="/i/{i}.jpg" alt=""><dl><dt class="tile-name">{title}</dt>'
            "<dd>{maker}</dd></dl></a>"
        )
    cards = "".join(
        card.format(i=i, title=t, maker=m) for i, (t, m) in enumerate(zip(titles, makers, strict=True))
    )
    return f'<html><body><nav><a href="/">Home</a><a href="/about">About</a></nav><main><h1>Results</h1><div class="grid">{cards}</div></main></body></html>'


@pytest.mark.parametrize("markup", ["figure", "dl"])
@pytest.mark.parametrize(
    ("titles", "makers"),
    [
        (
            ["Het melkmeisje", "Gezicht op Delft", "Het puttertje", "Stilleven met bloemen"],
            ["Schilder, ca. 1658"] * 4,
        ),
        (["Morning Light", "Harbour at Dusk", "The Old Mill", "Winter Garden"], ["Oil on canvas, 1890"] * 4),
        (
            ["Die Brücke im Nebel", "Sommerwiese", "Der alte Hafen", "Abend am See"],
            ["Öl auf Leinwand, 1905"] * 4,
        ),
        (
            ["Pejzaż zimowy", "Portret kobiety", "Martwa natura z owocami", "Widok Krakowa"],
            ["Olej na płótnie, 1899"] * 4,
        ),
    ],
)
def test_a_card_wide_link_around_a_figure_or_list_is_titled_by_its_named_title(titles, makers, markup):
    """A link around a whole card is titled by the element named a title inside it, whatever block
    holds that (a figure's caption, a description list), not by all the card's words."""
    articles = extract(_figure_cards(titles, makers, markup))
    assert [a["title"] for a in articles] == titles
    assert [a["url"] for a in articles] == [f"https://site.example/item/{i}" for i in range(4)]


def _reference_table(refs: list[str], titles: list[str], extra: str, headers: list[str]) -> str:
    rows = "".join(
        f'<tr><td>{10 + i}.10.2026</td><td><a href="/doc/{i}">{ref}</a></td><td>{extra}</td><td>{title}</td></tr>'
        for i, (ref, title) in enumerate(zip(refs, titles, strict=True))
    )
    head = "".join(f"<th>{h}</th>" for h in headers)
    return (
        '<html><body><div id="top"><a href="/">Registry online</a></div><div id="content"><h1>Results</h1>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div></body></html>"
    )


REFERENCE_TABLES = [
    (
        ["VIII ZR 100/25", "VI ZR 101/25", "X ZR 102/25"],
        [
            "Kündigung wegen Eigenbedarfs bei Zweitwohnung",
            "Haftung des Tierhalters",
            "Schadensersatz wegen Flugverspätung",
        ],
        "BGH",
        ["Datum", "Aktenzeichen", "Gericht", "Titel"],
    ),
    (
        ["ZP.271.1.2026", "ZP.271.2.2026", "ZP.271.3.2026", "ZP.271.4.2026"],
        [
            "Dostawa sprzętu komputerowego",
            "Budowa drogi gminnej w Nowej Wsi",
            "Remont dachu budynku urzędu",
            "Zakup samochodu strażackiego",
        ],
        "Gmina",
        ["Data", "Znak", "Zamawiający", "Nazwa zamówienia"],
    ),
    (
        ["RFC 9110", "RFC 9111", "RFC 9112"],
        ["HTTP Semantics and Content", "HTTP Caching in Practice", "HTTP/1.1 Message Syntax"],
        "IETF",
        ["Date", "Number", "Body", "Title"],
    ),
    (
        ["n° 2026-101", "n° 2026-102", "n° 2026-103"],
        [
            "Arrêté portant fermeture de voirie",
            "Délibération sur le budget annexe",
            "Convention avec la médiathèque",
        ],
        "Mairie",
        ["Date", "Numéro", "Service", "Objet"],
    ),
]


@pytest.mark.parametrize(("refs", "titles", "extra", "headers"), REFERENCE_TABLES)
def test_a_table_linking_only_references_is_titled_by_its_title_cells(refs, titles, extra, headers):
    """A table whose rows link a reference (a case number, a file mark) and show their title in a cell
    without a link: the rows, titled by that cell, linked by the reference; not the page's heading."""
    articles = extract(_reference_table(refs, titles, extra, headers))
    assert [(a["title"], a["url"]) for a in articles] == [
        (title, f"https://site.example/doc/{i}") for i, title in enumerate(titles)
    ]


def test_a_table_whose_longest_cells_are_no_titles_gets_no_titles_from_them():
    # The longest cell is a number (an amount), and the rows' cells tie in length: no row is titled by a cell.
    rows = "".join(
        f'<tr><td><a href="/doc/{i}">#{100 + i}</a></td><td>1 234 567,8{i}</td><td>ab</td></tr>'
        for i in range(4)
    )
    html = f"<html><body><h1>Payments</h1><table>{rows}</table></body></html>"
    assert extract(html) == []


def _inline_cards(titles: list[str], tag: str, meta: str) -> str:
    cards = "".join(
        f'<a class="post-card" href="/post/{i}"><img src="/i/{i}.jpg" alt=""><span class="post-card__tag">{tag}</span>'
        f'<strong>{title}</strong><span class="post-card__meta">{meta.format(n=i + 2)}</span></a>'
        for i, title in enumerate(titles)
    )
    return f'<html><body><nav><a href="/">Home</a><a href="/blog">Blog</a></nav><main><h1>Blog</h1><section class="grid">{cards}</section></main></body></html>'


@pytest.mark.parametrize(
    ("titles", "tag", "meta"),
    [
        (
            ["Introducing dark mode", "A faster search for everyone", "Our new pricing, explained"],
            "Product",
            "{n} min read · Nov 20",
        ),
        (
            ["Neue Funktionen im Editor", "Schneller suchen mit Filtern", "Unsere Preise erklärt"],
            "Produkt",
            "{n} Min. Lesezeit · 20. Nov.",
        ),
        (
            ["Nowy tryb ciemny", "Szybsze wyszukiwanie dla wszystkich", "Nowy cennik w skrócie"],
            "Produkt",
            "{n} min czytania · 20 lis",
        ),
    ],
)
def test_an_inline_card_link_is_titled_by_its_bold_part(titles, tag, meta):
    """A card drawn with inline elements only (a tag, the title in bold, a reading time and date): the
    bold part is the title. A link with words of its own around a bold one stays whole."""
    articles = extract(_inline_cards(titles, tag, meta))
    assert [a["title"] for a in articles] == titles
    whole = "".join(
        f'<li><a href="/p/{i}">Buy the <b>best</b> running shoes {i}</a> <span>in stock</span></li>'
        for i in range(4)
    )
    assert [a["title"] for a in extract(f"<html><body><ul>{whole}</ul></body></html>")] == [
        f"Buy the best running shoes {i}" for i in range(4)
    ]


def test_a_table_whose_links_read_as_titles_keeps_them_beside_a_longer_cell():
    # A catalogue: each title link followed by "/ author" (so it is no title link on its own line), a
    # status cell longer than some titles. The link's words are the title, never the status.
    titles = [
        "The Left Hand of Darkness",
        "A Wizard of Earthsea and Other Stories",
        "The Dispossessed",
        "The Word for World Is Forest",
        "Tehanu",
        "Lavinia",
    ]
    rows = "".join(
        f'<tr><td>{i + 1}.</td><td><a href="/record/{i}">{t}</a> / Ursula K. Le Guin</td><td>1974</td>'
        f"<td>Available ({i + 1} copies)</td></tr>"
        for i, t in enumerate(titles)
    )
    html = f"<html><body><h1>Catalogue</h1><table><tr><th>#</th><th>Title</th><th>Year</th><th>Status</th></tr>{rows}</table></body></html>"
    assert [a["title"] for a in extract(html)] == titles


@pytest.mark.parametrize(
    "names",
    [
        ["Harbour View Hotel", "The Old Mill Inn", "City Centre Apartments", "Riverside Guest House"],
        ["Hotel Am Stadtpark", "Pension Seeblick", "Gasthof Zur Linde", "Landhaus Sonnenhof"],
        ["Hotel Pod Wawelem", "Pensjonat Górski", "Apartamenty Stare Miasto", "Dom Gościnny Lipa"],
    ],
)
def test_stars_inside_a_names_link_are_no_part_of_the_name(names):
    cards = "".join(
        f'<div class="card"><h3><a href="/hotel/{i}">{name} <span class="stars" aria-label="{3 + i % 2} stars">'
        f'{"★" * (3 + i % 2)}</span></a></h3><div class="price">{80 + i} per night</div></div>'
        for i, name in enumerate(names)
    )
    assert [a["title"] for a in extract(f"<html><body><main>{cards}</main></body></html>")] == names
