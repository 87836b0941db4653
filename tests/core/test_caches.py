"""curllm_core.caches: listing and clearing the plan and manifest caches, and nothing else."""

from __future__ import annotations

import json

import pytest

from curllm_core import caches
from curllm_core.planner import cache as plan_cache
from curllm_core.plugins import load_registry


@pytest.fixture
def filled(isolated_env, tmp_path):
    """A cache directory with two plans, the manifest caches, a stray file and a crashed writer's temp file."""
    load_registry()  # writes manifests.json
    for i, instruction in enumerate(["find products under 150zł", "top 10 stories"]):
        plan = {
            "plan": [{"tool": "extraction.products_generic", "parameters": {}}],
            "expected_output": "products",
        }
        plan_cache.store(
            f"k{i}", plan, ["why"], "rules", instruction=instruction, url=f"https://shop{i}.example/p/1"
        )
    root = tmp_path / "cache"
    (root / "code_tools.json").write_text(
        json.dumps({"abc": {"name": "sort_items", "category": "validation"}}), encoding="utf-8"
    )
    (root / "plans" / ".plan-x.tmp").write_text("{", encoding="utf-8")
    (root / "someone-elses.txt").write_text("keep me", encoding="utf-8")
    return root


def test_describe_counts_entries_and_bytes(filled):
    by_kind = {i.kind: i for i in caches.describe()}
    assert by_kind["plans"].entries == 2 and by_kind["plans"].size > 0
    assert by_kind["plans"].paths == [filled / "plans"]
    builtin_manifests = len(load_registry({"CURLLM_LOAD_PLUGINS": ""}, use_cache=False))
    assert by_kind["manifests"].entries == builtin_manifests + 1  # the files, and one @tool
    assert by_kind["manifests"].paths == [filled / "manifests.json", filled / "code_tools.json"]


def test_plan_entries_say_what_each_plan_is_for(filled):
    entries = caches.plan_entries()
    assert [e.detail["instruction"] for e in entries] == ["find products under 150zł", "top 10 stories"]
    assert entries[0].detail["url_shape"] == "shop0.example/p/#"
    assert entries[0].detail["source"] == "rules"
    assert entries[0].detail["tools"] == ["extraction.products_generic"]
    assert entries[0].name == "k0" and entries[0].path == filled / "plans" / "k0.json"


def test_manifest_entries(filled):
    entries = caches.manifest_entries()
    assert any(e.name.endswith("products_generic.json") and e.detail["ok"] for e in entries)
    assert entries[-1].detail["tool"] == "validation.sort_items"


def test_clear_plans_only(filled):
    removed = caches.clear(["plans"])
    assert [(i.kind, i.entries) for i in removed] == [("plans", 2)]
    assert list((filled / "plans").iterdir()) == []  # the temp file went too
    assert (filled / "manifests.json").exists() and (filled / "code_tools.json").exists()
    assert (filled / "someone-elses.txt").read_text() == "keep me"
    assert plan_cache.load("k0") is None


def test_clear_everything_keeps_other_files(filled):
    removed = caches.clear()
    assert [i.kind for i in removed] == ["plans", "manifests"]
    assert sorted(p.name for p in filled.iterdir()) == ["plans", "someone-elses.txt"]
    assert {i.kind: i.entries for i in caches.describe()} == {"plans": 0, "manifests": 0}
    # Rebuilt on the next start.
    load_registry()
    assert caches.describe(["manifests"])[0].entries > 0


def test_no_cache_directory_yet(isolated_env, tmp_path):
    assert [(i.kind, i.entries, i.size) for i in caches.describe()] == [("plans", 0, 0), ("manifests", 0, 0)]
    assert [i.entries for i in caches.clear()] == [0, 0]
    assert not (tmp_path / "cache").exists()


def test_unknown_kind():
    with pytest.raises(ValueError, match="unknown cache tools"):
        caches.describe(["tools"])
