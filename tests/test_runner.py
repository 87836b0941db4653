"""One runner behind every entry point: the start URL, re-planning, warm-up, page summary and plugin
reports behave alike through the Python API, `curllm run` and `curllm batch`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from curllm_core.errors import UsageError
from curllm_core.runner import Runner, TaskSpec, check_start_url
from tests.warm_cache import fresh_cache

from .planner.fake_llm import FakeLLM

CENEO = "produkty od 100 do 200 zł na Ceneo"
MODEL = "openai/x"
KEY = "sk-CURLLMRUNNERKEY"


@pytest.fixture
def clean_env(tmp_path, monkeypatch):
    """No default URL, no config file, no model, a private cache (the built-in manifests checked in
    it already: tests/warm_cache.py)."""
    for name in ("CURLLM_DEFAULT_URL", "CURLLM_CONFIG", "CURLLM_MODEL", "CURLLM_TOOLS_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(fresh_cache(tmp_path / "cache")))
    monkeypatch.setenv("CURLLM_LOAD_PLUGINS", "")
    return tmp_path


@pytest.fixture
def registry(clean_env):
    from curllm_core.plugins import load_registry

    return load_registry()


def cli(*args: str, env: dict, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out


def fresh_env(tmp_path: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CURLLM_", "OPENAI_"))}
    env.update(
        {
            "CURLLM_LOAD_PLUGINS": "",
            "CURLLM_CACHE_DIR": str(fresh_cache(tmp_path / "cache")),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            **extra,
        }
    )
    return env


# --- the start URL ---------------------------------------------------------------------------------


def test_start_url_explicit_then_named_site_then_default(registry, clean_env, monkeypatch):
    runner = Runner(registry)
    spec = TaskSpec(instruction=CENEO)
    assert runner.start_url(TaskSpec(instruction=CENEO, url="shop.example/x")) == "https://shop.example/x"
    assert runner.start_url(spec) == "https://www.ceneo.pl/"
    plain = TaskSpec(instruction="find products under 150zł")
    assert runner.start_url(plain) is None
    config = clean_env / "config.toml"
    config.write_text('default_url = "https://from-config.example/"\n')
    monkeypatch.setenv("CURLLM_CONFIG", str(config))
    assert runner.start_url(plain) == "https://from-config.example/"
    monkeypatch.setenv("CURLLM_DEFAULT_URL", "from-env.example")
    assert runner.start_url(plain) == "https://from-env.example"
    assert runner.start_url(spec) == "https://www.ceneo.pl/"  # a named site beats the default
    plan = {"plan": [{"tool": "extraction.products_generic"}], "url": "https://plan.example/"}
    assert runner.start_url(TaskSpec(plan=plan)) == "https://plan.example/"  # a plan's own URL


@pytest.mark.parametrize("bad", ["not a url", "ftp://files.example/x", "http://x.example:99999/"])
def test_a_bad_start_url_is_bad_input(bad):
    with pytest.raises(UsageError) as e:
        check_start_url(bad)
    assert e.value.code == "BAD_URL" and e.value.exit_code == 2


@pytest.mark.browser
async def test_the_api_resolves_a_named_site_like_the_cli(registry, browser_path):
    """Named in the instruction, not given: the API starts there (refused by the policy, so no network)."""
    from curllm_core.api import arun
    from curllm_core.policy import NetworkPolicy

    events: list[dict] = []
    result = await arun(
        CENEO, registry=registry, policy=NetworkPolicy(block=("ceneo.pl",)), on_event=events.append
    )
    assert result.url == "https://www.ceneo.pl/"
    assert events[0]["type"] == "init" and events[0]["data"]["url"] == "https://www.ceneo.pl/"
    assert not result.ok and result.errors[0]["code"] == "BLOCKED_URL", result.errors


@pytest.mark.browser
def test_the_cli_and_batch_resolve_the_same_named_site(tmp_path, browser_path):
    env = fresh_env(tmp_path)
    out = cli(CENEO, "--block-domain", "ceneo.pl", "--format", "json", env=env)
    assert out.returncode == 1, out.stderr
    doc = json.loads(out.stdout)
    assert doc["url"] == "https://www.ceneo.pl/" and doc["errors"][0]["code"] == "BLOCKED_URL"
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "c", "instruction": CENEO}) + "\n")
    out = cli("batch", str(tasks), "--block-domain", "ceneo.pl", env=env)
    assert out.returncode == 1, out.stderr
    line = json.loads(out.stdout)
    assert line["url"] == "https://www.ceneo.pl/" and line["errors"][0]["code"] == "BLOCKED_URL"


@pytest.mark.browser
async def test_the_api_uses_the_default_url_of_env_and_config(registry, clean_env, monkeypatch, site_url):
    from curllm_core.api import arun

    shop = f"{site_url}/test/en-shop.html"
    monkeypatch.setenv("CURLLM_DEFAULT_URL", shop)
    result = await arun("find products", registry=registry)
    assert result.url == shop and result.ok, result.errors
    monkeypatch.delenv("CURLLM_DEFAULT_URL")
    config = clean_env / "config.toml"
    config.write_text(f'default_url = "{shop}"\n')
    monkeypatch.setenv("CURLLM_CONFIG", str(config))
    result = await arun("find products", registry=registry)
    assert result.url == shop and result.ok, result.errors


async def test_without_any_url_the_api_says_so_without_cli_words(registry, browser_path):
    from curllm_core.api import arun

    result = await arun("find products under 150zł", registry=registry)
    assert not result.ok and result.errors[0]["code"] == "NO_URL"
    message = result.errors[0]["message"]
    assert "no URL was given" in message and "--url" not in message


# --- batch: re-planning, plugin reports, warm-up, page summary ---------------------------------------

STRICT = {
    "plan": [{"tool": "validation.price_range_check", "parameters": {"max": 100, "mode": "fail"}}],
    "expected_output": "products",
}
LENIENT = {
    "plan": [{"tool": "validation.price_range_check", "parameters": {"max": 100, "mode": "filter"}}],
    "expected_output": "products",
}
PRODUCTS = [{"name": "Mug", "price": 39.0}, {"name": "Lamp", "price": 140.0}]


@pytest.fixture
def fake_llm():
    server = FakeLLM().start()
    yield server
    server.stop()


@pytest.mark.parametrize("replans", [1, 0])
def test_batch_max_replans_re_plans(tmp_path, fake_llm, replans):
    """A data-only task (no URL needed) whose first plan fails: the model revises it, as in `run`.
    With re-planning in a real `curllm batch` process; without it through the same console entry
    point in this process (`tests.in_process.cli_main`): a process that asks a model imports litellm
    (~8 s of CPU), which this process does anyway for the model tests below."""
    from tests.in_process import cli_main

    tasks = tmp_path / "tasks.jsonl"
    task = {
        "id": "r",
        "instruction": "every product must cost at most 100 zł",
        "data": {"products": PRODUCTS},
    }
    tasks.write_text(json.dumps(task) + "\n")
    fake_llm.script(STRICT, LENIENT)
    args = ("batch", str(tasks), "--model", MODEL, "--no-cache", "--max-replans", str(replans))
    if replans:
        out = cli(*args, env=fresh_env(tmp_path, OPENAI_API_KEY=KEY, CURLLM_API_BASE=fake_llm.base_url))
    else:
        out = cli_main(
            args,
            env={
                "OPENAI_API_KEY": KEY,
                "CURLLM_API_BASE": fake_llm.base_url,
                "CURLLM_CACHE_DIR": str(fresh_cache(tmp_path / "cache")),
                "XDG_CONFIG_HOME": str(tmp_path / "config"),
            },
        )
        assert "Traceback" not in out.stderr, out.stderr
    line = json.loads(out.stdout)
    if replans:
        assert out.returncode == 0 and line["ok"], (line, out.stderr)
        assert [p["name"] for p in line["data"]["products"]] == ["Mug"]
        assert fake_llm.calls == 2 and line["usage"]["calls"] == 2
        assert line["errors"][0]["recovered"] is True
    else:
        assert out.returncode == 1 and not line["ok"]
        assert fake_llm.calls == 1
    assert KEY not in out.stdout + out.stderr


def test_batch_reports_a_broken_plugin_like_run(tmp_path):
    site = tmp_path / "site"
    dist = site / "broken_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "entry_points.txt").write_text("[curllm]\nbroken = curllm_no_such_plugin_module\n")
    tasks = tmp_path / "tasks.jsonl"
    plan = [{"tool": "validation.required_fields", "parameters": {"fields": ["name"]}}]
    tasks.write_text(json.dumps({"id": "p", "plan": plan, "data": {"products": PRODUCTS}}) + "\n")
    env = fresh_env(tmp_path, PYTHONPATH=str(site), CURLLM_LOAD_PLUGINS="broken")
    out = cli("batch", str(tasks), env=env)
    assert out.returncode == 0, out.stderr
    assert "curllm: warning: plugin broken:" in out.stderr and "curllm_no_such_plugin_module" in out.stderr


@pytest.mark.browser
async def test_batch_warms_the_browser_up_while_planning(registry, monkeypatch, site_url, browser_path):
    """The shared browser starts while the rules plan, not after (on the browser engine: under auto
    this plan reads HTML and starts no browser, see the test after the next)."""
    import asyncio

    import curllm_core.planner
    from curllm_core.batch import Batch

    real = curllm_core.planner.plan_task
    seen: list[bool] = []

    async def slow_plan_task(*args, **kwargs):
        # A planning that lasts until the browser is up (or 30 s, however loaded the machine): the
        # launch must go on meanwhile, not wait for the plan.
        for _ in range(600):
            if batch.browser.started:
                break
            await asyncio.sleep(0.05)
        seen.append(batch.browser.started)
        return await real(*args, **kwargs)

    monkeypatch.setattr(curllm_core.planner, "plan_task", slow_plan_task)
    batch = Batch(
        [
            {
                "id": "w",
                "instruction": "find products",
                "url": f"{site_url}/test/en-shop.html",
                "engine": "browser",
            }
        ],
        registry=registry,
        use_cache=False,
    )
    lines = [line async for line in batch.results()]
    assert seen == [True]
    assert lines[0]["ok"], lines[0]["errors"]


@pytest.mark.browser
async def test_batch_shows_the_model_the_page(
    registry, clean_env, monkeypatch, fake_llm, site_url, browser_path
):
    from curllm_core.batch import run_many

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("CURLLM_API_BASE", fake_llm.base_url)
    plan = {
        "plan": [{"tool": "extraction.products_generic", "parameters": {}}],
        "expected_output": "products",
    }
    fake_llm.script(plan)
    url = f"{site_url}/test/en-shop.html"
    events: list[dict] = []
    tasks = [{"id": "s", "instruction": "find products under 20 dollars", "url": url}]
    lines = [
        line
        async for line in run_many(
            tasks, registry=registry, model=MODEL, use_cache=False, on_event=events.append
        )
    ]
    assert fake_llm.calls == 1
    prompt = fake_llm.requests[0]["messages"][-1]["content"]
    assert "Page summary:" in prompt and "Title: Demo Store" in prompt
    assert [e["type"] for e in events].count("url_start") == 1  # the summarised page is the one used
    assert lines[0]["ok"], lines[0]["errors"]


# --- a given plan: checked while the browser starts ------------------------------------------------


def _probe_tool(folder: Path, name: str) -> None:
    """A local page tool whose module is new to this process (so its import can be seen)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(
        "async def run(ctx):\n    return {'page': {'title': await ctx.page.title()}}\n", encoding="utf-8"
    )
    manifest = {
        "name": name,
        "version": "1.0.0",
        "description": "Test tool: the title of the loaded page.",
        "category": "extraction",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        "output_schema": {"type": "object", "required": ["page"]},
        "entrypoint": f"{name}:run",
        "dependencies": ["playwright", "page"],
        "produces": ["page"],
    }
    (folder / f"{name}.json").write_text(json.dumps(manifest), encoding="utf-8")


