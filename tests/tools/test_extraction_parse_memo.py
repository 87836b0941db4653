"""The memo of one parse (`_parse_memo`): current only within `remembering`, per thread, and what it
keeps reads the same as what is worked out without it."""

from __future__ import annotations

import threading

from curllm_core.tools.extraction import _parse_memo
from curllm_core.tools.extraction._html import parse_html, visible_text
from curllm_core.tools.extraction._list_choice import first_class
from curllm_core.tools.extraction._record_fields import _short_nodes, _text

PAGE = (
    '<ul class="list"><li class="item 7 card"><a href="/a">Erster <b>Titel</b></a><span>12 Punkte</span>'
    '<span class="sr-only">ukryte</span></li><li class="x1 item"><a href="/b">Second title</a>'
    "<small>3 comments</small></li></ul><p>Tekst strony</p>"
)


def _answers(tree) -> tuple:
    nodes = list(tree.body.traverse())
    return (
        [visible_text(n) for n in nodes],
        [_text(n) for n in nodes],
        [first_class(n) for n in nodes],
        [[(short[1], short[2], short[3], short[4]) for short in _short_nodes(n)] for n in nodes],
        _parse_memo.document_order(tree.body),
    )


def test_remembered_answers_are_the_fresh_ones():
    tree = parse_html(PAGE)
    fresh = _answers(tree)
    with _parse_memo.remembering() as memo:
        assert _parse_memo.current() is memo
        remembered, again = _answers(tree), _answers(tree)
        assert memo.visible and memo.labels and memo.first_class and memo.short and memo.order
    assert remembered == fresh and again == fresh
    assert _parse_memo.current() is None  # nothing kept after it


def test_nested_memos_give_the_outer_one_back():
    with _parse_memo.remembering() as outer:
        with _parse_memo.remembering() as inner:
            assert _parse_memo.current() is inner and inner is not outer
        assert _parse_memo.current() is outer
    assert _parse_memo.current() is None


def test_a_memo_is_current_in_its_own_thread_only():
    seen: list[object] = []
    with _parse_memo.remembering():
        worker = threading.Thread(target=lambda: seen.append(_parse_memo.current()))
        worker.start()
        worker.join()
    assert seen == [None]


def test_document_order_is_page_order():
    tree = parse_html(PAGE)
    order = _parse_memo.document_order(tree.body)
    tags = [n.tag for n in sorted(tree.body.traverse(), key=lambda n: order[n.mem_id])]
    assert tags == [n.tag for n in tree.body.traverse()]
    assert order[tree.body.css_first("ul").mem_id] < order[tree.body.css_first("p").mem_id]
