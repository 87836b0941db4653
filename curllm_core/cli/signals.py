"""Ctrl-C and SIGTERM during a batch: the first stops it gracefully, a second leaves at once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable

from .exits import EXIT_SIGINT, EXIT_SIGTERM


class StopOnSignal:
    """While active, SIGINT/SIGTERM call ``on_first`` once; a second signal exits the process.

    Every result line written so far is already on disk when the second signal ends the process.
    ``received`` is the first signal's number (None when none came).
    """

    def __init__(self, on_first: Callable[[], None]):
        self.on_first = on_first
        self.received: int | None = None
        self._handled: list[int] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def exit_code(self) -> int | None:
        """130 after SIGINT, 143 after SIGTERM, None without a signal."""
        if self.received is None:
            return None
        return EXIT_SIGINT if self.received == signal.SIGINT else EXIT_SIGTERM

    def _on_signal(self, signum: int) -> None:
        if self.received is not None:  # a second Ctrl-C: leave now
            os._exit(EXIT_SIGINT if signum == signal.SIGINT else EXIT_SIGTERM)
        self.received = signum
        self.on_first()

    def __enter__(self) -> StopOnSignal:
        self._loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                self._loop.add_signal_handler(signum, self._on_signal, signum)
                self._handled.append(signum)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None
        for signum in self._handled:
            self._loop.remove_signal_handler(signum)
        self._handled.clear()
