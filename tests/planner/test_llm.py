"""The LLM planner offline: litellm's real HTTP path against a fake OpenAI-compatible server on 127.0.0.1.

Good plans, repaired plans, garbage, refused connections, slow servers, the plan cache, re-planning,
and that the API key never shows up in output, events, warnings or cache files.
"""

from __future__ import annotations

import json
import socket
import time

import pytest

from curllm_core.planner import plan_task
from curllm_core.planner.cache import normalize_instruction, plan_key, url_shape
from curllm_core.planner.llm import (
    SUMMARY_CHARS,
    build_messages,
    format_page_summary,
    parse_reply,
    plan_with_llm,
    redact,
)
from curllm_core.planner.rules import plan_with_rules
from tests.warm_cache import fresh_cache

from .fake_llm import FakeLLM, Reply

KEY = "sk-CURLLMTESTKEY123"
MODEL = "openai/x"
SHOP = "https://shop.example/"
GOOD = {
    "plan": [
        {"tool": "extraction.products_generic", "parameters": {"limit": 5}, "description": "the products"}
    ],
    "expected_output": "products",
}


@pytest.fixture(scope="module")
def fake():
    server = FakeLLM().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("CURLLM_LOAD_PLUGINS", "")
    mp.delenv("CURLLM_TOOLS_PATH", raising=False)
    mp.setenv("CURLLM_CACHE_DIR", str(fresh_cache(tmp_path_factory.mktemp("manifests"))))
    from curllm_core.plugins import load_registry

    yield load_registry()
    mp.undo()


@pytest.fixture
def env(fake, monkeypatch, tmp_path):
    """A fake key, the fake server as the API base, a private plan cache."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("CURLLM_API_BASE", fake.base_url)
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(fresh_cache(tmp_path / "cache")))
    monkeypatch.delenv("CURLLM_LLM_TIMEOUT", raising=False)
    monkeypatch.delenv("CURLLM_API_KEY", raising=False)
    return tmp_path / "cache"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- talking to the model --------------------------------------------------------------------------


async def test_good_plan(env, fake, registry):
    fake.script(GOOD)
    planned = await plan_task("find 5 products under 100 zł", SHOP, registry, model=MODEL, use_cache=False)
    assert fake.calls == 1
    assert planned.source == f"llm:{MODEL}" and planned.plan.planner == f"llm:{MODEL}"
    # The model's step, then the rule planner's guards it left out (the price range must hold anyway,
    # and the count applies after it).
    assert [s.tool for s in planned.plan.steps] == [
        "extraction.products_generic",
        "validation.price_range_check",
        "validation.order_items",
    ]
    assert planned.plan.steps[0].parameters["limit"] == 5
    assert planned.reasoning[0] == "extraction.products_generic: the products"
    assert "added by the rule planner" in planned.reasoning[1]
    assert planned.usage == {"calls": 1, "prompt_tokens": 100, "completion_tokens": 20, "cost_usd": None}
    body = fake.requests[0]
    assert body["response_format"] == {"type": "json_object"}  # openai/x: no known schema support
    prompt = body["messages"][-1]["content"]
    assert "find 5 products under 100 zł" in prompt and "extraction.products_generic" in prompt
    assert "A draft by the rule planner" in prompt


async def test_schema_model_gets_a_json_schema_and_a_cost(env, fake, registry):
    fake.script(GOOD)
    planned = await plan_task("find 5 products", SHOP, registry, model="openai/gpt-4o-mini", use_cache=False)
    assert fake.requests[0]["response_format"]["type"] == "json_schema"
    assert planned.usage["cost_usd"] and planned.usage["cost_usd"] > 0


async def test_invalid_plan_is_repaired(env, fake, registry):
    bad = {"plan": [{"tool": "extraction.no_such_tool", "parameters": {}}], "expected_output": "products"}
    fake.script(bad, GOOD)
    planned = await plan_task("find 5 products", SHOP, registry, model=MODEL, use_cache=False)
    assert fake.calls == 2
    assert planned.source == f"llm:{MODEL}"
    repair = fake.requests[1]["messages"]
    assert repair[-2]["role"] == "assistant" and "no_such_tool" in repair[-2]["content"]
    assert "unknown tool" in repair[-1]["content"]
    assert planned.usage["calls"] == 2


def _warnings(caplog) -> list[str]:
    """The planner's warnings: log records (the CLI shows each as ``curllm: warning: ...``)."""
    return [r.getMessage() for r in caplog.records if r.name == "curllm.planner" and r.levelname == "WARNING"]


