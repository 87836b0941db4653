"""``curllm tools new``: a working tool to start from, in a directory curllm loads with CURLLM_TOOLS_PATH.

Three files per tool, side by side: ``NAME.json`` (the manifest), ``NAME.py`` (the code: ``async def
run(ctx, **params)``; a manifest loaded from a directory may name a module that sits beside it) and
``test_NAME.py`` (a pytest test using curllm's fixtures, which passes as generated). Each category
gets a small tool that really does its job, so that the first edit is to a running example.
"""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

from .errors import UsageError
from .manifest import CATEGORIES

NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
#: The order of a manifest's fields in the written file, as in the built-in manifests.
_ORDER = (
    "name",
    "version",
    "description",
    "category",
    "triggers",
    "parameters",
    "output_schema",
    "examples",
    "dependencies",
    "timeout_ms",
    "entrypoint",
    "consumes",
    "produces",
    "effects",
    "selectors",
)

# --- per category: the manifest's fields, the code, the test body -------------------------------

_MANIFESTS: dict[str, dict] = {
    "extraction": {
        "description": "Extract the items of a list page: each element matching selectors.item, with its title and link.",
        "triggers": ["\\b(items?|list|entries|links?)\\b"],
        "parameters": {
            "type": "object",
            "properties": {
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Keep only the first N items.",
                    "optional": True,
                },
            },
            "additionalProperties": False,
        },
        "output_schema": {
            "type": "object",
            "required": ["items"],
            "properties": {
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["title", "url"],
                        "properties": {"title": {"type": "string"}, "url": {"type": ["string", "null"]}},
                    },
                }
            },
        },
        "examples": [{"instruction": "list the first 5 items", "parameters": {"limit": 5}}],
        "dependencies": ["playwright", "page"],
        "produces": ["items"],
        "selectors": {"item": ".item, article", "title": "h2, h3, a", "link": "a[href]"},
    },
    "validation": {
        "description": "Keep the items whose field contains a text (case-insensitive); or fail the step when any does not.",
        "triggers": ["\\b(containing|contains|mentioning|with the word)\\b"],
        "parameters": {
            "type": "object",
            "required": ["contains"],
            "properties": {
                "contains": {"type": "string", "minLength": 1, "description": "The text to look for."},
                "field": {"type": "string", "default": "title", "description": "The item field to look in."},
                "key": {
                    "role": "data_key",
                    "type": "string",
                    "default": "items",
                    "description": "Data key of the item list.",
                },
                "mode": {
                    "enum": ["filter", "fail"],
                    "default": "filter",
                    "description": "filter: drop the other items; fail: fail the step if any item lacks the text.",
                },
            },
            "additionalProperties": False,
        },
        "output_schema": {
            "type": "object",
            "required": ["validation"],
            "properties": {
                "validation": {
                    "type": "object",
                    "required": ["checked", "kept", "rejected"],
                    "properties": {
                        "checked": {"type": "integer"},
                        "kept": {"type": "integer"},
                        "rejected": {"type": "array"},
                    },
                }
            },
            "additionalProperties": {"type": "array"},
        },
        "examples": [{"instruction": "items mentioning python", "parameters": {"contains": "python"}}],
        "dependencies": [],
        "consumes": ["items"],
        "produces": ["items"],
    },
    "navigation": {
        "description": "Follow the link whose text contains the given text, and wait for the page it leads to.",
        "triggers": ["\\b(go to|open|click|follow)\\b"],
        "parameters": {
            "type": "object",
            "required": ["text"],
            "properties": {
                "text": {"type": "string", "minLength": 1, "description": "Text of the link to follow."}
            },
            "additionalProperties": False,
        },
        "output_schema": {
            "type": "object",
            "required": ["url"],
            "properties": {"url": {"type": "string"}, "link": {"type": "string"}},
        },
        "examples": [{"instruction": "open the About page", "parameters": {"text": "About"}}],
        "dependencies": ["playwright", "page"],
        "selectors": {"links": "a[href]"},
    },
    "forms": {
        "description": "Type a query into the page's search box and submit it.",
        "triggers": ["\\b(search|look up|query)\\b"],
        "parameters": {
            "type": "object",
            "required": ["query"],
            "properties": {"query": {"type": "string", "minLength": 1, "description": "What to type."}},
            "additionalProperties": False,
        },
        "output_schema": {
            "type": "object",
            "required": ["query", "url"],
            "properties": {"query": {"type": "string"}, "url": {"type": "string"}},
        },
        "examples": [{"instruction": "search for shoes", "parameters": {"query": "shoes"}}],
        "dependencies": ["playwright", "page"],
        "effects": "write",
        "selectors": {
            "input": "input[type=search], input[name=q], input[name=query], input[type=text]",
            "submit": "button[type=submit], input[type=submit]",
        },
    },
}

