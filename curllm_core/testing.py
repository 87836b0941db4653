"""pytest plugin for tool authors (entry point ``pytest11``): fixtures to check manifests and run tools.

Loaded automatically wherever curllm is installed. It imports nothing heavy until a fixture is used:
the registry, the executor and Playwright are imported inside the fixtures.

Fixtures
--------
``curllm_registry``
    The registry as a user would have it (built-in tools, installed plugins, CURLLM_TOOLS_PATH).
    Override it in a ``conftest.py`` to test tools that are not installed (see `make_registry`);
    `curllm_run_tool` and `curllm_run_plan` use it.
``curllm_browser``
    One real Chromium (`curllm_core.browser.Browser`) for the session; skips with the install hint
    when there is none.
``curllm_run_tool``
    ``await curllm_run_tool("extraction.x", html="<html>..." | path=... | url=..., params={...},
    data={...})`` runs one tool through the real executor (a one-step plan: parameters checked,
    defaults filled, output checked against ``output_schema``) and returns its output. A failed
    step raises `ToolError` with the step's error and code. With ``page=`` (a Playwright page the
    test has opened, e.g. `curllm_page`) the tool runs on that page, once: the test can look at
    the page afterwards, and the tool's own exception is what a failure raises.
``curllm_page``
    A page of its own per test in the session's browser, in a browser context made as a run makes
    one (``await curllm_page.goto(url)``, then ``curllm_run_tool(name, page=curllm_page)``).
``curllm_run_plan``
    ``await curllm_run_plan(plan_doc, url=..., html=..., data=...)`` -> `Result`.
``curllm_check_manifest``
    ``curllm_check_manifest(path_or_dict)`` -> list of problems, each a readable string; empty
    when the manifest is fine.

Event loops
-----------
Async tests need pytest-asyncio (>= 0.24). The browser lives in the session's event loop, so tests
that share it must run in that loop too. A project that sets no loop scope gets ``"session"`` for
both (see `pytest_configure`, which also spares it pytest-asyncio's warning about the unset
option); to say so yourself, put this in your ``pyproject.toml``::

    [tool.pytest.ini_options]
    asyncio_mode = "auto"
    asyncio_default_fixture_loop_scope = "session"
    asyncio_default_test_loop_scope = "session"

or mark tests ``@pytest.mark.asyncio(loop_scope="session")``. A test running in another loop still
works: `curllm_run_tool` then starts a private browser for the call (about half a second more) and
warns.
"""

from __future__ import annotations

import asyncio
import os
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .errors import BrowserNotFound, ToolError

if TYPE_CHECKING:  # pragma: no cover
    from .browser import Browser, BrowserOptions, Session
    from .executor import RunOptions
    from .manifest import Manifest
    from .policy import NetworkPolicy
    from .registry import Registry
    from .result import Result

try:  # pytest-asyncio is what runs async tests and fixtures; without it only the sync fixtures work
    import pytest_asyncio
except ImportError:  # pragma: no cover - exercised only where pytest-asyncio is not installed
    pytest_asyncio = None  # type: ignore[assignment]

NEEDS_ASYNCIO = "curllm's browser fixtures need pytest-asyncio >= 0.24: pip install 'pytest-asyncio>=0.24'"

__all__ = ["make_registry", "check_manifest_problems", "run_tool", "run_plan", "ToolRunner", "PlanRunner"]


# --- helpers usable without pytest ---------------------------------------------------------------


def make_registry(*extra: Any, env: dict | None = None, source: str = "test") -> Registry:
    """The registry `load_registry` builds, plus ``extra`` registered as if installed.

    Each item of ``extra`` is a directory of manifests, a manifest file, a ``@tool`` function, or a
    plugin module (anything with a ``curllm_register_tools`` hook: its tools are registered as that
    plugin's). A plugin module that is already installed and loaded is not registered twice. Use it
    in a ``conftest.py`` to test a plugin before (or without) ``pip install -e .``::

        @pytest.fixture
        def curllm_registry():
            import my_plugin.plugin
            return make_registry(my_plugin.plugin, source="my-plugin")
    """
    from .plugins import load_registry
    from .registry import PluginInfo

    registry = load_registry(env)
    loaded_modules = {p.module for p in registry.plugins if not p.error}
    for item in extra:
        hook = getattr(item, "curllm_register_tools", None)
        if hook is None:
            registry.register(item, source=source)
            continue
        module = getattr(item, "__name__", repr(item))
        if module in loaded_modules:
            continue
        info = PluginInfo(source, module=module)
        hook(register=lambda x, _info=info: _info.tools.extend(registry.register(x, source=_info.name)))
        registry.plugins.append(info)
    return registry


