"""The real CLI in a subprocess: exit codes, errors without tracebacks, plan runs without a browser. A
contract a real process shows takes its further cases through the console entry point in this process
(`tests.in_process.cli_main`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.in_process import cli_main
from tests.warm_cache import fresh_cache


def curllm(*args: str, stdin: str | None = None, env_extra: dict | None = None, cwd=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update({"CURLLM_LOAD_PLUGINS": "", **(env_extra or {})})
    return subprocess.run(
        [sys.executable, "-m", "curllm_core", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=cwd,
    )


@pytest.fixture
def cache_env(tmp_path):
    """A private cache holding the built-in tools' checked manifests, as after a first run
    (tests/warm_cache.py): a command here does not check them again."""
    return {"CURLLM_CACHE_DIR": str(fresh_cache(tmp_path / "cache"))}


def test_version_and_help(cache_env):
    from curllm_core import __version__

    assert curllm("--version", env_extra=cache_env).stdout.strip() == f"curllm, version {__version__}"
    out = curllm("--help", env_extra=cache_env)
    assert out.returncode == 0 and "tools" in out.stdout and "plugins" in out.stdout


def test_validation_only_plan_with_input_needs_no_browser(tmp_path, cache_env):
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "plan": [
                    {"tool": "validation.price_range_check", "parameters": {"max": 150}},
                    {"tool": "validation.required_fields", "parameters": {"fields": ["url"]}},
                ],
                "expected_output": "products",
            }
        )
    )
    data = tmp_path / "in.json"
    data.write_text(
        json.dumps(
            {
                "products": [
                    {"name": "a", "price": 99, "url": "https://x/a"},
                    {"name": "b", "price": 199, "url": "https://x/b"},
                    {"name": "c", "price": 50},
                ]
            }
        )
    )
    out = curllm(
        "--plan",
        str(plan),
        "--input",
        str(data),
        "--format",
        "json",
        env_extra={**cache_env, "CURLLM_BROWSER": "/nonexistent/chromium", "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["ok"] and [p["name"] for p in result["data"]["products"]] == ["a"]
    assert result["timings"]["browser_ms"] == 0


def test_invalid_plan_exits_2_listing_every_problem(cache_env):
    doc = {
        "plan": [{"tool": "nope"}, {"tool": "price_range_check", "parameters": {"max": "cheap", "zz": 1}}],
        "expected_output": "articles",
    }
    out = curllm("--plan", "-", stdin=json.dumps(doc), env_extra=cache_env)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    for needle in (
        "/plan/0/tool",
        "unknown tool 'nope'",
        "/plan/1/parameters/max",
        "'zz' was unexpected",
        "consumes 'products'",
        "/expected_output",
    ):
        assert needle in out.stderr, needle


def test_unreadable_and_non_json_plans_exit_2(tmp_path, cache_env):
    out = curllm("--plan", str(tmp_path / "missing.json"), env_extra=cache_env)
    assert out.returncode == 2 and "cannot read" in out.stderr and "Traceback" not in out.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "plan": [,]\n}')
    out = curllm("--plan", str(bad), env_extra=cache_env)
    assert out.returncode == 2 and "line 2" in out.stderr


def test_bad_options_exit_2(cache_env):
    out = curllm("--plan", "-", "--format", "xml", stdin="{}", env_extra=cache_env)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    out = curllm("run", "--frobnicate", env_extra=cache_env)
    assert out.returncode == 2 and "No such option" in out.stderr


def test_result_not_ok_exits_1(tmp_path, cache_env):
    plan = json.dumps(
        {
            "plan": [{"tool": "price_range_check", "parameters": {"max": 10, "mode": "fail"}}],
            "expected_output": "products",
        }
    )
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": "a", "price": 99}]}))
    out = curllm("--plan", "-", "--input", str(data), "--format", "json", stdin=plan, env_extra=cache_env)
    assert out.returncode == 1
    assert json.loads(out.stdout)["ok"] is False
    assert "outside the price range" in out.stderr


def test_events_jsonl_to_a_file_and_output_file(tmp_path, cache_env):
    plan = json.dumps(
        {
            "plan": [{"tool": "required_fields", "parameters": {"fields": ["name"]}}],
            "expected_output": "products",
        }
    )
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": "a"}]}))
    events, output = tmp_path / "events.jsonl", tmp_path / "out.csv"
    out = curllm(
        "--plan",
        "-",
        "--input",
        str(data),
        "--events",
        str(events),
        "--format",
        "csv",
        "-o",
        str(output),
        stdin=plan,
        env_extra=cache_env,
    )
    assert out.returncode == 0, out.stderr
    assert output.read_text() == "name\na\n"
    kinds = [json.loads(line)["type"] for line in events.read_text().splitlines()]
    assert kinds[0] == "init" and kinds[-1] == "complete"


def test_tools_list_json_and_show(cache_env):
    tools = json.loads(curllm("tools", "list", "--json", env_extra=cache_env).stdout)
    entry = next(t for t in tools if t["name"] == "validation.price_range_check")
    assert {"name", "category", "version", "description", "source"} <= set(entry) and entry[
        "source"
    ] == "builtin"
    # The further cases through the command's entry point in this process (the same parsing, output
    # and exit codes), not a process each.
    listed = cli_main(("tools", "list", "--category", "validation", "--json"), env=cache_env)
    only = json.loads(listed.stdout)
    assert listed.returncode == 0 and only and all(t["category"] == "validation" for t in only)
    shown = cli_main(("tools", "show", "price_range_check"), env=cache_env)
    assert shown.returncode == 0 and json.loads(shown.stdout)["name"] == "price_range_check"
    out = curllm("tools", "show", "nope", env_extra=cache_env)
    assert out.returncode == 2 and "unknown tool" in out.stderr


def test_tools_validate_reports_every_problem_by_file(tmp_path, cache_env):
    from curllm_core.manifest import manifests_dir

    assert curllm("tools", "validate", str(manifests_dir()), env_extra=cache_env).returncode == 0
    (tmp_path / "a.json").write_text("{")
    (tmp_path / "b.json").write_text(json.dumps({"name": "b"}))
    out = curllm("tools", "validate", str(tmp_path), env_extra=cache_env)
    assert out.returncode == 1
    assert f"{tmp_path / 'a.json'}" in out.stdout and f"{tmp_path / 'b.json'}" in out.stdout


def test_tools_manifest_for_a_code_first_function(tmp_path, cache_env):
    (tmp_path / "mytools.py").write_text(
        "from curllm_core import tool\n\n"
        "@tool(category='validation', consumes=['products'], produces=['products'], dependencies=[])\n"
        "async def cheap(ctx, limit: float = 5.0) -> dict:\n"
        "    '''Keep cheap products.'''\n"
        "    return {'products': []}\n"
    )
    out = curllm("tools", "manifest", "mytools:cheap", env_extra=cache_env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["name"] == "cheap" and doc["parameters"]["properties"]["limit"]["default"] == 5.0


def test_plugins_list(tmp_path):
    out = curllm("plugins", "list", "--json", env_extra={"CURLLM_CACHE_DIR": str(tmp_path / "cache")})
    builtin = next(p for p in json.loads(out.stdout) if p["name"] == "builtin")
    assert builtin["tools"] and builtin["error"] is None


def test_commands_without_browser_or_model_never_import_them(cache_env):
    code = (
        "import sys, runpy\nsys.argv=['curllm','tools','list','--json']\n"
        "try:\n    runpy.run_module('curllm_core', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "heavy=[m for m in ('playwright','litellm','jsonschema','pydantic') if m in sys.modules]\n"
        "sys.stderr.write('HEAVY=%s' % heavy)\n"
    )
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}, **cache_env}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert "HEAVY=[]" in out.stderr, out.stderr


def test_a_batch_on_html_imports_no_browser_api_and_no_schema_validator(tmp_path, cache_env):
    """A batch of a given plan on --engine http (a paged listing whose shortfall sends the pager's rule
    over the HTML) imports neither Playwright's API nor jsonschema (a valid plan and valid outputs need
    no wording of errors): ~0.25 s of every batch's start."""
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / "site" / "paged-en.html"
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "plan": [
                    {"tool": "extraction.products_generic"},
                    {"tool": "validation.price_range_check", "parameters": {"max": 150}},
                ],
                "expected_output": "products",
            }
        )
    )
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "a", "url": str(page), "plan": str(plan)}) + "\n")
    code = (
        "import sys, runpy\n"
        f"sys.argv=['curllm','batch',{str(tasks)!r},'--engine','http','--no-progress']\n"
        "try:\n    runpy.run_module('curllm_core', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "heavy=[m for m in ('playwright.async_api','litellm','jsonschema','pydantic') if m in sys.modules]\n"
        "sys.stderr.write('HEAVY=%s' % heavy)\n"
    )
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}, **cache_env}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    line = json.loads(out.stdout)
    assert line["ok"] and line["data"]["products"], out.stderr
    assert "links its next page" in line["warnings"][0]  # the pager's rule read the HTML
    assert "HEAVY=[]" in out.stderr, out.stderr


