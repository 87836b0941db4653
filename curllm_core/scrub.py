"""Known secrets scrubbed out of everything curllm writes: output, results, events, the plan cache.

A model may echo what it was given (an Authorization header in a step's description), and a page may
show a session cookie. The secrets curllm knows are the values of credential-like environment
variables (``OPENAI_API_KEY``, ``HF_TOKEN``, ``AWS_SECRET_ACCESS_KEY`` ...) and the cookies of a
``--session`` file (`add`); each becomes ``***`` wherever it appears. Only known values are
replaced: a pattern for key-like text would also eat product slugs and IDs out of the data.
"""

from __future__ import annotations

import os
import re
from typing import Any

MIN_LENGTH = 8  # shorter values are too likely to be ordinary words or numbers
_CREDENTIAL_NAME = re.compile(
    r"(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH|COOKIE)(_|$)", re.I
)
_added: set[str] = set()
_cache: tuple[dict, int, list[str]] | None = None


def add(value: str) -> None:
    """Treat ``value`` as a secret from now on (a session cookie, ...)."""
    if isinstance(value, str) and len(value) >= MIN_LENGTH:
        _added.add(value)


def add_cookies(state: dict) -> None:
    """A session's cookies (a Playwright storage state) are credentials: scrubbed from everything
    curllm writes from now on."""
    for cookie in state.get("cookies") or []:
        if isinstance(cookie, dict) and isinstance(cookie.get("value"), str):
            add(cookie["value"])


def known() -> list[str]:
    """Every known secret, longest first (a secret containing another is replaced whole)."""
    global _cache
    # Called for every event and output line, and the environment may change in between (a test, a
    # plugin): reading os.environ decodes every name and value (~0.1 ms, 1-2 ms of CPU per batch
    # task), while comparing the raw mapping it keeps is one C-level dict comparison.
    raw = getattr(os.environ, "_data", None)
    if not isinstance(raw, dict):
        raw = dict(os.environ)
    if _cache is None or _cache[1] != len(_added) or _cache[0] != raw:
        values = {v for k, v in os.environ.items() if _CREDENTIAL_NAME.search(k) and len(v) >= MIN_LENGTH}
        _cache = (dict(raw), len(_added), sorted(values | _added, key=len, reverse=True))
    return _cache[2]


def scrub(text: str) -> str:
    """``text`` with every known secret replaced by ``***``."""
    for secret in known():
        if secret in text:
            text = text.replace(secret, "***")
    return text


def scrub_data(value: Any) -> Any:
    """JSON-like data with every string (keys included) scrubbed; unchanged objects are returned as is."""
    secrets = known()
    return _walk(value, secrets) if secrets else value


def _walk(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return scrub(value) if any(s in value for s in secrets) else value
    if isinstance(value, dict):
        return {_walk(k, secrets): _walk(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(v, secrets) for v in value]
    return value
