"""Hostile input, part two, through the real CLI: plugins that hang or try to end curllm, secrets a
model echoes, config values out of range and config files that are not files, bad arguments.

Each case ends in a clear outcome within its limit (a recorded error, a message and exit 2), never a
traceback, a hang or a silent exit. The network cases are in tests/browser/test_security.py.

Each contract keeps a real `curllm` process (its exit code, its stderr line); the further cases of a
contract (more config values, more usage errors) run the same console entry point in this process
(`tests.in_process.cli_main`: the same parser, checks, error line and exit code), a few tenths of a
second each instead of a Python process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.in_process import cli_main
from tests.warm_cache import fresh_cache

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tests" / "browser" / "tools"
DATA_PLAN = json.dumps({"plan": [{"tool": "required_fields", "parameters": {"fields": ["name"]}}]})


def curllm(*args: str, stdin: str | None = None, env: dict | None = None, tmp: Path, timeout: float = 120):
    full = {k: v for k, v in os.environ.items() if not k.startswith(("CURLLM_", "OPENAI_"))}
    full.update(
        {
            "CURLLM_LOAD_PLUGINS": "",
            "CURLLM_CACHE_DIR": str(fresh_cache(tmp / "cache")),
            "CURLLM_CONFIG": str(tmp / "no-config.toml"),
            **(env or {}),
        }
    )
    if full.get("CURLLM_CONFIG") == str(tmp / "no-config.toml"):
        del full["CURLLM_CONFIG"]
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full,
        timeout=timeout,
    )
    assert "Traceback" not in out.stderr + out.stdout, out.stderr
    return out


# --- plugins --------------------------------------------------------------------------------------

PLUGINS = {
    "hangs_on_import": "import time\ntime.sleep(3600)\n",
    "exits_on_import": "raise SystemExit(0)\n",
    "exits_in_hook": (
        "from curllm_core import hookimpl\n\n@hookimpl\ndef curllm_register_tools(register):\n"
        "    raise SystemExit(3)\n"
    ),
    "interrupts_in_hook": (
        "from curllm_core import hookimpl\n\n@hookimpl\ndef curllm_register_tools(register):\n"
        "    raise KeyboardInterrupt\n"
    ),
    "hangs_in_hook": (
        "import time\nfrom curllm_core import hookimpl\n\n@hookimpl\ndef curllm_register_tools(register):\n"
        "    time.sleep(3600)\n"
    ),
}


@pytest.fixture
def bad_plugins(tmp_path):
    """A site directory (for PYTHONPATH) with one installed plugin per way of misbehaving."""
    site = tmp_path / "site"
    dist = site / "bad_plugins-1.0.dist-info"
    dist.mkdir(parents=True)
    lines = ["[curllm]"]
    for name, code in PLUGINS.items():
        (site / f"curllm_test_{name}.py").write_text(code)
        lines.append(f"{name} = curllm_test_{name}")
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return site


def test_a_plugin_that_hangs_is_named_and_skipped(tmp_path, bad_plugins):
    env = {
        "PYTHONPATH": str(bad_plugins),
        "CURLLM_PLUGIN_TIMEOUT": "4",
        "CURLLM_LOAD_PLUGINS": "hangs_on_import",
    }
    out = curllm("plugins", "list", "--json", env=env, tmp=tmp_path, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "plugin 'hangs_on_import' is taking long" in out.stderr
    [entry] = [p for p in json.loads(out.stdout) if p["name"] == "hangs_on_import"]
    # Cut at its limit (the plugin sleeps an hour; the command's bound is 60 s), and said so.
    assert "did not finish within 4 s" in entry["error"]


def test_a_hook_that_hangs_is_skipped_and_the_run_goes_on(tmp_path, bad_plugins):
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": "a"}]}))
    env = {
        "PYTHONPATH": str(bad_plugins),
        "CURLLM_PLUGIN_TIMEOUT": "3",
        "CURLLM_LOAD_PLUGINS": "hangs_in_hook",
    }
    out = curllm(
        "--plan", "-", "--input", str(data), "--format", "json", stdin=DATA_PLAN, env=env, tmp=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert "plugin hangs_in_hook: curllm_register_tools failed: did not finish within 3 s" in out.stderr


@pytest.mark.parametrize(
    "args",
    [["--help"], ["--version"], ["run", "--help"], ["plugins", "list", "--no-load"], ["tools", "--help"]],
)
def test_escape_hatches_work_with_a_hanging_plugin_installed(tmp_path, bad_plugins, args):
    # Every plugin may load (no CURLLM_LOAD_PLUGINS): these commands must not import any.
    env = {"PYTHONPATH": str(bad_plugins)}
    full = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")} | env
    full["CURLLM_CACHE_DIR"] = str(tmp_path / "cache")
    out = subprocess.run(
        [sys.executable, "-m", "curllm_core", *args], capture_output=True, text=True, env=full, timeout=60
    )
    assert out.returncode == 0, out.stderr
    # No plugin was imported: none is named as slow or failing (one that hangs an hour at import
    # would be, when cut at its limit; not cut, the command's 60 s bound ends the test).
    assert "plugin" not in out.stderr, out.stderr
    if "--no-load" in args:
        assert "hangs_on_import" in out.stdout and "curllm_test_hangs_on_import" in out.stdout


@pytest.mark.parametrize(
    "name, words",
    [
        ("exits_on_import", "failed to load: SystemExit(0): a plugin may not end curllm"),
        ("exits_in_hook", "curllm_register_tools failed: SystemExit(3): a plugin may not end curllm"),
        ("interrupts_in_hook", "curllm_register_tools failed: KeyboardInterrupt raised by the plugin itself"),
    ],
)
def test_a_plugin_cannot_end_curllm(tmp_path, bad_plugins, name, words):
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": "a"}]}))
    env = {"PYTHONPATH": str(bad_plugins), "CURLLM_LOAD_PLUGINS": name}
    out = curllm(
        "--plan", "-", "--input", str(data), "--format", "json", stdin=DATA_PLAN, env=env, tmp=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["ok"] is True
    assert f"plugin {name}: {words}" in out.stderr


# --- secrets a model echoes -----------------------------------------------------------------------


@pytest.fixture
def fake_llm():
    sys.path.insert(0, str(ROOT / "tests" / "planner"))
    from fake_llm import FakeLLM

    server = FakeLLM().start()
    yield server
    server.stop()


def test_a_key_a_model_echoes_is_scrubbed_from_everything_written(tmp_path, fake_llm):
    key = "sk-CURLLMTESTKEY-echoed-by-the-model-0042"
    fake_llm.script(
        {
            "plan": [
                {
                    "tool": "validation.price_range_check",
                    "parameters": {"max": 100, "mode": "filter", "key": "products"},
                    "description": f"keeps cheap products (request had Authorization: Bearer {key})",
                }
            ],
            "expected_output": "products",
        }
    )
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": "a", "price": 99}, {"name": f"b {key}", "price": 50}]}))
    events = tmp_path / "events.jsonl"
    out = curllm(
        "keep products under 100 zł",
        "--input",
        str(data),
        "--model",
        "openai/x",
        "--format",
        "json",
        "--events",
        str(events),
        env={"CURLLM_API_BASE": fake_llm.base_url, "OPENAI_API_KEY": key, "CURLLM_LLM_TIMEOUT": "10"},
        tmp=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert fake_llm.calls >= 1 and key in fake_llm.tokens  # the key went to the model, and only there
    result = json.loads(out.stdout)
    assert result["plan"]["planner"].startswith("llm:"), result["plan"]
    assert "Bearer ***" in json.dumps(result["plan"]) and result["data"]["products"][1]["name"] == "b ***"
    written = out.stdout + out.stderr + events.read_text()
    cached = "".join(p.read_text() for p in (tmp_path / "cache").rglob("*.json"))
    assert key not in written + cached
    assert "Bearer ***" in events.read_text() and "Bearer ***" in cached  # scrubbed, not dropped


# --- the config file ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, words",
    [
        ("concurrency = 1000", "concurrency must be between 1 and 64, got 1000"),
        ("concurrency = 0", "concurrency must be between 1 and 64, got 0"),
        ("timeout = -5", "timeout must be a number of seconds greater than 0, got -5"),
        ("timeout = 0", "timeout must be a number of seconds greater than 0"),
        ("timeout = inf", "timeout must be a number of seconds greater than 0, got inf"),
        ('viewport = "huge"', "viewport must look like 1280x800"),
        ('block_domains = ["localhost:8080"]', "block_domains[0] 'localhost:8080' has a port"),
        ('model = ""', "model is empty"),
        (
            'consent = "sometimes"',
            "consent: 'sometimes' is not a consent mode: use one of reject, accept, leave",
        ),
    ],
)
def test_config_values_out_of_range_exit_2(tmp_path, text, words):
    config = tmp_path / "config.toml"
    config.write_text(text + "\n")
    # The first value through the real command; each further one through its entry point here.
    real = text == "concurrency = 1000"
    for args in (["--plan", "-", "--input", "-"], ["batch", "-"]):
        env = {"CURLLM_CONFIG": str(config)}
        out = (
            curllm(*args, stdin="{}", env=env, tmp=tmp_path)
            if real
            else cli_main(args, stdin="{}", env={**env, "CURLLM_CACHE_DIR": str(tmp_path / "cache")})
        )
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert f"config file {config}" in out.stderr and words in out.stderr
        assert "Traceback" not in out.stderr + out.stdout


@pytest.mark.parametrize("kind", ["directory", "not-utf8", "endless", "huge"])
def test_a_config_file_that_is_not_one_exits_2(tmp_path, kind):
    if kind == "directory":
        config, words = tmp_path / "confdir", "is a directory"
        config.mkdir()
    elif kind == "not-utf8":
        config, words = tmp_path / "config.toml", "not UTF-8 text"
        config.write_bytes(b'model = "caf\xe9"\n')
    elif kind == "endless":
        config, words = Path("/dev/zero"), "not a regular file"
    else:
        config, words = tmp_path / "config.toml", "larger than 1024 KiB"
        config.write_text("# " + "x" * (2 * 1024 * 1024) + "\n")
    args = ("--plan", "-", "--input", "-")
    env = {"CURLLM_CONFIG": str(config)}
    out = (  # the endless file through the real command, the others through its entry point here
        curllm(*args, stdin="{}", env=env, tmp=tmp_path, timeout=30)
        if kind == "endless"
        else cli_main(args, stdin="{}", env={**env, "CURLLM_CACHE_DIR": str(tmp_path / "cache")})
    )
    assert out.returncode == 2, out.stderr
    assert words in out.stderr and out.stderr.startswith("curllm: error [BAD_USAGE]")
    assert "Traceback" not in out.stderr + out.stdout


# --- bad arguments and output ---------------------------------------------------------------------


def test_an_argument_that_is_not_utf8_exits_2(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<title>x</title>")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env["CURLLM_CACHE_DIR"] = str(tmp_path / "cache")
    out = subprocess.run(
        [
            sys.executable.encode(),
            b"-m",
            b"curllm_core",
            b"find \xff\xfe products",
            b"--url",
            str(page).encode(),
            b"--plan-only",
        ],
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 2
    assert b"curllm: error [BAD_USAGE]: argument 1 is not valid UTF-8 text" in out.stderr
    assert b"Traceback" not in out.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (["--format", "xml", "x"], "Invalid value for '--format'"),
        (["run", "--nope"], "No such option '--nope'"),
        (["batch"], "Missing argument 'TASKS'"),
        (["tools", "show"], "Missing argument"),
    ],
)
def test_clicks_own_usage_errors_use_the_documented_line(tmp_path, args, words):
    # the first through the real command, the others through its entry point here
    out = curllm(*args, tmp=tmp_path) if args[0] == "--format" else cli_main(args)
    assert out.returncode == 2
    assert out.stderr.startswith("curllm: error [BAD_USAGE]: ") and words in out.stderr
    assert "--help`" in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("target", ["missing-dir/out.json", "a-directory"])
def test_an_unwritable_output_is_refused_before_the_run(tmp_path, target):
    (tmp_path / "a-directory").mkdir()
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": "a"}]}))
    events = tmp_path / "events.jsonl"
    args = ("--plan", "-", "--input", str(data), "-o", str(tmp_path / target), "--events", str(events))
    out = (  # the missing directory through the real command, the directory through its entry point
        curllm(*args, stdin=DATA_PLAN, tmp=tmp_path)
        if target.startswith("missing")
        else cli_main(args, stdin=DATA_PLAN, env={"CURLLM_CACHE_DIR": str(tmp_path / "cache")})
    )
    assert out.returncode == 2 and str(tmp_path / target) in out.stderr and "BAD_USAGE" in out.stderr
    assert "tool_call" not in (events.read_text() if events.exists() else "")  # nothing ran


@pytest.mark.parametrize(
    "url, words",
    [
        ("./missing.html", "no such file missing.html"),
        ("missing.html", "no such file missing.html"),
        ("htps://example.com/", "only http(s) and file URLs"),
    ],
)
def test_a_start_url_that_cannot_be_opened_exits_2(tmp_path, url, words):
    # the first through the real command, the others through its entry point here
    env = {"CURLLM_CACHE_DIR": str(tmp_path / "cache")}
    args = ("find products", "--url", url)
    out = curllm(*args, tmp=tmp_path) if url.startswith("./") else cli_main(args, env=env)
    assert out.returncode == 2 and "curllm: error [BAD_URL]" in out.stderr and words in out.stderr
    out = cli_main((url, "find products"), env=env) if url == "missing.html" else out
    assert out.returncode == 2 and words in out.stderr
    assert "Traceback" not in out.stderr + out.stdout


def test_an_empty_task_file_says_so(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("\n   \n")
    out = curllm("batch", str(tasks), tmp=tmp_path)
    assert out.returncode == 0
    assert "0 task(s)" in out.stderr and "the task file has no tasks" in out.stderr


def test_model_without_the_llm_extra_says_how_to_install_it(tmp_path):
    shim = tmp_path / "nollm" / "litellm"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'litellm'\", name='litellm')\n"
    )
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": "a", "price": 5}]}))
    out = curllm(
        "keep products under 100 zł",
        "--input",
        str(data),
        "--model",
        "openai/x",
        env={"PYTHONPATH": str(shim.parent)},
        tmp=tmp_path,
    )
    assert out.returncode == 2
    assert "pip install 'curllm[llm]'" in out.stderr and out.stderr.startswith("curllm: error [BAD_USAGE]")


def test_control_characters_are_neutralised_on_a_terminal_only(tmp_path):
    import pty

    nasty = "Evil\x1b]0;pwned\x07 \x1b[2J\x9b31m name"
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": nasty, "price": 5}]}))
    plan = json.dumps(
        {
            "plan": [{"tool": "required_fields", "parameters": {"fields": ["name"]}}],
            "expected_output": "products",
        }
    )
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env.update({"CURLLM_CACHE_DIR": str(tmp_path / "cache"), "CURLLM_LOAD_PLUGINS": "", "COLUMNS": "200"})
    for fmt in ("table", "csv"):
        master, slave = pty.openpty()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "curllm_core",
                "--plan",
                str(plan_file),
                "--input",
                str(data),
                "--format",
                fmt,
            ],
            stdout=slave,
            stderr=subprocess.PIPE,
            env=env,
        )
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        proc.wait(timeout=60)
        os.close(master)
        text = shown.decode("utf-8", errors="replace")
        assert proc.returncode == 0, text
        assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text, repr(text)
        assert "Evil␛]0;pwned" in text and "␛[2J" in text  # shown, not obeyed
    # To a file (or a pipe) the data is exactly what the page had.
    out_file = tmp_path / "out.csv"
    out = curllm(
        "--plan", str(plan_file), "--input", str(data), "--format", "csv", "-o", str(out_file), tmp=tmp_path
    )
    assert out.returncode == 0 and nasty in out_file.read_text()
    out = curllm("--plan", str(plan_file), "--input", str(data), "--format", "json", tmp=tmp_path)
    assert json.loads(out.stdout)["data"]["products"][0]["name"] == nasty


def test_a_proxy_the_policy_cannot_chain_to_exits_2(tmp_path):
    out = curllm(
        "--plan",
        "-",
        "--url",
        "http://example.com/",
        "--block-domain",
        "x.test",
        "--proxy",
        "socks5://127.0.0.1:9",
        stdin=json.dumps({"plan": [{"tool": "extraction.products_generic"}]}),
        tmp=tmp_path,
    )
    assert out.returncode == 2 and "only an http:// proxy is supported" in out.stderr
