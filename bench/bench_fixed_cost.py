"""Where a task's fixed cost goes: CPU time of curllm against the hand-written Playwright script, split
into the Python process's own work, the interpreter's exit, and the children (the Playwright driver and
the browser), on the listing whose filter form does nothing.

    .venv/bin/python bench/bench_fixed_cost.py [--rounds N]

Each contestant runs as a fresh process through a small wrapper (`_cpu_probe.py`) that notes, when the
interpreter starts to exit (its last ``atexit`` handler), the CPU time of the process and of the children
it waited for; the rest of the total the benchmark sees (``RUSAGE_CHILDREN``) is the interpreter's exit
(freeing every module, the cyclic garbage collector's last walks). CPU time is what a shared machine's
load moves least; the contestants take turns.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import PYTHON, ROOT, user_env, write_section

from curllm_core.browser_path import find_browser

HERE = Path(__file__).resolve().parent
PAGE = "/test/inert-filter.html"
INSTRUCTION = "find products under 150zł"
NO_FORM_PLAN = {
    "plan": [
        {"tool": "extraction.products_generic"},
        {"tool": "validation.price_range_check", "parameters": {"max": 150}},
    ],
    "expected_output": "products",
}
#: The browser path measured here, whatever the default engine is.
BROWSER = ["--engine", "browser"]
PARTS = ("self", "exit", "children", "total", "wall")
# Where the fixed cost went (issue 11's end-to-end target): measured the same way on 2026-11-23 at about
# 04:40 UTC, load average ~12, 8 turns each; "before" is main at e2a4a48, "after" the first of the
# changes below (the later ones save a few ms per task more).
HISTORY = [
    "",
    "Where it went, and what changed (2026-11-23, the same measure at load average ~12, 8 turns each; "
    '"before": main at e2a4a48):',
    "",
    "| contestant | Python until exit | exit | driver + browser | total CPU |",
    "|---|---|---|---|---|",
    "| hand-written script | 143 | 61 | 532 | 734 (1.00x) |",
    "| curllm, a plan without the form, before | 242 | 88 | 538 | 878 (1.20x) |",
    "| curllm, a plan without the form, after | 230 | 11 | 548 | 781 (1.06x) |",
    "| curllm, the instruction (form step), before | 275 | 85 | 562 | 915 (1.25x) |",
    "| curllm, the instruction (form step), after | 280 | 12 | 552 | 843 (1.15x) |",
    "",
    "- **The interpreter's exit** was the largest single part: CPython's cyclic garbage collector walks "
    "and frees every object of the ~450 modules loaded (60-90 ms of CPU; the script pays ~60 ms of it "
    "too). The CLI now freezes them (`gc.freeze()`) once its output is written and closed: ~12 ms.",
    "- **Waiting for Chromium.** The browser used to start only after the plan was checked for "
    "`--plan`, and the extraction module (~25-40 ms of CPU) was imported after the page had opened. "
    "Now the launch begins first (as it already did for an instruction), and the plan check with its "
    "jsonschema import, the plan's tool modules and (for an instruction) the registry of tools are "
    "loaded during the wait.",
    "- **Per task**, also in a batch: the known-secrets scrubber read and decoded the whole environment "
    "for every event and line (~0.15 ms each, 1-2 ms per task): it now compares the raw mapping "
    "(1 µs). The registry fingerprint (the plan cache key) deep-copied every manifest (5 ms, 1 ms now).",
    "- **Left as it is, on purpose:** jsonschema (~40 ms to import: plans and every step's output are "
    "checked), click and curllm's own modules (~60 ms: CLI, runner, executor, registry, pluggy), the "
    "request routing every page gets (heavy resources blocked, each document's charset checked: about "
    "one extra round trip per request to the driver, and the document fetched by the driver), the "
    "wait for the page's load event, closing the context before the browser. The egress proxy is not "
    "on this path: it runs only under a network policy, for every request then.",
]


def start_site():
    sys.path.insert(0, str(ROOT / "tests"))
    from site_server import start_site

    return start_site()


def measure(args: list[str], env: dict) -> dict[str, float]:
    """One run: CPU ms of the process until it exits, of its exit, of its children; wall ms."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [PYTHON, str(HERE / "_cpu_probe.py"), *args], capture_output=True, text=True, env=env, check=False
    )
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    probe = [line for line in done.stderr.splitlines() if line.startswith("cpu-probe ")]
    if done.returncode != 0 or not probe:
        raise SystemExit(f"{' '.join(args[:4])}… failed ({done.returncode}):\n{done.stderr[-2000:]}")
    own = json.loads(probe[-1].split(" ", 1)[1])
    return {
        "self": own["self"],
        "children": own["children"],
        "exit": total - own["self"] - own["children"],
        "total": total,
        "wall": wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9, help="turns of each contestant (default 9)")
    args = parser.parse_args()
    site = start_site()
    url = site.url + PAGE
    executable = find_browser()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as cache:
        env = user_env({"CURLLM_CACHE_DIR": cache, "CURLLM_LOAD_PLUGINS": "", "XDG_CONFIG_HOME": cache})
        plan_file = Path(cache) / "no-form-plan.json"
        plan_file.write_text(json.dumps(NO_FORM_PLAN))
        contestants = {
            "hand-written script": [str(HERE / "handwritten_listing.py"), url, executable],
            "curllm, a plan without the form": [
                "-m",
                "curllm_core",
                "--plan",
                str(plan_file),
                "--url",
                url,
                *BROWSER,
            ],
            "curllm, the instruction (form step)": ["-m", "curllm_core", INSTRUCTION, "--url", url, *BROWSER],
        }
        for command in contestants.values():  # warm-up: plan cache, manifest cache, OS file cache
            measure(command, env)
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in contestants}
        for i in range(args.rounds):
            names = list(contestants)
            for name in names[i % len(names) :] + names[: i % len(names)]:
                runs[name].append(measure(contestants[name], env))
    site.stop()
    load_after = os.getloadavg()[0]
    medians = {name: {p: statistics.median(r[p] for r in rs) for p in PARTS} for name, rs in runs.items()}
    base = medians["hand-written script"]
    rows = [
        f"| {name} | {m['self']:.0f} | {m['exit']:.0f} | {m['children']:.0f} | **{m['total']:.0f}** "
        f"({m['total'] / base['total']:.2f}x) | {m['wall']:.0f} ({m['wall'] / base['wall']:.2f}x) |"
        for name, m in medians.items()
    ]
    for row in rows:
        print(row, flush=True)
    write_section(
        "fixed_cost",
        "Fixed cost of a task",
        [
            f"CPU time (ms, medians of {args.rounds} turns each) of one task on the listing whose filter form "
            f"does nothing (`{PAGE}`), as fresh processes (`bench/bench_fixed_cost.py`): the Python process "
            "until it starts to exit, the interpreter's exit, and the children it waited for (the "
            "Playwright driver, the browser). Load average (1 min) at the start and the end: "
            f"{load_before:.1f} / {load_after:.1f}; the wall times move with that load far more than the CPU times.",
            "",
            "| contestant | Python until exit | exit | driver + browser | total CPU | wall |",
            "|---|---|---|---|---|---|",
            *rows,
            *HISTORY,
        ],
    )


if __name__ == "__main__":
    main()
