"""quick_schema: the compiled check never says "valid" where jsonschema finds an error, on every built-in
tool's output schema and on schemas of every keyword it knows, over documents made from each schema
and broken in every way a tool's output can be; and it does say "valid" for real outputs."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from curllm_core.quick_schema import compile_check

MANIFESTS = Path(__file__).resolve().parent.parent / "tools_manifests"
SCHEMAS = sorted(
    (path.relative_to(MANIFESTS).as_posix(), doc["output_schema"])
    for path in MANIFESTS.rglob("*.json")
    if isinstance(doc := json.loads(path.read_text(encoding="utf-8")), dict) and "output_schema" in doc
)

ODD_VALUES = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    2.5,
    -0.5,
    float("nan"),
    "",
    "x",
    "PLN",
    "pln",
    [],
    [1],
    {},
    {"a": 1},
]


def make(schema, rng: random.Random, depth: int = 0):
    """A document that tries to follow ``schema`` (it need not: the test compares both checks)."""
    if not isinstance(schema, dict):
        return rng.choice(ODD_VALUES)
    if "enum" in schema:
        return rng.choice(schema["enum"])
    types = schema.get("type", "object" if "properties" in schema else "string")
    kind = rng.choice(types) if isinstance(types, list) else types
    if kind == "object":
        props = schema.get("properties", {})
        return {
            k: make(v, rng, depth + 1)
            for k, v in props.items()
            if k in schema.get("required", []) or rng.random() < 0.7
        }
    if kind == "array":
        return [
            make(schema.get("items", {}), rng, depth + 1)
            for _ in range(rng.randint(0, 3 if depth < 3 else 0))
        ]
    if kind == "integer":
        return rng.randint(0, 50)
    if kind == "number":
        return rng.choice([rng.randint(0, 500), round(rng.uniform(0, 500), 2)])
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    return rng.choice(["Laptop", "https://example.com/p/1", "PLN", "EUR", "2024-05-01", "a"])


def paths(doc, here=()):
    yield here
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from paths(v, (*here, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from paths(v, (*here, i))


def broken(doc, rng: random.Random):
    """``doc`` with one part changed: another value, removed, or an unknown key added."""
    doc = copy.deepcopy(doc)
    where = rng.choice(list(paths(doc)))
    if not where:
        return rng.choice(ODD_VALUES)
    parent = doc
    for step in where[:-1]:
        parent = parent[step]
    last = where[-1]
    roll = rng.random()
    if roll < 0.6:
        parent[last] = rng.choice(ODD_VALUES)
    elif roll < 0.8:
        del parent[last]
    elif isinstance(parent, dict):
        parent["unexpected_" + str(rng.randint(0, 9))] = rng.choice(ODD_VALUES)
    else:
        parent.append(rng.choice(ODD_VALUES))
    return doc


def agree(schema, docs) -> int:
    """How many of ``docs`` the quick check accepted; fails on one it accepts and jsonschema does not."""
    check = compile_check(schema)
    assert check is not None, "a built-in output schema the quick check cannot take"
    validator = Draft202012Validator(schema)
    accepted = 0
    for doc in docs:
        if check(doc):
            accepted += 1
            assert validator.is_valid(doc), (doc, next(validator.iter_errors(doc)).message)
    return accepted


@pytest.mark.parametrize("name,schema", SCHEMAS, ids=[n for n, _ in SCHEMAS])
def test_never_valid_where_jsonschema_is_not(name, schema):
    rng = random.Random(name)
    docs = [make(schema, rng) for _ in range(100)]
    docs += [broken(d, rng) for d in docs for _ in range(3)]
    valid = sum(1 for d in docs if Draft202012Validator(schema).is_valid(d))
    accepted = agree(schema, docs)
    # It is quick where it counts: it takes (nearly) every document jsonschema takes.
    assert accepted >= valid * 0.9, (accepted, valid)


KEYWORDS = {
    "type": {"type": ["integer", "null"]},
    "integer": {"type": "integer", "minimum": 1},
    "bounds": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10, "maximum": 9},
    "strings": {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[A-Z]+$"},
    "enum": {"enum": ["a", "b", None]},
    "const": {"const": "x"},
    "arrays": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string"}},
    "closed": {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": False,
    },
    "rest": {"type": "object", "additionalProperties": {"type": "boolean"}},
    "untyped bounds": {"minimum": 0, "minLength": 1},
    "booleans": {"type": "object", "properties": {"yes": True, "no": False}},
    "refs": {
        "$defs": {"tree": {"type": ["array", "integer"], "items": {"$ref": "#/$defs/tree"}}},
        "$ref": "#/$defs/tree",
        "maxItems": 2,
    },
    "patterns": {
        "type": "object",
        "properties": {"x-a": {"minimum": 5}, "a": {"type": "integer"}},
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": False,
    },
    "conditions": {
        "type": "object",
        "if": {"required": ["map"]},
        "then": {"properties": {"tool": False}},
        "else": {"required": ["tool"]},
    },
    "annotations": {
        "type": "object",
        "properties": {"a": {"type": "integer", "role": "limit", "optional": True}},
    },
    "any of": {
        "type": "object",
        "properties": {"a": {"type": ["integer", "null"]}, "x": True},
        "anyOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"required": ["x"]}],
        "additionalProperties": False,
    },
    "all of": {"allOf": [{"type": ["integer", "string"]}, {"minimum": 1, "minLength": 2}]},
}


@pytest.mark.parametrize("name", list(KEYWORDS))
def test_every_keyword_it_knows(name):
    schema = KEYWORDS[name]
    rng = random.Random(name)
    docs = list(ODD_VALUES) + [{"a": v} for v in ODD_VALUES] + [[v] for v in ODD_VALUES]
    docs += [[v, w] for v in ODD_VALUES for w in ODD_VALUES[:5]] + [{"yes": v, "no": v} for v in ODD_VALUES]
    docs += ["AB", "ABCD", "ABCDE", "ab", 5, 10, 0.5, 1.5, {"a": 1, "b": 2}, {"x": True}, {"x": 1}]
    docs += [
        [[1]],
        [[]],
        [[1, [2, "x"]]],
        [1, 2, 3],
        {"x-a": 3},
        {"x-a": 7},
        {"x-b": "s"},
        {"x-b": 1, "a": 2},
    ]
    docs += [{"map": 1}, {"map": 1, "tool": "t"}, {"tool": "t"}, {"tool": "t", "map": None}]
    docs += [broken(d, rng) for d in docs if isinstance(d, (dict, list)) and d]
    assert agree(schema, docs) > 0


def test_unknown_keywords_get_no_quick_check():
    for schema in (
        {"$ref": "other.json#/$defs/x"},
        {"$ref": "#/$defs/missing", "$defs": {}},
        {"properties": {"a": {"$id": "https://example.test/a", "$ref": "#/$defs/x"}}, "$defs": {"x": {}}},
        {"if": {"type": "string"}, "then": {"minLength": 1}},
        {"anyOf": [{"type": "string"}, {"oneOf": []}]},
        {"allOf": []},
        {"type": "object", "patternProperties": {"(": {}}},
        {"type": "array", "items": [{"type": "string"}]},
        {"enum": [1, 2]},
        {"type": "decimal"},
        {"type": "string", "pattern": "("},
    ):
        assert compile_check(schema) is None, schema


def test_it_knows_which_keywords_validate():
    """Every keyword jsonschema validates with is either compiled here or refuses the quick check;
    the rest are annotations (a manifest's ``role``) to both."""
    from curllm_core.quick_schema import KNOWN, VALIDATING

    assert set(Draft202012Validator.VALIDATORS) <= VALIDATING
    assert compile_check({"type": "integer", "role": "limit"}) is not None
    for word in VALIDATING - KNOWN:
        assert compile_check({word: {}}) is None, word


def test_plans_are_checked_without_jsonschema():
    """The plan schema compiles (a valid plan needs no jsonschema: ~0.1 s of a batch's start); it never
    takes a document jsonschema refuses (a map step with a tool, a missing tool, an unknown field),
    over the example plans, plans made from the schema and every way of breaking them."""
    from curllm_core.plan.model import plan_schema

    schema = plan_schema()
    check = compile_check(schema)
    assert check is not None
    examples = Path(__file__).resolve().parent.parent / "examples"
    files = [*sorted(examples.glob("plans/*.json")), examples / "plugin_minimal" / "plan.json"]
    plans = [doc for f in files if "plan" in (doc := json.loads(f.read_text(encoding="utf-8")))]
    mapped = {
        "plan": [
            {"tool": "extraction.products_generic", "parameters": {"limit": 5}},
            {"map": {"over": "products", "open": "url", "steps": [{"tool": "extraction.product_detail"}]}},
        ],
        "x-team": {"any": "thing"},
    }
    plans.append(mapped)
    assert len(plans) >= 5 and all(check(p) for p in plans)
    rng = random.Random("plans")
    docs = plans + [make(schema, rng) for _ in range(100)]
    docs += [broken(d, rng) for d in docs for _ in range(20)]
    docs += [
        {"plan": [{**mapped["plan"][1], "tool": "x"}]},
        {"plan": [{"map": {"over": "a"}}]},
        {"plan": [{}]},
    ]
    assert agree(schema, docs) >= len(plans)


def test_a_real_products_output_is_taken():
    schema = dict(SCHEMAS)["extraction/products_generic.json"]
    output = {
        "products": [
            {
                "name": f"Produkt {i}",
                "price": 99.5 + i,
                "currency": "PLN",
                "url": f"http://127.0.0.1/p/{i}",
                "sponsored": False,
            }
            for i in range(24)
        ],
        "dropped": 3,
    }
    assert Draft202012Validator(schema).is_valid(output)
    assert compile_check(schema)(output)
    output["products"][5]["currency"] = "zł"  # and a wrong one is left to jsonschema
    assert not compile_check(schema)(output)