def check_manifest_problems(manifest: str | os.PathLike | dict | Any) -> list[str]:
    """Everything wrong with a manifest (a file path, a document, or a ``@tool``), as readable lines.

    Checks what ``curllm tools validate`` checks: the JSON, the schema, the parameter and output
    sub-schemas, triggers, examples, and that the entrypoint imports and is a tool.
    """
    from .errors import CurllmError
    from .manifest import Manifest, check_manifest, read_manifest
    from .tool import CodeTool, load_callable

    impl = None
    path = ""
    if isinstance(manifest, CodeTool):
        impl, doc, source = manifest, manifest.manifest.to_dict(), manifest.manifest.entrypoint
    elif isinstance(manifest, dict):
        doc, source = manifest, "<manifest>"
    else:
        path = str(Path(manifest).resolve())
        source = str(manifest)
        try:
            doc = read_manifest(Path(manifest))
        except CurllmError as e:
            return [str(p) for p in e.problems] or [str(e)]
    problems = check_manifest(doc, source=source)
    if problems:
        return [str(p) for p in problems]
    try:
        load_callable(Manifest.from_dict(doc, path=path), impl)
    except CurllmError as e:
        return [f"{source}: /entrypoint: {e.message}"]
    return []


@dataclass
class _ServePage:
    """Serve ``html`` as the document of ``url`` (and of reloads of it) instead of fetching it.

    The page keeps its real URL, so relative links, ``location`` and site-specific tools behave as
    on the live site; every other request (scripts, links followed) goes out as usual.
    """

    url: str
    html: str
    served: str | None = None  # the URL the browser asked for, as it normalised it

    async def install(self, session: Session) -> None:
        await session.page.route("**/*", self._handle)

    async def _handle(self, route: Any) -> None:
        request = route.request
        bare = request.url.split("#", 1)[0]
        if request.is_navigation_request() and (self.served is None or bare == self.served):
            self.served = bare
            await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=self.html)
            return
        await route.fallback()  # on to the session's own routing: network policy, blocked images


class _ServingBrowser:
    """A `Browser` whose sessions serve a given document at the start URL (see `_ServePage`).

    Handed to the executor in place of the browser: the executor's own ``ensure_page`` then opens
    the start URL exactly as in a real run.
    """

    def __init__(self, browser: Browser, serve: _ServePage | None):
        self._browser = browser
        self._serve = serve

    async def new_session(
        self,
        options: BrowserOptions | None = None,
        policy: NetworkPolicy | None = None,
        *,
        local_files: bool = True,
    ) -> Session:
        session = await self._browser.new_session(options, policy, local_files=local_files)
        if self._serve is not None:
            await self._serve.install(session)
        return session

    async def close(self) -> None:
        """The executor does not own this browser; closing is the fixture's business."""

    def __getattr__(self, name: str) -> Any:
        """Everything else (``started``, ``start``, ...) is the real browser's: a run may warm it up."""
        return getattr(self._browser, name)


def _start_page(
    manifest: Manifest | None, html: str | None, path: str | os.PathLike | None, url: str | None
) -> tuple[str | None, _ServePage | None]:
    """The start URL and the document to serve there, from the html/path/url arguments."""
    if html is not None and path is not None:
        raise ValueError("give html= or path=, not both")
    if path is not None:
        file = Path(path)
        if url is None:
            return file.resolve().as_uri(), None
        html = file.read_text(encoding="utf-8")
    if html is None:
        return url, None
    if url is None:
        # A site tool's own domain, so that it sees the page where it expects to be.
        site = manifest.sites[0] if manifest is not None and manifest.sites else "example.com"
        url = f"https://{site}/"
    return url, _ServePage(url, html)


