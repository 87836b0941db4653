"""`page_html` reads the page a user sees: open shadow roots (slots as their assigned nodes), frames
in place, and the page behind an open modal despite the aria-hidden the modal sets on it."""

from __future__ import annotations

import pytest

from curllm_core.tool import ToolContext
from curllm_core.tools.extraction import _html
from curllm_core.tools.extraction._html import HiddenIndex, parse_html, visible_text

pytestmark = pytest.mark.browser

SHADOW = """<!doctype html><html><body>
<x-card id="a"><span slot="title">Slotted title</span><span>unslotted light text</span></x-card>
<x-card id="b"><template shadowrootmode="open"><p class="inner">Declarative <slot>fallback</slot></p></template></x-card>
<script>
document.getElementById('a').attachShadow({mode: 'open'}).innerHTML =
  '<h3><slot name="title"></slot></h3><p class="price">19,99 zł</p><div style="display:none">hidden in shadow</div>';
document.body.appendChild(Object.assign(document.createElement('div'), {id: 'closed'}))
  .attachShadow({mode: 'closed'}).innerHTML = '<p>closed root</p>';
</script></body></html>"""


async def test_open_shadow_roots_are_read_where_they_are_shown(page):
    await page.set_content(SHADOW)
    for lean in (False, True):
        html, _ = await _html.page_html(ToolContext(page=page), lean=lean)
        tree = parse_html(html)
        card = tree.css_first("x-card")
        assert visible_text(card.css_first("h3")) == "Slotted title"
        assert visible_text(card.css_first(".price")) == "19,99 zł"
        assert "unslotted light text" not in html  # not assigned to a slot: not shown
        assert (
            visible_text(tree.css_first(".inner")) == "Declarative fallback"
        )  # a slot with nothing assigned
        assert "closed root" not in html  # no script can read a closed root
        assert ("hidden in shadow" in html) is (not lean)


FRAMES = """<!doctype html><html><body><h1>Page</h1>
<iframe id="shown" style="width:600px;height:300px" srcdoc="<base href='https://shop.example/'><ul><li><a href='p/1'>In a frame</a> 9,99 zł</li></ul>"></iframe>
<iframe id="pixel" style="width:1px;height:1px" srcdoc="<p>tracking pixel</p>"></iframe>
<iframe id="none" style="display:none" srcdoc="<p>hidden frame</p>"></iframe>
</body></html>"""


async def test_rendered_frames_are_read_in_place_with_their_links_made_absolute(page):
    await page.set_content(FRAMES)
    await page.wait_for_function(
        "document.getElementById('shown').contentDocument.querySelector('a') !== null"
    )
    html, _ = await _html.page_html(ToolContext(page=page))
    tree = parse_html(html)
    frame = tree.css_first("[data-curllm-frame]")
    link = frame.css_first("a")
    assert visible_text(link) == "In a frame" and link.attributes["href"] == "https://shop.example/p/1"
    assert "tracking pixel" not in html and "hidden frame" not in html
    assert len(tree.css("[data-curllm-frame]")) == 1


MODAL = """<!doctype html><html><body>
<div id="app"><ul class="list"><li class="item"><a href="/1">One</a> 1 zł</li><li class="item"><a href="/2">Two</a> 2 zł</li></ul>
<div class="offscreen-copy" aria-hidden="true" style="position:absolute;left:-9999px">Off-screen copy</div></div>
<div role="dialog" aria-modal="true" style="position:fixed;top:10px;left:10px">Newsletter <button>Close</button></div>
<script>document.getElementById('app').setAttribute('aria-hidden', 'true');</script>
</body></html>"""


async def test_the_page_behind_an_open_modal_is_still_seen(page):
    await page.set_content(MODAL)
    html, _ = await _html.page_html(ToolContext(page=page), lean=True)
    tree = parse_html(html)
    strict = HiddenIndex(tree, strict=True)
    assert not any(strict(n) for n in tree.css(".item"))  # the modal's aria-hidden says nothing of sight
    assert strict(tree.css_first(".offscreen-copy"))  # off screen: still not seen
    assert tree.css_first("#app").attributes.get("aria-hidden") is None
    # Without a modal, the page's aria-hidden is written as it is (what it means is the readers' to say).
    await page.evaluate("document.querySelector('[role=dialog]').remove()")
    html, _ = await _html.page_html(ToolContext(page=page), lean=True)
    assert parse_html(html).css_first("#app").attributes.get("aria-hidden") == "true"


#: Inline elements as the stylesheet shows them, in three languages: pieces of one word in a line
#: join; fields laid out as blocks or as flex or grid items are words apart on screen, and so in
#: the text (the HTML engine, which knows no stylesheet, joins the first two rows' like pieces).
STYLED_INLINE = """<!doctype html><html><head><style>
.row { display: flex; gap: 4px } .grid { display: grid } .stack span, .stack x-name { display: block }
</style></head><body>
<p id="word"><span>Sam</span><span>sung</span> Galaxy, <span>Kühl</span><span>schrank</span></p>
<div id="flex" class="row"><span>Nike</span><span>running shoes</span></div>
<div id="grid" class="grid"><span>Zelmer</span><span>odkurzacz workowy</span></div>
<div id="stack" class="stack"><x-name>Bosch</x-name><span>kühlschrank mit Gefrierfach</span></div>
<p id="inline-block"><span style="display:inline-block">Odku</span><span style="display:inline-block">rzacz</span></p>
</body></html>"""


async def test_inline_elements_shown_as_blocks_or_flex_items_are_words_apart(page):
    await page.set_content(STYLED_INLINE)
    for lean, mark_hidden in ((True, False), (False, True)):
        html, _ = await _html.page_html(ToolContext(page=page), lean=lean, mark_hidden=mark_hidden)
        tree = parse_html(html)
        seen = {
            key: visible_text(tree.css_first(f"#{key}"))
            for key in ("word", "flex", "grid", "stack", "inline-block")
        }
        assert seen == {
            "word": "Samsung Galaxy, Kühlschrank",
            "flex": "Nike running shoes",
            "grid": "Zelmer odkurzacz workowy",
            "stack": "Bosch kühlschrank mit Gefrierfach",
            "inline-block": "Odkurzacz",
        }, (lean, seen)
