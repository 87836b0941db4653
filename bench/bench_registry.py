"""Registry: discovery of 1,000 generated manifests (target: at most 150 ms), cold and cached."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from common import median_ms, write_section

from curllm_core.registry import ManifestCache, Registry


def generate(directory: Path, n: int = 1000) -> None:
    for i in range(n):
        category = ("extraction", "forms", "navigation", "validation")[i % 4]
        doc = {
            "name": f"tool_{i:04d}",
            "version": "1.0.0",
            "description": f"Generated tool number {i} for benchmarks.",
            "category": category,
            "triggers": [f"\\bthing{i}\\b", f"(find|get) widget{i}"],
            "parameters": {
                "type": "object",
                "properties": {"limit": {"type": "integer", "minimum": 1}, "query": {"type": "string"}},
            },
            "output_schema": {"type": "object", "properties": {"items": {"type": "array"}}},
            "examples": [{"instruction": f"find widget{i}", "parameters": {"limit": 5}}],
            "dependencies": ["playwright", "page"],
            "timeout_ms": 10000,
            "entrypoint": "curllm_core.tools.validation.required_fields:run",
            "produces": ["items"],
            "sites": [f"site{i}.example.com"],
        }
        path = directory / category / f"tool_{i:04d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc))


def main(runs: int = 7) -> None:
    root = Path(tempfile.mkdtemp())
    try:
        tools = root / "tools"
        generate(tools)
        cache_file = root / "cache" / "manifests.json"

        def cold() -> None:
            Registry(cache=ManifestCache(None)).register(tools)

        def cached() -> None:
            cache = ManifestCache(cache_file)
            registry = Registry(cache=cache)
            registry.register(tools)
            cache.save()
            assert len(registry) == 1000

        cold_ms = median_ms(cold, runs=3)
        cached_ms = median_ms(cached, runs=runs)
    finally:
        shutil.rmtree(root)
    write_section(
        "registry",
        "Registry discovery",
        [
            "| what | median | target |",
            "|---|---|---|",
            f"| discover 1,000 manifests, cached (unchanged files) | {cached_ms:.0f} ms | ≤ 150 ms |",
            f"| discover 1,000 manifests, cold (full JSON Schema check of each) | {cold_ms:.0f} ms | (first run only) |",
            "",
            "The cold path checks every manifest against the schema, its parameters and output schemas against",
            "the metaschema, its triggers and examples; the result is cached by path, mtime and size.",
        ],
    )


if __name__ == "__main__":
    main()
