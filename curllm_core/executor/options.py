"""`RunOptions`: how to run a plan (start page, initial data, browser and network settings, limits)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..browser import BrowserOptions
from ..engines import DEFAULT_ENGINE
from ..policy import NetworkPolicy


@dataclass
class RunOptions:
    """How to run a plan: start page, initial data, browser and network settings, limits."""

    url: str | None = None
    data: dict = field(default_factory=dict)
    browser: BrowserOptions = field(default_factory=BrowserOptions)
    policy: NetworkPolicy = field(default_factory=NetworkPolicy)
    timeout_s: float | None = None  # the whole task (of an execution: what planning left of it)
    #: The task's whole limit as given, when ``timeout_s`` is what is left of it (messages name it).
    task_timeout_s: float | None = None
    backoff_s: float = 0.25  # first retry delay; doubles per attempt
    settings: dict = field(default_factory=dict)  # handed to tools as ctx.settings
    #: Which engine runs the plan: ``auto`` (the default: see engines.py), ``http`` (HTML fetched
    #: without a browser) or ``browser``.
    engine: str = DEFAULT_ENGINE
