"""What is wrong with this set-up: every check curllm can make about itself, as data.

`diagnose()` looks at Python, curllm, the browser (found? does it start and render a page?), the
plugins and their errors, the extras installed and what each enables, the model, the config file
and the caches. Each look is a `Finding` with a status and, when something is wrong, what to do.
The report is ok when the main job works: a task planned by the rules and run in a headless
Chromium. Warnings (a plugin that failed, an extra a configured model needs) do not make it fail.
Nothing here prints or exits: ``curllm doctor`` renders the report.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from . import __version__

Status = Literal["ok", "info", "warn", "fail"]
MIN_PYTHON = (3, 11)

# What each extra of the curllm distribution enables. Extras are listed from the installed
# metadata, so one is shown only once pyproject.toml declares it; its line here is its description.
EXTRAS = {
    "llm": "--model: an LLM plans (any litellm model, a local Ollama included)",
    "server": "curllm serve: the HTTP API and its playground page",
    "mcp": "curllm mcp, and /mcp in curllm serve: curllm as tools of an MCP client (agents, IDEs)",
    "ray": "curllm batch --backend ray: batches spread over a Ray cluster",
    "test": "the test suite's tools (pytest, pytest-asyncio, build, ruff)",
}
_SECRET_RE = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.I)


@dataclass
class Finding:
    """One thing doctor looked at: what it found, and what to do when that is a problem."""

    topic: str  # python, curllm, browser, launch, plugin, manifests, extra, model, config, cache, env
    status: Status
    message: str  # one line: what was found
    fix: str = ""  # what to do (for warn and fail)
    data: dict = field(default_factory=dict)  # the details, for --json

    def to_dict(self) -> dict:
        return {
            "topic": self.topic,
            "status": self.status,
            "message": self.message,
            "fix": self.fix,
            "data": self.data,
        }


@dataclass
class Report:
    """Every finding, in the order they were made. ``ok``: nothing failed."""

    findings: list[Finding]

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if f.status == "fail"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.status == "warn"]

    def to_dict(self) -> dict:
        return {"ok": self.ok, "findings": [f.to_dict() for f in self.findings]}


def diagnose(*, launch: bool = True, launch_timeout_s: float = 30.0) -> Report:
    """Look at the whole set-up. ``launch=False`` skips starting the browser (about a second)."""
    findings: list[Finding] = []
    findings += _python()
    install = _installation()
    findings.append(install)
    browser = _browser()
    findings.append(browser)
    if browser.status == "ok":
        if launch:
            findings.append(_launch(browser.data["path"], launch_timeout_s))
        else:
            findings.append(Finding("launch", "info", "the browser was not started (--no-launch)"))
    findings += _plugins()
    config, config_finding = _config()
    findings += _extras(install.data.get("pip_extra_hint", ""))
    findings.append(_model(config, findings))
    findings.append(config_finding)
    findings.append(_cache())
    findings.append(_environment())
    return Report(findings)


# --- Python and curllm ---------------------------------------------------------------------------


def _python() -> list[Finding]:
    version = ".".join(map(str, sys.version_info[:3]))
    data = {"version": version, "executable": sys.executable}
    if sys.version_info[:2] < MIN_PYTHON:
        return [
            Finding(
                "python",
                "fail",
                f"Python {version} ({sys.executable})",
                f"curllm needs Python {'.'.join(map(str, MIN_PYTHON))} or newer",
                data,
            )
        ]
    return [Finding("python", "ok", f"Python {version} ({sys.executable})", data=data)]


def _installation() -> Finding:
    """curllm's version and where it is installed from; the pip command that adds an extra."""
    import json
    from importlib import metadata

    package = str(Path(__file__).resolve().parent)
    data: dict = {"version": __version__, "package": package}
    pip = f"{sys.executable} -m pip install"
    hint = f"{pip} 'curllm[{{extra}}]'"
    how = ""
    try:
        direct = json.loads(metadata.distribution("curllm").read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        direct = {}
    url = direct.get("url", "")
    if url.startswith("file://"):
        source = url[len("file://") :]
        if direct.get("dir_info", {}).get("editable"):
            how = f", editable from {source}"
            hint = f"{pip} -e '{source}[{{extra}}]'"
        elif direct.get("dir_info") is not None:
            how = f", from {source}"
            hint = f"{pip} '{source}[{{extra}}]'"
    data["pip_extra_hint"] = hint
    return Finding("curllm", "ok", f"curllm {__version__} ({package}{how})", data=data)


# --- the browser ---------------------------------------------------------------------------------


def _origin(path: str) -> str:
    """How `find_browser` came to this executable, in words."""
    from .browser_path import DEBIAN_CANDIDATES

    if os.environ.get("CURLLM_BROWSER"):
        return "CURLLM_BROWSER"
    playwright_root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or os.path.expanduser(
        "~/.cache/ms-playwright"
    )
    if path.startswith(os.path.join(playwright_root, "")):
        return "installed by Playwright"
    if path in DEBIAN_CANDIDATES:
        return "Debian's chromium package"
    return "chromium on PATH"


def _browser() -> Finding:
    from .browser_path import DEBIAN_CANDIDATES, find_browser
    from .errors import BrowserNotFound

    try:
        path = find_browser()
    except BrowserNotFound:
        configured = os.environ.get("CURLLM_BROWSER")
        fixes = [
            "install Debian's headless Chromium: sudo apt-get install chromium-headless-shell",
            f"or Playwright's build (needs the network): {sys.executable} -m playwright install chromium",
            "or point CURLLM_BROWSER at any Chromium or Chrome executable",
        ]
        if configured:
            message = f"CURLLM_BROWSER={configured!r} is not an executable file (then no other is looked for)"
            fixes.insert(0, "unset CURLLM_BROWSER, or set it to the path of a Chromium executable")
        else:
            playwright_root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or "~/.cache/ms-playwright"
            message = (
                f"no Chromium found (none installed by Playwright in {playwright_root}, "
                f"none at {' or '.join(DEBIAN_CANDIDATES)}, no chromium on PATH)"
            )
        return Finding("browser", "fail", f"no browser: {message}", "\n".join(fixes), {"path": None})
    origin = _origin(path)
    return Finding("browser", "ok", f"browser {path} ({origin})", data={"path": path, "origin": origin})


def _launch(path: str, timeout_s: float) -> Finding:
    """Start the browser the way a task does, render a page in it, close it."""
    import asyncio
    import time

    from .browser import Browser
    from .errors import CurllmError

    async def attempt() -> str:
        browser = Browser(path)
        try:
            chromium = await browser.start()
            page = await chromium.new_page()
            await page.set_content("<title>curllm doctor</title><p>ok</p>")
            if await page.title() != "curllm doctor":
                raise RuntimeError("the test page did not render")
            return chromium.version
        finally:
            await browser.close()

    started = time.perf_counter()
    try:
        version = asyncio.run(asyncio.wait_for(attempt(), timeout_s))
    except TimeoutError:
        return Finding(
            "launch",
            "fail",
            f"the browser did not start within {timeout_s:.0f} s",
            "a machine under heavy load, or a Chromium that hangs at start: try again, or another "
            "Chromium through CURLLM_BROWSER",
            {"path": path},
        )
    except Exception as e:  # any failure to start is the finding itself
        message = e.message if isinstance(e, CurllmError) else f"{type(e).__name__}: {e}"
        return Finding(
            "launch",
            "fail",
            f"the browser does not start: {message.splitlines()[0]}",
            "usually missing shared libraries: install the distribution's package "
            "(sudo apt-get install chromium-headless-shell), or point CURLLM_BROWSER at another Chromium",
            {"path": path, "error": message},
        )
    seconds = time.perf_counter() - started
    return Finding(
        "launch",
        "ok",
        f"the browser starts and renders a page: Chromium {version} in {seconds:.1f} s",
        data={"path": path, "version": version, "seconds": round(seconds, 2)},
    )


# --- plugins, extras, model ----------------------------------------------------------------------


def _plugins() -> list[Finding]:
    from .plugins import load_registry

    registry = load_registry()
    out = []
    for plugin in registry.plugins:
        data = plugin.to_dict()
        if not plugin.builtin and plugin.module == str(Path(plugin.name).resolve()):
            what = f"tools directory {plugin.name} (CURLLM_TOOLS_PATH)"
        else:
            what = f"plugin {plugin.name} {plugin.version or '-'}"
        if plugin.error is None:
            out.append(Finding("plugin", "ok", f"{what}: {len(plugin.tools)} tools", data=data))
        elif plugin.builtin:
            out.append(
                Finding(
                    "plugin",
                    "fail",
                    f"{what}: {plugin.error}",
                    "curllm's own tools did not load: reinstall curllm",
                    data,
                )
            )
        else:
            out.append(Finding("plugin", "warn", f"{what}: {plugin.error}", _plugin_fix(plugin), data))
    by_file: dict[str, list] = {}
    for problem in registry.problems:
        by_file.setdefault(problem.source, []).append(problem)
    for source, problems in by_file.items():
        first = problems[0]
        detail = f"{first.pointer}: {first.message}" if first.pointer else first.message
        more = f"{len(problems)} problems, the first: " if len(problems) > 1 else ""
        out.append(
            Finding(
                "manifests",
                "warn",
                f"skipped a bad manifest: {source}: {more}{detail}",
                f"curllm tools validate {source} lists every problem",
                {"source": source, "problems": [str(p) for p in problems]},
            )
        )
    for warning in registry.warnings:
        out.append(Finding("manifests", "info", warning, data={"warning": warning}))
    return out


def _plugin_fix(plugin) -> str:
    if plugin.error.startswith("failed to load"):
        module = plugin.module.split(":")[0]
        return (
            f'{sys.executable} -c "import {module}" shows the traceback; reinstall the plugin, '
            f"or leave it out with CURLLM_LOAD_PLUGINS (names of the plugins to load)"
        )
    if plugin.error.startswith("named in CURLLM_LOAD_PLUGINS"):
        return "install it, or remove its name from CURLLM_LOAD_PLUGINS"
    return "its curllm_register_tools hook raised: report it to the plugin's authors"


def _requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else requirement


def _extras(pip_hint: str) -> list[Finding]:
    """Each extra declared in curllm's metadata: installed (every requirement present) or not."""
    from importlib import metadata

    try:
        dist = metadata.distribution("curllm")
    except metadata.PackageNotFoundError:
        return [Finding("extra", "info", "curllm is not installed as a distribution: extras unknown")]
    declared = dist.metadata.get_all("Provides-Extra") or []
    requires = dist.requires or []
    out = []
    for extra in declared:
        marker = re.compile(rf"extra\s*==\s*['\"]{re.escape(extra)}['\"]")
        needed = [_requirement_name(r.split(";")[0]) for r in requires if marker.search(r)]
        missing = []
        for name in needed:
            try:
                metadata.version(name)
            except metadata.PackageNotFoundError:
                missing.append(name)
        enables = EXTRAS.get(extra, "")
        data = {"extra": extra, "installed": not missing, "missing": missing, "enables": enables}
        if missing:
            message = f"extra {extra}: not installed (missing {', '.join(missing)})"
            fix = pip_hint.format(extra=extra)
        else:
            message, fix = f"extra {extra}: installed", ""
        out.append(Finding("extra", "info", f"{message}; {enables}" if enables else message, fix, data))
    return out


def _model(config: dict, findings: list[Finding]) -> Finding:
    """The model that plans, and whether what it needs is installed. No call is made to it."""
    source = "CURLLM_MODEL" if os.environ.get("CURLLM_MODEL") else "config" if config.get("model") else ""
    model = os.environ.get("CURLLM_MODEL") or config.get("model")
    if not model:
        return Finding(
            "model", "ok", "no model: the rule planner plans (no key, no network)", data={"model": None}
        )
    data = {"model": model, "from": source, "api_base": os.environ.get("CURLLM_API_BASE")}
    llm = next((f for f in findings if f.topic == "extra" and f.data.get("extra") == "llm"), None)
    if llm is not None and not llm.data["installed"]:
        return Finding(
            "model",
            "warn",
            f"model {model} (from {source}), but litellm is not installed: the rule planner plans instead",
            llm.fix,
            data,
        )
    where = f", api base {data['api_base']}" if data["api_base"] else ""
    return Finding("model", "ok", f"model {model} (from {source}{where}); not called by doctor", data=data)


# --- config, cache, environment ------------------------------------------------------------------


def _config() -> tuple[dict, Finding]:
    from .config import config_path, load_config
    from .errors import UsageError

    path = config_path()
    data = {"path": str(path), "exists": path.is_file()}
    try:
        config = load_config()
    except UsageError as e:
        fix = "fix the file (every problem is listed above), or move it away to use the defaults"
        if os.environ.get("CURLLM_CONFIG") and not path.is_file():
            fix = "unset CURLLM_CONFIG or create the file"
        return {}, Finding("config", "fail", f"config: {e.message}", fix, data | {"error": e.message})
    if not data["exists"]:
        return config, Finding("config", "ok", f"config {path}: none (defaults apply)", data=data)
    keys = ", ".join(sorted(config)) or "no keys"
    return config, Finding("config", "ok", f"config {path}: {keys}", data=data | {"keys": sorted(config)})


def _cache() -> Finding:
    from .caches import describe, human_size
    from .files import cache_dir

    directory = cache_dir()
    infos = describe()
    data: dict = {"path": str(directory), "caches": [i.to_dict() for i in infos]}
    parts = ", ".join(f"{i.kind} {i.entries} ({human_size(i.size)})" for i in infos)
    existing = next((p for p in (directory, *directory.parents) if p.exists()), None)
    writable = existing is not None and os.access(existing, os.W_OK)
    data["writable"] = writable
    if not writable:
        return Finding(
            "cache",
            "warn",
            f"cache {directory}: not writable (plans and checked manifests are not kept)",
            "set CURLLM_CACHE_DIR to a writable directory (only speed is lost without one)",
            data,
        )
    return Finding("cache", "ok", f"cache {directory}: {parts}", data=data)


def _environment() -> Finding:
    """The CURLLM_ variables that are set; the values of secret-looking ones are not shown."""
    names = sorted(n for n in os.environ if n.startswith("CURLLM_"))
    shown = {n: "(set)" if _SECRET_RE.search(n) else os.environ[n] for n in names}
    text = ", ".join(f"{n}={v}" for n, v in shown.items()) or "none"
    return Finding("env", "info", f"CURLLM_ variables: {text}", data={"variables": shown})
