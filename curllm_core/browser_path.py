"""Which browser executable to start: CURLLM_BROWSER, a Playwright-installed Chromium, Debian's Chromium."""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from .errors import BrowserNotFound

DEBIAN_CANDIDATES = ("/usr/lib/chromium/chromium-headless-shell", "/usr/lib/chromium/chromium")
INSTALL_HINT = (
    "no Chromium found. Install one with `apt-get install chromium-headless-shell` "
    "(Debian/Ubuntu, as root) or point CURLLM_BROWSER at a Chromium executable"
)


def _playwright_installed() -> str | None:
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or os.path.expanduser("~/.cache/ms-playwright")
    patterns = (
        "chromium_headless_shell-*/chrome-headless-shell-linux64/chrome-headless-shell",
        "chromium_headless_shell-*/chrome-linux/headless_shell",
        "chromium-*/chrome-linux64/chrome",
        "chromium-*/chrome-linux/chrome",
    )
    for pattern in patterns:
        found = sorted(glob.glob(os.path.join(root, pattern)), reverse=True)
        if found:
            return found[0]
    return None


def find_browser(env: Mapping[str, str] | None = None) -> str:
    """The executable to launch, or BrowserNotFound with the install hint (exit code 2)."""
    env = os.environ if env is None else env
    configured = env.get("CURLLM_BROWSER")
    if configured:
        path = shutil.which(configured) or configured
        if not (Path(path).is_file() and os.access(path, os.X_OK)):
            raise BrowserNotFound(f"CURLLM_BROWSER={configured!r} is not an executable file; {INSTALL_HINT}")
        return path
    for candidate in (_playwright_installed(), *DEBIAN_CANDIDATES, shutil.which("chromium")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise BrowserNotFound(INSTALL_HINT)
