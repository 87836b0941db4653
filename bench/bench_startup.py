"""Startup: cold `curllm tools list` and `curllm --help` against `python -c pass` (target: at most 8x)."""

from __future__ import annotations

import tempfile

from common import PYTHON, command_ms, write_section


def main(runs: int = 9) -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = {"CURLLM_CACHE_DIR": cache}
        base = command_ms([PYTHON, "-c", "pass"], runs=runs)
        rows = []
        for label, args in (
            ("curllm tools list", ["tools", "list"]),
            ("curllm --help", ["--help"]),
            ("curllm plugins list", ["plugins", "list"]),
        ):
            ms = command_ms([PYTHON, "-m", "curllm_core", *args], runs=runs, env=env)
            rows.append(f"| `{label}` | {ms:.0f} ms | {ms / base:.1f}x | ≤ 8x |")
    write_section(
        "startup",
        "Startup",
        [
            f"Median of {runs} runs after one warm-up (the warm-up fills the manifest cache, as a first run would).",
            "",
            "| command | median | vs `python -c pass` | target |",
            "|---|---|---|---|",
            f"| `python -c pass` | {base:.0f} ms | 1.0x | |",
            *rows,
        ],
    )


if __name__ == "__main__":
    main()
