"""The OpenAPI description of the HTTP API, served at ``/openapi.json`` (written here, checked by tests)."""

from __future__ import annotations

from typing import Any

from .. import __version__
from ..errors import BadJSON, QueueFull
from .tasks import OPTION_KEYS

_ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "examples": [BadJSON.code, QueueFull.code]},
                "message": {"type": "string"},
                "problems": {"type": "array", "items": {"type": "object"}},
            },
        }
    },
}

_TASK = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "instruction": {"type": "string", "examples": ["find products under 150zł"]},
        "url": {"type": "string", "description": "The page to start from (http or https)."},
        "plan": {"type": "object", "description": "A plan document (instead of an instruction)."},
        "data": {"type": "object", "description": "Initial data keys for the plan."},
        "model": {
            "type": "string",
            "description": "A litellm model to plan with (default: the rule planner).",
        },
        "fields": {"type": "array", "items": {"type": "string"}},
        "limit": {"type": "integer", "minimum": 1},
        "options": {
            "type": "object",
            "additionalProperties": False,
            "properties": {k: {} for k in OPTION_KEYS},
            "description": "timeout (s, at most the server's limit), locale, user_agent, viewport "
            "(WIDTHxHEIGHT), load_images, consent (reject, accept or leave), engine (auto, http or browser), ready_timeout (s), block_domains (added to the server's), cache, max_replans.",
        },
    },
}

_RESULT = {
    "type": "object",
    "required": ["ok", "data", "steps", "errors", "plan", "timings"],
    "properties": {
        "ok": {"type": "boolean"},
        "data": {"type": "object"},
        "steps": {"type": "array", "items": {"type": "object"}},
        "errors": {"type": "array", "items": {"type": "object"}},
        "plan": {"type": ["object", "null"]},
        "timings": {"type": "object"},
    },
}

_TOOL = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "examples": ["extraction.products_generic"]},
        "category": {"type": "string"},
        "version": {"type": "string"},
        "description": {"type": "string"},
        "parameters": {"type": "object", "description": "JSON Schema of the tool's parameters."},
        "source": {"type": "string"},
    },
}


def _errors(*statuses: int) -> dict[str, Any]:
    text = {
        400: "Bad input (not JSON, a wrong field, a plan that fails the check, a URL the server does not open)",
        401: "No or wrong bearer token",
        403: "The target URL is refused by the network policy",
        404: "No such route or tool",
        413: "The body is larger than 1 MB",
        415: "The body is not sent as application/json",
        422: "No plan could be made for the instruction",
        429: "Every slot and queue place is taken (see Retry-After)",
        503: "No browser could be started",
        504: "The task outlived the server's time limit",
    }
    return {
        str(s): {"description": text[s], "content": {"application/json": {"schema": _ERROR}}}
        for s in statuses
    }


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


TASK_ERRORS = (400, 401, 403, 413, 415, 422, 429, 503, 504)


def openapi(secured: bool = False) -> dict:
    """The document; ``secured`` when the server requires a bearer token."""
    body = {"required": True, "content": {"application/json": {"schema": _TASK}}}
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "curllm",
            "version": __version__,
            "description": "Say what you want from a web page; get exactly that back. Step events stream "
            "as server-sent events with the same fields `curllm --events` writes.",
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "paths": {
            "/api/scrape/stream": {
                "post": {
                    "summary": "Run a task, streaming its events (text/event-stream)",
                    "requestBody": body,
                    "responses": {
                        "200": {
                            "description": "One SSE message per event (`event: <type>`, `data: <the event "
                            "as JSON>`), ending in `complete` (its data carries `result`) or `error`.",
                            "content": {"text/event-stream": {"schema": {"type": "string"}}},
                        },
                        **_errors(*TASK_ERRORS),
                    },
                }
            },
            "/api/scrape": {
                "post": {
                    "summary": "Run a task and return its result",
                    "requestBody": body,
                    "responses": {
                        "200": _json(_RESULT, "The result (ok may be false)"),
                        **_errors(*TASK_ERRORS),
                    },
                }
            },
            "/api/plan": {
                "post": {
                    "summary": "Plan an instruction (nothing runs)",
                    "requestBody": body,
                    "responses": {
                        "200": _json({"type": "object"}, "The plan document"),
                        **_errors(400, 401, 413, 415, 422),
                    },
                }
            },
            "/api/tools": {
                "get": {
                    "summary": "Every installed tool",
                    "responses": {
                        "200": _json({"type": "array", "items": _TOOL}, "The tools"),
                        **_errors(401),
                    },
                }
            },
            "/api/tools/{name}": {
                "get": {
                    "summary": "One tool (category.name, or a bare name when unambiguous)",
                    "parameters": [
                        {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {"200": _json(_TOOL, "The tool"), **_errors(401, 404)},
                }
            },
            "/api/health": {
                "get": {
                    "summary": "Whether the server and its browser are up (no token needed)",
                    "responses": {"200": _json({"type": "object"}, "Status")},
                }
            },
        },
    }
    if secured:
        doc["security"] = [{"bearer": []}]
    return doc
