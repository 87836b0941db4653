"""Which engine runs a task's plan: the browser, or the HTTP engine (the page's HTML fetched without
a browser), and when ``auto`` goes back to the browser.

- ``browser``: Chromium, every tool (today's path).
- ``http``: the HTML as fetched; only plans whose steps can all run on HTML (`html_problem`), else
  the task is refused before it starts (bad input: say ``--engine auto`` or ``browser``).
- ``auto``: the HTTP engine for plans whose steps can all run on HTML, the browser otherwise; and
  the browser again, for that task, when the HTTP engine's answer cannot be trusted (`switch_reason`:
  the HTML is a client-rendered shell, the extraction came back empty or short of the count the page
  states and its pagination does not explain why, or the page could not be had without a browser;
  not after a time limit ran out). A consent
  mode asked for also sends ``auto`` to the browser (`browser_reason`): only a browser answers a
  consent dialog.

A step can run on HTML when its tool's manifest says ``"html": true`` (or it needs no page), or when
it is an optional step of a tool that needs a live page: such a page action (a price filter before a
price check) is skipped, as a failed optional step would be, and the plan's validation steps still
guarantee the answer. A map step opens each item in the browser.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .errors import EmptyOutput, PolicyError, RobotsDisallowed, SSRFBlocked, StepTimeout, TaskTimeout
from .option_rules import ENGINES

if TYPE_CHECKING:
    from .browser import BrowserOptions
    from .http_fetch import Document
    from .plan.model import Plan
    from .registry import Registry
    from .result import Result
    from .tools.stated_count import ListingWarning

AUTO, HTTP, BROWSER = ENGINES
#: The engine when none is given (option, config, API, task, request): ``auto``, proven to give the
#: browser's answers where both work (tests/test_engines_compare.py).
DEFAULT_ENGINE = AUTO


def checked_engine(engine: str | None) -> str | None:
    """An ``engine=`` argument checked by its option's rule (`option_rules`): UsageError naming the
    choices; None stays None (the default applies)."""
    if engine is None:
        return None
    from .errors import UsageError
    from .option_rules import option_problem

    problem = option_problem("engine", engine)
    if problem is not None:
        raise UsageError(f"engine=: {problem}")
    return engine.strip().lower()


def html_problem(plan: Plan, registry: Registry) -> str | None:
    """Why ``plan`` cannot run on HTML as fetched (a step whose tool needs a live page, a map step),
    or None when every step can."""
    from .plan.model import MapStep

    for i, step in enumerate(plan.steps, 1):
        if isinstance(step, MapStep):
            return f"step {i} is a map step (each item opened on its own page)"
        manifest = registry.get(step.tool)
        if manifest is None:
            return f"step {i} calls {step.tool}, which is not installed"
        inner_name = step.parameters.get(manifest.parameter_for("tool") or "")
        inner = registry.get(inner_name) if isinstance(inner_name, str) else None
        for m in (manifest, inner):
            if m is not None and m.live_page and not (step.optional and m is manifest):
                return f"step {i} ({m.key}) needs a live page"
    return None


def browser_reason(plan: Plan, registry: Registry, browser: BrowserOptions) -> str | None:
    """Why ``auto`` runs ``plan`` in the browser from the start, or None when the HTTP engine reads it
    first: a consent mode was asked for (only a browser answers a consent dialog), or a step needs a
    live page (`html_problem`)."""
    if consent_asked(browser):
        return f"--consent {browser.consent} was asked for: only the browser answers consent dialogs"
    return html_problem(plan, registry)


def consent_asked(browser: BrowserOptions) -> bool:
    """Whether a consent mode was asked for: said so (``consent_asked``: an option, the config, a
    task, a request), or a mode other than the default set on `BrowserOptions` by hand."""
    return browser.consent_asked or browser.consent != "reject"


def may_need_live_page(plan: Plan | dict, registry: Registry) -> bool:
    """`html_problem` read from a plan document before it is checked (the browser starts while the
    check runs): a map step, or a step naming an installed tool (or an inner tool) that needs a live
    page and is not optional. A malformed document says no: its check fails next."""
    from .plan.model import Plan

    if isinstance(plan, Plan):
        return html_problem(plan, registry) is not None
    steps = plan.get("plan") if isinstance(plan, dict) else None
    if not isinstance(steps, list):
        return False
    for step in steps:
        if not isinstance(step, dict):
            return False
        if "map" in step:
            return True
        manifest = registry.get(step["tool"]) if isinstance(step.get("tool"), str) else None
        if manifest is None:
            continue
        params = step.get("parameters")
        inner_name = params.get(manifest.parameter_for("tool") or "") if isinstance(params, dict) else None
        inner = registry.get(inner_name) if isinstance(inner_name, str) else None
        if (manifest.live_page and step.get("optional") is not True) or (
            inner is not None and inner.live_page
        ):
            return True
    return False


def switch_reason(
    result: Result, document: Document | None, warnings: Sequence[str | ListingWarning]
) -> str | None:
    """Why ``auto`` runs the task again in the browser after the HTTP engine's ``result`` (read from
    ``document``; ``warnings``: what the run's tools could not fully do, such as reading fewer items
    than the page states), or None when the answer stands. Reading fewer items than the page states
    (a typed `Shortfall`) is no reason when the listing's pages explain it: the page links its next
    page (or, the last page, its previous one) and this one was read whole (the browser would read the same page; the warning, which says
    to ask for more pages, stays in the result). Nor is a pager that read the pages it was asked for
    while the listing links more (a typed `PagesLeft`): the browser's pager follows the same links. A page the policy refused is refused by
    the browser too, and a time limit that ran out (a step's, the task's) would run out there as well
    (the same page, read by the same tool, with less of the task's time left): no switch. A page
    robots.txt keeps from crawlers is read in the browser, which acts for a person (`RobotsDisallowed`):
    ``auto``, the default, reads what the browser engine always read; ``--engine http`` refuses it.
    Parses ``document`` (a huge one: call it through `offload.run`)."""
    from .html_shell import shell_signs

    if any(e.code in (PolicyError.code, SSRFBlocked.code) for e in result.errors):
        return None
    failed = [e for e in result.errors if not e.optional and not e.recovered]
    if any(e.code == RobotsDisallowed.code for e in failed):
        return "robots.txt disallows crawlers this address: read in the browser, which acts for a person"
    if any(e.code in (StepTimeout.code, TaskTimeout.code) for e in failed):
        return None
    if document is not None:
        signs = shell_signs(document.html)
        if signs:
            return "the HTML is a client-rendered shell (" + "; ".join(dict.fromkeys(signs[:3])) + ")"
    from .tools.stated_count import PagesLeft, Shortfall

    unexplained = [w for w in warnings if not (isinstance(w, Shortfall | PagesLeft) and w.explained)]
    if unexplained:
        return "the HTTP engine's answer came with a warning: " + str(unexplained[0])[:200]
    if not result.ok:
        codes = ", ".join(sorted({e.code for e in failed})) or "failed"
        if any(e.code == EmptyOutput.code for e in failed):
            return "the extraction on the HTML came back empty"
        return f"the task failed on the HTTP engine ({codes})"
    return None
