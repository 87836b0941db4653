"""Keep the items whose text field matches: "titles mentioning 'wireless'", "Philips kettles",
"comments by dang", "articles linking to youtube.com".

A field is an item key or a concept (`curllm_core.item_fields`): ``name`` is a story's ``title``,
``author`` a post's ``user``. Text is compared folded (case and accents ignored: "Łódź" is "lodz").
One way of matching per parameter: ``contains`` (a part of the text), ``word`` (a whole word or
words, so "Bosch" is not "Boschung"), ``starts_with``, ``equals``, and ``domain`` (the host of the
item's link is that domain or below it; a name without a dot, "youtube", is that site under any
top-level domain). Each takes one text or a list (any of them matches); given together, all must
hold. ``exclude`` keeps the items that do not match instead. A field no item has fails the step.
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import ToolError
from ...tool import ToolContext
from ...urls import host_of
from ._values import label_of, require_key, text_of
from .items import items_of, verdict

MATCHES = ("contains", "word", "starts_with", "equals", "domain")


def _texts(value: str | list[str] | None) -> list[str]:
    values = [value] if isinstance(value, str) else list(value or [])
    return [t for t in (text_of(v) for v in values) if t]


def domain_matches(host: str, domain: str) -> bool:
    """Whether ``host`` is ``domain`` or below it; a ``domain`` without a dot names a site under
    any top-level domain ("youtube" is youtube.com, m.youtube.de)."""
    host = host.lower().rstrip(".")
    domain = domain.lower().strip().strip(".")
    if domain.startswith("www."):
        domain = domain[4:]
    if "." in domain:
        return host == domain or host.endswith("." + domain)
    labels = host.split(".")
    return domain in labels[:-1]


def _matcher(how: str, wanted: list[str]):
    if how == "contains":
        return lambda text: any(w in text for w in wanted)
    if how == "starts_with":
        return lambda text: any(text.startswith(w) for w in wanted)
    if how == "equals":
        return lambda text: any(text == w for w in wanted)
    if how == "word":
        patterns = [re.compile(rf"(?<!\w){re.escape(w)}(?!\w)") for w in wanted]
        return lambda text: any(p.search(text) for p in patterns)
    return lambda text: any(domain_matches(host_of(text if "//" in text else f"//{text}"), w) for w in wanted)


def filter_text(
    items: list, field: str | None, tests: dict[str, list[str]], exclude: bool
) -> tuple[list, list]:
    """(kept, rejected entries) of ``items`` by the ``tests`` (match -> wanted texts, any of them) on
    ``field``."""
    if not tests:
        raise ToolError(f"say what to match: one of {', '.join(MATCHES)}")
    name = field or ("url" if set(tests) == {"domain"} else "name")
    key = require_key(items, name, "the items cannot be filtered by it")
    checks = [(how, _matcher(how, _texts(wanted)), wanted) for how, wanted in tests.items()]
    kept: list = []
    rejected: list[dict] = []
    for index, item in enumerate(items):
        raw: Any = item.get(key) if isinstance(item, dict) else None
        # A domain is read from the link as written: fold() would keep it, but not a missing scheme.
        text = (str(raw).strip().lower() or None) if raw is not None and "domain" in tests else text_of(raw)
        ok = text is not None and all(test(text) for _, test, _ in checks)
        if ok != exclude:
            kept.append(item)
            continue
        said = " and ".join(
            f"{how.replace('_', ' ')} {' or '.join(map(repr, wanted))}" for how, _, wanted in checks
        )
        why = f"its {key} {'does' if exclude else 'does not'} {said}" if text is not None else f"no {key}"
        rejected.append(
            {"index": index, "name": label_of(item), "reason": f"item {index} ({label_of(item)}): {why}"}
        )
    return kept, rejected


async def run(
    ctx: ToolContext,
    field: str | None = None,
    contains: str | list[str] | None = None,
    word: str | list[str] | None = None,
    starts_with: str | list[str] | None = None,
    equals: str | list[str] | None = None,
    domain: str | list[str] | None = None,
    exclude: bool = False,
    key: str = "products",
) -> dict:
    """Tool entry point: the list under ``key``, only the items that match (or, with ``exclude``, not)."""
    given = {
        "contains": contains,
        "word": word,
        "starts_with": starts_with,
        "equals": equals,
        "domain": domain,
    }
    tests = {
        how: [value] if isinstance(value, str) else value for how, value in given.items() if value is not None
    }
    empty = [how for how, wanted in tests.items() if not _texts(wanted)]
    if empty:
        raise ToolError(f"nothing to match in {', '.join(empty)}: give a text or a list of texts")
    kept, rejected = filter_text(items_of(ctx, key), field, tests, exclude)
    return verdict(key, kept, rejected, "filter", "do not match")
