"""Shared fixtures: a real Chromium (skipped cleanly when none exists), the local test site, real pages."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import pytest_asyncio

ROOT = Path(__file__).resolve().parent.parent
REALPAGES = ROOT.parent / "shared" / "realpages"
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
        pytest.skip(f"real page snapshot {name} not available (../shared/realpages)")
    return path


@pytest.fixture
def isolated_env(tmp_path, monkeypatch):
    """No third-party plugins, a private cache, no model: what a fresh user has."""
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CURLLM_MODEL", raising=False)
    monkeypatch.delenv("CURLLM_TOOLS_PATH", raising=False)
    return dict(os.environ)
