"""`agentframe doctor --quick`'s checks on the server's config, as `POST /v1/doctor` shows
them: run in the server's process (a worker thread), one run at a time however many
requests ask (they share it), its result kept `FRESH_SECONDS` (the checks start the
config's tools: a client must not make the server do that in a loop)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path
from typing import Any

from agentframe_core import Config, diagnose, redact_data

__all__ = ["FRESH_SECONDS", "TIMEOUT_SECONDS", "Diagnoses"]

#: How long one run's result is shown again instead of running the checks anew.
FRESH_SECONDS = 30.0
#: How long a request waits for the run (which goes on, for the next request, past it).
TIMEOUT_SECONDS = 60.0


class Diagnoses:
    """The checks of one server's config: at most one run at a time, its result cached."""

    def __init__(self) -> None:
        self._running: asyncio.Task[dict[str, Any]] | None = None
        self._shown: dict[str, Any] | None = None
        self._at = 0.0
        self.runs = 0  # how many times the checks ran (what the tests count)

    async def report(self, config: Config | None, cwd: Path) -> dict[str, Any]:
        """`{"ok": ..., "checks": [...]}` as `agentframe doctor --json` prints it (secrets
        masked), or `{"error": why}` when the checks take longer than `TIMEOUT_SECONDS`."""
        if self._shown is not None and time.monotonic() - self._at < FRESH_SECONDS:
            return self._shown
        if self._running is None:
            self._running = asyncio.create_task(self._run(config, cwd))
        try:
            return await asyncio.wait_for(asyncio.shield(self._running), TIMEOUT_SECONDS)
        except TimeoutError:
            return {"error": f"agentframe doctor took longer than {TIMEOUT_SECONDS:.0f} s"}

    async def _run(self, config: Config | None, cwd: Path) -> dict[str, Any]:
        self.runs += 1
        file = config.file if config is not None else None
        profile = config.profile if config is not None else None
        try:
            checks = await asyncio.to_thread(diagnose, file, profile, cwd=cwd, quick=True)
            self._shown = {
                "ok": all(c.ok for c in checks),
                "checks": [redact_data(dataclasses.asdict(c)) for c in checks],
            }
            self._at = time.monotonic()
            return self._shown
        finally:
            self._running = None
