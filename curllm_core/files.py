"""Files curllm keeps for itself: where its cache directory is, and writing JSON atomically.

A leaf module (standard library only), so the registry, the planner's cache, ``@tool`` manifests and
``curllm cache`` share one definition instead of each writing its own.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    """``CURLLM_CACHE_DIR``, else ``$XDG_CACHE_HOME/curllm``, else ``~/.cache/curllm`` (may not exist)."""
    base = os.environ.get("CURLLM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "curllm"
    )
    return Path(base)


def write_json_atomic(path: Path, doc: Any, *, prefix: str, indent: int | None = None) -> None:
    """Write ``doc`` as JSON to ``path`` through a temporary file and a rename, so that a reader or a
    crash never sees half a file. The directory is created. Raises OSError (the caller decides
    whether a cache it cannot write matters); the temporary file (``prefix``...) is never left behind
    by an error, only by a killed process (``curllm cache clear`` removes it).
    """
    import tempfile  # ~40 ms (shutil, lzma): only a write pays it, never a start that reads caches

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, indent=indent)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):  # the error that matters is the write's, not this one
            os.unlink(tmp)
        raise
