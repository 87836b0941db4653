"""The tool API: what an implementation receives (`ToolContext`) and the two ways to write one.

1. A manifest JSON file whose ``entrypoint`` names ``module:attr``: a `BaseTool` subclass or an
   ``async def fn(ctx, **params) -> dict``. The module is imported only when the tool runs.
2. Code first: ``@tool(category=...)`` on a typed async function. Its manifest is derived from the
   signature (pydantic builds the parameter schema) and docstring, and the function itself is what
   gets registered.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import logging
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import EntrypointImport, EntrypointInvalid, NoPage
from .manifest import Manifest, check_manifest

if TYPE_CHECKING:
    from .tools.stated_count import ListingWarning

#: ``emit(event)`` with a typed event (`curllm_core.events`), or ``emit(type, data)`` with its JSON; returns nothing useful.
Emit = Callable[..., object]


@dataclass
class ToolContext:
    """Everything a tool may use. Framework objects are injected here, never passed as parameters.

    ``data`` is the pipeline data produced so far (read it; return what you produce). ``page`` is a
    Playwright page for tools whose manifest depends on ``page``, else None (on the HTTP engine:
    ``document`` holds the page's HTML instead).
    """

    page: Any = None
    data: dict = field(default_factory=dict)
    manifest: Manifest | None = None
    settings: dict = field(default_factory=dict)
    emit: Emit = lambda *event: None  # noqa: E731 - progress messages from inside a tool
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("curllm.tool"))
    browser: Any = None  # the curllm Browser session, for tools that open further pages
    url: str | None = None  # the current page's URL (or the task's start URL), also for data-only tools
    #: ``await ctx.run_tool("extraction.products_generic", **params)`` runs another tool on the same
    #: page and data (its parameters and output checked against its manifest); set by the executor.
    run_tool: Callable[..., Awaitable[dict]] | None = None
    #: ``ctx.warn("read 5 of more pages")``: what the tool could not fully do although it succeeded;
    #: it reaches the result's ``warnings`` (named by the tool) and stderr. A typed warning
    #: (`stated_count.ListingWarning`) says it in a form the runner decides by.
    warn: Callable[[str | ListingWarning], None] = lambda text: None  # noqa: E731
    #: The page's HTML as fetched without a browser (an `http_fetch.Document`: ``url``, ``html``)
    #: when the task runs on the HTTP engine; ``page`` is None then. `page_html` reads it, so a tool
    #: that reads the page through `page_html` runs on both engines (its manifest says ``"html": true``).
    document: Any = None
    #: ``await ctx.fetch(url)``: a further page as a `Document`, fetched as the first was (the HTTP
    #: engine: a pager's next page); None on the browser engine.
    fetch: Callable[[str], Awaitable[Any]] | None = None

    @property
    def selectors(self) -> dict:
        """The manifest's declarative ``selectors`` block (site markup), or {}."""
        return dict(self.manifest.selectors) if self.manifest else {}


def require_page(ctx: ToolContext) -> Any:
    """The context's page, or `NoPage` naming the tool (from its manifest) that needs one."""
    if ctx.page is None:
        name = ctx.manifest.key if ctx.manifest is not None else "this tool"
        raise NoPage(
            f"{name} needs a browser page (its manifest depends on 'page'), but the context has none"
        )
    return ctx.page


class BaseTool:
    """Subclass and implement `run`. One instance is created per step attempt."""

    async def run(self, ctx: ToolContext, **params: Any) -> dict:  # pragma: no cover - interface
        raise NotImplementedError


ToolFunc = Callable[..., Awaitable[dict]]


def _import_module(module: str, near: str):
    """Import ``module``; failing that, a ``module.py`` beside the manifest file ``near`` (once per
    file: a module of the same name in another tool directory is another module)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if not near or e.name != module.split(".")[0]:
            raise
        candidate = Path(near).parent.joinpath(*module.split(".")).with_suffix(".py")
        if not candidate.is_file():
            raise
        # Named by its file: two tool directories that each hold an ``impl.py`` get their own code.
        digest = hashlib.sha1(str(candidate.resolve()).encode()).hexdigest()[:16]
        name = f"curllm_local_tools.{module}_{digest}"
        if name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, candidate)
        if spec is None or spec.loader is None:
            raise
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod


def entrypoint_findable(manifest: Manifest) -> str | None:
    """Why the entrypoint's module cannot be found, or None. Does not execute the tool module."""
    module = manifest.entrypoint.split(":", 1)[0]
    if manifest.path and Path(manifest.path).parent.joinpath(*module.split(".")).with_suffix(".py").is_file():
        return None
    try:
        if importlib.util.find_spec(module) is not None:
            return None
        reason = f"No module named {module!r}"
    except (ImportError, ValueError) as e:
        reason = str(e)
    return f"entrypoint module {module!r} not found: {reason} (is its package installed?)"


def load_callable(manifest: Manifest, impl: Any = None) -> ToolFunc:
    """The coroutine function that runs a tool: ``await fn(ctx, **params)``."""
    target = impl
    if target is None:
        module, attr = manifest.entrypoint.split(":", 1)
        try:
            target = _import_module(module, manifest.path)
            for part in attr.split("."):
                target = getattr(target, part)
        except Exception as e:  # any import-time failure of third-party code is reported, not raised
            raise EntrypointImport(
                f"{manifest.key}: entrypoint {manifest.entrypoint!r} does not import: {type(e).__name__}: {e}"
            ) from e
    if isinstance(target, type) and issubclass(target, BaseTool):
        cls = target

        async def run_tool(ctx: ToolContext, **params: Any) -> dict:
            return await cls().run(ctx, **params)

        return run_tool
    fn = getattr(target, "__curllm_func__", target)
    if not inspect.iscoroutinefunction(fn):
        raise EntrypointInvalid(
            f"{manifest.key}: entrypoint {manifest.entrypoint!r} is neither a BaseTool subclass nor an async function"
        )
    return fn


# --- code-first tools -------------------------------------------------------------------------


@dataclass(frozen=True)
class CodeTool:
    """A tool defined in code by `@tool`: its manifest and its function. Pass it to ``register``."""

    manifest: Manifest
    func: ToolFunc

    async def __call__(self, ctx: ToolContext, **params: Any) -> dict:
        return await self.func(ctx, **params)

    @property
    def __curllm_func__(self) -> ToolFunc:
        return self.func


def _doc_parts(fn: Callable) -> tuple[str, dict[str, str]]:
    """Summary and per-argument descriptions from a Google-style docstring."""
    doc = inspect.getdoc(fn) or ""
    summary, _, rest = doc.partition("\n\n")
    args: dict[str, str] = {}
    in_args = False
    for line in rest.splitlines():
        stripped = line.strip()
        if stripped.lower() in ("args:", "arguments:", "parameters:"):
            in_args = True
            continue
        if in_args and ":" in stripped and not line.startswith("        "):
            name, _, text = stripped.partition(":")
            args[name.split("(")[0].strip()] = text.strip()
    return " ".join(summary.split()), args


def manifest_for_function(fn: Callable, **fields: Any) -> dict:
    """The manifest document `@tool` derives for ``fn`` (a typed ``async def fn(ctx, ...)``)."""
    import pydantic

    if not inspect.iscoroutinefunction(fn):
        raise TypeError(f"@tool needs an async function, got {fn!r}")
    summary, arg_docs = _doc_parts(fn)
    sig = inspect.signature(fn)
    hints = inspect.get_annotations(fn, eval_str=True)
    model_fields: dict[str, Any] = {}
    for i, (pname, param) in enumerate(sig.parameters.items()):
        if i == 0 or param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            continue  # the first parameter is the ToolContext
        annotation = hints.get(pname, Any)
        default = ... if param.default is param.empty else param.default
        model_fields[pname] = (annotation, pydantic.Field(default, description=arg_docs.get(pname)))
    model = pydantic.create_model(f"{fn.__name__}_params", **model_fields)
    params = model.model_json_schema()
    params.pop("title", None)
    for prop in params.get("properties", {}).values():
        prop.pop("title", None)
    params.setdefault("properties", {})
    if not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        params["additionalProperties"] = False  # a misspelt parameter fails the plan check, not the run
    output_schema = fields.pop("output_schema", None) or {"type": "object"}
    ret = hints.get("return")
    if output_schema == {"type": "object"} and isinstance(ret, type) and issubclass(ret, pydantic.BaseModel):
        output_schema = ret.model_json_schema()
    module = fn.__module__
    doc = {
        "name": fields.pop("name", fn.__name__),
        "version": fields.pop("version", "0.1.0"),
        "description": fields.pop("description", summary or fn.__name__),
        "category": fields.pop("category"),
        "parameters": params,
        "output_schema": output_schema,
        # A function defined inside another is not importable; its CodeTool carries it anyway.
        "entrypoint": f"{module}:{fn.__name__ if '<locals>' in fn.__qualname__ else fn.__qualname__}",
        "dependencies": list(fields.pop("dependencies", ["playwright", "page"])),
    }
    doc.update({k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()})
    return doc


def tool(*, category: str, **fields: Any) -> Callable[[ToolFunc], CodeTool]:
    """Turn a typed async function into a tool. Keyword arguments are manifest fields.

    >>> @tool(category="validation", produces=["products"], consumes=["products"], dependencies=[])
    ... async def cheap_only(ctx, limit: float = 100.0) -> dict:
    ...     '''Keep products cheaper than ``limit``.'''
    ...     return {"products": [p for p in ctx.data["products"] if (p["price"] or 0) < limit]}
    """

    def wrap(fn: ToolFunc) -> CodeTool:
        key = _code_tool_key(fn, category, fields)
        doc = _code_tools_cache().get(key) if key else None
        if doc is None:
            doc = manifest_for_function(fn, category=category, **fields)
            problems = check_manifest(doc, source=f"{fn.__module__}.{fn.__qualname__}")
            if problems:
                from .errors import ManifestError

                raise ManifestError(f"@tool {fn.__qualname__}: invalid manifest", problems=problems)
            if key:
                _save_code_tool(key, doc)
        return CodeTool(Manifest.from_dict(doc, source=fn.__module__), fn)

    return wrap


# Deriving a manifest needs pydantic and jsonschema (~0.4 s to import): a plugin's @tool would pay
# that on every command. Derived manifests are cached by source file (path, mtime, size) and
# decorator arguments, like the registry caches checked manifest files.
_code_cache: dict | None = None


def _code_tools_file() -> Path:
    from .files import cache_dir

    return cache_dir() / "code_tools.json"


def _code_tool_key(fn: Callable, category: str, fields: dict) -> str | None:
    import hashlib
    import json

    from .version import __version__

    try:
        source = inspect.getsourcefile(fn) or ""
        st = Path(source).stat()
        args = json.dumps({"category": category, **fields}, sort_keys=True, default=repr)
    except (OSError, TypeError):
        return None  # defined interactively: derive every time
    raw = f"{__version__}|{source}|{st.st_mtime_ns}|{st.st_size}|{fn.__qualname__}|{args}"
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


def _code_tools_cache() -> dict:
    global _code_cache
    if _code_cache is None:
        import json

        try:
            _code_cache = json.loads(_code_tools_file().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            _code_cache = {}
    return _code_cache


def _save_code_tool(key: str, doc: dict) -> None:
    from .files import write_json_atomic

    cache = _code_tools_cache()
    cache[key] = doc
    try:
        write_json_atomic(_code_tools_file(), cache, prefix=".code-tools-")
    except OSError:
        pass  # a read-only cache only costs speed
