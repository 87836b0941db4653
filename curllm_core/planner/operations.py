"""Operations on items as plan steps: each operation fact (`facts.operations`) goes to the installed
validation tool that declares every parameter it states (filters, distinct, per group, aggregates),
on the listing's data key. Built-in and plugin tools take part alike, through their manifests; of
several, the best-scoring one (a plugin's that fits the instruction better wins).

The steps' places: filters with the other checks, then distinct and one per group, then the order
and the count (as before), then aggregates (a count of what is left), then the choice of fields.
An aggregate makes its summary the plan's answer (``expected_output``).
"""

from __future__ import annotations

import json
from typing import Any

from ..manifest import CATEGORY_ORDER, Category, Manifest
from .facts import Facts
from .fitting import complete, with_data_key
from .memo import properties_of
from .scoring import Scored
from .steps import Draft

#: Operation fact kinds, in the order their steps run, with their place among the validation steps
#: (second element of a step's order: checks 0, the order and the count 1, the fields 2).
OPERATIONS: dict[str, tuple[float, int]] = {
    "op_text": (0, 0),
    "op_number": (0, 0),
    "op_flags": (0, 0),
    "op_distinct": (0, 1 << 28),
    "op_group": (0, 1 << 29),
    "op_aggregate": (1.5, 0),
}
#: What a step of each operation does, for the reasoning line.
PURPOSE = {
    "op_text": "keeps the items whose text matches",
    "op_number": "keeps the items whose number lies within the bounds",
    "op_flags": "keeps the items with the flags asked for",
    "op_distinct": "keeps each item once",
    "op_group": "keeps one item of each group",
    "op_aggregate": "works out a number about the items",
}


def _requests(kind: str, value: Any) -> list[dict]:
    """The parameter sets an operation fact asks for (one step each)."""
    if kind == "op_aggregate":
        return [{"op": op, **({"field": field} if field else {})} for op, field in value]
    if isinstance(value, tuple):
        return [dict(v) for v in value]
    return [dict(value)]


def _keyed(m: Manifest, params: dict, out_key: str) -> dict:
    """``params`` on the listing: by the tool's ``data_key`` parameter, or its ``input_key`` one (a
    tool that reads the list and writes a key of its own, `validation.aggregate`)."""
    read = m.parameter_for("input_key")
    if m.parameter_for("data_key") is None and read is not None:
        return {**params, read: out_key}
    return with_data_key(m, params, out_key)


def _says(m: Manifest, kind: str) -> bool:
    """Whether one of the tool's examples states the operation ``kind`` ("linki bez duplikatów")."""
    from .examples import example_facts

    return any(kind in ex_facts for _, _, ex_facts in example_facts(m))


def _taker(guards: list[Scored], kind: str, params: dict, out_key: str) -> tuple[Manifest, dict] | None:
    """The best-scoring validation tool that declares every parameter of ``params`` and takes them;
    for an operation without parameters ("without duplicates"), one whose example states it."""
    for s in guards:
        m = s.manifest
        props = properties_of(m)
        if any(name not in props for name in params) or (not params and not _says(m, kind)):
            continue
        keyed = _keyed(m, dict(params), out_key)
        if complete(m, keyed):
            return m, keyed
    return None


def operation_steps(
    facts: Facts, guards: list[Scored], out_key: str, skip: set[str] | frozenset = frozenset()
) -> tuple[list[Draft], list[str]]:
    """The steps of the operations the instruction states (but those of ``skip``: a tool's example
    took them), and the operations no installed tool takes (named for the plan's warnings)."""
    steps: list[Draft] = []
    missing: list[str] = []
    for kind, (second, third) in OPERATIONS.items():
        fact = facts.fact(kind)
        if fact is None or kind in skip:
            continue
        for index, params in enumerate(_requests(kind, fact.value)):
            taken = _taker(guards, kind, params, out_key)
            if taken is None:
                missing.append(fact.text.strip())
                continue
            m, keyed = taken
            said = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in params.items())
            steps.append(
                Draft(
                    m,
                    keyed,
                    f"{PURPOSE[kind]}: {said} from {fact.text.strip()!r}",
                    (CATEGORY_ORDER[Category.VALIDATION], second, third + fact.start, index),
                    group=kind,
                )
            )
    return steps, missing


def answer_key(steps: list[Draft], out_key: str) -> str:
    """The plan's answer: an aggregate's output key when one is planned, else the listing's key."""
    for st in steps:
        if st.group == "op_aggregate":
            produced = [k for k in st.manifest.produces if k != out_key]
            if produced:
                return produced[0]
    return out_key
