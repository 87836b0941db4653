"""The server against `curllm batch`: 50 streamed tasks at once, throughput and p95 latency.

    .venv/bin/python bench/bench_server.py [--tasks N] [--concurrency J] [--repeats R]

The same 50 tasks ("find products under 150zł" on listing pages of the local example shop, planned
by the rule planner, the plan cache off for both) run:

- through `curllm serve -j J`: all 50 posted at once to ``/api/scrape/stream`` by an asyncio httpx
  client, each read to its ``complete`` event (the server's queue holds the ones waiting);
- through `curllm batch tasks.jsonl -j J` in one process.

Latency of a task is from the moment all tasks were handed over (the requests sent; the batch's first
task started) to its end (its ``complete`` event; its ``finished_at``); throughput is tasks per second
over the same span. The server is already running (its browser started); the batch's span starts at its
first task, after its start-up. Target: server / batch ≤ 1.3x for both figures. Medians of the
repeats go to bench/results/server.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_batch import PATHS, clean_env, start_shop  # noqa: E402
from common import ROOT, user_env, write_section  # noqa: E402

CURLLM = str(Path(sys.executable).parent / "curllm")
INSTRUCTION = "find products under 150zł"
TARGET = 1.3


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


def start_server(env: dict, concurrency: int, queue: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [CURLLM, "serve", "--port", "0", "-j", str(concurrency), "--queue", str(queue)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    found: list[str] = []
    ready = threading.Event()

    def read() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            m = re.search(r"serving on (http://\S+?)/? ", line)
            if m and not found:
                found.append(m.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    ready.wait(60)
    if not found:
        proc.kill()
        raise SystemExit("curllm serve did not start")
    return proc, found[0]


async def stream_all(url: str, tasks: list[dict]) -> tuple[list[float], float]:
    """Post every task at once; return each task's latency (s) and the span until the last ended."""
    import httpx

    async with httpx.AsyncClient(
        base_url=url, timeout=300, limits=httpx.Limits(max_connections=len(tasks) + 4)
    ) as c:
        for _ in range(100):  # the app answers once its browser is up
            try:
                if (await c.get("/api/health")).status_code == 200:
                    break
            except httpx.HTTPError:
                await asyncio.sleep(0.1)

        async def one(task: dict) -> float:
            body = {"instruction": INSTRUCTION, "url": task["url"], "options": {"cache": False}}
            last = None
            async with c.stream("POST", "/api/scrape/stream", json=body) as r:
                assert r.status_code == 200, await r.aread()
                async for line in r.aiter_lines():
                    if line.startswith("data:"):
                        last = json.loads(line[5:])
            ended = time.perf_counter()
            assert last and last["type"] == "complete" and last["data"]["ok"], last
            assert last["data"]["result"]["data"]["products"]
            return ended

        await one(tasks[0])  # one task first: imports and the first context, as a server that served before
        started = time.perf_counter()
        ends = await asyncio.gather(*(one(t) for t in tasks))
    latencies = [e - started for e in ends]
    return latencies, max(latencies)


def run_batch(env: dict, tasks: list[dict], concurrency: int, work: Path) -> tuple[list[float], float, float]:
    tasks_file, out = work / "tasks.jsonl", work / "out.jsonl"
    tasks_file.write_text("".join(json.dumps({**t, "instruction": INSTRUCTION}) + "\n" for t in tasks))
    out.unlink(missing_ok=True)
    started = time.perf_counter()
    done = subprocess.run(
        [CURLLM, "batch", str(tasks_file), "--out", str(out), "-j", str(concurrency), "--no-cache"],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"curllm batch failed ({done.returncode}):\n{done.stderr}")
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == len(tasks) and all(x["ok"] and x["data"]["products"] for x in lines)

    def at(text: str) -> float:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()

    first = min(at(x["started_at"]) for x in lines)
    latencies = [at(x["finished_at"]) - first for x in lines]
    return latencies, max(latencies), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    shop = start_shop()
    tasks = [{"id": f"t{i:03}", "url": shop.url + PATHS[i % len(PATHS)]} for i in range(args.tasks)]
    rows: dict[str, list[float]] = {
        k: [] for k in ("s_tp", "s_p95", "s_p50", "b_tp", "b_p95", "b_p50", "b_wall")
    }
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            env = user_env(clean_env(str(work / "cache")))
            for repeat in range(args.repeats):
                proc, url = start_server(env, args.concurrency, queue=args.tasks + 8)
                try:
                    latencies, span = asyncio.run(stream_all(url, tasks))
                finally:
                    proc.terminate()
                    proc.wait(30)
                rows["s_tp"].append(args.tasks / span)
                rows["s_p95"].append(p95(latencies))
                rows["s_p50"].append(statistics.median(latencies))
                b_lat, b_span, wall = run_batch(env, tasks, args.concurrency, work)
                rows["b_tp"].append(args.tasks / b_span)
                rows["b_p95"].append(p95(b_lat))
                rows["b_p50"].append(statistics.median(b_lat))
                rows["b_wall"].append(wall)
                print(
                    f"repeat {repeat + 1}: server {args.tasks / span:.1f} tasks/s, p95 {p95(latencies):.2f} s; "
                    f"batch {args.tasks / b_span:.1f} tasks/s, p95 {p95(b_lat):.2f} s (process {wall:.1f} s)",
                    flush=True,
                )
    finally:
        shop.stop()

    m = {k: statistics.median(v) for k, v in rows.items()}
    tp_ratio, p95_ratio = m["b_tp"] / m["s_tp"], m["s_p95"] / m["b_p95"]
    verdict = "met" if max(tp_ratio, p95_ratio) <= TARGET else "NOT met"
    write_section(
        "server",
        "Server against batch",
        [
            f'{args.tasks} tasks ("{INSTRUCTION}" on {len(PATHS)} listing pages of the example shop, rule '
            f"planner, plan cache off), {args.concurrency} at a time; median of {args.repeats} runs.",
            "",
            "| | throughput | p50 latency | p95 latency |",
            "|---|---|---|---|",
            f"| `curllm serve -j {args.concurrency}`, all streamed at once | {m['s_tp']:.1f} tasks/s | "
            f"{m['s_p50']:.2f} s | {m['s_p95']:.2f} s |",
            f"| `curllm batch -j {args.concurrency}`, one process | {m['b_tp']:.1f} tasks/s | "
            f"{m['b_p50']:.2f} s | {m['b_p95']:.2f} s |",
            f"| server / batch | {tp_ratio:.2f}x the time | | {p95_ratio:.2f}x |",
            "",
            f"Target ≤ {TARGET}x for both: **{verdict}**. Latency counts from the moment every task was handed "
            "over (all requests sent; the batch's first task started) to the task's end (its `complete` event; its "
            "`finished_at`), so it includes the wait in the server's queue or for a batch worker. The server was "
            "already running with its browser started; the batch's span starts at its first task, after its "
            f"start-up (the whole batch process took {m['b_wall']:.1f} s). The server's figures include HTTP, "
            "one SSE message per event and reading every stream to its end. Both run in the same repeat, on a "
            "shared machine: absolute figures vary with its load, the ratio is the measure.",
        ],
    )


if __name__ == "__main__":
    main()
