"""LLM calls per task: 1 on the first run, 0 on repeats (the plan cache), counted by a fake
OpenAI-compatible server on 127.0.0.1 that the real CLI talks to through litellm."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time

from bench_e2e import start_shop
from common import PYTHON, ROOT, user_env, write_section

sys.path.insert(0, str(ROOT / "tests" / "planner"))
from fake_llm import FakeLLM  # noqa: E402

PLAN = {
    "plan": [
        {"tool": "extraction.products_generic", "parameters": {}},
        {"tool": "validation.price_range_check", "parameters": {"max": 150}},
    ],
    "expected_output": "products",
}


def main(repeats: int = 4) -> None:
    server, url = start_shop()
    fake = FakeLLM().start()
    fake.script(json.dumps(PLAN))
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        env = {
            **user_env(),
            "CURLLM_CACHE_DIR": cache,
            "CURLLM_LOAD_PLUGINS": "",
            "CURLLM_API_BASE": fake.base_url,
            "OPENAI_API_KEY": "sk-bench-not-a-real-key",
        }
        command = [
            PYTHON,
            "-m",
            "curllm_core",
            "find products under 150zł",
            "--url",
            url,
            "--model",
            "openai/x",
            "--format",
            "json",
        ]
        for run in range(1 + repeats):
            before = fake.calls
            started = time.perf_counter()
            out = subprocess.run(command, capture_output=True, text=True, env=env)
            seconds = time.perf_counter() - started
            result = json.loads(out.stdout)
            usage = result.get("usage") or {}
            rows.append(
                f"| {'first' if run == 0 else f'repeat {run}'} | {fake.calls - before} | "
                f"{usage.get('calls', 0)} | {result['ok']} | {seconds:.2f} s |"
            )
    fake.stop()
    server.shutdown()
    write_section(
        "llm",
        "LLM calls per task",
        [
            '`curllm "find products under 150zł" --url <example shop> --model openai/x` against a fake',
            "OpenAI-compatible server; calls counted by the server and reported in the result's `usage`.",
            "",
            "| run | calls (server) | calls (result usage) | ok | wall time |",
            "|---|---|---|---|---|",
            *rows,
        ],
    )


if __name__ == "__main__":
    main()
