"""Batch on Ray against the local backend: 200 tasks on the local example shop, and memory per worker.

    .venv/bin/python bench/bench_ray.py [--tasks N] [--repeats R] [--quick]

bench_batch's tasks (products under 150 zł on 11 listing pages of the example shop served on
127.0.0.1; a plan file: extraction.products_generic + validation.price_range_check) run by:

- ``curllm batch -j 2`` and ``-j 4``: the local backend, one process, one browser;
- ``curllm batch --backend ray --address HEAD --workers 1 -j 2`` and ``--workers 2 -j 2``, on a Ray head
  started for the benchmark (``ray start --head --block``, 127.0.0.1 only, 2 CPUs; stopped at the end
  through that process);
- once, ``--backend ray --workers 2 -j 2`` without ``--address``: the driver starts a Ray of its own
  (what a first try costs).

Each contestant's time is the wall time of the ``curllm`` process (start-up, connecting, workers
starting, Chromium launches included) and the batch's own time (its summary: from the first task
read to the last line written). Memory: the peak PSS of each worker's process tree (the actor,
Playwright's driver, Chromium), sampled every 0.5 s from /proc, and that of the driver and of the
local backend's process tree. The medians go to bench/results/ray.md, every run's figures to
bench/results/ray.runs.jsonl (``--report`` writes the section again from the last one).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_batch import PLAN, check_out, clean_env, make_tasks, start_shop  # noqa: E402
from common import PYTHON, record_run, write_section  # noqa: E402

RUNS = Path(__file__).resolve().parent / "results" / "ray.runs.jsonl"
RAY_ENV = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_AUTH_MODE": "disabled",
    "RAY_USAGE_STATS_ENABLED": "0",
}


# --- memory from /proc --------------------------------------------------------------------------


def _processes() -> dict[int, tuple[int, int, str]]:
    """pid -> (ppid, session id, command line) of every process that can be read."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        out[int(entry)] = (int(fields[1]), int(fields[3]), cmd.strip())
    return out