def test_an_instruction_over_input_data_needs_no_url(tmp_path, cache_env):
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": "a", "price": 99}, {"name": "b", "price": 120}]}))
    out = curllm("keep products under 100 zł", "--input", str(data), "--format", "json", env_extra=cache_env)
    assert out.returncode == 0, out.stderr
    assert [p["name"] for p in json.loads(out.stdout)["data"]["products"]] == ["a"]


def test_no_url_and_no_known_site_exits_2_naming_the_sites(cache_env):
    out = curllm("find products under 100 zł", env_extra=cache_env)
    assert out.returncode == 2 and "--url" in out.stderr and "ceneo.pl" in out.stderr


def test_a_plans_format_is_the_output_format_unless_the_option_says_otherwise(tmp_path, cache_env):
    """A plan's ``format`` (the format the instruction named) decides the output; --format wins; an
    aggregate's summary is the answer in it."""
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "plan": [
                    {"tool": "validation.filter_number", "parameters": {"field": "price", "below": 100}},
                    {"tool": "validation.aggregate", "parameters": {"op": "count"}},
                    {"tool": "validation.aggregate", "parameters": {"op": "average"}},
                ],
                "expected_output": "summary",
                "format": "csv",
            }
        )
    )
    data = tmp_path / "in.json"
    products = [{"name": n, "price": p, "currency": "PLN"} for n, p in (("a", 99), ("b", 199), ("c", 50))]
    data.write_text(json.dumps({"products": products}))
    out = curllm("--plan", str(plan), "--input", str(data), env_extra=cache_env)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "count,average_price,currency\n2,74.5,PLN\n"
    # The option's and the bad format's cases through the command's entry point in this process.
    out = cli_main(("--plan", str(plan), "--input", str(data), "--format", "jsonl"), env=cache_env)
    assert out.returncode == 0 and json.loads(out.stdout) == {
        "count": 2,
        "average_price": 74.5,
        "currency": "PLN",
    }
    bad = json.loads(plan.read_text()) | {"format": "xlsx"}
    plan.write_text(json.dumps(bad))
    out = cli_main(("--plan", str(plan), "--input", str(data)), env=cache_env)
    assert out.returncode == 2 and "/format" in out.stderr and "Traceback" not in out.stderr
