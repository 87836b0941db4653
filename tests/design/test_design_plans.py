"""The orchestration design's example plans and manifests run as written (issue 15, part 1).

Through the real CLI in a subprocess, on the example shop served on 127.0.0.1: the truth is the
shop's own catalogue (``select_products``), never a hard-coded answer.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.warm_cache import fresh_cache

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop" / "serve.py"

CENEO_PLAN = {
    "plan": [{"tool": "extraction.products_ceneo", "parameters": {"max_price": 150}}],
    "expected_output": "products",
}
FILTER_PLAN = {
    "plan": [{"tool": "forms.price_filter", "parameters": {"max": 150, "submit": True}}],
    "expected_output": "products",
    "fallback": "extraction.products_generic",
}
#: The design's manifest of products_ceneo, as written there: no entrypoint, max_price required.
DESIGN_MANIFEST = {
    "name": "products_ceneo",
    "version": "1.0.0",
    "description": "Extract products from Ceneo.pl listings with price filtering",
    "category": "extraction",
    "triggers": ["ceneo", "produkty", "ceny"],
    "parameters": {
        "type": "object",
        "properties": {
            "max_price": {"type": "number", "default": 999999},
            "min_price": {"type": "number", "default": 0, "optional": True},
            "category": {"type": "string", "optional": True},
        },
        "required": ["max_price"],
    },
    "output_schema": {
        "type": "object",
        "properties": {"products": {"type": "array", "items": {"type": "object"}}},
    },
    "dependencies": ["playwright", "page"],
    "produces": ["products"],
}


def _serve():
    spec = importlib.util.spec_from_file_location("design_shop_serve", SHOP)
    serve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serve)
    return serve


@pytest.fixture(scope="module")
def shop():
    serve = _serve()
    serve.ShopHandler.quiet = True
    server = serve.make_server(port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield serve, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture
def env(tmp_path) -> dict:
    env = {
        **os.environ,
        "CURLLM_CACHE_DIR": str(fresh_cache(tmp_path / "cache")),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    for name in ("CURLLM_MODEL", "CURLLM_TOOLS_PATH", "CURLLM_LOAD_PLUGINS", "CURLLM_CONFIG"):
        env.pop(name, None)
    return env


def curllm(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "curllm_core", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def run_plan(plan: dict, url: str, env: dict, tmp_path: Path) -> dict:
    file = tmp_path / "plan.json"
    file.write_text(json.dumps(plan), encoding="utf-8")
    done = curllm("--plan", str(file), "--url", url, "--format", "json", env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.browser
def test_the_designs_ceneo_plan_runs_unchanged(shop, env, tmp_path, browser_path):
    serve, url = shop
    result = run_plan(CENEO_PLAN, url, env, tmp_path)
    # One extraction step reads the page it is given: the first page of the listing.
    on_page = serve.select_products()[: serve.PER_PAGE]
    expected = sorted(p["name"] for p in on_page if p["price"] <= 150)
    assert expected, "the first page must hold products in range, else this test proves nothing"
    assert sorted(p["name"] for p in result["data"]["products"]) == expected
    assert all(p["price"] <= 150 for p in result["data"]["products"])


@pytest.mark.browser
def test_the_designs_price_filter_plan_runs_unchanged(shop, env, tmp_path, browser_path):
    serve, url = shop
    result = run_plan(FILTER_PLAN, url, env, tmp_path)
    expected = sorted(p["name"] for p in serve.select_products(price_max=150))
    assert len(expected) > serve.PER_PAGE  # more than one page: every page of the filtered listing
    assert sorted(p["name"] for p in result["data"]["products"]) == expected
    tools = [s["tool"] for s in result["steps"]]
    assert tools[0] == "forms.price_filter" and result["ok"] is True


def test_the_filter_plan_without_its_fallback_is_refused(env, tmp_path):
    plan = {k: v for k, v in FILTER_PLAN.items() if k != "fallback"}
    file = tmp_path / "plan.json"
    file.write_text(json.dumps(plan), encoding="utf-8")
    done = curllm("--plan", str(file), "--plan-only", env=env)
    assert done.returncode == 2
    assert "expected_output 'products' is not produced by any step" in done.stderr


def test_a_manifest_without_entrypoint_resolves_to_the_builtin(env, tmp_path):
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "products_ceneo.json").write_text(json.dumps(DESIGN_MANIFEST), encoding="utf-8")
    done = curllm("tools", "validate", str(tools), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "entrypoint curllm_core.tools.extraction.products_ceneo:run by convention: the built-in module"
        in done.stdout
    )


BESIDE = '''
async def run(ctx, label: str = "x"):
    """Reads the page's title: a tool implemented beside its manifest."""
    return {"title": {"text": await ctx.page.title(), "label": label}}
'''


def _beside_manifest() -> dict:
    return {
        "name": "page_title",
        "version": "1.0.0",
        "description": "The page's title",
        "category": "extraction",
        "parameters": {"type": "object", "properties": {"label": {"type": "string", "default": "x"}}},
        "output_schema": {"type": "object", "required": ["title"]},
        "dependencies": ["page"],
        "produces": ["title"],
    }


def test_a_manifest_without_entrypoint_resolves_to_the_module_beside_it(env, tmp_path):
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "page_title.json").write_text(json.dumps(_beside_manifest()), encoding="utf-8")
    (tools / "page_title.py").write_text(BESIDE, encoding="utf-8")
    done = curllm("tools", "validate", str(tools), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "entrypoint page_title:run by convention: the module of the same name beside the manifest" in (
        done.stdout
    )
    (tools / "page_title.py").unlink()  # nothing beside it and no such built-in: a clear problem
    done = curllm("tools", "validate", str(tools), env=env)
    assert done.returncode == 1
    assert "curllm_core.tools.extraction.page_title" in done.stdout


@pytest.mark.browser
def test_the_module_beside_runs_from_the_tools_path(shop, env, tmp_path, browser_path):
    _, url = shop
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "page_title.json").write_text(json.dumps(_beside_manifest()), encoding="utf-8")
    (tools / "page_title.py").write_text(BESIDE, encoding="utf-8")
    env = {**env, "CURLLM_TOOLS_PATH": str(tools)}
    plan = {
        "plan": [{"tool": "extraction.page_title", "parameters": {"label": "y"}}],
        "expected_output": "title",
    }
    result = run_plan(plan, url, env, tmp_path)
    assert result["data"]["title"] == {"text": "Wszystkie produkty – Sklep Demo", "label": "y"}
