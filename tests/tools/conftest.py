"""The built-in tools are tested through the pytest fixtures curllm offers tool authors
(`curllm_core.testing`): a page made as a run makes one, and the tool called on it by the executor."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest


@pytest.fixture
def page(curllm_page):
    """This package's tests work on `curllm_page`: a page of the session's curllm browser."""
    return curllm_page


@pytest.fixture
def on_page(curllm_run_tool, page) -> Callable[..., Awaitable[dict]]:
    """``await on_page("forms.price_filter", max=150)``: the tool on this test's page, through
    ``curllm_run_tool(name, page=page, params=...)`` (parameters checked, defaults filled, output
    checked against the manifest); ``data=`` is the pipeline data before the step."""

    async def call(name: str, *, data: dict | None = None, **params) -> dict:
        return await curllm_run_tool(name, page=page, params=params, data=data)

    return call
