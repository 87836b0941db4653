"""articles_hn on the real Hacker News front page (TRUTH.json) and on a story page."""

from __future__ import annotations

from urllib.parse import urljoin

import pytest

from curllm_core.errors import ToolError
from curllm_core.tools.extraction import articles_hn
from tests.conftest import realpage
from tests.tools.test_extraction_helpers import (
    assert_valid_output,
    open_offline,
    page_text,
    selectors,
    truth,
)

FRONT = "hn_front_2026.html"
HN = "https://news.ycombinator.com/"


def extract(name: str = FRONT, url: str = HN + "news", **params) -> dict:
    out = articles_hn.extract(page_text(name), url, selectors=selectors("articles_hn"), **params)
    assert_valid_output("articles_hn", out)
    return out


def assert_matches_truth(articles: list[dict]) -> None:
    expected = truth()[FRONT]["items"]
    assert len(articles) == len(expected) == 30
    for i, (article, item) in enumerate(zip(articles, expected, strict=True)):
        for key, value in item.items():
            if key == "url":
                value = urljoin(
                    HN, value
                )  # the truth keeps Ask/Tell HN links relative; the tool makes them absolute
            assert article[key] == value, (i, key, article[key], value)


def test_front_page_matches_truth():
    articles = extract()["articles"]
    assert_matches_truth(articles)
    assert [a["rank"] for a in articles] == list(range(1, 31))


def test_saved_page_resolves_against_the_site():
    # A snapshot read from disk has no web address; relative links go to news.ycombinator.com.
    articles = extract(url="file:///snapshots/hn.html")["articles"]
    assert articles[7]["url"] == "https://news.ycombinator.com/item?id=47906253"
    assert articles[0]["discussion_url"] == "https://news.ycombinator.com/item?id=47907879"


def test_details():
    first, job = extract()["articles"][0], extract()["articles"][10]
    assert (first["comments"], first["author"], first["site"], first["age"]) == (
        145,
        "milkglass",
        "techtrenches.dev",
        "2026-04-26T06:24:42",
    )
    assert (job["points"], job["comments"], job["author"]) == (None, None, None)  # a job ad


def test_min_points_and_limit():
    expected = [i for i in truth()[FRONT]["items"] if i["points"] is not None and i["points"] > 100]
    more_than_100 = extract(min_points=101)["articles"]
    assert [a["id"] for a in more_than_100] == [i["id"] for i in expected]
    assert all(a["points"] > 100 for a in more_than_100)
    top3 = extract(min_points=101, limit=3)["articles"]
    assert [a["id"] for a in top3] == [i["id"] for i in expected[:3]]
    with pytest.raises(ToolError):
        extract(min_points="a lot")


def test_story_page_gives_the_story_not_the_comments():
    articles = extract("hn_item_36817231.html", HN + "item?id=36817231")["articles"]
    assert [(a["title"], a["points"], a["comments"], a["id"]) for a in articles] == [
        ("Ask HN: What are the best papers you read in your life?", 225, 100, "36817231")
    ]


@pytest.mark.browser
async def test_run_in_a_real_browser(page, on_page):
    await open_offline(page, realpage(FRONT))
    out = await on_page("extraction.articles_hn")
    assert_valid_output("articles_hn", out)
    assert_matches_truth(out["articles"])
