"""Bad input and misbehaving parts through the real CLI: each ends in a clear, structured error
within its time limit, with no traceback (the hostile pages are in tests/browser/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tests" / "browser" / "tools"
sys.path.insert(0, str(ROOT / "tests" / "planner"))
from fake_llm import FakeLLM  # noqa: E402

from tests.warm_cache import fresh_cache  # noqa: E402


def curllm(
    *args: str, stdin: str | None = None, env_extra: dict | None = None, tmp: Path, timeout: float = 120
):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CURLLM_", "OPENAI_"))}
    env.update(
        {
            "CURLLM_LOAD_PLUGINS": "",
            "CURLLM_CACHE_DIR": str(fresh_cache(tmp / "cache")),
            "CURLLM_TOOLS_PATH": str(TOOLS),
            **(env_extra or {}),
        }
    )
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    out.seconds = time.monotonic() - started
    assert "Traceback" not in out.stderr + out.stdout, out.stderr
    return out


@pytest.mark.parametrize(
    "how, code, words",
    [
        ("raise", "TOOL_FAILED", "RuntimeError: the tool broke"),
        ("hang", "STEP_TIMEOUT", "did not finish within 1000 ms"),
    ],
)
def test_a_tool_that_raises_or_hangs(tmp_path, how, code, words):
    plan = json.dumps({"plan": [{"tool": "misbehaving", "parameters": {"how": how}, "retries": 0}]})
    out = curllm("--plan", "-", "--format", "json", stdin=plan, tmp=tmp_path)
    # The step's limit is what the error says below; the seconds are only a hang's bound (a loaded
    # machine stretches a CLI's start and end well past the tool's own second).
    assert out.returncode == 1 and out.seconds < 60
    result = json.loads(out.stdout)
    assert result["errors"][0]["code"] == code and words in result["errors"][0]["message"]


def test_a_plugin_that_fails_to_import_is_reported_on_every_run(tmp_path):
    site = tmp_path / "site"
    dist = site / "broken_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "entry_points.txt").write_text("[curllm]\nbroken = curllm_no_such_plugin_module\n")
    out = curllm("tools", "list", "--json", env_extra={"PYTHONPATH": str(site)}, tmp=tmp_path)
    del out  # CURLLM_LOAD_PLUGINS="" in curllm(): load it explicitly below
    out = curllm(
        "plugins",
        "list",
        "--json",
        env_extra={"PYTHONPATH": str(site), "CURLLM_LOAD_PLUGINS": "broken"},
        tmp=tmp_path,
    )
    assert out.returncode == 0
    broken = next(p for p in json.loads(out.stdout) if p["name"] == "broken")
    assert "curllm_no_such_plugin_module" in broken["error"]
    plan = json.dumps({"plan": [{"tool": "required_fields", "parameters": {"fields": ["name"]}}]})
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": "a"}]}))
    out = curllm(
        "--plan",
        "-",
        "--input",
        str(data),
        "--format",
        "json",
        stdin=plan,
        env_extra={"PYTHONPATH": str(site), "CURLLM_LOAD_PLUGINS": "broken"},
        tmp=tmp_path,
    )
    assert out.returncode == 0 and "plugin broken" in out.stderr


@pytest.fixture
def fake_llm():
    server = FakeLLM().start()
    yield server
    server.stop()


@pytest.mark.parametrize("kind", ["unreachable", "garbage", "error"])
def test_a_model_that_fails_hands_over_to_the_rule_planner(tmp_path, fake_llm, kind):
    """Each failure of the model, the rule planner's answer instead. The unreachable model in a real
    `curllm` process; the other two through the same console entry point in this process
    (`tests.in_process.cli_main`), since a process that asks a model imports litellm (~8 s of CPU)."""
    from fake_llm import Reply

    from tests.in_process import cli_main

    base = "http://127.0.0.1:9/v1" if kind == "unreachable" else fake_llm.base_url
    fake_llm.script("this is not a plan" if kind == "garbage" else Reply(status=500, body={"error": "down"}))
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": "a", "price": 99}, {"name": "b", "price": 120}]}))
    key = "sk-CURLLMTESTKEY-reliability-0042"
    args = ("keep products under 100 zł", "--input", str(data), "--model", "openai/x", "--format", "json")
    args += ("--events", str(tmp_path / "events.jsonl"))
    env = {"CURLLM_API_BASE": base, "OPENAI_API_KEY": key, "CURLLM_LLM_TIMEOUT": "10"}
    if kind == "unreachable":
        out = curllm(*args, env_extra=env, tmp=tmp_path)
    else:
        env |= {"CURLLM_CACHE_DIR": str(fresh_cache(tmp_path / "cache")), "CURLLM_TOOLS_PATH": str(TOOLS)}
        out = cli_main(args, env=env)
        assert "Traceback" not in out.stderr + out.stdout, out.stderr
    assert out.returncode == 0, out.stderr
    assert "using the rule planner" in out.stderr
    result = json.loads(out.stdout)
    assert [p["name"] for p in result["data"]["products"]] == ["a"]
    assert result["plan"]["planner"].startswith("rules (llm failed")
    everything = out.stdout + out.stderr + (tmp_path / "events.jsonl").read_text()
    everything += "".join(p.read_text() for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert key not in everything


@pytest.mark.parametrize(
    "args, words",
    [
        (["--plan", "-", "--timeout", "-3"], "--timeout"),
        (["--plan", "-", "--viewport", "big"], "viewport"),
        (["--plan", "-", "--input", "/nonexistent.json"], "cannot read"),
        (["tools", "show"], "Missing argument"),
        (["batch", "/nonexistent/tasks.jsonl"], "tasks"),
    ],
)
def test_bad_options_and_files_exit_2_with_a_message(tmp_path, args, words):
    """The first case in a real `curllm` process, the others through the same console entry point in
    this process (`tests.in_process.cli_main`: the same parser, checks, error line and exit code)."""
    from tests.in_process import cli_main

    plan = '{"plan": [{"tool": "required_fields", "parameters": {"fields": ["x"]}}]}'
    if args[-1] == "-3":
        out = curllm(*args, stdin=plan, tmp=tmp_path)
    else:
        env = {"CURLLM_CACHE_DIR": str(fresh_cache(tmp_path / "cache")), "CURLLM_TOOLS_PATH": str(TOOLS)}
        out = cli_main(args, stdin=plan, env=env)
        assert "Traceback" not in out.stderr + out.stdout, out.stderr
    assert out.returncode == 2, out.stderr
    assert words in out.stderr


def test_a_bad_config_file_exits_2(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('model = 3\nfrobnicate = "yes"\n')
    out = curllm("tools", "list", env_extra={"CURLLM_CONFIG": str(config)}, tmp=tmp_path)
    del out  # tools list does not read the config: only commands that run tasks do
    out = curllm(
        "keep products under 5 zł",
        "--input",
        "/dev/null",
        env_extra={"CURLLM_CONFIG": str(config)},
        tmp=tmp_path,
    )
    assert out.returncode == 2 and "config" in out.stderr
