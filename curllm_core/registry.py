"""The registry: every known tool by ``category.name``, where it came from, and what was wrong.

Tools arrive through ``register(x)`` (see hookspecs). Name clashes are resolved deterministically:
the tool registered **later wins** (load order: built-in tools, then plugins sorted by entry point
name, then ``CURLLM_TOOLS_PATH`` directories in the order listed), and a warning names both sources.

Checking a manifest needs jsonschema (slow to import), so checked manifests are cached on disk,
keyed by path, modification time and size; a listing of unchanged tools reads the cache only.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from .errors import ManifestError, Problem, ToolNotFound
from .files import write_json_atomic
from .manifest import Manifest, check_manifest, manifest_schema, read_manifest
from .version import __version__


class ManifestCache:
    """Checked manifest documents (or their problems) by file, valid while the file is unchanged."""

    def __init__(self, path: Path | None):
        self.path = path
        self.dirty = False
        self.entries: dict[str, list] = {}
        self.stamp = (
            f"{__version__}:{hashlib.sha256(json.dumps(manifest_schema()).encode()).hexdigest()[:12]}"
        )
        if path is None:
            return
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            if doc.get("stamp") == self.stamp:
                self.entries = doc["entries"]
        except (OSError, ValueError, KeyError, TypeError):
            pass  # no cache yet, or an unreadable one: it is rebuilt

    def check(self, file: Path) -> tuple[dict | None, list[Problem]]:
        """The checked document of ``file`` (or None) and its problems."""
        st = file.stat()
        key = str(file)
        hit = self.entries.get(key)
        if hit and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
            return hit[2], [Problem(**p) for p in hit[3]]
        try:
            doc = read_manifest(file)
            problems = check_manifest(doc, source=key)
        except ManifestError as e:
            doc, problems = None, e.problems
        if problems:
            doc = None
        self.entries[key] = [st.st_mtime_ns, st.st_size, doc, [p.to_dict() for p in problems]]
        self.dirty = True
        return doc, problems

    def save(self) -> None:
        if not (self.dirty and self.path):
            return
        try:
            write_json_atomic(self.path, {"stamp": self.stamp, "entries": self.entries}, prefix=".manifests-")
        except OSError:
            pass  # a read-only home only costs speed: the cache is an optimisation
        self.dirty = False


@dataclass
class PluginInfo:
    """What one plugin brought, or why it failed."""

    name: str
    version: str = ""
    module: str = ""
    tools: list[str] = field(default_factory=list)
    error: str | None = None
    builtin: bool = False

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "version": self.version,
            "module": self.module,
            "tools": self.tools,
            "error": self.error,
            "builtin": self.builtin,
        }


class Registry:
    """Tools by key. Build one with `curllm_core.plugins.load_registry`, or by hand for tests."""

    def __init__(self, *, cache: ManifestCache | None = None):
        self.tools: dict[str, Manifest] = {}
        self.impls: dict[str, Any] = {}  # code-first tools: key -> CodeTool
        self.problems: list[Problem] = []  # manifests that were skipped, and why
        self.warnings: list[str] = []
        self.plugins: list[PluginInfo] = []
        self._cache = cache or ManifestCache(None)
        self._findable: dict[str, str | None] = {}  # entrypoint module -> why it cannot be found

    # --- registering -----------------------------------------------------------------------

    def register(self, item: Any, *, source: str = "user") -> list[str]:
        """Register a directory, a manifest file or a code-first tool. Returns the keys added."""
        from .tool import CodeTool

        if isinstance(item, CodeTool):
            return [self.add(item.manifest, impl=item, source=source)]
        if isinstance(item, str | os.PathLike):
            path = Path(item).resolve()  # once here: files found below it are then absolute already
            if path.is_dir():
                files = sorted(p for p in path.rglob("*.json") if not p.name.endswith(".schema.json"))
                return [k for f in files for k in self._register_file(f, source)]
            if path.is_file():
                return self._register_file(path, source)
            raise ManifestError(f"{path}: no such manifest file or directory")
        raise TypeError(
            f"register() takes a directory, a manifest file or a @tool, not {type(item).__name__}"
        )

    def _register_file(self, file: Path, source: str) -> list[str]:
        doc, problems = self._cache.check(file)
        if not problems and doc is not None:
            manifest = Manifest.from_dict(doc, source=source, path=str(file))
            # Not cached: whether the code is installed can change while the manifest does not.
            problems = check_entrypoint(manifest, self._findable)
        if problems:
            self.problems.extend(problems)
            return []
        return [self.add(manifest, source=source)]

    def add(self, manifest: Manifest, *, impl: Any = None, source: str | None = None) -> str:
        key = manifest.key
        if source is not None and manifest.source != source:
            from dataclasses import replace

            manifest = replace(manifest, source=source)
        old = self.tools.get(key)
        if old is not None:
            self.warnings.append(
                f"tool {key} from {describe_source(manifest)} replaces the one from {describe_source(old)} "
                "(the tool registered later wins)"
            )
        self.tools[key] = manifest
        if impl is not None:
            self.impls[key] = impl
        else:
            self.impls.pop(key, None)
        self.__dict__.pop("fingerprint", None)
        return key

    # --- looking up -----------------------------------------------------------------------

    def resolve(self, name: str) -> Manifest:
        """The manifest for ``category.name``, or for a bare ``name`` when only one category has it."""
        if name in self.tools:
            return self.tools[name]
        matches = [m for m in self.tools.values() if m.name == name]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise ToolNotFound(
                f"tool name {name!r} is ambiguous: use one of {', '.join(sorted(m.key for m in matches))}"
            )
        close = difflib.get_close_matches(name, list(self.tools) + [m.name for m in self.tools.values()], n=3)
        hint = (
            f"; did you mean {', '.join(close)}?"
            if close
            else "; `curllm tools list` shows what is installed"
        )
        raise ToolNotFound(f"unknown tool {name!r}{hint}")

    def get(self, name: str) -> Manifest | None:
        try:
            return self.resolve(name)
        except ToolNotFound:
            return None

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def __iter__(self):
        return iter(sorted(self.tools.values(), key=lambda m: m.key))

    def __len__(self) -> int:
        return len(self.tools)

    def sites(self) -> list[str]:
        return sorted({s for m in self.tools.values() for s in m.sites})

    @cached_property
    def fingerprint(self) -> str:
        """A hash of every loaded manifest: changes whenever a tool is added, removed or edited."""
        h = hashlib.sha256()
        for key in sorted(self.tools):
            h.update(key.encode())
            h.update(self.tools[key].json_text().encode())
        return h.hexdigest()[:16]


def check_entrypoint(m: Manifest, memo: dict[str, str | None]) -> list[Problem]:
    """The entrypoint's module must be findable (it is not imported). ``memo`` caches by module."""
    from .tool import entrypoint_findable

    module = m.entrypoint.split(":", 1)[0]
    key = f"{module}@{Path(m.path).parent}"  # a module may live beside its manifest
    if key not in memo:
        memo[key] = entrypoint_findable(m)
    reason = memo[key]
    return [Problem(reason, "/entrypoint", m.path)] if reason else []


def describe_source(m: Manifest) -> str:
    return f"{m.source} ({m.path})" if m.path else m.source
