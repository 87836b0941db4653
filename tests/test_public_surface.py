"""The public surface, pinned (as httpx's test_exported_members.py does): what ``curllm_core`` and
``curllm_core.toolkit`` export, that every exported name resolves, and that the reference plugin
imports only from the toolkit. A change here is a change of the plugin API: say so in the docs."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import curllm_core
from curllm_core import toolkit

ROOT = Path(__file__).resolve().parent.parent

PACKAGE = {
    "__version__",
    "hookimpl",
    "tool",
    "BaseTool",
    "CodeTool",
    "ToolContext",
    "load_registry",
    "run",
    "arun",
    "execute_plan",
    "run_many",
    "Plan",
    "Step",
    "check_plan",
    "normalise_plan",
    "Result",
    "StepResult",
    "CurllmError",
}

TOOLKIT = {
    # writing a tool
    "ToolContext",
    "tool",
    "BaseTool",
    "hookimpl",
    # failing
    "CurllmError",
    "ToolError",
    "BadParams",
    "BadSelectors",
    "NoPage",
    "ElementNotFound",
    "FieldNotFound",
    "OptionNotFound",
    "NoMatch",
    "SubmitFailed",
    "SubmitUndone",
    "StepTimeout",
    # events for further pages
    "UrlStartEvent",
    "UrlCompleteEvent",
    # the page and HTML
    "require_page",
    "page_html",
    "parse_html",
    "page_base",
    "absolute_url",
    "visible_text",
    "collapse_space",
    # the layouts engine
    "best_layout",
    "extract_layout",
    "select_items",
    "field_value",
    # validation tools
    "items_of",
    "verdict",
    # prices
    "parse_price",
    "filter_by_price",
    "currency_for_domain",
}


def test_the_package_exports_exactly_its_public_names():
    assert set(curllm_core.__all__) == PACKAGE
    assert len(curllm_core.__all__) == len(PACKAGE)  # no name listed twice


def test_every_exported_name_of_the_package_resolves():
    for name in curllm_core.__all__:
        assert getattr(curllm_core, name) is not None, name


def test_the_lazy_table_and_all_agree():
    # A lazily imported name that is not in __all__ is public by accident; one in __all__ that is
    # neither lazy nor imported fails on first use.
    lazy = set(curllm_core._LAZY)
    assert lazy <= set(curllm_core.__all__)
    eager = {n for n in curllm_core.__all__ if n in vars(curllm_core)} - lazy
    assert lazy | eager == set(curllm_core.__all__)


def test_the_decorator_wins_over_the_submodule_of_its_name():
    assert callable(curllm_core.tool) and not hasattr(curllm_core.tool, "__path__")
    assert curllm_core.tool is toolkit.tool


def test_the_toolkit_exports_exactly_its_public_names():
    assert set(toolkit.__all__) == TOOLKIT
    assert len(toolkit.__all__) == len(TOOLKIT)
    for name in toolkit.__all__:
        assert getattr(toolkit, name) is not None, name


def test_toolkit_names_are_the_ones_the_built_in_tools_use():
    # One object under two addresses, never a copy that could drift.
    from curllm_core.errors import ToolError
    from curllm_core.events import UrlStartEvent
    from curllm_core.prices import currency_for_domain
    from curllm_core.tool import ToolContext

    assert toolkit.ToolError is ToolError and toolkit.ToolContext is ToolContext
    assert toolkit.UrlStartEvent is UrlStartEvent and toolkit.currency_for_domain is currency_for_domain


def _curllm_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith("curllm_core")
        ):
            found.add(node.module or "")
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("curllm_core")}
    return found


def test_the_reference_plugin_imports_only_the_toolkit():
    sources = sorted((ROOT / "plugins" / "curllm-allegro" / "src").rglob("*.py"))
    assert sources
    used = {module: path.name for path in sources for module in _curllm_imports(path)}
    assert set(used) == {"curllm_core.toolkit"}, used


def test_the_old_addresses_plugins_use_still_work():
    # Written against before the toolkit was their one address: they stay.
    for module, name in [
        ("curllm_core.tool", "ToolContext"),
        ("curllm_core.errors", "ToolError"),
        ("curllm_core.event_types", "UrlStartEvent"),
        ("curllm_core.testing", "make_registry"),
        ("curllm_core", "hookimpl"),
    ]:
        assert getattr(importlib.import_module(module), name) is not None, (module, name)