@dataclass
class _Runner:
    """The shared machinery of `ToolRunner` and `PlanRunner`: registry, browser, event loop."""

    registry: Registry | None = None
    browser: Browser | None = None
    #: The loop the shared browser belongs to; a call from another loop gets a private browser.
    loop: asyncio.AbstractEventLoop | None = None
    options: RunOptions | None = None
    #: In a test, a missing Chromium skips it; outside pytest it is the run's BROWSER_NOT_FOUND error.
    skip_without_browser: bool = True
    _warned: bool = field(default=False, repr=False)

    def _options(self, url: str | None, data: dict | None) -> RunOptions:
        from .executor import RunOptions

        opts = self.options or RunOptions()
        return replace(opts, url=url, data=dict(data or {}))

    async def _with_browser(
        self, serve: _ServePage | None, run: Callable[[Any], Awaitable[Result]]
    ) -> Result:
        from .browser import Browser

        private = None
        browser = self.browser
        if browser is None or asyncio.get_running_loop() is not self.loop:
            if browser is not None and not self._warned:
                self._warned = True
                warnings.warn(
                    "curllm_run_tool/curllm_run_plan ran in a different event loop than the session's shared "
                    "browser, so a private browser is started per call (slower). Run tests in the session loop: "
                    'asyncio_default_test_loop_scope = "session" (or @pytest.mark.asyncio(loop_scope="session")).',
                    stacklevel=3,
                )
            browser = private = Browser()
        try:
            result = await run(_ServingBrowser(browser, serve))
        finally:
            if private is not None:
                await private.close()
        if self.skip_without_browser:
            _skip_without_browser(result)
        return result


def _pick_registry(given: Registry | None, default: Registry | None) -> Registry:
    """The registry a run uses; ``is None`` checks, since an empty registry is falsy (``len`` 0)."""
    if given is not None:
        return given
    return default if default is not None else make_registry()


def _skip_without_browser(result: Result) -> None:
    """A run that failed for want of a Chromium is a skipped test, with the install hint."""

    for step in result.steps:
        if isinstance(step.failure, BrowserNotFound):
            pytest.skip(step.error or "no Chromium found")
    for error in result.errors:  # entries are JSON: their code says it (a plan's end-of-run checks)
        if error.get("code") == BrowserNotFound.code:
            pytest.skip(error.get("message") or "no Chromium found")


@dataclass
class _GivenSession:
    """A page the caller opened, standing in for the task's browser session (which it does not own)."""

    page: Any

    async def close(self) -> None:
        """The page is the caller's: nothing to close here."""


