"""Manifest format: every built-in manifest is valid; each kind of bad manifest is reported precisely."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import pytest
from jsonschema import Draft202012Validator
from pydantic import Field

from curllm_core.errors import ManifestError
from curllm_core.manifest import Manifest, check_manifest, load_manifest, manifest_schema, manifests_dir

BUILTIN = sorted(p for p in manifests_dir().rglob("*.json") if not p.name.endswith(".schema.json"))


def good_doc(**overrides) -> dict:
    doc = {
        "name": "cheap_items",
        "version": "1.0.0",
        "description": "Keep cheap items.",
        "category": "validation",
        "triggers": ["cheap"],
        "parameters": {"type": "object", "properties": {"limit": {"type": "number"}}},
        "output_schema": {"type": "object"},
        "entrypoint": "curllm_core.tools.validation.price_range_check:run",
        "examples": [{"instruction": "cheap ones", "parameters": {"limit": 5}}],
        "consumes": ["products"],
        "produces": ["products"],
        "dependencies": [],
    }
    doc.update(overrides)
    return doc


def test_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(manifest_schema())


def test_schema_and_dataclass_name_the_same_fields():
    schema_fields = set(manifest_schema()["properties"]) - {"$schema"}
    model_fields = set(Manifest.__dataclass_fields__) - {"extra", "source", "path", "entrypoint_from"}
    assert schema_fields == model_fields


@pytest.mark.parametrize("path", BUILTIN, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_builtin_manifest_is_valid(path: Path):
    doc = json.loads(path.read_text())
    assert check_manifest(doc, source=str(path)) == []
    assert path.parent.name == doc["category"] and path.stem == doc["name"]


def test_builtin_manifests_cover_four_categories():
    assert {p.parent.name for p in BUILTIN} <= {"extraction", "forms", "navigation", "validation"}


def test_good_manifest_round_trips():
    m = Manifest.from_dict(good_doc(), source="test")
    assert m.key == "validation.cheap_items"
    assert not m.needs_page
    assert check_manifest(m.to_dict()) == []


@pytest.mark.parametrize(
    "overrides, pointer, words",
    [
        ({"category": "magic"}, "/category", "is not one of"),
        ({"name": "Bad Name"}, "/name", "does not match"),
        ({"triggers": ["(unclosed"]}, "/triggers/0", "not a valid regular expression"),
        (
            {"parameters": {"type": "object", "properties": {"x": {"type": "nonsense"}}}},
            "/parameters/properties/x/type",
            "not a valid JSON Schema",
        ),
        ({"output_schema": {"type": 12}}, "/output_schema/type", "not a valid JSON Schema"),
        (
            {"examples": [{"instruction": "x", "parameters": {"limit": "ten"}}]},
            "/examples/0/parameters/limit",
            "example parameters do not match",
        ),
        ({"entrypoint": "no colon"}, "/entrypoint", "does not match"),
        ({"timeout_ms": 0}, "/timeout_ms", "minimum"),
        ({"surprise": 1}, "", "Additional properties"),
    ],
)
def test_each_kind_of_bad_manifest_names_pointer_and_reason(overrides, pointer, words):
    problems = check_manifest(good_doc(**overrides), source="x.json")
    assert problems, "expected a problem"
    assert any(p.pointer == pointer and words in p.message for p in problems), [str(p) for p in problems]
    assert all(p.source == "x.json" for p in problems)


def test_missing_required_field():
    doc = good_doc()
    del doc["version"]
    assert any("'version' is a required property" in p.message for p in check_manifest(doc))


def test_entrypoint_is_optional_and_found_by_convention():
    doc = good_doc()
    del doc["entrypoint"]
    assert check_manifest(doc) == []
    m = Manifest.from_dict(doc)
    assert m.entrypoint == f"curllm_core.tools.{m.category}.{m.name}:run"
    assert m.entrypoint_from == "builtin" and "entrypoint" in m.to_dict()


def test_optional_true_means_not_required():
    doc = good_doc(
        parameters={
            "type": "object",
            "required": ["a", "b"],
            "properties": {"a": {"type": "string"}, "b": {"type": "string", "optional": True}},
        },
        examples=[{"instruction": "x", "parameters": {"a": "1"}}],
    )
    assert check_manifest(doc) == []
    assert Manifest.from_dict(doc).parameters["required"] == ["a"]


def test_broken_json_names_line_and_column(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",\n  "version": }')
    with pytest.raises(ManifestError) as info:
        load_manifest(bad)
    assert "line 2" in str(info.value) and str(bad) in str(info.value)


def test_x_fields_are_kept():
    m = Manifest.from_dict(good_doc(**{"x-author": "me"}))
    assert m.to_dict()["x-author"] == "me"


def _layouts(**layout) -> dict:
    base = {"item": "div.row", "fields": {"name": "h2", "price": {"css": ".price", "type": "price"}}}
    return {"selectors": {"layouts": [{**base, **layout}]}}


@pytest.mark.parametrize(
    "overrides, pointer, words",
    [
        (
            _layouts(fields={"price": {"css": ".p", "type": "prize"}}),
            "/selectors/layouts/0/fields/price/type",
            "is not one of",
        ),
        (_layouts(colour="red"), "/selectors/layouts/0", "unknown field(s) 'colour'"),
        (_layouts(item=""), "/selectors/layouts/0/item", "should be non-empty"),
        (_layouts(item="div[["), "/selectors/layouts/0/item", "not a valid CSS selector"),
        (
            _layouts(fields={"name": [{"css": ["h2", "a[["]}]}),
            "/selectors/layouts/0/fields/name/0/css/1",
            "not a valid CSS",
        ),
        (
            _layouts(fields={"name": {"regex": "(x"}}),
            "/selectors/layouts/0/fields/name/regex",
            "regular expression",
        ),
        (
            _layouts(fields={"name": {"from": "previous"}}),
            "/selectors/layouts/0/fields/name/from",
            "is not one of",
        ),
        (_layouts(require=["title"]), "/selectors/layouts/0/require/0", "does not define"),
        ({"selectors": {"layouts": []}}, "/selectors/layouts", "should be non-empty"),
        ({"selectors": {"origin": "news.example"}}, "/selectors/origin", "does not match"),
    ],
)
def test_selectors_layouts_are_checked_like_the_rest(overrides, pointer, words):
    problems = check_manifest(good_doc(**overrides), source="x.json")
    assert any(p.pointer == pointer and words in p.message for p in problems), [str(p) for p in problems]


def test_other_selectors_keys_are_the_tools_own():
    doc = good_doc(
        selectors={
            "item": ["article"],
            "sponsored_text": "^Ad$",
            "layouts": _layouts()["selectors"]["layouts"],
        }
    )
    assert check_manifest(doc) == []


# --- parameters with a role ------------------------------------------------------------------------


def _with_params(**props) -> dict:
    return good_doc(parameters={"type": "object", "properties": props}, examples=[])


def test_a_role_is_declared_in_the_schema_or_given_by_the_conventional_name():
    declared = Manifest.from_dict(
        _with_params(items={"type": "string", "role": "data_key"}, key={"type": "string"})
    )
    assert declared.parameter_for("data_key") == "items"  # declared: the name "key" means nothing
    conventional = Manifest.from_dict(_with_params(key={"type": "string"}, extract={"type": "string"}))
    assert conventional.parameter_for("data_key") == "key" and conventional.parameter_for("tool") == "extract"
    assert conventional.parameter_for("tool_parameters") is None


@pytest.mark.parametrize(
    "props, pointer, words",
    [
        ({"a": {"role": "data_key"}, "b": {"role": "data_key"}}, "/parameters/properties/b/role", "already"),
        ({"p": {"type": "object", "role": "tool_parameters"}}, "/parameters/properties/p/role", "role tool"),
        ({"p": {"type": "string", "role": "colour"}}, "/parameters/properties/p/role", "is not one of"),
    ],
)
def test_bad_roles_are_reported(props, pointer, words):
    problems = check_manifest(_with_params(**props), source="x.json")
    assert any(p.pointer == pointer and words in p.message for p in problems), [str(p) for p in problems]


def test_the_plan_check_follows_a_declared_role_not_a_name():
    from curllm_core.plan import check_plan, step_io
    from curllm_core.registry import Registry

    registry = Registry()
    items = {
        "type": "object",
        "properties": {"list": {"type": "string", "role": "data_key", "default": "products"}},
    }
    registry.add(Manifest.from_dict(good_doc(name="keep_some", parameters=items, examples=[])))
    manifest = registry.resolve("validation.keep_some")
    assert step_io(manifest, {"list": "headings"}, registry) == (["headings"], ["headings"])
    plan = check_plan(
        {"plan": [{"tool": "keep_some", "parameters": {"list": "headings"}}], "expected_output": "headings"},
        registry,
        initial_keys={"headings"},
    )
    assert plan.steps[0].parameters == {"list": "headings"}


def test_a_code_first_tool_declares_a_role_through_its_signature():
    # Annotated and Field at module level: @tool resolves the signature's names in the module.
    from curllm_core import tool

    @tool(category="validation", consumes=["products"], produces=["products"], dependencies=[])
    async def keep_listed(
        ctx, items: Annotated[str, Field(json_schema_extra={"role": "data_key"})] = "products"
    ):
        """Keep the items.

        Args:
            items: Data key of the item list.
        """
        return {}

    assert keep_listed.manifest.parameters["properties"]["items"]["role"] == "data_key"
    assert keep_listed.manifest.parameter_for("data_key") == "items"  # by the role, not the name
