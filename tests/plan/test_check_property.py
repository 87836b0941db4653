"""No plan document, however malformed, makes the checker raise anything but PlanError."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curllm_core.errors import PlanError
from curllm_core.manifest import manifests_dir
from curllm_core.plan import check_plan
from curllm_core.registry import Registry

REGISTRY = Registry()
REGISTRY.register(manifests_dir() / "validation")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
tool_names = st.sampled_from(
    ["price_range_check", "validation.required_fields", "required_fields", "nope", "", "a.b.c"]
)
steps = st.fixed_dictionaries(
    {"tool": tool_names | json_values},
    optional={
        "parameters": st.dictionaries(
            st.sampled_from(["min", "max", "mode", "fields", "key", "x"]), json_values, max_size=4
        )
        | json_values,
        "id": json_values | st.text(max_size=5),
        "input": json_values | st.text(max_size=5),
        "fallback": tool_names | json_values,
        "retries": json_values,
        "timeout_ms": json_values,
        "optional": json_values,
        "description": json_values,
    },
)
plans = st.fixed_dictionaries(
    {"plan": st.lists(steps, max_size=4) | json_values},
    optional={
        "expected_output": json_values | st.sampled_from(["products", "articles"]),
        "fallback": tool_names | json_values,
        "extra": json_values,
    },
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=plans | json_values, keys=st.sets(st.sampled_from(["products", "articles"])))
def test_checker_raises_only_plan_errors(doc, keys):
    try:
        plan = check_plan(doc, REGISTRY, initial_keys=keys)
    except PlanError as e:
        assert e.problems, "a PlanError always lists its problems"
        return
    assert plan.steps


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=plans | json_values)
def test_normalising_never_raises_never_touches_its_input_and_is_idempotent(doc):
    import copy

    from curllm_core.plan import normalise_plan

    before = copy.deepcopy(doc)
    once = normalise_plan(doc, REGISTRY)
    assert doc == before or doc != doc  # NaN is unequal to itself: compare what can be compared
    assert normalise_plan(once, REGISTRY) == once or once != once