class ToolRunner(_Runner):
    """``await runner(name, html=..., params=..., data=...)``: one tool through the real executor."""

    async def __call__(
        self,
        name: str,
        *,
        html: str | None = None,
        path: str | os.PathLike | None = None,
        url: str | None = None,
        page: Any = None,
        params: dict | None = None,
        data: dict | None = None,
        registry: Registry | None = None,
        on_event: Callable[[dict], None] | None = None,
    ) -> dict:
        """Run tool ``name`` on a page and return its output.

        The page is ``html`` (served at ``url``, or at ``https://<the tool's first site>/``), the file
        ``path`` (served at ``url`` when given, else opened as a file:// URL) or the live ``url``.
        ``params`` are checked against the manifest and its defaults filled; ``data`` is the pipeline
        data before the step. Raises `PlanError` for bad parameters or missing input data, and
        `ToolError` (with the step's ``code``) when the step fails.

        ``page`` (instead of html/path/url) is a Playwright page already open where the test wants
        the tool to work: the tool runs there once, as the executor calls it (its `ToolContext`,
        time limit, output check, ``ctx.run_tool``), without retries or fallbacks, and a failure
        raises the tool's own exception; the page stays as the tool left it.

        ``on_event`` is called with each event of the run, as ``on_event=`` of `curllm_core.run`
        (e.g. the ``url_start``/``url_complete`` of the pages the tool opens).
        """
        from .errors import UsageError
        from .events import EventBus
        from .executor import execute
        from .plan import check_plan, normalise_plan

        registry = _pick_registry(registry, self.registry)
        manifest = registry.resolve(name)
        if page is not None and (html is not None or path is not None or url is not None):
            raise ValueError("give page= or html=/path=/url=, not both")
        doc = normalise_plan({"plan": [{"tool": manifest.key, "parameters": params or {}}]}, registry)
        plan = check_plan(doc, registry, initial_keys=set(data or {}))
        events = EventBus([on_event] if on_event is not None else [])
        if page is not None:
            return await self._on_page(plan, registry, page, data, events)
        start, serve = _start_page(manifest, html, path, url)
        if manifest.needs_page and start is None:
            raise UsageError(f"{manifest.key} needs a page: pass html=, path=, url= or page=")
        options = self._options(start, data)
        result = await self._with_browser(
            serve, lambda browser: execute(plan, registry, options, events=events, browser=browser)
        )
        step = result.steps[-1] if result.steps else None
        if step is None or not step.success:
            message = step.error if step else "; ".join(e.get("message", "") for e in result.errors)
            raise ToolError(
                f"{manifest.key} failed: {message}", code=(step.code if step else None) or ToolError.code
            )
        return step.result or {}

    async def _on_page(
        self, plan: Any, registry: Registry, page: Any, data: dict | None, events: Any
    ) -> dict:
        """The plan's one step called once on ``page`` by the executor's own `Execution.call`."""
        from .executor import Execution, TaskPage

        options = self._options(page.url, data)
        task_page = TaskPage(options, events)
        task_page.session = _GivenSession(page)  # type: ignore[assignment]  # a Session in all it uses
        task_page.opened = True
        step = plan.steps[0]
        manifest = registry.resolve(step.tool)
        execution = Execution(plan, registry, options, events, page=task_page)
        return await execution.call(manifest, step.parameters, dict(data or {}), manifest.timeout_ms)


class PlanRunner(_Runner):
    """``await runner(plan_doc, url=..., html=..., data=...)``: a whole plan through `execute_plan`."""

    async def __call__(
        self,
        plan: dict | Any,
        *,
        url: str | None = None,
        html: str | None = None,
        path: str | os.PathLike | None = None,
        data: dict | None = None,
        registry: Registry | None = None,
    ) -> Result:
        """Check and run ``plan`` (a document or a `Plan`); return the `Result`, ok or not.

        The start page is given as for `ToolRunner.__call__` (``url`` defaults to the plan's own
        ``url``). Raises `PlanError` when the plan does not check.
        """
        from .api import execute_plan

        registry = _pick_registry(registry, self.registry)
        if url is None:
            url = plan.get("url") if isinstance(plan, dict) else getattr(plan, "url", None)
        start, serve = _start_page(None, html, path, url)
        options = self._options(start, data)
        return await self._with_browser(
            serve, lambda browser: execute_plan(plan, registry=registry, options=options, browser=browser)
        )


async def run_tool(name: str, **kwargs: Any) -> dict:
    """`ToolRunner` without fixtures: the installed tools, a browser started for this one call."""
    return await ToolRunner(skip_without_browser=False)(name, **kwargs)


async def run_plan(plan: dict | Any, **kwargs: Any) -> Result:
    """`PlanRunner` without fixtures: the installed tools, a browser started for this one call."""
    return await PlanRunner(skip_without_browser=False)(plan, **kwargs)


# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture
def curllm_registry() -> Registry:
    """The registry as a user would have it (built-in tools, installed plugins, CURLLM_TOOLS_PATH)."""
    return make_registry()


@pytest.fixture
def curllm_check_manifest() -> Callable[[Any], list[str]]:
    """``curllm_check_manifest(path_or_dict)`` -> list of problems (empty when the manifest is fine)."""
    return check_manifest_problems


@pytest.fixture(scope="session")
def curllm_browser_path() -> str:
    """The Chromium executable curllm would start; skips the test (with the install hint) when none."""
    from .browser_path import find_browser

    try:
        return find_browser()
    except BrowserNotFound as e:
        pytest.skip(str(e))


@dataclass
class _SharedBrowser:
    """The session's browser (started on first use) and the event loop it belongs to."""

    browser: Browser | None
    loop: asyncio.AbstractEventLoop | None


