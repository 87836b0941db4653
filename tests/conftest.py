"""Shared fixtures: a real Chromium (skipped cleanly when none exists), the local test site, real pages."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import pytest_asyncio

ROOT = Path(__file__).resolve().parent.parent
# Real page snapshots live beside the checkout, not in it (their licences); CURLLM_TEST_REALPAGES
# points elsewhere (the summary note's own test points it nowhere).
REALPAGES = Path(os.environ.get("CURLLM_TEST_REALPAGES") or ROOT.parent / "shared" / "realpages")
REALPAGES_REASON = "../shared/realpages"  # in every skip reason of a test that needs them
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def browser_path() -> str:
    from curllm_core.browser_path import find_browser
    from curllm_core.errors import BrowserNotFound

    try:
        return find_browser()
    except BrowserNotFound as e:
        pytest.skip(str(e))


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def pw_browser(browser_path):
    """One Playwright Chromium for the whole session."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=browser_path, headless=True)
        yield browser
        await browser.close()


@pytest_asyncio.fixture(loop_scope="session")
async def page(pw_browser):
    """A fresh context and page per test."""
    context = await pw_browser.new_context()
    pg = await context.new_page()
    yield pg
    await context.close()


@pytest.fixture(scope="session")
def site_url() -> str:
    """Base URL (no trailing slash) of the local test site served on 127.0.0.1."""
    from site_server import start_site

    server = start_site()
    yield server.url
    server.stop()


def realpage(name: str) -> Path:
    """Path of a real page snapshot; skips the test when ../shared/realpages is absent."""
    path = REALPAGES / name
    if not path.is_file():
        pytest.skip(f"real page snapshot {name} not available ({REALPAGES_REASON})")
    return path


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Say why tests were skipped for want of the real page snapshots, and which ones."""
    missing = [r for r in terminalreporter.stats.get("skipped", []) if REALPAGES_REASON in _skip_reason(r)]
    if not missing:
        return
    per_module: dict[str, int] = {}
    for report in missing:
        module = report.nodeid.split("::")[0]
        per_module[module] = per_module.get(module, 0) + 1
    write = terminalreporter.write_line
    terminalreporter.section("tests skipped: no real page snapshots", sep="-")
    write(
        f"{len(missing)} tests were skipped because they read real page snapshots from {REALPAGES} "
        f"({REALPAGES_REASON} beside this checkout), which is not there."
    )
    write(
        "Untested without them: the extractors, forms and pagination on real sites' markup "
        "(Ceneo, Amazon, eBay, Hacker News, Reddit, Wikipedia, ...); the local fixtures still ran."
    )
    for module, count in sorted(per_module.items()):
        write(f"  {module}: {count} skipped")


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    return str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)


@pytest.fixture(scope="session")
def curllm_wheel(tmp_path_factory) -> Path:
    """curllm built into a wheel from this checkout, once per run (for the fresh-venv tests): under
    xdist the first worker to need it builds it into the run's shared temporary directory, under a
    lock, and the others take that one."""
    import fcntl
    import subprocess

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # pytest-N/, above gw0/
    out = shared / "curllm-wheel"
    with open(shared / "curllm-wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not any(out.glob("curllm-*.whl")):
            # --no-isolation: hatchling comes from this environment, so building needs no network.
            done = subprocess.run(
                [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("curllm-*.whl")
    return wheel


@pytest.fixture(scope="session")
def _private_dirs(tmp_path_factory) -> tuple[Path, Path]:
    return tmp_path_factory.mktemp("curllm-cache"), tmp_path_factory.mktemp("curllm-config")


@pytest.fixture(scope="session", autouse=True)
def _warm_cache_home(tmp_path_factory) -> None:
    """Where `tests.warm_cache.fresh_cache` fills its one manifest cache, when a test first asks."""
    from tests import warm_cache

    warm_cache.HOME = tmp_path_factory.getbasetemp()


@pytest.fixture(autouse=True)
def _never_the_users_cache_or_config(_private_dirs, monkeypatch):
    """No test reads or writes the user's ~/.cache/curllm or ~/.config/curllm, or takes a model, a
    default URL or a config file from the environment. One cache for the session (manifests are
    checked once); a test that needs its own sets CURLLM_CACHE_DIR itself, which wins."""
    cache, config = _private_dirs
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(cache))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    # litellm imported by a test itself (not through curllm, which sets this) would otherwise fetch
    # its price list from GitHub, and wait ~7 s of retries where there is no network.
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    for name in ("CURLLM_CONFIG", "CURLLM_DEFAULT_URL", "CURLLM_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def realpages_url() -> str:
    """Base URL (no trailing slash) of ../shared/realpages served over http from 127.0.0.1 by the
    standard library's file server (a form's POST answers 501, a missing page 404); skips when absent."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    if not REALPAGES.is_dir():
        pytest.skip(f"real page snapshots not available ({REALPAGES_REASON})")

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(REALPAGES)))
    thread = threading.Thread(target=server.serve_forever, name="curllm-realpages", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def isolated_env(tmp_path, monkeypatch):
    """No third-party plugins, a private cache, no model: what a fresh user has."""
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CURLLM_MODEL", raising=False)
    monkeypatch.delenv("CURLLM_TOOLS_PATH", raising=False)
    return dict(os.environ)


def pytest_addoption(parser) -> None:
    parser.addoption(
        "--record-file-times",
        metavar="PATH",
        help="write each test file's seconds into PATH (tests/file_times.json orders the files for xdist)",
    )


def pytest_configure(config) -> None:
    """Under xdist, the files go to the workers longest first (tests/file_order.py), not in xdist's
    order of most tests first; --record-file-times records this run's seconds per file."""
    from tests.file_order import FileTimes

    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    path = config.getoption("record_file_times", None)
    if path and not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        config.pluginmanager.register(FileTimes(Path(path).resolve()), "curllm-file-times")


def pytest_collection_modifyitems(session, config, items) -> None:
    from tests.file_order import longest_files_first, recorded_times

    if hasattr(config, "workerinput"):  # on an xdist worker: the order the controller schedules in
        items[:] = longest_files_first(items, recorded_times())
