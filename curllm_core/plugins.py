"""Plugin discovery: the built-in default plugin, entry points of group ``curllm``, CURLLM_TOOLS_PATH.

Entry points are read straight from the ``*.dist-info/entry_points.txt`` files on ``sys.path``:
``importlib.metadata`` costs ~80 ms to import here, more than the rest of ``curllm tools list``.
A plugin that fails to import or to register is recorded with its error; the others still load.
A plugin's import and its hook run with a time limit (CURLLM_PLUGIN_TIMEOUT, 30 s): one that hangs
is named on stderr after 3 s and skipped at the limit, and SystemExit or KeyboardInterrupt raised by
a plugin is recorded as its error, never the end of curllm.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pluggy

from . import builtin, hookspecs
from .files import cache_dir
from .registry import ManifestCache, PluginInfo, Registry

GROUP = "curllm"
log = logging.getLogger("curllm.plugins")


@dataclass(frozen=True)
class EntryPoint:
    name: str
    value: str  # module[:attr]
    dist: str
    version: str


def _parse_entry_points(text: str, group: str) -> list[tuple[str, str]]:
    found, section = [], None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == group and "=" in line:
            name, _, value = line.partition("=")
            found.append((name.strip(), value.split("[")[0].strip()))
    return found


def entry_points(group: str = GROUP) -> list[EntryPoint]:
    """Installed entry points of ``group``, first on sys.path wins, sorted by name."""
    seen: dict[str, EntryPoint] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for dirname in names:
            if not dirname.endswith((".dist-info", ".egg-info")):
                continue
            file = os.path.join(entry or ".", dirname, "entry_points.txt")
            try:
                with open(file, encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            if f"[{group}]" not in text:
                continue
            stem = dirname.rsplit(".", 1)[0]
            dist, _, version = stem.partition("-")
            for name, value in _parse_entry_points(text, group):
                seen.setdefault(name, EntryPoint(name, value, dist, version.partition("-")[0]))
    return [seen[n] for n in sorted(seen)]


def _load_object(value: str):
    module, _, attr = value.partition(":")
    obj = importlib.import_module(module.strip())
    for part in filter(None, attr.strip().split(".")):
        obj = getattr(obj, part)
    return obj


PLUGIN_TIMEOUT_S = 30.0  # CURLLM_PLUGIN_TIMEOUT: importing a plugin, or running its hook
SLOW_NOTICE_S = 3.0  # then stderr names the plugin that is taking long


class _TimedOut(Exception):
    pass


def _bounded(what: str, name: str, fn, timeout_s: float):
    """Run a plugin's code (its import, its hook) in a thread, at most ``timeout_s``.

    A plugin that hangs is named on stderr after SLOW_NOTICE_S and skipped at the limit (its thread
    is left behind, a daemon). Whatever it raises comes back as an exception to record, including
    SystemExit and KeyboardInterrupt: a plugin does not get to end curllm. A real Ctrl-C arrives in
    the main thread, which is only waiting here, and ends the command as usual.
    """
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as e:  # SystemExit, KeyboardInterrupt: the plugin's, recorded
            outcome["error"] = e

    thread = threading.Thread(target=target, name=f"curllm-plugin-{name}", daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(min(SLOW_NOTICE_S, timeout_s))
    if thread.is_alive():
        log.warning(
            "%s plugin %r is taking long (over %g s; skipped after %g s, CURLLM_PLUGIN_TIMEOUT); "
            "CURLLM_LOAD_PLUGINS can leave it out",
            what,
            name,
            SLOW_NOTICE_S,
            timeout_s,
        )
        thread.join(max(0.0, timeout_s - (time.monotonic() - started)))
    if thread.is_alive():
        raise _TimedOut(f"did not finish within {timeout_s:g} s (CURLLM_PLUGIN_TIMEOUT)")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def _describe(error: BaseException) -> str:
    if isinstance(error, _TimedOut):
        return str(error)
    if isinstance(error, SystemExit):
        return f"SystemExit({error.code!r}): a plugin may not end curllm"
    if isinstance(error, KeyboardInterrupt):
        return "KeyboardInterrupt raised by the plugin itself"
    return f"{type(error).__name__}: {error}"


def plugin_timeout(env) -> float:
    """CURLLM_PLUGIN_TIMEOUT in seconds (a positive number), else PLUGIN_TIMEOUT_S."""
    raw = env.get("CURLLM_PLUGIN_TIMEOUT")
    if not raw:
        return PLUGIN_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value < 86400:
        from .errors import UsageError

        raise UsageError(f"CURLLM_PLUGIN_TIMEOUT={raw!r}: give a number of seconds greater than 0")
    return value


def allowed_plugins(env: Mapping[str, str]) -> set[str] | None:
    """None: every plugin. A set: only those names (empty: none). From CURLLM_LOAD_PLUGINS."""
    if "CURLLM_LOAD_PLUGINS" not in env:
        return None
    return {n.strip() for n in env["CURLLM_LOAD_PLUGINS"].split(",") if n.strip()}


def load_registry(env: Mapping[str, str] | None = None, *, use_cache: bool = True) -> Registry:
    """Build the registry: built-in tools, installed plugins, then CURLLM_TOOLS_PATH directories."""
    env = os.environ if env is None else env
    cache = ManifestCache(
        cache_dir() / "manifests.json" if use_cache and not env.get("CURLLM_NO_MANIFEST_CACHE") else None
    )
    registry = Registry(cache=cache)
    pm = pluggy.PluginManager(GROUP)
    pm.add_hookspecs(hookspecs)

    ordered: list[tuple[PluginInfo, object]] = []
    pm.register(builtin, name="builtin")
    ordered.append((PluginInfo("builtin", _curllm_version(), builtin.__name__, builtin=True), builtin))

    allow = allowed_plugins(env)
    timeout = plugin_timeout(env)
    eps = entry_points()
    for ep in eps:
        if allow is not None and ep.name not in allow:
            continue
        info = PluginInfo(ep.name, ep.version, ep.value)
        try:
            plugin = _bounded("importing", ep.name, lambda value=ep.value: _load_object(value), timeout)
            pm.register(plugin, name=ep.name)
        except BaseException as e:  # third-party import errors are reported, never fatal
            info.error = f"failed to load: {_describe(e)}"
            registry.plugins.append(info)
            continue
        ordered.append((info, plugin))
    if allow:
        for missing in sorted(allow - {ep.name for ep in eps}):
            registry.plugins.append(
                PluginInfo(missing, error="named in CURLLM_LOAD_PLUGINS but not installed")
            )

    impls = {impl.plugin_name: impl for impl in pm.hook.curllm_register_tools.get_hookimpls()}
    for info, _plugin in ordered:
        impl = impls.get(info.name)
        if impl is not None and info.builtin:
            impl.function(
                register=lambda item, _info=info: _info.tools.extend(
                    registry.register(item, source=_info.name)
                )
            )
        elif impl is not None:
            open_ = [True]  # a hook that timed out and wakes up later registers nothing any more

            def register(item, _info=info, _open=open_) -> None:
                if _open[0]:
                    _info.tools.extend(registry.register(item, source=_info.name))

            try:
                _bounded(
                    "running the hook of",
                    info.name,
                    lambda f=impl.function, r=register: f(register=r),
                    timeout,
                )
            except BaseException as e:  # a plugin's hook failing must not take the others down
                info.error = f"curllm_register_tools failed: {_describe(e)}"
            finally:
                open_[0] = False
        registry.plugins.append(info)

    for directory in filter(None, env.get("CURLLM_TOOLS_PATH", "").split(os.pathsep)):
        info = PluginInfo(directory, module=str(Path(directory).resolve()))
        try:
            info.tools = registry.register(Path(directory), source=directory)
        except Exception as e:
            info.error = f"{type(e).__name__}: {e}"
        registry.plugins.append(info)
    cache.save()
    return registry


def _curllm_version() -> str:
    from .version import __version__

    return __version__
