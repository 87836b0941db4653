"""The LLM planner: a litellm model writes the plan; the checker decides whether it is used.

The prompt holds the instruction, the URL, a bounded summary of the page when one was taken, and only
the top-k candidate tools by the rule scorer (plus the tools of the rule planner's draft), so its size
stays flat however many tools are installed. The reply must be a plan document; it goes through
`check_plan`, and its problems go back to the model for a repair (at most ``REPAIRS`` rounds). Any
failure of the model (no connection, rate limit, bad key, timeout, garbage) raises `LLMFailure`, and
the caller falls back to the rule planner.

This is the only module that imports litellm, lazily, so that the CLI and the rule planner never pay
its import time. API keys come from the environment litellm reads (``OPENAI_API_KEY`` ...) or
``CURLLM_API_KEY``; they are passed to litellm and nowhere else: error texts are scrubbed of them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import PlanError
from ..manifest import ROLES, Category
from ..plan import AnyStep, MapStep, Plan, check_plan, named_tool, normalise_plan, step_io
from ..plan.map_spec import static_tools
from ..registry import Registry
from .base import Origin, Planned
from .scoring import rank_tools

log = logging.getLogger("curllm.planner")

TOP_K = 8
REPAIRS = 2
SUMMARY_CHARS = 1500
DEFAULT_TIMEOUT_S = 30.0
_STEP_KEYS = (
    "tool",
    "map",
    "parameters",
    "description",
    "id",
    "input",
    "fallback",
    "retries",
    "timeout_ms",
    "optional",
)

SYSTEM_PROMPT = """You plan browser automation for curllm. A plan is a list of tool calls that run in order on one \
web page and pass data along by key (a tool "consumes" keys that an earlier step "produces").

Reply with ONE JSON object and nothing else:
{"plan": [{"tool": "<category.name>", "parameters": {...}, "description": "<why this step>"}], \
"expected_output": "<the data key the user wants, e.g. products>"}

Rules:
- Use only the tools listed. Parameters must match the tool's parameter schema; leave out what is not needed.
- Order: forms (fill, search, filter), navigation (open, click, scroll, paginate), extraction, validation.
- A tool with a parameter of "role": "tool" (a pager: pagination's "extract") runs that extraction tool on \
every page: name the extraction tool there (its parameters in the "tool_parameters" one) instead of adding a \
separate extraction step.
- A parameter of "role": "data_key" names the data key the step reads and writes (e.g. "articles" for a \
check written for any item list).
- Add a validation step for any limit the page might not enforce (a price range, required fields).
- Mark a step "optional": true when the page may well not have what it needs (e.g. a price filter form).
- Take values (prices, counts, search terms, dates) from the instruction; never invent them."""

#: The reply shape, for models that take a JSON schema (parameters are free-form: each tool differs).
REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "plan": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "tool": {"type": "string"},
                    "parameters": {"type": "object"},
                    "description": {"type": "string"},
                    "optional": {"type": "boolean"},
                },
                "required": ["tool", "parameters"],
            },
        },
        "expected_output": {"type": "string"},
    },
    "required": ["plan", "expected_output"],
}


class LLMFailure(Exception):
    """The model gave no usable plan. ``reason`` is one line, free of secrets; ``usage`` what it cost."""

    def __init__(self, reason: str, usage: dict | None = None):
        super().__init__(reason)
        self.reason = reason
        self.usage = usage


@dataclass
class Usage:
    """Tokens and cost over every call of one planning (cost None when litellm does not know the model)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    _costs: list[float] = field(default_factory=list)

    def add(self, litellm: Any, response: Any) -> None:
        self.calls += 1
        usage = getattr(response, "usage", None)
        self.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        self.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # litellm raises for models missing from its price list: the cost is unknown
            cost = None
        if cost:
            self._costs.append(float(cost))
            self.cost_usd = round(sum(self._costs), 8)

    def to_dict(self) -> dict:
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
        }