def _tree(root: int, procs: dict[int, tuple[int, int, str]]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _pss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        m = re.search(r"^Pss:\s+(\d+) kB", text, re.M)
        total += int(m.group(1)) if m else 0
    return total / 1024


class MemorySampler:
    """Peak PSS of process trees while a run goes: each Ray worker (by its pid), the driver, or a root."""

    def __init__(self, driver: int, head_session: int | None):
        self.driver, self.head_session = driver, head_session
        self.workers: dict[int, float] = {}
        self.driver_peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            procs = _processes()
            if self.driver in procs:
                self.driver_peak = max(self.driver_peak, _pss_mb(_tree(self.driver, procs)))
            for pid, (_, sid, cmd) in procs.items():
                in_cluster = self.head_session is None or sid == self.head_session
                if in_cluster and cmd.startswith("ray::Worker"):
                    self.workers[pid] = max(self.workers.get(pid, 0.0), _pss_mb(_tree(pid, procs)))


# --- the head -------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_head(env: dict, temp: str, log: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                str(Path(PYTHON).with_name("ray")),
                "start",
                "--head",
                "--block",
                "--node-ip-address=127.0.0.1",
                f"--port={port}",
                "--num-cpus=2",
                "--include-dashboard=false",
                "--disable-usage-stats",
                f"--temp-dir={temp}",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    deadline = time.monotonic() + 180
    while b"Ray runtime started" not in log.read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"ray start failed:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.3)
    return proc, f"127.0.0.1:{port}"


def stop_head(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        pass
    time.sleep(1)
    for pid, (_, sid, _) in _processes().items():  # what is left of this head: its own session
        if sid == proc.pid and pid != os.getpid():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    proc.wait(timeout=10)


# --- one run --------------------------------------------------------------------------------------


def run(args: list[str], env: dict, out: Path, count: int, head_session: int | None) -> dict:
    """One ``curllm batch`` to the end: wall time, the batch's own time, peak memory."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [PYTHON, "-m", "curllm_core", "batch", *args, "--out", str(out), "--overwrite", "--no-progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    with MemorySampler(proc.pid, head_session) as mem:
        _, stderr = proc.communicate()
    wall = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"curllm batch {' '.join(args)} failed ({proc.returncode}):\n{stderr}")
    check_out(out, count)
    m = re.search(r"task\(s\): .* in ([\d.]+) s", stderr)
    return {
        "wall": wall,
        "batch": float(m.group(1)) if m else wall,
        "workers": sorted(mem.workers.values()),
        "driver": mem.driver_peak,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="60 tasks, one run each")
    parser.add_argument("--tasks", type=int, help="tasks per run (default 200)")
    parser.add_argument("--repeats", type=int, help="runs per contestant (default 3)")
    parser.add_argument(
        "--report", action="store_true", help="only write the section again from the last recorded run"
    )
    args = parser.parse_args()
    if args.report:
        report(json.loads(RUNS.read_text().splitlines()[-1]))
        return
    count = args.tasks or (60 if args.quick else 200)
    repeats = args.repeats or (1 if args.quick else 3)

    load_before = os.getloadavg()[0]
    site = start_shop()
    temp = tempfile.mkdtemp(prefix="crl-bench-", dir="/tmp")  # Ray's socket paths must stay short
    head = None
    try:
        tmp = Path(temp)
        env = {**clean_env(str(tmp / "cache")), **RAY_ENV}
        env.pop("RAY_ADDRESS", None)
        plan_file = tmp / "plan.json"
        plan_file.write_text(json.dumps(PLAN))
        tasks_file = tmp / "tasks.jsonl"
        tasks_file.write_text(
            "".join(json.dumps({**t, "plan": str(plan_file)}) + "\n" for t in make_tasks(site.url, count))
        )
        head, address = start_head(env, str(tmp / "ray"), tmp / "head.log")
        contestants = {
            "local backend, -j 2": ["-j", "2"],
            "local backend, -j 4": ["-j", "4"],
            "Ray, 1 worker × -j 2": ["--backend", "ray", "--address", address, "--workers", "1", "-j", "2"],
            "Ray, 2 workers × -j 2": ["--backend", "ray", "--address", address, "--workers", "2", "-j", "2"],
        }
        # one warm-up: the manifest cache, the OS file cache, the head's first workers
        run(
            [str(tasks_file), *contestants["Ray, 2 workers × -j 2"]], env, tmp / "warm.jsonl", count, head.pid
        )
        results: dict[str, list[dict]] = {name: [] for name in contestants}
        for _ in range(repeats):
            for name, extra in contestants.items():  # taking turns: the machine's load hits all alike
                one = run([str(tasks_file), *extra], env, tmp / "out.jsonl", count, head.pid)
                results[name].append(one)
                print(
                    f"{name}: {one['wall']:.1f} s wall, {one['batch']:.1f} s batch, workers "
                    f"{[round(w) for w in one['workers']]} MB, driver {one['driver']:.0f} MB",
                    flush=True,
                )
        stop_head(head)
        head = None
        own = run(
            [str(tasks_file), "--backend", "ray", "--workers", "2", "-j", "2"],
            env,
            tmp / "own.jsonl",
            count,
            None,
        )
        print(f"own local Ray: {own['wall']:.1f} s wall, {own['batch']:.1f} s batch", flush=True)
    finally:
        if head is not None:
            stop_head(head)
        site.stop()
        subprocess.run(["rm", "-rf", temp], check=False)
    raw = {
        "count": count,
        "repeats": repeats,
        "load": [load_before, os.getloadavg()[0]],
        "results": results,
        "own": own,
    }
    record_run("ray", raw)
    report(raw)


def report(raw: dict) -> None:
    """The results section from one run's figures (a line of bench/results/ray.runs.jsonl)."""
    count, repeats, results, own = raw["count"], raw["repeats"], raw["results"], raw["own"]

    def med(name: str, key: str) -> float:
        return statistics.median(r[key] for r in results[name])

    base = med("local backend, -j 2", "batch")
    rows = []
    for name in results:
        workers = [w for r in results[name] for w in r["workers"]]
        worker_mb = f"{statistics.median(workers):.0f} MB" if workers else "–"
        rows.append(
            f"| {name} | {med(name, 'wall'):.1f} s | {med(name, 'batch'):.1f} s | "
            f"{count / med(name, 'batch'):.1f} | {med(name, 'batch') / base:.2f}x | {worker_mb} | "
            f"{med(name, 'driver'):.0f} MB |"
        )
    two = med("Ray, 2 workers × -j 2", "batch")
    one = med("Ray, 1 worker × -j 2", "batch")
    four = med("local backend, -j 4", "batch")
    lines = [
        f"{count} tasks (bench_batch's: products under 150 zł on listing pages of the local example shop, a plan "
        f"file), median of {repeats} run(s) each, the contestants taking turns, on a Ray head started for the "
        "benchmark (`ray start --head`, 127.0.0.1, 2 CPUs) on this machine. Load average (1 min) at the start "
        f"and the end: {raw['load'][0]:.1f} / {raw['load'][1]:.1f}: the machine is shared, absolute figures vary "
        "with its load; the contestants took turns so that it weighs on all alike.",
        "",
        "| backend | wall time | batch time | tasks/s | vs local -j 2 | memory per worker | driver (local: the whole run) |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        "Wall time is the whole `curllm batch` process (start-up, connecting to the head, workers starting, "
        "Chromium launches); batch time is the summary's (first task read to last line written). Memory is "
        "the peak PSS (proportional set size: shared pages split between the processes that share them) of "
        "each worker's process tree (the actor, Playwright's driver, Chromium and its renderers), sampled "
        "every 0.5 s; the driver column is the `curllm` process tree: for the local backend that includes "
        "its browser, for Ray only the driver (it plans and writes, it runs no browser).",
        "",
        f"One worker took {one / base:.2f}x the local backend's batch time at the same concurrency; two workers "
        f"{two / base:.2f}x ({two / four:.2f}x the local backend at -j 4, the same number of tasks at once): two "
        "worker processes run curllm's own work (extraction, output checks) on both cores, where a local batch "
        "is one Python process. Each worker holds a Chromium: memory grows by about a worker's figure per "
        "worker (two workers show less each, as they share the pages of the same executables and libraries).",
        "",
        f"Without `--address` the driver starts a Ray of its own: {own['wall']:.1f} s wall for the same "
        f"{count} tasks with 2 workers ({own['batch']:.1f} s of batch); Ray's start and stop make the "
        "difference.",
    ]
    write_section("ray", "Batch on Ray", lines)


if __name__ == "__main__":
    main()
