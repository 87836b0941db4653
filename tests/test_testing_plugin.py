"""curllm's pytest plugin (curllm_core.testing): the fixtures in this suite, and in a fresh project."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from curllm_core.errors import PlanError, ToolError, UsageError
from curllm_core.testing import check_manifest_problems, make_registry
from curllm_core.tool import ToolContext, tool

ROOT = Path(__file__).resolve().parent.parent
BUILTIN = ROOT / "tools_manifests" / "validation" / "price_range_check.json"


@tool(
    category="extraction",
    produces=["page"],
    sites=["shop.example.org"],
    output_schema={
        "type": "object",
        "required": ["page"],
        "properties": {"page": {"type": "object", "required": ["url", "title"]}},
    },
)
async def page_info(ctx: ToolContext, upper: bool = False) -> dict:
    """Where the page is and what it is called.

    Args:
        upper: Title in upper case.
    """
    title = await ctx.page.title()
    return {"page": {"url": ctx.page.url, "title": title.upper() if upper else title}}


@tool(category="extraction", produces=["page"], output_schema={"type": "object", "required": ["page"]})
async def broken_output(ctx: ToolContext) -> dict:
    """Returns what its output_schema forbids."""
    return {"pages": []}


@tool(category="validation", consumes=["page"], produces=["page"], dependencies=[])
async def must_have_title(ctx: ToolContext) -> dict:
    """Fail unless the page has a title."""
    if not ctx.data["page"]["title"]:
        raise ToolError("the page has no title", code="NO_TITLE")
    return {"page": ctx.data["page"]}


@pytest.fixture
def curllm_registry(isolated_env):
    """The built-in tools plus this module's code-first tools (overrides the plugin's fixture)."""
    return make_registry(page_info, broken_output, must_have_title)


# --- helpers without a browser ---------------------------------------------------------------------


def test_check_manifest_problems(tmp_path):
    assert check_manifest_problems(BUILTIN) == []
    assert check_manifest_problems(json.loads(BUILTIN.read_text())) == []
    assert check_manifest_problems(page_info) == []

    doc = json.loads(BUILTIN.read_text()) | {"name": "Bad Name", "colour": "red"}
    problems = check_manifest_problems(doc)
    assert any("'colour'" in p for p in problems) and any("/name" in p for p in problems)

    broken = tmp_path / "broken.json"
    broken.write_text('{"name": "x",\n  oops}')
    assert "line 2" in check_manifest_problems(broken)[0]

    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps(json.loads(BUILTIN.read_text()) | {"entrypoint": "no_such_module_xyz:run"}))
    assert "no_such_module_xyz" in check_manifest_problems(missing)[0]


def test_check_manifest_fixture(curllm_check_manifest):
    assert curllm_check_manifest(BUILTIN) == []
    assert curllm_check_manifest({"name": "x"})  # incomplete: problems, not an exception


def test_make_registry_adds_tools_and_plugins(isolated_env, tmp_path):
    import types

    from curllm_core.hookspecs import hookimpl

    plugin = types.ModuleType("fake_curllm_plugin")

    @hookimpl
    def curllm_register_tools(register):
        register(page_info)

    plugin.curllm_register_tools = curllm_register_tools
    registry = make_registry(BUILTIN.parent, plugin, source="mine")
    info = next(p for p in registry.plugins if p.name == "mine")
    assert (info.module, info.tools) == ("fake_curllm_plugin", ["extraction.page_info"])
    assert registry.resolve("page_info").source == "mine"
    # The built-in directory again: later registrations win, with a warning naming both.
    assert registry.resolve("price_range_check").source == "mine"
    assert any("price_range_check" in w for w in registry.warnings)


def test_the_plugin_imports_nothing_heavy():
    code = (
        "import sys, curllm_core.testing; "
        "heavy = [m for m in ('playwright', 'jsonschema', 'pydantic', 'curllm_core.executor', 'curllm_core.browser') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- running tools and plans in a real browser -----------------------------------------------------


@pytest.mark.browser
async def test_html_is_served_at_the_given_url(curllm_run_tool):
    out = await curllm_run_tool(
        "extraction.page_info",
        html="<title>Hello</title><p>x</p>",
        url="https://shop.example.org/list?page=2",
        params={"upper": True},
    )
    assert out == {"page": {"url": "https://shop.example.org/list?page=2", "title": "HELLO"}}


@pytest.mark.browser
async def test_html_defaults_to_the_tools_site(curllm_run_tool):
    out = await curllm_run_tool("page_info", html="<title>Home</title>")
    assert out["page"] == {"url": "https://shop.example.org/", "title": "Home"}


@pytest.mark.browser
async def test_a_file_is_opened_or_served(curllm_run_tool, tmp_path):
    page = tmp_path / "saved.html"
    page.write_text("<title>Saved</title>", encoding="utf-8")
    out = await curllm_run_tool("page_info", path=page)
    assert out["page"] == {"url": page.as_uri(), "title": "Saved"}
    out = await curllm_run_tool("page_info", path=page, url="https://live.example.org/p")
    assert out["page"] == {"url": "https://live.example.org/p", "title": "Saved"}


@pytest.mark.browser
async def test_failures_raise_with_the_steps_error(curllm_run_tool):
    with pytest.raises(PlanError, match="upper"):
        await curllm_run_tool("page_info", html="<p>", params={"upper": "yes"})
    with pytest.raises(ToolError, match="output does not match its output_schema") as caught:
        await curllm_run_tool("extraction.broken_output", html="<p>")
    assert caught.value.code == "OUTPUT_INVALID"
    with pytest.raises(ToolError, match="no title") as caught:
        await curllm_run_tool("must_have_title", data={"page": {"url": "x", "title": ""}})
    assert caught.value.code == "NO_TITLE"
    with pytest.raises(UsageError, match="needs a page"):
        await curllm_run_tool("page_info")


async def test_a_data_tool_needs_no_page(curllm_run_tool):
    out = await curllm_run_tool(
        "validation.price_range_check",
        params={"max": 100},
        data={"products": [{"name": "a", "price": 50}, {"name": "b", "price": 150}]},
    )
    assert [p["name"] for p in out["products"]] == ["a"]
    assert out["validation"]["rejected"][0]["name"] == "b"


@pytest.mark.browser
async def test_run_plan(curllm_run_plan):
    plan = {
        "plan": [{"tool": "page_info"}, {"tool": "must_have_title"}],
        "expected_output": "page",
        "url": "https://shop.example.org/a",
    }
    result = await curllm_run_plan(plan, html="<title>A</title>")
    assert result.ok, result.errors
    assert result.data["page"] == {"url": "https://shop.example.org/a", "title": "A"}
    result = await curllm_run_plan(plan, html="<p>no title</p>")
    assert not result.ok and result.errors[0]["code"] == "NO_TITLE"


@pytest.mark.browser
async def test_a_tool_on_the_tests_own_page(curllm_run_tool, curllm_page):
    await curllm_page.set_content("<title>Mine</title><p>typed into</p>")
    await curllm_page.evaluate("document.title = 'Changed by the test'")
    out = await curllm_run_tool("page_info", page=curllm_page, params={"upper": True})
    assert out == {"page": {"url": "about:blank", "title": "CHANGED BY THE TEST"}}  # that page, as it was
    await curllm_page.set_content("<p>still the test's page after the call</p>")
    with pytest.raises(PlanError, match="upper"):  # parameters checked before the tool runs
        await curllm_run_tool("page_info", page=curllm_page, params={"upper": "yes"})
    with pytest.raises(ToolError, match="output does not match its output_schema") as caught:
        await curllm_run_tool("broken_output", page=curllm_page)  # the executor's own output check
    assert caught.value.code == "OUTPUT_INVALID"
    with pytest.raises(ValueError, match="page= or html="):
        await curllm_run_tool("page_info", page=curllm_page, html="<p>")


@pytest.mark.browser
async def test_curllm_page_is_a_page_made_as_a_run_makes_one(curllm_page, tmp_path):
    image = tmp_path / "a.png"
    image.write_bytes(b"\x89PNG")
    document = tmp_path / "p.html"
    document.write_text(f'<title>P</title><img src="{image.as_uri()}">', encoding="utf-8")
    seen: list[str] = []
    curllm_page.on("requestfailed", lambda r: seen.append(r.url))
    await curllm_page.goto(document.as_uri())
    assert await curllm_page.title() == "P"
    assert image.as_uri() in seen  # a run's context blocks images (--load-images loads them)


@pytest.mark.browser
async def test_curllm_browser_is_a_started_browser(curllm_browser):
    assert curllm_browser.started
    session = await curllm_browser.new_session()
    try:
        await session.page.set_content("<title>t</title>")
        assert await session.page.title() == "t"
    finally:
        await session.close()


# --- in a project of its own: no asyncio settings, strict mode --------------------------------------

PROJECT_TEST = '''
import asyncio

import pytest
import pytest_asyncio
from curllm_core.testing import make_registry
from curllm_core.tool import tool


@tool(category="extraction", produces=["title"], output_schema={"type": "object", "required": ["title"]})
async def title_of(ctx) -> dict:
    """The page title."""
    return {"title": await ctx.page.title()}


@pytest.fixture
def curllm_registry():
    return make_registry(title_of)


@pytest_asyncio.fixture(scope="session")
async def session_loop():
    return asyncio.get_running_loop()


@pytest.mark.asyncio(loop_scope="session")
async def test_in_the_session_loop(curllm_run_tool):
    assert await curllm_run_tool("title_of", html="<title>one</title>") == {"title": "one"}


@pytest.mark.asyncio(loop_scope="function")
async def test_in_its_own_loop(curllm_run_tool):
    assert await curllm_run_tool("title_of", html="<title>two</title>") == {"title": "two"}


@pytest.mark.asyncio
async def test_data_only(curllm_run_tool, session_loop):
    # No loop scope set anywhere: curllm's plugin made the session loop the tests' default.
    assert asyncio.get_running_loop() is session_loop
    out = await curllm_run_tool("validation.required_fields", params={"fields": ["name"]},
                                data={"products": [{"name": "a"}, {"price": 1}]})
    assert out["validation"]["kept"] == 1


def test_manifest(curllm_check_manifest):
    assert curllm_check_manifest(title_of) == []
'''


def _pytest_in(project: Path, env: dict) -> subprocess.CompletedProcess:
    (project / "test_project.py").write_text(textwrap.dedent(PROJECT_TEST), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rsw", "-p", "no:cacheprovider", str(project)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.browser
def test_a_project_without_asyncio_settings(tmp_path, isolated_env, browser_path):
    run = _pytest_in(tmp_path, isolated_env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 passed" in run.stdout
    # The test outside the session loop got a private browser, and a hint why that is slower.
    assert "different event loop" in run.stdout
    # curllm's plugin set the loop scopes the project left unset: no warning from pytest-asyncio.
    assert "PytestDeprecationWarning" not in run.stdout + run.stderr


def test_no_chromium_skips_with_the_install_hint(tmp_path, isolated_env):
    env = {**isolated_env, "CURLLM_BROWSER": str(tmp_path / "no-such-chromium")}
    run = _pytest_in(tmp_path, env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 passed, 2 skipped" in run.stdout
    assert "Install one with" in run.stdout and "CURLLM_BROWSER" in run.stdout
