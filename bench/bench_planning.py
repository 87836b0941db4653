"""Planning with many tools installed: discovery and rule planning with 1,000 extra manifests, and
the LLM prompt size with 20 and with 1,000 tools (it must stay flat: only the top-k tools go in)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from bench_registry import generate
from common import median_ms, write_section

from curllm_core.manifest import manifests_dir
from curllm_core.planner.llm import build_messages
from curllm_core.planner.rules import plan_with_rules
from curllm_core.registry import ManifestCache, Registry

INSTRUCTIONS = [
    ("find products under 150zł", "https://shop.example/"),
    ("top 10 stories with more than 100 points", "https://news.ycombinator.com/"),
    ("produkty od 100 do 200 zł", "https://www.ceneo.pl/szukaj-canon"),
    ("links to PDF files", "https://example.org/docs"),
    ("suche nach Katzenfutter unter 20 €", "https://www.amazon.de/"),
]


def registry_with(extra: Path | None, n: int, cache_file: Path) -> Registry:
    cache = ManifestCache(cache_file)
    registry = Registry(cache=cache)
    registry.register(manifests_dir())
    if extra is not None:
        generate(extra, n)
        registry.register(extra)
    cache.save()
    return registry


def plan_all(registry: Registry) -> None:
    for instruction, url in INSTRUCTIONS:
        plan_with_rules(instruction, url, registry)


def prompt_chars(registry: Registry) -> int:
    return sum(len(m["content"]) for m in build_messages(*INSTRUCTIONS[0], registry))


def main() -> None:
    root = Path(tempfile.mkdtemp())
    try:
        base = registry_with(None, 0, root / "c0.json")
        small = registry_with(root / "two", 2, root / "c1.json")  # 18 built-in + 2 = 20 tools
        big = registry_with(root / "thousand", 1000, root / "c2.json")

        def discover() -> None:
            registry_with(None, 0, root / "c2.json").register(root / "thousand")

        discover_ms = median_ms(discover, runs=5)
        rows = []
        for label, registry in (("built-in only", base), ("built-in + 1,000 generated", big)):
            plan_all(registry)  # first use compiles triggers and examples (memoised per manifest)
            ms = median_ms(lambda r=registry: plan_all(r), runs=5) / len(INSTRUCTIONS)
            rows.append(f"| rule planning, {label} ({len(registry)} tools) | {ms:.1f} ms per instruction | |")
        p20, p1000 = prompt_chars(small), prompt_chars(big)
    finally:
        shutil.rmtree(root)
    write_section(
        "planning",
        "Planning with many tools",
        [
            "| what | median | target |",
            "|---|---|---|",
            f"| discovery, built-in + 1,000 generated manifests (cached) | {discover_ms:.0f} ms | ≤ 150 ms |",
            *rows,
            f"| LLM prompt, {len(small)} tools installed | {p20:,} characters | |",
            f"| LLM prompt, {len(big)} tools installed | {p1000:,} characters | flat ({p1000 / p20:.2f}x) |",
            "",
            f"Rule planning is timed over {len(INSTRUCTIONS)} instructions (EN, PL, DE; shops, HN, Ceneo, Amazon).",
            "The prompt holds the instruction, the URL and the top-k tools by the rule scorer, so its size",
            "does not grow with the number of installed tools.",
        ],
    )


if __name__ == "__main__":
    main()