_CODE: dict[str, str] = {
    "extraction": '''"""${key}: ${description}

The markup lives in the manifest's ``selectors`` block (ctx.selectors), so a site change is a JSON
edit. `extract` is pure (test it on saved HTML without a browser); `run` fetches the page's HTML in
one browser round trip and calls it.
"""

from __future__ import annotations

from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser

from curllm_core.tool import ToolContext


def extract(html: str, base_url: str, selectors: dict, limit: int | None = None) -> list[dict]:
    """The items of ``html``: title and absolute link of each element matching selectors["item"]."""
    tree = LexborHTMLParser(html)
    items, seen = [], set()
    for node in tree.css(selectors["item"]):
        if node.mem_id in seen:  # an element matching two selectors of a list comes back twice
            continue
        seen.add(node.mem_id)
        title_el = node.css_first(selectors["title"])
        link_el = node.css_first(selectors["link"])
        title = " ".join((title_el or node).text(deep=True).split())
        href = link_el.attributes.get("href") if link_el is not None else None
        if title:
            items.append({"title": title, "url": urljoin(base_url, href) if href else None})
    return items[:limit] if limit else items


async def run(ctx: ToolContext, limit: int | None = None) -> dict:
    html = await ctx.page.content()
    return {"items": extract(html, ctx.page.url, ctx.selectors, limit)}
''',
    "validation": '''"""${key}: ${description}

A validation tool works on the pipeline data (ctx.data), not on the page: it needs no browser.
"""

from __future__ import annotations

from curllm_core.errors import ToolError
from curllm_core.tool import ToolContext


async def run(ctx: ToolContext, contains: str, field: str = "title", key: str = "items", mode: str = "filter") -> dict:
    items = ctx.data.get(key)
    if not isinstance(items, list):
        raise ToolError(f"no list of items under {key!r} in the data")
    needle = contains.casefold()
    kept, rejected = [], []
    for index, item in enumerate(items):
        value = item.get(field) if isinstance(item, dict) else None
        if isinstance(value, str) and needle in value.casefold():
            kept.append(item)
        else:
            rejected.append({"index": index, "reason": f"item {index}: {field} does not contain {contains!r}"})
    if rejected and mode == "fail":
        raise ToolError(f"{len(rejected)} of {len(items)} items fail: {rejected[0]['reason']}")
    return {key: kept, "validation": {"checked": len(items), "kept": len(kept), "rejected": rejected}}
''',
    "navigation": '''"""${key}: ${description}"""

from __future__ import annotations

from curllm_core.errors import ToolError
from curllm_core.tool import ToolContext


async def run(ctx: ToolContext, text: str) -> dict:
    page = ctx.page
    link = page.locator(ctx.selectors["links"]).filter(has_text=text).first
    if await link.count() == 0:
        raise ToolError(f"no link containing {text!r} on {page.url}")
    label = " ".join((await link.inner_text()).split())
    await link.click()
    await page.wait_for_load_state("domcontentloaded")
    return {"url": page.url, "link": label}
''',
    "forms": '''"""${key}: ${description}"""

from __future__ import annotations

from curllm_core.errors import ToolError
from curllm_core.tool import ToolContext


async def run(ctx: ToolContext, query: str) -> dict:
    page = ctx.page
    box = page.locator(ctx.selectors["input"]).first
    if await box.count() == 0:
        raise ToolError(f"no search box on {page.url}")
    await box.fill(query)
    submit = page.locator(ctx.selectors["submit"]).first
    if await submit.count():
        await submit.click()
    else:
        await box.press("Enter")
    await page.wait_for_load_state("domcontentloaded")
    return {"query": query, "url": page.url}
''',
}

