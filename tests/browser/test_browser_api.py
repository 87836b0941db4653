"""The Browser object: one per process, sessions per task, a new Chromium after a crash."""

from __future__ import annotations

import pytest

from curllm_core.browser import Browser, BrowserOptions
from curllm_core.policy import NetworkPolicy

pytestmark = pytest.mark.browser


async def test_sessions_are_separate_contexts_and_a_crashed_browser_is_replaced(browser_path, tmp_path):
    page = tmp_path / "p.html"
    page.write_text("<title>x</title><script>document.cookie = 'a=1'</script>")
    browser = Browser()
    try:
        one = await browser.new_session(BrowserOptions(), NetworkPolicy())
        two = await browser.new_session(BrowserOptions(locale="de-DE"), NetworkPolicy())
        assert one.context is not two.context
        await one.open(str(page))
        assert await two.page.evaluate("navigator.language") == "de-DE"
        await one.close()
        await two.close()
        first = await browser.start()
        # The driver's own process is not involved: close the Chromium connection as a crash would.
        await first.close()
        second = await browser.start()
        assert second is not first and second.is_connected()
        session = await browser.new_session()
        await session.open(page.as_uri())
        assert await session.page.title() == "x"
        await session.close()
    finally:
        await browser.close()