def merge_usage(a: dict | None, b: dict | None) -> dict | None:
    """Two usage records added up (None when neither exists)."""
    if a is None or b is None:
        return a or b
    costs = [c for c in (a.get("cost_usd"), b.get("cost_usd")) if c is not None]
    return {
        "calls": a.get("calls", 0) + b.get("calls", 0),
        "prompt_tokens": a.get("prompt_tokens", 0) + b.get("prompt_tokens", 0),
        "completion_tokens": a.get("completion_tokens", 0) + b.get("completion_tokens", 0),
        "cost_usd": round(sum(costs), 8) if costs else None,
    }


# --- litellm ------------------------------------------------------------------------------------


def _litellm() -> Any:
    """Import litellm quietly: no price-list download, no "Give Feedback" banners, no telemetry."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ModuleNotFoundError as e:
        if e.name != "litellm":
            raise
        from ..errors import UsageError

        raise UsageError(
            "--model needs the llm extra, which is not installed: pip install 'curllm[llm]' "
            "(or leave --model and CURLLM_MODEL out: the rule planner needs no model)"
        ) from None

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    # litellm logs failed calls itself; curllm prints one warning line of its own instead.
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    return litellm


def _secrets() -> list[str]:
    """Values of environment variables that look like credentials, longest first (for scrubbing)."""
    values = {
        v for k, v in os.environ.items() if re.search(r"KEY|TOKEN|SECRET|PASSWORD", k, re.I) and len(v) >= 6
    }
    return sorted(values, key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every credential-looking value replaced by ``***``."""
    from ..scrub import scrub

    for secret in _secrets():
        text = text.replace(secret, "***")
    text = scrub(text)  # session cookies, and the names `scrub` knows as credentials
    return re.sub(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}", r"\1-***", text)


def describe_failure(exc: BaseException) -> str:
    """``Type: first line of the message``, short and scrubbed: the reason in warnings and ``source``."""
    name = type(exc).__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else "no message"
    # litellm prefixes messages with its class names and the provider's: "litellm.AuthenticationError:
    # AuthenticationError: OpenAIException - Incorrect API key ..." says the same thing three times.
    text = re.sub(rf"^(litellm\.\w+:\s*)?({re.escape(name)}:\s*)?(\w+Exception\s*-\s*)?", "", text)
    if isinstance(exc, TimeoutError) or "timeout" in name.lower():
        text = f"no reply within {timeout_s():g} s"
    reason = f"{name}: {text}"
    return redact(reason if len(reason) <= 160 else reason[:159] + "…")


def timeout_s() -> float:
    """``CURLLM_LLM_TIMEOUT`` seconds (default 30) for one model call."""
    try:
        value = float(os.environ.get("CURLLM_LLM_TIMEOUT", DEFAULT_TIMEOUT_S))
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return value if value > 0 else DEFAULT_TIMEOUT_S


def response_format(litellm: Any, model: str) -> dict:
    """A JSON schema where the model supports one, else plain JSON mode."""
    try:
        strict = bool(litellm.supports_response_schema(model=model))
    except Exception:  # unknown provider strings make litellm raise: plain JSON mode works everywhere
        strict = False
    if strict:
        return {
            "type": "json_schema",
            "json_schema": {"name": "curllm_plan", "schema": REPLY_SCHEMA, "strict": False},
        }
    return {"type": "json_object"}


async def _ask(litellm: Any, model: str, messages: list[dict], usage: Usage, **extra: Any) -> str:
    """One chat completion; its text. litellm's own retries are off: a failure falls back at once."""
    limit = timeout_s()
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "timeout": limit,
        "num_retries": 0,
        "max_retries": 0,
        "temperature": 0,
        "drop_params": True,
        "response_format": response_format(litellm, model),
        **extra,
    }
    if os.environ.get("CURLLM_API_BASE"):
        kwargs["api_base"] = os.environ["CURLLM_API_BASE"]
    if os.environ.get("CURLLM_API_KEY"):
        kwargs["api_key"] = os.environ["CURLLM_API_KEY"]
    # The outer limit catches a client that ignores its own timeout (slow-drip replies).
    response = await asyncio.wait_for(litellm.acompletion(**kwargs), limit + 5)
    usage.add(litellm, response)
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        content = None
    return content or ""


# --- prompt ---------------------------------------------------------------------------------------


