"""What is on a page, end to end: the real `curllm batch` (rule planner, a real Chromium) on the test
site's pages of shadow roots, frames of both origins, modals, consent dialogs and embedded data
(tests/site_pagecontent.py), each pattern in several markups and languages, every answer exact.

One batch process runs every task (a browser each would cost seconds per page); a second local site
on another port is the other origin of the cross-origin frames.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import site_pagecontent as pages

pytestmark = pytest.mark.browser

#: Each pattern in two markups and two languages, turning: every markup and language meets every
#: kind of pattern (shadow roots, frames, consent, embedded data), and a task costs about a second.
VARIANTS = {
    pattern: [
        (pages.MARKUPS[(i + k) % len(pages.MARKUPS)], pages.LANGS[(i + k) % len(pages.LANGS)])
        for k in range(2)
    ]
    for i, pattern in enumerate(pages.PATTERNS)
}
#: What the default `--consent reject` must have pressed on each consent page (as the page posted it).
CHOICE = {
    "consent-banner": "reject",
    "consent-wall": "save-necessary",
    "consent-shadow": "reject",
    "consent-late": "reject",
    "consent-xframe": "reject",
    "consent-only": "accept",
}
ACTION = {
    "consent-banner": "rejected",
    "consent-wall": "saved",
    "consent-shadow": "rejected",
    "consent-late": "rejected",
    "consent-xframe": "rejected",
    "consent-only": "accepted",
}


@pytest.fixture(scope="module")
def other_site():
    """The other origin: the same site on another port of 127.0.0.1."""
    from site_server import start_site

    server = start_site()
    yield server.url
    server.stop()


def task_id(pattern: str, markup: str, lang: str) -> str:
    return f"{pattern}/{markup}-{lang}"


def run_batch(tasks: list[dict], tmp: Path, *args: str) -> tuple[dict[str, dict], list[dict]]:
    """The result line of each task by id, and every event, from one `curllm batch` process."""
    task_file, out, events = tmp / "tasks.jsonl", tmp / "out.jsonl", tmp / "events.jsonl"
    task_file.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update({"CURLLM_LOAD_PLUGINS": "", "CURLLM_CACHE_DIR": str(tmp / "cache")})
    done = subprocess.run(
        [sys.executable, "-m", "curllm_core", "batch", str(task_file), "--out", str(out), "--events", str(events),
         "-j", "2", "--no-progress", *args],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {line["id"]: line for line in lines}, [
        json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()
    ]


def pattern_tasks(site_url: str, other_site: str) -> list[dict]:
    """Every pattern in its markups and languages, as batch tasks."""
    port = other_site.rsplit(":", 1)[1]
    return [
        {
            "id": task_id(pattern, markup, lang),
            "url": f"{site_url}/pc/{pattern}/{markup}-{lang}.html?other={port}",
            "instruction": pages.INSTRUCTIONS[lang],
        }
        for pattern, variants in VARIANTS.items()
        for markup, lang in variants
    ]


def wrong_answers(results: dict[str, dict]) -> dict:
    """The tasks whose answer is not exactly the page's products: (ok, what came back, errors)."""
    wrong = {}
    for pattern, variants in VARIANTS.items():
        for markup, lang in variants:
            line = results[task_id(pattern, markup, lang)]
            got = [
                (p["name"], p["price"], p["currency"]) for p in (line.get("data") or {}).get("products", [])
            ]
            want = [(n, p, pages.CURRENCY[lang]) for n, p in pages.PRODUCTS[lang]]
            if not line["ok"] or got != want:
                wrong[task_id(pattern, markup, lang)] = (line["ok"], got, line.get("errors"))
    return wrong


def test_every_pattern_in_every_markup_and_language_is_read_exactly(site_url, other_site, tmp_path):
    """In the browser: every answer exact, and every consent dialog answered with the least consent."""
    before = len(pages.CHOICES)
    results, events = run_batch(pattern_tasks(site_url, other_site), tmp_path, "--engine", "browser")
    wrong = wrong_answers(results)
    assert not wrong, wrong
    # Every consent page was answered with the least consent it offers, and the events say so.
    choices = dict(pages.CHOICES[before:])
    consent = {e["task"]: e["data"] for e in events if e["type"] == "consent"}
    for pattern, choice in CHOICE.items():
        for markup, lang in VARIANTS[pattern]:
            assert choices[f"/pc/{pattern}/{markup}-{lang}.html"] == choice, (pattern, markup, lang)
            event = consent[task_id(pattern, markup, lang)]
            assert (event["action"], event["mode"]) == (ACTION[pattern], "reject")
            assert event.get("frame", False) == (pattern == "consent-xframe")
    # Pages without a consent dialog report none.
    assert set(consent) == {task_id(p, m, lang) for p in CHOICE for m, lang in VARIANTS[p]}


