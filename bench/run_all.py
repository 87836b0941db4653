"""Run every benchmark and write bench/RESULTS.md from their sections (bench/results/*.md).

.venv/bin/python bench/run_all.py            # all of them (several minutes)
.venv/bin/python bench/run_all.py --only startup registry
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from common import RESULTS, machine

HERE = Path(__file__).resolve().parent
ORDER = [
    "startup",
    "registry",
    "planning",
    "e2e",
    "fixed_cost",
    "extraction",
    "product_pages",
    "testbed",
    "readiness",
    "pagecontent",
    "batch",
    "batch_form",
    "engine",
    "ray",
    "server",
    "llm",
]
SCRIPTS = {name: [HERE / f"bench_{name}.py"] for name in ORDER}
SCRIPTS["batch_form"] = [HERE / "bench_batch.py", "--scenario", "form"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=ORDER)
    parser.add_argument(
        "--collect", action="store_true", help="only rebuild RESULTS.md from existing sections"
    )
    args = parser.parse_args()
    if not args.collect:
        for name in args.only or ORDER:
            script, *script_args = SCRIPTS[name]
            if script.exists():
                print(f"== {name}", flush=True)
                subprocess.run([sys.executable, str(script), *script_args], cwd=HERE, check=True)
    sections = [RESULTS / f"{name}.md" for name in ORDER if (RESULTS / f"{name}.md").exists()]
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    text = (
        f"# Benchmark results\n\nWritten by `bench/run_all.py` on {stamp}; {machine()}. Every figure is a median "
        "of several runs; every ratio compares two things measured in the same run. Commands run as in a "
        "user's shell, with bytecode caching on (this machine's sessions set PYTHONDONTWRITEBYTECODE, "
        "which makes every process recompile curllm's sources: about 0.5 s more per task).\n\n"
        + "\n".join(s.read_text() for s in sections)
    )
    (HERE / "RESULTS.md").write_text(text)
    print(f"wrote {HERE / 'RESULTS.md'} ({len(sections)} sections)")


if __name__ == "__main__":
    main()
