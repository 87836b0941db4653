"""The HTTP engine against the browser and against a hand-written httpx + selectolax script.

    .venv/bin/python bench/bench_engine.py [--tasks N] [--repeats R] [-j N]

200 static tasks (bench_batch's: products under 150 zł on listing pages of the local example shop, a
plan file, no planner) at concurrency 4 (``-j``), the contestants taking turns in each repeat:

- ``curllm batch tasks.jsonl --engine http`` (a subprocess: start-up, the plan check, a line per task
  fsynced, robots.txt and the per-host limit included);
- ``curllm batch tasks.jsonl --engine browser`` (the same, on Chromium);
- ``curllm batch tasks.jsonl`` (the default engine, ``auto``: the HTTP engine for this plan, which
  reads HTML, with its answers checked for a reason to go back to the browser);
- a hand-written asyncio script (this file with ``--baseline``, a subprocess too): one httpx client,
  a semaphore of the same concurrency, GET, selectolax on the shop's known markup, the price filter, a
  line per task written to a file. What a person would write for this one shop.

Targets: http at least 10x faster than browser, and within 3x of the hand-written script (wall time;
the CPU of each process tree, user + system with its children, is shown beside it). The
medians go to bench/results/engine.md; every run's figures to engine.runs.jsonl.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_batch import (  # noqa: E402
    BROWSER,
    MAX_PRICE,
    PLAN,
    check_out,
    clean_env,
    curllm_batch,
    make_tasks,
    start_shop,
    timed,
    timed_cpu,
)
from common import PYTHON, record_run, write_section  # noqa: E402

FASTER_THAN_BROWSER = 10.0
WITHIN_HANDWRITTEN = 3.0


# --- the hand-written script (run with --baseline) -----------------------------------------------


async def baseline(tasks_file: Path, out_file: Path, concurrency: int) -> None:
    """httpx + selectolax, knowing the shop's markup: GET, parse, filter, write a line."""
    import httpx
    from selectolax.lexbor import LexborHTMLParser

    def products(html: str, url: str) -> list[dict]:
        out = []
        for card in LexborHTMLParser(html).css("ul.product-list article.product-card"):
            link = card.css_first(".product-card__name a")
            price = card.css_first(".price--current")
            if link is None or price is None:
                continue
            text = price.text().replace("\xa0", " ").replace("zł", "").replace(" ", "").replace(",", ".")
            href = str(httpx.URL(url).join(link.attributes.get("href") or ""))
            out.append({"name": link.text(strip=True), "price": float(text), "url": href})
        return out

    tasks = [json.loads(x) for x in tasks_file.read_text().splitlines()]
    gate = asyncio.Semaphore(concurrency)
    with out_file.open("w", encoding="utf-8") as out:
        async with httpx.AsyncClient(follow_redirects=True) as client:

            async def one(task: dict) -> None:
                async with gate:
                    response = await client.get(task["url"])
                found = products(response.text, str(response.url))
                kept = [p for p in found if p["price"] <= MAX_PRICE]
                out.write(json.dumps({"id": task["id"], "ok": bool(kept), "data": {"products": kept}}) + "\n")

            await asyncio.gather(*(one(t) for t in tasks))


