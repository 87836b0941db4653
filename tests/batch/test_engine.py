"""The engine through the Python API (`run_many`): concurrency, shared planning, bad tasks, stopping."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime

import pytest

import curllm_core
from curllm_core.batch import Batch, Task, run_many
from curllm_core.browser import Browser
from curllm_core.errors import PlanningError
from curllm_core.executor import RunOptions
from curllm_core.plan import Plan, Step
from curllm_core.planner import Planned
from curllm_core.registry import Registry
from curllm_core.tool import tool

ACTIVE = {"now": 0, "peak": 0}


@tool(category="validation", consumes=[], produces=["products"], dependencies=[], timeout_ms=20000)
async def nap(ctx, seconds: float = 0.0, meet: int = 0) -> dict:
    """Wait ``seconds``, counting how many naps run at once; with ``meet``, only until that many nap
    at the same time (``seconds`` is then the bound): concurrency shown by readiness, not timing."""
    ACTIVE["now"] += 1
    ACTIVE["peak"] = max(ACTIVE["peak"], ACTIVE["now"])
    try:
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds
        while meet and ACTIVE["peak"] < meet and loop.time() < until:
            await asyncio.sleep(0.01)
        if not meet:
            await asyncio.sleep(seconds)
    finally:
        ACTIVE["now"] -= 1
    return {"products": [{"name": "nap", "price": 1}]}


@tool(category="extraction", produces=["products"], dependencies=["page"], timeout_ms=20000)
async def heading(ctx) -> dict:
    """The page's h1 as the one product."""
    return {"products": [{"name": await ctx.page.text_content("h1"), "price": 1, "url": ctx.page.url}]}


@pytest.fixture
def registry() -> Registry:
    from curllm_core.manifest import manifests_dir

    ACTIVE.update(now=0, peak=0)
    r = Registry()
    r.register(manifests_dir() / "validation")
    r.register(nap, source="test")
    r.register(heading, source="test")
    return r


def nap_task(task_id: str, seconds: float, **extra) -> dict:
    return {
        "id": task_id,
        "plan": [{"tool": "validation.nap", "parameters": {"seconds": seconds}}],
        "expected_output": "products",
        **extra,
    }


async def collect(tasks, **kwargs) -> list[dict]:
    return [line async for line in run_many(tasks, **kwargs)]


