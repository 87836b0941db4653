"""Defaults from a TOML file: ``$CURLLM_CONFIG``, else ``~/.config/curllm/config.toml``.

Keys (all optional): model, locale, user_agent, viewport, proxy, timeout, load_images, concurrency,
default_url, allow_domains, block_domains, block_private. Command-line options override them.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from .errors import UsageError

KEYS = {
    "model": str,
    "locale": str,
    "user_agent": str,
    "viewport": str,
    "proxy": str,
    "timeout": (int, float),
    "load_images": bool,
    "concurrency": int,
    "default_url": str,
    "allow_domains": list,
    "block_domains": list,
    "block_private": bool,
}


def config_path() -> Path:
    explicit = os.environ.get("CURLLM_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / "curllm" / "config.toml"


@cache
def _load(path: Path, mtime: float) -> dict:
    import tomllib

    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"config file {path}: not valid TOML: {e}") from None
    problems = []
    for key, value in doc.items():
        if key not in KEYS:
            problems.append(f"unknown key {key!r} (known: {', '.join(sorted(KEYS))})")
        elif not isinstance(value, KEYS[key]) or (KEYS[key] is not bool and isinstance(value, bool)):
            problems.append(f"{key} has the wrong type ({type(value).__name__})")
        elif isinstance(value, list) and not all(isinstance(v, str) for v in value):
            problems.append(f"{key} must be a list of strings")
    if problems:
        raise UsageError(f"config file {path}: " + "; ".join(problems))
    return doc


def load_config() -> dict:
    """The configuration (an empty dict when there is no file). Bad files raise UsageError."""
    path = config_path()
    try:
        mtime = path.stat().st_mtime
    except OSError:
        if os.environ.get("CURLLM_CONFIG"):
            raise UsageError(f"CURLLM_CONFIG={path}: no such file") from None
        return {}
    return _load(path, mtime)