# --- the benchmark ---------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("-j", "--concurrency", type=int, default=4)
    ap.add_argument("--baseline", nargs=3, metavar=("TASKS", "OUT", "N"))
    args = ap.parse_args()
    if args.baseline:
        tasks_file, out_file, n = args.baseline
        asyncio.run(baseline(Path(tasks_file), Path(out_file), int(n)))
        return
    load_before = os.getloadavg()[0]
    site = start_shop()
    n = args.concurrency
    times: dict[str, list[float]] = {"http": [], "browser": [], "auto": [], "script": []}
    cpu: dict[str, list[float]] = {k: [] for k in times}
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            env = clean_env(str(tmp / "cache"))
            tasks_file = tmp / "tasks.jsonl"
            tasks_file.write_text("".join(json.dumps(t) + "\n" for t in make_tasks(site.url, args.tasks)))
            plan = tmp / "plan.json"
            plan.write_text(json.dumps(PLAN))
            # Every task line names the plan file: the batch reads and checks it once.
            lines = [json.loads(x) for x in tasks_file.read_text().splitlines()]
            tasks_file.write_text("".join(json.dumps({**t, "plan": str(plan)}) + "\n" for t in lines))
            # The manifests checked once into the cache, as on any machine after the first run.
            timed([PYTHON, "-m", "curllm_core", "tools", "list"], env)
            for _ in range(args.repeats):
                for engine in ("http", "browser", "auto"):
                    out = tmp / f"{engine}.jsonl"
                    # bench_batch's command names the browser engine: it is taken out here, so that
                    # each contestant runs with its own engine, and auto with none (the default).
                    command = [a for a in curllm_batch(tasks_file, out, n) if a not in BROWSER]
                    chosen = ["--engine", engine] if engine != "auto" else []
                    wall, used = timed_cpu([*command, *chosen], env)
                    times[engine].append(wall)
                    cpu[engine].append(used)
                    check_out(out, args.tasks)
                out = tmp / "script.jsonl"
                wall, used = timed_cpu(
                    [PYTHON, __file__, "--baseline", str(tasks_file), str(out), str(n)], env
                )
                times["script"].append(wall)
                cpu["script"].append(used)
                check_out(out, args.tasks)
    finally:
        site.stop()
    med = {k: statistics.median(v) for k, v in times.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    within_cpu = med_cpu["http"] / med_cpu["script"]
    faster = med["browser"] / med["http"]
    within = med["http"] / med["script"]
    auto = med["auto"] / med["http"]
    record_run(
        "engine",
        {
            "tasks": args.tasks,
            "concurrency": n,
            "http_s": round(med["http"], 2),
            "browser_s": round(med["browser"], 2),
            "script_s": round(med["script"], 2),
            "auto_s": round(med["auto"], 2),
            "auto_over_http": round(auto, 2),
            "browser_over_http": round(faster, 1),
            "http_over_script": round(within, 2),
            "http_cpu_s": round(med_cpu["http"], 2),
            "script_cpu_s": round(med_cpu["script"], 2),
            "http_over_script_cpu": round(within_cpu, 2),
        },
    )
    ok = lambda good: "✓" if good else "✗"  # noqa: E731
    write_section(
        "engine",
        "The HTTP engine",
        [
            f"{args.tasks} static tasks (products under {MAX_PRICE} zł on listing pages of the local example "
            f"shop, a plan file), concurrency {n}, median of {args.repeats} run(s), the contestants taking "
            f"turns. Load average (1 min) at the start and the end: {load_before:.1f} / "
            f"{os.getloadavg()[0]:.1f}.",
            "",
            "| contestant | wall time | CPU | tasks/s | ratio | target |",
            "| --- | --- | --- | --- | --- | --- |",
            f"| `curllm batch --engine http` | {med['http']:.2f} s | {med_cpu['http']:.2f} s | "
            f"{args.tasks / med['http']:.0f} | | |",
            f"| `curllm batch --engine browser` | {med['browser']:.2f} s | {med_cpu['browser']:.2f} s | "
            f"{args.tasks / med['browser']:.1f} | **{faster:.1f}x** the http engine's time | "
            f"≥ {FASTER_THAN_BROWSER:g}x {ok(faster >= FASTER_THAN_BROWSER)} |",
            f"| `curllm batch` (the default: `auto`) | {med['auto']:.2f} s | {med_cpu['auto']:.2f} s | "
            f"{args.tasks / med['auto']:.0f} | **{auto:.2f}x** the http engine's time | |",
            f"| hand-written httpx + selectolax script | {med['script']:.2f} s | {med_cpu['script']:.2f} s | "
            f"{args.tasks / med['script']:.0f} | http engine **{within:.2f}x** its time "
            f"(CPU: **{within_cpu:.2f}x**) | ≤ {WITHIN_HANDWRITTEN:g}x {ok(within <= WITHIN_HANDWRITTEN)} |",
            "",
            "Wall time is the whole process (Python start-up, imports, and for the browser Chromium's launch); "
            "CPU is its user + system time with its children's (Chromium's for the browser), which a loaded "
            "machine stretches less than wall time. "
            "The hand-written script knows the shop's markup; curllm's engines run the generic extractor and "
            "the price check, fsync each line, obey robots.txt and a per-host limit.",
        ],
    )


if __name__ == "__main__":
    main()
