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
PARTS = ("self", "exit", "children", "total", "wall")


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
            "curllm, a plan without the form": ["-m", "curllm_core", "--plan", str(plan_file), "--url", url],
            "curllm, the instruction (form step)": ["-m", "curllm_core", INSTRUCTION, "--url", url],
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
            f"{load_before:.1f} / {load_after:.1f}; the wall times are the load's more than ours.",
            "",
            "| contestant | Python until exit | exit | driver + browser | total CPU | wall |",
            "|---|---|---|---|---|---|",
            *rows,
        ],
    )


if __name__ == "__main__":
    main()
