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
