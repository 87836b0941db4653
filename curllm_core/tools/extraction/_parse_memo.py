"""What the readers of one parse work out about its elements, kept while the parse is read and shared
by every reader: one `ParseMemo` per parse.

A page's readers ask the same elements the same questions: a title link's visible text is asked again
by its card, a card's short labels by every field (points, comments, date, rank, ads), an element's
first class name by the list's groups and by the items' paths, the document order by the list under
the page's heading and by the items' order. Each answer is worked out once, where it is first asked,
and kept here, keyed by the element's memory id.

A memo is current within `remembering()`, per thread (a tool may parse in a worker thread while
another reads on the event loop's). Outside it nothing is kept: memory ids are only unique within one
parse, so a memo must never outlive the parse it was made for, nor see the tree change.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from selectolax.lexbor import LexborNode


@dataclass(slots=True)
class ParseMemo:
    """The answers kept for one parse, by element (memory id)."""

    #: An element's text pieces joined, element boundaries still marked (`_html.visible_text`).
    gathered: dict[int, str] = field(default_factory=dict)
    #: An element's visible text (`_html.visible_text`).
    visible: dict[int, str] = field(default_factory=dict)
    #: A record's label: its visible text, read the quick way when it holds text only (`_record_fields`).
    labels: dict[int, str] = field(default_factory=dict)
    #: A block's raw text, every text node's as written (`_record_fields`).
    raw: dict[int, str] = field(default_factory=dict)
    #: A block's short elements, and those of them showing a digit (`_record_fields._short_nodes`).
    short: dict[int, list[Any]] = field(default_factory=dict)
    digits: dict[int, list[Any]] = field(default_factory=dict)
    #: An element's first class name without digits (`_list_choice.first_class`).
    first_class: dict[int, str] = field(default_factory=dict)
    #: Every element's place in document order under the body it was first asked for.
    order: dict[int, int] | None = None

    def document_order(self, body: LexborNode) -> dict[int, int]:
        """Element -> its place in document order under ``body`` (one walk, on the first ask)."""
        if self.order is None:
            self.order = _walk_order(body)
        return self.order


def document_order(body: LexborNode) -> dict[int, int]:
    """Element -> its place in document order under ``body``; the current memo's when there is one."""
    memo = current()
    return _walk_order(body) if memo is None else memo.document_order(body)


def _walk_order(body: LexborNode) -> dict[int, int]:
    return {node.mem_id: i for i, node in enumerate(body.traverse())}


_LOCAL = threading.local()


def current() -> ParseMemo | None:
    """The memo of the parse being read in this thread, if any (`remembering`)."""
    return getattr(_LOCAL, "memo", None)


@contextlib.contextmanager
def remembering() -> Iterator[ParseMemo]:
    """A fresh memo, current in this thread while the block runs; the one before it afterwards. For
    ONE parse, unchanged while it lasts."""
    saved = current()
    _LOCAL.memo = memo = ParseMemo()
    try:
        yield memo
    finally:
        _LOCAL.memo = saved
