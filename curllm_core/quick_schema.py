"""A quick "certainly valid" for JSON documents: a JSON Schema of the plain keywords tool manifests and
the plan schema use (types, properties, required, items, bounds, patterns, enums; local ``$ref``,
``patternProperties``, ``if``/``then``/``else`` on the keys an object has, ``anyOf`` and ``allOf``)
compiled once to Python checks.

jsonschema walks a schema anew for every node of every document (a step's output of 24 products:
~2 ms, every step of every task). A compiled check answers in a fraction of that, and only ever
says "valid": a document it does not accept, or a schema with a keyword it does not know
(``oneOf``, ``not``, a ``$ref`` to another document...), goes to jsonschema as before, which finds
and words the errors. Where it is unsure (a number type it does not know, an enum of numbers) it answers False, never True.
``format`` is an annotation here, as it is for a validator made without a format checker.

A plan document is checked this way too (`plan.check`): a valid plan needs no jsonschema at all,
whose import costs ~0.1 s of a batch's start.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

#: Keywords the compiled check understands (other keywords: see `VALIDATING`).
KNOWN = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "enum",
    "const",
    "pattern",
    "format",
    "description",
    "title",
    "examples",
    "default",
    "$comment",
    "$schema",
    "$id",  # at the root only: elsewhere it would move what a ``$ref`` means
    "$defs",
    "$ref",  # "#/$defs/NAME" only
    "if",  # only ``required`` (an exact test: which branch applies is never in doubt)
    "then",
    "else",
    "patternProperties",
    "anyOf",  # valid when a branch certainly is (a price filter's "min or max")
    "allOf",
}


#: What Draft 2020-12 validates with, or resolves references by (jsonschema's
#: ``Draft202012Validator.VALIDATORS`` and the anchors; a test says so): one of these outside `KNOWN`
#: anywhere in a schema, no quick check. Any other keyword is an annotation to jsonschema as to this
#: check (a manifest's ``role`` or ``optional`` beside a parameter's type).
VALIDATING = {
    "$dynamicRef",
    "$ref",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
    "additionalProperties",
    "allOf",
    "anyOf",
    "const",
    "contains",
    "dependentRequired",
    "dependentSchemas",
    "enum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "format",
    "if",
    "items",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "multipleOf",
    "not",
    "oneOf",
    "pattern",
    "patternProperties",
    "prefixItems",
    "properties",
    "propertyNames",
    "required",
    "type",
    "unevaluatedItems",
    "unevaluatedProperties",
    "uniqueItems",
}


class _Unknown(Exception):
    """The schema uses what the quick check does not know."""


class _Root:
    """The schema being compiled: where ``$ref`` looks, and the definitions compiled so far."""

    def __init__(self, schema: Any):
        self.schema = schema
        self.made: dict[str, Check] = {}

    def ref(self, ref: Any) -> Check:
        defs = self.schema.get("$defs") if isinstance(self.schema, dict) else None
        name = ref[len("#/$defs/") :] if isinstance(ref, str) and ref.startswith("#/$defs/") else None
        if not name or not isinstance(defs, dict) or name not in defs or "/" in name or "~" in name:
            raise _Unknown
        if name not in self.made:
            made: list[Check] = []  # a definition may refer to itself: compiled once, called late
            self.made[name] = lambda x: made[0](x)
            made.append(_compile(defs[name], self))
        return self.made[name]


def _is_number(x: Any) -> bool:
    return type(x) is int or type(x) is float  # bool, Decimal and the like: jsonschema decides


TYPES: dict[str, Check] = {
    "null": lambda x: x is None,
    "boolean": lambda x: type(x) is bool,
    "integer": lambda x: type(x) is int or (type(x) is float and x.is_integer()),
    "number": _is_number,
    "string": lambda x: type(x) is str,
    "array": lambda x: type(x) is list,
    "object": lambda x: type(x) is dict,
}


def _one_of(values: set) -> Check:
    return lambda x: (x is None or type(x) is str) and x in values


def _bound(test: Callable[[Any, Any], bool], bound: Any) -> Check:
    """A bound on numbers: other types are no numbers to it; a bool is left to jsonschema; NaN fails
    no bound in jsonschema either."""
    return lambda x: type(x) is not bool and (not _is_number(x) or test(x, bound) or x != x)


def _size(kind: type[str] | type[list], test: Callable[[Any, Any], bool], bound: int) -> Check:
    """A bound on the length of a string or an array (other types are not its business)."""

    def check(x: Any) -> bool:
        return type(x) is not kind or test(len(x), bound)

    return check


_made: dict[int, tuple[Any, Check]] = {}


def certainly_valid(schema: Any) -> Check:
    """`compile_check` of ``schema``, made once per schema object (kept with it: its id is never reused
    meanwhile); for a schema it cannot take, a check that never says yes."""
    made = _made.get(id(schema))
    if made is None or made[0] is not schema:
        made = _made[id(schema)] = (schema, compile_check(schema) or _never)
    return made[1]


def _never(_doc: Any) -> bool:
    return False


def compile_check(schema: Any) -> Check | None:
    """A predicate that is true only for documents ``schema`` accepts (Draft 2020-12, no format
    checker); None when the schema validates with a keyword outside `KNOWN` (see `VALIDATING`), or
    has a ``$ref`` it cannot follow here."""
    try:
        return _compile(schema, _Root(schema))
    except _Unknown:
        return None


def _compile(schema: Any, root: _Root) -> Check:
    if schema is True:
        return lambda x: True
    if schema is False or not isinstance(schema, dict):
        if schema is False:
            return lambda x: False
        raise _Unknown
    if (set(schema) - KNOWN) & VALIDATING or ("$id" in schema and schema is not root.schema):
        raise _Unknown
    checks: list[Check] = []
    if "$ref" in schema:
        checks.append(root.ref(schema["$ref"]))
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not names or any(not isinstance(n, str) or n not in TYPES for n in names):
            raise _Unknown
        tests = [TYPES[n] for n in names]
        checks.append(tests[0] if len(tests) == 1 else lambda x: any(t(x) for t in tests))
    for word in ("enum", "const"):
        if word in schema:
            allowed = schema[word] if word == "enum" else [schema[word]]
            if not isinstance(allowed, list) or any(not (v is None or type(v) is str) for v in allowed):
                raise _Unknown  # numbers and booleans compare in ways left to jsonschema
            values = set(allowed)
            checks.append(_one_of(values))
    checks += _number_checks(schema)
    checks += _string_checks(schema)
    checks += _array_checks(schema, root)
    checks += _object_checks(schema, root)
    if "if" in schema:
        checks.append(_condition(schema, root))
    checks += _combined(schema, root)
    if not checks:
        return lambda x: True
    if len(checks) == 1:
        return checks[0]
    return lambda x: all(c(x) for c in checks)


def _number_checks(schema: dict) -> list[Check]:
    out: list[Check] = []
    for word, test in (
        ("minimum", operator.ge),
        ("maximum", operator.le),
        ("exclusiveMinimum", operator.gt),
        ("exclusiveMaximum", operator.lt),
    ):
        if word in schema:
            bound = schema[word]
            if not _is_number(bound):
                raise _Unknown
            # Other types are not numbers to this keyword; a bool is left to jsonschema.
            out.append(_bound(test, bound))
    return out


def _string_checks(schema: dict) -> list[Check]:
    out: list[Check] = []
    for word, test in (("minLength", operator.ge), ("maxLength", operator.le)):
        if word in schema:
            bound = schema[word]
            if type(bound) is not int:
                raise _Unknown
            out.append(_size(str, test, bound))
    if "pattern" in schema:
        if not isinstance(schema["pattern"], str):
            raise _Unknown
        try:
            pattern = re.compile(schema["pattern"])
        except re.error:
            raise _Unknown from None
        out.append(lambda x: type(x) is not str or pattern.search(x) is not None)
    return out


def _array_checks(schema: dict, root: _Root) -> list[Check]:
    out: list[Check] = []
    for word, test in (("minItems", operator.ge), ("maxItems", operator.le)):
        if word in schema:
            bound = schema[word]
            if type(bound) is not int:
                raise _Unknown
            out.append(_size(list, test, bound))
    if "items" in schema:
        item = _compile(schema["items"], root)
        out.append(lambda x: type(x) is not list or all(item(v) for v in x))
    return out


def _required(required: Any) -> list[str]:
    if not isinstance(required, list) or any(type(k) is not str for k in required):
        raise _Unknown
    return required


def _condition(schema: dict, root: _Root) -> Check:
    """``if``/``then``/``else`` where ``if`` asks only which keys an object has: the branch is certain."""
    test = schema["if"]
    if not isinstance(test, dict) or set(test) - {"required", "description", "$comment"}:
        raise _Unknown
    keys = _required(test.get("required", []))
    then, other = _compile(schema.get("then", True), root), _compile(schema.get("else", True), root)
    return lambda x: (then if type(x) is not dict or all(k in x for k in keys) else other)(x)


def _combined(schema: dict, root: _Root) -> list[Check]:
    """``allOf``: every branch certainly valid; ``anyOf``: one of them. Each branch is checked alone,
    as jsonschema does (a branch's ``additionalProperties`` sees that branch's properties only)."""
    out: list[Check] = []
    for word in ("allOf", "anyOf"):
        if word in schema:
            branches = schema[word]
            if not isinstance(branches, list) or not branches:
                raise _Unknown
            out.append(_all_of(branches, root) if word == "allOf" else _any_of(branches, root))
    return out


def _all_of(branches: list, root: _Root) -> Check:
    tests = [_compile(branch, root) for branch in branches]
    return lambda x: all(t(x) for t in tests)


def _any_of(branches: list, root: _Root) -> Check:
    tests = [_compile(branch, root) for branch in branches]
    return lambda x: any(t(x) for t in tests)


def _object_checks(schema: dict, root: _Root) -> list[Check]:
    out: list[Check] = []
    if "required" in schema:
        required = _required(schema["required"])
        out.append(lambda x: type(x) is not dict or all(k in x for k in required))
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise _Unknown
    known = {key: _compile(sub, root) for key, sub in properties.items()}
    patterns_of = schema.get("patternProperties", {})
    if not isinstance(patterns_of, dict):
        raise _Unknown
    patterns: list[tuple[re.Pattern[str], Check]] = []
    for pattern, sub in patterns_of.items():
        try:
            patterns.append((re.compile(pattern), _compile(sub, root)))  # searched, as jsonschema does
        except re.error:
            raise _Unknown from None
    extra = schema.get("additionalProperties", True)
    rest = _compile(extra, root)
    if known or patterns or extra is not True:

        def fields(x: Any) -> bool:
            if type(x) is not dict:
                return True
            for key, value in x.items():
                check = known.get(key)
                if check is not None and not check(value):
                    return False
                matched = check is not None
                for pattern, sub in patterns:
                    if type(key) is str and pattern.search(key):
                        if not sub(value):
                            return False
                        matched = True
                if not matched and (type(key) is not str or not rest(value)):
                    return False
            return True

        out.append(fields)
    return out