_TEST_HEAD = '''"""Tests of ${key}, with curllm's pytest fixtures (they load by themselves wherever curllm is installed).

Run them with `pytest ${dirname}` (needs pytest-asyncio). The browser tests skip when no Chromium
is installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from curllm_core.testing import make_registry

HERE = Path(__file__).resolve().parent


@pytest.fixture
def curllm_registry():
    """The installed tools plus the ones in this directory, as CURLLM_TOOLS_PATH=${dirname} loads them."""
    return make_registry(HERE)


def test_manifest_is_valid(curllm_check_manifest):
    assert curllm_check_manifest(HERE / "${name}.json") == []

'''

_TESTS: dict[str, str] = {
    "extraction": '''
PAGE = """<html><body><ul>
  <li class="item"><a href="/posts/1">First post</a></li>
  <li class="item"><a href="https://other.example/2">Second post</a></li>
</ul></body></html>"""


# The fixtures share one browser per session, in the session's event loop: tests run there too.
@pytest.mark.asyncio(loop_scope="session")
async def test_extracts_the_items(curllm_run_tool):
    out = await curllm_run_tool("${key}", html=PAGE, url="https://example.com/list")
    assert out["items"] == [
        {"title": "First post", "url": "https://example.com/posts/1"},
        {"title": "Second post", "url": "https://other.example/2"},
    ]


@pytest.mark.asyncio(loop_scope="session")
async def test_limit(curllm_run_tool):
    out = await curllm_run_tool("${key}", html=PAGE, params={"limit": 1})
    assert [item["title"] for item in out["items"]] == ["First post"]
''',
    "validation": """
ITEMS = [{"title": "Learning Python"}, {"title": "Rust in Action"}, {"title": "Python Tricks"}]


# The fixtures share one browser per session, in the session's event loop: tests run there too.
@pytest.mark.asyncio(loop_scope="session")
async def test_keeps_matching_items(curllm_run_tool):
    out = await curllm_run_tool("${key}", data={"items": ITEMS}, params={"contains": "python"})
    assert [item["title"] for item in out["items"]] == ["Learning Python", "Python Tricks"]
    assert out["validation"]["kept"] == 2


@pytest.mark.asyncio(loop_scope="session")
async def test_fail_mode(curllm_run_tool):
    from curllm_core.errors import ToolError

    with pytest.raises(ToolError, match="1 of 3 items fail"):
        await curllm_run_tool("${key}", data={"items": ITEMS}, params={"contains": "python", "mode": "fail"})
""",
    "navigation": '''
PAGE = """<html><body>
  <nav><a href="#home">Home</a> <a href="#about">About us</a></nav>
  <h2 id="about">About</h2>
</body></html>"""


# The fixtures share one browser per session, in the session's event loop: tests run there too.
@pytest.mark.asyncio(loop_scope="session")
async def test_follows_the_link(curllm_run_tool):
    out = await curllm_run_tool("${key}", html=PAGE, url="https://example.com/", params={"text": "About"})
    assert out == {"url": "https://example.com/#about", "link": "About us"}
''',
    "forms": '''
PAGE = """<html><body>
  <form onsubmit="event.preventDefault(); location.hash = 'q=' + encodeURIComponent(this.q.value)">
    <input type="search" name="q"> <button type="submit">Search</button>
  </form>
</body></html>"""


# The fixtures share one browser per session, in the session's event loop: tests run there too.
@pytest.mark.asyncio(loop_scope="session")
async def test_types_and_submits(curllm_run_tool):
    out = await curllm_run_tool("${key}", html=PAGE, url="https://example.com/", params={"query": "red shoes"})
    assert out == {"query": "red shoes", "url": "https://example.com/#q=red%20shoes"}
''',
}


