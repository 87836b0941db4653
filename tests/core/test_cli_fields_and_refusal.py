"""--fields, --limit and honest refusal through the real CLI, without a browser: plans printed with
--plan-only, data-only runs over --input, warnings on stderr, exit codes 2 and 3."""

from __future__ import annotations

import json

import pytest

from tests.core.test_cli import curllm
from tests.in_process import cli_main
from tests.warm_cache import fresh_cache

PRODUCTS = {
    "products": [
        {"name": "b", "price": 20.0, "currency": "PLN", "url": "https://s.example/b"},
        {"name": "a", "price": 5.0, "currency": "PLN", "url": "https://s.example/a"},
        {"name": "c", "price": 9.0, "currency": "PLN", "url": "https://s.example/c"},
    ]
}


@pytest.fixture
def env(tmp_path):
    # No browser anywhere: none of these runs may need one.
    return {
        "CURLLM_CACHE_DIR": str(fresh_cache(tmp_path / "cache")),
        "CURLLM_BROWSER": "/nonexistent/chromium",
    }


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "in.json"
    path.write_text(json.dumps(PRODUCTS), encoding="utf-8")
    return str(path)


def test_fields_and_limit_on_data(env, data):
    out = curllm("the cheapest products", "--input", data, "--fields", "name, price", "--limit", "2",
                 "--format", "json", env_extra=env)  # fmt: skip
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["data"]["products"] == [{"name": "a", "price": 5.0}, {"name": "c", "price": 9.0}]
    assert [s["tool"] for s in result["plan"]["plan"]] == [
        "validation.order_items",
        "validation.select_fields",
    ]


@pytest.mark.parametrize("fmt, expected", [("csv", "name,price\na,5.00\nc,9.00\n"), ("jsonl", None)])
def test_fields_in_csv_and_jsonl(env, data, fmt, expected):
    """CSV in a real `curllm` process; JSONL through the same console entry point in this process
    (`tests.in_process.cli_main`: the same parsing, planning, rendering and exit code)."""
    args = ("the 2 cheapest products, only names and prices", "--input", data, "--format", fmt)
    out = curllm(*args, env_extra=env) if fmt == "csv" else cli_main(args, env=env)
    assert out.returncode == 0, out.stderr
    if expected:
        assert out.stdout == expected
    else:
        assert [json.loads(x) for x in out.stdout.splitlines()] == [
            {"name": "a", "price": 5.0},
            {"name": "c", "price": 9.0},
        ]


def test_fields_with_a_given_plan(env, data, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"plan": [{"tool": "validation.price_range_check", "parameters": {"max": 10}}],
                                "expected_output": "products"}))  # fmt: skip
    shown = curllm(
        "--plan", str(plan), "--input", data, "--fields", "url", "--limit", "1", "--plan-only", env_extra=env
    )
    assert shown.returncode == 0, shown.stderr
    steps = json.loads(shown.stdout)["plan"]
    assert [(s["tool"], s["parameters"].get("limit"), s["parameters"].get("fields")) for s in steps] == [
        ("validation.price_range_check", None, None),
        ("validation.order_items", 1, None),
        ("validation.select_fields", None, ["url"]),
    ]
    # The run itself through the command's entry point in this process (the plan-only one was real).
    out = cli_main(("--plan", str(plan), "--input", data, "--fields", "url", "--format", "json"), env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["data"]["products"] == [
        {"url": "https://s.example/a"},
        {"url": "https://s.example/c"},
    ]


def test_a_field_no_item_has_fails_the_task(env, data):
    out = curllm("products", "--input", data, "--fields", "name,rating", "--format", "json", env_extra=env)
    assert out.returncode == 1
    assert "no item has a field for 'rating'" in out.stderr


@pytest.mark.parametrize("value", ["", " , ", "name;price", "a b"])
def test_bad_fields_exit_2(env, data, value):
    """The first in a real `curllm` process, the others through its entry point in this process."""
    args = ("products", "--input", data, "--fields", value)
    out = curllm(*args, env_extra=env) if value == "" else cli_main(args, env=env)
    assert out.returncode == 2 and "--fields" in out.stderr and "Traceback" not in out.stderr


def test_bad_limit_exits_2(env, data):
    out = curllm("products", "--input", data, "--limit", "0", env_extra=env)
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_plan_only_names_what_is_not_done(env):
    out = curllm(
        "log in and buy the cheapest", "--url", "https://shop.example/", "--plan-only", env_extra=env
    )
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    assert plan["warnings"] == [
        "not done: log in ('log in'), buy ('buy') (no installed tool does that); the plan only gets the products"
    ]
    assert out.stderr.startswith("curllm: warning: not done: log in")


def test_a_warning_in_a_data_run(env, data):
    out = curllm(
        "find the cheapest product and email it to me", "--input", data, "--format", "json", env_extra=env
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["data"]["products"] == [PRODUCTS["products"][1]]
    assert result["warnings"] and "send ('email it')" in result["warnings"][0]
    assert "curllm: warning: not done: send ('email it')" in out.stderr


@pytest.mark.parametrize(
    "instruction",
    [
        "what is the weather tomorrow",
        "jaka będzie jutro pogoda",
        "wie wird das Wetter morgen",
        "tell me a joke",
    ],
)
def test_nothing_doable_exits_3(env, instruction):
    """The first wording in a real `curllm` process, the others through the same console entry point
    in this process (`tests.in_process.cli_main`: the same parser, planner, error line and exit code)."""
    args = (instruction, "--url", "https://shop.example/", "--plan-only")
    out = curllm(*args, env_extra=env) if instruction.startswith("what") else cli_main(args, env=env)
    assert out.returncode == 3 and out.stdout == ""
    assert out.stderr.startswith("curllm: error [PLANNING_FAILED]") and "Traceback" not in out.stderr


def test_an_instruction_too_long_exits_2(env):
    out = curllm("x" * 20_000, "--url", "https://shop.example/", "--plan-only", env_extra=env)
    assert out.returncode == 2 and "20,000 characters" in out.stderr and "Traceback" not in out.stderr


async def test_the_python_api_takes_fields_and_limit(env, monkeypatch):
    import curllm_core

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("CURLLM_LOAD_PLUGINS", "")
    result = await curllm_core.arun("the cheapest products", data=PRODUCTS, fields=["name", "url"], limit=2)
    assert result.ok, result.errors
    assert result.data["products"] == [
        {"name": "a", "url": "https://s.example/a"},
        {"name": "c", "url": "https://s.example/c"},
    ]
    plan = {"plan": [{"tool": "validation.order_items", "parameters": {"by": "price", "order": "desc"}}]}
    plan["expected_output"] = "products"
    result = await curllm_core.arun(plan=plan, data=PRODUCTS, fields=["price"], limit=1)
    assert result.ok and result.data["products"] == [{"price": 20.0}]
    result = await curllm_core.arun("log in and buy the cheapest", data=PRODUCTS)
    assert result.ok and result.warnings and result.data["products"] == [PRODUCTS["products"][1]]