async def test_garbage_falls_back_to_rules(env, fake, registry, capsys, caplog):
    fake.script("Sure! Here is what I would do: first open the page, then...")
    planned = await plan_task("find products under 150zł", SHOP, registry, model=MODEL, use_cache=False)
    assert fake.calls == 3  # the first answer and two repairs
    assert planned.source.startswith("rules (llm failed: no valid plan after 2 repairs")
    assert (
        planned.plan.to_dict()["plan"]
        == plan_with_rules("find products under 150zł", SHOP, registry).plan.to_dict()["plan"]
    )
    [warning] = _warnings(caplog)
    assert warning.startswith(f"model {MODEL} failed (") and "using the rule planner" in warning
    assert capsys.readouterr().err == ""  # the library prints nothing: the CLI shows the warning


async def test_refused_connection_falls_back(env, registry, monkeypatch, caplog):
    import litellm

    monkeypatch.setenv("CURLLM_API_BASE", f"http://127.0.0.1:{_closed_port()}/v1")
    asked: list[dict] = []
    real = litellm.acompletion

    async def counted(**kwargs):
        asked.append(kwargs)
        return await real(**kwargs)

    monkeypatch.setattr(litellm, "acompletion", counted)
    started = time.perf_counter()
    planned = await plan_task("find products under 150zł", SHOP, registry, model=MODEL, use_cache=False)
    # No retries with backoff: one call, which retries nothing itself (what happened, not seconds:
    # the time bound is a hang's, as a loaded machine stretches even one attempt).
    assert [(a["num_retries"], a["max_retries"]) for a in asked] == [(0, 0)]
    assert time.perf_counter() - started < 30
    assert planned.source.startswith("rules (llm failed: ")
    assert "Connection" in planned.source or "connect" in planned.source.lower()
    [warning] = _warnings(caplog)
    assert warning.startswith(f"model {MODEL} failed (") and "Traceback" not in warning


async def test_slow_server_times_out(env, fake, registry, monkeypatch, caplog):
    monkeypatch.setenv("CURLLM_LLM_TIMEOUT", "1")
    fake.script(Reply(content=json.dumps(GOOD), delay=3))
    planned = await plan_task("find products", SHOP, registry, model=MODEL, use_cache=False)
    # Given up at the limit, not after the reply (it comes at 3 s: the model's plan would stand), and
    # not asked again: counted, not timed (its bound of 2.9 s of wall time was within a loaded
    # machine's reach).
    assert planned.source == "rules (llm failed: Timeout: no reply within 1 s)"
    assert fake.calls == 1
    assert "no reply within 1 s" in _warnings(caplog)[0]


async def test_server_error_and_rate_limit_fall_back(env, fake, registry, caplog):
    for status in (500, 429):
        fake.script(Reply(status=status))
        planned = await plan_task("find products", SHOP, registry, model=MODEL, use_cache=False)
        assert fake.calls == 1, status  # litellm's own retries are off
        assert planned.source.startswith("rules (llm failed: ")
    assert len(_warnings(caplog)) == 2 and not any("Traceback" in w for w in _warnings(caplog))


# --- the cache ---------------------------------------------------------------------------------------