def test_every_pattern_is_read_exactly_under_auto(site_url, other_site, tmp_path):
    """Under auto (the default), each page read as HTML where its HTML holds the listing, in the
    browser where it does not (a shadow root, a frame, a wall whose listing follows the choice):
    every answer exact all the same."""
    results, events = run_batch(pattern_tasks(site_url, other_site), tmp_path)
    wrong = wrong_answers(results)
    assert not wrong, wrong
    engines = {e["data"]["engine"] for e in events if e["type"] == "engine"}
    assert engines == {"http", "browser"}, engines  # both read some of the pages


def test_consent_accept_and_leave(site_url, other_site, tmp_path):
    """`--consent accept` accepts where refusing was offered; `leave` presses nothing (the wall's
    listing, written only after a choice, stays unread: an honest failure, not a silent answer)."""
    tasks = [
        {
            "id": "accept",
            "url": f"{site_url}/pc/consent-banner/bem-pl.html",
            "instruction": pages.INSTRUCTIONS["pl"],
        },
        {
            "id": "leave",
            "url": f"{site_url}/pc/consent-wall/utility-de.html",
            "instruction": pages.INSTRUCTIONS["de"],
            "consent": "leave",
        },
    ]
    before = len(pages.CHOICES)
    results, events = run_batch(tasks, tmp_path, "--consent", "accept")
    assert dict(pages.CHOICES[before:]) == {"/pc/consent-banner/bem-pl.html": "accept"}
    assert [(e["task"], e["data"]["action"]) for e in events if e["type"] == "consent"] == [
        ("accept", "accepted")
    ]
    assert results["accept"]["ok"] and len(results["accept"]["data"]["products"]) == len(pages.PRODUCTS["pl"])
    assert not results["leave"]["ok"]


def test_search_forms_in_shadow_roots_and_frames(site_url, tmp_path):
    """The search field and its button are found and used inside an open shadow root and inside a
    same-origin frame (whose results then show in the frame, and are read there)."""
    variants = {
        pattern: [
            (pages.MARKUPS[(i + k + 1) % len(pages.MARKUPS)], lang) for k, lang in enumerate(pages.LANGS)
        ]
        for i, pattern in enumerate(pages.SEARCH_PATTERNS)
    }
    tasks = [
        {
            "id": task_id(pattern, markup, lang),
            "url": f"{site_url}/pc/{pattern}/{markup}-{lang}.html",
            "instruction": pages.SEARCH_INSTRUCTIONS[lang],
        }
        for pattern, pairs in variants.items()
        for markup, lang in pairs
    ]
    results, _ = run_batch(tasks, tmp_path)
    wrong = {}
    for pattern, pairs in variants.items():
        for markup, lang in pairs:
            line = results[task_id(pattern, markup, lang)]
            got = [(p["name"], p["price"]) for p in (line.get("data") or {}).get("products", [])]
            want = [(n, p) for n, p in pages.PRODUCTS[lang] if pages.SEARCH[lang][0] in n]
            if not line["ok"] or got != want or len(want) < 2:
                wrong[task_id(pattern, markup, lang)] = (line["ok"], got, line.get("errors"))
    assert not wrong, wrong


def test_a_consent_dialog_that_shows_late_is_answered_under_concurrency(site_url, tmp_path):
    """A consent platform's dialog shown 400 ms after `load`, in a shadow root, the listing held back
    until a choice: every task of a concurrent batch answers it (refusing) and reads every item."""
    variants = [(markup, lang) for lang in pages.LANGS for markup in pages.MARKUPS[:2]]
    tasks = [
        {
            "id": task_id("consent-late", markup, lang),
            "url": f"{site_url}/pc/consent-late/{markup}-{lang}.html",
            "instruction": pages.INSTRUCTIONS[lang],
        }
        for markup, lang in variants
    ]
    before = len(pages.CHOICES)
    results, events = run_batch(tasks, tmp_path)
    for markup, lang in variants:
        line = results[task_id("consent-late", markup, lang)]
        got = [(p["name"], p["price"]) for p in (line.get("data") or {}).get("products", [])]
        assert line["ok"] and got == pages.PRODUCTS[lang], (markup, lang, line.get("errors"))
    assert sorted(dict(pages.CHOICES[before:]).items()) == sorted(
        (f"/pc/consent-late/{m}-{lang}.html", "reject") for m, lang in variants
    )
    answered = [e["task"] for e in events if e["type"] == "consent" and e["data"]["action"] == "rejected"]
    assert sorted(answered) == sorted(t["id"] for t in tasks)
