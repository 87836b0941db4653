"""Every error code is owned by a class of the error tree (curllm_core/errors.py), and documented.

A code written as a bare string elsewhere could drift from the class that means it; this test reads
the source (AST) of every module for string constants that equal a code."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import curllm_core.errors as errors

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "curllm_core"


def owned() -> dict[str, list[str]]:
    codes: dict[str, list[str]] = {}
    for name, cls in vars(errors).items():
        if inspect.isclass(cls) and issubclass(cls, errors.CurllmError) and "code" in vars(cls):
            codes.setdefault(cls.code, []).append(name)
    return codes


def documented() -> set[str]:
    text = (ROOT / "docs" / "results-and-events.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([A-Z][A-Z_]+)` \|", text, re.M))


def test_every_documented_code_has_its_class_and_every_class_code_is_documented():
    assert documented() == set(owned())


def test_no_module_writes_a_code_as_a_bare_string():
    codes = set(owned())
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "errors.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {  # names in an __all__ list are names, not codes
            id(e)
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets)
            for e in ast.walk(node.value)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in codes and id(node) not in names:
                found.append(
                    f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r} (use {owned()[node.value][0]}.code)"
                )
    assert not found, "\n".join(found)
