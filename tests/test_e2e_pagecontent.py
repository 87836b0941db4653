"""What is on a page, end to end: the real `curllm batch` (rule planner, a real Chromium) on the test
site's pages of shadow roots, frames of both origins, modals, consent dialogs and embedded data
(tests/site_pagecontent.py), each pattern in several markups and languages, every answer exact.

Two batch processes run every task of the module (a process and a browser each would cost seconds
a test): `curllm batch --engine browser --consent accept` (the browser engine and the accept mode
by their flags; each pattern task asks for ``"consent": "reject"`` itself, the accept and leave
tasks do not), and `curllm batch` with the defaults (``auto``, ``--consent reject``) for the rest.
Each test reads its own tasks' lines, events and posted consent choices. A second local site on
another port is the other origin of the cross-origin frames.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
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


@dataclass
class Batch:
    """What one `curllm batch` process gave: each task's result line by id, every event, and the
    consent choices its pages posted (path, choice), in order."""

    lines: dict[str, dict]
    events: list[dict]
    choices: list[tuple[str, str]]

    def events_of(self, ids) -> list[dict]:
        ids = set(ids)
        return [e for e in self.events if e.get("task") in ids]

    def choices_by_page(self, prefix: str = "/pc/") -> dict[str, set[str]]:
        posted: defaultdict[str, set[str]] = defaultdict(set)
        for path, choice in self.choices:
            if path.startswith(prefix):
                posted[path].add(choice)
        return dict(posted)


def run_batch(tasks: list[dict], tmp: Path, cache: Path, *args: str) -> Batch:
    """Every task in one `curllm batch -j 2` process: its lines, events and the choices posted meanwhile.
    The session's cache (tests/conftest.py: the manifests checked once, not by each process); no plan
    cache (``--no-cache``): every task is planned as in an empty cache, and neither batch reads the
    other's plans."""
    before = len(pages.CHOICES)
    task_file, out, events = tmp / "tasks.jsonl", tmp / "out.jsonl", tmp / "events.jsonl"
    task_file.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update({"CURLLM_LOAD_PLUGINS": "", "CURLLM_CACHE_DIR": str(cache)})
    done = subprocess.run(
        [sys.executable, "-m", "curllm_core", "batch", str(task_file), "--out", str(out), "--events", str(events),
         "-j", "2", "--no-progress", "--no-cache", *args],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == len(tasks), done.stderr
    return Batch(
        {line["id"]: line for line in lines},
        [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()],
        list(pages.CHOICES[before:]),
    )


def pattern_tasks(site_url: str, other_site: str, **extra: str) -> list[dict]:
    """Every pattern in its markups and languages, as batch tasks (``extra``: keys each task has)."""
    port = other_site.rsplit(":", 1)[1]
    return [
        {
            "id": task_id(pattern, markup, lang),
            "url": f"{site_url}/pc/{pattern}/{markup}-{lang}.html?other={port}",
            "instruction": pages.INSTRUCTIONS[lang],
            **extra,
        }
        for pattern, variants in VARIANTS.items()
        for markup, lang in variants
    ]


def pattern_ids() -> list[str]:
    return [
        task_id(pattern, markup, lang) for pattern, variants in VARIANTS.items() for markup, lang in variants
    ]


#: `--consent accept`: the flag's mode for a task that asks for none; the other, `leave`, asked for by
#: its task (both pages are outside `VARIANTS`, so that their choices are theirs alone).
ACCEPT_TASKS = [
    {"id": "accept", "path": "/pc/consent-banner/bem-pl.html", "lang": "pl"},
    {"id": "leave", "path": "/pc/consent-wall/utility-de.html", "lang": "de", "consent": "leave"},
]

#: Search forms inside an open shadow root and a same-origin frame, in every language.
SEARCH_VARIANTS = {
    pattern: [(pages.MARKUPS[(i + k + 1) % len(pages.MARKUPS)], lang) for k, lang in enumerate(pages.LANGS)]
    for i, pattern in enumerate(pages.SEARCH_PATTERNS)
}
#: The consent dialog that shows late, in a concurrent batch: two markups in each language.
LATE_VARIANTS = [(markup, lang) for lang in pages.LANGS for markup in pages.MARKUPS[:2]]


def late_id(markup: str, lang: str) -> str:
    return "late:" + task_id("consent-late", markup, lang)


@pytest.fixture(scope="module")
def in_the_browser(site_url, other_site, _private_dirs, tmp_path_factory) -> Batch:
    """`curllm batch --engine browser --consent accept`: every pattern (each task asking for
    ``"consent": "reject"``), and the accept and leave tasks."""
    tasks = pattern_tasks(site_url, other_site, consent="reject") + [
        {
            "id": t["id"],
            "url": site_url + t["path"],
            "instruction": pages.INSTRUCTIONS[t["lang"]],
            **({"consent": t["consent"]} if "consent" in t else {}),
        }
        for t in ACCEPT_TASKS
    ]
    tmp = tmp_path_factory.mktemp("browser-batch")
    return run_batch(tasks, tmp, _private_dirs[0], "--engine", "browser", "--consent", "accept")


@pytest.fixture(scope="module")
def by_default(site_url, other_site, _private_dirs, tmp_path_factory) -> Batch:
    """`curllm batch` with its defaults (``--engine auto``, ``--consent reject``): every pattern, the
    search forms, the late consent dialogs."""
    search = [
        {
            "id": task_id(pattern, markup, lang),
            "url": f"{site_url}/pc/{pattern}/{markup}-{lang}.html",
            "instruction": pages.SEARCH_INSTRUCTIONS[lang],
        }
        for pattern, pairs in SEARCH_VARIANTS.items()
        for markup, lang in pairs
    ]
    late = [
        {
            "id": late_id(markup, lang),
            "url": f"{site_url}/pc/consent-late/{markup}-{lang}.html",
            "instruction": pages.INSTRUCTIONS[lang],
        }
        for markup, lang in LATE_VARIANTS
    ]
    tmp = tmp_path_factory.mktemp("default-batch")
    return run_batch(pattern_tasks(site_url, other_site) + search + late, tmp, _private_dirs[0])


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


def test_every_pattern_in_every_markup_and_language_is_read_exactly(in_the_browser):
    """In the browser: every answer exact, and every consent dialog answered with the least consent."""
    wrong = wrong_answers(in_the_browser.lines)
    assert not wrong, wrong
    # Every consent page was answered with the least consent it offers (and only that, once or more),
    # and the events say so; the accept task's page got its accept (test_consent_accept_and_leave).
    wanted = {
        f"/pc/{pattern}/{markup}-{lang}.html": {choice}
        for pattern, choice in CHOICE.items()
        for markup, lang in VARIANTS[pattern]
    }
    assert in_the_browser.choices_by_page() == wanted | {ACCEPT_TASKS[0]["path"]: {"accept"}}
    consent = {
        e["task"]: e["data"] for e in in_the_browser.events_of(pattern_ids()) if e["type"] == "consent"
    }
    for pattern in CHOICE:
        for markup, lang in VARIANTS[pattern]:
            event = consent[task_id(pattern, markup, lang)]
            assert (event["action"], event["mode"]) == (ACTION[pattern], "reject")
            assert event.get("frame", False) == (pattern == "consent-xframe")
    # Pages without a consent dialog report none.
    assert set(consent) == {task_id(p, m, lang) for p in CHOICE for m, lang in VARIANTS[p]}


def test_every_pattern_is_read_exactly_under_auto(by_default):
    """Under auto (the default), each page read as HTML where its HTML holds the listing, in the
    browser where it does not (a shadow root, a frame, a wall whose listing follows the choice):
    every answer exact all the same; a dialog met in the browser is answered as the default
    ``--consent reject`` says."""
    wrong = wrong_answers(by_default.lines)
    assert not wrong, wrong
    events = by_default.events_of(pattern_ids())
    engines = {e["data"]["engine"] for e in events if e["type"] == "engine"}
    assert engines == {"http", "browser"}, engines  # both read some of the pages
    consent = [(e["task"], e["data"]) for e in events if e["type"] == "consent"]
    assert consent, "a consent dialog was met in the browser"
    for task, data in consent:
        assert (data["action"], data["mode"]) == (ACTION[task.split("/")[0]], "reject"), task


def test_consent_accept_and_leave(in_the_browser):
    """`--consent accept` accepts where refusing was offered; `leave` presses nothing (the wall's
    listing, written only after a choice, stays unread: an honest failure, not a silent answer)."""
    ids = [t["id"] for t in ACCEPT_TASKS]
    posted = {
        path: c
        for path, c in in_the_browser.choices_by_page().items()
        if path in {t["path"] for t in ACCEPT_TASKS}
    }
    assert posted == {"/pc/consent-banner/bem-pl.html": {"accept"}}
    assert [
        (e["task"], e["data"]["action"]) for e in in_the_browser.events_of(ids) if e["type"] == "consent"
    ] == [("accept", "accepted")]
    accept, leave = in_the_browser.lines["accept"], in_the_browser.lines["leave"]
    assert accept["ok"] and len(accept["data"]["products"]) == len(pages.PRODUCTS["pl"])
    assert not leave["ok"]


def test_search_forms_in_shadow_roots_and_frames(by_default):
    """The search field and its button are found and used inside an open shadow root and inside a
    same-origin frame (whose results then show in the frame, and are read there)."""
    wrong = {}
    for pattern, pairs in SEARCH_VARIANTS.items():
        for markup, lang in pairs:
            line = by_default.lines[task_id(pattern, markup, lang)]
            got = [(p["name"], p["price"]) for p in (line.get("data") or {}).get("products", [])]
            want = [(n, p) for n, p in pages.PRODUCTS[lang] if pages.SEARCH[lang][0] in n]
            if not line["ok"] or got != want or len(want) < 2:
                wrong[task_id(pattern, markup, lang)] = (line["ok"], got, line.get("errors"))
    assert not wrong, wrong


def test_a_consent_dialog_that_shows_late_is_answered_under_concurrency(by_default):
    """A consent platform's dialog shown 400 ms after `load`, in a shadow root, the listing held back
    until a choice: every task of a concurrent batch answers it (refusing) and reads every item."""
    for markup, lang in LATE_VARIANTS:
        line = by_default.lines[late_id(markup, lang)]
        got = [(p["name"], p["price"]) for p in (line.get("data") or {}).get("products", [])]
        assert line["ok"] and got == pages.PRODUCTS[lang], (markup, lang, line.get("errors"))
    # Each page got a refusal and nothing else (two of them are also pattern tasks of this batch).
    assert by_default.choices_by_page("/pc/consent-late/") == {
        f"/pc/consent-late/{m}-{lang}.html": {"reject"} for m, lang in LATE_VARIANTS
    }
    ids = [late_id(m, lang) for m, lang in LATE_VARIANTS]
    answered = [
        e["task"]
        for e in by_default.events_of(ids)
        if e["type"] == "consent" and e["data"]["action"] == "rejected"
    ]
    assert sorted(answered) == sorted(ids)