async def _shared_browser() -> AsyncIterator[_SharedBrowser]:
    from .browser import Browser

    browser = Browser()  # started by the first run that needs a page, so data-only tools need no Chromium
    try:
        yield _SharedBrowser(browser, asyncio.get_running_loop())
    finally:
        await browser.close()


async def _browser(curllm_browser_path: str, _curllm_shared_browser: _SharedBrowser) -> Browser:
    from .errors import BrowserError

    browser = _curllm_shared_browser.browser
    assert browser is not None  # the session fixture made it
    browser.executable = curllm_browser_path
    try:
        await browser.start()
    except BrowserError as e:
        pytest.fail(f"curllm_browser: {e}", pytrace=False)
    return browser


def _make_async_fixtures() -> tuple[Any, Any]:
    if pytest_asyncio is None:
        return None, None
    try:
        shared = pytest_asyncio.fixture(scope="session", loop_scope="session", name="_curllm_shared_browser")(
            _shared_browser
        )
        browser = pytest_asyncio.fixture(scope="session", loop_scope="session", name="curllm_browser")(
            _browser
        )
    except TypeError:  # pytest-asyncio < 0.24 has no loop_scope
        return None, None
    return shared, browser


_curllm_shared_browser, curllm_browser = _make_async_fixtures()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Give a project that sets no asyncio loop scope curllm's: the session loop, for fixtures and tests.

    pytest-asyncio warns (PytestDeprecationWarning) when ``asyncio_default_fixture_loop_scope`` is
    unset, and the shared browser lives in the session's loop. A project that sets the option keeps
    its own values; one that does not gets both scopes as ``"session"``, as if its ini file said so.
    This runs before pytest-asyncio's own ``pytest_configure`` (``tryfirst``), which reads them.
    """
    if pytest_asyncio is None:
        return
    try:
        if config.getini("asyncio_default_fixture_loop_scope"):
            return
    except ValueError:  # a pytest-asyncio without the option: nothing to default
        return
    cache = getattr(config, "_inicache", None)  # getini's cache: the one way to set an ini default
    if isinstance(cache, dict):
        cache["asyncio_default_fixture_loop_scope"] = "session"
        cache["asyncio_default_test_loop_scope"] = "session"


if curllm_browser is None:  # pragma: no cover - only without a recent pytest-asyncio

    @pytest.fixture(scope="session", name="_curllm_shared_browser")
    def _curllm_shared_browser_sync() -> Iterator[_SharedBrowser]:
        """No shared browser: each run starts its own (see `_Runner._with_browser`)."""
        yield _SharedBrowser(None, None)

    @pytest.fixture(scope="session", name="curllm_browser")
    def _curllm_browser_unavailable() -> None:
        pytest.skip(NEEDS_ASYNCIO)


async def _page(curllm_browser: Browser) -> AsyncIterator[Any]:
    session = await curllm_browser.new_session()
    try:
        yield session.page
    finally:
        await session.close()


curllm_page = (
    pytest_asyncio.fixture(loop_scope="session", name="curllm_page")(_page)
    if curllm_browser is not None
    else None
)

if curllm_page is None:  # pragma: no cover - only without a recent pytest-asyncio

    @pytest.fixture(name="curllm_page")
    def _curllm_page_unavailable() -> None:
        pytest.skip(NEEDS_ASYNCIO)


@pytest.fixture
def curllm_run_tool(curllm_registry: Registry, _curllm_shared_browser: _SharedBrowser) -> ToolRunner:
    """``await curllm_run_tool(name, html=|path=|url=|page=, params=, data=, registry=)`` -> the tool's output."""
    return ToolRunner(curllm_registry, _curllm_shared_browser.browser, _curllm_shared_browser.loop)


@pytest.fixture
def curllm_run_plan(curllm_registry: Registry, _curllm_shared_browser: _SharedBrowser) -> PlanRunner:
    """``await curllm_run_plan(plan_doc, url=|html=|path=, data=, registry=)`` -> `Result`."""
    return PlanRunner(curllm_registry, _curllm_shared_browser.browser, _curllm_shared_browser.loop)
