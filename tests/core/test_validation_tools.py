"""The validation tools on data alone (no browser), through the executor."""

from __future__ import annotations

import pytest

from curllm_core.executor import RunOptions, execute
from curllm_core.manifest import manifests_dir
from curllm_core.plan import check_plan
from curllm_core.registry import Registry
from curllm_core.tools.validation.url_format_check import checked_url


@pytest.fixture(scope="module")
def registry() -> Registry:
    r = Registry()
    r.register(manifests_dir() / "validation")
    return r


@pytest.mark.parametrize(
    "value, base, expected",
    [
        ("https://shop.example/p/1", None, "https://shop.example/p/1"),
        ("/p/2", "https://shop.example/list?page=2", "https://shop.example/p/2"),
        ("p/3", "https://shop.example/list/", "https://shop.example/list/p/3"),
        ("//cdn.example/x", "https://shop.example/", "https://cdn.example/x"),
        ("http://localhost:8000/a", None, "http://localhost:8000/a"),
    ],
)
def test_good_urls(value, base, expected):
    assert checked_url(value, base) == (expected, None)


@pytest.mark.parametrize(
    "value, base, why",
    [
        ("javascript:void(0)", "https://x.example/", "not an http(s) URL"),
        ("mailto:a@b.example", None, "not an http(s) URL"),
        ("", None, "no URL"),
        (None, None, "no URL"),
        ("https://exa mple.com/", None, "white space"),
        ("/relative", None, "no page URL"),
        ("http:///nohost", None, "no valid host"),
    ],
)
def test_bad_urls(value, base, why):
    url, reason = checked_url(value, base)
    assert url is None and why in reason


async def test_url_format_check_resolves_and_filters(registry):
    data = {
        "links": [
            {"text": "a", "url": "/a"},
            {"text": "b", "url": "javascript:go()"},
            {"text": "c", "url": "https://other.example/c"},
        ]
    }
    plan = check_plan(
        {"plan": [{"tool": "url_format_check", "parameters": {"key": "links"}}], "expected_output": "links"},
        registry,
        initial_keys={"links"},
    )
    result = await execute(plan, registry, RunOptions(data=data, url="https://shop.example/list"))
    assert result.ok
    assert [x["url"] for x in result.data["links"]] == ["https://shop.example/a", "https://other.example/c"]
    assert result.steps[0].result["validation"]["rejected"][0]["index"] == 1


async def test_url_format_check_fail_mode(registry):
    plan = check_plan(
        {"plan": [{"tool": "url_format_check", "parameters": {"mode": "fail"}}]},
        registry,
        initial_keys={"products"},
    )
    result = await execute(plan, registry, RunOptions(data={"products": [{"url": "mailto:x@y.example"}]}))
    assert not result.ok and "1 of 1 items have invalid URLs" in result.steps[0].error


async def test_price_range_check_keeps_unpriced_only_when_asked(registry):
    data = {"products": [{"name": "a", "price": None}, {"name": "b", "price": 5}]}
    for keep, names in ((False, ["b"]), (True, ["a", "b"])):
        plan = check_plan(
            {"plan": [{"tool": "price_range_check", "parameters": {"min": 1, "keep_unpriced": keep}}]},
            registry,
            initial_keys={"products"},
        )
        result = await execute(plan, registry, RunOptions(data=data))
        assert [p["name"] for p in result.data["products"]] == names
