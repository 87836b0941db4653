"""How a server runs: where it listens, who may call it, how much it runs at once, what it may fetch.

`ServerSettings` is what `curllm serve` builds from its options and what `create_app` takes. The
security rules live here, in one place: a server bound to anything but loopback needs a token, blocks
private target addresses unless told otherwise, MCP tool calls are refused private targets unless told
otherwise, and every server refuses ``file:`` targets.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from ..errors import UsageError
from ..executor import RunOptions
from ..policy import NetworkPolicy

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8787
DEFAULT_CONCURRENCY = 2
DEFAULT_QUEUE = 32
DEFAULT_TIME_LIMIT_S = 300.0
MAX_BODY_BYTES = 1024 * 1024  # 1 MB: a task body is an instruction, a plan, some data; never more
DEFAULT_MCP_SESSIONS = 100  # open /mcp sessions; one more is refused (503) unless one is idle
DEFAULT_MCP_IDLE_S = 300.0  # an /mcp session with no request for this long is closed
HEAD_TIMEOUT_S = 10.0  # CURLLM_SERVER_HEAD_TIMEOUT: a request's head must arrive within this
BODY_TIMEOUT_S = 20.0  # CURLLM_SERVER_BODY_TIMEOUT: its body within this (408 BODY_TIMEOUT)
MCP_PRIVATE_HINT = (
    "MCP tool calls are refused loopback and private addresses by default: start `curllm mcp` "
    "(or `curllm serve`) with --allow-private to allow them"
)
EXPOSED_PRIVATE_HINT = (
    "a server reachable from other machines refuses loopback and private addresses: start it with "
    "--allow-private to allow them"
)


def env_seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """A time limit in seconds from the environment variable ``name`` (``default`` when unset);
    UsageError naming it when it is not a number greater than 0."""
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise UsageError(f"{name}={raw!r}: give a number of seconds greater than 0 (default {default:g})")
    return value


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``: addresses no other machine can reach."""
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ServerSettings:
    """A server's settings. ``options`` are the browser and network defaults of every task."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    queue: int = DEFAULT_QUEUE  # tasks waiting for a slot; one more is refused with 429
    time_limit_s: float = DEFAULT_TIME_LIMIT_S  # per request; a request may ask for less, never more
    allow_private: bool = False
    cors_origins: tuple[str, ...] = ()
    max_body_bytes: int = MAX_BODY_BYTES
    mcp: bool = True  # mount the MCP endpoint at /mcp when the `mcp` package is installed
    head_timeout_s: float = HEAD_TIMEOUT_S  # seconds a connection has to send a request's head
    body_timeout_s: float = BODY_TIMEOUT_S  # seconds a request has to send its body
    mcp_sessions: int = DEFAULT_MCP_SESSIONS
    mcp_idle_s: float = DEFAULT_MCP_IDLE_S
    options: RunOptions = field(default_factory=RunOptions)

    def policy_for(self, *, mcp: bool) -> NetworkPolicy:
        """The network policy of a task: an MCP tool call (an agent drives it, and a page can steer an
        agent) is refused loopback and private targets unless ``allow_private``."""
        policy = self.options.policy
        if mcp and not self.allow_private and not policy.block_private:
            return replace(policy, block_private=True, private_hint=MCP_PRIVATE_HINT)
        return policy

    @property
    def exposed(self) -> bool:
        """Reachable from other machines: the stricter rules apply."""
        return not is_loopback(self.host)

    def checked(self) -> ServerSettings:
        """These settings with the security rules applied; UsageError when they cannot be met.

        Off loopback a token is required, and target URLs resolving to private addresses are refused
        (the network policy's ``block_private``) unless ``allow_private``.
        """
        problems = []
        if self.exposed and not self.token:
            problems.append(
                f"--host {self.host} makes the server reachable from other machines: give --token TOKEN "
                "(clients then send 'Authorization: Bearer TOKEN'), or keep the default --host 127.0.0.1"
            )
        if self.token is not None and len(self.token) < 8:
            problems.append("--token must be at least 8 characters (use a long random string)")
        if self.concurrency < 1:
            problems.append(f"--concurrency must be at least 1, not {self.concurrency}")
        if self.queue < 0:
            problems.append(f"--queue must be 0 or more, not {self.queue}")
        if not self.time_limit_s > 0:
            problems.append(f"the time limit must be positive, not {self.time_limit_s}")
        if problems:
            raise UsageError("; ".join(problems))
        if self.exposed and not self.allow_private and not self.options.policy.block_private:
            policy = replace(self.options.policy, block_private=True, private_hint=EXPOSED_PRIVATE_HINT)
            return replace(self, options=replace(self.options, policy=policy))
        return self