def _clip(text: str, n: int) -> str:
    text = re.sub(r"\s+", " ", str(text)).strip()
    return text if len(text) <= n else text[: n - 1] + "…"


def tool_card(manifest: Any) -> dict:
    """What the model needs to know of a tool, bounded in size whatever the manifest holds."""
    props = manifest.parameters.get("properties") or {}
    params = {}
    for name, prop in list(props.items())[:12]:
        prop = prop if isinstance(prop, dict) else {}
        card = {k: prop[k] for k in ("type", "enum", "default", "minimum", "maximum") if k in prop}
        if prop.get("type") == "array" and isinstance(prop.get("items"), dict):
            card["items"] = {k: v for k, v in prop["items"].items() if k in ("type", "enum")}
        if prop.get("description"):
            card["description"] = _clip(prop["description"], 120)
        params[name] = card
    for role in ROLES:  # declared, or by the older conventional name: the rules above speak of roles
        name = manifest.parameter_for(role)
        if name in params:
            params[name]["role"] = role
    doc: dict[str, Any] = {
        "name": manifest.key,
        "description": _clip(manifest.description, 300),
        "parameters": params,
        "required": list(manifest.parameters.get("required") or []),
    }
    for key in ("consumes", "produces", "sites"):
        if getattr(manifest, key):
            doc[key] = list(getattr(manifest, key))[:6]
    examples = [
        {"instruction": _clip(e.get("instruction", ""), 120), "parameters": e.get("parameters", {})}
        for e in manifest.examples[:2]
    ]
    if examples:
        doc["examples"] = examples
    text = json.dumps(doc, ensure_ascii=False)
    if len(text) > 1800:  # a manifest with huge enums or examples: keep the essentials
        doc.pop("examples", None)
        doc["parameters"] = {k: {kk: vv for kk, vv in v.items() if kk != "enum"} for k, v in params.items()}
    return doc


