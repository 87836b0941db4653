"""The MCP server (official `mcp` SDK, low-level `Server`): curllm's tasks and page tools as MCP tools.

Tools: ``run`` (instruction, url?, fields?, limit?), ``plan`` (instruction, url?), ``run_plan`` (plan,
url?, data?), ``list_tools``, and every installed tool that works on a page on its own, under a name
MCP clients accept (``extraction.products_generic`` → ``extraction_products_generic``), taking
``url`` plus its manifest's parameters, with the manifest's description and parameter schema.

The low-level server is used because these tools are declared by JSON Schema documents (the
manifests), not by Python signatures. Step events go out as progress notifications; a failure is an
MCP tool error (``is_error``) whose text starts with the curllm code, e.g. ``[SSRF_BLOCKED_URL]``.
``curllm mcp`` serves it on stdio; ``curllm serve`` mounts it at ``/mcp`` (streamable HTTP).
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import AsyncIterator
from typing import Any

import mcp.types as types
from mcp.server.lowlevel import Server

from .. import __version__
from ..errors import CurllmError, InternalError, ToolNotFound
from ..manifest import Manifest
from .tasks import TaskService, parse_task, tool_info

log = logging.getLogger("curllm.mcp")

_URL = {"type": "string", "description": "The page to start from (http or https)."}
_FIELDS = {
    "type": "array",
    "items": {"type": "string"},
    "description": 'Fields every item must have, e.g. ["name", "price"].',
}
_LIMIT = {"type": "integer", "minimum": 1, "description": "At most this many items."}
_CONSENT = {
    "enum": ["reject", "accept", "leave"],
    "description": "What to answer a page's consent dialogs: reject (the default: the least consent "
    "offered), accept, or leave them.",
}

_ENGINE = {
    "enum": ["auto", "http", "browser"],
    "description": "What reads the pages: auto (the server's default unless it says otherwise: http where "
    "it gives the same answer, the browser otherwise), http (the HTML fetched without a browser, for plans "
    "that only read HTML) or browser.",
}

TASK_TOOLS: dict[str, tuple[str, dict]] = {
    "run": (
        "Do what the instruction says on a web page and return exactly the data asked for "
        "(e.g. 'find products under 150 zł'). Returns the result's data; step progress is reported.",
        {
            "type": "object",
            "properties": {
                "instruction": {"type": "string", "description": "What to find, in plain words."},
                "url": _URL,
                "fields": _FIELDS,
                "limit": _LIMIT,
                "consent": _CONSENT,
                "engine": _ENGINE,
            },
            "required": ["instruction"],
        },
    ),
    "plan": (
        "Plan an instruction without running it: the steps (tools and parameters) curllm would run.",
        {
            "type": "object",
            "properties": {"instruction": {"type": "string"}, "url": _URL},
            "required": ["instruction"],
        },
    ),
    "run_plan": (
        "Run a plan (as returned by `plan`, possibly edited) and return the result's data.",
        {
            "type": "object",
            "properties": {
                "plan": {"type": "object", "description": 'A plan document: {"plan": [{"tool": ...}], ...}'},
                "url": _URL,
                "data": {"type": "object", "description": "Initial data keys for the plan."},
                "consent": _CONSENT,
                "engine": _ENGINE,
            },
            "required": ["plan"],
        },
    ),
    "list_tools": (
        "List curllm's installed tools (category.name, version, description, parameters, source).",
        {"type": "object", "properties": {}},
    ),
}


def mcp_name(key: str) -> str:
    """A tool name MCP clients accept: letters, digits, ``_`` and ``-`` (``a.b`` → ``a_b``)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", key)[:64]


def page_tools(service: TaskService) -> dict[str, Manifest]:
    """The installed tools that work on a page on their own (no data keys needed), by MCP name."""
    found: dict[str, Manifest] = {}
    for manifest in service.registry:
        if not manifest.needs_page or manifest.consumes:
            continue
        name = base = mcp_name(manifest.key)
        n = 2
        while name in found or name in TASK_TOOLS:
            name = f"{base}_{n}"
            n += 1
        if name != base:
            log.warning("MCP tool %s is offered as %s (the name %s is taken)", manifest.key, name, base)
        found[name] = manifest
    return found


def page_tool_schema(manifest: Manifest) -> dict:
    """``url`` plus the manifest's parameters (the page tool's MCP input schema)."""
    params = manifest.parameters or {}
    properties = dict(params.get("properties") or {})
    properties = {"url": _URL, **{k: v for k, v in properties.items() if k != "url"}}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": ["url", *[r for r in params.get("required", []) if r != "url"]],
    }
    if "$defs" in params:
        schema["$defs"] = params["$defs"]
    if params.get("additionalProperties") is False:
        schema["additionalProperties"] = False
    return schema


def _text(value: str) -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text=value)]


def tool_error(code: str, message: str, extra: dict | None = None) -> types.CallToolResult:
    """An MCP tool error carrying the curllm code (in the text and in the structured content)."""
    return types.CallToolResult(
        content=_text(f"[{code}] {message}"),
        structured_content={"error": {"code": code, "message": message}, **(extra or {})},
        is_error=True,
    )


def _progress_message(event: dict) -> str:
    data, kind = event["data"], event["type"]
    if kind == "step":
        return f"step {data.get('plan_index', data.get('step_number'))} {data.get('status')}: {data.get('message')}"
    if kind == "url_start":
        return f"opening {data.get('url')}"
    if kind == "url_complete":
        return f"opened {data.get('url')} ({data.get('status')}, {data.get('duration_ms')} ms)"
    if kind == "init":
        return f"task started ({data.get('planner')})"
    if kind == "engine":
        return f"engine {data.get('engine')}: {data.get('reason')}"
    if kind == "consent":
        return f"consent dialog {data.get('action')}" + (f" ({data['button']})" if data.get("button") else "")
    if kind == "complete":
        return f"complete: ok={data.get('ok')}, {data.get('items')} item(s)"
    return f"{kind}: {data.get('message', '')}"


