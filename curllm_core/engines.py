"""Which engine runs a task's plan: the browser, or the HTTP engine (the page's HTML fetched without
a browser), and when ``auto`` goes back to the browser.

- ``browser``: Chromium, every tool (today's path).
- ``http``: the HTML as fetched; only plans whose steps can all run on HTML (`html_problem`), else
  the task is refused before it starts (bad input: say ``--engine auto`` or ``browser``).
- ``auto``: the HTTP engine for plans whose steps can all run on HTML, the browser otherwise; and
  the browser again, for that task, when the HTTP engine's answer cannot be trusted (`switch_reason`:
  the HTML is a client-rendered shell, the extraction came back empty or short of the count the page
  states, or the page could not be had without a browser).

A step can run on HTML when its tool's manifest says ``"html": true`` (or it needs no page), or when
it is an optional step of a tool that needs a live page: such a page action (a price filter before a
price check) is skipped, as a failed optional step would be, and the plan's validation steps still
guarantee the answer. A map step opens each item in the browser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import EmptyOutput, PolicyError, RobotsDisallowed, SSRFBlocked
from .option_rules import ENGINES

if TYPE_CHECKING:
    from .http_fetch import Document
    from .plan.model import Plan
    from .registry import Registry
    from .result import Result

AUTO, HTTP, BROWSER = ENGINES
#: The engine when none is given (option, config): the browser until ``auto`` is proven the same.
DEFAULT_ENGINE = BROWSER


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


def switch_reason(result: Result, document: Document | None, warnings: list[str]) -> str | None:
    """Why ``auto`` runs the task again in the browser after the HTTP engine's ``result`` (read from
    ``document``; ``warnings``: what the run's tools could not fully do, such as reading fewer items
    than the page states), or None when the answer stands. A page the policy or robots.txt refused
    is refused by the browser too: no switch."""
    from .html_shell import shell_signs

    if any(e.code in (PolicyError.code, RobotsDisallowed.code, SSRFBlocked.code) for e in result.errors):
        return None
    if document is not None:
        signs = shell_signs(document.html)
        if signs:
            return "the HTML is a client-rendered shell (" + "; ".join(dict.fromkeys(signs[:3])) + ")"
    if warnings:
        return "the HTTP engine's answer came with a warning: " + warnings[0][:200]
    if not result.ok:
        failed = [e for e in result.errors if not e.optional and not e.recovered]
        codes = ", ".join(sorted({e.code for e in failed})) or "failed"
        if any(e.code == EmptyOutput.code for e in failed):
            return "the extraction on the HTML came back empty"
        return f"the task failed on the HTTP engine ({codes})"
    return None
