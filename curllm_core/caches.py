"""The on-disk caches, as a user sees them: what each holds, where, how big; and clearing them.

Two kinds live under ``cache_dir()`` (``CURLLM_CACHE_DIR``, else ``$XDG_CACHE_HOME/curllm``):

- ``plans``: ``plans/<key>.json``, one checked plan per task shape (`curllm_core.planner.cache`);
- ``manifests``: ``manifests.json`` (checked manifest files) and ``code_tools.json`` (manifests
  derived from ``@tool`` functions), both rebuilt on the next start.

Clearing removes only these files (and temporary files a crashed writer left beside them), never
anything else in the directory: ``CURLLM_CACHE_DIR`` may point at a directory shared with others.
Every cache is an optimisation, so clearing one costs time on the next run and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .files import cache_dir

KINDS = ("plans", "manifests")
DESCRIPTIONS = {
    "plans": "plans made before, reused for the same task shape (no planning, no model call)",
    "manifests": "checked tool manifests, so that a start reads no JSON Schema",
}
# Temporary files of the atomic writers (tempfile.mkstemp prefixes), left behind only by a crash.
_TEMP_PREFIXES = {"plans": (".plan-",), "manifests": (".manifests-", ".code-tools-")}


@dataclass
class CacheEntry:
    """One cached item: a plan file, or a manifest the manifest cache knows."""

    name: str  # the plan key, or the manifest file / @tool key
    path: Path  # the file that holds it
    size: int = 0  # bytes on disk (plans); 0 for entries inside a shared file
    detail: dict = field(default_factory=dict)  # instruction, url_shape, source, created; or ok/problems

    def to_dict(self) -> dict:
        return {"name": self.name, "path": str(self.path), "size": self.size, **self.detail}


@dataclass
class CacheInfo:
    """One cache: where it is, how many entries, how many bytes."""

    kind: str
    paths: list[Path]
    entries: int
    size: int
    description: str

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "paths": [str(p) for p in self.paths],
            "entries": self.entries,
            "size": self.size,
            "description": self.description,
        }


def _plans_dir() -> Path:
    return cache_dir() / "plans"


def _manifest_files() -> list[Path]:
    return [cache_dir() / "manifests.json", cache_dir() / "code_tools.json"]


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # missing, or torn by a crash: it counts as empty (and is rebuilt when used)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _plan_files() -> list[Path]:
    try:
        return sorted(p for p in _plans_dir().iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except OSError:
        return []


def plan_entries() -> list[CacheEntry]:
    """Every cached plan, oldest first, with what it was made for."""
    out = []
    for path in _plan_files():
        read = _read_json(path)
        doc: dict = read if isinstance(read, dict) else {}
        plan: dict = doc["plan"] if isinstance(doc.get("plan"), dict) else {}
        steps: list = plan["plan"] if isinstance(plan.get("plan"), list) else []
        out.append(
            CacheEntry(
                path.stem,
                path,
                _size(path),
                {
                    "instruction": doc.get("instruction"),
                    "url_shape": doc.get("url_shape"),
                    "source": doc.get("source"),
                    "created": doc.get("created"),
                    "tools": [s.get("tool", "map") for s in steps if isinstance(s, dict)],
                },
            )
        )
    return sorted(out, key=lambda e: (e.detail.get("created") or "", e.name))


def manifest_entries() -> list[CacheEntry]:
    """Every manifest file the manifest cache checked (with its problems), and every cached @tool."""
    out = []
    registry_file, code_file = _manifest_files()
    doc = _read_json(registry_file)
    entries = doc.get("entries") if isinstance(doc, dict) else None
    for name, entry in sorted((entries or {}).items()):
        problems = entry[3] if isinstance(entry, list) and len(entry) > 3 else []
        out.append(CacheEntry(name, registry_file, detail={"ok": not problems, "problems": len(problems)}))
    code = _read_json(code_file)
    for key, manifest in sorted((code or {}).items() if isinstance(code, dict) else []):
        name = manifest.get("name") if isinstance(manifest, dict) else None
        category = manifest.get("category") if isinstance(manifest, dict) else None
        out.append(CacheEntry(key, code_file, detail={"ok": True, "tool": f"{category}.{name}"}))
    return out


def describe(kinds: Iterable[str] = KINDS) -> list[CacheInfo]:
    """A summary of each cache: its paths, number of entries and bytes on disk."""
    out = []
    for kind in _check(kinds):
        if kind == "plans":
            files = _plan_files()
            out.append(
                CacheInfo(kind, [_plans_dir()], len(files), sum(map(_size, files)), DESCRIPTIONS[kind])
            )
        else:
            files = _manifest_files()
            out.append(
                CacheInfo(kind, files, len(manifest_entries()), sum(map(_size, files)), DESCRIPTIONS[kind])
            )
    return out


def clear(kinds: Iterable[str] = KINDS) -> list[CacheInfo]:
    """Remove the given caches' files; returns what was removed (entries and bytes, per cache).

    A file that cannot be removed raises OSError naming it: a cache that looks cleared but is not
    would keep serving old plans.
    """
    removed = []
    for info in describe(kinds):
        if info.kind == "plans":
            directory = _plans_dir()
            files = _plan_files() + _temp_files(directory, info.kind)
        else:
            files = [p for p in _manifest_files() if p.exists()] + _temp_files(cache_dir(), info.kind)
        for path in files:
            path.unlink(missing_ok=True)
        removed.append(info)
    return removed


def _temp_files(directory: Path, kind: str) -> list[Path]:
    try:
        return [p for p in directory.iterdir() if p.name.startswith(_TEMP_PREFIXES[kind])]
    except OSError:
        return []


def _check(kinds: Iterable[str]) -> list[str]:
    kinds = list(dict.fromkeys(kinds))
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown cache {', '.join(unknown)} (known: {', '.join(KINDS)})")
    return kinds


def human_size(size: int) -> str:
    """``size`` bytes for people: ``512 B``, ``4.2 kB``, ``1.3 MB``."""
    if size < 1024:
        return f"{size} B"
    return f"{size / 1024:.1f} kB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MB"
