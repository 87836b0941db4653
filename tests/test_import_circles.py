"""No import circle in curllm_core: read from the source (AST), imports inside functions included.

A lazy import hides a circle, it does not remove it. Imports under ``if TYPE_CHECKING:`` never run
and do not count; importing ``a.b.c`` counts as importing its packages ``a.b`` and ``a`` too (their
``__init__`` runs first). The one deliberate exception is the lazy Ray backend: `batch/engine.py`
imports `batch/ray_backend.py` only when ``--backend ray`` is asked for (importing Ray costs ~2 s),
and the backend builds on the engine.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "curllm_core"

#: (importer, imported, inside a function): the only circle allowed, and only as a lazy import.
ALLOWED = {("curllm_core.batch.engine", "curllm_core.batch.ray_backend")}


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skipped


def _in_function(tree: ast.AST) -> set[int]:
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            inside |= {id(n) for n in ast.walk(node)}
    return inside


def edges() -> dict[str, set[tuple[str, bool]]]:
    """Module -> the curllm_core modules it imports (and whether inside a function)."""
    mods = modules()

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[tuple[str, bool]]] = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped, lazy = _type_checking_nodes(tree), _in_function(tree)
        targets: set[tuple[str, bool]] = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for target in names:
                if not target.startswith("curllm_core"):
                    continue
                resolved = known(target)
                while resolved:  # the module and the packages whose __init__ runs before it
                    if resolved != name and not name.startswith(resolved + "."):
                        targets.add((resolved, id(node) in lazy))
                    resolved = resolved.rpartition(".")[0] if "." in resolved else None
        graph[name] = targets
    return graph


def circles(graph: dict[str, set[tuple[str, bool]]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    plain = {m: {t for t, lazy in ts if not (lazy and (m, t) in ALLOWED)} for m, ts in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in plain.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(plain):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_in_curllm_core():
    graph = edges()
    found = circles(graph)
    detail = [
        " -> ".join(c)
        + ": "
        + "; ".join(
            f"{m} imports {t}" + (" (in a function)" if lazy else "")
            for m in c
            for t, lazy in sorted(graph[m])
            if t in c
        )
        for c in found
    ]
    assert not found, "import circles:\n" + "\n".join(detail)


def test_the_ray_exception_is_lazy_and_still_needed():
    # The exception names a real, function-level import; when it goes away, so must the exception.
    graph = edges()
    for importer, imported in ALLOWED:
        assert (imported, True) in graph[importer], f"{importer} no longer imports {imported} lazily"
        assert (imported, False) not in graph[importer]


def test_the_check_sees_circles_hidden_in_functions():
    graph = {
        "curllm_core.a": {("curllm_core.b", False)},
        "curllm_core.b": {("curllm_core.a", True)},  # a lazy import back: still a circle
        "curllm_core.c": {("curllm_core.a", False)},
    }
    assert circles(graph) == [["curllm_core.a", "curllm_core.b"]]
