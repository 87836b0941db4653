"""readiness.verdict: the pure decision "is the content there" from one look at a page."""

from __future__ import annotations

import json

from curllm_core.readiness import QUIET_MS, STALE_MS, Probe, verdict


def test_a_complete_quiet_page_is_ready():
    assert verdict(Probe()) is None
    assert verdict(Probe(quiet_ms=QUIET_MS, age_ms=300)) is None


def test_a_document_still_parsing_is_not_ready():
    assert verdict(Probe(state="loading")) == "the document is still loading"


def test_requests_in_flight_are_waited_for_but_long_polls_are_not():
    assert verdict(Probe(inflight=2)) == "2 requests in flight"
    assert verdict(Probe(inflight=0, long_polls=3)) is None


def test_a_dom_still_changing_is_not_ready():
    assert "changed 40 ms ago" in verdict(Probe(quiet_ms=40))


def test_placeholders_are_waited_for_until_they_go_stale():
    young = Probe(signs=("class skeleton",), quiet_ms=1_000_000, age_ms=300)
    assert verdict(young) == "class skeleton shown"
    assert verdict(Probe(signs=('text "Loading…"',), quiet_ms=200, age_ms=9000)) is not None
    # nothing happened for STALE_MS beside the placeholder: it is part of the page
    assert verdict(Probe(signs=("class spinner",), quiet_ms=STALE_MS, age_ms=STALE_MS)) is None
    # but a timer about to fire beside a skeleton is the page about to render
    assert verdict(Probe(signs=("class skeleton",), quiet_ms=5000, age_ms=5000, timer_ms=300)) is not None


def test_timers_count_only_when_strict():
    busy = Probe(timer_ms=800)
    assert verdict(busy) is None
    assert verdict(busy, strict=True) == "the page has work scheduled in 800 ms"


def test_probe_reads_the_browser_answer():
    p = Probe.from_json(
        json.dumps({"state": "interactive", "inflight": 1, "signs": ["aria-busy"], "timer_ms": 5})
    )
    assert (p.state, p.inflight, p.signs, p.timer_ms) == ("interactive", 1, ("aria-busy",), 5)
