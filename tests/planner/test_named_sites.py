"""The sites an instruction names (planner/named_sites.py), as the start URL resolves them (`Runner.start_url`:
the explicit URL, else a site the instruction names, else the default; none of these is bad input)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from curllm_core.runner import Runner, TaskSpec
from tests.warm_cache import fresh_cache


def start_url(instruction, url, registry):
    """Where the task starts, as every entry point resolves it (the CLI, the API, batch, the server)."""
    return Runner(registry).start_url(TaskSpec(instruction=instruction, url=url))


def curllm(*args: str):
    """The real CLI in a subprocess, with the environment of the test (plugins off, the test's config)."""
    env = {k: v for k, v in os.environ.items() if k != "CURLLM_DEFAULT_URL"}
    return subprocess.run(
        [sys.executable, "-m", "curllm_core", *args], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.parametrize(
    ("instruction", "url"),
    [
        ("find products on Ceneo", "https://www.ceneo.pl/"),
        ("produkty na ceneo poniżej 100 zł", "https://www.ceneo.pl/"),
        ("find cat food on amazon.de", "https://www.amazon.de/"),
        ("Katzenfutter auf Amazon", "https://www.amazon.de/"),
        ("produkty na amazon", "https://www.amazon.pl/"),
        ("cheap stuff on amazon", "https://www.amazon.com/"),
        ("top 5 stories on HN", "https://news.ycombinator.com/"),
        ("top posts of r/python", "https://www.reddit.com/"),
    ],
)
def test_start_url_from_a_named_site(registry, instruction, url):
    if not registry.sites():
        pytest.skip("no site-specific tools installed yet")
    assert start_url(instruction, None, registry) == url


def test_start_url_prefers_the_given_url(registry):
    assert start_url("products on ceneo", "https://shop.example/x", registry) == "https://shop.example/x"


def test_start_url_default(registry, monkeypatch, tmp_path):
    monkeypatch.setenv("CURLLM_DEFAULT_URL", "https://default.example/")
    assert start_url("find products", None, registry) == "https://default.example/"
    monkeypatch.delenv("CURLLM_DEFAULT_URL")
    config = tmp_path / "config.toml"
    config.write_text('default_url = "https://config.example/"\n', encoding="utf-8")
    monkeypatch.setenv("CURLLM_CONFIG", str(config))
    assert start_url("find products", None, registry) == "https://config.example/"


def test_start_url_without_anything_is_a_usage_error(registry, monkeypatch, tmp_path):
    monkeypatch.delenv("CURLLM_DEFAULT_URL", raising=False)
    monkeypatch.setenv("CURLLM_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "none.toml").write_text("", encoding="utf-8")
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(fresh_cache(tmp_path / "cache")))
    assert start_url("find products", None, registry) is None
    out = curllm("find products")  # the CLI refuses: UsageError, exit 2
    assert "--url" in out.stderr
    if registry.sites():
        assert "ceneo.pl" in out.stderr
    assert out.returncode == 2
