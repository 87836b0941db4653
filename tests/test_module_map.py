"""docs/architecture.md's module map follows the package: every module and package of curllm_core has
its row (a package's row names each of its modules), and every row names something that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "curllm_core"
#: Packages whose row describes them as a whole (one module per tool), not module by module.
DESCRIBED_AS_A_WHOLE = {"tools"}


def rows() -> dict[str, str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Module map", 1)[1].split("\n## ", 1)[0]
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `([^`]+)` \| (.*) \|$", section, re.M)}


def children(package: Path) -> list[str]:
    names = [p.name for p in package.glob("*.py") if p.name != "__init__.py"]
    names += [f"{p.name}/" for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    return sorted(names)


def test_every_module_and_package_has_its_row():
    table = rows()
    expected = {"curllm_core/__init__.py", *children(PACKAGE)}
    missing = sorted(expected - set(table))
    assert not missing, f"docs/architecture.md's module map has no row for {missing}"


def test_every_row_names_a_module_that_exists():
    gone = [
        name
        for name in rows()
        if name != "curllm_core/__init__.py" and name != "tools_manifests/" and not (PACKAGE / name).exists()
    ]
    assert not gone, f"docs/architecture.md's module map names modules that do not exist: {gone}"


def test_a_packages_row_names_each_of_its_modules():
    table = rows()
    unnamed = []
    for package in sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").exists()):
        if package.name in DESCRIBED_AS_A_WHOLE:
            continue
        row = table.get(f"{package.name}/", "")
        unnamed += [f"{package.name}/{name}" for name in children(package) if f"`{name}`" not in row]
    assert not unnamed, f"docs/architecture.md's module map does not name {unnamed} in its package's row"