def dumps(value: object, indent: int = 0, width: int = 100) -> str:
    """JSON laid out for people: a value that fits on its line stays on it, the rest is indented."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, dict | list) or len(flat) + indent <= width:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        inner = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: {dumps(v, indent + 2, width)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(inner) + "\n" + " " * indent + "}"
    inner = [pad + dumps(v, indent + 2, width) for v in value]
    return "[\n" + ",\n".join(inner) + "\n" + " " * indent + "]"


@dataclass(frozen=True)
class Scaffold:
    """What `new_tool` wrote."""

    key: str
    directory: Path
    manifest: Path
    code: Path
    test: Path

    @property
    def files(self) -> list[Path]:
        return [self.manifest, self.code, self.test]


def parse_name(name: str, category: str | None) -> tuple[str, str]:
    """``(category, name)`` from NAME (or ``category.name``) and --category; UsageError if unusable."""
    if "." in name:
        cat, _, name = name.partition(".")
        if category and category != cat:
            raise UsageError(f"the name says category {cat!r} but --category says {category!r}")
        category = cat
    if not category:
        raise UsageError(
            f"which category is {name!r}? pass --category ({', '.join(CATEGORIES)}) or NAME as category.name"
        )
    if category not in CATEGORIES:
        raise UsageError(f"unknown category {category!r}: one of {', '.join(CATEGORIES)}")
    if not NAME_RE.match(name):
        raise UsageError(
            f"tool name {name!r} must be snake_case: a lower-case letter, then letters, digits or _"
        )
    return category, name


def new_tool(
    name: str, category: str | None, directory: str | Path = "curllm_tools", *, force: bool = False
) -> Scaffold:
    """Write a manifest, its code and a test for tool ``category.name`` into ``directory``."""
    category, name = parse_name(name, category)
    directory = Path(directory)
    manifest_file, code_file, test_file = (
        directory / f"{name}.json",
        directory / f"{name}.py",
        directory / f"test_{name}.py",
    )
    existing = [str(f) for f in (manifest_file, code_file, test_file) if f.exists()]
    if existing and not force:
        raise UsageError(f"not overwriting {', '.join(existing)} (pass --force to replace)")
    # The code is imported as module NAME when it is on sys.path (pytest puts the directory there):
    # a name that is already an importable module would load that module instead of the tool.
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin and Path(spec.origin).resolve() != code_file.resolve():
        raise UsageError(
            f"{name!r} is already the name of an importable module ({spec.origin}); pick another tool name"
        )

    key = f"{category}.{name}"
    values = {
        "name": name,
        "version": "0.1.0",
        "category": category,
        "effects": "read",
        **_MANIFESTS[category],
        "timeout_ms": 15000 if _MANIFESTS[category]["dependencies"] else 5000,
        # A module beside the manifest: curllm imports NAME.py from the manifest's directory.
        "entrypoint": f"{name}:run",
    }
    doc = {k: values[k] for k in _ORDER if k in values}
    fields = {"key": key, "name": name, "description": doc["description"], "dirname": directory.as_posix()}
    directory.mkdir(parents=True, exist_ok=True)
    manifest_file.write_text(dumps(doc) + "\n", encoding="utf-8")
    code_file.write_text(Template(_CODE[category]).substitute(fields), encoding="utf-8")
    test_file.write_text(Template(_TEST_HEAD + _TESTS[category]).substitute(fields), encoding="utf-8")
    return Scaffold(key, directory, manifest_file, code_file, test_file)
