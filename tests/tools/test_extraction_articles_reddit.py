"""articles_reddit on real reddit pages: the old-style listing (TRUTH.json), a redesign post page, and
the current web-component markup (hand-written, attributes as reddit serves them)."""

from __future__ import annotations

import pytest

from curllm_core.errors import ToolError
from curllm_core.tools.extraction import articles_reddit
from tests.conftest import realpage
from tests.tools.test_extraction_helpers import (
    assert_valid_output,
    open_offline,
    page_text,
    selectors,
    truth,
)

OLD = "reddit_old_dataisbeautiful_top.html"


def extract(html: str, url: str = "https://old.reddit.com/r/dataisbeautiful/top/", **params) -> dict:
    out = articles_reddit.extract(html, url, selectors=selectors("articles_reddit"), **params)
    assert_valid_output("articles_reddit", out)
    return out


def assert_matches_truth(articles: list[dict]) -> None:
    expected = truth()[OLD]["items"]
    assert len(articles) == len(expected) == 25
    for i, (article, item) in enumerate(zip(articles, expected, strict=True)):
        for key, value in item.items():
            assert article[key] == value, (i, key, article[key], value)


def test_old_reddit_matches_truth():
    out = extract(page_text(OLD))
    assert out["layout"] == "old"
    assert_matches_truth(out["articles"])
    first = out["articles"][0]
    assert (first["comments"], first["author"], first["rank"], first["id"]) == (
        657,
        "jeweloree",
        1,
        "t3_1l4pb5",
    )
    assert first["permalink"].startswith("http://www.reddit.com/r/dataisbeautiful/comments/1l4pb5/")


def test_min_score_and_limit():
    expected = [i["title"] for i in truth()[OLD]["items"] if i["score"] >= 1000]
    assert [a["title"] for a in extract(page_text(OLD), min_score=1000)["articles"]] == expected
    assert len(extract(page_text(OLD), min_score=1000, limit=2)["articles"]) == 2
    with pytest.raises(ToolError):
        extract(page_text(OLD), min_score=1.5)


def test_redesign_post_page():
    out = extract(
        page_text("reddit_new_askreddit_post.html"), "https://www.reddit.com/r/AskReddit/comments/axtih6/"
    )
    assert out["layout"] == "redesign"
    [post] = out["articles"]
    assert post["title"] == 'What is the most "worth it" item you have ever purchased?'
    assert (post["score"], post["comments"], post["id"]) == (52100, 25400, "t3_axtih6")
    assert (
        post["url"]
        == "https://www.reddit.com/r/AskReddit/comments/axtih6/what_is_the_most_worth_it_item_you_have_ever/"
    )


SHREDDIT = """<html><body><main>
<shreddit-post id="t3_1abc" post-title="Population density of Europe [OC]" permalink="/r/dataisbeautiful/comments/1abc/population/"
  content-href="https://i.redd.it/xyz.png" score="15300" comment-count="812" author="mapper" subreddit-prefixed-name="r/dataisbeautiful"
  created-timestamp="2024-05-01T10:00:00.000000+0000"><a slot="title" href="/r/dataisbeautiful/comments/1abc/population/">Population density of Europe [OC]</a></shreddit-post>
<shreddit-post id="t3_1abd" post-title="A self post" permalink="/r/dataisbeautiful/comments/1abd/a_self_post/"
  content-href="/r/dataisbeautiful/comments/1abd/a_self_post/" score="41" comment-count="3" author="someone"></shreddit-post>
<shreddit-post id="t3_ad" post-title="Buy our product" permalink="/r/x/comments/ad/" content-href="https://ads.example/" score="1" comment-count="0" promoted=""></shreddit-post>
</main></body></html>"""


def test_current_reddit_web_components():
    out = extract(SHREDDIT, "https://www.reddit.com/r/dataisbeautiful/")
    assert out["layout"] == "shreddit"
    assert [(a["title"], a["url"], a["score"], a["comments"]) for a in out["articles"]] == [
        ("Population density of Europe [OC]", "https://i.redd.it/xyz.png", 15300, 812),
        ("A self post", "https://www.reddit.com/r/dataisbeautiful/comments/1abd/a_self_post/", 41, 3),
    ]  # the promoted post is left out
    assert out["articles"][0]["subreddit"] == "r/dataisbeautiful"
    with_ads = extract(SHREDDIT, "https://www.reddit.com/r/dataisbeautiful/", include_promoted=True)[
        "articles"
    ]
    assert [a["promoted"] for a in with_ads] == [False, False, True]


@pytest.mark.browser
async def test_run_in_a_real_browser(page, on_page):
    await open_offline(page, realpage(OLD))
    out = await on_page("extraction.articles_reddit")
    assert_valid_output("articles_reddit", out)
    assert_matches_truth(out["articles"])
