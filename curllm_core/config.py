"""Defaults from a TOML file: ``$CURLLM_CONFIG``, else ``~/.config/curllm/config.toml``.

Keys (all optional): model, locale, user_agent, viewport, proxy, timeout, ready_timeout, load_images,
concurrency, default_url, allow_domains, block_domains, block_private, consent, engine. Command-line options
override them.
Values are held to the command line's own limits (concurrency 1-64, timeout > 0, a valid viewport
and domains); a file that is not a regular UTF-8 file of at most 1 MiB is refused with a message.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from .errors import UsageError

KEYS: dict[str, type | tuple[type, ...]] = {
    "model": str,
    "locale": str,
    "user_agent": str,
    "viewport": str,
    "proxy": str,
    "timeout": (int, float),
    "ready_timeout": (int, float),
    "load_images": bool,
    "concurrency": int,
    "default_url": str,
    "allow_domains": list,
    "block_domains": list,
    "block_private": bool,
    "consent": str,
    "engine": str,
}


def config_path() -> Path:
    explicit = os.environ.get("CURLLM_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / "curllm" / "config.toml"


MAX_CONFIG_BYTES = 1024 * 1024  # a config file is a few lines; /dev/zero is not one
MAX_READY_TIMEOUT_S = 120  # a wait for a page's content longer than this is a hung page


def _check_value(key: str, value) -> str | None:
    """Why ``value`` is out of range for ``key`` (the rules every run option follows), or None."""
    from .option_rules import option_problem

    if (problem := option_problem(key, value)) is not None:
        return problem
    if key == "ready_timeout" and not (0 <= value <= MAX_READY_TIMEOUT_S):
        return f"ready_timeout must be a number of seconds from 0 to {MAX_READY_TIMEOUT_S}, got {value}"
    if key == "consent":
        from .consent import check_mode

        try:
            check_mode(value, "consent")
        except UsageError as e:
            return e.message
    return None


def _read(path: Path) -> str:
    """The file's text: a regular file, at most MAX_CONFIG_BYTES, UTF-8; UsageError naming the problem."""
    import stat

    try:
        with open(path, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise UsageError(f"config file {path}: not a regular file (give a TOML file)")
            data = f.read(MAX_CONFIG_BYTES + 1)
    except IsADirectoryError:
        raise UsageError(f"config file {path}: is a directory (give a TOML file)") from None
    except OSError as e:
        raise UsageError(f"config file {path}: cannot read: {e.strerror}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise UsageError(
            f"config file {path}: larger than {MAX_CONFIG_BYTES // 1024} KiB; is it the right file?"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"config file {path}: not UTF-8 text (byte {e.start}); save it as UTF-8") from None


@cache
def _load(path: Path, mtime: float) -> dict:
    import tomllib

    try:
        doc = tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"config file {path}: not valid TOML: {e}") from None
    except RecursionError:
        raise UsageError(f"config file {path}: not valid TOML: nested too deeply") from None
    problems = []
    for key, value in doc.items():
        if key not in KEYS:
            problems.append(f"unknown key {key!r} (known: {', '.join(sorted(KEYS))})")
        elif not isinstance(value, KEYS[key]) or (KEYS[key] is not bool and isinstance(value, bool)):
            problems.append(f"{key} has the wrong type ({type(value).__name__})")
        elif isinstance(value, list) and not all(isinstance(v, str) for v in value):
            problems.append(f"{key} must be a list of strings")
        elif (why := _check_value(key, value)) is not None:
            problems.append(why)
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