async def until(check, seconds: float = 30) -> None:
    """Wait until ``check()`` holds (a readiness wait: ``seconds`` is only the bound of a broken run)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not check():
        assert loop.time() < deadline, "timed out waiting"
        await asyncio.sleep(0.01)


def spans(lines: list[dict]) -> list[tuple[float, float]]:
    def ts(text: str) -> float:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()

    return [(ts(x["started_at"]), ts(x["finished_at"])) for x in lines]


async def test_run_many_is_the_public_api(registry):
    assert curllm_core.run_many is run_many
    lines = await collect(
        [nap_task("a", 0), Task("b", plan={"plan": [{"tool": "validation.nap"}]})], registry=registry
    )
    assert sorted(x["id"] for x in lines) == ["a", "b"] and all(x["ok"] for x in lines)
    line = lines[0]
    assert set(line) >= {"id", "ok", "url", "data", "errors", "timings", "steps", "started_at", "finished_at"}
    assert line["data"]["products"] == [{"name": "nap", "price": 1}]
    assert "result" not in line["steps"][0]  # the data already holds the output


def meet_task(task_id: str, meet: int, seconds: float) -> dict:
    """A nap until ``meet`` naps run at once, ``seconds`` at most."""
    return nap_task(task_id, seconds) | {
        "plan": [{"tool": "validation.nap", "parameters": {"seconds": seconds, "meet": meet}}]
    }


async def test_tasks_really_run_concurrently_up_to_the_limit(registry):
    # Each nap ends once all four nap at once (one after another, each would wait out its 10 s
    # alone): the overlap is what ends them, whatever the machine's load.
    lines = await collect([meet_task(f"t{i}", 4, 10) for i in range(4)], concurrency=4, registry=registry)
    assert all(x["ok"] for x in lines)
    assert ACTIVE["peak"] == 4
    first_end = min(end for _, end in spans(lines))
    # Every task started before any ended (the stamps have a millisecond's resolution: the last start
    # and the first end, which that start brings about, may share one on a fast machine).
    assert all(start <= first_end for start, _ in spans(lines))

    # Under a limit of 2, naps waiting for a third never see one: each waits out its bound.
    ACTIVE.update(peak=0)
    await collect([meet_task(f"t{i}", 3, 1.5) for i in range(4)], concurrency=2, registry=registry)
    assert ACTIVE["peak"] == 2


async def test_bad_tasks_get_their_own_lines_and_the_rest_run(registry):
    tasks = [
        nap_task("a", 0),
        {"id": "b", "url": "not a url", "instruction": "find"},
        nap_task("a", 0),
        {"instruction": "find"},
        "junk",
        nap_task("c", 0, data={"products": []}),
    ]
    lines = {x["id"]: x for x in await collect(tasks, registry=registry)}
    assert set(lines) == {"a", "b", "task:3", "task:4", "task:5", "c"}
    assert lines["a"]["ok"] and lines["c"]["ok"]
    assert [lines[k]["errors"][0]["code"] for k in ("b", "task:3", "task:4", "task:5")] == [
        "BAD_URL",
        "DUPLICATE_ID",
        "BAD_TASK",
        "BAD_LINE",
    ]


async def test_a_plan_error_or_a_missing_url_fails_only_that_task(registry):
    lines = {
        x["id"]: x
        for x in await collect(
            [
                {"id": "bad", "plan": [{"tool": "validation.nope"}]},
                {"id": "nourl", "plan": [{"tool": "extraction.heading"}]},
                nap_task("fine", 0),
            ],
            registry=registry,
        )
    }
    assert (
        lines["bad"]["errors"][0]["code"] == "BAD_PLAN"
        and "validation.nope" in lines["bad"]["errors"][0]["problems"][0]
    )
    assert (
        lines["nourl"]["errors"][0]["code"] == "BAD_TASK" and "url" in lines["nourl"]["errors"][0]["message"]
    )
    assert lines["fine"]["ok"]


async def test_the_task_timeout_and_the_default_timeout(registry):
    lines = {
        x["id"]: x
        for x in await collect(
            [nap_task("slow", 5, timeout=0.3), nap_task("default", 5), nap_task("quick", 0)],
            registry=registry,
            concurrency=3,
            options=RunOptions(timeout_s=0.5),
        )
    }
    # Each stopped by its own limit (the 5 s naps never end on their own), and says which.
    assert lines["slow"]["errors"][0]["code"] == "TASK_TIMEOUT"
    assert "did not finish within 0.3 s" in lines["slow"]["errors"][0]["message"]
    assert lines["default"]["errors"][0]["code"] == "TASK_TIMEOUT"
    assert "did not finish within 0.5 s" in lines["default"]["errors"][0]["message"]
    assert lines["quick"]["ok"]


@pytest.fixture
def fake_planner(monkeypatch):
    """The planner, counting its calls and planning a nap (slowly, so that identical tasks overlap)."""
    calls: list[tuple[str, str | None, str | None]] = []

    async def plan_task(
        instruction,
        url,
        registry,
        *,
        model=None,
        use_cache=True,
        refresh=False,
        events=None,
        initial_keys=(),
        page_summary=None,
    ):
        calls.append((instruction, url, model))
        await asyncio.sleep(0.2)
        if "impossible" in instruction:
            raise PlanningError(f"no plan for {instruction!r}")
        plan = Plan(
            steps=[Step("validation.nap", {"seconds": 0.01})],
            expected_output="products",
            instruction=instruction,
            planner="fake",
            needs_page=False,
        )
        return Planned(plan, [], "fake", {"tokens": 10})

    import curllm_core.planner

    monkeypatch.setattr(curllm_core.planner, "plan_task", plan_task)
    return calls


async def test_identical_instructions_are_planned_once(registry, fake_planner):
    def task(i: int, instruction: str, url: str) -> dict:
        return {"id": f"t{i}", "instruction": instruction, "url": url}

    # The same instruction on pages of the same shape (host, path with numbers folded, query keys).
    tasks = [
        task(i, "find products under 150zł", f"https://shop.example/list/{i}?page={i}") for i in range(6)
    ]
    tasks += [
        task(6, "Find  products under 150zł.", "https://www.shop.example/list/77?page=1"),
        task(7, "find products under 150zł", "https://other.example/"),
        task(8, "find products under 150zł", "https://shop.example/list/1?page=2") | {"model": "m1"},
        task(9, "something impossible", "https://shop.example/"),
        task(10, "something impossible", "https://shop.example"),
    ]
    lines = {x["id"]: x for x in await collect(tasks, concurrency=4, registry=registry)}
    assert sorted(c[0] + " " + str(c[2]) for c in fake_planner) == [
        "find products under 150zł None",
        "find products under 150zł None",
        "find products under 150zł m1",
        "something impossible None",
    ]
    assert all(lines[f"t{i}"]["ok"] for i in range(9))
    assert sum(1 for x in lines.values() if x.get("usage")) == 3  # the tokens are counted once per planning
    assert [lines[k]["errors"][0]["code"] for k in ("t9", "t10")] == ["PLANNING_FAILED"] * 2
    assert all("plan_ms" in lines[f"t{i}"]["timings"] for i in range(9))


async def test_an_instruction_without_a_url_or_a_site_fails_alone(
    registry, fake_planner, monkeypatch, tmp_path
):
    monkeypatch.delenv("CURLLM_DEFAULT_URL", raising=False)
    monkeypatch.delenv("CURLLM_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    lines = {
        x["id"]: x
        for x in await collect(
            [{"id": "a", "instruction": "find products under 150zł"}, nap_task("b", 0)], registry=registry
        )
    }
    assert (
        lines["a"]["errors"][0]["code"] == "BAD_TASK"
        and "missing field url" in lines["a"]["errors"][0]["message"]
    )
    assert lines["b"]["ok"] and not fake_planner


async def test_stop_cancels_the_running_tasks_and_starts_no_more(registry):
    batch = Batch(
        [nap_task(f"t{i}", 0.0 if i == 0 else 10) for i in range(6)], concurrency=3, registry=registry
    )
    lines = []
    async for line in batch.results():
        lines.append(line)
        if len(lines) == 1:
            await until(lambda: len(batch.running) == 3)  # t1, t2 and (in t0's place) t3
            assert sorted(batch.running) == ["t1", "t2", "t3"]
            batch.stop()
    assert lines[0]["ok"]
    cancelled = lines[1:]
    assert sorted(x["id"] for x in cancelled) == ["t1", "t2", "t3"]  # t4 and t5 never started
    assert all(x["errors"][0]["code"] == "CANCELLED" for x in cancelled)
    assert ACTIVE["now"] == 0


async def test_leaving_the_loop_early_cancels_the_rest(registry):
    async with contextlib.aclosing(
        run_many(
            [nap_task("quick", 0)] + [nap_task(f"t{i}", 10) for i in range(3)],
            concurrency=4,
            registry=registry,
        )
    ) as lines:
        async for line in lines:
            assert line["id"] == "quick"
            break
    assert ACTIVE["now"] == 0  # the three 10 s naps were cancelled, not left running


@pytest.mark.browser
async def test_pages_load_concurrently_in_one_shared_browser(registry, slow_site, browser_path):
    """Each page is served only once all four are asked for at the same time (``meet=4``): the four
    loads overlap, whatever the machine's load (serially, each would wait out the server's bound
    alone and the peak stay 1); every task's page comes from the one browser given."""
    tasks = [
        {
            "id": f"p{i}",
            "url": f"{slow_site.url}/page?meet=4&n={i}",
            "plan": [{"tool": "extraction.heading"}],
            "expected_output": "products",
        }
        for i in range(4)
    ]
    browser = Browser(browser_path)
    sessions = []
    new_session = browser.new_session

    async def counted(*args, **kwargs):
        session = await new_session(*args, **kwargs)
        sessions.append(session)
        return session

    browser.new_session = counted  # type: ignore[method-assign]
    slow_site.peak = 0
    try:
        lines = {x["id"]: x for x in await collect(tasks, concurrency=4, registry=registry, browser=browser)}
        assert browser.started  # a browser that was given is left open for its owner
        assert browser.crashes == 0
    finally:
        await browser.close()
    assert all(x["ok"] for x in lines.values()), lines
    assert [lines[f"p{i}"]["data"]["products"][0]["name"] for i in range(4)] == [
        f"page {i}" for i in range(4)
    ]
    assert slow_site.peak == 4  # the four pages were in flight at once
    assert len(sessions) == 4  # a context each, in the browser given (none started one of its own)