def _summary(result: dict) -> str:
    data = result.get("data") or {}
    lists = [f"{len(v)} {k}" for k, v in data.items() if isinstance(v, list)]
    what = ", ".join(lists) if lists else f"keys: {', '.join(data) or 'none'}"
    ms = (result.get("timings") or {}).get("total_ms")
    return f"ok: {what}" + (f" in {ms} ms" if ms is not None else "")


class CurllmMCP:
    """The handlers of the MCP server, over one `TaskService`."""

    def __init__(self, service: TaskService):
        self.service = service
        self.page_tools = page_tools(service)

    async def list_tools(self, ctx, params) -> types.ListToolsResult:
        tools = [
            types.Tool(
                name=name,
                description=description,
                input_schema=schema,
                annotations=types.ToolAnnotations(read_only_hint=name in ("plan", "list_tools")),
            )
            for name, (description, schema) in TASK_TOOLS.items()
        ]
        for name, m in self.page_tools.items():
            tools.append(
                types.Tool(
                    name=name,
                    title=m.key,
                    description=f"{m.description} (curllm tool {m.key}, opens `url` first.)",
                    input_schema=page_tool_schema(m),
                    annotations=types.ToolAnnotations(
                        read_only_hint=m.effects == "read", destructive_hint=m.effects == "write"
                    ),
                )
            )
        return types.ListToolsResult(tools=tools)

    async def call_tool(self, ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = dict(params.arguments or {})
        try:
            if params.name == "list_tools":
                tools = [tool_info(m) for m in self.service.registry]
                names = ", ".join(t["name"] for t in tools)
                return types.CallToolResult(
                    content=_text(f"{len(tools)} tools: {names}"), structured_content={"tools": tools}
                )
            if params.name == "plan":
                plan = await self.service.plan(parse_task(args, need_instruction=True), mcp=True)
                steps = " → ".join(s.get("tool", "map") for s in plan["plan"])
                return types.CallToolResult(
                    content=_text(f"plan of {len(plan['plan'])} step(s): {steps}"), structured_content=plan
                )
            if params.name in ("run", "run_plan"):
                return await self._run(ctx, args)
            manifest = self.page_tools.get(params.name)
            if manifest is None:
                known = ", ".join([*TASK_TOOLS, *self.page_tools])
                return tool_error(ToolNotFound.code, f"no tool {params.name!r} (known: {known})")
            url = args.pop("url", None)
            plan = {"plan": [{"tool": manifest.key, "parameters": args}], "instruction": f"{manifest.key}"}
            return await self._run(ctx, {"plan": plan, "url": url})
        except CurllmError as e:
            problems = [p.to_dict() for p in e.problems]
            return tool_error(e.code, str(e), {"problems": problems} if problems else None)
        except Exception:  # never a traceback to the client; the log has it
            log.exception("MCP tool %s failed", params.name)
            return tool_error(
                InternalError.code, "the tool failed unexpectedly (a bug: the server log has the details)"
            )

    async def _run(self, ctx, body: dict) -> types.CallToolResult:
        for key in ("consent", "engine"):
            value = body.pop(key, None)
            if value is not None:  # a task option, as in the HTTP API's body
                body["options"] = {**(body.get("options") or {}), key: value}
        task = await self.service.prepare(
            parse_task({k: v for k, v in body.items() if v is not None}), mcp=True
        )
        ticket = self.service.slots.reserve()
        progress = 0
        result: dict | None = None
        events = self.service.events(task, ticket)
        try:
            async for event in events:
                progress += 1
                await ctx.session.report_progress(progress, None, _progress_message(event))
                if event["type"] == "complete":
                    result = event["data"]["result"]
                elif event["type"] == "error":
                    return tool_error(event["data"]["code"], event["data"]["message"])
        finally:
            await events.aclose()
            ticket.release()
        assert result is not None  # the stream ends in complete or error
        if not result["ok"]:
            first = (
                result["errors"][0] if result["errors"] else {"code": CurllmError.code, "message": "not ok"}
            )
            return tool_error(
                first["code"],
                "; ".join(f"[{e['code']}] {e['message']}" for e in result["errors"])[:2000],
                {"data": result["data"], "errors": result["errors"]},
            )
        return types.CallToolResult(content=_text(_summary(result)), structured_content=result["data"])


def build_server(service: TaskService) -> Server:
    """The MCP server over a task service (the caller starts and closes the service's browser)."""
    handlers = CurllmMCP(service)
    return Server(
        "curllm",
        version=__version__,
        title="curllm",
        instructions="Web data extraction: `run` an instruction on a URL (e.g. 'find products under 150 zł'), "
        "or call a page tool directly with its url. Results come back as structured content.",
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
    )


async def serve_stdio(service: TaskService) -> None:
    """Serve MCP on stdin/stdout until the client closes it (`curllm mcp`).

    A stdin line is at most the server's ``max_body_bytes``; bad lines are answered (`mcp_stdio`)."""
    from mcp.server.stdio import stdio_server

    from .mcp_stdio import MessageLines, claimed_stdin

    server = build_server(service)

    @contextlib.asynccontextmanager
    async def browser() -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.close()

    with claimed_stdin() as wire:
        lines = MessageLines(wire, service.settings.max_body_bytes)
        async with browser(), stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]
            lines.answer = write
            await server.run(read, write, server.create_initialization_options())
