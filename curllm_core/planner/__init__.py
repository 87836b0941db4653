"""Planning: an instruction (and a URL) in, a checked `Plan` out, with the reasoning for each step.

    planned = await plan_task("find products under 150zł", "https://shop.example/", registry)
    planned.plan        # checked against the installed tools' manifests
    planned.reasoning   # one line per step
    planned.source      # "rules", "llm:<model>", "cache", or "rules (llm failed: <reason>)"

The rule planner (`rules`) is the default and needs no model. With ``model`` set, a litellm model
plans (`llm`) from the rule planner's draft and the top-ranked tools; its plan is cached on disk
(`cache`), and any failure of the model falls back to the rule planner with a one-line warning.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from ..errors import PlanError, PlanningError
from ..events import EventBus
from ..plan import check_plan, normalise_plan
from ..registry import Registry
from .base import Origin, Planned
from .rules import plan_with_rules
from .scoring import rank_tools

__all__ = ["Origin", "Planned", "plan_task", "rank_tools", "plan_with_rules", "warn"]

#: A page summary: the dict `llm.summarize_page` returns, text, or a callable that produces one when
#: (and only when) a model is actually asked, so a cache hit never opens the page early.
PageSummary = dict | str | Callable[[], Awaitable[dict | str | None]] | None


log = logging.getLogger("curllm.planner")


def warn(message: str) -> None:
    """A planner fallback as a warning log record (the CLI shows it as one ``curllm: warning: ...``
    line on stderr; never a traceback)."""
    log.warning("%s", message)


async def plan_task(
    instruction: str,
    url: str | None,
    registry: Registry,
    *,
    model: str | None = None,
    use_cache: bool = True,
    refresh: bool = False,
    events: EventBus | None = None,
    initial_keys: set[str] | frozenset = frozenset(),
    page_summary: PageSummary = None,
    fields: list[str] | tuple[str, ...] | None = None,
    limit: int | None = None,
) -> Planned:
    """Plan a task. Without ``model`` the rule planner decides; with one, the model.

    Plans are cached by task shape (instruction, site and path shape, planner, installed tools): a
    repeated task is not planned again, by rules or by a model. ``use_cache=False`` neither reads nor
    writes the cache; ``refresh=True`` skips the read and overwrites. Raises PlanningError when
    neither planner can make a plan. ``fields`` (``--fields name,price``) and ``limit``
    (``--limit 10``) say the same as "only names and prices" and "the first 10" in the instruction,
    and win over it.
    """
    from . import cache

    fields = [f.strip() for f in fields if f and f.strip()] if fields is not None else None
    extras = ("fields=" + ",".join(fields) if fields else "") + (f";limit={limit}" if limit else "")
    key = cache.plan_key(
        instruction,
        url,
        (model or "rules") + (f"|{extras}" if extras else ""),
        registry.fingerprint,
        initial_keys,
    )
    if use_cache and not refresh:
        hit = _cached(key, registry, initial_keys, instruction, url)
        if hit is not None:
            return hit
    rules: Planned | None
    rules_error: PlanningError | None = None
    try:
        rules = plan_with_rules(
            instruction, url, registry, initial_keys=initial_keys, fields=fields or None, limit=limit
        )
    except PlanningError as e:
        if not model:
            raise
        rules, rules_error = None, e
    if not model:
        assert rules is not None  # without a model a planning error was raised above
        if use_cache:
            cache.store(
                key, rules.plan.to_dict(), rules.reasoning, rules.source, instruction=instruction, url=url
            )
        return _stamp(rules)

    from .llm import LLMFailure, plan_with_llm

    summary: dict | str | None
    if callable(page_summary):
        made = page_summary()
        summary = await made if inspect.isawaitable(made) else made
    else:
        summary = page_summary
    try:
        planned = await plan_with_llm(
            instruction, url, registry, model, draft=rules, page_summary=summary, initial_keys=initial_keys
        )
    except LLMFailure as e:
        warn(f"model {model} failed ({e.reason}); using the rule planner")
        if events is not None:
            from ..events import PlanDecision, StepEvent

            events.emit(
                StepEvent(
                    plan_index=0,
                    status="failed",
                    message=f"model {model} failed ({e.reason}); using the rule planner",
                    url=url,
                    details=PlanDecision(planner=f"llm:{model}", error=e.reason),
                )
            )
        if rules is None and rules_error is not None:
            raise PlanningError(
                f"{rules_error.message}; the model {model} gave no usable plan either ({e.reason})",
                problems=rules_error.problems,
            ) from None
        assert rules is not None
        return _stamp(replace(rules, source=f"rules (llm failed: {e.reason})", usage=e.usage))
    if use_cache:
        cache.store(
            key, planned.plan.to_dict(), planned.reasoning, planned.source, instruction=instruction, url=url
        )
    return _stamp(planned)


def _stamp(planned: Planned) -> Planned:
    """The plan records who made it (shown in ``--plan-only`` output and the result's plan)."""
    return replace(planned, plan=replace(planned.plan, planner=planned.source))


def _cached(
    key: str, registry: Registry, initial_keys: set[str] | frozenset, instruction: str, url: str | None
) -> Planned | None:
    """A cached plan, checked again (a hand-edited or stale file is a miss, never an error)."""
    from . import cache

    entry = cache.load(key)
    if entry is None:
        return None
    try:
        plan = check_plan(normalise_plan(entry["plan"], registry), registry, initial_keys=initial_keys)
    except PlanError:
        return None
    reasoning = entry.get("reasoning")
    if not isinstance(reasoning, list) or len(reasoning) != len(plan.steps):
        reasoning = [f"{s.tool}: {s.description}" for s in plan.steps]
    usage: dict[str, Any] | None = None
    if entry.get("source", "").startswith("llm:"):  # a model's plan served for free
        usage = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
    plan = replace(plan, instruction=instruction, url=url)  # this task's, not the one that filled the cache
    return _stamp(Planned(plan, [str(r) for r in reasoning], "cache", usage, Origin.CACHE))