def format_page_summary(summary: Any, limit: int = SUMMARY_CHARS) -> str:
    """A page summary (the dict `summarize_page` returns, or text) as at most ``limit`` characters."""
    if not summary:
        return ""
    if isinstance(summary, str):
        return _clip(summary, limit)
    lines: list[str] = []
    if summary.get("title"):
        lines.append(f"Title: {_clip(summary['title'], 120)}")
    if summary.get("headings"):
        lines.append("Headings: " + " | ".join(_clip(h, 60) for h in summary["headings"][:10]))
    for i, form in enumerate(summary.get("forms") or [], start=1):
        fields = "; ".join(_field_text(f) for f in (form.get("fields") or [])[:10])
        lines.append(
            f"Form {i} ({form.get('method', 'GET')} {_clip(form.get('action') or '-', 60)}): {fields}"
        )
    loose = summary.get("controls") or []
    if loose:
        lines.append("Controls outside forms: " + "; ".join(_field_text(f) for f in loose[:10]))
    if summary.get("buttons"):
        lines.append("Buttons: " + " | ".join(_clip(b, 40) for b in summary["buttons"][:12]))
    counts = {
        k: summary.get(k)
        for k in ("links", "articles", "table_rows", "list_items", "prices")
        if summary.get(k)
    }
    if counts:
        lines.append("Counts: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
    text = "\n".join(lines)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _field_text(f: dict) -> str:
    text = f"{f.get('tag', 'input')}[{f.get('type', '')}] name={_clip(f.get('name') or '-', 40)}"
    if f.get("label"):
        text += f" label={_clip(f['label'], 50)!r}"
    if f.get("options"):
        text += " options=" + "/".join(_clip(o, 30) for o in f["options"][:6])
    return text


#: One ``page.evaluate``: title, forms with their fields' labels/names, headings, buttons, counts.
SUMMARY_JS = """() => {
  const txt = (el) => ((el && (el.innerText || el.textContent)) || "").replace(/\\s+/g, " ").trim().slice(0, 80);
  const label = (el) => {
    if (el.labels && el.labels.length) return txt(el.labels[0]);
    return el.getAttribute("aria-label") || el.getAttribute("placeholder") || el.getAttribute("title") || "";
  };
  const field = (el) => ({
    tag: el.tagName.toLowerCase(), type: el.type || "", name: el.name || el.id || "", label: label(el).slice(0, 60),
    options: el.tagName === "SELECT" ? Array.from(el.options).slice(0, 6).map((o) => txt(o)) : undefined,
  });
  const visible = (el) => el.type !== "hidden";
  const forms = Array.from(document.forms).slice(0, 5).map((f) => ({
    action: f.getAttribute("action") || "", method: (f.getAttribute("method") || "get").toUpperCase(),
    fields: Array.from(f.elements).filter(visible).filter((e) => e.tagName !== "FIELDSET").slice(0, 10).map(field),
  }));
  const controls = Array.from(document.querySelectorAll("input, select, textarea"))
    .filter((e) => !e.form && visible(e)).slice(0, 10).map(field);
  const buttons = Array.from(document.querySelectorAll("button, [role=button], input[type=submit]"))
    .slice(0, 40).map((b) => txt(b) || b.value || "").filter(Boolean).slice(0, 12);
  return {
    title: (document.title || "").slice(0, 120),
    headings: Array.from(document.querySelectorAll("h1, h2, h3")).slice(0, 20).map(txt).filter(Boolean).slice(0, 10),
    forms, controls, buttons,
    links: document.links.length,
    articles: document.querySelectorAll("article").length,
    table_rows: document.querySelectorAll("table tr").length,
    list_items: document.querySelectorAll("li").length,
  };
}"""


async def summarize_page(page: Any) -> dict:
    """The page's summary for the prompt, in one ``page.evaluate`` (no navigation, no clicks)."""
    summary = await page.evaluate(SUMMARY_JS)
    return summary if isinstance(summary, dict) else {}


def candidate_tools(
    instruction: str, url: str | None, registry: Registry, draft: Planned | None, k: int = TOP_K
) -> list:
    """The draft's tools first (a good plan must stay possible), then the best-ranked up to ``k``."""
    chosen: dict[str, Any] = {}
    if draft is not None:
        for step in draft.plan.steps:
            if isinstance(step, MapStep):  # a map step: the tools it runs on each item
                for name in static_tools(step.map):
                    chosen.setdefault(name, registry.resolve(name))
                continue
            chosen.setdefault(step.tool, registry.resolve(step.tool))
            if step.fallback:
                chosen.setdefault(step.fallback, registry.resolve(step.fallback))
            inner = named_tool(registry.resolve(step.tool), step.parameters, registry)
            if inner is not None:
                chosen.setdefault(inner.key, inner)
    for m in rank_tools(instruction, url, registry, k):
        if len(chosen) >= k:
            break
        chosen.setdefault(m.key, m)
    return list(chosen.values())


def build_messages(
    instruction: str,
    url: str | None,
    registry: Registry,
    *,
    draft: Planned | None = None,
    page_summary: Any = None,
    initial_keys: set[str] | frozenset = frozenset(),
    k: int = TOP_K,
) -> list[dict]:
    """The chat messages that ask for a plan."""
    tools = candidate_tools(instruction, url, registry, draft, k)
    parts = [f"Instruction: {instruction}", f"URL: {url or '(none)'}"]
    summary = format_page_summary(page_summary)
    if summary:
        parts.append(f"Page summary:\n{summary}")
    if initial_keys:
        parts.append(f"Data given up front (keys): {', '.join(sorted(initial_keys))}")
    parts.append("Tools:\n" + "\n".join(json.dumps(tool_card(m), ensure_ascii=False) for m in tools))
    if draft is not None:
        parts.append(
            "A draft by the rule planner (keep what is right, fix what is wrong):\n"
            + json.dumps(_bare(draft.plan), ensure_ascii=False)
        )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n\n".join(parts)}]


def _bare(plan: Plan) -> dict:
    doc = plan.to_dict()
    return {
        "plan": [
            {k: v for k, v in s.items() if k in ("tool", "map", "parameters", "optional")}
            for s in doc["plan"]
        ],
        "expected_output": doc.get("expected_output"),
    }


# --- reading replies ------------------------------------------------------------------------------


def parse_reply(text: str) -> dict:
    """The plan document in a reply: JSON, maybe in a code fence or after some prose. ValueError if none."""
    text = (text or "").strip()
    fence = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    if fence:
        text = fence.group(1).strip()
    try:
        doc = json.loads(text)
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("the reply is not JSON") from None
        try:
            doc = json.loads(text[start : end + 1])
        except ValueError as e:
            raise ValueError(f"the reply is not valid JSON: {e}") from None
    if isinstance(doc, list):
        doc = {"plan": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("plan"), list):
        raise ValueError('the reply is not an object with a "plan" list')
    steps = []
    for raw in doc["plan"]:
        if isinstance(raw, dict):
            raw = dict(raw)
            if "parameters" not in raw and isinstance(raw.get("params"), dict):
                raw["parameters"] = raw.pop("params")  # a common slip of models
            raw = {k: v for k, v in raw.items() if k in _STEP_KEYS}
        steps.append(raw)
    out = {"plan": steps}
    if doc.get("expected_output") is not None:
        out["expected_output"] = doc["expected_output"]
    return out


def _infer_expected(doc: dict, registry: Registry, fallback: str | None) -> dict:
    """A plan without ``expected_output`` gets the key of its last extraction (or the draft's)."""
    if doc.get("expected_output"):
        return doc
    for raw in reversed(doc["plan"]):
        m = (
            registry.get(raw.get("tool", ""))
            if isinstance(raw, dict) and isinstance(raw.get("tool"), str)
            else None
        )
        if m is None:
            continue
        produces = step_io(m, raw.get("parameters") or {}, registry)[1]
        if produces and (
            m.category == Category.EXTRACTION
            or (m.parameter_for("tool") or "") in (raw.get("parameters") or {})
        ):
            return {**doc, "expected_output": fallback if fallback in produces else produces[0]}
    return {**doc, "expected_output": fallback} if fallback else doc


def _with_guards(
    doc: dict, draft: Planned | None, registry: Registry, initial_keys: set[str] | frozenset
) -> dict:
    """Add the draft's validation steps the model left out (a price range must hold either way)."""
    if draft is None:
        return doc
    have = {
        m.key
        for s in doc["plan"]
        if isinstance(s, dict)
        and isinstance(s.get("tool"), str)
        and (m := registry.get(s["tool"])) is not None
    }
    for step in draft.plan.steps:
        if (
            step.map is not None
            or registry.resolve(step.tool).category != Category.VALIDATION
            or step.tool in have
        ):
            continue
        added = {**step.to_dict(), "description": f"{step.description} (added by the rule planner)"}
        trial = {**doc, "plan": [*doc["plan"], added]}
        try:
            check_plan(normalise_plan(trial, registry), registry, initial_keys=initial_keys)
        except PlanError:
            continue  # it does not fit the model's plan (another output key): leave it out
        doc = trial
    return doc


@dataclass
class _Attempt:
    plan: Plan
    reasoning: list[str]


async def _converse(
    litellm: Any,
    model: str,
    messages: list[dict],
    registry: Registry,
    usage: Usage,
    *,
    initial_keys: set[str] | frozenset,
    draft: Planned | None,
    expected: str | None,
    extra: dict | None = None,
) -> _Attempt:
    """Ask, check, feed problems back; at most ``REPAIRS`` repairs. LLMFailure when nothing passes."""
    problem = ""
    for round_ in range(REPAIRS + 1):
        try:
            reply = await _ask(litellm, model, messages, usage, **(extra or {}))
        except Exception as e:  # every litellm/transport failure means the same thing: use the rules
            raise LLMFailure(describe_failure(e), usage.to_dict()) from None
        try:
            doc = normalise_plan(_infer_expected(parse_reply(reply), registry, expected), registry)
            plan = check_plan(doc, registry, initial_keys=initial_keys)
            if not plan.expected_output:
                raise ValueError('the plan has no "expected_output": name the data key the user wants')
            guarded = normalise_plan(_with_guards(doc, draft, registry, initial_keys), registry)
            plan = check_plan(guarded, registry, initial_keys=initial_keys)
            reasoning = [f"{s.tool}: {s.description or '(no reason given)'}" for s in plan.steps]
            return _Attempt(plan, reasoning)
        except PlanError as e:
            problem = "; ".join(str(p) for p in e.problems[:12]) or e.message
        except ValueError as e:
            problem = str(e)
        log.debug("model plan rejected (round %d): %s", round_, problem)
        messages = [
            *messages,
            {"role": "assistant", "content": _clip(reply, 4000)},
            {
                "role": "user",
                "content": f"That plan cannot be used: {problem}\n"
                "Reply with the corrected plan as one JSON object only.",
            },
        ]
    raise LLMFailure(f"no valid plan after {REPAIRS} repairs ({_clip(problem, 120)})", usage.to_dict())


async def plan_with_llm(
    instruction: str,
    url: str | None,
    registry: Registry,
    model: str,
    *,
    draft: Planned | None = None,
    page_summary: Any = None,
    initial_keys: set[str] | frozenset = frozenset(),
    litellm_kwargs: dict | None = None,
) -> Planned:
    """Ask ``model`` for a plan (with repairs). Raises LLMFailure when it gives none that passes the check.

    ``litellm_kwargs`` go to every ``litellm.acompletion`` call (``api_base``, or ``mock_response`` in tests).
    """
    litellm = _litellm()
    usage = Usage()
    messages = build_messages(
        instruction, url, registry, draft=draft, page_summary=page_summary, initial_keys=initial_keys
    )
    expected = draft.plan.expected_output if draft else None
    attempt = await _converse(
        litellm,
        model,
        messages,
        registry,
        usage,
        initial_keys=initial_keys,
        draft=draft,
        expected=expected,
        extra=litellm_kwargs,
    )
    if draft is not None:
        # What the rule planner found no tool for ("not done: buy ...") stays said: the model's plan
        # is checked against the same tools, and a warning is never dropped by planning again.
        attempt.plan.warnings = merge_warnings(attempt.plan.warnings, draft.plan.warnings)
    return Planned(attempt.plan, attempt.reasoning, f"llm:{model}", usage.to_dict(), Origin.MODEL)


def merge_warnings(first: list[str], second: list[str]) -> list[str]:
    """Both lists of warnings, each warning once, in order."""
    return list(dict.fromkeys([*first, *second]))


async def replan_with_llm(
    instruction: str,
    url: str | None,
    registry: Registry,
    model: str,
    *,
    history: list[dict],
    remaining: list[AnyStep],
    data_keys: set[str],
    expected_output: str | None,
    page_summary: Any = None,
    litellm_kwargs: dict | None = None,
) -> Planned:
    """A revised plan for what remains after a step failed, from the step results so far.

    ``history`` holds one entry per step run: tool, success, a compact result preview, error. The
    revised plan is checked with the data keys already produced counting as given up front.
    """
    litellm = _litellm()
    usage = Usage()
    messages = build_messages(instruction, url, registry, page_summary=page_summary, initial_keys=data_keys)
    done = "\n".join(json.dumps(h, ensure_ascii=False, default=str) for h in history)
    left = json.dumps(
        [
            {"map": s.map} if isinstance(s, MapStep) else {"tool": s.tool, "parameters": s.parameters}
            for s in remaining
        ],
        ensure_ascii=False,
    )
    messages[-1]["content"] += (
        "\n\nThe plan was partly run. Steps so far (the last one failed):\n"
        + done
        + f"\nSteps that had not run yet: {left}"
        + f"\nData keys already present: {', '.join(sorted(data_keys)) or 'none'}"
        + f"\nPropose the steps to run FROM NOW ON (do not repeat steps that succeeded), ending with"
        f" expected_output {expected_output!r} if still possible. Reply with the plan JSON only."
    )
    attempt = await _converse(
        litellm,
        model,
        messages,
        registry,
        usage,
        initial_keys=data_keys,
        draft=None,
        expected=expected_output,
        extra=litellm_kwargs,
    )
    return Planned(attempt.plan, attempt.reasoning, f"llm:{model}", usage.to_dict(), Origin.MODEL)
