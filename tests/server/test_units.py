"""The server's parts that need no browser: settings rules, request bodies, slots, SSE framing, imports."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from curllm_core.errors import UsageError
from curllm_core.server.errors import HTTPError
from curllm_core.server.settings import ServerSettings, is_loopback
from curllm_core.server.sse import sse_message
from curllm_core.server.tasks import Slots, parse_task


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
def test_loopback_hosts(host):
    assert is_loopback(host)
    settings = ServerSettings(host=host).checked()
    assert not settings.exposed and not settings.options.policy.block_private


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "example.com"])
def test_other_hosts_need_a_token_and_block_private_addresses(host):
    with pytest.raises(UsageError, match="--token"):
        ServerSettings(host=host).checked()
    settings = ServerSettings(host=host, token="long-enough-token").checked()
    assert settings.exposed and settings.options.policy.block_private
    allowed = ServerSettings(host=host, token="long-enough-token", allow_private=True).checked()
    assert not allowed.options.policy.block_private


def test_a_short_token_is_refused():
    with pytest.raises(UsageError, match="8 characters"):
        ServerSettings(token="short").checked()


def test_task_bodies():
    task = parse_task({"instruction": " find products ", "url": "https://a.example/", "limit": 3})
    assert task.instruction == "find products" and task.limit == 3
    for body, words in [
        ([], "JSON object"),
        ({}, "no instruction"),
        ({"instruction": "x", "plan": {}}, "not both"),
        ({"instruction": "x", "limit": 0}, "limit"),
        ({"instruction": "x", "fields": "name"}, "fields"),
        ({"instruction": "x", "data": [1]}, "data must be an object"),
        ({"instruction": "x", "options": {"session": "/tmp/s"}}, "options.session"),
        ({"instrucion": "x"}, "unknown field 'instrucion'"),
    ]:
        with pytest.raises(HTTPError, match=words) as info:
            parse_task(body)
        assert info.value.status == 400 and info.value.code == "BAD_REQUEST"


async def test_slots_run_some_queue_some_and_refuse_the_rest():
    slots = Slots(concurrency=1, queue=1)
    first, second = slots.reserve(), slots.reserve()
    with pytest.raises(HTTPError) as info:
        slots.reserve()
    assert info.value.status == 429 and info.value.code == "QUEUE_FULL"
    await first.acquire()
    waiting = asyncio.ensure_future(second.acquire())
    await asyncio.sleep(0.01)
    assert (slots.running, slots.waiting) == (1, 1) and not waiting.done()
    first.release()
    first.release()  # idempotent
    await waiting
    assert (slots.running, slots.waiting) == (1, 0)
    # A waiter that is cancelled gives its place back.
    third = slots.reserve()
    cancelled = asyncio.ensure_future(third.acquire())
    await asyncio.sleep(0.01)
    cancelled.cancel()
    await asyncio.gather(cancelled, return_exceptions=True)
    assert (slots.running, slots.waiting) == (1, 0)
    second.release()
    assert (slots.running, slots.waiting) == (0, 0)


def test_a_request_may_choose_its_consent_answer():
    from curllm_core.server.tasks import _run_options

    settings = ServerSettings().checked()
    chosen = _run_options(settings, parse_task({"instruction": "x", "options": {"consent": "leave"}}), None)
    assert chosen.browser.consent == "leave"
    assert _run_options(settings, parse_task({"instruction": "x"}), None).browser.consent == "reject"
    with pytest.raises(HTTPError, match="options.consent must be one of reject, accept, leave"):
        _run_options(settings, parse_task({"instruction": "x", "options": {"consent": "yes"}}), None)


def test_sse_message_is_the_events_line():
    event = {"type": "step", "data": {"message": "two\nlines", "price": "150 zł"}}
    message = sse_message(event).decode()
    assert message.endswith("\n\n") and message.count("\n") == 3
    event_line, data_line = message.split("\n")[:2]
    assert event_line == "event: step"
    assert json.loads(data_line.removeprefix("data: ")) == event
    # The same serialisation as the --events JSONL sink.
    assert data_line.removeprefix("data: ") == json.dumps(event, ensure_ascii=False, default=str)


def test_the_server_packages_are_not_imported_by_the_cli_or_the_library():
    code = (
        "import sys, curllm_core, curllm_core.cli, curllm_core.api, curllm_core.runner\n"
        "from curllm_core.cli import cli\n"
        "bad = [m for m in ('starlette', 'uvicorn', 'mcp', 'curllm_core.server.app') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_a_request_may_choose_its_engine():
    from curllm_core.server.tasks import _run_options

    settings = ServerSettings().checked()
    chosen = _run_options(settings, parse_task({"instruction": "x", "options": {"engine": "HTTP"}}), None)
    assert chosen.engine == "http"
    assert _run_options(settings, parse_task({"instruction": "x"}), None).engine == "auto"
    with pytest.raises(HTTPError, match="options.engine must be one of auto, http, browser"):
        _run_options(settings, parse_task({"instruction": "x", "options": {"engine": "fast"}}), None)
