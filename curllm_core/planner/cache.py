"""The plan cache: a plan a model made (and the checker passed) is reused for the same task shape.

One JSON file per plan under ``cache_dir()/plans``. The key is made of the normalised instruction,
the URL's *shape* (host without ``www.``, path with digits as ``#``, query keys sorted, values
dropped: ``/p/123?q=x&a=1`` and ``/p/456?a=2&q=y`` share a plan), the model, the registry
fingerprint (any tool added, removed or edited makes a new key), the data keys given up front and
the planner's own code (`planner_code`: a new release or a changed rule plans anew).
Files hold plan documents and reasoning only: never an API key or a page.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import re
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from ..files import cache_dir, write_json_atomic
from ..version import __version__

log = logging.getLogger("curllm.planner")
VERSION = 1


def plans_dir() -> Path:
    return cache_dir() / "plans"


def normalize_instruction(instruction: str) -> str:
    """Case, surrounding and repeated white space, and a trailing full stop do not change a task."""
    return re.sub(r"\s+", " ", instruction.casefold()).strip().rstrip(".!?").strip()


def url_shape(url: str | None) -> str:
    """``https://www.shop.pl/p/123?q=x&a=1`` -> ``shop.pl/p/#?a&q``: what a plan depends on in a URL."""
    if not url:
        return ""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    host = host[4:] if host.startswith("www.") else host
    path = re.sub(r"\d+", "#", parts.path.rstrip("/") or "/")
    keys = sorted({k for k, _ in parse_qsl(parts.query, keep_blank_values=True)})
    where = host if parts.scheme in ("http", "https") else f"{parts.scheme}:"
    return where + path + ("?" + "&".join(keys) if keys else "")


@functools.cache
def planner_code(root: Path = Path(__file__).parent) -> str:
    """curllm's version and, for a copy being worked on, each planner module's size and modification
    time: what makes a rule plan cached before a change to the rules stale. A stat a file, once a
    process."""
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(root.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def plan_key(
    instruction: str,
    url: str | None,
    model: str,
    fingerprint: str,
    initial_keys: set[str] | frozenset = frozenset(),
) -> str:
    """The cache key of a task (a hex digest; the parts are stored beside the plan for people)."""
    parts = [
        normalize_instruction(instruction),
        url_shape(url),
        model,
        fingerprint,
        ",".join(sorted(initial_keys)),
        planner_code(),
    ]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def load(key: str) -> dict | None:
    """The cached entry for ``key``, or None (missing, unreadable, or of another format version)."""
    path = plans_dir() / f"{key}.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        log.debug("plan cache %s unreadable: %s", path, e)
        return None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("plan"), dict):
        return None
    return doc


def store(
    key: str, plan: dict, reasoning: list[str], source: str, *, instruction: str, url: str | None
) -> None:
    """Write an entry atomically (temp file + rename): a crash never leaves half a plan behind."""
    doc = {
        "version": VERSION,
        "plan": plan,
        "reasoning": reasoning,
        "source": source,
        "instruction": instruction,
        "url_shape": url_shape(url),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    from ..scrub import scrub_data

    doc = scrub_data(doc)  # a model may have echoed a key into a description: never persisted
    directory = plans_dir()
    try:
        write_json_atomic(directory / f"{key}.json", doc, prefix=".plan-", indent=1)
    except OSError as e:
        # A read-only or full cache directory costs a model call next time, nothing more.
        log.warning("could not write the plan cache in %s: %s", directory, e)
