"""A listing its script completes a moment after `load` (tests/site_late.py), read whole: on the
browser engine, after ``auto`` went back to the browser, and through the real command. Read before
the fill, these pages answer 4 items of 24 with no warning: the worst kind of answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from curllm_core.events import EventBus
from curllm_core.executor import RunOptions
from curllm_core.policy import NetworkPolicy
from curllm_core.runner import Runner, TaskSpec
from tests.site_late import items
from tests.warm_cache import fresh_cache

pytestmark = pytest.mark.browser

ONLY_HERE = NetworkPolicy(allow=("127.0.0.1",))


@pytest.fixture(scope="module")
def runner(curllm_browser):
    """A Runner over the session's browser (`curllm_browser`: one Chromium for every module)."""
    return Runner(browser=curllm_browser)


async def run(runner: Runner, instruction: str, url: str, engine: str) -> tuple[dict, list[dict]]:
    events: list[dict] = []
    spec = TaskSpec(instruction=instruction, url=url, options=RunOptions(engine=engine, policy=ONLY_HERE))
    result = await runner.run(spec, events=EventBus([events.append]))
    return result.to_dict(), [e for e in events if e["type"] == "engine"]


def names(result: dict) -> list[str]:
    return sorted(p["name"] for p in result["data"]["products"])


@pytest.mark.parametrize(
    ("how", "markup", "lang", "instruction"),
    [
        ("load-timeout", "cards", "en", "list all products"),
        ("frames", "table", "pl", "wszystkie produkty"),
        ("promise", "list", "de", "alle Produkte"),
    ],
)
async def test_the_browser_engine_reads_the_whole_listing(runner, site_url, how, markup, lang, instruction):
    url = f"{site_url}/late/{how}?markup={markup}&lang={lang}&ms=150"
    result, _ = await run(runner, instruction, url, "browser")
    assert result["ok"], result["errors"]
    assert names(result) == sorted(str(i["name"]) for i in items(lang))


@pytest.mark.parametrize(
    ("how", "markup", "lang"),
    [("chain", "list", "pl"), ("body-timeout", "cards", "de"), ("onload-attr", "table", "en")],
)
async def test_auto_back_in_the_browser_reads_the_whole_listing(runner, site_url, how, markup, lang):
    # The spinner its stylesheet hides is a sign of a client-rendered shell in the HTML: `auto` goes to
    # the browser, where nothing is shown as loading while the rest of the listing is due.
    url = f"{site_url}/late/{how}?markup={markup}&lang={lang}&ms=150&spinner=1"
    result, engines = await run(runner, "list all products", url, "auto")
    assert [e["data"]["engine"] for e in engines] == ["http", "browser"]
    assert result["ok"], result["errors"]
    assert names(result) == sorted(str(i["name"]) for i in items(lang))


def test_the_command_reads_the_whole_listing(site_url, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update({"CURLLM_LOAD_PLUGINS": "", "CURLLM_CACHE_DIR": str(fresh_cache(tmp_path / "cache"))})
    url = f"{site_url}/late/load-timeout?markup=list&lang=pl&ms=100"
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", "wszystkie produkty", "--url", url, "--engine", "browser"]
        + ["--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    got = json.loads(out.stdout)["data"]["products"]
    assert sorted(p["name"] for p in got) == sorted(str(i["name"]) for i in items("pl"))
    assert {p["price"] for p in got} == {i["price"] for i in items("pl")}