async def test_cache_hit_makes_no_call(env, fake, registry):
    fake.script(GOOD)
    first = await plan_task("find 5 products", SHOP + "kategoria/12?page=2", registry, model=MODEL)
    assert fake.calls == 1 and first.source == f"llm:{MODEL}"
    fake.script(GOOD)
    # Same task shape: other digits in the path, other query values, other case and spacing.
    second = await plan_task("  Find 5 products. ", SHOP + "kategoria/99?page=7", registry, model=MODEL)
    assert fake.calls == 0
    assert second.source == "cache" and second.plan.to_dict()["plan"] == first.plan.to_dict()["plan"]
    assert second.usage == {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
    assert second.reasoning == first.reasoning
    # --refresh-plan: ask again and overwrite
    await plan_task("find 5 products", SHOP + "kategoria/12?page=2", registry, model=MODEL, refresh=True)
    assert fake.calls == 1
    files = list((env / "plans").glob("*.json"))
    assert len(files) == 1 and not list((env / "plans").glob(".plan-*"))


async def test_no_cache_neither_reads_nor_writes(env, fake, registry):
    fake.script(GOOD)
    await plan_task("find 5 products", SHOP, registry, model=MODEL, use_cache=False)
    assert not (env / "plans").exists()
    fake.script(GOOD)
    await plan_task("find 5 products", SHOP, registry, model=MODEL)
    await plan_task("find 5 products", SHOP, registry, model=MODEL, use_cache=False)
    assert fake.calls == 2  # the cached plan was not read


async def test_fallback_plans_are_not_cached(env, fake, registry):
    fake.script("garbage")
    planned = await plan_task("find 5 products", SHOP, registry, model=MODEL)
    assert planned.source.startswith("rules (llm failed")
    assert not list(env.glob("plans/*.json"))  # the next run asks the model again


def test_cache_key_shape():
    assert url_shape("https://www.shop.pl/p/123?q=x&a=1") == "shop.pl/p/#?a&q"
    assert url_shape("https://shop.pl/p/456/?a=2&q=y") == "shop.pl/p/#?a&q"
    assert url_shape("file:///tmp/page.html") == "file:/tmp/page.html"
    assert normalize_instruction("  Find   5 Products. ") == "find 5 products"
    key = plan_key("find", "https://a.example/x", MODEL, "fp")
    assert key == plan_key("Find.", "https://www.a.example/x", MODEL, "fp")
    assert key != plan_key("find", "https://a.example/x", "openai/y", "fp")
    assert key != plan_key("find", "https://a.example/x", MODEL, "other-tools")
    assert key != plan_key("find", "https://b.example/x", MODEL, "fp")


def test_a_changed_planner_module_makes_new_keys(tmp_path):
    """Rule plans cached before a change to the rules are not reused after it (a new release, or a
    planner module edited in a working copy)."""
    import os

    from curllm_core.planner.cache import planner_code

    (tmp_path / "facts").mkdir()
    module = tmp_path / "facts" / "prices.py"
    module.write_text("RULE = 1\n")
    before = planner_code(tmp_path)
    assert planner_code(tmp_path) == before and len(before) == 16
    module.write_text("RULE = 2\n")
    os.utime(module, ns=(1, 2))
    planner_code.cache_clear()  # once a process: the next process sees the change
    assert planner_code(tmp_path) != before
    assert planner_code() != planner_code(tmp_path)  # the installed planner's own


# --- secrets -------------------------------------------------------------------------------------


async def test_key_never_leaks(env, fake, registry, tmp_path, capsys, caplog):
    from curllm_core.api import arun
    from curllm_core.events import EventBus, JsonlSink

    events_file = tmp_path / "events.jsonl"
    with events_file.open("w", encoding="utf-8") as stream:
        bus = EventBus([JsonlSink(stream)])
        products = [{"name": "Mug", "price": 39.0}, {"name": "Lamp", "price": 140.0}]
        plan = {
            "plan": [{"tool": "validation.price_range_check", "parameters": {"max": 100}}],
            "expected_output": "products",
        }
        fake.script(plan)
        result = await arun(
            "keep products under 100 zł",
            data={"products": products},
            model=MODEL,
            registry=registry,
            events=bus,
        )
        assert result.ok and [p["name"] for p in result.data["products"]] == ["Mug"]
        assert result.usage["calls"] == 1
        # a provider that echoes the key in its error message
        fake.script(Reply(status=401, echo_key=True))
        result = await arun(
            "keep products under 100 zł",
            data={"products": products},
            model=MODEL,
            registry=registry,
            events=bus,
            use_cache=False,
        )
        assert result.ok  # the rule planner took over
    assert fake.tokens == [KEY]  # the key did reach the provider...
    out = capsys.readouterr()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    texts = [out.out, out.err, logged, events_file.read_text(encoding="utf-8"), json.dumps(result.to_dict())]
    texts += [p.read_text(encoding="utf-8") for p in env.rglob("*") if p.is_file()]
    assert "Incorrect API key provided: ***" in logged
    for text in texts:  # ...and nowhere else
        assert KEY not in text and "CURLLMTESTKEY" not in text


def test_cli_plan_only_with_a_model(env, fake, registry, capsys):
    from click.testing import CliRunner

    from curllm_core.cli import cli

    fake.script(GOOD)
    result = CliRunner().invoke(
        cli,
        ["run", "find 5 products", "--url", SHOP, "--plan-only", "--model", MODEL],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["planner"] == f"llm:{MODEL}" and doc["plan"][0]["tool"] == "extraction.products_generic"
    assert KEY not in result.output and KEY not in result.stderr
    fake.script(Reply(status=401, echo_key=True))
    result = CliRunner().invoke(
        cli,
        ["run", "find 5 products", "--url", SHOP, "--plan-only", "--model", MODEL, "--no-cache"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0
    assert json.loads(result.stdout)["planner"].startswith("rules (llm failed: AuthenticationError")
    assert "curllm: warning: model openai/x failed (" in result.stderr
    assert KEY not in result.stdout + result.stderr and "Traceback" not in result.stderr


def test_redact():
    assert redact(f"bad key {KEY}!") == "bad key sk-***!"


# --- re-planning with observations ------------------------------------------------------------------


async def test_replanning_after_a_failed_step(env, fake, registry):
    from curllm_core.api import arun
    from curllm_core.executor import RunOptions

    products = [{"name": "Mug", "price": 39.0}, {"name": "Lamp", "price": 140.0}]
    strict = {
        "plan": [{"tool": "validation.price_range_check", "parameters": {"max": 100, "mode": "fail"}}],
        "expected_output": "products",
    }
    lenient = {
        "plan": [
            {
                "tool": "validation.price_range_check",
                "parameters": {"max": 100, "mode": "filter"},
                "description": "drop what is too expensive instead",
            }
        ],
        "expected_output": "products",
    }
    events: list[dict] = []
    fake.script(strict, lenient)
    result = await arun(
        "every product must cost at most 100 zł",
        data={"products": products},
        model=MODEL,
        registry=registry,
        on_event=events.append,
        use_cache=False,
        options=RunOptions(settings={"max_replans": 1}),
    )
    assert fake.calls == 2
    assert result.ok, result.errors
    assert [p["name"] for p in result.data["products"]] == ["Mug"]
    assert [s.success for s in result.steps] == [False, True] and result.steps[1].step == 2
    assert result.errors[0]["recovered"] is True
    assert result.usage["calls"] == 2
    decisions = [e["data"] for e in events if e["type"] == "step" and e["data"]["action"] == "agent_decision"]
    assert len(decisions) == 2
    assert decisions[1]["extracted_data"]["replan"] == 1
    assert decisions[1]["extracted_data"]["tool_calls"][0]["params"]["mode"] == "filter"
    replan_prompt = fake.requests[1]["messages"][-1]["content"]
    assert "the last one failed" in replan_prompt and "price_range_check" in replan_prompt
    assert "ToolError" in replan_prompt  # the failed step's error was shown to the model

    # max_replans 0: no second call, the failure stands
    fake.script(strict, lenient)
    result = await arun(
        "every product must cost at most 100 zł",
        data={"products": products},
        model=MODEL,
        registry=registry,
        use_cache=False,
        options=RunOptions(settings={"max_replans": 0}),
    )
    assert fake.calls == 1 and not result.ok


async def test_the_rule_planners_warnings_survive_the_model(env, fake, registry):
    """What no tool does stays said when a model plans instead of the rules ("log in" is not done
    whichever planner made the plan)."""
    fake.script(GOOD)
    planned = await plan_task("log in and show 5 products", SHOP, registry, model=MODEL, use_cache=False)
    assert planned.source == f"llm:{MODEL}"
    [warning] = planned.plan.warnings
    assert warning.startswith("not done: log in ('log in')"), warning
    assert planned.plan.to_dict()["warnings"] == [warning]


async def test_a_revised_plan_keeps_the_warnings(env, fake, registry):
    """After a failed step the model revises the plan; the first plan's warnings stay in the result."""
    from curllm_core.api import arun
    from curllm_core.executor import RunOptions

    strict = {
        "plan": [{"tool": "validation.price_range_check", "parameters": {"max": 100, "mode": "fail"}}],
        "expected_output": "products",
    }
    lenient = {
        "plan": [{"tool": "validation.price_range_check", "parameters": {"max": 100, "mode": "filter"}}],
        "expected_output": "products",
    }
    fake.script(strict, lenient)
    result = await arun(
        "log in, then every product must cost at most 100 zł",
        data={"products": [{"name": "Mug", "price": 39.0}, {"name": "Lamp", "price": 140.0}]},
        model=MODEL,
        registry=registry,
        use_cache=False,
        options=RunOptions(settings={"max_replans": 1}),
    )
    assert fake.calls == 2 and result.ok, result.errors
    assert [p["name"] for p in result.data["products"]] == ["Mug"]
    assert any(w.startswith("not done: log in") for w in result.warnings), result.warnings


# --- prompt building and parsing (litellm mock_response, no server) ----------------------------------


async def test_mock_response_round_trip(registry, monkeypatch, tmp_path):
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("CURLLM_API_BASE", raising=False)
    reply = "```json\n" + json.dumps(GOOD) + "\n```"
    planned = await plan_with_llm(
        "find 5 products", SHOP, registry, MODEL, litellm_kwargs={"mock_response": reply}
    )
    assert [s.tool for s in planned.plan.steps] == ["extraction.products_generic"]
    assert planned.usage["calls"] == 1


def test_parse_reply_is_lenient_about_form_strict_about_content():
    assert parse_reply(json.dumps(GOOD)) == GOOD
    assert (
        parse_reply("Here you go:\n" + json.dumps(GOOD) + "\nBye")["plan"][0]["tool"]
        == "extraction.products_generic"
    )
    listed = parse_reply(json.dumps([{"tool": "a.b", "params": {"x": 1}, "why": "?"}]))
    assert listed == {"plan": [{"tool": "a.b", "parameters": {"x": 1}}]}
    for bad in ("", "no json here", "[1, 2", '{"steps": []}'):
        with pytest.raises(ValueError):
            parse_reply(bad)


def test_prompt_holds_the_summary_bounded(registry):
    summary = {
        "title": "Shop",
        "headings": ["Laptops"] * 50,
        "forms": [
            {
                "action": "/search",
                "method": "GET",
                "fields": [{"tag": "input", "type": "search", "name": "q", "label": "Search " * 40}] * 20,
            }
        ]
        * 5,
        "buttons": ["Apply"] * 30,
        "links": 120,
    }
    text = format_page_summary(summary)
    assert len(text) <= SUMMARY_CHARS and text.startswith("Title: Shop")
    messages = build_messages("find products", SHOP, registry, page_summary=summary)
    assert "Page summary:\nTitle: Shop" in messages[-1]["content"]


def _tools(n: int):
    """``n`` made-up manifests (built directly: checking 1000 files would only test the registry)."""
    from curllm_core.manifest import Manifest
    from curllm_core.registry import Registry

    registry = Registry()
    for i in range(n):
        doc = {
            "name": f"tool_{i}",
            "version": "1.0.0",
            "category": ("extraction", "forms", "navigation")[i % 3],
            "description": f"Tool number {i}: extracts widgets of kind {i} from gadget pages of vendor {i}.",
            "parameters": {
                "type": "object",
                "properties": {"limit": {"type": "integer"}, f"p{i}": {"type": "string"}},
            },
            "output_schema": {"type": "object"},
            "entrypoint": "json:loads",
            "produces": [f"widgets{i}"],
            "triggers": [f"widget{i}\\b"],
            "examples": [{"instruction": f"get widgets {i}", "parameters": {"limit": 3}}],
        }
        registry.add(Manifest.from_dict(doc, source="test"))
    return registry


def test_prompt_size_is_flat_in_the_number_of_tools():
    sizes = []
    for n in (20, 1000):
        registry = _tools(n)
        assert len(registry) == n
        started = time.perf_counter()
        messages = build_messages("get widgets 7 from this page", SHOP, registry)
        assert time.perf_counter() - started < 10
        sizes.append(sum(len(m["content"]) for m in messages))
    assert sizes[1] <= sizes[0] * 1.1, sizes


# --- the page summary, with a real browser --------------------------------------------------------


@pytest.mark.browser
async def test_page_is_summarised_once_and_reused(env, fake, registry, browser_path, site_url):
    from curllm_core.api import arun

    url = f"{site_url}/test/en-shop.html"
    plan = {
        "plan": [{"tool": "extraction.products_generic", "parameters": {}}],
        "expected_output": "products",
    }
    fake.script(plan)
    events: list[dict] = []
    result = await arun(
        "find products under 20 dollars",
        url,
        model=MODEL,
        registry=registry,
        on_event=events.append,
        use_cache=False,
    )
    assert fake.calls == 1
    prompt = fake.requests[0]["messages"][-1]["content"]
    summary = prompt.split("Page summary:\n", 1)[1].split("\n\n", 1)[0]
    assert "Title: Demo Store" in summary and "name=min" in summary and "Price: Low to High" in summary
    assert len(summary) <= 1500
    # One navigation: the page opened for the summary is the one the steps used.
    assert [e["type"] for e in events].count("url_start") == 1
    assert result.ok, result.errors
    names = [p["name"] for p in result.data["products"]]
    assert names and all(p["price"] <= 20 for p in result.data["products"]), names  # the guard was added
    assert result.timings["steps_ms"] >= 0


def test_the_model_is_shown_the_roles_of_parameters_declared_or_conventional():
    from curllm_core.manifest import Manifest
    from curllm_core.planner.llm import SYSTEM_PROMPT, tool_card
    from curllm_core.plugins import load_registry

    pager = tool_card(load_registry({"CURLLM_LOAD_PLUGINS": ""}).resolve("navigation.pagination"))
    assert pager["parameters"]["extract"]["role"] == "tool"
    assert pager["parameters"]["extract_parameters"]["role"] == "tool_parameters"
    assert "role" not in pager["parameters"]["max_pages"]
    conventional = Manifest.from_dict(  # a plugin's manifest that declares no role: "key" by its name
        {
            "name": "keep",
            "version": "0.1.0",
            "description": "Keep some items.",
            "category": "validation",
            "parameters": {"type": "object", "properties": {"key": {"type": "string"}}},
            "output_schema": {"type": "object"},
            "dependencies": [],
            "consumes": ["products"],
            "produces": ["products"],
        }
    )
    assert tool_card(conventional)["parameters"]["key"]["role"] == "data_key"
    assert '"role": "tool"' in SYSTEM_PROMPT and '"role": "data_key"' in SYSTEM_PROMPT