@pytest.mark.browser
async def test_a_given_plan_loads_its_tools_while_the_browser_starts(
    tmp_path, clean_env, monkeypatch, site_url, browser_path
):
    """A plan document is checked, and its tools' code imported, while Chromium boots: preparing
    has started the browser and imported the step's module before any step ran."""
    from curllm_core.plugins import load_registry

    name = f"probe_{os.getpid()}_{tmp_path.name}".replace("-", "_")
    _probe_tool(tmp_path / "tools", name)
    monkeypatch.setenv("CURLLM_TOOLS_PATH", str(tmp_path / "tools"))
    runner = Runner(load_registry())
    doc = {"plan": [{"tool": f"extraction.{name}"}], "expected_output": "page"}
    prepared = await runner.prepare(TaskSpec(plan=doc, url=f"{site_url}/test/en-shop.html"))
    assert prepared.page.warming is not None  # the launch began before the check
    assert any(m.startswith(f"curllm_local_tools.{name}_") for m in sys.modules)  # imported before its step
    result = await runner.execute(prepared)
    assert result.ok, result.errors
    assert result.data["page"]["title"]


@pytest.mark.browser
async def test_auto_starts_the_browser_only_for_a_plan_that_needs_it(registry, site_url, browser_path):
    """Under auto (the default) a plan that reads HTML starts no browser at all; a plan with a step
    that needs a live page starts it as soon as the plan is known, before its steps run."""
    runner = Runner(registry)
    try:
        url = f"{site_url}/test/en-shop.html"
        on_html = await runner.prepare(TaskSpec(instruction="find products", url=url, use_cache=False))
        assert on_html.page.warming is None
        result = await runner.execute(on_html)
        assert result.ok and result.data["products"], result.errors
        assert on_html.page.browser is None  # never made, never launched
        url = f"{site_url}/inspiracje"  # the shop's feed: 8 products, 24 once scrolled to its end
        spec = TaskSpec(instruction="scroll to the end and list all products", url=url, use_cache=False)
        live = await runner.prepare(spec)
        assert live.page.warming is not None  # launched with the plan, not by its first step
        result = await runner.execute(live)
        assert result.ok and len(result.data["products"]) == 24, result.errors
    finally:
        await runner.aclose()


async def test_a_given_plan_without_page_steps_starts_no_browser(registry):
    """A plan whose steps need no page starts no browser, even with a URL."""
    doc = {
        "plan": [{"tool": "validation.price_range_check", "parameters": {"max": 10}}],
        "expected_output": "products",
    }
    spec = TaskSpec(plan=doc, url="https://shop.example/", data={"products": [{"name": "a", "price": 5}]})
    runner = Runner(registry)
    prepared = await runner.prepare(spec)
    assert prepared.page.warming is None and prepared.page.browser is None
    result = await runner.execute(prepared)
    assert result.ok and result.data["products"] == [{"name": "a", "price": 5}], result


async def test_a_bad_given_plan_is_refused_before_a_browser_starts(registry):
    """A plan the checker refuses raises PlanError; a malformed one starts nothing first."""
    from curllm_core.errors import PlanError

    runner = Runner(registry)
    with pytest.raises(PlanError):
        await runner.prepare(TaskSpec(plan={"plan": "not steps"}, url="https://shop.example/"))
