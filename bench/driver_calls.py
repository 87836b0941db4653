"""Browser calls per task: every message curllm sends to Playwright's driver, counted by kind.

    .venv/bin/python bench/driver_calls.py [--page PATH] [--tasks N] [--plan] [--where]

Runs ``curllm batch --engine browser -j 1`` in this process (its console entry point, as
tests/in_process.py does) on a page of the local test site: a first batch of one task (the browser's
launch, the plan cache), then ``--tasks`` tasks, whose calls are counted: each kind
(``Frame.evaluateExpression``, ``Page.updateSubscription``, ``Route.fulfill``...) with its count per
task. The instruction "find products under 150zł" by default (the inert-form batch of bench_batch:
the price filter's step, the pager), ``--plan`` its plan without the form step. ``--where`` also
names the curllm code each in-page call and subscription came from (as far as the calling task's
stack shows it; with an in-page call's first words). Nothing is written: a tool for
finding calls to cut, not a benchmark with a target (the batch benchmarks measure what they cost).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

INSTRUCTION = "find products under 150zł"
PLAN = {
    "plan": [
        {"tool": "extraction.products_generic"},
        {"tool": "validation.price_range_check", "parameters": {"max": 150}},
    ],
    "expected_output": "products",
    "instruction": INSTRUCTION,
}


def counting(where: bool) -> tuple[collections.Counter, collections.Counter]:
    """Count every message to the driver from now on (by kind, and by curllm caller with ``where``)."""
    from playwright._impl import connection

    kinds: collections.Counter = collections.Counter()
    callers: collections.Counter = collections.Counter()
    send = connection.Connection.send_message_to_server

    def counted(self: Any, obj: Any, method: str, params: Any, options: Any) -> Any:
        if method != "__waitInfo__":  # the driver's bookkeeping, never answered
            kinds[f"{obj._type}.{method}"] += 1
            if where and method in ("evaluateExpression", "updateSubscription"):
                ours = [f for f in traceback.extract_stack() if "curllm_core" in f.filename]
                at = " < ".join(f"{f.filename.split('curllm_core/')[-1]}:{f.name}" for f in ours[-2:][::-1])
                what = params.get("event") or " ".join(str(params.get("expression", "")).split())[:30]
                callers[f"{method} {what!r} {at}"] += 1
        return send(self, obj, method, params, options)

    connection.Connection.send_message_to_server = counted  # type: ignore[method-assign]
    return kinds, callers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--page", default="/test/inert-filter.html", help="a page of the test site")
    ap.add_argument("--tasks", type=int, default=4)
    ap.add_argument("--plan", action="store_true", help="the plan without the form step")
    ap.add_argument("--where", action="store_true", help="name the code of each in-page call")
    args = ap.parse_args()
    kinds, callers = counting(args.where)
    from tests.in_process import cli_main
    from tests.site_server import start_site

    site = start_site()
    tmp = Path(tempfile.mkdtemp())
    (tmp / "plan.json").write_text(json.dumps(PLAN))
    joint = "&" if "?" in args.page else "?"

    def batch(first: int, count: int) -> None:
        lines = []
        for i in range(first, first + count):
            task: dict[str, str] = {"id": f"t{i}", "url": f"{site.url}{args.page}{joint}v={i}"}
            task.update({"plan": str(tmp / "plan.json")} if args.plan else {"instruction": INSTRUCTION})
            lines.append(json.dumps(task))
        (tmp / "tasks.jsonl").write_text("\n".join(lines) + "\n")
        out = tmp / "out.jsonl"
        done = cli_main(
            ["batch", str(tmp / "tasks.jsonl"), "--out", str(out), "--overwrite", "--no-progress"]
            + ["-j", "1", "--engine", "browser"],
            env={"CURLLM_CACHE_DIR": str(tmp / "cache")},
        )
        results = [json.loads(x) for x in out.read_text().splitlines()]
        if done.returncode != 0 or not all(r["ok"] for r in results):
            raise SystemExit(f"the batch failed ({done.returncode}): {done.stderr[-500:]}")
        print(f"steps: {' → '.join(s['tool'] for s in results[0]['steps'])}")

    try:
        batch(0, 1)  # the launch and the plan cache: not counted
        kinds.clear()
        callers.clear()
        batch(1, args.tasks)
    finally:
        site.stop()
    n = args.tasks
    print(f"{'calls':>6} {'per task':>8}  kind (a batch of {n}; its launch and closing counted once)")
    for kind, count in kinds.most_common():
        print(f"{count:6d} {count / n:8.2f}  {kind}")
    print(f"{sum(kinds.values()):6d} {sum(kinds.values()) / n:8.2f}  in all")
    for caller, count in callers.most_common():
        print(f"{count / n:8.2f}  {caller}")


if __name__ == "__main__":
    main()
