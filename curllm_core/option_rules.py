"""The rules every run option follows, wherever it is given: the command line, the config file, a
request to the server. `option_problem` says why a value breaks its option's rule (or None), worded
after the option's name so that each caller only says where it was given (``--``, ``options.``,
``config file ...:``). A leaf: the browser and policy checks it needs are imported when used.
"""

from __future__ import annotations

import math
from typing import Any

MAX_CONCURRENCY = 64  # tasks at once in one process
MAX_REPLANS = 5
#: What reads the pages (`engines`): ``--engine``, the config's ``engine``, a request's ``options.engine``.
ENGINES = ("auto", "http", "browser")
#: Options that are text: empty text is refused (leave the option out for its default).
TEXT_OPTIONS = ("model", "locale", "user_agent", "proxy", "default_url", "viewport")
#: Options that are true or false.
FLAG_OPTIONS = ("load_images", "block_private", "cache", "headful")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def option_problem(key: str, value: Any) -> str | None:
    """Why ``value`` is not a valid ``key``, starting with the key's name; None when it is fine
    (and for a key without rules here)."""
    if key in FLAG_OPTIONS:
        return None if isinstance(value, bool) else f"{key} must be true or false"
    if key in TEXT_OPTIONS:
        if not isinstance(value, str):
            return f"{key} must be a string"
        if not value.strip():
            return f"{key} is empty (leave the key out for the default)"
    if key == "timeout" and not (_number(value) and 0 < value < math.inf):
        return f"timeout must be a number of seconds greater than 0, got {value}"
    if key == "concurrency" and not (
        _number(value) and value == int(value) and 1 <= value <= MAX_CONCURRENCY
    ):
        return f"concurrency must be between 1 and {MAX_CONCURRENCY}, got {value}"
    if key == "max_replans" and not (
        isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_REPLANS
    ):
        return f"max_replans must be a whole number from 0 to {MAX_REPLANS}"
    if key == "engine":
        if not isinstance(value, str) or value.strip().lower() not in ENGINES:
            return f"engine must be one of {', '.join(ENGINES)}, not {value!r}"
    if key == "viewport":
        from .browser import parse_viewport

        try:
            parse_viewport(value)
        except ValueError as e:
            return str(e)  # "viewport must look like 1280x800, ..."
    if key in ("allow_domains", "block_domains"):
        if not isinstance(value, list) or not all(isinstance(d, str) and d for d in value):
            return f"{key} must be an array of domain names"
        from .errors import UsageError
        from .policy import canonical_domain

        for i, domain in enumerate(value):
            try:
                canonical_domain(domain, f"{key}[{i}]")
            except UsageError as e:
                return e.message
    return None
