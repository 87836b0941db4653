"""Normalising a plan is its own explicit step; checking a plan only reports and never rewrites it."""

from __future__ import annotations

import copy
import json

import pytest

from curllm_core.errors import PlanError
from curllm_core.plan import check_plan, normalise_plan
from curllm_core.plugins import load_registry


@pytest.fixture(scope="module")
def registry():
    return load_registry({"CURLLM_LOAD_PLUGINS": ""})


PAGED = {
    "plan": [
        {"tool": "pagination", "parameters": {"max_pages": 3}},
        {"tool": "products_ceneo", "parameters": {"limit": 10}},
        {"tool": "price_range_check", "parameters": {"max": 150}, "fallback": "required_fields"},
    ],
    "expected_output": "products",
    "fallback": "products_generic",
}


def test_normalising_folds_names_and_fills_defaults_in_a_new_document(registry):
    doc = copy.deepcopy(PAGED)
    out = normalise_plan(doc, registry)
    assert doc == PAGED  # the input is left as it is
    assert [s["tool"] for s in out["plan"]] == ["navigation.pagination", "validation.price_range_check"]
    pager = out["plan"][0]["parameters"]
    assert pager["extract"] == "extraction.products_ceneo" and pager["extract_parameters"] == {"limit": 10}
    assert pager == {
        "max_pages": 3,
        "extract": "extraction.products_ceneo",
        "extract_parameters": {"limit": 10},
    }
    assert out["plan"][1]["parameters"]["key"] == "products"  # the check's default, written down
    assert out["plan"][1]["fallback"] == "validation.required_fields"
    assert out["fallback"] == "extraction.products_generic"
    assert normalise_plan(out, registry) == out  # normalising twice changes nothing


def test_checking_reports_and_the_plan_says_what_the_document_says(registry):
    doc = copy.deepcopy(PAGED)
    plan = check_plan(doc, registry)
    assert doc == PAGED
    # As written: three steps, bare names, parameters without defaults. The pager, given none, runs
    # its default extraction; that is why every entry point normalises first.
    assert [s.tool for s in plan.steps] == ["pagination", "products_ceneo", "price_range_check"]
    assert plan.steps[0].parameters == {"max_pages": 3} and plan.fallback == "products_generic"
    normal = check_plan(normalise_plan(doc, registry), registry)
    assert [s.parameters for s in normal.steps] == [
        s["parameters"] for s in normalise_plan(doc, registry)["plan"]
    ]
    assert [s.tool for s in normal.steps] == ["navigation.pagination", "validation.price_range_check"]


def test_a_missing_parameter_is_judged_by_its_default(registry):
    doc = {"plan": [{"tool": "validation.price_range_check", "parameters": {"max": 5}}]}
    with pytest.raises(PlanError, match="consumes 'products'"):  # the default key, as the tool sees it
        check_plan(doc, registry)
    assert check_plan(doc, registry, initial_keys={"products"}).steps[0].parameters == {"max": 5}


def test_a_document_the_schema_rejects_is_normalised_to_itself(registry):
    doc = {"plan": [{"tool": "pagination"}, {"tool": "products_ceneo"}, {"tool": 7}]}
    assert normalise_plan(doc, registry) == doc and normalise_plan(doc, registry) is not doc
    with pytest.raises(PlanError) as info:
        check_plan(normalise_plan(doc, registry), registry)
    assert [p.pointer for p in info.value.problems] == ["/plan/2/tool"]  # the step as written


def test_an_unknown_name_stays_for_the_check_to_report(registry):
    doc = {"plan": [{"tool": "products_genric"}], "expected_output": "products"}
    out = normalise_plan(doc, registry)
    assert out == doc
    with pytest.raises(PlanError, match="did you mean"):
        check_plan(out, registry)


def test_the_cli_shows_the_normalised_plan(tmp_path, registry):
    from tests.core.test_cli import curllm

    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PAGED), encoding="utf-8")
    out = curllm("--plan", str(path), "--url", "https://shop.example/", "--plan-only")
    assert out.returncode == 0, out.stderr
    shown = json.loads(out.stdout)
    assert shown["plan"] == check_plan(normalise_plan(PAGED, registry), registry).to_dict()["plan"]
    assert shown["plan"][0]["parameters"]["extract"] == "extraction.products_ceneo"
