"""`curllm_core.safe_regex.UntrustedPattern`: a pattern from a plan is refused when it is not a valid
or reasonable pattern, and matching stops with BAD_PARAMS when it backtracks past its time budget."""

from __future__ import annotations

import time

import pytest

from curllm_core.errors import BadParams
from curllm_core.safe_regex import MAX_PATTERN_LENGTH, UntrustedPattern


def test_it_matches_case_insensitively_like_re():
    pattern = UntrustedPattern(r"/oferta/(\d+)")
    assert pattern.search("https://x.example/OFERTA/123").group(1) == "123"
    assert pattern.search("no offer here") is None


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("(unclosed", "not a valid regular expression"),
        ("a" * (MAX_PATTERN_LENGTH + 1), "at most"),
        (42, "must be a string"),
    ],
)
def test_a_bad_pattern_is_refused_naming_what_it_is(value, says):
    with pytest.raises(BadParams) as e:
        UntrustedPattern(value, what="parameter match")
    assert says in e.value.message and e.value.code == "BAD_PARAMS"


def test_catastrophic_backtracking_stops_within_its_budget():
    # Unbounded, this runs for hours; the regex module checks its timeout every so often (1-2 s on
    # a loaded machine), so the bound here says "stopped", not "stopped at 0.2 s".
    pattern = UntrustedPattern(r"(a|aa)+$", what="match", budget_s=0.2)
    started = time.perf_counter()
    with pytest.raises(BadParams) as e:
        pattern.search("a" * 60 + "!")
    assert time.perf_counter() - started < 15
    assert "backtracks" in e.value.message and "match" in e.value.message
    with pytest.raises(BadParams):  # the budget is spent: every later match is refused at once
        pattern.search("aaa")


def test_the_budget_is_shared_by_all_matches_of_one_pattern():
    pattern = UntrustedPattern(r"x", budget_s=1.0)
    for _ in range(100):
        pattern.search("a" * 1000 + "x")
    assert 0 < pattern.spent_s < 1.0
