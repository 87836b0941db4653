"""detour.py's pure parts: what counts as the page moving, and what EMPTY_OUTPUT adds about it."""

from __future__ import annotations

from curllm_core.executor.detour import Move, empty_note, moved, undone_message


def test_a_fragment_or_nothing_is_no_move():
    assert moved("http://a.test/x", "http://a.test/?q=1")
    assert moved("file:///tmp/a.html", "file:///tmp/b.html")
    assert not moved("http://a.test/x", "http://a.test/x#productlist")
    assert not moved(None, "http://a.test/x") and not moved("http://a.test/x", None)


def test_the_note_names_the_last_move_not_undone_with_its_status():
    first = Move(
        1, "forms.dropdown_select", "http://a.test/list", "http://a.test/?sort=p", True, 200, undone=True
    )
    second = Move(2, "forms.search_query", "http://a.test/list", "http://a.test/s?q=kettle", False, 200)
    note = empty_note([first, second])
    assert "http://a.test/s?q=kettle (HTTP 200)" in note and "step 2 (forms.search_query)" in note
    assert "from http://a.test/list" in note
    assert empty_note([first]) == ""
    assert empty_note([]) == ""


def test_the_undone_step_says_where_it_led_and_what_was_read_instead():
    move = Move(1, "forms.price_filter", "http://a.test/lista", "http://a.test/?cena_do=150", True, None)
    text = undone_message(move, "extraction.products_generic", "products")
    assert text.startswith(
        "it led to http://a.test/?cena_do=150, where extraction.products_generic found no products"
    )
    assert "went back to http://a.test/lista" in text
